#!/bin/sh
# Prepare the test VM: Debian's stock kernel (linux-image-amd64's current
# image package) and a busybox initramfs that mounts the host's root file
# system read-only over 9p.  Everything goes under build/vm/; cached, so a
# second run does nothing.
#
# Usage: tests/vm/prepare.sh
# Environment: VM_KERNEL_PACKAGE (default: what linux-image-amd64 depends on)
# Writes build/vm/vm.env (the kernel and initramfs run.sh boots).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
vmdir="$repo/build/vm"

# Modules the init loads, dependencies first (resolved below from the .ko
# files): 9p over virtio for the host's root, virtio-blk + ext4 for the
# scratch disk that becomes /tmp, loop for the tests' loop devices.
MODULES="virtio_pci 9pnet_virtio 9p virtio_blk crc32c_generic ext4 loop"

die() {
	echo "vm-prepare: $*" >&2
	exit 1
}

for tool in qemu-system-x86_64 busybox cpio gzip dpkg-deb apt-get mkfs.ext4; do
	command -v "$tool" >/dev/null 2>&1 || die "$tool is missing (run tools/install-deps.sh vm)"
done
[ -x /bin/busybox ] || die "/bin/busybox is missing (apt-get install busybox-static)"
busybox_bin=/bin/busybox
# the initramfs has no libc: it needs the static build
if ldd "$busybox_bin" >/dev/null 2>&1; then
	die "$busybox_bin is not statically linked (apt-get install busybox-static)"
fi

pkg=${VM_KERNEL_PACKAGE:-}
if [ -z "$pkg" ]; then
	pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-/ { print $2; exit }')
	if [ -z "$pkg" ]; then
		apt-get update -q >/dev/null || die "apt-get update failed"
		pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
			awk '$1 == "Depends:" && $2 ~ /^linux-image-/ { print $2; exit }')
	fi
	[ -n "$pkg" ] || die "cannot resolve linux-image-amd64 to a kernel package"
fi
kver=${pkg#linux-image-}
kdir="$vmdir/$pkg"
mkdir -p "$kdir"

# 1. the kernel package, its vmlinuz and the modules we need
# (modules/.done holds the list it was made for)
if [ ! -f "$kdir/vmlinuz" ] || [ "$(cat "$kdir/modules/.done" 2>/dev/null)" != "$MODULES" ]; then
	deb=$(find "$kdir" -maxdepth 1 -name "${pkg}_*.deb" | head -n 1)
	if [ -z "$deb" ]; then
		echo "vm-prepare: downloading $pkg"
		(cd "$kdir" && apt-get download -q -o APT::Sandbox::User=root "$pkg" >/dev/null) ||
			die "apt-get download $pkg failed"
		deb=$(find "$kdir" -maxdepth 1 -name "${pkg}_*.deb" | head -n 1)
	fi
	tree="$kdir/tree"
	rm -rf "$tree" "$kdir/modules"
	dpkg-deb -x "$deb" "$tree"
	cp "$tree/boot/vmlinuz-$kver" "$kdir/vmlinuz"
	cp "$tree/boot/config-$kver" "$kdir/config"
	moddir="$tree/lib/modules/$kver/kernel"
	[ -d "$moddir" ] || moddir="$tree/usr/lib/modules/$kver/kernel"
	[ -d "$moddir" ] || die "no modules in $deb"
	find "$moddir" -name '*.ko*' >"$kdir/module-files"

	mkdir -p "$kdir/modules"
	: >"$kdir/modules/order"
	# copy module $1 (after its dependencies), decompressed, into modules/;
	# a subshell, so that the recursion keeps its own variables
	add_module() (
		name=$(echo "$1" | tr - _)
		[ -f "$kdir/modules/$name.ko" ] && return 0
		file=$(awk -v n="$name" '{ b = $0; sub(/.*\//, "", b); sub(/\.ko(\.xz|\.zst|\.gz)?$/, "", b);
			gsub(/-/, "_", b); if (b == n) { print; exit } }' "$kdir/module-files")
		[ -n "$file" ] || die "module $name not found in $pkg"
		out="$kdir/modules/$name.ko"
		case "$file" in
		*.ko.xz) xz -dc "$file" >"$out" ;;
		*.ko.zst) zstd -qdc "$file" >"$out" ;;
		*.ko.gz) gzip -dc "$file" >"$out" ;;
		*) cp "$file" "$out" ;;
		esac
		deps=$(tr '\0' '\n' <"$out" | grep -a '^depends=' | head -n 1 | sed 's/^depends=//' | tr , ' ')
		for dep in $deps; do
			add_module "$dep"
		done
		echo "$name" >>"$kdir/modules/order"
	)
	for m in $MODULES; do
		add_module "$m"
	done
	rm -rf "$tree" "$kdir/module-files"
	echo "$MODULES" >"$kdir/modules/.done"
fi

# 2. the initramfs: static busybox, the init script, the modules
initrd="$kdir/initramfs.cpio.gz"
if [ ! -f "$initrd" ] ||
	[ -n "$(find "$here/init" "$here/prepare.sh" "$busybox_bin" -newer "$initrd")" ]; then
	stage="$kdir/initramfs"
	rm -rf "$stage"
	mkdir -p "$stage/bin" "$stage/dev" "$stage/proc" "$stage/sys" "$stage/root" "$stage/modules"
	cp "$busybox_bin" "$stage/bin/busybox"
	ln -s busybox "$stage/bin/sh"
	cp "$here/init" "$stage/init"
	chmod 755 "$stage/init"
	cp "$kdir"/modules/*.ko "$kdir/modules/order" "$stage/modules/"
	(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) | gzip -9 >"$initrd.tmp"
	mv "$initrd.tmp" "$initrd"
	rm -rf "$stage"
fi

cat >"$vmdir/vm.env.tmp" <<EOF
VM_KERNEL_PACKAGE=$pkg
VM_KERNEL=$kdir/vmlinuz
VM_INITRD=$initrd
EOF
mv "$vmdir/vm.env.tmp" "$vmdir/vm.env"
echo "vm-prepare: $pkg ready"
