"""Asynchronous and mapped I/O counted as I/O.

io_uring and native AIO requests, page faults on file mappings and splice
are folded into the report's figures (reads, writes, syncs, bytes, per file,
per process), each marked by its origin (pattern.by_origin, files[].origins,
processes[].origins).  Two kinds of oracle:

- small C programs (workloads/aio_cases.c with the raw AIO syscalls,
  workloads/uring_cases.c) that print what they did, for exact facts:
  offsets, sizes, results, the iocbs the kernel refused, registered files,
  the SQPOLL thread;
- Debian's fio, which reports exactly what it issued (--output-format=json)
  and logs each request (--write_iolog): the report's figures must equal
  fio's, request for request.

Files live in build/tests/scratch (O_DIRECT needs a disk-backed file system).
"""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

from dltrace_harness import BUILD, DLTRACE, load_trace, run_command, workload

SCRATCH_PARENT = os.path.join(BUILD, 'tests', 'scratch')
FIO = shutil.which('fio')
ORIGINS = ('syscall', 'io_uring', 'aio', 'mmap')


def write_random(path, size):
    with open(path, 'wb') as f:
        f.write(os.urandom(size))
        f.flush()
        os.fsync(f.fileno())


def drop_caches():
    with open('/proc/sys/vm/drop_caches', 'w') as f:
        f.write('1\n')


class AsyncTest(unittest.TestCase):
    def setUp(self):
        os.makedirs(SCRATCH_PARENT, exist_ok=True)
        self.dir = tempfile.mkdtemp(prefix='async-', dir=SCRATCH_PARENT)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def trace(self, cmd, name='trace'):
        """Trace cmd; returns (stdout, events, report)."""
        out = os.path.join(self.dir, name + '.json')
        rep = os.path.join(self.dir, name + '.report.json')
        res = run_command(['--report-json', rep], out, cmd)
        self.assertEqual(res.returncode, 0, res.stderr.decode())
        with open(rep) as f:
            report = json.load(f)
        return res.stdout.decode(), load_trace(out), report

    def check_round_trip(self, name='trace'):
        """The trace through .pftrace and back: the same events, the same figures."""
        src = os.path.join(self.dir, name + '.json')
        pft = os.path.join(self.dir, name + '.pftrace')
        back = os.path.join(self.dir, name + '.back.json')
        for a, b in ((src, pft), (pft, back)):
            res = subprocess.run([DLTRACE, 'convert', a, b], capture_output=True)
            self.assertEqual(res.returncode, 0, res.stderr.decode())
        self.assertEqual(load_trace(back), load_trace(src))
        reports = []
        for t in (src, pft):
            res = subprocess.run([DLTRACE, 'report', '--json', t], capture_output=True)
            self.assertEqual(res.returncode, 0, res.stderr.decode())
            reports.append(json.loads(res.stdout)['pattern'])
        self.assertEqual(reports[0], reports[1])
        return reports[0]

    @staticmethod
    def file_entry(report, path):
        entries = [f for f in report['files']['list'] if f['path'] == path]
        return entries[0] if entries else None

    @staticmethod
    def origin(report, name):
        o = report['pattern']['by_origin'][name]
        return (o['reads'], o['writes'], o['syncs'], o['bytes_read'], o['bytes_written'])

    def assert_only_origin(self, report, name, figures):
        """figures (reads, writes, syncs, bytes_read, bytes_written) all from origin name."""
        for o in ORIGINS:
            self.assertEqual(self.origin(report, o), figures if o == name else (0, 0, 0, 0, 0), o)
        p = report['pattern']
        self.assertEqual((p['reads'], p['writes'], p['syncs'], p['bytes_read'],
                          p['bytes_written']), figures)


