"""Every traced syscall of known C workloads, field by field.

io_sequence issues each file syscall dltrace reports (with syscall(2), so
the syscall is not libc's choice) and logs what it passed and got back; the
trace must hold exactly those calls, in order, per thread, with the same
pid, tid, fd, path, offset, size and return value.  meta_sequence does the
same for the metadata, hint and sync syscalls and every kind of fcntl
command, and logs the whole of each call's trace arguments: they must be
equal.
"""
import os
import re
import shutil
import subprocess
import unittest
from collections import defaultdict

from dltrace_harness import (errno_name, helper, io_events, parse_log, scratch_dir, summary,
                             trace_command, traced_syscalls, workload)

# trace args compared with the workload's own log when it logged them
EXTRA_KEYS = ('flags', 'mode', 'whence', 'newfd', 'new_path', 'out_fd', 'out_path')
OPENS = ('open', 'openat', 'openat2', 'creat')
# syscalls that name a file (the log's fd is the dirfd: -100 AT_FDCWD, -1 none)
NAMED = OPENS + ('stat', 'lstat', 'newfstatat', 'statx', 'unlink', 'unlinkat', 'rename',
                 'renameat', 'renameat2', 'mkdir', 'mkdirat', 'rmdir')
# syscalls on an address range (no descriptor): the file is the one mapped there
MAPPINGS = ('madvise', 'msync', 'munmap')


class SyscallCaptureTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = scratch_dir()
        cls.data_dir = os.path.join(cls.tmp, 'data')
        os.mkdir(cls.data_dir)
        res, cls.events = trace_command(
            [workload('io_sequence'), cls.data_dir, workload('exec_helper')],
            os.path.join(cls.tmp, 'trace.json'))
        cls.log = parse_log(res.stdout.decode())
        cls.stderr = res.stderr.decode()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def traced_calls(self):
        """The trace's syscalls of the workload's processes on its files (or with no path)."""
        pids = {e['pid'] for e in self.log}
        out = []
        for ev in io_events(self.events):
            if ev['pid'] not in pids:
                continue
            path = ev['args'].get('path')
            if path is None and ev['name'] in ('close', 'close_range'):
                out.append(ev)
            elif path and (path == self.data_dir or path.startswith(self.data_dir + '/')):
                out.append(ev)
        return out

    def test_every_call_matches_the_log(self):
        expected = defaultdict(list)
        for e in self.log:
            expected[(e['pid'], e['tid'])].append(e)
        got = defaultdict(list)
        for ev in self.traced_calls():
            got[(ev['pid'], ev['tid'])].append(ev)
        self.assertEqual(sorted(got), sorted(expected), 'threads differ')
        for key, calls in expected.items():
            names = [ev['name'] for ev in got[key]]
            self.assertEqual(names, [c['sys'] for c in calls], 'calls of %s differ' % (key,))
            for call, ev in zip(calls, got[key]):
                self.check_call(call, ev)

    def check_call(self, call, ev):
        a = ev['args']
        what = '%s on %s' % (call['sys'], call['path'])
        if call['ret'] < 0:
            self.assertEqual(a['ret'], -1, what)
            self.assertEqual(a['errno'], errno_name(-call['ret']), what)
        else:
            self.assertEqual(a['ret'], call['ret'], what)
            self.assertNotIn('errno', a, what)
        if call['sys'] in OPENS and call['ret'] >= 0:
            self.assertEqual(a['fd'], call['ret'], what)
        elif call['sys'] in NAMED:
            if call['fd'] >= 0:
                self.assertEqual(a['dirfd'], call['fd'], what)
            else:
                self.assertNotIn('dirfd', a, what)
                self.assertNotIn('fd', a, what)
        elif call['sys'] in MAPPINGS:
            self.assertNotIn('fd', a, what)
        else:
            self.assertEqual(a['fd'], call['fd'], what)
        self.assertEqual(a.get('path'), call['path'], what)
        if call['offset'] >= 0:
            key = 'length' if call['sys'] == 'ftruncate' else 'offset'
            self.assertEqual(a[key], call['offset'], what)
        if call['size'] >= 0:
            self.assertEqual(a['size'], call['size'], what)
        for k in EXTRA_KEYS:
            if k in call:
                self.assertEqual(a.get(k), call[k], '%s: %s' % (what, k))

    def test_known_offsets(self):
        """Spot checks written out: the file position semantics."""
        a_bin = self.data_dir + '/a.bin'
        calls = [e for e in self.traced_calls() if e['args'].get('path') == a_bin]
        preads = [e['args']['offset'] for e in calls if e['name'] == 'pread64'][:3]
        self.assertEqual(preads, [0, 8192, 16000])
        lseek = next(e for e in calls if e['name'] == 'lseek')
        self.assertEqual((lseek['args']['offset'], lseek['args']['whence'], lseek['args']['ret']),
                         (4096, 'SEEK_SET', 4096))
        read = next(e for e in calls if e['name'] == 'read')
        self.assertEqual((read['args']['offset'], read['args']['size'], read['args']['ret']),
                         (4096, 1000, 1000))
        # the short pread at the end of the 16 KiB file
        self.assertEqual(next(e for e in calls if e['args'].get('offset') == 16000)['args']['ret'],
                         384)

    def test_process_structure(self):
        """Fork, thread, exec: right pids and tids, named processes, exit events."""
        main_pid = self.log[-1]['pid']
        pids = {e['pid'] for e in self.log}
        self.assertEqual(len(pids), 3)  # the workload, its forked child, the exec'd helper
        forks = [e for e in self.events if e['name'] == 'fork' and e['pid'] == main_pid]
        self.assertEqual(sorted(e['args']['child_pid'] for e in forks), sorted(pids - {main_pid}))
        threads = [e for e in self.events if e['name'] == 'thread_create' and e['pid'] == main_pid]
        thread_tids = {e['tid'] for e in self.log if e['pid'] == main_pid} - {main_pid}
        self.assertEqual([e['args']['child_tid'] for e in threads], list(thread_tids))
        execs = [e for e in self.events if e['name'] == 'exec']
        helper = [e for e in execs if e['args']['file'].endswith('/exec_helper')]
        self.assertEqual(len(helper), 1)
        self.assertIn(helper[0]['pid'], pids)
        self.assertTrue(helper[0]['args']['cmdline'].endswith('exec_helper ' + self.data_dir +
                                                              '/a.bin'))
        names = {e['pid']: e['args']['name'] for e in self.events if e['name'] == 'process_name'}
        self.assertTrue(names[main_pid].startswith(workload('io_sequence')))
        self.assertTrue(names[helper[0]['pid']].startswith(workload('exec_helper')))
        exits = {e['pid'] for e in self.events if e['name'] == 'process_exit'}
        self.assertEqual(exits & pids, pids)
        # each fork is joined to the child's start by a flow arrow
        for f in forks:
            starts = [e for e in self.events if e['name'] == 'process_start' and
                      e.get('bind_id') == f['bind_id']]
            self.assertEqual(len(starts), 1)
            self.assertEqual(starts[0]['pid'], f['args']['child_pid'])

    def test_summary(self):
        s = summary(self.events)
        self.assertEqual(s['lost_events'], 0)
        self.assertEqual(s['events'], len(self.events))
        self.assertEqual(s['stop_reason'], 'target exited')
        self.assertIn('wrote %d events' % len(self.events), self.stderr)


