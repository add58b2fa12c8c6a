#!/bin/sh
# make demo: trace the PyTorch example end to end, say where the trace is, and
# print its report (also written as an HTML page).
# Usage: run_demo.sh DLTRACE PYTHON OUTDIR
set -eu
dltrace=$1
python=$2
out=$3
here=$(dirname "$0")
data="$out/data"

mkdir -p "$out"
if [ ! -f "$data/train.h5" ]; then
	"$python" "$here/make_dataset.py" "$data"
fi
rm -rf "$out/checkpoints"
echo "demo: training a small CNN for 2 epochs under dltrace (4 DataLoader workers)"
# The levels the example has: its markers (epochs, steps, batch fetches,
# checkpoints; on by default) and its HDF5 reads.  The hdf5 layer is opt-in
# because its uprobes make every HDF5 call on the machine trap, traced or
# not (docs/user-guide.md "Levels"); the demo owns the machine, so it turns it on.
echo "demo: layers: the defaults and +hdf5 (the example reads its samples with h5py)"
"$dltrace" -o "$out/train.json.gz" --layers +hdf5 -- "$python" "$here/train.py" "$data" "$out/checkpoints" --epochs 2 --workers 4
echo
echo "demo: trace written to $out/train.json.gz"
echo "demo: open https://ui.perfetto.dev and use 'Open trace file' to load it"
echo
echo "demo: the I/O report (dltrace report --html $out/report.html $out/train.json.gz):"
echo
"$dltrace" report --html "$out/report.html" "$out/train.json.gz"
echo
echo "demo: HTML report written to $out/report.html (open it in a browser)"
