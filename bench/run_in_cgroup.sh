#!/bin/sh
# Run COMMAND inside the cgroup v2 directory CGROUP (the benchmark's job).
# With --hold: print "@@start" before COMMAND and "@@hold STATUS" after it,
# then wait for standard input to close, so that the caller can read the
# tracer's state at both points.
# Usage: run_in_cgroup.sh CGROUP [--hold] COMMAND [ARGS...]
set -e
echo $$ >"$1/cgroup.procs"
shift
if [ "$1" != --hold ]; then
	exec "$@"
fi
shift
echo "@@start"
status=0
"$@" || status=$?
echo "@@hold $status"
read -r _ || true
exit "$status"
