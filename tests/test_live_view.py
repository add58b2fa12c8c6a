"""The live view: `dltrace top` on a terminal (tmux, read with capture-pane),
its lines when standard output is not a terminal, and `--live` beside a
trace file.  The workload is a statically linked reader (no loader reads):
5,000 preads of 4 KiB of a known file over about 3 s, plus its openat,
newfstatat and close."""
import os
import re
import shlex
import signal
import subprocess
import time
import unittest

from dltrace_harness import DLTRACE, TraceTest, io_events, load_trace, summary, wait_for, workload
from test_daemon import DaemonCase

READER = workload('static_reader')
READS, SIZE = 5000, 4096


class Tmux:
    """A detached tmux session of its own (own socket), running one shell command."""

    def __init__(self, name, command, width=200, height=50):
        self.socket = name
        subprocess.run(['tmux', '-L', self.socket, 'new-session', '-d', '-s', 'top', '-x',
                        str(width), '-y', str(height), command], check=True)

    def screen(self):
        res = subprocess.run(['tmux', '-L', self.socket, 'capture-pane', '-p', '-t', 'top'],
                             capture_output=True, text=True)
        return res.stdout

    def keys(self, *keys):
        subprocess.run(['tmux', '-L', self.socket, 'send-keys', '-t', 'top'] + list(keys),
                       check=True)

    def kill(self):
        subprocess.run(['tmux', '-L', self.socket, 'kill-server'], capture_output=True)


def table_rows(screen, title):
    """The rows under the table header that starts with title, as lists of words."""
    lines = screen.splitlines()
    for i, line in enumerate(lines):
        if line.split()[:1] == [title]:
            return [l.split() for l in lines[i + 1:] if l.strip()]
    return []


class TopScreenTest(TraceTest):
    def make_data(self):
        data = self.path('data.bin')
        with open(data, 'wb') as f:
            f.write(os.urandom(1 << 20))
            f.flush()
            os.fsync(f.fileno())
        return data

    def test_top_in_tmux(self):
        """The screen shows the reader's process and its file with their exact
        cumulative op counts while it waits; q stops it with SIGINT and leaves
        a valid trace."""
        data, trace, status = self.make_data(), self.path('t.json'), self.path('status')
        cmd = '%s top -o %s -- %s %s %d %d 3 -1; echo $? > %s; sleep 600' % (
            DLTRACE, trace, READER, data, READS, SIZE, status)
        tmux = Tmux('dltrace-test-%d' % os.getpid(), 'cd %s && %s' % (
            shlex.quote(self.dir), cmd))
        self.addCleanup(tmux.kill)
        # the process view: PID THR READ/s WRITE/s OPS/s META/s IO% P50 P99 READ
        # WRITE OPS (READ, WRITE, OPS since the start) COMMAND; 5,000
        # preads and 3 metadata calls before it waits: readlink of
        # /proc/self/exe (the static C library's start), then openat and
        # newfstatat of the file (its row: READS + 2)
        ops = READS + 3

        def process_row():
            for row in table_rows(tmux.screen(), 'PID'):
                if len(row) >= 13 and row[12] == READER and row[11] == str(ops):
                    return row
            return None
        self.assertTrue(wait_for(lambda: process_row() is not None, timeout=60),
                        tmux.screen())
        row = process_row()
        pid = int(row[0])
        self.assertEqual(row[1], '1')  # one thread
        self.assertEqual(row[9], '20M')  # 20,480,000 bytes read
        self.assertEqual(row[12:], [READER, data, str(READS), str(SIZE), '3', '-1'])
        self.assertIn('Processes 1 (1 seen)', tmux.screen())
        self.assertIn('Lost 0', tmux.screen())
        # the file view: ..., OPS, path
        tmux.keys('f')

        def file_row():
            for row in table_rows(tmux.screen(), 'READ/s'):
                if row[-1] == data:
                    return row
            return None
        self.assertTrue(wait_for(lambda: file_row() is not None, timeout=10), tmux.screen())
        self.assertEqual(file_row()[-2], str(READS + 2))
        self.assertEqual(file_row()[-4], '20M')
        self.assertEqual(table_rows(tmux.screen(), 'READ/s')[0][-1], data)  # the busiest
        # q: the command gets SIGINT, tracing ends when it has exited
        tmux.keys('q')
        self.assertTrue(wait_for(lambda: os.path.exists(status) and
                                 open(status).read().strip(), timeout=60), tmux.screen())
        with open(status) as f:
            self.assertEqual(int(f.read()), 128 + signal.SIGINT)
        events = load_trace(trace)
        self.assertEqual(summary(events)['stop_reason'], 'target exited')
        reads = [e for e in io_events(events, pid=pid) if e['name'] == 'pread64']
        self.assertEqual(len(reads), READS)
        self.assertEqual({e['args']['path'] for e in reads}, {data})
        exits = [e for e in events if e.get('name') == 'process_exit' and e['pid'] == pid]
        self.assertEqual(len(exits), 1)


