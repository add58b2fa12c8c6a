"""dltrace replay without replaying: the plan of a trace written by hand
(--dry-run --json), the fio iologs (--fio), and what the replay refuses or
warns about (a --summary-only report, a merged trace of several hosts, a
damaged trace, lost events, a missing or short file, usage).  The trace's
files are made here, with known sizes; nothing needs root.  The replay
itself, traced, is tests/test_replay.py."""
import json
import os
import pty
import re
import shutil
import subprocess
import tempfile
import unittest

from dltrace_harness import DLTRACE
from synthetic_trace import Trace

MS = 1000000


def run_replay(args, check=True):
    res = subprocess.run([DLTRACE, 'replay'] + list(args), capture_output=True, timeout=120)
    if check and res.returncode != 0:
        raise AssertionError('dltrace replay %s failed (%d): %s' %
                             (args, res.returncode, res.stderr.decode()))
    return res


class Job:
    """A job written by hand: process 100 (threads 100 and 101) reads DATA/a.bin and
    DATA/b.bin, writes OUT/ckpt.tmp and renames it OUT/ckpt.pt; it forks 200, which
    reads DATA/c.bin through a descriptor of its own and one it inherited; thread 101
    sends it a batch through a pipe.  Library and /proc calls are the environment's."""

    def __init__(self, base):
        self.data = os.path.join(base, 'data')
        self.out = os.path.join(base, 'out')
        os.makedirs(self.data, exist_ok=True)
        os.makedirs(self.out, exist_ok=True)
        self.sizes = {'a.bin': 12288, 'b.bin': 5000, 'c.bin': 70000}
        for name, size in self.sizes.items():
            with open(os.path.join(self.data, name), 'wb') as f:
                f.write(b'd' * size)

    def p(self, name):
        return os.path.join(self.data, name)

    def trace(self, path, **summary):
        t = Trace()
        a, b, c = self.p('a.bin'), self.p('b.bin'), self.p('c.bin')
        tmp, ckpt = os.path.join(self.out, 'ckpt.tmp'), os.path.join(self.out, 'ckpt.pt')
        t.call('openat', 'metadata', 100, 100, 1 * MS, 5000, ret=3, fd=3,
               path='/usr/lib/x86_64-linux-gnu/libc.so.6', flags='O_RDONLY|O_CLOEXEC')
        t.call('openat', 'metadata', 100, 100, 2 * MS, 5000, ret=3, fd=3, path=a,
               flags='O_RDONLY', ino=1, dev='8:1', fs='ext4', file_size=12288)
        t.call('read', 'data', 100, 100, 3 * MS, 20000, ret=4096, fd=3, path=a, offset=0,
               size=4096)
        t.call('read', 'data', 100, 100, 4 * MS, 20000, ret=4096, fd=3, path=a, offset=4096,
               size=4096)
        t.call('pread64', 'data', 100, 100, 5 * MS, 20000, ret=1000, fd=3, path=a,
               offset=11000, size=1000)
        t.call('lseek', 'metadata', 100, 100, 6 * MS, 1000, ret=100, fd=3, path=a,
               offset=100, whence='SEEK_SET')
        t.call('newfstatat', 'metadata', 100, 100, 7 * MS, 3000, ret=0, path=b)
        t.call('openat', 'metadata', 100, 100, 8 * MS, 5000, ret=4, fd=4, path=c,
               flags='O_RDONLY', ino=3, dev='8:1', fs='ext4', file_size=70000)
        t.fork(100, 100, 101, 9 * MS, thread=True)
        t.fork(100, 100, 200, 10 * MS)
        t.call('openat', 'metadata', 100, 100, 11 * MS, 5000, ret=5, fd=5, path=tmp,
               flags='O_WRONLY|O_CREAT|O_TRUNC', mode='0644', ino=4, dev='8:1', fs='ext4',
               file_size=0)
        t.call('write', 'data', 100, 100, 12 * MS, 30000, ret=8192, fd=5, path=tmp, offset=0,
               size=8192)
        t.call('fsync', 'sync', 100, 100, 13 * MS, 900000, ret=0, fd=5, path=tmp)
        t.call('close', 'metadata', 100, 100, 14 * MS, 2000, ret=0, fd=5, path=tmp)
        t.call('rename', 'metadata', 100, 100, 15 * MS, 8000, ret=0, path=tmp, new_path=ckpt)
        t.call('close', 'metadata', 100, 100, 16 * MS, 2000, ret=0, fd=3, path=a)
        t.call('write', 'data', 100, 101, 17 * MS, 3000, ret=20, fd=7, path='pipe:[99]',
               offset=0, size=20)
        t.call('openat', 'metadata', 200, 200, 18 * MS, 5000, ret=3, fd=3, path=c,
               flags='O_RDONLY', ino=3, dev='8:1', fs='ext4', file_size=70000)
        t.call('read', 'data', 200, 200, 19 * MS, 3000, ret=20, fd=6, path='pipe:[99]',
               offset=0, size=20)
        t.call('pread64', 'data', 200, 200, 20 * MS, 40000, ret=65536, fd=3, path=c,
               offset=0, size=65536)
        t.call('pread64', 'data', 200, 200, 21 * MS, 40000, ret=4464, fd=4, path=c,
               offset=65536, size=65536)
        t.call('read', 'data', 200, 200, 22 * MS, 2000, ret=100, fd=9, path=c, offset=0,
               size=100)
        t.call('close', 'metadata', 200, 200, 23 * MS, 2000, ret=0, fd=3, path=c)
        t.call('openat', 'metadata', 200, 200, 24 * MS, 2000, ret=3, fd=3,
               path='/proc/self/status', flags='O_RDONLY')
        t.exit(200, 200, 25 * MS)
        t.exit(100, 101, 26 * MS, process=False)
        t.marker('epoch', 100, 100, 2 * MS, 24 * MS, epoch=0)
        t.call('close', 'metadata', 100, 100, 27 * MS, 2000, ret=0, fd=4, path=c)
        t.exit(100, 100, 28 * MS)
        return t.write(path, 30 * MS, **summary)


class PlanTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix='dltrace-replay-')
        self.job = Job(self.dir)
        self.trace = self.job.trace(os.path.join(self.dir, 'job.json'))
        self.scratch = os.path.join(self.dir, 'scratch')

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def plan(self, *args):
        res = run_replay(['--dry-run', '--json', '--top', '1000', '--scratch', self.scratch] +
                         list(args) + [self.trace])
        return json.loads(res.stdout), res.stderr.decode()

    def test_plan(self):
        """Threads, calls, bytes and files as the job made them; the environment's,
        the pipe's and a descriptor the trace never opened (fd 9) are not replayed."""
        plan, err = self.plan()
        self.assertEqual((plan['processes'], plan['threads']), (2, 3))
        self.assertEqual(plan['calls_by_kind'],
                         {'openat': 4, 'close': 4, 'read': 2, 'pread64': 3, 'write': 1,
                          'lseek': 1, 'fsync': 1, 'newfstatat': 1, 'rename': 1})
        self.assertEqual(plan['skipped']['opened_before_trace'], {'read': 1})
        self.assertIn("1 calls of the application's files not replayed: their descriptor was "
                      "opened before the trace or received from another process (read 1)", err)
        self.assertEqual(plan['bytes_read'], 4096 + 4096 + 1000 + 65536 + 4464)
        self.assertEqual(plan['bytes_written'], 8192)
        self.assertEqual(plan['pipes'], 1)
        roles = {f['path']: (f['role'], f['replayed_path']) for f in plan['files']}
        for name in ('a.bin', 'b.bin', 'c.bin'):
            self.assertEqual(roles[self.job.p(name)], ('read', self.job.p(name)))
        for name in ('ckpt.tmp', 'ckpt.pt'):
            path = os.path.join(self.job.out, name)
            self.assertEqual(roles[path], ('scratch', self.scratch + path))
        self.assertEqual(plan['reads'], {'files': 3, 'bytes': 12288 + 5000 + 70000})
        # each thread's ops in recorded order: calls, starts, the pipe, the epoch's marks
        threads = {t['tid']: t for t in plan['thread_list']}
        ops = lambda tid: [(o['type'], o.get('kind'), o.get('offset'), o.get('size'))
                           for o in threads[tid]['ops']]
        self.assertEqual(ops(100), [
            ('mark', None, None, None), ('call', 'openat', 0, 0), ('call', 'read', 0, 4096),
            ('call', 'read', 4096, 4096), ('call', 'pread64', 11000, 1000),
            ('call', 'lseek', 100, 0), ('call', 'newfstatat', 0, 0), ('call', 'openat', 0, 0),
            ('start', None, None, None), ('start', None, None, None),
            ('call', 'openat', 0, 0), ('call', 'write', 0, 8192), ('call', 'fsync', 0, 0),
            ('call', 'close', 0, 0), ('call', 'rename', 0, 0), ('call', 'close', 0, 0),
            ('mark', None, None, None), ('call', 'close', 0, 0), ('exit', None, None, None)])
        self.assertEqual(ops(101), [('pipe_write', None, None, None),
                                    ('exit', None, None, None)])
        self.assertEqual(ops(200), [
            ('call', 'openat', 0, 0), ('pipe_read', None, None, None),
            ('call', 'pread64', 0, 65536), ('call', 'pread64', 65536, 65536),
            ('call', 'close', 0, 0), ('exit', None, None, None)])
        # think times: from the last call's end to the next call's start
        self.assertEqual(threads[100]['ops'][3]['gap_ns'], 4 * MS - (3 * MS + 20000))
        # the child's read of the pipe waits for thread 101's write; what the parent
        # does next after the exits of its child (25 ms) and thread 101 (26 ms), the
        # epoch's end at 26 ms, waits for both
        self.assertEqual(threads[200]['ops'][1]['waits'], 1)
        self.assertEqual([o['waits'] for o in threads[100]['ops']],
                         [0] * 16 + [2, 0, 0])
        self.assertEqual(threads[100]['start_ns'], 0)
        self.assertEqual(threads[200]['start_ns'], 9 * MS)  # from 100's first event at 1 ms

    def test_map_and_stage(self):
        """--map moves the files read; --stage lists them for copying into the stage,
        their common directory replaced by it, with the stage's free space."""
        moved = os.path.join(self.dir, 'moved')
        shutil.copytree(self.job.data, moved)
        plan, _ = self.plan('--map', '%s=%s' % (self.job.data, moved))
        roles = {f['path']: (f['role'], f['replayed_path']) for f in plan['files']}
        self.assertEqual(roles[self.job.p('c.bin')], ('read', os.path.join(moved, 'c.bin')))
        stage = os.path.join(self.dir, 'stage')
        plan, _ = self.plan('--map', '%s=%s' % (self.job.data, moved), '--stage', stage)
        roles = {f['path']: (f['role'], f['replayed_path']) for f in plan['files']}
        for name in ('a.bin', 'b.bin', 'c.bin'):
            self.assertEqual(roles[self.job.p(name)], ('staged', os.path.join(stage, name)))
        self.assertEqual(plan['staged']['files'], 3)
        self.assertEqual(plan['staged']['bytes'], 12288 + 5000 + 70000)
        st = os.statvfs(self.dir)
        self.assertGreater(plan['staged']['free'], 0)
        self.assertLessEqual(plan['staged']['free'], st.f_blocks * st.f_frsize)
        self.assertFalse(os.path.exists(stage))  # a dry run makes nothing
        self.assertFalse(os.path.exists(self.scratch))

    def test_missing_file_refused(self):
        """A file the job read that is not where --map says: one line naming it."""
        empty = os.path.join(self.dir, 'empty')
        os.mkdir(empty)
        res = run_replay(['--dry-run', '--map', '%s=%s' % (self.job.data, empty),
                          self.trace], check=False)
        self.assertEqual(res.returncode, 1)
        err = res.stderr.decode().splitlines()
        self.assertEqual(len(err), 2, err)  # the plan's warning (fd 9), then the refusal
        self.assertRegex(err[1], r'^dltrace replay: %s/(a|b|c)\.bin \(recorded as %s/\1\.bin\) '
                         r'is missing \(and 2 more files\): the job (read|opened) it$' %
                         (empty, self.job.data))

    def test_short_file_warned(self):
        """A file shorter than the trace's reads: a warning with both sizes."""
        short = os.path.join(self.dir, 'short')
        shutil.copytree(self.job.data, short)
        with open(os.path.join(short, 'c.bin'), 'r+b') as f:
            f.truncate(50000)
        _, err = self.plan('--map', '%s=%s' % (self.job.data, short))
        self.assertIn('dltrace replay: warning: %s is 50000 bytes; the trace reads it up to '
                      'byte 70000: those reads return less' % os.path.join(short, 'c.bin'), err)

    def test_lost_events_warned(self):
        """A trace that lost events is planned with a warning giving the calls by kind."""
        trace = self.job.trace(os.path.join(self.dir, 'lossy.json'), lost_events=7,
                               lost_by_kind={'pread64': 5, 'openat': 2})
        res = run_replay(['--dry-run', '--json', '--scratch', self.scratch, trace])
        self.assertIn('dltrace replay: warning: the trace lost 7 events (pread64 5, openat 2): '
                      'the replay lacks them', res.stderr.decode())
        self.assertEqual(json.loads(res.stdout)['lost_events'], 7)


    def test_pftrace_plans_alike(self):
        """The same trace as .pftrace (dltrace convert) gives the same plan."""
        pf = os.path.join(self.dir, 'job.pftrace.gz')
        subprocess.run([DLTRACE, 'convert', '-q', self.trace, pf], check=True)
        plan, _ = self.plan()
        res = run_replay(['--dry-run', '--json', '--top', '1000', '--scratch', self.scratch, pf])
        other = json.loads(res.stdout)
        self.assertEqual(other.pop('trace'), pf)
        plan.pop('trace')
        self.assertEqual(other, plan)

    def test_replay_as_any_user(self):
        """A replay needs no root: it issues the plan's calls with the job's processes
        and threads, in the scratch directory for what the job changed, which it
        removes; it writes nothing else but the page it is asked for."""
        before = sorted(os.walk(self.dir))
        page = os.path.join(self.dir, 'replay.html')
        res = run_replay(['--json', '--no-think', '--cold', '--top', '1000', '--scratch',
                          self.scratch, '--html', page, self.trace])
        report = json.loads(res.stdout)
        self.assertEqual((report['processes'], report['threads']), (2, 3))
        self.assertEqual(report['calls_replayed'], 18)
        self.assertEqual(report['replayed_by_kind'],
                         {'openat': 4, 'close': 4, 'read': 2, 'pread64': 3, 'write': 1,
                          'lseek': 1, 'fsync': 1, 'newfstatat': 1, 'rename': 1})
        self.assertEqual(report['results_differ'], 0)
        files = {f['path']: f for f in report['files']}
        self.assertEqual(files[self.job.p('c.bin')]['bytes'], 65536 + 4464)
        ckpt = os.path.join(self.job.out, 'ckpt.tmp')
        self.assertEqual(files[ckpt]['replayed_path'], self.scratch + ckpt)
        self.assertEqual(files[ckpt]['bytes'], 8192)
        self.assertEqual([e['epoch'] for e in report['epochs']], [0])
        self.assertEqual(report['waits_released'], 0)
        self.assertFalse(os.path.exists(self.scratch))
        with open(page) as f:
            html = f.read()
        self.assertTrue(html.startswith('<!DOCTYPE html>'))
        self.assertIn('<h2>By file</h2>', html)
        os.unlink(page)
        self.assertEqual(sorted(os.walk(self.dir)), before)


class RefusalTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix='dltrace-replay-')
        self.job = Job(self.dir)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def refused(self, path, status=1):
        res = run_replay(['--dry-run', path], check=False)
        lines = res.stderr.decode().splitlines()
        self.assertEqual(res.returncode, status, lines)
        self.assertEqual(len(lines), 1, lines)
        self.assertEqual(res.stdout, b'')
        return lines[0]

    def test_summary_only(self):
        path = os.path.join(self.dir, 'job.summary.json')
        with open(path, 'w') as f:
            json.dump({'schema': 'dltrace-report-1', 'generator': 'dltrace 0.1.0',
                       'traces': []}, f)
        self.assertEqual(self.refused(path),
                         'dltrace replay: %s: a --summary-only report holds no calls to '
                         'replay; trace the job without --summary-only (dltrace -o trace.json '
                         '-- COMMAND)' % path)

    def test_merged_trace_of_hosts(self):
        path = os.path.join(self.dir, 'merged.json')
        t = Trace(hostname='node1,node2', target='merge of 2 traces')
        t.events[0]['args']['clock'] = 'CLOCK_REALTIME'
        t.call('openat', 'metadata', 100, 100, 1 * MS, 5000, ret=3, fd=3,
               path=self.job.p('a.bin'), flags='O_RDONLY')
        t.write(path, 2 * MS)
        self.assertEqual(self.refused(path),
                         'dltrace replay: %s: a merged trace of several hosts (node1,node2): '
                         'its processes ran on different machines; replay each host\'s own '
                         'trace, the inputs of dltrace merge' % path)

    def test_not_a_trace(self):
        for name, data in (('empty.json', b''), ('garbage.json', b'\x00\x01garbage\n'),
                           ('other.json', b'{"traceEvents": []}\n')):
            path = os.path.join(self.dir, name)
            with open(path, 'wb') as f:
                f.write(data)
            self.assertRegex(self.refused(path), r'^dltrace replay: %s: ' % path)

    def test_cut_trace_planned_with_a_warning(self):
        """A trace cut short (a crash): the complete part is planned, with a warning."""
        full = self.job.trace(os.path.join(self.dir, 'job.json'))
        with open(full, 'rb') as f:
            lines = f.read().split(b'\n')
        cut = os.path.join(self.dir, 'cut.json')
        with open(cut, 'wb') as f:  # up to the child's first pread64, and half a line
            f.write(b'\n'.join(lines[:23]) + b'\n' + lines[23][:30])
        res = run_replay(['--dry-run', '--json', '--scratch', os.path.join(self.dir, 's'), cut])
        err = res.stderr.decode()
        self.assertIn('dltrace replay: warning: %s: the trace is incomplete (the last event is '
                      'cut; no closing \']\'; no dltrace_summary event); replaying the 23 '
                      'events it holds' % cut, err)
        plan = json.loads(res.stdout)
        self.assertEqual(plan['calls_by_kind']['pread64'], 2)

    def test_no_application_io(self):
        path = os.path.join(self.dir, 'env.json')
        t = Trace()
        t.call('openat', 'metadata', 100, 100, 1 * MS, 5000, ret=3, fd=3,
               path='/usr/lib/x86_64-linux-gnu/libc.so.6', flags='O_RDONLY|O_CLOEXEC')
        t.write(path, 2 * MS)
        self.assertEqual(self.refused(path),
                         'dltrace replay: %s: no application I/O to replay (1 calls of the '
                         'environment, pipes and sockets are not replayed)' % path)


