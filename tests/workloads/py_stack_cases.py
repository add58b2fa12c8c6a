"""Python code with known frames doing known I/O, for tests/test_python_stacks.py.

Usage: py_stack_cases.py LOG DIR CASE...

Each case reads or opens files of its own under DIR and appends to LOG one
JSON line per expectation, written by the code that is about to do the I/O:

  {"case", "path", "syscalls": [names] or null (any), "file", "func", "line",
   "pid", "tid", "ts": CLOCK_MONOTONIC ns, "depth": frames of the stack there}

"line" is the line of the statement doing the I/O (the line after the
expect() call), "func" the code object's qualified name (its name on 3.10),
"file" its co_filename.  Nothing here is hard-coded: the test compares the
trace with what the interpreter itself says.  LOG reaches processes started
by multiprocessing's spawn through the environment (PY_STACK_LOG).
"""
import json
import multiprocessing
import os
import shutil
import sys
import threading
import time

LOG = os.environ.get('PY_STACK_LOG')


def here():
    """(file, function, line + 1) of the caller: the I/O is on the next line."""
    f = sys._getframe(1)
    code = f.f_code
    return code.co_filename, getattr(code, 'co_qualname', code.co_name), f.f_lineno + 1


def depth():
    n, f = 0, sys._getframe(1)
    while f:
        n, f = n + 1, f.f_back
    return n


def expect(case, path, syscalls, where, **extra):
    rec = {'case': case, 'path': os.path.abspath(path), 'syscalls': syscalls,
           'file': where[0], 'func': where[1], 'line': where[2],
           'pid': os.getpid(), 'tid': threading.get_native_id(),
           'ts': time.monotonic_ns(), 'depth': depth() - 1}
    rec.update(extra)
    with open(LOG, 'a') as f:
        f.write(json.dumps(rec) + '\n')


def make_file(path, size=4096):
    if not os.path.exists(path):
        with open(path, 'wb') as f:
            f.write(os.urandom(size))


def read_direct(case, path):
    """open() and read(): openat at the open line, reads at the read line."""
    make_file(path)
    expect(case, path, ['openat'], here())
    f = open(path, 'rb')
    expect(case, path, ['read'], here())
    data = f.read()
    f.close()
    return data


def pread_fd(case, path):
    make_file(path)
    expect(case, path, ['openat'], here())
    fd = os.open(path, os.O_RDONLY)
    expect(case, path, ['pread64'], here())
    data = os.pread(fd, 100, 0)
    # a stat of the descriptor (glibc: newfstatat(fd, "", AT_EMPTY_PATH)), a batched record
    expect(case, path, ['newfstatat'], here())
    os.fstat(fd)
    os.close(fd)
    return data


def case_direct(d):
    read_direct('direct', os.path.join(d, 'direct.bin'))
    pread_fd('direct', os.path.join(d, 'direct_pread.bin'))


