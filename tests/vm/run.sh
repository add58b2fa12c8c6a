#!/bin/sh
# Run a command inside a QEMU VM (TCG) booted from the kernel prepare.sh
# fetched, chrooted into this machine's root file system (read-only over 9p),
# in the repository directory, as root.  Prints the command's output and
# exits with its status (124 when it timed out, 125 when the VM failed).
#
# Usage: tests/vm/run.sh [--timeout SECONDS] [--keep] [--writable DIR]...
#                        [--] COMMAND [ARG...]
#
# Inside the VM: /tmp is a fresh ext4 file system on a virtio disk (the only
# writable place besides the job directory, /run and /dev/shm); proc, sysfs,
# devtmpfs, tracefs, debugfs, bpffs and cgroup2 (on /sys/fs/cgroup) are
# mounted.  $DLTRACE_VM_OUT is a host directory, writable in the VM at the
# same path, for results (kept with --keep or when the VM failed; its path is
# printed).
# --writable DIR (relative to the repository or absolute; created on the host
# when missing): inside the VM, DIR is an empty directory on the scratch disk,
# for tests that write into the checkout.
# Environment: VM_MEMORY (default 3G), VM_CPUS (default 2),
# VM_ACCEL (default tcg,thread=single),
# VM_SCRATCH_SIZE (default 4G), VM_KERNEL_PACKAGE (see prepare.sh).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd -P)
vmdir="$repo/build/vm"

# The VM mounts its own file systems on these: a checkout below them is
# out of its sight.
case "$repo/" in
/tmp/* | /run/* | /dev/shm/* | /proc/* | /sys/*)
	echo "tests/vm/run.sh: the checkout ($repo) is below a directory the VM mounts its own file system on (/tmp, /run, /dev/shm); clone it elsewhere, e.g. under /root or /var/tmp" >&2
	exit 2
	;;
esac

usage() {
	echo "usage: tests/vm/run.sh [--timeout SECONDS] [--keep] [--writable DIR]... [--] COMMAND [ARG...]" >&2
	exit 2
}

timeout=900
keep=0
writable=
while [ $# -gt 0 ]; do
	case "$1" in
	--timeout)
		[ $# -ge 2 ] || usage
		timeout=$2
		shift 2
		;;
	--keep)
		keep=1
		shift
		;;
	--writable)
		[ $# -ge 2 ] || usage
		case "$2" in
		/*) dir=$2 ;;
		*) dir="$repo/$2" ;;
		esac
		mkdir -p "$dir"
		writable="$writable$(cd "$dir" && pwd)
"
		shift 2
		;;
	--)
		shift
		break
		;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || usage

"$here/prepare.sh" >/dev/null
. "$vmdir/vm.env"

mkdir -p "$vmdir/out"
job=$(mktemp -d "$vmdir/out/run.XXXXXX")
disk="$job.img"
qpid=
# never leave the VM running: stop it when this script is interrupted
stop_vm() {
	if [ -n "$qpid" ]; then
		kill -TERM "$qpid" 2>/dev/null
		wait "$qpid" 2>/dev/null
		qpid=
	fi
}
cleanup() {
	stop_vm
	rm -f "$disk"
	if [ "$keep" = 0 ]; then
		rm -rf "$job"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# shell-quote each argument
quote() {
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}
{
	echo "cd $(quote "$repo") || exit 126"
	echo "export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	echo "export HOME=/root LANG=C.UTF-8 TERM=dumb PYTHONDONTWRITEBYTECODE=1"
	echo "export DLTRACE_VM=1 DLTRACE_VM_OUT=$(quote "$job")"
	printf 'exec'
	for arg in "$@"; do
		printf ' %s' "$(quote "$arg")"
	done
	echo
} >"$job/job.sh"
printf '%s' "$writable" >"$job/writable"

truncate -s "${VM_SCRATCH_SIZE:-4G}" "$disk"
mkfs.ext4 -q -F -L vmtmp "$disk"

# One host thread for all vCPUs (thread=single): with QEMU 7.2's multi-threaded
# TCG, a vCPU can keep running stale translated code after another vCPU
# live-patches the kernel (text_poke_bp, as attaching and detaching fentry
# programs does) and loops on the int3 at the patched function's first byte
# forever (soft lockup at vfs_read+0x0 or rw_verify_area+0x0).
accel=${VM_ACCEL:-tcg,thread=single}
# the VM dumps its CPUs' and tasks' backtraces to the console this long
# before the timeout, to show what hangs
watchdog=$((timeout > 60 ? timeout - 20 : timeout))
start=$(date +%s.%N)
set +e
timeout -k 10 "$timeout" qemu-system-x86_64 \
	-accel "$accel" -cpu max -smp "${VM_CPUS:-2}" -m "${VM_MEMORY:-3G}" \
	-nodefaults -no-reboot -display none \
	-kernel "$VM_KERNEL" -initrd "$VM_INITRD" \
	-append "console=ttyS0 loglevel=5 panic=-1 vmjob=$job vmwatchdog=$watchdog" \
	-serial "file:$job/console.log" \
	-chardev stdio,id=out,signal=off -serial chardev:out \
	-fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap \
	-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot \
	-fsdev local,id=job,path="$job",security_model=none \
	-device virtio-9p-pci,fsdev=job,mount_tag=job \
	-drive file="$disk",format=raw,if=virtio,cache=unsafe \
	</dev/null &
qpid=$!
wait "$qpid"
qrc=$?
qpid=
set -e
end=$(date +%s.%N)

if [ -s "$job/status" ]; then
	status=$(cat "$job/status")
	started=$(stat -c %.3Y "$job/started")
	awk -v s="$start" -v b="$started" -v e="$end" -v st="$status" -v k="$VM_KERNEL_PACKAGE" 'BEGIN {
		printf "vm-run: exit status %s; %.1f s boot to command, %.1f s in all (%s)\n", st, b - s, e - s, k }' >&2
else
	if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
		echo "vm-run: timed out after $timeout s; kernel console:" >&2
		status=124
	else
		echo "vm-run: the VM stopped without a status (qemu exit $qrc); kernel console:" >&2
		status=125
	fi
	# its last 40 lines before the watchdog's dump, and the CPUs' backtraces
	awk '/^vm-init: the job still runs/ { dump = 1; for (i = n - 40; i < n; i++) if (i >= 0) print l[i] }
		dump && /sysrq: Show Blocked State/ { exit }
		dump { print; next }
		{ l[n++] = $0 }
		END { if (!dump) for (i = n - 40; i < n; i++) if (i >= 0) print l[i] }' \
		"$job/console.log" >&2 2>/dev/null || true
	keep=1
fi
[ "$keep" = 1 ] && echo "vm-run: kept $job (the kernel log is console.log)" >&2
exit "$status"
