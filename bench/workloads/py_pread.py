"""micro for Python stacks: CALLS cached 4 KiB os.pread calls of FILE from a
Python loop, timed inside.  Offsets cycle through the file's first 256
pages.  Prints one JSON object: calls, elapsed_ns, ns_per_call.

Usage: py_pread.py FILE CALLS
"""
import json
import os
import sys
import time


def main():
    path, calls = sys.argv[1], int(sys.argv[2])
    fd = os.open(path, os.O_RDONLY)
    pread = os.pread
    t0 = time.monotonic_ns()
    for i in range(calls):
        pread(fd, 4096, (i & 255) << 12)
    elapsed = time.monotonic_ns() - t0
    os.close(fd)
    print(json.dumps({'calls': calls, 'elapsed_ns': elapsed, 'ns_per_call': elapsed / calls}))


if __name__ == '__main__':
    main()