class FioTest(unittest.TestCase):
    def test_iologs(self):
        """--fio: one iolog per thread with file I/O, times in microseconds from the
        job's start, the recorded offsets and the bytes moved; the job file names
        what an iolog cannot say."""
        base = tempfile.mkdtemp(prefix='dltrace-replay-')
        try:
            job = Job(base)
            trace = job.trace(os.path.join(base, 'job.json'))
            fio = os.path.join(base, 'fio')
            res = run_replay(['--fio', fio, trace])
            self.assertEqual(res.stdout, b'')
            self.assertEqual(sorted(os.listdir(fio)),
                             ['replay.fio', 'scratch', 'thread-100.iolog', 'thread-200.iolog'])
            a, c = job.p('a.bin'), job.p('c.bin')
            tmp = os.path.join(fio, 'scratch') + os.path.join(job.out, 'ckpt.tmp')
            with open(os.path.join(fio, 'thread-100.iolog')) as f:
                self.assertEqual(f.read().splitlines(), [
                    'fio version 3 iolog',
                    '1000 %s add' % a, '1000 %s open' % a,
                    '2000 %s read 0 4096' % a, '3000 %s read 4096 4096' % a,
                    '4000 %s read 11000 1000' % a,
                    '7000 %s add' % c, '7000 %s open' % c,
                    '10000 %s add' % tmp, '10000 %s open' % tmp,
                    '11000 %s write 0 8192' % tmp, '12000 %s sync 0 0' % tmp,
                    '13000 %s close' % tmp, '15000 %s close' % a, '26000 %s close' % c])
            with open(os.path.join(fio, 'thread-200.iolog')) as f:
                self.assertEqual(f.read().splitlines(), [
                    'fio version 3 iolog',
                    '17000 %s add' % c, '17000 %s open' % c,
                    '19000 %s read 0 65536' % c, '20000 %s read 65536 4464' % c,
                    '22000 %s close' % c])
            with open(os.path.join(fio, 'replay.fio')) as f:
                text = f.read()
            self.assertIn('; An iolog cannot say these calls; they are left out: lseek 1, '
                          'newfstatat 1, rename 1\n', text)
            self.assertIn('[thread-100]\nread_iolog=thread-100.iolog\n', text)
            self.assertIn('[thread-200]\nread_iolog=thread-200.iolog\n', text)
            self.assertIn('ioengine=psync\n', text)
        finally:
            shutil.rmtree(base, ignore_errors=True)


