#!/usr/bin/env python3
"""The PyTorch example's epoch time with Python stacks on vs off.

examples/pytorch/train.py, one epoch, 4 DataLoader workers, on the dataset of
examples/pytorch/make_dataset.py (made once in the scratch directory):
untraced, under `dltrace` (default layers) and under `dltrace
--python-stacks`, interleaved: every repetition runs every condition, in an
order rotated per repetition.  The figure is the example's own epoch time
("epoch 0: X s", the training loop only: dltrace's start-up is outside it).
Prints medians and [min-max] and the load average before and after.

Usage (root): bench/pytorch_stacks.py [--python PY] [--reps N] [--dir DIR]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DLTRACE = os.path.join(ROOT, 'build', 'dltrace')
EXAMPLE = os.path.join(ROOT, 'examples', 'pytorch')
CONDITIONS = ('untraced', 'off', 'on')


def run(python, data, scratch, condition):
    argv = [python, os.path.join(EXAMPLE, 'train.py'), data, os.path.join(scratch, 'ck'),
            '--epochs', '1', '--workers', '4']
    if condition != 'untraced':
        trace = os.path.join(scratch, 'trace-%s.json' % condition)
        argv = [DLTRACE, '-o', trace] + (['--python-stacks'] if condition == 'on' else []) + \
            ['--'] + argv
    out = subprocess.run(argv, capture_output=True, text=True, timeout=3600)
    if out.returncode:
        sys.exit('pytorch_stacks: %s failed: %s' % (' '.join(argv), out.stderr[-2000:]))
    m = re.search(r'^epoch 0: ([0-9.]+) s', out.stdout, re.M)
    if not m:
        sys.exit('pytorch_stacks: no epoch time in %r' % out.stdout[-2000:])
    return float(m.group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--python', default='/usr/bin/python3')
    ap.add_argument('--reps', type=int, default=5)
    ap.add_argument('--dir', help='scratch directory (default: a new temporary one)')
    args = ap.parse_args()
    scratch = args.dir or tempfile.mkdtemp(prefix='dltrace-bench-pytorch-')
    data = os.path.join(scratch, 'data')
    if not os.path.exists(os.path.join(data, 'train.h5')):
        subprocess.run([args.python, os.path.join(EXAMPLE, 'make_dataset.py'), data],
                       check=True, capture_output=True)
    print('load average before: %.1f %.1f %.1f' % os.getloadavg(), flush=True)
    times = {c: [] for c in CONDITIONS}
    for rep in range(args.reps):
        order = CONDITIONS[rep % 3:] + CONDITIONS[:rep % 3]
        for c in order:
            times[c].append(run(args.python, data, scratch, c))
            print('rep %d %-8s epoch %.3f s' % (rep, c, times[c][-1]), flush=True)
    print('load average after: %.1f %.1f %.1f' % os.getloadavg())
    for c in CONDITIONS:
        t = times[c]
        print('%-8s epoch median %.3f s [%.3f-%.3f] (%d reps)' %
              (c, statistics.median(t), min(t), max(t), len(t)))
    off, on = statistics.median(times['off']), statistics.median(times['on'])
    print('stacks on vs off: %+.3f s (%+.1f%%) on the medians' % (on - off,
                                                                (on - off) / off * 100))


if __name__ == '__main__':
    main()