class TopLinesTest(TraceTest):
    """Standard output is not a terminal: a header, then one line per interval."""

    def make_data(self):
        data = self.path('data.bin')
        with open(data, 'wb') as f:
            f.write(os.urandom(1 << 20))
        return data

    def lines(self, out):
        lines = out.splitlines()
        header = lines[0].split()
        self.assertEqual(header, ['time', 'elapsed', 'procs', 'threads', 'rd_ops', 'wr_ops',
                                  'meta_ops', 'sync_ops', 'rd_bytes', 'wr_bytes', 'io_ms',
                                  'p50_us', 'p99_us', 'train_io', 'stall', 'lost', 'events'])
        rows = []
        for line in lines[1:]:
            words = line.split()
            self.assertEqual(len(words), len(header), line)
            self.assertRegex(words[0], r'^\d\d:\d\d:\d\d$')
            rows.append(dict(zip(header, words)))
        return rows

    def check_sums(self, rows, events):
        total = lambda k: sum(int(r[k]) for r in rows)
        self.assertEqual(total('rd_ops'), READS)
        self.assertEqual(total('rd_bytes'), READS * SIZE)
        self.assertEqual(total('meta_ops'), 4)  # readlink, openat, newfstatat, close
        self.assertEqual((total('wr_ops'), total('wr_bytes'), total('sync_ops')), (0, 0, 0))
        self.assertEqual(total('lost'), 0)
        self.assertEqual(total('events'), events)
        elapsed = [float(r['elapsed']) for r in rows]
        self.assertEqual(elapsed, sorted(elapsed))
        for r in rows:
            if int(r['rd_ops']):
                self.assertRegex(r['p50_us'], r'^\d+\.\d$')
                self.assertGreater(float(r['io_ms']), 0)

    def test_top_lines(self):
        """dltrace top, output to a pipe: the lines add up to the workload's
        calls, and no trace file is written without -o."""
        data = self.make_data()
        res = subprocess.run([DLTRACE, 'top', '--', READER, data, str(READS), str(SIZE), '3',
                              '0'], capture_output=True, text=True, cwd=self.dir, timeout=120)
        self.assertEqual(res.returncode, 0, res.stderr)
        rows = self.lines(res.stdout)
        self.assertGreaterEqual(len(rows), 3)
        m = re.search(r'traced (\d+) events \(target exited\); no trace file', res.stderr)
        self.assertTrue(m, res.stderr)
        self.check_sums(rows, int(m.group(1)))
        self.assertEqual(sorted(os.listdir(self.dir)), ['data.bin'])

    def test_live_beside_the_trace(self):
        """--live on a tracing run, every half second: the lines' sums equal the
        trace's own counts, events included."""
        data, trace = self.make_data(), self.path('t.json')
        res = subprocess.run([DLTRACE, '--live', '-i', '0.5', '-o', trace, '--', READER, data,
                              str(READS), str(SIZE), '2', '0'],
                             capture_output=True, text=True, timeout=120)
        self.assertEqual(res.returncode, 0, res.stderr)
        rows = self.lines(res.stdout)
        self.assertGreaterEqual(len(rows), 4)
        events = load_trace(trace)
        self.check_sums(rows, summary(events)['events'])
        reads = [e for e in io_events(events, under=data) if e['name'] == 'pread64']
        self.assertEqual(len(reads), READS)

    def test_usage(self):
        for args, msg in ((['-i', '1', '--', 'true'], '--interval is for the live view'),
                          (['top', '-i', '0', '--', 'true'], '--interval needs'),
                          (['top'], 'give exactly one target kind')):
            res = subprocess.run([DLTRACE] + args, capture_output=True, text=True)
            self.assertEqual(res.returncode, 2, res.stderr)
            self.assertIn(msg, res.stderr)
        res = subprocess.run([DLTRACE, 'top', '--help'], capture_output=True, text=True)
        self.assertEqual(res.returncode, 0)
        self.assertIn('q         stop tracing', res.stdout)


