#!/bin/sh
# A job's data staging with the usual tools, for dltrace replay's tests:
# DIR/data (made before tracing: files, a hard link, a symlink, user xattrs)
# is archived with tar, unpacked, copied with cp -a, linked and tagged.
# Usage: stage_data.sh DIR   (writes DIR/out, which must not exist)
set -eu
d=$1
mkdir "$d/out"
tar --xattrs -cf "$d/out/data.tar" -C "$d" data
mkdir "$d/out/x"
tar --xattrs -xf "$d/out/data.tar" -C "$d/out/x"
cp -a "$d/data" "$d/out/copy"
ln "$d/out/copy/a.bin" "$d/out/copy/a.hard2"
ln -s a.bin "$d/out/copy/a.link2"
setfattr -n user.stage -v done "$d/out/copy/a.bin"
getfattr -d "$d/data/a.bin" >/dev/null
