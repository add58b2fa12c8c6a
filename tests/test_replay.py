"""dltrace replay: a trace's application I/O issued again, checked by tracing
the replay (--trace) and setting its calls against the original trace's,
thread by thread, in order: the same syscalls with the same sizes, offsets
and flags, on the mapped paths.

Workloads: io_sequence (a C program that logs each of its calls),
replay_threads (threads and a forked child sharing descriptors),
stage_data.sh (tar, cp -a, links, xattrs), the PyTorch example, and
replay_reader (a reader with known compute time) for the what-if on a
throttled loop disk against a tmpfs stage, the fio export and Ctrl-C.
Plans, refusals, damaged traces and the fio iologs of traces written by
hand need no kernel: tests/unit/test_replay_plan.py.

The replay's own processes make no file call but the replayed ones, so the
replay's trace holds exactly what it issued.
"""
import ctypes
import json
import os
import shutil
import signal
import struct
import subprocess
import time
import unittest
from collections import Counter, defaultdict

from dltrace_harness import (DLTRACE, PYTHON, ROOT, TESTS, TraceTest, disk_scratch_dir,
                             load_trace, parse_log, trace_command, workload)
from throttled_disk import ThrottledDisk

KiB = 1024
MIB = 1 << 20
SYSCALL_CATS = ('data', 'metadata', 'sync', 'hint')
# what differs between a call and its replay by design: descriptors, inodes,
# addresses, the page cache's state, the results (checked apart)
NOT_COMPARED = {'ret', 'errno', 'fd', 'dirfd', 'ino', 'dev', 'fs', 'file_size',
                'cache_miss_bytes', 'addr', 'out_fd', 'newfd', 'socket_family', 'py',
                'py_stack', 'address', 'major'}


def under(path, top):
    return path == top or path.startswith(top.rstrip('/') + '/')


def calls_by_thread(events, keep, rename=lambda p: p):
    """{(pid, tid): [call]} of the syscalls and page faults whose path keep() takes, in
    each thread's order; a call is its name and its arguments but NOT_COMPARED, with
    every path through rename()."""
    out = defaultdict(list)
    evs = [e for e in events if (e.get('ph') == 'X' and e.get('cat') in SYSCALL_CATS) or
           e.get('name') == 'page_fault']
    evs.sort(key=lambda e: e['ts'])
    for e in evs:
        args = e.get('args', {})
        path = args.get('path', '')
        if not keep(path):
            continue
        call = [e['name']]
        for k in sorted(args):
            if k in NOT_COMPARED:
                continue
            v = args[k]
            if k in ('path', 'new_path', 'out_path'):
                v = rename(v)
            call.append((k, v))
        out[(e['pid'], e['tid'])].append(tuple(call))
    return out


def sequences(by_thread):
    return sorted(by_thread.values())


def run_replay(args, check=True, **kw):
    res = subprocess.run([DLTRACE, 'replay'] + list(args), capture_output=True, timeout=600,
                         **kw)
    if check and res.returncode != 0:
        raise AssertionError('dltrace replay %s failed (%d): %s' %
                             (' '.join(args), res.returncode, res.stderr.decode()))
    return res


class ReplayTest(TraceTest):
    maxDiff = None  # a call missing on either side is shown whole

    def replay_traced(self, trace, args=()):
        """Replay trace under --trace; (its JSON comparison, the replay's events)."""
        out = self.path('replay-trace.json')
        self.scratch = self.path('scratch')
        res = run_replay(['--json', '--trace', out, '--scratch', self.scratch] + list(args) +
                         [trace])
        return json.loads(res.stdout), load_trace(out)

    def assert_same_calls(self, original, replayed, keep, rename=lambda p: p, threads=None):
        """Each thread's calls (keep()'s paths) came back in order, by as many threads."""
        strip = lambda p: p[len(self.scratch):] if under(p, self.scratch) else p
        a = calls_by_thread(original, keep, rename)
        b = calls_by_thread(replayed, lambda p: keep(strip(p)), strip)
        if threads is not None:
            self.assertEqual(len(a), threads)
        self.assertEqual(len(b), len(a), 'threads with calls: original %d, replay %d' %
                         (len(a), len(b)))
        ca = Counter(c for v in a.values() for c in v)
        cb = Counter(c for v in b.values() for c in v)
        self.assertEqual((ca - cb, cb - ca), (Counter(), Counter()),
                         '(only in the original, only in the replay)')
        self.assertEqual(sequences(b), sequences(a))
        return a


