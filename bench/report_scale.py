#!/usr/bin/env python3
"""How fast and in how much memory `dltrace report` summarizes a large trace.

Writes a synthetic trace in dltrace's format (by default 10 million events:
DataLoader-like workers reading 200,000 sample files over several epochs
with open/stat/lseek/read/close, a main thread writing checkpoints, Python
imports and failed probes), then runs `dltrace report` on it and measures
the wall time, the CPU time and the peak resident memory of that process.
The goal: 10 million events in at most 60 s and 2 GiB.

Usage: report_scale.py [--events N] [--plain] [--json] [--keep DIR] [--dltrace PATH]
  --plain   write the trace uncompressed (default: .json.gz, gzip level 1)
  --json    time `dltrace report --json` (default: the terminal report)
  --keep    write the trace into DIR and keep it (default: a temporary directory)
Prints one line "report_scale: ..." and exits 1 when a goal is missed.
Python 3 standard library only.
"""
import argparse
import gzip
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DLTRACE = os.path.join(os.path.dirname(HERE), 'build', 'dltrace')
GOAL_SECONDS = 60
GOAL_BYTES = 2 << 30

HEADER = ('[{"name":"dltrace","ph":"M","pid":0,"tid":0,"args":{"format":"dltrace-chrome-1",'
          '"version":"0.1.0","kernel":"6.1.0","hostname":"bench","target":"command python3 '
          'train.py","layers":"syscall","clock":"CLOCK_MONOTONIC","start_mono_ns":1000000000,'
          '"start_wall_ns":1700000000000000000,"start_wall":"2023-11-14T22:13:20.000000000Z",'
          '"tracer_pid":1}}')


