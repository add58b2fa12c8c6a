#!/bin/sh
# Real tools doing the file work of a job's set-up and checkpoints, for the
# comparison with strace (tests/test_strace_compare.py): tar c/x, cp -a,
# ln, ln -s, chmod, chown, touch, setfattr/getfattr, and Python's os.*.
# Usage: real_tools.sh DIR PYTHON   (DIR: an empty directory with user xattrs)
set -eu
cd "$1"
python=$2

mkdir src
printf 'hello\n' >src/a.txt
head -c 100000 /dev/zero >src/b.bin
ln src/a.txt src/a.hard
ln -s a.txt src/a.link
chmod 640 src/a.txt
chown 1:1 src/b.bin
touch -d '2020-01-01 00:00:00' src/b.bin
touch src/new
setfattr -n user.dltrace -v value src/a.txt
getfattr -d src/a.txt >/dev/null
tar --xattrs -cf src.tar src
mkdir x
tar --xattrs -xf src.tar -C x
cp -a src copy
"$python" - <<'EOF'
import fcntl
import mmap
import os

os.chdir('copy')
os.access('a.txt', os.R_OK | os.W_OK)
os.chmod('a.txt', 0o600)
os.chown('b.bin', 2, 2)
os.utime('a.txt', (1000, 2000))
os.utime('a.txt', ns=(3000000001, 4000000002))
os.link('a.txt', 'a.hard2')
os.symlink('a.hard2', 'a.link2')
os.readlink('a.link2')
os.truncate('b.bin', 8192)
os.statvfs('.')
os.setxattr('a.txt', 'user.py', b'1234')
os.getxattr('a.txt', 'user.py')
os.listxattr('a.txt')
os.removexattr('a.txt', 'user.py')
os.mkfifo('fifo', 0o600)
fd = os.open('b.bin', os.O_RDWR)
os.posix_fadvise(fd, 0, 4096, os.POSIX_FADV_SEQUENTIAL)
fcntl.flock(fd, fcntl.LOCK_EX)
fcntl.lockf(fd, fcntl.LOCK_SH, 100, 10)
m = mmap.mmap(fd, 8192)
m.madvise(mmap.MADV_WILLNEED)
m[0:4] = b'abcd'
m.flush()
m.close()
os.fsync(fd)
os.close(fd)
os.sync()
os.chdir('..')
EOF
rm -rf src x copy src.tar