# Pipe transfers, native AIO and io_uring's own calls, also on the shared
# programs: their exact arguments are test_async_io's (splice_cases,
# aio_cases, uring_cases), not meta_sequence's.
ASYNC_KINDS = {'splice', 'vmsplice', 'tee', 'io_setup', 'io_submit', 'io_getevents',
               'io_pgetevents', 'io_cancel', 'io_destroy', 'io_uring_setup', 'io_uring_enter',
               'io_uring_register'}

# Syscalls newer than some kernels dltrace runs on (vm-test: Debian's 6.1):
# the first kernel that has each, and how many calls of it meta_sequence makes.
NEWER = {'fchmodat2': ((6, 6), 1), 'setxattrat': ((6, 13), 1), 'getxattrat': ((6, 13), 1),
         'listxattrat': ((6, 13), 1), 'removexattrat': ((6, 13), 1), 'cachestat': ((6, 5), 1)}


def kernel_version():
    """(major, minor) of the running kernel."""
    return tuple(int(x) for x in re.match(r'(\d+)\.(\d+)', os.uname().release).groups())


class MetaSyscallTest(unittest.TestCase):
    """meta_sequence: each metadata, hint and sync syscall, and fcntl, argument by argument."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = os.path.realpath(scratch_dir())
        cls.data_dir = os.path.join(cls.tmp, 'data')
        os.mkdir(cls.data_dir)
        cls.trace = os.path.join(cls.tmp, 'trace.json')
        res, cls.events = trace_command([workload('meta_sequence'), cls.data_dir], cls.trace)
        cls.stderr = res.stderr.decode()
        log = parse_log(res.stdout.decode())
        cls.anonymous = [e for e in log if e.get('anonymous')]
        cls.log = [e for e in log if not e.get('anonymous')]
        cls.syscalls = traced_syscalls()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def present(self, name):
        return self.syscalls[name]['present']

    def traced_calls(self):
        """The workload's calls of the logged syscalls on its files, its sync and close_range."""
        pids = {e['pid'] for e in self.log}
        names = {e['sys'] for e in self.log}
        out = defaultdict(list)
        for ev in io_events(self.events):
            path = ev['args'].get('path', '')
            if ev['pid'] in pids and ev['name'] in names and (
                    path == self.data_dir or path.startswith(self.data_dir + '/') or
                    ev['name'] in ('sync', 'close_range')):  # the calls that name no file
                out[(ev['pid'], ev['tid'])].append(ev)
        return out

    def test_the_workload_covers_every_shared_syscall(self):
        shared = {n for n, s in self.syscalls.items() if s['program'] == 'dl_enter_shared'}
        self.assertEqual(shared & ASYNC_KINDS, ASYNC_KINDS)
        shared -= ASYNC_KINDS
        self.assertEqual(len(shared), 73)
        self.assertEqual({e['sys'] for e in self.log}, shared | {'fcntl'})

    def test_every_call_and_every_argument(self):
        expected = defaultdict(list)
        for e in self.log:
            if self.present(e['sys']):
                expected[(e['pid'], e['tid'])].append((e['sys'], e['args']))
            else:  # this kernel has no such syscall (fchmodat2 before 6.6, ...)
                self.assertEqual(e['args'].get('errno'), 'ENOSYS', e['sys'])
        got = self.traced_calls()
        self.assertEqual(sorted(got), sorted(expected), 'threads differ')
        self.assertEqual(len(expected), 3)  # the main thread, a thread, a child process
        for key, calls in expected.items():
            self.assertEqual([(ev['name'], ev['args']) for ev in got[key]], calls)

    def test_counts_per_syscall(self):
        counts = defaultdict(int)
        for calls in self.traced_calls().values():
            for ev in calls:
                counts[ev['name']] += 1
        want = {'access': 4, 'fcntl': 13, 'setxattr': 3, 'madvise': 3, 'msync': 2,
                'munmap': 3, 'utimensat': 3, 'fchmod': 2, 'syncfs': 2, 'fadvise64': 3}
        for name, n in want.items():
            self.assertEqual(counts[name], n, name)

    def test_syscalls_newer_than_some_kernels(self):
        """Traced, each call, where the kernel has them; else absent and named as not on it."""
        counts = defaultdict(int)
        for calls in self.traced_calls().values():
            for ev in calls:
                counts[ev['name']] += 1
        logged = defaultdict(int)
        for e in self.log:
            logged[e['sys']] += 1
        skipped = re.search(r'not on this kernel: ([^;)]*)', self.stderr)
        skipped = skipped.group(1).split(', ') if skipped else []
        for name, (since, calls) in NEWER.items():
            present = kernel_version() >= since
            self.assertEqual(self.present(name), present, name)
            self.assertEqual(logged[name], calls, name)
            self.assertEqual(counts[name], calls if present else 0, name)
            self.assertEqual('sys_enter_' + name in skipped, not present, (name, self.stderr))

    def test_categories(self):
        cats = {ev['name']: ev['cat'] for calls in self.traced_calls().values() for ev in calls}
        self.assertEqual({n for n, c in cats.items() if c == 'hint'},
                         {'fadvise64', 'readahead', 'madvise'})
        self.assertEqual({n for n, c in cats.items() if c == 'sync'},
                         {'msync', 'sync', 'syncfs', 'fsync', 'fdatasync', 'sync_file_range'})
        self.assertEqual(cats['munmap'], 'metadata')
        self.assertEqual(cats['chown'], 'metadata')

    def test_anonymous_memory_is_not_recorded(self):
        self.assertEqual(sorted(e['sys'] for e in self.anonymous), ['madvise', 'munmap'])
        self.assertEqual([e['ret'] for e in self.anonymous], [0, 0])
        addrs = {e['addr'] for e in self.anonymous}
        pids = {e['pid'] for e in self.log}
        mapping = [ev for ev in io_events(self.events) if ev['pid'] in pids and
                   ev['name'] in ('madvise', 'msync', 'munmap')]
        self.assertEqual([ev for ev in mapping if ev['args']['addr'] in addrs], [])
        self.assertEqual([ev for ev in mapping if 'path' not in ev['args']], [])

    def test_the_reader_gives_back_what_was_written(self):
        """Read into typed events and written again: the same trace, byte for byte."""
        again = os.path.join(self.tmp, 'again.json')
        with open(again, 'wb') as out:
            subprocess.run([helper('trace_rewrite'), self.trace], stdout=out,
                           check=True)
        with open(self.trace, 'rb') as a, open(again, 'rb') as b:
            self.assertEqual(a.read().splitlines(), b.read().splitlines())

    def test_summary(self):
        s = summary(self.events)
        self.assertEqual(s['lost_events'], 0)
        self.assertEqual(s['events'], len(self.events))


if __name__ == '__main__':
    unittest.main()
