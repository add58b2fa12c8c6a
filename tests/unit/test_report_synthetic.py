"""dltrace report on traces written by hand (tests/unit/synthetic_trace.py),
where every slice's time is known to the nanosecond: no kernel, no disk, no
dependence on how fast the machine is.

- A small job (two processes, three threads; application, environment and
  pipe I/O; a fork, a thread, a short read, a seek back, a failed open, a
  checkpoint write with its fsync): every figure of `report --json` against
  the sums of the slices below (calls, bytes, time per class, process and
  thread, per file and directory, Darshan counters, quantiles, the write
  burst), the same through .pftrace and gzip, and the terminal report.
  Durations are multiples of the quantile sketch's bucket width, where it is
  exact (lib/quantile_sketch.h), so quantiles are exact too.
- The findings whose rules weigh time, each at its threshold exactly (fires:
  the rules say ">=") and one nanosecond or one byte short of it (does not):
  checkpoint_stall, reread_fits_in_ram, metadata_heavy.
"""
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from dltrace_harness import DLTRACE, load_trace
from synthetic_trace import Trace
from trace_files import convert

MIB = 1 << 20
T0 = 10000000  # the job's first call, ns after the trace's start
A, B, CKPT = '/data/train/a.bin', '/data/train/b.bin', '/ckpt/model.pt'
LIBC = '/usr/lib/x86_64-linux-gnu/libc.so.6'
EXT4 = {'dev': '254:1', 'fs': 'ext4'}


def run_report(*args, env=None):
    res = subprocess.run([DLTRACE, 'report'] + list(args), capture_output=True, timeout=60,
                         env=env)
    if res.returncode:
        raise AssertionError('dltrace report %s: %s' % (args, res.stderr.decode()))
    return res.stdout


def report_json(path, *extra):
    # --ram: the findings must not depend on the machine making the report
    return json.loads(run_report('--json', '--top', '1000', '--ram', '64G', *extra, path))


def small_job(path):
    """The job of ReportFiguresTest.  Process 100 (threads 100, the training
    thread, and 101, a loader) and process 200 (forked at 1 ms)."""
    t = Trace()
    t.call('openat', 'metadata', 100, 100, T0, 8192, ret=3, fd=3, path=A, flags='O_RDONLY',
           ino=131077, file_size=4 * MIB, **EXT4)
    t.fork(100, 100, 101, T0 + 50000, thread=True)
    t.call('openat', 'metadata', 100, 101, T0 + 60000, 4096, ret=5, fd=5, path=B,
           flags='O_RDONLY', ino=131078, file_size=8192, **EXT4)
    t.call('pread64', 'data', 100, 101, T0 + 70000, 40960, ret=4096, fd=5, path=B,
           offset=4096, size=4096)
    t.call('read', 'data', 100, 100, T0 + 100000, 2097152, ret=MIB, fd=3, path=A, offset=0,
           size=MIB)
    t.call('pread64', 'data', 100, 101, T0 + 120000, 32768, ret=4096, fd=5, path=B, offset=0,
           size=4096)
    t.call('newfstatat', 'metadata', 100, 101, T0 + 160000, 2048, ret=0, path='/etc/hosts',
           flags='0x0')
    t.call('read', 'data', 100, 101, T0 + 170000, 262144, ret=100, fd=0, path='pipe:[77]',
           offset=0, size=65536)
    t.call('close', 'metadata', 100, 101, T0 + 500000, 1024, ret=0, fd=5, path=B)
    t.fork(100, 100, 200, T0 + 1000000)
    t.call('openat', 'metadata', 200, 200, T0 + 1010000, 16384, ret=3, fd=3, path=LIBC,
           flags='O_RDONLY|O_CLOEXEC', ino=99, file_size=1926232, **EXT4)
    t.call('read', 'data', 200, 200, T0 + 1030000, 2048, ret=832, fd=3, path=LIBC, offset=0,
           size=832)
    t.call('close', 'metadata', 200, 200, T0 + 1040000, 1024, ret=0, fd=3, path=LIBC)
    t.call('openat', 'metadata', 200, 200, T0 + 1050000, 8192, ret=3, fd=3, path=A,
           flags='O_RDONLY', ino=131077, file_size=4 * MIB, **EXT4)
    t.call('pread64', 'data', 200, 200, T0 + 1060000, 3145728, ret=MIB, fd=3, path=A,
           offset=3 * MIB, size=MIB)
    t.call('read', 'data', 100, 100, T0 + 2300000, 1048576, ret=MIB, fd=3, path=A, offset=MIB,
           size=MIB)
    t.call('read', 'data', 100, 100, T0 + 3400000, 524288, ret=MIB // 2, fd=3, path=A,
           offset=2 * MIB, size=MIB)  # short: 512 KiB of the 1 MiB asked
    t.call('lseek', 'metadata', 100, 100, T0 + 4000000, 1024, ret=0, fd=3, path=A, offset=0,
           whence='SEEK_SET')
    t.call('read', 'data', 100, 100, T0 + 4100000, 4096, ret=4096, fd=3, path=A, offset=0,
           size=4096)  # 4 KiB read again in the same open
    t.call('close', 'metadata', 100, 100, T0 + 4200000, 2048, ret=0, fd=3, path=A)
    t.call('close', 'metadata', 200, 200, T0 + 4300000, 1024, ret=0, fd=3, path=A)
    t.exit(200, 200, T0 + 4400000)
    t.call('openat', 'metadata', 100, 100, T0 + 5000000, 16384, ret=4, fd=4, path=CKPT,
           flags='O_WRONLY|O_CREAT|O_TRUNC', mode='0644', ino=131079, file_size=0, **EXT4)
    t.call('write', 'data', 100, 100, T0 + 5100000, 8388608, ret=2 * MIB, fd=4, path=CKPT,
           offset=0, size=2 * MIB)
    t.call('fsync', 'sync', 100, 100, T0 + 13600000, 4194304, ret=0, fd=4, path=CKPT)
    t.call('close', 'metadata', 100, 100, T0 + 17900000, 2048, ret=0, fd=4, path=CKPT)
    t.call('openat', 'metadata', 100, 100, T0 + 18000000, 4096, ret=-1, errno='ENOENT',
           path='/data/train/missing.bin', flags='O_RDONLY')
    t.process_name(100, 'python3 train.py --epochs 1')
    t.thread_name(100, 100, 'python3')
    t.thread_name(100, 101, 'loader')
    t.process_name(200, 'python3 train.py --epochs 1')
    t.thread_name(200, 200, 'python3')
    return t.write(path, 30000000)