class TestKnownCalls(ReplayTest):
    def test_io_sequence(self):
        """io_sequence's every call on its files comes back: the counts of each syscall
        are those of the program's own log, with the same sizes and offsets, and each
        thread's (of three processes) in its order."""
        d = self.path('data')
        os.mkdir(d)
        res, events = self.trace_command([workload('io_sequence'), d, workload('exec_helper')])
        log = [c for c in parse_log(res.stdout.decode()) if c.get('path') and under(c['path'], d)]
        report, replayed = self.replay_traced(self.path('trace.json'))
        self.assertEqual(report['calls_replayed'], report['calls_planned'])
        self.assertEqual(report['results_differ'], 0)
        self.assertEqual((report['processes'], report['threads']), (3, 4))
        # every file the job touched is its own: all of it in the scratch directory
        self.assertEqual(report['staged'], {'files': 0, 'bytes': 0, 'reused': 0})
        self.assert_same_calls(events, replayed, lambda p: under(p, d), threads=4)
        # the program's log, call by call: kind, offset, size
        strip = lambda p: p[len(self.scratch):]
        got = Counter()
        for v in calls_by_thread(replayed, lambda p: under(p, self.scratch + d), strip).values():
            for c in v:
                args = dict(c[1:])
                got[(c[0], args.get('offset', args.get('length', -1)))] += 1
        want = Counter()
        for c in log:
            if c['sys'] == 'close_range':  # no file: not the application's (not replayed)
                continue
            off = c['offset'] if c['sys'] not in ('read', 'write', 'readv', 'writev') or \
                c['offset'] >= 0 else -1
            if c['sys'] in ('openat', 'open', 'openat2', 'creat', 'close', 'fsync', 'fdatasync',
                            'stat', 'lstat', 'fstat', 'newfstatat', 'statx', 'dup', 'dup2', 'dup3',
                            'fcntl', 'rename', 'renameat', 'renameat2', 'unlink', 'unlinkat',
                            'mkdir', 'mkdirat', 'rmdir', 'getdents64', 'munmap', 'mmap'):
                off = None
            want[(c['sys'], off)] += 1
        got_kinds = Counter(k for (k, _), n in got.items() for _ in range(n))
        want_kinds = Counter(k for (k, _), n in want.items() for _ in range(n))
        self.assertEqual(got_kinds, want_kinds)
        for (kind, off), n in want.items():
            if off is not None:
                self.assertEqual(got[(kind, off)], n, (kind, off))


class TestOrder(ReplayTest):
    def test_threads_keep_their_order(self):
        """replay_threads: seven threads in two processes, descriptors shared across
        threads and inherited by a child; each replayed thread makes its calls in the
        recorded order, and as many threads do."""
        d = self.path('data')
        os.mkdir(d)
        _, events = self.trace_command([workload('replay_threads'), d])
        report, replayed = self.replay_traced(self.path('trace.json'))
        self.assertEqual((report['processes'], report['threads']), (2, 7))
        self.assertEqual(report['results_differ'], 0)
        by_thread = self.assert_same_calls(events, replayed, lambda p: under(p, d), threads=7)
        shared = os.path.join(d, 'shared.bin')
        for i in range(1, 6):
            mine = os.path.join(d, 't%d.bin' % i)
            want = [('openat', ('flags', 'O_RDWR|O_CREAT|O_TRUNC'), ('mode', '0644'),
                     ('path', mine))] + \
                [('write', ('offset', k * 4096), ('path', mine), ('size', 4096))
                 for k in range(3)] + \
                [('pread64', ('offset', i * KiB), ('path', mine), ('size', 2048)),
                 ('lseek', ('offset', i * 512), ('path', mine), ('whence', 'SEEK_SET')),
                 ('read', ('offset', i * 512), ('path', mine), ('size', 1024)),
                 ('fstat', ('path', mine)),
                 ('pread64', ('offset', i * 8192), ('path', shared), ('size', 4096)),
                 ('close', ('path', mine))]
            self.assertIn(want, list(by_thread.values()), 'thread %d' % i)
        # and the replay's threads likewise, under the scratch directory
        strip = lambda p: p[len(self.scratch):] if under(p, self.scratch) else p
        b = calls_by_thread(replayed, lambda p: under(strip(p), d), strip)
        self.assertEqual(len([v for v in b.values() if v[0][0] == 'openat' and
                              dict(v[0][1:])['path'].endswith('.bin') and
                              dict(v[0][1:])['path'] != shared]), 5)