class AioTest(AsyncTest):
    """Native AIO through the raw syscalls: every iocb from io_submit to its event."""

    def check(self, mode):
        path = os.path.join(self.dir, 'aio.bin')
        write_random(path, 1 << 20)
        out, events, report = self.trace([workload('aio_cases'), mode, path])
        facts = json.loads(out.strip().splitlines()[-1])
        pid = facts['pid']
        self.assertEqual(facts['submitted'], [3, 1, 1])
        begins = [e for e in events if e.get('cat') == 'aio' and e['ph'] == 'b']
        ends = {e['id2']['local']: e for e in events if e.get('cat') == 'aio' and e['ph'] == 'e'}
        fd, iocbs = facts['fd'], facts['iocbs']
        # the refused iocb (descriptor -1, the second of io_submit #2) is no request
        self.assertEqual(
            [(b['name'], b['pid'], b['args']['fd'], b['args'].get('path'), b['args']['offset'],
              b['args']['len'], b['args']['iocb'], b['args']['ctx'], b['args']['data'])
             for b in begins],
            [('PREAD', pid, fd, path, 0, 4096, iocbs[0], facts['ctx'], '0x3e8'),
             ('PREAD', pid, fd, path, 65536, 8192, iocbs[1], facts['ctx'], '0x3e9'),
             ('PWRITE', pid, fd, path, 131072, 4096, iocbs[2], facts['ctx'], '0x3ea'),
             ('PREADV', pid, fd, path, 262144, 12288, iocbs[3], facts['ctx'], '0x3eb'),
             ('FDSYNC', pid, fd, path, 0, 0, iocbs[5], facts['ctx'], '0x3ed')])
        res = facts['res']
        self.assertEqual([ends[b['id2']['local']]['args']['ret'] for b in begins],
                         [res[0], res[1], res[2], res[3], res[5]])
        self.assertEqual(res, [4096, 8192, 4096, 12288, 0, 0])
        for b in begins:  # ended when io_getevents returned, after the submission
            self.assertGreaterEqual(ends[b['id2']['local']]['ts'], b['ts'])
        calls = [e for e in events if e.get('pid') == pid and e['ph'] == 'X' and
                 e['name'] in ('io_setup', 'io_submit', 'io_destroy')]
        self.assertEqual([(e['name'], e['args'].get('nr'), e['args']['ret']) for e in calls],
                         [('io_setup', None, 0), ('io_submit', 3, 3), ('io_submit', 2, 1),
                          ('io_submit', 1, 1), ('io_destroy', None, 0)])
        self.assertEqual([e['args']['ctx'] for e in calls], [facts['ctx']] * 5)
        self.assertEqual((facts['pgetevents'], facts['cancel']), (0, -22))
        more = [(e['name'], e['args']['ctx'], e['args'].get('min_nr'), e['args'].get('nr'),
                 e['args'].get('iocb'), e['args']['ret'], e['args'].get('errno'))
                for e in events if e.get('pid') == pid and e['ph'] == 'X' and
                e['name'] in ('io_pgetevents', 'io_cancel')]
        self.assertEqual(more, [('io_pgetevents', facts['ctx'], 0, 1, None, 0, None),
                                ('io_cancel', facts['ctx'], None, None, iocbs[0], -1, 'EINVAL')])
        # the report: 3 reads (24 KiB), 1 write, 1 sync, all from AIO
        self.assert_only_origin(report, 'aio', (3, 1, 1, 24576, 4096))
        f = self.file_entry(report, path)
        self.assertEqual((f['reads'], f['bytes_read'], f['writes'], f['bytes_written'],
                          f['syncs'], f['origins']), (3, 24576, 1, 4096, 1, ['aio']))
        procs = {p['pid']: p for p in report['time']['processes']}
        self.assertEqual(procs[pid]['origins'], ['aio'])
        self.assertEqual(report['layers']['aio_requests'], 5)
        self.assertEqual(self.check_round_trip()['by_origin'], report['pattern']['by_origin'])

    def test_reaped_by_another_thread(self):
        """Reaped by a second thread while the submitter's io_submit record waits in its batch."""
        path = os.path.join(self.dir, 'aio.bin')
        write_random(path, 1 << 16)
        out, events, report = self.trace([workload('aio_cases'), 'threads', path])
        facts = json.loads(out.strip().splitlines()[-1])
        pid = facts['pid']
        self.assertEqual(facts['res'], [4096, 8192])
        begins = [e for e in events if e.get('cat') == 'aio' and e['ph'] == 'b']
        ends = {e['id2']['local']: e for e in events if e.get('cat') == 'aio' and e['ph'] == 'e'}
        self.assertEqual(sorted((b['name'], b['tid'], b['args']['offset'], b['args']['len'],
                                 b['args']['iocb']) for b in begins),
                         [('PREAD', pid, 0, 4096, facts['iocbs'][0]),
                          ('PREAD', pid, 8192, 8192, facts['iocbs'][1])])
        reaped = [ends[b['id2']['local']] for b in begins]
        self.assertEqual(sorted(e['args']['ret'] for e in reaped), [4096, 8192])
        self.assertEqual(len({e['tid'] for e in reaped}), 1)
        self.assertNotEqual(reaped[0]['tid'], pid)
        self.assert_only_origin(report, 'aio', (2, 0, 0, 12288, 0))

    def test_direct(self):
        self.check('direct')

    def test_buffered(self):
        self.check('buffered')