def case_copy(d):
    """shutil.copyfile (sendfile, inside the standard library: the application's line is
    the call's) and os.copy_file_range: their records carry the stack after the record."""
    src = os.path.join(d, 'copy_src.bin')
    make_file(src, 1 << 16)
    expect('copy', src, ['sendfile'], here())
    shutil.copyfile(src, os.path.join(d, 'copy_dst.bin'))
    fin = os.open(src, os.O_RDONLY)
    fout = os.open(os.path.join(d, 'copy_dst2.bin'), os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    expect('copy', src, ['copy_file_range'], here())
    os.copy_file_range(fin, fout, 1 << 16)
    os.close(fin)
    os.close(fout)


def case_names(d):
    """mkdir, rename, unlink, rmdir and their *at forms, getdents64, ftruncate, fallocate,
    fsync, fdatasync: calls of the shared programs whose records carry the stack too."""
    sub = os.path.join(d, 'names')
    expect('names', sub, ['mkdir'], here())
    os.mkdir(sub)
    fd = os.open(d, os.O_RDONLY)
    expect('names', os.path.join(d, 'names_at'), ['mkdirat'], here())
    os.mkdir('names_at', dir_fd=fd)
    make_file(os.path.join(sub, 'f.bin'))
    expect('names', os.path.join(sub, 'f.bin'), ['rename'], here())
    os.rename(os.path.join(sub, 'f.bin'), os.path.join(sub, 'g.bin'))
    expect('names', os.path.join(sub, 'g.bin'), ['renameat'], here())
    os.rename('names/g.bin', 'names/h.bin', src_dir_fd=fd, dst_dir_fd=fd)
    expect('names', sub, ['getdents64'], here())
    os.listdir(sub)
    wfd = os.open(os.path.join(sub, 'h.bin'), os.O_RDWR)
    expect('names', os.path.join(sub, 'h.bin'), ['ftruncate'], here())
    os.ftruncate(wfd, 8192)
    expect('names', os.path.join(sub, 'h.bin'), ['fallocate'], here())
    os.posix_fallocate(wfd, 0, 16384)
    expect('names', os.path.join(sub, 'h.bin'), ['fsync'], here())
    os.fsync(wfd)
    expect('names', os.path.join(sub, 'h.bin'), ['fdatasync'], here())
    os.fdatasync(wfd)
    os.close(wfd)
    expect('names', os.path.join(sub, 'h.bin'), ['unlink'], here())
    os.unlink(os.path.join(sub, 'h.bin'))
    expect('names', os.path.join(d, 'names_at'), ['unlinkat'], here())
    os.rmdir('names_at', dir_fd=fd)
    expect('names', sub, ['rmdir'], here())
    os.rmdir(sub)
    os.close(fd)


def case_thread(d):
    t = threading.Thread(target=read_direct, args=('thread', os.path.join(d, 'thread.bin')))
    t.start()
    t.join()


def case_fork(d):
    ctx = multiprocessing.get_context('fork')
    p = ctx.Process(target=read_direct, args=('fork', os.path.join(d, 'fork.bin')))
    p.start()
    p.join()


def case_spawn(d):
    ctx = multiprocessing.get_context('spawn')
    p = ctx.Process(target=read_direct, args=('spawn', os.path.join(d, 'spawn.bin')))
    p.start()
    p.join()


def recurse(n, path):
    if n == 0:
        return pread_deep(path)
    return recurse(n - 1, path)


def pread_deep(path):
    """Below 41 frames of recurse(): deeper than the walk goes."""
    make_file(path)
    fd = os.open(path, os.O_RDONLY)
    expect('deep', path, ['pread64'], here())
    data = os.pread(fd, 100, 0)
    os.close(fd)
    return data


def case_deep(d):
    recurse(40, os.path.join(d, 'deep.bin'))


def fifo_reader(path, out, tids):
    tids.append(threading.get_native_id())
    expect('gil', path, ['openat'], here())
    fd = os.open(path, os.O_RDONLY)
    expect('gil', path, ['read'], here())
    out.append(os.read(fd, 16))
    os.close(fd)


def in_read(tid):
    """Whether thread tid is blocked in read(2) (x86_64: syscall 0)."""
    with open('/proc/self/task/%d/syscall' % tid) as f:
        return f.read().split()[0] == '0'


def case_gil(d):
    """A read blocked with the GIL released while the main thread runs Python code: the
    main thread writes only once the reader is inside its read, 0.3 s later, so the read
    lasts at least 0.3 s however the threads are scheduled."""
    path = os.path.join(d, 'gil.fifo')
    if not os.path.exists(path):
        os.mkfifo(path)
    out, tids = [], []
    t = threading.Thread(target=fifo_reader, args=(path, out, tids))
    t.start()
    wfd = os.open(path, os.O_WRONLY)
    while not in_read(tids[0]):  # its open returned when ours did; then it reads
        time.sleep(0.001)
    end = time.monotonic() + 0.3
    spins = 0
    while time.monotonic() < end:  # Python code, holding the GIL in turns
        spins += sum(range(100))
    os.write(wfd, b'go')
    os.close(wfd)
    t.join()
    assert out == [b'go'], out


def case_numpy(d):
    import numpy as np
    path = os.path.join(d, 'array.npy')
    np.save(path, np.arange(1000))
    expect('numpy', path, None, here())
    a = np.load(path)
    assert a[999] == 999


def case_h5py(d):
    import h5py
    import numpy as np
    path = os.path.join(d, 'data.h5')
    with h5py.File(path, 'w') as f:
        f.create_dataset('x', data=np.arange(100000))
    expect('h5py', path, ['openat'], here())
    f = h5py.File(path, 'r')
    expect('h5py', path, ['pread64'], here())
    x = f['x'][:]
    f.close()
    assert x[99999] == 99999


def case_torch(d):
    import torch
    path = os.path.join(d, 'tensor.pt')
    torch.save(torch.arange(1000), path)
    expect('torch', path, None, here())
    t = torch.load(path)
    assert int(t[999]) == 999


class FileDataset:
    def __init__(self, paths):
        self.paths = paths

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        path = self.paths[i]
        expect('dataloader', path, ['openat', 'read'], here())
        with open(path, 'rb') as f: data = f.read()
        return len(data)


def case_dataloader(d):
    import torch.utils.data as tud
    paths = [os.path.join(d, 'sample%d.bin' % i) for i in range(8)]
    for p in paths:
        make_file(p)
    ds = type('Samples', (FileDataset, tud.Dataset), {})(paths)
    loader = tud.DataLoader(ds, batch_size=2, num_workers=2)
    assert sum(int(b.sum()) for b in loader) == 8 * 4096


def case_counts(d):
    """Known numbers of reads at two lines (the per-location counts)."""
    path = os.path.join(d, 'counts.bin')
    make_file(path, 1 << 16)
    fd = os.open(path, os.O_RDONLY)
    expect('counts', path, ['pread64'], here(), count=37, size=100)
    for i in range(37): os.pread(fd, 100, i)
    expect('counts', path, ['pread64'], here(), count=11, size=1000)
    for i in range(11): os.pread(fd, 1000, 4 * i)
    os.close(fd)


def case_findings(d):
    """Small reads at four lines, random ones at one (the Python locations behind the
    report's findings): 1500 preads of 100 bytes, 1200 of 200 bytes backwards (1199
    random: the first is past every byte read), 300 of 4096, 10 of 100; a file each."""
    fds = []
    for name, size in (('a', 1 << 18), ('b', 1 << 18), ('c', 1 << 21), ('d', 4096)):
        path = os.path.join(d, 'findings-%s.bin' % name)
        make_file(path, size)
        fds.append((path, os.open(path, os.O_RDONLY)))
    (pa, a), (pb, b), (pc, c), (pd, dd) = fds
    expect('findings', pa, ['pread64'], here(), count=1500, size=100)
    for i in range(1500): os.pread(a, 100, i * 100)
    expect('findings', pb, ['pread64'], here(), count=1200, size=200)
    for i in range(1200): os.pread(b, 200, (1199 - i) * 200)
    expect('findings', pc, ['pread64'], here(), count=300, size=4096)
    for i in range(300): os.pread(c, 4096, i * 4096)
    expect('findings', pd, ['pread64'], here(), count=10, size=100)
    for i in range(10): os.pread(dd, 100, i * 100)
    for _, fd in fds:
        os.close(fd)


def case_attach(d):
    """Started before the tracer: waits for DIR/go, then reads."""
    go = os.path.join(d, 'go')
    with open(os.path.join(d, 'ready'), 'w') as f:
        f.write(str(os.getpid()))
    while not os.path.exists(go):
        time.sleep(0.02)
    read_direct('attach', os.path.join(d, 'attach.bin'))


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith('case_')}


def main():
    global LOG
    LOG = os.environ['PY_STACK_LOG'] = sys.argv[1]
    d = sys.argv[2]
    for name in sys.argv[3:]:
        CASES[name](d)


if __name__ == '__main__':
    main()
