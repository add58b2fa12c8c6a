#!/bin/sh
# make demo: trace the PyTorch example end to end and say where the trace is.
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
"$dltrace" -o "$out/train.json.gz" -- "$python" "$here/train.py" "$data" "$out/checkpoints" --epochs 2 --workers 4
echo
echo "demo: trace written to $out/train.json.gz"
echo "demo: open https://ui.perfetto.dev and use 'Open trace file' to load it"
