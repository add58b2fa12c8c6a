"""Overload (`make stress`): two threads issuing 1,000,192 preads each as fast as
they can under dltrace.  Nothing crashes, dltrace's memory stays bounded, the
job never waits for the tracer, and every pread the workload counted is
either in the trace or in dltrace's count of lost pread64 records: exactly,
with the default ring, and with a 1 MiB ring whose reader is stopped
(SIGSTOP) while the job runs, so that records must be dropped.  (Other
records can be lost too, the workload's final write or its exit: the
summary counts losses by kind, and the kinds add up to the total.)

The trace (millions of events) is read as it is written (-o -): every line is
checked for the trace's layout, every 1000th is parsed, the preads are
counted, and the header and summary events are parsed whole."""
import json
import os
import signal
import subprocess
import threading
import time
import unittest

from dltrace_harness import DLTRACE, TraceTest, wait_for, workload

PER_THREAD = 1000192  # preads of each of the two threads (a multiple of 256)
RSS_LIMIT_KIB = 64 * 1024


def rss_kib(pid):
    """dltrace's resident set in KiB, or None when it cannot be read (the process is gone)."""
    try:
        with open('/proc/%d/status' % pid) as f:
            return next(int(l.split()[1]) for l in f if l.startswith('VmRSS:'))
    except (OSError, StopIteration):
        return None


class OverloadTest(TraceTest):
    def run_overload(self, args, stop_reader=False):
        data = self.path('hot.bin')
        with open(data, 'wb') as f:
            f.write(b'o' * 4096)
        counts = self.path('counts.txt')
        proc = subprocess.Popen(
            [DLTRACE, '-o', '-'] + args +
            ['--', '/bin/sh', '-c', 'exec "$0" "$@" > "%s"' % counts, workload('busy_reader'),
             data, '2', '0', str(PER_THREAD)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        samples = []

        def sample():
            while proc.poll() is None:
                samples.append(rss_kib(proc.pid))
                time.sleep(0.2)
        sampler = threading.Thread(target=sample)
        sampler.start()
        stderr = []
        reader = threading.Thread(target=lambda: stderr.append(proc.stderr.read()))
        reader.start()
        traced, unknown, n, first, last = 0, 0, 0, None, []
        needle = b'"name":"pread64"'
        path = b'"path":"%s"' % data.encode()
        for line in proc.stdout:
            n += 1
            if first is None:
                first = line
                if stop_reader:
                    # the reader stops while the job runs to its end: the ring fills
                    os.kill(proc.pid, signal.SIGSTOP)
                    done = wait_for(lambda: 'waits ' in open(counts).read(), timeout=600)
                    os.kill(proc.pid, signal.SIGCONT)
                    self.assertTrue(done, 'the job did not end while dltrace was stopped')
                continue
            if needle in line and path in line:
                traced += 1
            elif needle in line and b'"path_unknown":true' in line:
                # a pread whose file's record was lost: in the trace, its file unknown (the
                # workload's: 4 KiB at offset 0; the loader's preads read ELF headers)
                args = json.loads(line[1:])['args']
                if (args['size'], args.get('offset')) == (4096, 0):
                    traced += 1
                    unknown += 1
            if not line.startswith(b',{') and line != b']\n':
                self.fail('line %d is not an event: %r' % (n, line[:200]))
            if n % 1000 == 0:
                json.loads(line[1:])
            last = [last[-1], line] if last else [line]
        proc.wait(600)
        sampler.join()
        reader.join()
        self.assertEqual(proc.returncode, 0, stderr[0].decode())
        self.assertTrue(first.startswith(b'[{"name":"dltrace"'))
        json.loads(first[1:])
        self.assertEqual(last[-1], b']\n')
        summary = json.loads(last[0][1:])['args']
        with open(counts) as f:
            lines = f.read().splitlines()
        issued = sum(int(l.split()[1]) for l in lines if l.startswith('count '))
        self.assertEqual(issued, 2 * PER_THREAD)
        waits = int(next(l.split()[1] for l in lines if l.startswith('waits ')))
        self.assertEqual(summary['events'], n - 1)  # every line but the closing bracket
        # the unnamed preads are counted once, in the summary
        self.assertEqual(summary.get('paths_unknown', 0), unknown)
        by_kind = summary.get('lost_by_kind', {})
        self.assertEqual(sum(by_kind.values()), summary['lost_events'])
        self.lost_events = summary['lost_events']
        # the RSS bound needs samples of the whole run: only the last may miss (dltrace
        # exiting between the sampler's check and its read)
        read = [s for s in samples if s is not None]
        self.assertTrue(read and None not in samples[:-1], 'RSS samples: %r' % samples[:20])
        return issued, traced, by_kind.get('pread64', 0), max(read), waits, stderr[0].decode()

    def check_not_held(self, waits):
        # a cached pread never sleeps: the reading threads went to sleep fewer than once in
        # 10,000 calls (the tracer never makes the job wait, whatever the ring's state)
        self.assertLess(waits, 2 * PER_THREAD // 10000, 'the traced job waited')

    def test_default_ring(self):
        issued, traced, lost, peak, waits, stderr = self.run_overload([])
        # every pread is in the trace or counted as a lost pread, exactly
        self.assertEqual(traced + lost, issued, stderr)
        self.assertLess(peak, RSS_LIMIT_KIB)
        self.check_not_held(waits)

    def test_tiny_ring_loses_and_says_so(self):
        # 1 MiB holds about 14,000 records: the rest of 2,000,384 must be dropped
        issued, traced, lost, peak, waits, stderr = self.run_overload(['--ring-size', '1'],
                                                                      stop_reader=True)
        self.assertGreater(lost, 0)
        self.assertEqual(traced + lost, issued, stderr)
        self.assertIn('WARNING: %d events were lost (ring buffer full: pread64 %d' %
                      (self.lost_events, lost), stderr)
        self.assertLess(peak, RSS_LIMIT_KIB)
        self.check_not_held(waits)


if __name__ == '__main__':
    unittest.main()