def us(ns):
    return '%d.%03d' % (ns // 1000, ns % 1000)


class Writer:
    def __init__(self, out):
        self.out = out
        self.buf = []
        self.events = 1

    def emit(self, line):
        self.buf.append('\n,' + line)
        self.events += 1
        if len(self.buf) >= 4096:
            self.out.write(''.join(self.buf).encode())
            self.buf = []

    def flush(self):
        self.out.write(''.join(self.buf).encode())
        self.buf = []

    def syscall(self, name, cat, ts, pid, tid, dur, args):
        self.emit('{"name":"%s","cat":"%s","ph":"X","ts":%s,"pid":%d,"tid":%d,"dur":%s,'
                  '"args":{%s}}' % (name, cat, us(ts), pid, tid, us(dur), args))


def generate(path, events, plain):
    """A DataLoader-shaped job; returns the number of events written."""
    raw = open(path, 'wb')
    out = raw if plain else gzip.GzipFile(fileobj=raw, mode='wb', compresslevel=1, mtime=0)
    w = Writer(out)
    out.write(HEADER.encode())
    nfiles, workers, main = 200000, 8, 1000
    ts = 1000000
    # start-up: imports (reads of .py files, failed probes)
    for i in range(20000):
        p = '/usr/lib/python3/dist-packages/pkg%d/mod%d.py' % (i % 300, i)
        if i % 4 == 0:
            w.syscall('newfstatat', 'metadata', ts, main, main, 900,
                      '"ret":-1,"errno":"ENOENT","path":"%s"' % p)
        else:
            w.syscall('read', 'data', ts, main, main, 1500,
                      '"ret":4096,"fd":3,"path":"%s","offset":0,"size":4096' % p)
        ts += 3000
    for k in range(workers):
        w.emit('{"name":"fork","cat":"process","ph":"X","ts":%s,"pid":%d,"tid":%d,"dur":0.000,'
               '"bind_id":%d,"flow_out":true,"args":{"child_pid":%d}}' %
               (us(ts), main, main, k + 1, main + 1 + k))
        w.emit('{"name":"process_start","cat":"process","ph":"X","ts":%s,"pid":%d,"tid":%d,'
               '"dur":0.000,"bind_id":%d,"flow_in":true,"args":{"parent_pid":%d}}' %
               (us(ts), main + 1 + k, main + 1 + k, k + 1, main))
    sample = 0
    while w.events < events - 100:
        pid = main + 1 + sample % workers
        f = sample % nfiles
        path = '/data/imagenet/train/%03d/img_%07d.jpeg' % (f % 1000, f)
        size = 65536 + (f * 7919) % 131072
        ts += 2000
        w.syscall('openat', 'metadata', ts, pid, pid, 4200,
                  '"ret":12,"fd":12,"path":"%s","flags":"O_RDONLY|O_CLOEXEC","ino":%d,'
                  '"dev":"259:1","fs":"xfs","file_size":%d' % (path, 1000 + f, size))
        ts += 5000
        w.syscall('newfstatat', 'metadata', ts, pid, pid, 800,
                  '"ret":0,"dirfd":12,"path":"%s","flags":"0x1000"' % path)
        ts += 1000
        w.syscall('lseek', 'metadata', ts, pid, pid, 500,
                  '"ret":0,"fd":12,"path":"%s","offset":0,"whence":"SEEK_CUR"' % path)
        off = 0
        while off <= size:
            n = min(65536, size - off)
            ts += 1000
            w.syscall('read', 'data', ts, pid, pid, 3000 + n // 50,
                      '"ret":%d,"fd":12,"path":"%s","offset":%d,"size":65536' % (n, path, off))
            if n == 0:
                break
            off += n
        ts += 4000
        w.syscall('close', 'metadata', ts, pid, pid, 1200, '"ret":0,"fd":12,"path":"%s"' % path)
        sample += 1
        if sample % 50000 == 0:
            # a checkpoint from the training thread
            ck = '/ckpt/epoch%d.pt' % (sample // 50000)
            for i in range(64):
                ts += 20000
                w.syscall('write', 'data', ts, main, main, 15000,
                          '"ret":1048576,"fd":20,"path":"%s","offset":%d,"size":1048576' %
                          (ck, i << 20))
            w.syscall('fsync', 'sync', ts, main, main, 200000, '"ret":0,"fd":20,"path":"%s"' % ck)
    for k in range(workers):
        w.emit('{"name":"process_name","ph":"M","pid":%d,"tid":%d,"args":{"name":"python3 '
               'train.py"}}' % (main + 1 + k, main + 1 + k))
    w.emit('{"name":"process_name","ph":"M","pid":%d,"tid":%d,"args":{"name":"python3 '
           'train.py"}}' % (main, main))
    w.emit('{"name":"dltrace_summary","ph":"M","pid":0,"tid":0,"args":{"events":%d,'
           '"lost_events":0,"lost_bytes":0,"duration_ns":%d,"end_wall_ns":%d,'
           '"stop_reason":"target exited"}}' % (w.events + 1, ts, 1700000000000000000 + ts))
    w.flush()
    out.write(b'\n]\n')
    if out is not raw:
        out.close()
    raw.close()
    return w.events


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--events', type=int, default=10000000)
    ap.add_argument('--plain', action='store_true')
    ap.add_argument('--json', action='store_true')
    ap.add_argument('--keep')
    ap.add_argument('--dltrace', default=DLTRACE)
    a = ap.parse_args()
    work = a.keep or tempfile.mkdtemp(prefix='dltrace-report-scale-')
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, 'synthetic.json' + ('' if a.plain else '.gz'))
    try:
        t0 = time.time()
        if not os.path.exists(path):
            generate(path, a.events, a.plain)
        gen = time.time() - t0
        size = os.path.getsize(path)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.time()
        res = subprocess.run([a.dltrace, 'report'] + (['--json'] if a.json else []) + [path],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wall = time.time() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if res.returncode:
            print('report_scale: dltrace report failed: %s' % res.stderr.decode().strip())
            return 1
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        rss = after.ru_maxrss * 1024  # KiB; the largest child so far: the report
        ok = wall <= GOAL_SECONDS and rss <= GOAL_BYTES
        print('report_scale: %d events (%s, %.0f MB) summarized in %.1f s wall, %.1f s CPU, '
              'peak RSS %.0f MiB%s; goal <= %d s and <= 2 GiB: %s (trace written in %.0f s; '
              '%d CPUs)' %
              (a.events, 'plain' if a.plain else 'gzip', size / 1e6, wall, cpu, rss / 2**20,
               ' (--json)' if a.json else '', GOAL_SECONDS, 'met' if ok else 'MISSED', gen,
               os.cpu_count()))
        return 0 if ok else 1
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