class TestStaging(ReplayTest):
    def test_tar_cp_links_xattrs(self):
        """stage_data.sh (tar c and x with xattrs, cp -a, ln, ln -s, setfattr,
        getfattr) on a dataset with a hard link, a symlink and user xattrs: replayed
        with --map onto a copy of the dataset, every call comes back, the copy's
        files read where --map says and the outputs made in the scratch directory."""
        d = self.path('job')
        data = os.path.join(d, 'data')
        os.makedirs(os.path.join(data, 'sub'))
        with open(os.path.join(data, 'a.bin'), 'wb') as f:
            f.write(os.urandom(300 * KiB))
        with open(os.path.join(data, 'sub', 'b.bin'), 'wb') as f:
            f.write(os.urandom(5000))
        os.link(os.path.join(data, 'a.bin'), os.path.join(data, 'a.hard'))
        os.symlink('a.bin', os.path.join(data, 'a.link'))
        os.setxattr(os.path.join(data, 'a.bin'), 'user.kind', b'sample')
        moved = self.path('moved')
        subprocess.run(['cp', '-a', data, moved], check=True)
        script = os.path.join(TESTS, 'workloads', 'stage_data.sh')
        _, events = self.trace_command(['sh', script, d])
        report, replayed = self.replay_traced(
            self.path('trace.json'), ['--map', '%s=%s' % (data, moved)])
        self.assertEqual(report['calls_replayed'], report['calls_planned'])
        self.assertEqual(report['results_differ'], 0)
        rename = lambda p: moved + p[len(data):] if under(p, data) else p
        self.assert_same_calls(events, replayed,
                               lambda p: under(p, d) or under(p, moved) or p == script,
                               rename)
        names = Counter(c[0] for v in calls_by_thread(replayed, lambda p: True).values()
                        for c in v)
        for name in ('getdents64', 'flistxattr', 'fgetxattr', 'fsetxattr', 'setxattr',
                     'linkat', 'symlinkat', 'utimensat', 'fchownat', 'readlinkat'):
            self.assertGreater(names[name], 0, name)
        # the job's reads of the dataset: from the copy; its outputs: in the scratch
        files = {f['path']: f for f in report['files']}
        self.assertEqual(files[os.path.join(data, 'a.bin')]['replayed_path'],
                         os.path.join(moved, 'a.bin'))
        self.assertEqual(files[os.path.join(d, 'out', 'data.tar')]['replayed_path'],
                         self.scratch + os.path.join(d, 'out', 'data.tar'))
        # nothing was written outside the scratch directory, which is gone
        self.assertFalse(os.path.exists(self.scratch))
        self.assertEqual(sorted(os.listdir(moved)), ['a.bin', 'a.hard', 'a.link', 'sub'])


