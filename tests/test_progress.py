"""Progress of long `dltrace report`, `merge` and `convert` runs: on a terminal (a pty
as standard error) a line with the bytes read of the total, events/s and
the time left, cleared at the end; nothing when standard error is a pipe or
with -q.  The input: a synthetic trace (bench/report_scale.py).

The line shows once a run has lasted a second.  So that no test depends on how
fast the machine reads, the tests of the line's content set
DLTRACE_PROGRESS_AFTER_MS=0 (a developer's variable: the line from the first
chunk read); the test of the second itself makes the run last: it holds the
input, on standard input, back for longer than the second."""
import fcntl
import os
import pty
import re
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
import unittest

from dltrace_harness import DLTRACE, ROOT

sys.path.insert(0, os.path.join(ROOT, 'bench'))
import report_scale  # noqa: E402

EVENTS = 200000
SHOW_AFTER = 1.0  # s: the product's delay before the line first shows
LINE = re.compile(r'\r(dltrace (?:report|merge|convert)): ([\d.]+ [KMG]?i?B) of ([\d.]+ [KMG]?i?B) '
                  r'\((\d+)%\), ([\d.]+) M events/s, (\d+):(\d\d) left\x1b\[K')
# the line without a total (standard input)
READ_LINE = re.compile(r'\r(dltrace report): ([\d.]+ [KMG]?i?B) read, ([\d.]+) M events/s\x1b\[K')
UNITS = {'B': 1, 'KiB': 1 << 10, 'MiB': 1 << 20, 'GiB': 1 << 30}


def human(n):
    """A byte count as the progress line writes it."""
    v, i = float(n), 0
    while v >= 1024 and i < 4:
        v /= 1024
        i += 1
    return ('%.1f %siB' % (v, ['', 'K', 'M', 'G', 'T'][i])) if i else '%.0f B' % v


def shown_bytes(text):
    """The least byte count that the line's "12.3 MiB" stands for (to order them)."""
    value, unit = text.split()
    return float(value) * UNITS[unit]


def quick_env():
    return dict(os.environ, DLTRACE_PROGRESS_AFTER_MS='0')


def default_env():
    return {k: v for k, v in os.environ.items() if k != 'DLTRACE_PROGRESS_AFTER_MS'}


def run_on_pty(argv, env, feed=None):
    """argv with standard error on a pty: (exit status, what it wrote there, seconds from
    the start to its first byte there or None).  feed(pipe), in a thread, writes argv's
    standard input."""
    master, slave = pty.openpty()
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE if feed else subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=slave, env=env)
    os.close(slave)
    feeder = None
    if feed:
        feeder = threading.Thread(target=feed, args=(proc.stdin,), daemon=True)
        feeder.start()
    out, first = b'', None
    while True:
        r, _, _ = select.select([master], [], [], 1)
        if r:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the pty's last writer is gone
                break
            if not chunk:
                break
            if first is None:
                first = time.monotonic() - start
            out += chunk
        elif proc.poll() is not None:
            break
    rc = proc.wait()
    os.close(master)
    if feeder:
        feeder.join(60)
    return rc, out.decode('utf-8', 'replace'), first


class ProgressTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix='dltrace-progress-')
        cls.trace = os.path.join(cls.dir, 'big.json.gz')
        cls.events = report_scale.generate(cls.trace, EVENTS, False)
        cls.size = os.path.getsize(cls.trace)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def check_progress(self, what, out, total):
        lines = LINE.findall(out)
        self.assertTrue(lines, repr(out[:500]))
        self.assertEqual({l[0] for l in lines}, {what})
        # the total is the inputs' size, exactly as the line writes it
        self.assertEqual({l[2] for l in lines}, {human(total)})
        done = [shown_bytes(l[1]) for l in lines]
        self.assertEqual(done, sorted(done))
        self.assertLessEqual(done[-1], total)
        shares = [int(l[3]) for l in lines]
        self.assertEqual(shares, sorted(shares))
        self.assertTrue(all(0 <= s <= 100 for s in shares))
        self.assertTrue(all(float(l[4]) > 0 for l in lines))
        # the line is cleared at the end
        self.assertGreater(out.rfind('\r\x1b[K'), out.rfind(' left\x1b[K'), repr(out[-200:]))

    def test_report_progress(self):
        rc, out, _ = run_on_pty([DLTRACE, 'report', self.trace], quick_env())
        self.assertEqual(rc, 0, out)
        self.check_progress('dltrace report', out, self.size)
        # a pipe: nothing but the report
        res = subprocess.run([DLTRACE, 'report', self.trace], capture_output=True, text=True,
                             env=quick_env())
        self.assertEqual((res.returncode, res.stderr), (0, ''))

    def test_merge_progress(self):
        out_file = os.path.join(self.dir, 'merged.json.gz')
        rc, out, _ = run_on_pty([DLTRACE, 'merge', self.trace, self.trace, '-o', out_file],
                                quick_env())
        self.assertEqual(rc, 0, out)
        self.check_progress('dltrace merge', out, 2 * self.size)
        self.assertRegex(out, r'\r\x1b\[Kdltrace merge: wrote \d+ events of 2 traces to ')
        res = subprocess.run([DLTRACE, 'merge', '-q', self.trace, '-o', out_file],
                             capture_output=True, text=True, env=quick_env())
        self.assertEqual((res.returncode, res.stderr), (0, ''))
        rc, out, _ = run_on_pty([DLTRACE, 'merge', '-q', self.trace, '-o', out_file],
                                quick_env())
        self.assertEqual((rc, out), (0, ''))

    def test_convert_progress(self):
        out_file = os.path.join(self.dir, 'converted.pftrace.gz')
        rc, out, _ = run_on_pty([DLTRACE, 'convert', self.trace, out_file], quick_env())
        self.assertEqual(rc, 0, out)
        self.check_progress('dltrace convert', out, self.size)
        self.assertRegex(out, r'\r\x1b\[Kdltrace convert: wrote %d events to ' % self.events)
        rc, out, _ = run_on_pty([DLTRACE, 'convert', '-q', self.trace, out_file], quick_env())
        self.assertEqual((rc, out), (0, ''))

    def test_line_shows_after_a_second(self):
        """Without the variable: no line before the second; one once reading has lasted
        longer.  The report reads standard input: the test writes the first half, waits
        until the report has read all of it (the report's clock started before its first
        read), holds the rest back for 1.5 s, then writes it."""
        with open(self.trace, 'rb') as f:
            data = f.read()
        half = len(data) // 2
        held = []

        def feed(pipe):
            try:
                pipe.write(data[:half])
                pipe.flush()
                end = time.monotonic() + 60
                while unread(pipe) and time.monotonic() < end:
                    time.sleep(0.01)
                held.append(not unread(pipe))
                time.sleep(SHOW_AFTER + 0.5)
                pipe.write(data[half:])
            finally:
                pipe.close()

        def unread(pipe):
            return struct.unpack('i', fcntl.ioctl(pipe.fileno(), termios.FIONREAD,
                                                  b'\0' * 4))[0]

        rc, out, first = run_on_pty([DLTRACE, 'report', '-'], default_env(), feed)
        self.assertEqual(held, [True], 'setup failed: the report did not read the first '
                         'half of its input within 60 s')
        self.assertEqual(rc, 0, out)
        lines = READ_LINE.findall(out)
        self.assertTrue(lines, 'no progress line although reading lasted more than %.1f s: %r'
                        % (SHOW_AFTER + 0.5, out[:500]))
        self.assertEqual(LINE.findall(out), [])  # no total, no share, no time left
        # never before the second: the report started after the test's clock did
        self.assertGreaterEqual(first, SHOW_AFTER)
        done = [shown_bytes(l[1]) for l in lines]
        self.assertEqual(done, sorted(done))
        # one is drawn after the hold, when the first half has been read
        self.assertGreaterEqual(done[-1], shown_bytes(human(half)))
        self.assertLessEqual(done[-1], len(data))
        self.assertTrue(all(float(l[2]) > 0 for l in lines))
        self.assertGreater(out.rfind('\r\x1b[K'), out.rfind(' M events/s\x1b[K'),
                           repr(out[-200:]))


if __name__ == '__main__':
    unittest.main()
