#!/bin/sh
# Install the Debian packages a make target needs, only those missing.
# Usage: tools/install-deps.sh GROUP...   (build, test, demo, bench, vm)
set -eu

pkgs=""
for group in "$@"; do
	case "$group" in
	build) pkgs="$pkgs make gcc clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev libjson-c-dev pkg-config systemtap-sdt-dev" ;;
	test) pkgs="$pkgs python3 tmux prometheus protobuf-compiler liburing-dev fio chromium valgrind libclang-rt-14-dev procps util-linux mount e2fsprogs openmpi-bin python3-mpi4py python3-numpy python3-h5py strace attr tar coreutils" ;;
	demo) pkgs="$pkgs python3 python3-numpy python3-h5py python3-torch" ;;
	bench) pkgs="$pkgs strace bpftrace linux-perf python3" ;;
	vm) pkgs="$pkgs qemu-system-x86 busybox-static cpio" ;;
	*) echo "install-deps: unknown group '$group'" >&2; exit 2 ;;
	esac
done

missing=""
for p in $pkgs; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing Debian packages:$missing (run as root to install them)" >&2
	exit 1
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
# shellcheck disable=SC2086
if ! { apt-get update -q && apt-get install -y -q $missing; } >"$log" 2>&1; then
	tail -n 30 "$log" >&2
	rm -f "$log"
	echo "install-deps: apt-get failed" >&2
	exit 1
fi
rm -f "$log"