class TestPyTorch(ReplayTest):
    def test_example_application_io(self):
        """The PyTorch example (a small dataset, one epoch, two workers): the replay
        issues its data and checkpoint I/O exactly, thread by thread, in three
        processes; its epoch and steps are in the comparison."""
        data, ckpt = self.path('data'), self.path('ckpt')
        example = os.path.join(ROOT, 'examples', 'pytorch')
        subprocess.run([PYTHON, os.path.join(example, 'make_dataset.py'), data, '--npz', '48',
                        '--h5', '48'], check=True, capture_output=True)
        _, events = self.trace_command(
            [PYTHON, os.path.join(example, 'train.py'), data, ckpt, '--epochs', '1',
             '--workers', '2', '--batch-size', '16'], timeout=600)
        report, replayed = self.replay_traced(self.path('trace.json'), ['--no-think'])
        self.assertEqual(report['calls_replayed'], report['calls_planned'])
        self.assertEqual(report['processes'], 3)
        mine = lambda p: under(p, data) or under(p, ckpt)
        by_thread = self.assert_same_calls(events, replayed, mine)
        # the main process and its two workers read the dataset
        self.assertEqual(len({pid for pid, _ in by_thread}), 3)
        reads = Counter(c[0] for v in by_thread.values() for c in v
                        if c[0] in ('read', 'pread64'))
        self.assertGreater(reads['read'], 96)  # every .npz, read by numpy
        self.assertGreater(reads['pread64'], 48)  # every HDF5 chunk
        self.assertEqual([e['epoch'] for e in report['epochs']], [0])
        self.assertEqual(report['epochs'][0]['steps'], 6)
        self.assertEqual(report['stall_from'], 'fetch')
        # the results are the job's but for the unlink of each worker's listener socket
        # (made by bind(), which is no file call: not in the trace, not replayed)
        listeners = [e for e in events if e.get('name') == 'unlink' and
                     '/listener-' in e['args'].get('path', '')]
        self.assertEqual(report['results_differ'], len(listeners))


class TestWhatIf(ReplayTest):
    """The saving staging would give, on a difference the test makes: a cold read of
    the dataset from a throttled loop disk, replayed from a tmpfs stage."""
    READ_BPS = 512 * KiB
    FILES, SIZE = 4, 256 * KiB

    def setUp(self):
        super().setUp()
        self.disk_dir = disk_scratch_dir()
        self.disk = ThrottledDisk(self.disk_dir, 64 * MIB, self.READ_BPS, 64 * MIB)
        self.tmpfs = os.path.join(self.dir, 'tmpfs')
        os.mkdir(self.tmpfs)
        res = subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=32m', 'tmpfs', self.tmpfs],
                             capture_output=True, text=True)
        if res.returncode:
            self.disk.close()
            raise AssertionError('setup failed: a tmpfs for the stage: ' + res.stderr)

    def tearDown(self):
        subprocess.run(['umount', self.tmpfs], capture_output=True)
        self.disk.close()
        shutil.rmtree(self.disk_dir, ignore_errors=True)
        super().tearDown()

    def test_throttled_disk_against_tmpfs_stage(self):
        files = []
        for i in range(self.FILES):
            files.append(self.disk.path('shard%d.bin' % i))
            with open(files[-1], 'wb') as f:
                f.write(os.urandom(self.SIZE))
            self.disk.drop_cached_pages(files[-1])
        total = self.FILES * self.SIZE
        bound = self.disk.min_seconds(total, 'read')
        trace = self.path('trace.json')
        res = subprocess.run([DLTRACE, '-q', '-o', trace, '--',
                              workload('replay_reader'), '-b', '65536'] + files,
                             capture_output=True, preexec_fn=self.disk.enter, timeout=300)
        self.assertEqual(res.returncode, 0, res.stderr.decode())
        events = load_trace(trace)
        reads = [e for e in events if e.get('name') == 'read' and
                 e['args'].get('path', '').startswith(self.disk.mnt)]
        self.assertEqual(sum(e['args']['ret'] for e in reads), total)
        # the condition made: the recorded reads took the throttle's time, from the first
        # one's start to the last one's end (readahead moves some of it between the calls)
        span = (max(e['ts'] + e['dur'] for e in reads) - min(e['ts'] for e in reads)) / 1e6
        self.assertGreaterEqual(span, bound)

        def replay(args):
            res = run_replay(['--json', '--cold', '--top', '100'] + args + [trace],
                             preexec_fn=self.disk.enter)
            return json.loads(res.stdout)

        def read_times(report):
            rows = {f['path']: f for f in report['files']}
            return [rows[p] for p in files]

        # in place, cold, in the throttled cgroup: the replay pays the throttle again
        in_place = replay(['--scratch', os.path.join(self.disk_dir, 'scratch')])
        rows = read_times(in_place)
        self.assertEqual(sum(r['bytes'] for r in rows), total + self.FILES * 65536)
        self.assertGreaterEqual(in_place['wall_ns']['replayed'] / 1e9, bound)
        # staged on the tmpfs: the same calls, on the stage's copies
        staged = replay(['--stage', os.path.join(self.tmpfs, 'stage')])
        rows = read_times(staged)
        self.assertEqual(staged['staged']['files'], self.FILES)
        self.assertEqual(staged['staged']['bytes'], total)
        for p, r in zip(files, rows):
            self.assertEqual(r['replayed_path'],
                             os.path.join(self.tmpfs, 'stage', os.path.basename(p)))
            self.assertTrue(r['staged'])
        self.assertEqual(sum(r['bytes'] for r in rows), total + self.FILES * 65536)
        self.assertEqual(staged['calls_replayed'], in_place['calls_replayed'])
        # the saving: the recorded I/O time less the tmpfs's, which no throttle slows
        rec = staged['io_ns']['recorded']
        self.assertEqual(staged['io_ns']['saving'], rec - staged['io_ns']['replayed'])
        self.assertLess(sum(r['replayed_ns'] for r in rows) / 1e9, bound)
        self.assertGreater(staged['io_ns']['saving'], 0)
        self.assertGreater(staged['wall_ns']['saving'], 0)


