"""The counting mode (--summary-only=counts): the kernel folds each thread's
data calls alike into runs, and the report counts the same as from single
events.  The oracle is the report of the same workload traced call by call
(--summary-only): every count, byte, size, offset pattern, file, directory
and error must be equal; only the figures of time may differ (a run's calls
share its span).
"""
import json
import os
import subprocess

from dltrace_harness import DLTRACE, PYTHON, TESTS, TraceTest, workload

KIB = 1024
RUN_PATTERNS = workload('run_patterns')
# the figures of time: a run knows its calls' total, its longest and its span only
TIME_KEYS = {'io_share', 'timeline', 'bursts', 'evidence', 'fastest', 'slowest', 'time_imbalance'}
# what differs between two runs of one command: its ids and the trace's own size
RUN_KEYS = {'pid', 'ppid', 'tid', 'events', 'calls_in_runs', 'start_wall', 'stop_wall'}
# sections that hold only time, the machine (page faults, block requests), or the trace;
# findings: some rules weigh time (reads that took a share of the job's wall time)
SKIPPED = {'schema', 'generator', 'traces', 'layers', 'timeline', 'bursts', 'time', 'phases',
           'gpu_idle', 'findings'}


def comparable(x):
    """x without its figures of time and run ids; lists in a fixed order (some sort by time)."""
    if isinstance(x, dict):
        return {k: comparable(v) for k, v in x.items()
                if '_ns' not in k and k not in TIME_KEYS and k not in RUN_KEYS and
                not k.endswith('_pid')}
    if isinstance(x, list):
        items = [comparable(v) for v in x]
        return sorted(items, key=lambda v: json.dumps(v, sort_keys=True))
    return x


