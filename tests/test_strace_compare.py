"""dltrace against strace: the same run, counted per syscall.

One execution is recorded by both: dltrace traces `strace -ff -ttt -o LOG
-- COMMAND`, for a shell script of real tools (tar c/x, cp -a, ln, ln -s,
chmod, chown, touch, setfattr/getfattr, Python's os.*: real_tools.sh) and
for a C workload that calls each syscall a known number of times
(meta_sequence).  For every syscall dltrace traces on this kernel (`dltrace
--list-syscalls`), the calls and the failed calls of strace's tracees must
be the same in the trace as in strace's logs, once strace's counts follow
this rule, the only one (nothing is excepted by hand):

  Anonymous memory is no file I/O.  An mmap with MAP_ANONYMOUS or without
  a descriptor, and a munmap, madvise or msync whose address is in no file
  mapping, are not counted.  The mappings are rebuilt from the log itself:
  mmap (covering what it overlaps), munmap, mremap, copied at fork, shared
  by CLONE_VM and vfork, emptied by execve.  (The program and its
  interpreter, which the kernel maps at execve with no mmap in the log,
  are unknown to the rebuilt mappings; a call on them would show as a
  difference.)

strace 6.1 names the syscalls newer than itself by number
(syscall_0x1c4 is fchmodat2, ...): they are renamed.

And nothing escapes: every syscall strace classes as a file syscall
(`-e trace=%file`) that the tools make is one dltrace traces, but for
those it records otherwise or that touch no file: execve and execveat (exec
events) and getcwd (the working directory's name, from memory).
"""
import os
import re
import shutil
import subprocess
import sys
import unittest
from collections import defaultdict

from dltrace_harness import (io_events, load_trace, parse_log, run_command, scratch_dir,
                             summary, traced_syscalls, workload)
from test_syscall_capture import ASYNC_KINDS

HERE = os.path.dirname(os.path.abspath(__file__))
PAGE = 4096
LINE = re.compile(r'^(\d+\.\d+) (\w+)\((.*)\) += (\?|0x[0-9a-f]+|-?\d+)(?: (E\w+))?')
# syscalls newer than strace 6.1, which names them by number (x86_64)
BY_NUMBER = {'syscall_0x1c3': 'cachestat', 'syscall_0x1c4': 'fchmodat2',
             'syscall_0x1cf': 'setxattrat', 'syscall_0x1d0': 'getxattrat',
             'syscall_0x1d1': 'listxattrat', 'syscall_0x1d2': 'removexattrat'}
MAPPING_CALLS = ('munmap', 'madvise', 'msync')
NOT_SYSCALL_EVENTS = {'execve', 'execveat', 'getcwd'}


def split_args(text):
    """Top-level comma-separated arguments of a strace call."""
    out, depth, cur, quoted, esc = [], 0, '', False, False
    for ch in text:
        if quoted:
            cur += ch
            if esc:
                esc = False
            elif ch == '\\':
                esc = True
            elif ch == '"':
                quoted = False
            continue
        if ch == '"':
            quoted = True
        elif ch in '[{(':
            depth += 1
        elif ch in ']})':
            depth -= 1
        elif ch == ',' and depth == 0:
            out.append(cur.strip())
            cur = ''
            continue
        cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def number(text):
    text = text.strip()
    if text == 'NULL':
        return 0
    return int(text, 0)


def pages(n):
    return (n + PAGE - 1) // PAGE * PAGE


class AddressSpace:
    """The file and anonymous mappings of one address space, as the log built them."""

    def __init__(self, ranges=None):
        self.ranges = list(ranges or [])  # (start, end, is_file)

    def remove(self, start, end):
        kept = []
        for s, e, f in self.ranges:
            if e <= start or s >= end:
                kept.append((s, e, f))
                continue
            if s < start:
                kept.append((s, start, f))
            if e > end:
                kept.append((end, e, f))
        self.ranges = kept

    def add(self, start, end, is_file):
        self.remove(start, end)
        self.ranges.append((start, end, is_file))

    def is_file(self, addr):
        return any(s <= addr < e and f for s, e, f in self.ranges)

    def kind(self, start):
        return next((f for s, e, f in self.ranges if s <= start < e), False)


def read_strace_logs(prefix_dir):
    """{pid: [(ts, name, args, ret, errno)]} from strace -ff -ttt logs."""
    calls = {}
    for name in os.listdir(prefix_dir):
        pid = int(name.rsplit('.', 1)[1])
        out = calls[pid] = []
        with open(os.path.join(prefix_dir, name), errors='replace') as f:
            for line in f:
                m = LINE.match(line)
                if m:
                    out.append((float(m.group(1)), BY_NUMBER.get(m.group(2), m.group(2)),
                                m.group(3), m.group(4), m.group(5)))
    return calls


