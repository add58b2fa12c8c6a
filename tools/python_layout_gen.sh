#!/bin/sh
# Print the user/probe/python_offsets.c row of a CPython from its headers:
#   tools/python_layout_gen.sh PYTHON [CC]
# PYTHON is the interpreter (its sysconfig names the include directory).
set -e
python=${1:?usage: $0 PYTHON [CC]}
cc=${2:-cc}
here=$(dirname "$0")
inc=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
if [ ! -f "$inc/internal/pycore_runtime.h" ]; then
	echo "$0: no internal headers in $inc (install the interpreter's development files)" >&2
	exit 1
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$cc" -w -I"$inc" -I"$inc/internal" "$here/python_layout_gen.c" -o "$out"
"$out"
