"""Hardening: dltrace killed, run twice, fed process storms, reused pids,
killed processes, and hostile file names, paths and arguments."""
import json
import os
import re
import signal
import socket
import subprocess
import sys
import unittest

from dltrace_harness import (HANDOVER_SOCKET, Tracer, TraceTest, cgroup2_root, events_held,
                             in_syscall, io_events, load_trace, run_command, summary,
                             tracer_processes, wait_for, workload)


def loaded_programs():
    """Ids of every BPF program loaded on the system."""
    out = subprocess.run(['bpftool', '-j', 'prog', 'show'], capture_output=True, check=True)
    return {p['id'] for p in json.loads(out.stdout)}


def programs_held_by(pid):
    """Ids of the BPF programs a process holds (prog and link descriptors' fdinfo)."""
    ids = set()
    fdinfo = '/proc/%d/fdinfo' % pid
    for fd in os.listdir(fdinfo):
        try:
            with open(os.path.join(fdinfo, fd)) as f:
                for line in f:
                    if line.startswith('prog_id:'):
                        ids.add(int(line.split()[1]))
        except OSError:
            pass
    return ids


class KillAndConcurrencyTest(TraceTest):
    def test_sigkill_leaves_nothing_attached_and_the_job_unharmed(self):
        data = self.path('d.bin')
        with open(data, 'wb') as f:
            f.write(b'k' * 4096)
        # the job reads until it is told to stop (SIGUSR1), so that it outlives a start-up
        # slowed down by a loaded machine (a --pid tracer ends with its target)
        job = subprocess.Popen([workload('busy_reader'), data, '1', '0'], stdout=subprocess.PIPE)
        tracer = Tracer(['--pid', str(job.pid)], self.path('t.json')).wait_ready()
        self.assertIsNone(tracer.proc.poll(), tracer.stderr)
        # the programs it holds before and after the system's list is taken (a program
        # that libbpf loads for a moment, to probe a feature, may be gone from either)
        before = programs_held_by(tracer.proc.pid)
        loaded = loaded_programs()
        mine = before & programs_held_by(tracer.proc.pid)
        self.assertGreater(len(mine), 40)
        self.assertEqual(mine - loaded, set())
        tracer.proc.kill()
        tracer.wait()
        # the kernel detaches and unloads everything once the last descriptor is gone
        self.assertTrue(wait_for(lambda: not mine & loaded_programs(), timeout=60),
                        'programs still loaded: %s' % (mine & loaded_programs()))
        self.assertIsNone(job.poll())
        job.send_signal(signal.SIGUSR1)
        out, _ = job.communicate(timeout=60)
        self.assertEqual(job.returncode, 0)
        self.assertTrue(out.startswith(b'count '))

    def test_programs_loaded_side_by_side_share_their_maps(self):
        """The per-syscall exit programs load in a second opening of the object, beside
        the rest: both use one ring buffer, one task storage and one read-only data."""
        job = subprocess.Popen(['sleep', '60'])
        tracer = Tracer(['--pid', str(job.pid)], self.path('t.json')).wait_ready()
        try:
            held = programs_held_by(tracer.proc.pid)
            progs = json.loads(subprocess.run(['bpftool', '-j', 'prog', 'show'],
                                              capture_output=True, check=True).stdout)
            maps = json.loads(subprocess.run(['bpftool', '-j', 'map', 'show'],
                                             capture_output=True, check=True).stdout)
        finally:
            job.kill()
            job.wait()
            tracer.wait()
        names = {m['id']: m.get('name', '') for m in maps}
        mine = {p['name']: p for p in progs if p['id'] in held}
        # an exit of the second opening; an entry and the shared exit of the first
        sides = ('dl_exit_pread64', 'dl_enter_pread64', 'dl_exit_shared')
        self.assertEqual([n for n in sides if n not in mine], [])
        # two openings: each loaded its own copy of the object's BTF
        self.assertNotEqual(mine['dl_exit_pread64']['btf_id'], mine['dl_enter_pread64']['btf_id'])
        self.assertEqual(mine['dl_exit_shared']['btf_id'], mine['dl_enter_pread64']['btf_id'])
        for map_name in ('events', 'tasks', 'dltrace_.rodata'):
            ids = {i for n in sides for i in mine[n].get('map_ids', [])
                   if names.get(i) == map_name}
            self.assertEqual(len(ids), 1, '%s: %s' % (map_name, ids))
        self.assertEqual(tracer.proc.returncode, 0, tracer.stderr)

    def test_two_tracers_at_once(self):
        data = self.path('d.bin')
        with open(data, 'wb') as f:
            f.write(b'2' * 8192)
        job = subprocess.Popen([workload('pid_target'), data, data], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE)
        pid = int(job.stdout.readline().split()[1])
        a = Tracer(['--pid', str(pid)], self.path('a.json')).wait_ready()
        b = Tracer(['--pid', str(pid)], self.path('b.json')).wait_ready()
        job.stdin.write(b'go\n')
        job.stdin.flush()
        job.wait()
        self.assertEqual((a.wait(), b.wait()), (0, 0), a.stderr + b.stderr)
        seen = []
        for name in ('a.json', 'b.json'):
            calls = io_events(load_trace(self.path(name)), pid=pid, under=self.dir)
            seen.append([(e['name'], e['args']['offset'], e['args']['ret']) for e in calls])
        self.assertEqual(seen[0], [('pread64', 0, 512), ('pread64', 4096, 512)])
        self.assertEqual(seen[0], seen[1])

