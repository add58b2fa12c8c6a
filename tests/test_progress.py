"""Progress of long `dltrace report`, `merge` and `convert` runs: on a terminal (a pty
as standard error) a line with the bytes read of the total, events/s and
the time left, cleared at the end; nothing when standard error is a pipe.
The input: a synthetic trace of 1,000,000 events (bench/report_scale.py),
which takes longer than the second after which progress shows (checked)."""
import os
import pty
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

from dltrace_harness import DLTRACE, ROOT

sys.path.insert(0, os.path.join(ROOT, 'bench'))
import report_scale  # noqa: E402

EVENTS = 1000000
LINE = re.compile(r'\r(dltrace (?:report|merge|convert)): ([\d.]+ [KMG]?i?B) of ([\d.]+ [KMG]?i?B) '
                  r'\((\d+)%\), ([\d.]+) M events/s, (\d+):(\d\d) left\x1b\[K')


def run_on_pty(argv):
    """argv with standard error on a pty: (exit status, what it wrote there, seconds)."""
    master, slave = pty.openpty()
    start = time.time()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    out = b''
    while True:
        r, _, _ = select.select([master], [], [], 1)
        if r:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the pty's last writer is gone
                break
            if not chunk:
                break
            out += chunk
        elif proc.poll() is not None:
            break
    rc = proc.wait()
    os.close(master)
    return rc, out.decode('utf-8', 'replace'), time.time() - start


class ProgressTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix='dltrace-progress-')
        cls.trace = os.path.join(cls.dir, 'big.json.gz')
        report_scale.generate(cls.trace, EVENTS, False)
        cls.size = os.path.getsize(cls.trace)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def check_progress(self, what, out, seconds, inputs):
        if seconds < 1.5:
            self.fail('precondition: %s took only %.2f s (progress shows after 1 s)' %
                      (what, seconds))
        lines = LINE.findall(out)
        self.assertTrue(lines, repr(out[:500]))
        self.assertEqual({l[0] for l in lines}, {what})
        total = {l[2] for l in lines}
        self.assertEqual(len(total), 1)
        shares = [int(l[3]) for l in lines]
        self.assertEqual(shares, sorted(shares))
        self.assertTrue(all(0 <= s <= 100 for s in shares))
        self.assertTrue(all(float(l[4]) > 0 for l in lines))
        # the total is the inputs' size; the line is cleared at the end
        mib = inputs * self.size / 1048576
        shown = float(total.pop().split()[0])
        self.assertLess(abs(shown - mib), 0.06, (shown, mib))
        self.assertGreater(out.rfind('\r\x1b[K'), out.rfind(' left\x1b[K'), repr(out[-200:]))

    def two_million(self):
        """The trace merged with itself: 2,000,000 events, long enough to show progress."""
        two = os.path.join(self.dir, 'two.json.gz')
        if not os.path.exists(two):
            res = subprocess.run([DLTRACE, 'merge', '-q', self.trace, self.trace, '-o', two],
                                 capture_output=True, text=True)
            self.assertEqual((res.returncode, res.stderr), (0, ''))
        return two

    def test_report_progress(self):
        # the report reads 1,000,000 events in about 1.4 s on an idle machine: the
        # trace merged with itself (2,000,000), so that it lasts long enough
        two = self.two_million()
        rc, out, seconds = run_on_pty([DLTRACE, 'report', two])
        self.assertEqual(rc, 0, out)
        self.size = os.path.getsize(two)  # check_progress's total
        self.check_progress('dltrace report', out, seconds, 1)
        # a pipe: nothing but the report
        res = subprocess.run([DLTRACE, 'report', self.trace], capture_output=True, text=True)
        self.assertEqual((res.returncode, res.stderr), (0, ''))

    def test_merge_progress(self):
        out_file = os.path.join(self.dir, 'merged.json.gz')
        rc, out, seconds = run_on_pty([DLTRACE, 'merge', self.trace, self.trace, '-o',
                                       out_file])
        self.assertEqual(rc, 0, out)
        self.check_progress('dltrace merge', out, seconds, 2)
        self.assertRegex(out, r'\r\x1b\[Kdltrace merge: wrote \d+ events of 2 traces to ')
        res = subprocess.run([DLTRACE, 'merge', '-q', self.trace, '-o', out_file],
                             capture_output=True, text=True)
        self.assertEqual((res.returncode, res.stderr), (0, ''))
        rc, out, _ = run_on_pty([DLTRACE, 'merge', '-q', self.trace, '-o', out_file])
        self.assertEqual((rc, out), (0, ''))

    def test_convert_progress(self):
        # convert is fast: 2,000,000 events (the trace merged with itself) into
        # a compressed .pftrace, so that it lasts long enough
        two = self.two_million()
        out_file = os.path.join(self.dir, 'converted.pftrace.gz')
        rc, out, seconds = run_on_pty([DLTRACE, 'convert', two, out_file])
        self.assertEqual(rc, 0, out)
        self.size = os.path.getsize(two)  # check_progress's total
        self.check_progress('dltrace convert', out, seconds, 1)
        self.assertRegex(out, r'\r\x1b\[Kdltrace convert: wrote \d+ events to ')
        rc, out, _ = run_on_pty([DLTRACE, 'convert', '-q', two, out_file])
        self.assertEqual((rc, out), (0, ''))


if __name__ == '__main__':
    unittest.main()