class ProgressTest(unittest.TestCase):
    """On a terminal, a progress line of the ops replayed, cleared at the end; none
    when standard error is not one.  DLTRACE_PROGRESS_AFTER_MS=0 shows it from the
    start (the product waits a second), and the job pauses 1.5 s between its reads,
    so the replay is under way when the line is drawn."""
    LINE = re.compile(r'\r\x1b\[Kdltrace replay: (\d+) of (\d+) ops \((\d+)%\), ([\d.]+) s')

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix='dltrace-replay-')
        self.job = Job(self.dir)
        t = Trace()
        a = self.job.p('a.bin')
        t.call('openat', 'metadata', 100, 100, 1 * MS, 5000, ret=3, fd=3, path=a,
               flags='O_RDONLY', file_size=12288)
        t.call('read', 'data', 100, 100, 2 * MS, 5000, ret=4096, fd=3, path=a, offset=0,
               size=4096)
        t.call('read', 'data', 100, 100, 1502 * MS, 5000, ret=4096, fd=3, path=a,
               offset=4096, size=4096)
        t.call('close', 'metadata', 100, 100, 1503 * MS, 5000, ret=0, fd=3, path=a)
        t.exit(100, 100, 1504 * MS)
        self.trace = t.write(os.path.join(self.dir, 'slow.json'), 1505 * MS)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_line_on_a_terminal(self):
        master, slave = pty.openpty()
        env = dict(os.environ, DLTRACE_PROGRESS_AFTER_MS='0')
        proc = subprocess.Popen([DLTRACE, 'replay', '--json', self.trace], stdout=subprocess.PIPE,
                                stderr=slave, env=env)
        os.close(slave)
        err = b''
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: the last writer closed it
                break
            if not chunk:
                break
            err += chunk
        os.close(master)
        out, _ = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 0, err)
        text = err.decode()
        lines = self.LINE.findall(text)
        self.assertTrue(lines, repr(text))
        ops = json.loads(out)['ops']
        for done, total, pct, secs in lines:
            self.assertEqual(int(total), ops)
            self.assertLessEqual(int(done), ops)
            self.assertEqual(int(pct), 100 * int(done) // ops)
        self.assertTrue(text.endswith('\r\x1b[K'), repr(text[-40:]))

    def test_no_line_on_a_pipe(self):
        env = dict(os.environ, DLTRACE_PROGRESS_AFTER_MS='0')
        res = subprocess.run([DLTRACE, 'replay', '--json', self.trace], capture_output=True,
                             env=env, timeout=60)
        self.assertEqual(res.returncode, 0)
        self.assertEqual(res.stderr, b'')


class UsageTest(unittest.TestCase):
    def usage(self, args, message):
        res = run_replay(args, check=False)
        self.assertEqual(res.returncode, 2)
        self.assertEqual(res.stderr.decode(), 'dltrace replay: %s\nTry \'dltrace replay '
                         '--help\' for more information.\n' % message)

    def test_errors(self):
        self.usage([], 'no trace given')
        self.usage(['a.json', 'b.json'], 'one trace at a time, not also b.json')
        self.usage(['--cold', '--warm', 'a.json'],
                   '--cold and --warm are each other\'s opposite')
        self.usage(['--map', 'data', 'a.json'],
                   '--map needs OLD=NEW, two absolute paths, not data')
        self.usage(['--map', 'rel=/x', 'a.json'],
                   '--map needs OLD=NEW, two absolute paths, not rel=/x')
        self.usage(['--stage', 'rel', 'a.json'], '--stage needs an absolute path, not rel')
        self.usage(['--fio', '/tmp/f', '--dry-run', 'a.json'],
                   '--fio writes files for fio and replays nothing: not with --dry-run')
        self.usage(['--top', '0', 'a.json'], '--top needs a number from 1 to 1000000, not 0')
        self.usage(['--bogus', 'a.json'], 'unknown option --bogus')

    def test_help(self):
        res = run_replay(['--help'])
        self.assertTrue(res.stdout.decode().startswith('Usage: dltrace replay [OPTIONS] TRACE\n'))


if __name__ == '__main__':
    unittest.main()