# The slices above, summed by hand.
READS_100 = [2097152, 1048576, 524288, 4096]  # thread 100's reads of a.bin
META_100 = 8192 + 1024 + 2048 + 16384 + 2048 + 4096  # openat, lseek, close; openat, close; ENOENT
META_101 = 4096 + 2048 + 1024  # openat b.bin, newfstatat /etc/hosts, close
META_200 = 16384 + 1024 + 8192 + 1024  # libc openat and close, a.bin openat and close
DATA_100 = sum(READS_100) + 8388608
DATA_101 = 40960 + 32768 + 262144  # two preads of b.bin, the pipe's read
DATA_200 = 2048 + 3145728  # libc's read, the pread of a.bin
SYNC_100 = 4194304


class ReportFiguresTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix='dltrace-synthetic-')
        cls.trace = small_job(os.path.join(cls.dir, 'job.json'))
        cls.events = load_trace(cls.trace)  # the builder writes what dltrace writes
        cls.rep = report_json(cls.trace)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def test_job(self):
        self.assertEqual(self.rep['job'], {
            'commands': ['command python3 train.py'], 'hosts': ['node1'], 'start_ns': T0,
            'wall_ns': 18004096,  # the failed openat at 18 ms ends the job
            'stopped_early': False,  # the summary says the target exited
            'processes': 2, 'threads': 3, 'events': len(self.events), 'lost_events': 0,
            'syscalls': 24, 'failed_syscalls': 1, 'calls_in_runs': 0})
        [tr] = self.rep['traces']
        self.assertEqual((tr['duration_ns'], tr['events'], tr['stop_reason'], tr['complete'],
                          tr['warnings']), (30000000, 36, 'target exited', True, []))

    def test_time_in_io(self):
        t = self.rep['time']
        self.assertEqual(t['io_ns'], {
            'data': DATA_100 + DATA_101 + DATA_200,
            'metadata': META_100 + META_101 + META_200,
            'sync': SYNC_100,
            'total': DATA_100 + DATA_101 + DATA_200 + META_100 + META_101 + META_200 + SYNC_100})
        io_100 = DATA_100 + META_100 + SYNC_100
        self.assertEqual(t['training_thread'], {
            'pid': 100, 'tid': 100, 'name': 'python3', 'wall_ns': 18004096, 'io_ns': io_100,
            'data_ns': DATA_100, 'metadata_ns': META_100, 'sync_ns': SYNC_100,
            'io_share': io_100 / 18004096, 'app_io_ns': io_100, 'env_io_ns': 0,
            'other_io_ns': 0, 'app_read_ns': sum(READS_100),
            'burst_blocked_ns': 8388608 + 4194304 + 2048})  # write, fsync, close
        procs = {p['pid']: p for p in t['processes']}
        io_p100 = io_100 + DATA_101 + META_101
        self.assertEqual(procs[100], {
            'pid': 100, 'ppid': 0, 'host': 'node1', 'command': 'python3 train.py --epochs 1',
            'threads': 2, 'wall_ns': 18004096, 'io_ns': io_p100,
            'data_ns': DATA_100 + DATA_101, 'metadata_ns': META_100 + META_101,
            'sync_ns': SYNC_100, 'io_share': io_p100 / 18004096,
            'app_io_ns': io_p100 - 2048 - 262144,  # /etc/hosts, the pipe
            'env_io_ns': 2048, 'calls': 18, 'failed': 1,
            'app_bytes_read': 2 * MIB + MIB // 2 + 4096 + 8192,
            'app_bytes_written': 2 * MIB, 'origins': ['syscall'],
            # no rank in its process_name args: unknown, not 0
            'rank': None, 'rank_from': None, 'local_rank': None, 'world_size': None})
        io_200 = DATA_200 + META_200
        self.assertEqual(procs[200], {
            'pid': 200, 'ppid': 100, 'host': 'node1', 'command': 'python3 train.py --epochs 1',
            'threads': 1, 'wall_ns': 3400000,  # from its start (the fork) to its exit
            'io_ns': io_200, 'data_ns': DATA_200, 'metadata_ns': META_200, 'sync_ns': 0,
            'io_share': io_200 / 3400000, 'app_io_ns': 3145728 + 8192 + 1024,
            'env_io_ns': 16384 + 2048 + 1024, 'calls': 6, 'failed': 0,
            'app_bytes_read': MIB, 'app_bytes_written': 0, 'origins': ['syscall'],
            'rank': None, 'rank_from': None, 'local_rank': None, 'world_size': None})
        threads = {th['tid']: th for th in t['threads']}
        self.assertEqual(sorted(threads), [100, 101, 200])
        # thread 101 lives from its creation (50 us) to its close's end
        self.assertEqual((threads[101]['wall_ns'], threads[101]['io_ns'],
                          threads[101]['data_ns'], threads[101]['metadata_ns'],
                          threads[101]['app_bytes_read']),
                         (451024, DATA_101 + META_101, DATA_101, META_101, 8192))

    def test_syscalls(self):
        s = self.rep['syscalls']
        app = {x['name']: x for x in s['application']}
        self.assertEqual({n: (x['class'], x['calls'], x['failed'], x['bytes'])
                          for n, x in app.items()},
                         {'openat': ('metadata', 5, 1, 0), 'close': ('metadata', 4, 0, 0),
                          'read': ('data', 4, 0, 2 * MIB + MIB // 2 + 4096),
                          'pread64': ('data', 3, 0, MIB + 8192),
                          'write': ('data', 1, 0, 2 * MIB), 'lseek': ('metadata', 1, 0, 0),
                          'fsync': ('sync', 1, 0, 0)})
        # sizes (bytes moved) and latencies: nearest rank, exact
        self.assertEqual(app['read']['size'], {
            'count': 4, 'min': 4096, 'p25': 4096, 'median': MIB // 2,
            'mean': (2 * MIB + MIB // 2 + 4096) / 4, 'p75': MIB, 'max': MIB})
        self.assertEqual(app['read']['latency_ns'], {'mean': sum(READS_100) / 4,
                                                     'p50': 524288, 'p99': 2097152,
                                                     'max': 2097152})
        self.assertEqual(app['pread64']['latency_ns'], {'mean': (40960 + 32768 + 3145728) / 3,
                                                        'p50': 40960, 'p99': 3145728,
                                                        'max': 3145728})
        self.assertEqual(app['openat']['latency_ns'], {'mean': 8192, 'p50': 8192,
                                                       'p99': 16384, 'max': 16384})
        env = {x['name']: (x['calls'], x['bytes'], x['latency_ns']['max'])
               for x in s['environment']}
        self.assertEqual(env, {'openat': (1, 0, 16384), 'read': (1, 832, 2048),
                               'close': (1, 0, 1024), 'newfstatat': (1, 0, 2048)})
        self.assertEqual([(x['name'], x['calls'], x['bytes']) for x in s['other']],
                         [('read', 1, 100)])

    def test_access_pattern(self):
        p = self.rep['pattern']
        # Darshan, per process and file: a.bin by 100 reads 0 (first), 1M (seq, consec),
        # 2M (seq, consec), 0 after the seek (random); by 200: 3M (seq); b.bin: 4K (seq),
        # 0 (random).  Small: under 1 MiB moved (512K, 4K, 4K, 4K).
        self.assertEqual({k: p[k] for k in (
            'reads', 'writes', 'bytes_read', 'bytes_written', 'seq_reads', 'consec_reads',
            'random_reads', 'seq_writes', 'random_writes', 'small_reads', 'small_writes',
            'seeks', 'rw_switches', 'opens', 'stats', 'metadata_calls', 'syncs')},
            {'reads': 7, 'writes': 1, 'bytes_read': 3 * MIB + MIB // 2 + 3 * 4096,
             'bytes_written': 2 * MIB, 'seq_reads': 4, 'consec_reads': 2, 'random_reads': 2,
             'seq_writes': 0, 'random_writes': 0, 'small_reads': 4, 'small_writes': 0,
             'seeks': 1, 'rw_switches': 0, 'opens': 4, 'stats': 0,
             # the opens, closes and the seek that succeeded
             'metadata_calls': 9, 'syncs': 1})
        sizes = self.rep['access_sizes']
        self.assertEqual((sizes['read'], sizes['write']),
                         ([0, 0, 3, 0, 4, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 1, 0, 0, 0, 0]))
        self.assertEqual([(c['size'], c['count']) for c in sizes['common']],
                         [(4096, 3), (MIB, 3), (MIB // 2, 1), (2 * MIB, 1)])

    def test_files_and_directories(self):
        files = {f['path']: f for f in self.rep['files']['list']}
        self.assertEqual(sorted(files), [CKPT, A, B])
        keys = ('bytes_read', 'bytes_written', 'reads', 'writes', 'opens', 'seeks', 'syncs',
                'seq_reads', 'consec_reads', 'random_reads', 'processes', 'readers',
                'first_ns', 'last_ns', 'max_byte_read', 'max_byte_written', 'size', 'extent',
                'passes', 'reread_within_open', 'concurrent_duplicate_bytes', 'read_ns',
                'write_ns', 'metadata_ns', 'sync_ns', 'dev', 'fs')
        got = {p: {k: f[k] for k in keys} for p, f in files.items()}
        self.assertEqual(got[A], {
            'bytes_read': 3 * MIB + MIB // 2 + 4096, 'bytes_written': 0, 'reads': 5,
            'writes': 0, 'opens': 2, 'seeks': 1, 'syncs': 0, 'seq_reads': 3,
            'consec_reads': 2, 'random_reads': 1, 'processes': 2, 'readers': 2,
            'first_ns': T0, 'last_ns': T0 + 4300000 + 1024, 'max_byte_read': 4 * MIB - 1,
            'max_byte_written': -1, 'size': 4 * MIB, 'extent': 4 * MIB,
            # the bytes read less those read again in the same open, over the size
            'passes': (3 * MIB + MIB // 2) / (4 * MIB),
            'reread_within_open': 4096, 'concurrent_duplicate_bytes': 0,
            'read_ns': sum(READS_100) + 3145728, 'write_ns': 0,
            'metadata_ns': 8192 + 1024 + 2048 + 8192 + 1024, 'sync_ns': 0,
            'dev': '254:1', 'fs': 'ext4'})
        self.assertEqual(got[B], {
            'bytes_read': 8192, 'bytes_written': 0, 'reads': 2, 'writes': 0, 'opens': 1,
            'seeks': 0, 'syncs': 0, 'seq_reads': 1, 'consec_reads': 0, 'random_reads': 1,
            'processes': 1, 'readers': 1, 'first_ns': T0 + 60000, 'last_ns': T0 + 501024,
            'max_byte_read': 8191, 'max_byte_written': -1, 'size': 8192, 'extent': 8192,
            'passes': 1, 'reread_within_open': 0, 'concurrent_duplicate_bytes': 0,
            'read_ns': 40960 + 32768, 'write_ns': 0, 'metadata_ns': 4096 + 1024,
            'sync_ns': 0, 'dev': '254:1', 'fs': 'ext4'})
        self.assertEqual(got[CKPT], {
            'bytes_read': 0, 'bytes_written': 2 * MIB, 'reads': 0, 'writes': 1, 'opens': 1,
            'seeks': 0, 'syncs': 1, 'seq_reads': 0, 'consec_reads': 0, 'random_reads': 0,
            'processes': 1, 'readers': 0, 'first_ns': T0 + 5000000,
            'last_ns': T0 + 17900000 + 2048, 'max_byte_read': -1,
            'max_byte_written': 2 * MIB - 1, 'size': 0, 'extent': 2 * MIB, 'passes': 0,
            'reread_within_open': 0, 'concurrent_duplicate_bytes': 0, 'read_ns': 0,
            'write_ns': 8388608, 'metadata_ns': 16384 + 2048, 'sync_ns': 4194304,
            'dev': '254:1', 'fs': 'ext4'})
        summary = {k: v for k, v in self.rep['files'].items() if k != 'list'}
        self.assertEqual(summary, {
            'count': 3, 'read': 2, 'written': 1, 'read_once': 2, 'reread': 0,
            'redundant_bytes': 4096, 'reread_within_open_bytes': 4096,
            'concurrent_duplicate_bytes': 0, 'dataset_bytes': 4 * MIB + 8192,
            'size_bins': [0, 0, 1, 0, 0, 2, 0, 0, 0, 0]})
        # a failed call counts in its directory's failures and time, not as a metadata call
        self.assertEqual(self.rep['directories'], [
            {'path': '/data/train', 'files': 2, 'bytes_read': 3 * MIB + MIB // 2 + 3 * 4096,
             'bytes_written': 0, 'reads': 7, 'writes': 0, 'metadata_calls': 7, 'failed': 1,
             'io_ns': sum(READS_100) + 3145728 + 40960 + 32768 + 8192 + 1024 + 2048 + 8192 +
             1024 + 4096 + 1024 + 4096},
            {'path': '/ckpt', 'files': 1, 'bytes_read': 0, 'bytes_written': 2 * MIB,
             'reads': 0, 'writes': 1, 'metadata_calls': 2, 'failed': 0,
             'io_ns': 16384 + 8388608 + 4194304 + 2048}])

    def test_environment_other_and_errors(self):
        self.assertEqual(self.rep['environment'], {
            'calls': 4, 'failed': 0, 'bytes_read': 832, 'bytes_written': 0,
            'io_ns': 16384 + 2048 + 1024 + 2048, 'files': 2, 'kinds': [
                {'kind': 'libraries', 'calls': 3, 'failed': 0, 'bytes_read': 832,
                 'bytes_written': 0, 'io_ns': 16384 + 2048 + 1024, 'files': 1},
                {'kind': 'system', 'calls': 1, 'failed': 0, 'bytes_read': 0,
                 'bytes_written': 0, 'io_ns': 2048, 'files': 1}]})
        self.assertEqual(self.rep['other'], {'calls': 1, 'failed': 0, 'bytes_read': 100,
                                             'bytes_written': 0, 'io_ns': 262144,
                                             'shared_memory': {'calls': 0, 'failed': 0,
                                                               'bytes_read': 0,
                                                               'bytes_written': 0,
                                                               'io_ns': 0}})
        self.assertEqual(self.rep['errors'], [{'errno': 'ENOENT', 'count': 1,
                                               'application': 1, 'environment': 0,
                                               'other': 0}])

    def test_write_burst_and_no_finding(self):
        # the write, the fsync and the close: one burst of 2 MiB (the open before it and
        # the failed open after it are not part of it)
        self.assertEqual(self.rep['bursts'], {
            'count': 1, 'bytes': 2 * MIB, 'blocked_ns': 8388608 + 4194304 + 2048, 'list': [
                {'pid': 100, 'tid': 100, 'start_ns': T0 + 5100000,
                 'end_ns': T0 + 17900000 + 2048, 'bytes': 2 * MIB,
                 'blocked_ns': 8388608 + 4194304 + 2048, 'ops': 3, 'path': CKPT,
                 'training_thread': True}]})
        # one burst is a file written once, not a checkpoint; and nothing else is near a rule
        self.assertEqual(self.rep['findings'], [])

    def test_the_same_report_from_pftrace_and_gzip(self):
        for name in ('job.pftrace', 'job.pftrace.gz', 'job.json.gz'):
            other = os.path.join(self.dir, name)
            convert(self.trace, other)
            rep = report_json(other)
            self.assertEqual(rep['traces'][0].pop('file'), other)
            want = json.loads(json.dumps(self.rep))
            want['traces'][0].pop('file')
            self.assertEqual(rep, want, name)

    def test_terminal_report_shows_the_same(self):
        text = run_report('--ram', '64G', self.trace,
                          env=dict(os.environ, NO_COLOR='1')).decode()
        for line in ('  2 processes, 3 threads, 24 file syscalls (1 failed)\n',
                     '  reads  7, 3.51 MiB: 4 sequential, 2 consecutive, 2 random, 4 small\n',
                     '  writes 1, 2.00 MiB: 0 sequential, 0 consecutive, 0 random, 0 small\n',
                     '  redundant reads: 4.00 KiB read again within an open, 0 B read at the '
                     'same time by several processes\n',
                     '  4 calls (0 failed), 832 B read, 21.5 us in I/O\n',
                     '  pipes, sockets, unnamed, shared memory: 1 calls, 100 B read, 0 B written\n',
                     '  errors: ENOENT 1\n',
                     '  no finding: nothing in this trace matches a rule\n'):
            self.assertIn(line, text)
        row = re.search(r'\n  read +4 +0 +2\.50 MiB \| 4\.00 KiB 4\.00 KiB 512 KiB 641 KiB '
                        r'1\.00 MiB 1\.00 MiB \| 524\.3 us +2\.1 ms +2\.1 ms\n', text)
        self.assertTrue(row, text)
        self.assertRegex(text, r'write bursts \(>= 1 MiB, writes < 1 s apart\): 1, 2\.00 MiB, '
                               r'writers blocked 12\.6 ms\n')


def findings(path, *extra):
    return {f['id']: f for f in report_json(path, *extra)['findings']}


class FindingThresholdTest(unittest.TestCase):
    """Rules that weigh time, on traces built at their thresholds."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix='dltrace-findings-')

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def checkpoints(self, name, bursts=2, blocked_each=75000000, wall=3000000000):
        """The training thread (100) lives `wall` ns and writes `bursts` checkpoints of
        2 MiB, 1.5 s apart (a burst is writes less than 1 s apart), each blocking it
        `blocked_each` ns."""
        t = Trace()
        t.call('openat', 'metadata', 100, 100, 0, 1000, ret=3, fd=3, path='/data/ds.bin',
               flags='O_RDONLY', ino=5, file_size=64 * MIB, **EXT4)
        for b in range(bursts):
            at, half = 100000000 + b * 1500000000, blocked_each // 2
            t.call('write', 'data', 100, 100, at, half, ret=MIB, fd=4,
                   path='/ckpt/c%d.pt' % b, offset=0, size=MIB)
            t.call('write', 'data', 100, 100, at + half + 1000, blocked_each - half, ret=MIB,
                   fd=4, path='/ckpt/c%d.pt' % b, offset=MIB, size=MIB)
        # more than 1 s after the last burst: its own, not the burst's
        t.call('close', 'metadata', 100, 100, 2999999000, wall - 2999999000, ret=0, fd=3,
               path='/data/ds.bin')
        t.process_name(100, 'python3 train.py')
        t.thread_name(100, 100, 'python3')
        return t.write(os.path.join(self.dir, name), wall + 1000)

    def test_checkpoint_stall(self):
        # blocked exactly 5% of its time (150 ms of 3 s): warn
        f = findings(self.checkpoints('at.json'))
        self.assertEqual(list(f), ['checkpoint_stall'])
        self.assertEqual((f['checkpoint_stall']['level'], f['checkpoint_stall']['metrics']),
                         ('warn', {'bursts': 2, 'burst_bytes': 4 * MIB, 'blocked_ns': 150000000,
                                   'thread_wall_ns': 3000000000, 'share': 0.05}))
        self.assertEqual(f['checkpoint_stall']['evidence'][0],
                         'training thread 100: 2 bursts wrote 4.00 MiB and blocked it '
                         '150.0 ms, 5.0% of its 3.00 s')
        # the thread lives 1 ns longer: just under 5%
        self.assertEqual(findings(self.checkpoints('under.json', wall=3000000001)), {})
        # the same 150 ms in one burst: a file written once
        self.assertEqual(findings(self.checkpoints('once.json', bursts=1,
                                                   blocked_each=150000000)), {})
        # 20%: high
        f = findings(self.checkpoints('high.json', blocked_each=300000000))
        self.assertEqual((f['checkpoint_stall']['level'],
                          f['checkpoint_stall']['metrics']['share']), ('high', 0.2))

    def epochs(self, name, wall=320000000):
        """/data/ds.bin (8 MiB) read whole twice, in two opens, 1 MiB a call, 1 ms each:
        16 ms of reads, 2 passes; the job lasts `wall` ns."""
        t = Trace()
        ts = 0
        for epoch in range(2):
            t.call('openat', 'metadata', 100, 100, ts, 1000, ret=3, fd=3, path='/data/ds.bin',
                   flags='O_RDONLY', ino=5, file_size=8 * MIB, **EXT4)
            ts += 1000000
            for i in range(8):
                t.call('read', 'data', 100, 100, ts, 1000000, ret=MIB, fd=3,
                       path='/data/ds.bin', offset=i * MIB, size=MIB)
                ts += 2000000
            t.call('close', 'metadata', 100, 100, ts, 1000, ret=0, fd=3, path='/data/ds.bin')
            ts += 1000000
        t.call('newfstatat', 'metadata', 100, 100, wall - 1000, 1000, ret=0, path='/data',
               flags='0x0')
        t.process_name(100, 'python3 train.py')
        return t.write(os.path.join(self.dir, name), wall + 1000)

    def test_reread_fits_in_ram(self):
        # 16 ms of re-reads in 320 ms (5%), 8 MiB of data in 16 MiB of RAM (half): warn
        at = self.epochs('at.json')
        f = findings(at, '--ram', '16M')
        self.assertEqual(list(f), ['reread_fits_in_ram'])
        self.assertEqual(f['reread_fits_in_ram']['level'], 'warn')
        self.assertEqual(f['reread_fits_in_ram']['evidence'][:2], [
            '1 files (8.00 MiB of 8.00 MiB read) were read 2.0 times on average: 16.0 MiB '
            'read in 16.0 ms', 'RAM (--ram): 16.0 MiB'])
        # 1 MiB less RAM: the data no longer fits in half of it
        self.assertEqual(findings(at, '--ram', '15M'), {})
        # the job 1 ns longer: the re-reads take less than 5% of it
        self.assertEqual(findings(self.epochs('longer.json', wall=320000001), '--ram', '16M'),
                         {})

    def metadata(self, name, calls=1000, stat_ns=1000, read_ns=9000000):
        """`calls` stats of application files, `stat_ns` each, and one read of `read_ns`."""
        t = Trace()
        ts = 0
        for i in range(calls):
            t.call('newfstatat', 'metadata', 100, 100, ts, stat_ns, ret=0,
                   path='/data/f%04d' % i, flags='0x0')
            ts += stat_ns + 1000
        t.call('read', 'data', 100, 100, ts, read_ns, ret=MIB, fd=3, path='/data/big.bin',
               offset=0, size=MIB)
        t.process_name(100, 'python3 train.py')
        return t.write(os.path.join(self.dir, name), ts + read_ns)

    def test_metadata_heavy(self):
        # 1,000 calls taking 10% of the application's I/O time (1 ms of 10 ms): warn
        f = findings(self.metadata('at.json'))
        self.assertEqual(list(f), ['metadata_heavy'])
        m = f['metadata_heavy']
        self.assertEqual((m['level'], {k: m['metrics'][k] for k in (
            'metadata_calls', 'metadata_ns', 'io_ns', 'share', 'stats')}),
            ('warn', {'metadata_calls': 1000, 'metadata_ns': 1000000, 'io_ns': 10000000,
                      'share': 0.1, 'stats': 1000}))
        # 999 calls (and the same share): too few
        self.assertEqual(findings(self.metadata('few.json', calls=999, read_ns=8991000)), {})
        # the read 1 ns longer: under 10%
        self.assertEqual(findings(self.metadata('under.json', read_ns=9000001)), {})
        # 30%: high
        f = findings(self.metadata('high.json', stat_ns=3000, read_ns=7000000))
        self.assertEqual((f['metadata_heavy']['level'], f['metadata_heavy']['metrics']['share']),
                         ('high', 0.3))


if __name__ == '__main__':
    unittest.main()