class CtlTopTest(DaemonCase):
    """dltrace ctl top: the view of a job the daemon traces, over its socket."""

    def test_ctl_top_shows_the_job(self):
        d = self.daemon
        data = self.make_file('data.bin', 1 << 20)
        job = d.job_cgroup(905)
        outside = subprocess.Popen([READER, data, '100', str(SIZE), '0', '-1'])
        inside = d.run_in(job, [READER, data, str(READS), str(SIZE), '1', '-1'], 'nobody')
        try:
            self.check_ctl_top(d, job, data, inside, outside)
        finally:  # before tearDown removes the job's cgroup
            for p in (inside, outside):
                p.kill()
                p.wait()

    def check_ctl_top(self, d, job, data, inside, outside):
        tmux = Tmux('dltrace-ctl-%d' % os.getpid(), '%s ctl --socket %s top 905; sleep 600' % (
            DLTRACE, d.socket))
        self.addCleanup(tmux.kill)

        def rows():
            return [r for r in table_rows(tmux.screen(), 'PID') if r[0].isdigit()]
        # PID THR READ/s WRITE/s OPS/s META/s IO% P50 P99 READ WRITE OPS COMMAND
        self.assertTrue(wait_for(lambda: [r[0] for r in rows() if r[9] == '20M'] ==
                                 [str(inside.pid)], timeout=60), tmux.screen())
        screen = tmux.screen()
        self.assertRegex(screen.splitlines()[0], r'^dltrace ctl top 905   up \d+:\d\d:\d\d   '
                         r'every 1 s   host \S+   job 905 cgroup %s$' % re.escape(job))
        self.assertIn('Processes 1 (1 seen)   Threads 1', screen)
        self.assertNotIn(str(outside.pid), screen)
        self.assertEqual([r[0] for r in rows()], [str(inside.pid)])
        self.assertEqual(rows()[0][12:14], [READER, data])
        # its file: openat, newfstatat and the reads, nothing of the reader outside
        tmux.keys('f')
        self.assertTrue(wait_for(lambda: [r[-2:] for r in table_rows(tmux.screen(), 'READ/s')
                                          if r[-1] == data] == [[str(READS + 2), data]],
                                 timeout=10), tmux.screen())
        # the same numbers as lines, from a pipe
        res = subprocess.run([DLTRACE, 'ctl', '--socket', d.socket, 'top', '905', '-n', '2',
                              '-i', '0.5'], capture_output=True, text=True, timeout=30)
        self.assertEqual(res.returncode, 0, res.stderr)
        lines = [l.split() for l in res.stdout.splitlines()]
        self.assertEqual(len(lines), 3)
        self.assertEqual(sum(int(l[4]) for l in lines[1:]), READS)  # rd_ops: all before
        self.assertEqual(lines[1][2:4], ['1', '1'])  # procs, threads
        # q leaves the view; the daemon still traces the job
        tmux.keys('q')
        self.assertTrue(wait_for(lambda: 'dltrace ctl top' not in tmux.screen(), timeout=10))
        self.assertEqual([j['state'] for j in d.status()['jobs']], ['tracing'])
        res = subprocess.run([DLTRACE, 'ctl', '--socket', d.socket, 'top', 'nosuchjob'],
                             capture_output=True, text=True)
        self.assertEqual((res.returncode, res.stderr),
                         (1, "dltrace ctl: no traced job 'nosuchjob'\n"))


if __name__ == '__main__':
    unittest.main()