class TestFio(ReplayTest):
    def test_iologs_replay_under_fio(self):
        """--fio: Debian's fio replays the iologs, and dltrace's trace of fio reads the
        data files at the same offsets for the same bytes as the job did."""
        if not shutil.which('fio'):
            raise AssertionError('setup failed: fio is not installed (tools/install-deps.sh '
                                 'test installs it)')
        d = self.path('data')
        os.mkdir(d)
        files = []
        for i in range(3):
            files.append(os.path.join(d, 'f%d.bin' % i))
            with open(files[-1], 'wb') as f:
                f.write(os.urandom(100 * KiB + i * 1000))
        _, events = self.trace_command([workload('replay_reader'), '-b', '16384', '-g', '500',
                                        '-o', os.path.join(d, 'out.txt')] + files)
        fio_dir = self.path('fio')
        run_replay(['--fio', fio_dir, self.path('trace.json')])
        logs = sorted(n for n in os.listdir(fio_dir) if n.endswith('.iolog'))
        self.assertEqual(len(logs), 1)
        with open(os.path.join(fio_dir, logs[0])) as f:
            lines = f.read().splitlines()
        self.assertEqual(lines[0], 'fio version 3 iolog')
        res = subprocess.run([DLTRACE, '-q', '-o', self.path('fio.json'), '--', 'fio',
                              'replay.fio'], cwd=fio_dir, capture_output=True, timeout=300)
        self.assertEqual(res.returncode, 0, res.stderr.decode() + res.stdout.decode())

        def moved(evs):
            return Counter((e['args']['path'], 'read' if 'read' in e['name'] else 'write',
                            e['args'].get('offset'), e['args']['ret'])
                           for e in evs if e.get('ph') == 'X' and e.get('cat') == 'data' and
                           e['args'].get('path') in files and e['args'].get('ret', 0) > 0)

        job = moved(events)
        self.assertEqual(sum(job.values()), sum(len(range(0, 100 * KiB + i * 1000, 16384)) + 1
                                                for i in range(3)))
        self.assertEqual(moved(load_trace(self.path('fio.json'))), job)