class SpliceTest(AsyncTest):
    def test_splice_tee_vmsplice(self):
        src = os.path.join(self.dir, 'in.bin')
        dst = os.path.join(self.dir, 'out.bin')
        write_random(src, 16 << 10)
        out, events, report = self.trace([workload('splice_cases'), src, dst])
        facts = json.loads(out.strip().splitlines()[-1])
        pid, p, q = facts['pid'], facts['p'], facts['q']
        self.assertEqual(facts['ret'], [8192, 8192, 8192, 300])
        calls = [e for e in events if e.get('pid') == pid and e['ph'] == 'X' and
                 e['name'] in ('splice', 'tee', 'vmsplice')]
        got = [(e['name'], e['args'].get('fd'), e['args'].get('out_fd'), e['args'].get('offset'),
                e['args'].get('out_offset'), e['args'].get('size'), e['args'].get('flags'),
                e['args']['ret']) for e in calls]
        self.assertEqual(got,
                         [('splice', facts['in'], p[1], 4096, None, 8192, 'SPLICE_F_MOVE', 8192),
                          ('tee', p[0], q[1], None, None, 8192, None, 8192),
                          ('splice', p[0], facts['out'], None, 0, 8192, None, 8192),
                          ('vmsplice', q[1], None, None, None, 300, None, 300)])
        self.assertEqual(calls[0]['args']['path'], src)
        self.assertEqual(calls[2]['args']['out_path'], dst)
        # the file sides only: 8 KiB read from in.bin at 4096, 8 KiB written to out.bin at 0
        self.assert_only_origin(report, 'syscall', (1, 1, 0, 8192, 8192))
        self.assertEqual(self.check_round_trip()['by_origin'], report['pattern']['by_origin'])


class UringCasesTest(AsyncTest):
    def test_registered_file_has_its_path(self):
        path = os.path.join(self.dir, 'fixed.bin')
        write_random(path, 64 << 10)
        out, events, report = self.trace([workload('uring_cases'), 'fixed', path])
        facts = json.loads(out.strip().splitlines()[-1])
        begins = [e for e in events if e.get('cat') == 'uring' and e['ph'] == 'b' and
                  e['pid'] == facts['pid']]
        # index 1 of [/dev/null, FILE]: read as a descriptor it would be stdout
        self.assertEqual(sorted((b['args']['fixed_file'], b['args'].get('path'),
                                 b['args']['offset'], b['args']['len']) for b in begins),
                         [(1, path, 0, 4096), (1, path, 8192, 8192), (1, path, 30000, 100)])
        self.assertEqual(facts['res'], [4096, 8192, 100])
        self.assert_only_origin(report, 'io_uring', (3, 0, 0, 4096 + 8192 + 100, 0))
        self.assertIsNone(self.file_entry(report, '/dev/null'))
        self.assertEqual(self.check_round_trip()['by_origin'], report['pattern']['by_origin'])

    def test_sqpoll_thread_in_its_process(self):
        path = os.path.join(self.dir, 'sqpoll.bin')
        write_random(path, 64 << 10)
        out, events, report = self.trace([workload('uring_cases'), 'sqpoll', path])
        facts = json.loads(out.strip().splitlines()[-1])
        pid, sq_tid = facts['pid'], facts['sq_tid']
        self.assertGreater(sq_tid, 0)
        begins = [e for e in events if e.get('cat') == 'uring' and e['ph'] == 'b']
        self.assertEqual(sorted((b['pid'], b['tid'], b['args'].get('path'), b['args']['offset'])
                                for b in begins),
                         [(pid, sq_tid, path, 0), (pid, sq_tid, path, 8192),
                          (pid, sq_tid, path, 30000)])
        names = [e['args']['name'] for e in events if e.get('name') == 'process_name']
        self.assertFalse([n for n in names if 'reused' in n], names)
        self.assertEqual([p['pid'] for p in report['time']['processes']], [pid])
        threads = {(t['pid'], t['tid']): t['name'] for t in report['time']['threads']}
        self.assertEqual(threads.get((pid, sq_tid)), 'iou-sqp-%d' % pid)
        self.assert_only_origin(report, 'io_uring', (3, 0, 0, 4096 + 8192 + 100, 0))

    def test_write_and_fsync(self):
        path = os.path.join(self.dir, 'wf.bin')
        out, events, report = self.trace([workload('uring_cases'), 'write-fsync', path])
        facts = json.loads(out.strip().splitlines()[-1])
        self.assertEqual(facts['writes'], [65536] * 8)
        self.assertEqual(facts['fsyncs'], [0] * 8)
        self.assert_only_origin(report, 'io_uring', (0, 8, 8, 0, 8 << 16))
        f = self.file_entry(report, path)
        self.assertEqual((f['writes'], f['bytes_written'], f['syncs'], f['seq_writes']),
                         (8, 8 << 16, 8, 7))