HANDOVER_LINE = re.compile(r'dltrace: tracepoint events: (\d+) taken over from an earlier run, '
                           r'(\d+) opened, (\d+) given and not used')

# connects to the socket as another user: exit 13 when refused for permission
CONNECT_AS_OTHER = '''if 1:
    import socket, sys
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        s.connect(sys.argv[1])
    except PermissionError:
        sys.exit(13)
'''


class EventHandoverTest(TraceTest):
    """A run's helper keeps its tracepoints' perf events, disabled and without a program, and
    gives them to the next run, which attaches to them without opening any (it does not
    wait for the last run's teardown)."""

    PREADS = [('pread64', 8192, 100), ('pread64', 0, 512), ('pread64', 4096, 512)]

    def run_target(self, name, env=None, preexec_fn=None):
        """dltrace --verbose -- pid_target: (its counts of events, its preads)."""
        data = self.path('d.bin')
        if not os.path.exists(data):
            with open(data, 'wb') as f:
                f.write(b'h' * 16384)
        res = run_command(['--verbose'], self.path(name), [workload('pid_target'), data, data],
                          input=b'go\n', env=dict(os.environ, **(env or {})),
                          preexec_fn=preexec_fn)
        err = res.stderr.decode()
        self.assertEqual(res.returncode, 0, err)
        m = HANDOVER_LINE.search(err)
        self.assertIsNotNone(m, err)
        calls = io_events(load_trace(self.path(name)), under=self.dir)
        return (tuple(int(x) for x in m.groups()),
                [(e['name'], e['args']['offset'], e['args']['ret'])
                 for e in calls if e['name'] == 'pread64'])

    def wait_held(self):
        """The helper of the run before, once it offers its events: its pid."""
        self.assertTrue(wait_for(lambda: os.path.exists(HANDOVER_SOCKET) and events_held(),
                                 timeout=60), tracer_processes())
        pids = events_held()
        self.assertEqual(len(pids), 1, pids)
        return pids[0]

    def test_the_next_run_takes_the_events_of_the_last(self):
        (taken, opened, _), calls = self.run_target('a.json')
        self.assertEqual(calls, self.PREADS)
        helper = self.wait_held()
        # it holds events only: no program, map or link is left
        self.assertEqual(programs_held_by(helper), set())
        counts, calls = self.run_target('b.json')
        self.assertEqual(counts, (taken + opened, 0, 0))
        self.assertEqual(calls, self.PREADS)
        # given away, the helper is gone
        self.assertTrue(wait_for(lambda: not os.path.exists('/proc/%d' % helper), timeout=30))

    def test_only_root_asking_gets_them(self):
        (taken, opened, _), _ = self.run_target('a.json')
        self.wait_held()
        # another user cannot reach the socket (its directory is root's alone)
        other = subprocess.run(['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups',
                                sys.executable, '-c', CONNECT_AS_OTHER, HANDOVER_SOCKET],
                               capture_output=True, text=True)
        self.assertEqual(other.returncode, 13, other.stderr)
        # a caller that connects and does not ask (another helper looking) gets nothing
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        s.connect(HANDOVER_SOCKET)
        s.close()
        counts, calls = self.run_target('b.json')
        self.assertEqual(counts, (taken + opened, 0, 0))
        self.assertEqual(calls, self.PREADS)

    def test_the_holder_leaves_the_jobs_cgroup(self):
        """dltrace started inside a job's cgroup (v1 blkio and v2): its holder joins the cgroups
        of the process that started dltrace, and the job's cgroups empty at dltrace's exit."""
        name = 'dltrace-test-hold-%d' % os.getpid()
        job = [os.path.join('/sys/fs/cgroup/blkio', name), os.path.join(cgroup2_root(), name)]
        for cg in job:
            os.mkdir(cg)
        self.addCleanup(lambda: [os.path.isdir(cg) and os.rmdir(cg) for cg in job])

        def enter():
            for cg in job:
                with open(os.path.join(cg, 'cgroup.procs'), 'w') as f:
                    f.write(str(os.getpid()))
        self.run_target('a.json', preexec_fn=enter)
        helper = self.wait_held()
        with open('/proc/%d/cgroup' % helper) as f:
            held_in = f.read()
        with open('/proc/self/cgroup') as f:
            mine = f.read()
        self.assertEqual(held_in, mine)
        # nothing of dltrace is left in them: they go at once
        self.assertTrue(wait_for(lambda: not tracer_processes(), timeout=60), tracer_processes())
        for cg in job:
            os.rmdir(cg)

    def test_nothing_is_held_with_a_hold_of_zero(self):
        (taken, opened, _), _ = self.run_target('a.json', {'DLTRACE_EVENTS_HOLD_MS': '0'})
        # its helper closes everything and exits
        self.assertTrue(wait_for(lambda: not tracer_processes() and not events_held(),
                                 timeout=120), tracer_processes())
        self.assertFalse(os.path.exists(HANDOVER_SOCKET))
        counts, calls = self.run_target('b.json')
        self.assertEqual(counts, (0, taken + opened, 0))
        self.assertEqual(calls, self.PREADS)


