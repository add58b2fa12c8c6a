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

from dltrace_harness import DLTRACE, TraceTest, workload

KIB = 1024
RUN_PATTERNS = workload('run_patterns')
# the figures of time: a run knows its calls' total, its longest and its span only
TIME_KEYS = {'io_share', 'timeline', 'bursts', 'evidence', 'fastest', 'slowest', 'time_imbalance'}
# what differs between two runs of one command: its ids and the trace's own size
RUN_KEYS = {'pid', 'ppid', 'tid', 'events', 'calls_in_runs', 'start_wall', 'stop_wall'}
# sections that hold only time, the machine (page faults, block requests), or the trace
SKIPPED = {'schema', 'generator', 'traces', 'layers', 'timeline', 'bursts', 'time', 'phases',
           'gpu_idle'}


def comparable(x):
    """x without its figures of time and run ids; lists in a fixed order (some sort by time)."""
    if isinstance(x, dict):
        return {k: comparable(v) for k, v in x.items()
                if '_ns' not in k and k not in TIME_KEYS and k not in RUN_KEYS}
    if isinstance(x, list):
        items = [comparable(v) for v in x]
        return sorted(items, key=lambda v: json.dumps(v, sort_keys=True))
    return x


class CountingTest(TraceTest):

    def summary(self, mode, cmd, extra=()):
        out = self.path('%s.json' % mode)
        res = subprocess.run([DLTRACE, '-v', '-o', out, '--summary-only=%s' % mode] +
                             list(extra) + ['--'] + cmd, capture_output=True, timeout=300)
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(out) as f:
            return json.load(f), res.stderr.decode()

    def assert_same_report(self, cmd, clean):
        counted, log = self.summary('counts', cmd)
        clean()
        single, _ = self.summary('events', cmd)
        self.assertEqual(single['job']['calls_in_runs'], 0)
        for key in single:
            if key not in SKIPPED:
                self.assertEqual(comparable(counted[key]), comparable(single[key]), key)
        # each side counted every call; the counting side in runs
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
        self.assertLess(counted['job']['events'], single['job']['events'])

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

    def test_usage(self):
        res = subprocess.run([DLTRACE, '--summary-only=sometimes', '--', 'true'],
                             capture_output=True)
        self.assertEqual(res.returncode, 2)
        self.assertIn(b'--summary-only takes events or counts', res.stderr)
        res = subprocess.run([DLTRACE, '--summary-only=counts', '--live', '--', 'true'],
                             capture_output=True)
        self.assertEqual(res.returncode, 2)
        self.assertIn(b'the live view shows single calls', res.stderr)


if __name__ == '__main__':
    import unittest
    unittest.main()