class CountingTest(TraceTest):
    maxDiff = None

    def summary(self, mode, cmd, extra=()):
        out = self.path('%s.json' % mode)
        res = subprocess.run([DLTRACE, '-v', '-o', out, '--summary-only=%s' % mode] +
                             list(extra) + ['--'] + cmd, capture_output=True, timeout=300)
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(out) as f:
            return json.load(f), res.stderr.decode()

    def assert_same_report(self, cmd, clean, keys=None):
        """keys: the sections to compare (default: all but SKIPPED)."""
        counted, log = self.summary('counts', cmd)
        clean()
        single, _ = self.summary('events', cmd)
        self.assertEqual(single['job']['calls_in_runs'], 0)
        for key in keys or single:
            if key not in SKIPPED:
                self.assertEqual(comparable(counted[key]), comparable(single[key]), key)
        # each side counted every call; the counting side in runs
        if keys is None:
            self.assertEqual(counted['job']['syscalls'], single['job']['syscalls'])
        self.assertEqual(counted['job']['lost_events'], 0)
        self.assertEqual(single['job']['lost_events'], 0)
        return counted, single, log

    def test_the_report_of_runs_equals_that_of_single_calls(self):
        d = self.path('data')

        def clean():
            if os.path.isdir(d):
                for name in os.listdir(d):
                    os.unlink(os.path.join(d, name))
            else:
                os.mkdir(d)

        clean()
        counted, single, log = self.assert_same_report([RUN_PATTERNS, d], clean)
        # the workload's calls, as run_patterns.c makes them
        a, b, c, dd = (os.path.join(d, n) for n in 'abcd')
        files = {f['path']: f for f in counted['files']['list']}
        # a: 256 writes; read back (256 + the read at EOF), 64 + 64 preads, 128 reads
        # beside b's writes, 16 reads around an lseek; the child: 128 + 1 reads
        self.assertEqual((files[a]['writes'], files[a]['bytes_written']), (256, 1 * 1024 * KIB))
        self.assertEqual(files[a]['reads'], 257 + 128 + 128 + 16 + 129)
        self.assertEqual(files[a]['bytes_read'],
                         (256 + 128 + 128 + 16) * 4 * KIB + 128 * 8 * KIB)
        # b: 128 writes of 4 KiB, read by the thread in 1 KiB reads (+ EOF)
        self.assertEqual((files[b]['writes'], files[b]['reads']), (128, 512 + 1))
        # c: 10000 bytes, read as 4096, 4096, 1808 and 0
        self.assertEqual((files[c]['reads'], files[c]['bytes_read']), (4, 10000))
        # d: 32 writev and 32 readv of 2 x 2 KiB
        self.assertEqual((files[dd]['writes'], files[dd]['reads']), (32, 32))
        # the pipe: 100 writes and 100 reads of 512 bytes, and its two closes
        self.assertEqual((counted['other']['calls'], counted['other']['bytes_read'],
                          counted['other']['bytes_written']), (202, 51200, 51200))
        # the same offset 64 times: 63 rereads after the first are random
        self.assertGreaterEqual(counted['pattern']['random_reads'], 63)
        # most calls went in runs (a run ends at 50 ms at the latest: at least one of two)
        self.assertGreaterEqual(counted['job']['calls_in_runs'], 2)
        self.assertIn('data calls in', log)
        # said once, in the report's warnings
        self.assertEqual(single['traces'][0]['warnings'], [])
        self.assertEqual([w.split(' calls were counted in runs')[0]
                          for w in counted['traces'][0]['warnings']],
                         [str(counted['job']['calls_in_runs'])])
        self.assertLess(counted['job']['events'], single['job']['events'])

    def test_data_staging(self):
        """tar, cp -a, links and xattrs (tests/workloads/stage_data.sh)."""
        d = self.path('job')
        data = os.path.join(d, 'data')
        os.makedirs(os.path.join(data, 'sub'))
        with open(os.path.join(data, 'a.bin'), 'wb') as f:
            f.write(b'a' * (300 * KIB))
        with open(os.path.join(data, 'sub', 'b.bin'), 'wb') as f:
            f.write(b'b' * 5000)
        os.link(os.path.join(data, 'a.bin'), os.path.join(data, 'a.hard'))
        os.symlink('a.bin', os.path.join(data, 'a.link'))
        os.setxattr(os.path.join(data, 'a.bin'), 'user.kind', b'sample')
        out = os.path.join(d, 'out')
        counted, _, _ = self.assert_same_report(
            ['sh', os.path.join(TESTS, 'workloads', 'stage_data.sh'), d],
            lambda: subprocess.run(['rm', '-rf', out], check=True))
        files = {f['path']: f for f in counted['files']['list']}
        # read by tar c and by cp -a, 300 KiB each, by the name each meets first of the two
        self.assertEqual(sum(files.get(os.path.join(data, n), {}).get('bytes_read', 0)
                             for n in ('a.bin', 'a.hard')), 2 * 300 * KIB)
        self.assertGreaterEqual(counted['job']['calls_in_runs'], 2)

    def test_two_processes_with_one_pid(self):
        """A pid reused during the job: two processes, each with its own file."""
        f1, f2 = self.path('one.bin'), self.path('two.bin')
        for path, size in ((f1, 64 * KIB), (f2, 96 * KIB)):
            with open(path, 'wb') as f:
                f.write(b'p' * size)
        # (its line on standard output has as many bytes as the pids have digits)
        counted, _, _ = self.assert_same_report([workload('pid_reuse'), f1, f2], lambda: None,
                                                keys=('files', 'pattern', 'access_sizes',
                                                      'errors', 'directories'))
        files = {f['path']: f for f in counted['files']['list']}
        # each process reads 100 bytes of its file (tests/workloads/pid_reuse.c)
        self.assertEqual([(files[f]['reads'], files[f]['bytes_read']) for f in (f1, f2)],
                         [(1, 100), (1, 100)])

    def test_dataloader_workers(self):
        """A PyTorch DataLoader whose worker processes read one file per sample."""
        def clean():
            for name in os.listdir(self.dir):
                if name.startswith('sample'):
                    os.unlink(self.path(name))

        env_cmd = ['env', 'PYTHONDONTWRITEBYTECODE=1', 'PYTHONHASHSEED=0', PYTHON,
                   os.path.join(TESTS, 'workloads', 'dataloader_workers.py'), self.dir, '2']
        # the application's files: the interpreter's own start differs from run to run
        counted, single, _ = self.assert_same_report(
            env_cmd, clean, keys=('pattern', 'access_sizes', 'errors'))
        mine = lambda rep: sorted(json.dumps(comparable(f), sort_keys=True)
                                  for f in rep['files']['list']
                                  if f['path'].startswith(self.dir))
        self.assertEqual(mine(counted), mine(single))
        self.assertEqual(len(mine(counted)), 16)

    def test_the_bench_shapes(self):
        """The report's own patterns (tests/workloads/report_patterns.c): 1 KiB reads of
        4 MiB, 4000 scattered preads (none fold), the metadata storm of one file and
        small files read whole."""
        data, small = self.path('in.bin'), self.path('small')
        with open(data, 'wb') as f:
            f.write(b'r' * (64 * 1024 * KIB))
        os.mkdir(small)
        for i in range(300):
            with open(os.path.join(small, 'f%d' % i), 'wb') as f:
                f.write(b's' * (1000 + i))
        for args in (['small-reads', data], ['random-reads', data], ['metadata', data],
                     ['small-files', small, '300']):
            counted, single, _ = self.assert_same_report([workload('report_patterns')] + args,
                                                         lambda: None)
            self.assertEqual(counted['pattern']['reads'], single['pattern']['reads'], args)
            runs = counted['job']['calls_in_runs']
            if args[0] == 'small-reads':  # 4 MiB in 1 KiB reads: runs
                self.assertGreaterEqual(runs, 2)
            elif args[0] == 'random-reads':
                # the sequence's only pair of successive offsets 4 KiB apart: at most
                # one run of two (none when the batch went out between them)
                self.assertIn(runs, (0, 2))

    def test_a_ring_of_one_mib_loses_no_call(self):
        """A known number of calls through the smallest ring: all counted, none lost."""
        data = self.path('input.bin')
        with open(data, 'wb') as f:
            f.write(b'x' * (4 * 1024 * KIB))
        counted, _ = self.summary('counts',
                                  [workload('report_patterns'), 'small-reads', data],
                                  extra=['--ring-size', '1'])
        self.assertEqual(counted['job']['lost_events'], 0)
        self.assertEqual((counted['pattern']['reads'], counted['pattern']['bytes_read']),
                         (4096 + 1, 4 * 1024 * KIB))
        # each read after the first starts where the one before ended (the one at EOF too)
        self.assertEqual(counted['pattern']['consec_reads'], 4096)
        [f] = [f for f in counted['files']['list'] if f['path'] == data]
        self.assertEqual((f['reads'], f['bytes_read'], f['opens']), (4097, 4 * 1024 * KIB, 1))

    def test_the_default_and_usage(self):
        data = self.path('input.bin')
        with open(data, 'wb') as f:
            f.write(b'x' * (256 * KIB))
        out = self.path('plain.json')
        res = subprocess.run([DLTRACE, '-v', '-o', out, '--summary-only', '--',
                              workload('report_patterns'), 'small-reads', data],
                             capture_output=True, timeout=120)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn(b'data calls in', res.stderr)  # --summary-only counts
        res = subprocess.run([DLTRACE, '--summary-only=sometimes', '--', 'true'],
                             capture_output=True)
        self.assertEqual(res.returncode, 2)
        self.assertIn(b'--summary-only takes counts or events', res.stderr)

    def test_the_live_view_counts_each_call_of_a_run(self):
        """--live beside --summary-only: the lines add up to the calls, runs included."""
        reads, size = 2000, 4096
        data = self.path('data.bin')
        with open(data, 'wb') as f:
            f.write(b'x' * (1 << 20))
        out = self.path('s.json')
        # no spread: a thread that sleeps between its calls sends its records at each sleep
        res = subprocess.run([DLTRACE, '--live', '-i', '0.5', '-o', out, '--summary-only', '--',
                              workload('static_reader'), data, str(reads), str(size), '0', '0'],
                             capture_output=True, text=True, timeout=120)
        self.assertEqual(res.returncode, 0, res.stderr)
        lines = res.stdout.splitlines()
        header = lines[0].split()
        rows = [dict(zip(header, line.split())) for line in lines[1:]]
        total = lambda k: sum(int(r[k]) for r in rows)
        with open(out) as f:
            rep = json.load(f)
        self.assertEqual((total('rd_ops'), total('rd_bytes')), (reads, reads * size))
        self.assertEqual(total('events'), rep['traces'][0]['events'])
        self.assertEqual(total('lost'), 0)
        self.assertEqual(rep['pattern']['reads'], reads)
        # preads at i * size modulo 1 MiB: runs of up to 256
        self.assertGreaterEqual(rep['job']['calls_in_runs'], 2)


if __name__ == '__main__':
    import unittest
    unittest.main()
