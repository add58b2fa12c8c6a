#!/bin/sh
# Regenerate the decoder's golden records (`make golden-records`, as root):
# each workload traced once with --save-records; its records (NAME.rec), its
# own log (NAME.log) and the trace the records decode to (NAME.json, by
# golden_decode) are kept here.  Everything runs under one fixed directory,
# with copies of the workloads, so that the records name no path of the
# checkout or of this machine.  The decode of the records must equal the
# trace dltrace wrote while tracing, but for its first line (the metadata)
# and its last (the summary): else nothing is kept.
# Usage: tests/unit/golden/record.sh BUILD_DIR
set -eu
BUILD=$(cd "${1:-build}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=/tmp/dltrace-golden
LAYERS=syscall,cache,uring

[ "$(id -u)" = 0 ] || { echo "record.sh: tracing needs root" >&2; exit 1; }
rm -rf "$WORK"
mkdir -p "$WORK/bin" "$WORK/out"
for w in io_sequence exec_helper meta_sequence aio_cases uring_cases fd_kinds; do
	cp "$BUILD/tests/$w" "$WORK/bin/"
done
cd "$WORK"

# record NAME WORKLOAD ARGS...: trace it, decode its records, check the two agree
record() {
	name=$1
	shift
	"$BUILD/dltrace" -q --layers $LAYERS --save-records "out/$name.rec" -o "out/$name.live.json" \
		-- "$@" > "out/$name.log"
	start=$(sed -n '1s/.*"start_mono_ns":\([0-9]*\).*/\1/p' "out/$name.live.json")
	"$BUILD/tests/golden_decode" --start "$start" "out/$name.rec" "out/$name.json" > /dev/null
	sed '1d;$d' "out/$name.live.json" | sed '$d' > "out/$name.live.events"
	sed '1d;$d' "out/$name.json" | sed '$d' > "out/$name.events"
	if ! cmp -s "out/$name.live.events" "out/$name.events"; then
		echo "record.sh: $name: the records do not decode to the trace written live:" >&2
		diff "out/$name.live.events" "out/$name.events" | head -20 >&2
		exit 1
	fi
}

mkdir io meta
record io "$WORK/bin/io_sequence" "$WORK/io" "$WORK/bin/exec_helper"
record meta "$WORK/bin/meta_sequence" "$WORK/meta"
head -c 1048576 /dev/zero | tr '\0' 'd' > in.bin
record aio "$WORK/bin/aio_cases" buffered "$WORK/in.bin"
record uring "$WORK/bin/uring_cases" fixed "$WORK/in.bin"
record fd "$WORK/bin/fd_kinds" pair 2

for name in io meta aio uring fd; do
	cp "out/$name.rec" "out/$name.log" "out/$name.json" "$HERE/"
done
echo "record.sh: wrote $(cd "$HERE" && ls ./*.rec | wc -l) record files to $HERE; review the diff"