class ProcessStormTest(TraceTest):
    def test_thousand_processes_per_second_and_500_threads(self):
        data = self.path('s.bin')
        with open(data, 'wb') as f:
            f.write(b's' * 64)
        res, events = self.trace_command([workload('spawn_storm'), data, '1000', '3', '500'])
        report = json.loads(res.stdout)
        children = report['children']
        self.assertEqual(len(children), 3000)
        self.assertEqual(summary(events)['lost_events'], 0)
        reads = io_events(events, under=self.dir)
        # every child: one read of the file, on its own pid
        child_reads = {}
        for e in reads:
            if e['name'] == 'read':
                child_reads.setdefault(e['pid'], []).append(e['args']['ret'])
        self.assertEqual(sorted(child_reads), sorted(children))
        self.assertTrue(all(r == [64] for r in child_reads.values()))
        exits = {e['pid'] for e in events if e['name'] == 'process_exit'}
        self.assertTrue(set(children) <= exits)
        # every thread: one pread on its own tid, all in the parent process
        parent = next(e['pid'] for e in events if e['name'] == 'exec')
        preads = [e for e in reads if e['name'] == 'pread64']
        self.assertEqual(sorted(e['tid'] for e in preads), sorted(report['threads']))
        self.assertEqual({e['pid'] for e in preads}, {parent})
        created = [e for e in events if e['name'] == 'thread_create' and e['pid'] == parent]
        self.assertEqual(sorted(e['args']['child_tid'] for e in created),
                         sorted(report['threads']))

    def test_pid_reuse_and_zombies(self):
        first, second = self.path('first.txt'), self.path('second.txt')
        for p in (first, second):
            with open(p, 'w') as f:
                f.write(p)
        res, events = self.trace_command([workload('pid_reuse'), first, second])
        report = json.loads(res.stdout)
        reads = [e for e in io_events(events, under=self.dir) if e['name'] == 'read']
        self.assertEqual(len(reads), 2)
        by_path = {e['args']['path']: e for e in reads}
        # the same real pid, two processes: two tracks in the trace
        self.assertEqual(by_path[first]['pid'], report['pid'])
        self.assertNotEqual(by_path[second]['pid'], report['pid'])
        self.assertEqual(by_path[second]['pid'] % 4194304, report['pid'])
        names = {e['pid']: e['args']['name'] for e in events if e['name'] == 'process_name'}
        self.assertIn('(pid %d reused)' % report['pid'], names[by_path[second]['pid']])
        self.assertNotIn('reused', names[report['pid']])
        # the zombie's exit is reported when it exits, not when it is reaped
        exits = [e for e in events if e['name'] == 'process_exit' and e['pid'] == report['zombie']]
        self.assertEqual(len(exits), 1)

    def test_process_killed_mid_syscall(self):
        fifo = self.path('fifo')
        os.mkfifo(fifo)
        victim = subprocess.Popen(['cat', fifo])
        tracer = Tracer(['--pid', str(victim.pid)], self.path('t.json')).wait_ready()
        # cat blocks opening the FIFO (no writer); kill it there, inside openat (257)
        self.assertTrue(wait_for(lambda: in_syscall(victim.pid) == 257),
                        'cat is not in openat: /proc/%d/syscall says %s' %
                        (victim.pid, in_syscall(victim.pid)))
        victim.kill()
        victim.wait()
        self.assertEqual(tracer.wait(), 0, tracer.stderr)
        events = load_trace(self.path('t.json'))
        exits = [e for e in events if e['name'] == 'process_exit' and e['pid'] == victim.pid]
        self.assertEqual(exits[0]['args'], {'signal': signal.SIGKILL})
        opens = [e for e in io_events(events, pid=victim.pid) if e['args'].get('path') == fifo]
        # the open in flight when the trace started has no recorded entry: not reported
        self.assertEqual(opens, [])