class TestUser(ReplayTest):
    def test_runs_as_the_invoking_user(self):
        """Under sudo (SUDO_UID, SUDO_GID) the replay is the invoking user's: a file only
        root may read, which the job (root) read, is refused to the replay; without
        them, as root, it is not.  The user makes the scratch directory (in a directory
        anyone may write): the job's own file there is made, and its calls succeed."""
        d = self.path('data')
        os.mkdir(d)
        secret = os.path.join(d, 'secret.bin')
        with open(secret, 'wb') as f:
            f.write(b's' * 1000)
        os.chmod(secret, 0o600)
        self.trace_command([workload('replay_reader'), '-o', os.path.join(d, 'out.txt'),
                            secret])
        room = self.path('room')
        os.mkdir(room)
        os.chmod(room, 0o777)
        nobody = 65534
        env = dict(os.environ, SUDO_UID=str(nobody), SUDO_GID=str(nobody))
        res = run_replay(['--json', '--scratch', os.path.join(room, 's'),
                          self.path('trace.json')], env=env)
        report = json.loads(res.stdout)
        self.assertEqual(report['differing_results'][0],
                         {'kind': 'openat', 'path': secret, 'recorded': 3, 'replayed': -13})
        # the user's own file in the scratch directory was made: its calls succeeded
        files = {f['path']: f for f in report['files']}
        self.assertEqual(files[os.path.join(d, 'out.txt')]['results_differ'], 0)
        as_root = json.loads(run_replay(['--json', '--scratch', os.path.join(room, 's'),
                                         self.path('trace.json')]).stdout)
        self.assertEqual(as_root['results_differ'], 0)


class TestStop(ReplayTest):
    def test_ctrl_c_reports_what_was_replayed(self):
        """SIGINT during a recorded pause: the replay stops, exits 130, and its report
        counts the calls before the pause and no more."""
        d = self.path('data')
        os.mkdir(d)
        for n in ('a', 'b'):
            with open(os.path.join(d, n), 'wb') as f:
                f.write(b'x' * 1000)
        out = os.path.join(d, 'out.txt')
        self.trace_command([workload('replay_reader'), '-s', '2000', '-p', '5000', '-o', out,
                            os.path.join(d, 'a'), os.path.join(d, 'b')])
        scratch = self.path('scratch')
        proc = subprocess.Popen([DLTRACE, 'replay', '--json', '--scratch', scratch,
                                 self.path('trace.json')], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        try:
            # the replay writes out.txt in the scratch directory, then pauses 5 s: the
            # signal comes when it closes out.txt (inotify), before the pause's end
            libc = ctypes.CDLL(None, use_errno=True)
            watched = scratch + d
            deadline = time.monotonic() + 60
            while not os.path.isdir(watched):
                if proc.poll() is not None:
                    self.fail('the replay ended first: ' + proc.stderr.read().decode())
                self.assertLess(time.monotonic(), deadline, 'no scratch directory')
                time.sleep(0.005)
            ino = libc.inotify_init1(os.O_CLOEXEC)
            self.assertGreaterEqual(ino, 0)
            self.assertGreaterEqual(libc.inotify_add_watch(ino, watched.encode(), 0x8), 0)
            name = b''
            while name.rstrip(b'\0') != b'out.txt':
                buf = os.read(ino, 4096)
                wd, mask, cookie, length = struct.unpack_from('iIII', buf)
                name = buf[16:16 + length]
            os.close(ino)
            proc.send_signal(signal.SIGINT)
            stdout, stderr = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
        self.assertEqual(proc.returncode, 130, stderr.decode())
        report = json.loads(stdout)
        self.assertTrue(report['stopped'])
        # before the pause: openat, read x2 (1000 bytes, then EOF), pread64, close of a,
        # then openat, write, close of out.txt
        self.assertEqual(report['replayed_by_kind'],
                         {'openat': 2, 'close': 2, 'read': 2, 'write': 1, 'pread64': 1})
        self.assertEqual(report['calls_planned'], 16)
        self.assertIn('stopped', stderr.decode())
        self.assertFalse(os.path.exists(scratch))


if __name__ == '__main__':
    unittest.main()