@unittest.skipUnless(FIO, 'fio is not installed (make deps-test installs it)')
class FioTest(AsyncTest):
    """fio as the oracle: its own counts and request log against the report and the trace."""

    SIZE = 4 << 20

    def setUp(self):
        super().setUp()
        self.file = os.path.join(self.dir, 'fio.dat')
        write_random(self.file, self.SIZE)

    def fio(self, *args, cold=False):
        # fio writes its log as it runs: in /run, which the report keeps out of the
        # application's figures (the system's, environment), as it does fio's other files
        fd, log = tempfile.mkstemp(prefix='dltrace-iolog-', dir='/run')
        os.close(fd)
        self.addCleanup(os.unlink, log)
        if cold:
            drop_caches()
        out, events, report = self.trace(
            [FIO, '--name=job', '--filename=' + self.file, '--size=%d' % self.SIZE,
             '--output-format=json', '--write_iolog=' + log, '--randrepeat=1'] + list(args))
        job = json.loads(out[out.index('{'):])['jobs'][0]
        requests = {'read': [], 'write': []}
        with open(log) as f:  # version 3: "<ms> <file> <op> [<offset> <length>]"
            for line in f:
                x = line.split()
                if len(x) == 5 and x[1] == self.file and x[2] in requests:
                    requests[x[2]].append((int(x[3]), int(x[4])))
        return job, requests, events, report

    def check(self, origin, job, requests, report, syncs=None):
        """The report's figures are fio's: counts and bytes, total and for the file."""
        r, w = job['read'], job['write']
        syncs = job['sync']['total_ios'] if syncs is None else syncs
        self.assertEqual(len(requests['read']), r['total_ios'])
        self.assertEqual(len(requests['write']), w['total_ios'])
        figures = (r['total_ios'], w['total_ios'], syncs, r['io_bytes'], w['io_bytes'])
        self.assert_only_origin(report, origin, figures)
        f = self.file_entry(report, self.file)
        self.assertEqual((f['reads'], f['writes'], f['syncs'], f['bytes_read'],
                          f['bytes_written']), figures)
        self.assertEqual(f['origins'], [origin])
        job_procs = [p for p in report['time']['processes'] if p['origins']]
        self.assertEqual(len(job_procs), 1)
        self.assertEqual((job_procs[0]['app_bytes_read'], job_procs[0]['app_bytes_written']),
                         (r['io_bytes'], w['io_bytes']))
        self.assertEqual(len(report['time']['processes']), 2)  # fio and its job, no phantom

    def uring_requests(self, events, cat='uring'):
        """(op, offset, len, ret) of each request on the file, in no particular order."""
        ends = {e['id2']['local']: e['args'].get('ret') for e in events
                if e.get('cat') == cat and e['ph'] == 'e'}
        return sorted((b['name'], b['args']['offset'], b['args']['len'], ends[b['id2']['local']])
                      for b in events if e_is(b, cat, self.file))

    def check_requests(self, events, requests, cat, read_op, write_op):
        want = sorted([(read_op, o, n, n) for o, n in requests['read']] +
                      [(write_op, o, n, n) for o, n in requests['write']])
        got = [x for x in self.uring_requests(events, cat) if x[0] in (read_op, write_op)]
        self.assertEqual(got, want)

    def test_psync_control(self):
        job, requests, events, report = self.fio('--bs=4k', '--rw=randread', '--ioengine=psync')
        self.check('syscall', job, requests, report)
        reads = sorted((e['args']['offset'], e['args']['ret']) for e in events
                       if e.get('name') == 'pread64' and e['args'].get('path') == self.file)
        self.assertEqual(reads, sorted((o, n) for o, n in requests['read']))

    def test_io_uring_buffered_randread(self):
        job, requests, events, report = self.fio('--bs=4k', '--rw=randread',
                                                 '--ioengine=io_uring', '--iodepth=8')
        self.check('io_uring', job, requests, report)
        self.check_requests(events, requests, 'uring', 'READ', 'WRITE')

    def test_io_uring_direct_randread(self):
        job, requests, events, report = self.fio('--bs=4k', '--rw=randread', '--direct=1',
                                                 '--ioengine=io_uring', '--iodepth=8')
        self.check('io_uring', job, requests, report)
        self.check_requests(events, requests, 'uring', 'READ', 'WRITE')

    def test_io_uring_write_fsync(self):
        job, requests, events, report = self.fio('--bs=64k', '--rw=write', '--fsync=1',
                                                 '--ioengine=io_uring', '--iodepth=4')
        self.check('io_uring', job, requests, report)
        self.check_requests(events, requests, 'uring', 'READ', 'WRITE')

    def test_io_uring_registered_files(self):
        job, requests, events, report = self.fio('--bs=4k', '--rw=randread',
                                                 '--ioengine=io_uring', '--iodepth=8',
                                                 '--registerfiles=1')
        self.check('io_uring', job, requests, report)
        self.check_requests(events, requests, 'uring', 'READ', 'WRITE')
        begins = [e for e in events if e.get('cat') == 'uring' and e['ph'] == 'b' and
                  e['name'] == 'READ']
        self.assertTrue(all('fixed_file' in b['args'] for b in begins))
        self.assertEqual({b['args'].get('path') for b in begins}, {self.file})

    def test_io_uring_sqpoll(self):
        job, requests, events, report = self.fio('--bs=4k', '--rw=randread',
                                                 '--ioengine=io_uring', '--iodepth=8',
                                                 '--sqthread_poll=1')
        self.check('io_uring', job, requests, report)
        self.check_requests(events, requests, 'uring', 'READ', 'WRITE')
        names = [e['args']['name'] for e in events if e.get('name') == 'process_name']
        self.assertFalse([n for n in names if 'reused' in n], names)
        job_pid = [p for p in report['time']['processes'] if p['origins']][0]['pid']
        sq = [t for t in report['time']['threads'] if t['name'] == 'iou-sqp-%d' % job_pid]
        self.assertEqual([(t['pid'], t['app_bytes_read']) for t in sq],
                         [(job_pid, job['read']['io_bytes'])])

    def test_libaio_direct_randread(self):
        job, requests, events, report = self.fio('--bs=4k', '--rw=randread', '--direct=1',
                                                 '--ioengine=libaio', '--iodepth=8')
        self.check('aio', job, requests, report)
        self.check_requests(events, requests, 'aio', 'PREAD', 'PWRITE')

    def test_libaio_randwrite(self):
        job, requests, events, report = self.fio('--bs=16k', '--rw=randwrite', '--direct=1',
                                                 '--ioengine=libaio', '--iodepth=4')
        self.check('aio', job, requests, report)
        self.check_requests(events, requests, 'aio', 'PREAD', 'PWRITE')

    def check_mmap(self, cold):
        job, requests, events, report = self.fio('--bs=4k', '--rw=randread', '--ioengine=mmap',
                                                 cold=cold)
        self.check('mmap', job, requests, report)
        faults = sorted(e['args']['offset'] for e in events if e.get('name') == 'page_fault' and
                        e['args'].get('path') == self.file)
        self.assertEqual(faults, sorted(o for o, _ in requests['read']))

    def test_mmap_randread_cold(self):
        self.check_mmap(True)

    def test_mmap_randread_warm(self):
        self.check_mmap(False)

    def test_splice_read(self):
        job, requests, events, report = self.fio('--bs=4k', '--rw=read', '--ioengine=splice')
        self.check('syscall', job, requests, report)
        splices = [(e['args']['offset'], e['args']['ret']) for e in events
                   if e.get('name') == 'splice' and e['args'].get('path') == self.file]
        self.assertEqual(splices, requests['read'])

    def test_splice_write(self):
        job, requests, events, report = self.fio('--bs=4k', '--rw=write', '--ioengine=splice')
        self.check('syscall', job, requests, report)
        splices = [(e['args']['out_offset'], e['args']['ret']) for e in events
                   if e.get('name') == 'splice' and e['args'].get('out_path') == self.file]
        self.assertEqual(splices, requests['write'])


def e_is(e, cat, path):
    return e.get('cat') == cat and e['ph'] == 'b' and e['args'].get('path') == path


if __name__ == '__main__':
    unittest.main()