class OrderingTest(TraceTest):
    def test_reused_descriptor_named_by_time(self):
        first, second = self.path('first.txt'), self.path('second.txt')
        for p, text in ((first, 'first file\n'), (second, 'second file\n')):
            with open(p, 'w') as f:
                f.write(text)
        res, events = self.trace_command([workload('fd_reuse'), first, second])
        report = json.loads(res.stdout)
        preads = [e for e in io_events(events, under=self.dir) if e['name'] == 'pread64']
        got = sorted((e['tid'], e['args']['fd'], e['args']['path'], e['args']['ret'])
                     for e in preads)
        self.assertEqual(got, sorted([(report['a_tid'], report['fd'], first, 11),
                                      (report['main_tid'], report['fd'], second, 12)]))


class HostileInputTest(TraceTest):
    def test_every_byte_in_a_file_name(self):
        name = bytes(b for b in range(1, 256) if b != ord('/'))
        path = os.path.join(os.fsencode(self.dir), name)
        script = ('import os,sys; p=bytes.fromhex(sys.argv[1]); fd=os.open(p, os.O_CREAT|'
                  'os.O_WRONLY, 0o600); os.write(fd, b"x"); os.close(fd)')
        res, events = self.trace_command(['/usr/bin/python3', '-c', script, path.hex()])
        opens = [e for e in io_events(events) if e['name'] == 'openat' and
                 'path_hex' in e['args'] and e['args']['ret'] >= 0]
        self.assertEqual([bytes.fromhex(e['args']['path_hex']) for e in opens], [path])

    def test_long_and_deep_paths_and_symlink_loops(self):
        # 200 nested directories, then a file; and a path of exactly 4095 bytes
        deep = self.dir
        for _ in range(200):
            deep = os.path.join(deep, 'd')
        os.makedirs(deep)
        long_dir = self.dir
        while len(long_dir) < 4095 - 300:
            long_dir = os.path.join(long_dir, 'x' * 200)
        os.makedirs(long_dir)
        long_file = os.path.join(long_dir, 'f' * (4095 - len(long_dir) - 1))
        self.assertEqual(len(long_file), 4095)
        os.symlink('loop_b', self.path('loop_a'))
        os.symlink('loop_a', self.path('loop_b'))
        script = '''
import os, sys
deep, long_file, loop = sys.argv[1:]
fd = os.open(deep + "/file", os.O_CREAT | os.O_WRONLY, 0o600); os.close(fd)
# a 4095-byte path: too long for one syscall argument, so open it relative
os.chdir(os.path.dirname(long_file))
fd = os.open(os.path.basename(long_file), os.O_CREAT | os.O_WRONLY, 0o600); os.close(fd)
try:
    os.open(loop, os.O_RDONLY)
except OSError:
    pass
'''
        res, events = self.trace_command(['/usr/bin/python3', '-c', script, deep, long_file,
                                          self.path('loop_a')])
        self.assertEqual(res.returncode, 0, res.stderr)
        paths = {e['args'].get('path'): e for e in io_events(events) if e['name'] == 'openat'}
        self.assertIn(deep + '/file', paths)
        self.assertEqual(paths[deep + '/file']['args']['ret'], 3)
        self.assertIn(long_file, paths)
        self.assertEqual(paths[self.path('loop_a')]['args']['errno'], 'ELOOP')

    def test_cgroup_with_odd_characters(self):
        name = 'dltrace odd "name" \\ é %d' % os.getpid()
        cg = os.path.join(cgroup2_root(), name)
        os.mkdir(cg)
        try:
            tracer = Tracer(['--cgroup', name, '-d', '0.5'], self.path('t.json'))
            self.assertEqual(tracer.wait(), 0, tracer.stderr)
            self.assertEqual(load_trace(self.path('t.json'))[0]['args']['target'], 'cgroup ' + cg)
        finally:
            os.rmdir(cg)


if __name__ == '__main__':
    unittest.main()
