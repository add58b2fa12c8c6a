#!/bin/sh
# Trace a short command under valgrind's memcheck; fail on any error or leak.
# Usage: tests/valgrind_trace.sh DLTRACE
set -eu
dltrace=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
valgrind --error-exitcode=99 --leak-check=full --suppressions="$(dirname "$0")/valgrind.supp" --errors-for-leak-kinds=definite,indirect \
	--trace-children=no --log-file="$out/valgrind.log" \
	"$dltrace" -q -o "$out/t.json.gz" -- cat /etc/hostname >/dev/null || status=$?
if [ "$status" -ne 0 ] || grep -q "ERROR SUMMARY: [1-9]" "$out/valgrind.log"; then
	cat "$out/valgrind.log" >&2
	exit 1
fi
grep -E "ERROR SUMMARY|definitely lost|indirectly lost" "$out/valgrind.log"
echo "valgrind: clean"