def strace_file_calls(calls):
    """(counts, failures, anonymous) per syscall: the rule applied to strace's calls."""
    events = sorted((c[0], pid, i, c) for pid, cs in calls.items() for i, c in enumerate(cs))
    spaces = {}
    counts, failed = defaultdict(int), defaultdict(int)
    anonymous = defaultdict(int)
    for _, pid, _, (ts, name, args, ret, err) in events:
        space = spaces.setdefault(pid, AddressSpace())
        a = split_args(args)
        file_io = True
        if name == 'mmap':
            anon = 'MAP_ANONYMOUS' in a[3] or number(a[4]) < 0
            file_io = not anon
            if ret.startswith('0x') and not err:
                space.add(number(ret), number(ret) + pages(number(a[1])), not anon)
        elif name in MAPPING_CALLS:
            file_io = space.is_file(number(a[0]))
            if name == 'munmap' and ret == '0':
                space.remove(number(a[0]), number(a[0]) + pages(number(a[1])))
        elif name == 'mremap' and ret.startswith('0x') and not err:
            old, was_file = number(a[0]), space.kind(number(a[0]))
            space.remove(old, old + pages(number(a[1])))
            space.add(number(ret), number(ret) + pages(number(a[2])), was_file)
        elif name in ('clone', 'clone3', 'fork', 'vfork') and ret.lstrip('-').isdigit() \
                and int(ret) > 0:
            shared = name == 'vfork' or 'CLONE_VM' in args
            spaces[int(ret)] = space if shared else AddressSpace(space.ranges)
        elif name in ('execve', 'execveat') and ret == '0':
            spaces[pid] = AddressSpace()
        if not file_io:
            anonymous[name] += 1
            continue
        counts[name] += 1
        if err:
            failed[name] += 1
    return counts, failed, anonymous


def trace_calls(events, pids):
    """(counts, failures) per syscall of the given processes in a trace."""
    counts, failed = defaultdict(int), defaultdict(int)
    for ev in io_events(events):
        if ev['pid'] not in pids:
            continue
        counts[ev['name']] += 1
        if 'errno' in ev['args']:
            failed[ev['name']] += 1
    return counts, failed


class StraceComparison(unittest.TestCase):
    def setUp(self):
        self.dir = os.path.realpath(scratch_dir())
        self.syscalls = {n: s for n, s in traced_syscalls().items() if s['present']}

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def compare(self, command):
        """Run command under strace under dltrace; compare; return the table."""
        logs = os.path.join(self.dir, 'strace')
        os.mkdir(logs)
        trace = os.path.join(self.dir, 'trace.json')
        res = run_command((), trace, ['strace', '-ff', '-ttt', '-qq', '-o',
                                      os.path.join(logs, 'log'), '--'] + command)
        self.assertEqual(res.returncode, 0, res.stderr.decode())
        events = load_trace(trace)
        self.assertEqual(summary(events)['lost_events'], 0)
        calls = read_strace_logs(logs)
        s_counts, s_failed, anonymous = strace_file_calls(calls)
        t_counts, t_failed = trace_calls(events, set(calls))
        table = {}
        for name in sorted(self.syscalls):
            table[name] = (s_counts.get(name, 0), t_counts.get(name, 0),
                           s_failed.get(name, 0), t_failed.get(name, 0))
        differ = {n: v for n, v in table.items() if v[0] != v[1] or v[2] != v[3]}
        self.assertEqual(differ, {}, 'strace calls, dltrace calls, strace failed, '
                         'dltrace failed')
        # and the trace has no mapping call without a file
        self.assertEqual([e for e in io_events(events) if e['name'] in MAPPING_CALLS + ('mmap',)
                          and e['pid'] in calls and 'path' not in e['args']], [])
        print('\n%s: %d syscalls, %d calls in both; anonymous (not counted): %s' % (
            os.path.basename(command[0]) if command[0] != 'sh' else command[1].split('/')[-1],
            len([n for n, v in table.items() if v[0]]), sum(v[0] for v in table.values()),
            dict(anonymous)), file=sys.stderr)
        for name, (sc, tc, sf, tf) in table.items():
            if sc:
                print('  %-16s %6d calls %5d failed' % (name, sc, sf), file=sys.stderr)
        return table, events

    def test_real_tools(self):
        work = os.path.join(self.dir, 'work')
        os.mkdir(work)
        table, _ = self.compare(['sh', os.path.join(HERE, 'workloads', 'real_tools.sh'), work,
                                 sys.executable])
        # the tools made the calls this test is about
        for name in ('fchownat', 'utimensat', 'linkat', 'symlinkat', 'fchmodat', 'setxattr',
                     'getxattr', 'llistxattr', 'fadvise64', 'madvise', 'msync', 'munmap',
                     'flock', 'fcntl', 'statfs', 'readlink', 'truncate', 'sync', 'access'):
            self.assertGreater(table[name][0], 0, name)

    def test_every_file_syscall_of_the_tools_is_traced(self):
        work = os.path.join(self.dir, 'work')
        os.mkdir(work)
        log = os.path.join(self.dir, 'files.log')
        subprocess.run(['strace', '-f', '-qq', '-e', 'trace=%file', '-o', log, '--', 'sh',
                        os.path.join(HERE, 'workloads', 'real_tools.sh'), work, sys.executable],
                       check=True, capture_output=True)
        with open(log, errors='replace') as f:
            names = {m.group(1) for m in (re.match(r'^\d+ +(\w+)\(', l) for l in f) if m}
        names = {BY_NUMBER.get(n, n) for n in names}
        self.assertGreaterEqual(len(names), 25)
        self.assertEqual(names - NOT_SYSCALL_EVENTS - set(self.syscalls), set())

    def test_known_workload(self):
        work = os.path.join(self.dir, 'work')
        os.mkdir(work)
        table, _ = self.compare([workload('meta_sequence'), work])
        # pipe transfers, AIO and io_uring's calls are not meta_sequence's (test_async_io)
        shared = [n for n, s in self.syscalls.items() if s['program'] == 'dl_enter_shared' and
                  n not in ASYNC_KINDS]
        for name in shared:
            self.assertGreater(table[name][0], 0, name)


if __name__ == '__main__':
    unittest.main()
