"""The three ways to name what is traced: --pid, --cgroup, -- COMMAND."""
import os
import signal
import subprocess
import time
import unittest

from dltrace_harness import (DLTRACE, Tracer, TraceTest, cgroup2_root, io_events, load_trace,
                             remove_cgroup, start_in_cgroup, summary, wait_for, workload)


def write_file(path, size):
    with open(path, 'wb') as f:
        f.write(b'p' * size)


def read_syscalls(pid):
    """The read syscalls (read, pread64, ...) a process has made: /proc/PID/io's syscr."""
    with open('/proc/%d/io' % pid) as f:
        return next(int(l.split()[1]) for l in f if l.startswith('syscr:'))


class PidTargetTest(TraceTest):
    def test_attach_to_running_process(self):
        pre, child_file = self.path('pre.bin'), self.path('child.bin')
        write_file(pre, 16384)
        write_file(child_file, 1000)
        target = subprocess.Popen([workload('pid_target'), pre, child_file],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        ready = target.stdout.readline().split()
        self.assertEqual(ready[0], b'ready')
        pid, fd = int(ready[1]), int(ready[2])
        tracer = Tracer(['--pid', str(pid)], self.path('trace.json')).wait_ready()
        target.stdin.write(b'go\n')
        target.stdin.flush()
        out = target.stdout.read().split()
        self.assertEqual(target.wait(), 0)
        child = int(out[1])
        # the whole tree exited: dltrace stops by itself
        self.assertEqual(tracer.wait(), 0, tracer.stderr)
        events = load_trace(self.path('trace.json'))
        self.assertEqual(summary(events)['stop_reason'], 'target exited')

        mine = io_events(events, pid=pid, under=self.dir)
        # nothing from before the attach: the open and the pread at 8192
        self.assertFalse([e for e in mine if e['name'] == 'openat'])
        self.assertFalse([e for e in mine if e['args'].get('offset') == 8192])
        preads = [e for e in mine if e['name'] == 'pread64']
        self.assertEqual([(e['args']['fd'], e['args']['offset'], e['args']['ret'])
                          for e in preads], [(fd, 0, 512), (fd, 4096, 512)])
        # the descriptor opened before the attach resolves to its path (from /proc)
        self.assertEqual({e['args']['path'] for e in preads}, {pre})
        # the child forked after the attach is traced
        theirs = io_events(events, pid=child, under=self.dir)
        self.assertEqual([(e['name'], e['args']['path'], e['args']['ret']) for e in theirs],
                         [('openat', child_file, theirs[0]['args']['fd']),
                          ('read', child_file, 1000), ('close', child_file, 0)])
        forks = [e for e in events if e['name'] == 'fork']
        self.assertEqual([(e['pid'], e['args']['child_pid']) for e in forks], [(pid, child)])
        names = {e['pid']: e['args']['name'] for e in events if e['name'] == 'process_name'}
        self.assertTrue(names[pid].startswith(workload('pid_target')))

    def test_sigint_stops_with_a_valid_trace(self):
        data = self.path('busy.bin')
        write_file(data, 4096)
        busy = subprocess.Popen([workload('busy_reader'), data, '1', '0'],
                                stdout=subprocess.PIPE)
        try:
            tracer = Tracer(['--pid', str(busy.pid)], self.path('t.json.gz')).wait_ready()
            # stop once the reader has made 1,000 more reads, all after the attach
            start = read_syscalls(busy.pid)
            self.assertTrue(wait_for(lambda: read_syscalls(busy.pid) > start + 1000,
                                     timeout=60), 'setup failed: busy_reader made no 1,000 '
                            'reads in 60 s')
            self.assertEqual(tracer.stop(signal.SIGINT), 0, tracer.stderr)
        finally:
            busy.kill()
            busy.wait()
        events = load_trace(self.path('t.json.gz'))
        with open(self.path('t.json.gz'), 'rb') as f:
            self.assertEqual(f.read(2), b'\x1f\x8b')
        reads = io_events(events, pid=busy.pid, under=self.dir)
        self.assertGreater(len(reads), 1000)
        self.assertTrue(all(e['args']['offset'] == 0 and e['args']['ret'] == 4096 for e in reads))
        self.assertEqual(summary(events)['stop_reason'], 'signal')

    def test_sigterm_and_sighup_stop_cleanly(self):
        for sig in (signal.SIGTERM, signal.SIGHUP):
            sleeper = subprocess.Popen(['sleep', '30'])
            try:
                out = self.path('t%d.json' % sig)
                tracer = Tracer(['--pid', str(sleeper.pid)], out).wait_ready()
                self.assertEqual(tracer.stop(sig), 0, tracer.stderr)
                self.assertEqual(summary(load_trace(out))['stop_reason'], 'signal')
            finally:
                sleeper.kill()
                sleeper.wait()

    def test_duration(self):
        sleeper = subprocess.Popen(['sleep', '30'])
        try:
            start = time.time()
            tracer = Tracer(['--pid', str(sleeper.pid), '-d', '1.5'], self.path('t.json'))
            self.assertEqual(tracer.wait(), 0, tracer.stderr)
            self.assertGreaterEqual(time.time() - start, 1.5)
            self.assertEqual(summary(load_trace(self.path('t.json')))['stop_reason'], 'duration')
        finally:
            sleeper.kill()
            sleeper.wait()


class CgroupTargetTest(TraceTest):
    def setUp(self):
        super().setUp()
        self.root = cgroup2_root()
        self.name = 'dltrace-test-%d' % os.getpid()
        self.cg = os.path.join(self.root, self.name)
        self.child_cg = os.path.join(self.cg, 'step0')
        os.makedirs(self.child_cg)

    def tearDown(self):
        for d in (self.child_cg, self.cg):
            remove_cgroup(d)
        super().tearDown()

    def test_cgroup_and_descendants_only(self):
        inside, outside = self.path('inside.bin'), self.path('outside.bin')
        write_file(inside, 3000)
        write_file(outside, 3000)
        # by name, searched under the cgroup v2 mount
        tracer = Tracer(['--cgroup', self.name], self.path('trace.json')).wait_ready()
        self.assertIn('cgroup ' + self.cg, tracer.stderr)
        job = start_in_cgroup(self.child_cg, ['cat', inside])
        other = subprocess.Popen(['cat', outside], stdout=subprocess.PIPE)
        job_out, _ = job.communicate()
        other.communicate()
        self.assertEqual(len(job_out), 3000)
        # removing the cgroup ends the trace (a cgroup whose last process or child has just
        # gone can still be busy for a moment: retried)
        self.assertTrue(remove_cgroup(self.child_cg) and remove_cgroup(self.cg))
        self.assertEqual(tracer.wait(), 0, tracer.stderr)
        events = load_trace(self.path('trace.json'))
        self.assertEqual(summary(events)['stop_reason'], 'cgroup removed')
        files = [e for e in io_events(events, under=self.dir)]
        self.assertTrue(files)
        self.assertEqual({e['pid'] for e in files}, {job.pid})
        reads = [e for e in files if e['name'] == 'read' and e['args']['ret'] > 0]
        self.assertEqual([(e['args']['path'], e['args']['ret']) for e in reads], [(inside, 3000)])
        self.assertFalse([e for e in events if e.get('pid') == other.pid])

    def test_absolute_directory_and_errors(self):
        res = subprocess.run([DLTRACE, '--cgroup', '/no/such/cgroup', '-o', self.path('x.json')],
                             capture_output=True)
        self.assertEqual(res.returncode, 1)
        self.assertIn('not a cgroup v2 directory', res.stderr.decode())
        self.assertFalse(os.path.exists(self.path('x.json')))
        # an ambiguous name lists the candidates
        other = os.path.join(self.cg, 'again', 'step0')
        os.makedirs(other)
        try:
            res = subprocess.run([DLTRACE, '--cgroup', 'step0', '-o', self.path('x.json')],
                                 capture_output=True)
            err = res.stderr.decode()
            self.assertEqual(res.returncode, 1)
            self.assertIn('ambiguous', err)
            self.assertIn(self.child_cg, err)
            self.assertIn(other, err)
        finally:
            os.rmdir(other)
            os.rmdir(os.path.dirname(other))
        tracer = Tracer(['--cgroup', self.cg, '-d', '0.5'], self.path('abs.json'))
        self.assertEqual(tracer.wait(), 0, tracer.stderr)
        self.assertEqual(load_trace(self.path('abs.json'))[0]['args']['target'], 'cgroup ' + self.cg)


class CommandTargetTest(TraceTest):
    def test_first_syscalls_are_captured(self):
        res, events = self.trace_command(['cat', '/etc/hostname'])
        pid = next(e['pid'] for e in events if e['name'] == 'exec')
        mine = [e for e in events if e.get('pid') == pid and e['ph'] != 'M']
        mine.sort(key=lambda e: e['ts'])
        # the exec comes first, then the dynamic loader's first file calls: its check
        # for /etc/ld.so.preload, its first open
        self.assertEqual(mine[0]['name'], 'exec')
        self.assertEqual(mine[0]['args']['file'], '/usr/bin/cat')
        first_io = [e for e in mine if e['ph'] == 'X'][:2]
        self.assertEqual([(e['name'], e['args']['path']) for e in first_io],
                         [('access', '/etc/ld.so.preload'), ('openat', '/etc/ld.so.cache')])
        self.assertEqual(first_io[0]['args']['mode'], 'R_OK')
        with open('/etc/hostname', 'rb') as f:
            self.assertEqual(res.stdout, f.read())

    def test_exit_status_passes_through(self):
        res, _ = self.trace_command(['sh', '-c', 'exit 7'], check=False)
        self.assertEqual(res.returncode, 7)
        res, events = self.trace_command(['sh', '-c', 'kill -TERM $$'], name='t2.json',
                                         check=False)
        self.assertEqual(res.returncode, 128 + signal.SIGTERM)
        exits = [e for e in events if e['name'] == 'process_exit']
        self.assertEqual(exits[-1]['args'], {'signal': signal.SIGTERM})

    def test_command_not_found(self):
        res, events = self.trace_command(['/nonexistent/program'], check=False)
        self.assertEqual(res.returncode, 127)
        self.assertIn('No such file or directory', res.stderr.decode())

    def test_usage_errors(self):
        cases = [
            ['--pid', '-5'], ['--pid', '0'], ['--pid', '99999999999999999999'],
            ['--pid', 'abc'], ['--pid'], ['-o'], ['--duration', '-1'], ['--duration', 'x'],
            ['--pid', '1', '--cgroup', 'x'], [], ['--bogus'], ['--'], ['--ring-size', '3'],
            ['extra-argument'],
        ]
        for args in cases:
            res = subprocess.run([DLTRACE] + args, capture_output=True)
            self.assertEqual(res.returncode, 2, '%s: %s' % (args, res.stderr))
            err = res.stderr.decode().strip().splitlines()
            self.assertTrue(err[0].startswith('dltrace: '), err)
            self.assertIn("Try 'dltrace --help'", err[-1])
        res = subprocess.run([DLTRACE, '--pid', '999999'], capture_output=True)
        self.assertEqual(res.returncode, 1)
        self.assertEqual(res.stderr.decode().strip(), 'dltrace: no process with pid 999999')
        res = subprocess.run([DLTRACE, '--help'], capture_output=True)
        self.assertEqual(res.returncode, 0)
        self.assertIn('--cgroup', res.stdout.decode())


if __name__ == '__main__':
    unittest.main()
