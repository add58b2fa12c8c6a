#!/bin/sh
# The test suite as `make vm-test` runs it inside the VM (tests/vm/run.sh):
# say which kernel this is, check that it offers the attach methods the
# VM run is for (fentry, fexit, kprobe, kretprobe on the VFS), then run the
# tests named in the arguments (default: all).
set -u
echo "vm-suite: kernel $(uname -r), started $(cut -d' ' -f1 /proc/uptime) s after boot"
if ! build/vm/attach_check vfs_read vfs_write; then
	echo "vm-suite: this kernel lacks an attach method the VM tests rely on"
	exit 1
fi
exec /usr/bin/python3 tests/run_tests.py --strict "$@"
