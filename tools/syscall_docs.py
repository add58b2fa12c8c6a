#!/usr/bin/env python3
"""The docs' lists of syscalls, from the table (bpf/syscalls.def).

A file holds its list between two marker lines, and this puts there what
`dltrace --list-syscalls=FORMAT` prints:

  man page (.8):  .\\" syscalls: begin (make syscall-docs)  ...  .\\" syscalls: end
  markdown (.md): <!-- syscalls: begin (make syscall-docs) -->  ...  <!-- syscalls: end -->

Usage: syscall_docs.py [--check] [--dltrace PATH] FILE...
  --check  change nothing: say which files differ from the table (exit 1)
"""
import argparse
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARKERS = {
    'man': ('.\\" syscalls: begin (make syscall-docs)', '.\\" syscalls: end'),
    'markdown': ('<!-- syscalls: begin (make syscall-docs) -->', '<!-- syscalls: end -->'),
}


def format_of(path):
    return 'man' if path.endswith(('.8', '.1')) else 'markdown'


def listing(dltrace, fmt):
    """What `dltrace --list-syscalls=FMT` prints."""
    return subprocess.run([dltrace, '--list-syscalls=' + fmt], capture_output=True, text=True,
                          check=True).stdout


def region(text, fmt):
    """(start, end) of the lines between the markers; None when the file has none."""
    begin, end = MARKERS[fmt]
    lines = text.splitlines(keepends=True)
    starts = [i for i, l in enumerate(lines) if l.rstrip('\n') == begin]
    ends = [i for i, l in enumerate(lines) if l.rstrip('\n') == end]
    if not starts and not ends:
        return None
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        raise ValueError('%r and %r: one of each, in that order' % (begin, end))
    return starts[0] + 1, ends[0]


def update(text, fmt, generated):
    """text with its region replaced by generated (None: no region)."""
    where = region(text, fmt)
    if where is None:
        return None
    lines = text.splitlines(keepends=True)
    return ''.join(lines[:where[0]]) + generated + ''.join(lines[where[1]:])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--check', action='store_true')
    ap.add_argument('--dltrace', default=os.path.join(ROOT, 'build', 'dltrace'))
    ap.add_argument('files', nargs='+')
    args = ap.parse_args()
    stale = []
    for path in args.files:
        fmt = format_of(path)
        with open(path) as f:
            text = f.read()
        new = update(text, fmt, listing(args.dltrace, fmt))
        if new is None:
            print('%s: no %r line' % (path, MARKERS[fmt][0]), file=sys.stderr)
            return 2
        if new == text:
            continue
        stale.append(path)
        if not args.check:
            with open(path, 'w') as f:
                f.write(new)
    if args.check and stale:
        print('the syscall list differs from bpf/syscalls.def in %s: run make syscall-docs' %
              ', '.join(stale), file=sys.stderr)
        return 1
    for path in stale:
        print('updated the syscall list of %s' % path)
    return 0


if __name__ == '__main__':
    sys.exit(main())
