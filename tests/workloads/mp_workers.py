"""Python multiprocessing workers reading files, with the start method given.

Usage: mp_workers.py METHOD DIR N   (METHOD: fork, spawn or forkserver)
Each of N worker processes (one per file) reads DIR/w<i>.bin (created here,
3000 + i bytes) in one read and reports its pid; prints one JSON line
{"method": ..., "workers": {"<pid>": "<path>", ...}, "sizes": {...}}.
"""
import json
import multiprocessing as mp
import os
import sys


def read_file(path, results):
    with open(path, 'rb', buffering=0) as f:
        data = f.read(1 << 20)
    results.put((os.getpid(), path, len(data)))


def main():
    method, directory, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    paths = []
    for i in range(n):
        p = os.path.join(directory, 'w%d.bin' % i)
        with open(p, 'wb') as f:
            f.write(b'x' * (3000 + i))
        paths.append(p)
    ctx = mp.get_context(method)
    queue = ctx.Queue()
    procs = [ctx.Process(target=read_file, args=(p, queue)) for p in paths]
    for p in procs:
        p.start()
    results = [queue.get() for _ in procs]
    for p in procs:
        p.join()
    print(json.dumps({'method': method,
                      'workers': {str(pid): path for pid, path, _ in results},
                      'sizes': {path: size for _, path, size in results}}))


if __name__ == '__main__':
    main()
