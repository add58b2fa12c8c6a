"""A PyTorch profiler trace joined to a traced workload.  training_phases.py
(starved: each of its 10 steps first waits 40 ms or more in a fetch region
for its loader's batch) is traced with its markers; then this test rewrites
a copy of the real ROCm profiler trace (tests/data/kineto) with the
workload's pid, its training thread's tid (the profiler's autograd thread
becomes a tid the trace never had) and a base time that puts the
profiler's first step 1 ms into the workload's first fetch region.  The
merged trace, JSON and .pftrace, holds every profiler event once, at
base + ts on dltrace's timeline to the ns, its CPU ops on the workload's
own tracks, its GPU stream under that process; the report's GPU idle
section is what the merged trace's own events give, computed here from them.
(The profiler traces without a workload: tests/unit/test_kineto.py.)
"""
import json
import os
import subprocess

from dltrace_harness import DLTRACE, PYTHON, ROOT, TraceTest, load_trace
from kineto_files import check_placed, fixture, load, names, ns, read_merged, rewrite

MARKERS_PY = os.path.join(ROOT, 'python')
READS = ('read', 'pread64', 'readv', 'preadv', 'preadv2')
BUSY = ('kernel', 'gpu_memcpy', 'gpu_memset')


def union(spans):
    out = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def shared(segs, u):
    return sum(max(0, min(e, b) - max(s, a)) for s, e in segs for a, b in u)


class KinetoJoinTest(TraceTest):
    @classmethod
    def setUpClass(cls):
        cls.shared = TraceTest()
        cls.shared.setUp()
        p = cls.shared.path
        data = p('data.bin')
        with open(data, 'wb') as f:
            f.write(os.urandom(100000))
        cls.trace = p('trace.json')
        res = subprocess.run([DLTRACE, '-o', cls.trace, '--layers', 'syscall,markers', '--',
                              PYTHON, os.path.join(ROOT, 'tests', 'workloads',
                                                   'training_phases.py'),
                              MARKERS_PY, data, p('checkpoint.bin'), 'starved'],
                             capture_output=True, timeout=600)
        assert res.returncode == 0, res.stderr.decode()
        ids = json.loads(res.stdout.decode().splitlines()[0])
        cls.pid = ids['main_pid']
        cls.events = load_trace(cls.trace)
        head = cls.events[0]['args']
        cls.start = head['start_wall_ns']
        used = {e['tid'] for e in cls.events} | {e['pid'] for e in cls.events}
        cls.unseen = next(t for t in range(4194303, 0, -1) if t not in used)
        fetch = sorted((e for e in cls.events if e.get('cat') == 'marker' and
                        e['name'] == 'fetch' and e['tid'] == cls.pid), key=lambda e: ns(e['ts']))
        cls.fetch0 = cls.start + ns(fetch[0]['ts'])
        src = load(fixture('rocm_minitoy_train.json.gz'))
        step1, = [e for e in src['traceEvents'] if e['name'] == 'ProfilerStep#1' and
                  e['cat'] == 'user_annotation']
        cls.kineto = rewrite(fixture('rocm_minitoy_train.json.gz'), p('rocm.json'),
                             {597913: cls.pid}, {597913: cls.pid, 598009: cls.unseen},
                             cls.fetch0 + 1000000 - ns(step1['ts']))

    @classmethod
    def tearDownClass(cls):
        cls.shared.tearDown()

    def merged(self, out):
        res = subprocess.run([DLTRACE, 'merge', '-q', self.trace, self.kineto, '-o', out],
                             capture_output=True, timeout=300)
        self.assertEqual((res.returncode, res.stderr.decode()), (0, ''))  # joined: no warning
        if '.pftrace' in out:
            subprocess.run([DLTRACE, 'convert', '-q', out, out + '.json'], check=True)
            out += '.json'
        return read_merged(out)

    def test_joined_in_both_formats(self):
        trace = load(self.kineto)
        for name in ('merged.json', 'merged.pftrace'):
            with self.subTest(out=name):
                merged = self.merged(self.path(name))
                threads, procs = names(merged)
                gpu, = [t for (p, t), n in threads.items() if n == 'GPU 2 stream 0']
                own, = [t for (p, t), n in threads.items() if n == 'PyTorch profiler']
                self.assertEqual(threads[(self.pid, gpu)], 'GPU 2 stream 0')
                self.assertEqual(threads[(self.pid, self.unseen)],
                                 'thread 598009 (pt_autograd_0)')
                # the workload's process keeps the name dltrace gave it
                orig = {e['pid']: e['args']['name'] for e in self.events
                        if e['name'] == 'process_name'}
                self.assertEqual(procs[self.pid], '%s: %s' % (
                    self.events[0]['args']['hostname'], orig[self.pid]))

                def track(e):
                    if e['pid'] == 2:
                        return self.pid, gpu
                    if e['pid'] == self.pid:
                        return self.pid, e['tid']
                    return self.pid, own

                mine = check_placed(self, trace, merged, self.start, track, 1)
                step1, = [e for e in mine if e['name'] == 'ProfilerStep#1' and
                          e['cat'] == 'user_annotation']
                self.assertEqual(self.start + ns(step1['ts']), self.fetch0 + 1000000)
                # on the training thread's own track: where its fetch regions are
                fetch = [e for e in merged if e.get('cat') == 'marker' and e['name'] == 'fetch']
                self.assertEqual({(e['pid'], e['tid']) for e in fetch}, {(step1['pid'],
                                                                           step1['tid'])})
                record, = [e for e in merged if e['name'] == 'kineto_input']
                self.assertEqual((record['args']['placement'], record['args']['trace'],
                                  record['args']['pid']), ('joined', self.trace, self.pid))
                self.assertEqual(merged[-1]['args']['kineto_placed'],
                                 sum(e['ph'] != 'M' for e in trace['traceEvents']))
                self.assertEqual(merged[-1]['args']['kineto_unplaced'], 0)

    def test_report_gpu_idle(self):
        """The section's figures: those of the merged trace's own events."""
        out = self.path('merged.json')
        merged = self.merged(out)
        res = subprocess.run([DLTRACE, 'report', '--json', '--top', '1000', out],
                             capture_output=True, timeout=300)
        self.assertEqual(res.returncode, 0, res.stderr.decode())
        rep = json.loads(res.stdout)
        app = {f['path'] for f in rep['files']['list']}

        def span(e):
            return ns(e['ts']), ns(e['ts']) + ns(e.get('dur', 0))

        busy = union(span(e) for e in merged if e.get('cat') in BUSY and e['ph'] == 'X')
        fetch = union(span(e) for e in merged if e.get('cat') == 'marker' and
                      e['name'] == 'fetch' and e['tid'] == self.pid)
        reads = union(span(e) for e in merged if e.get('cat') == 'data' and
                      e['name'] in READS and e['args'].get('path') in app)
        steps = sorted((span(e), e['name']) for e in merged if e.get('cat') == 'user_annotation'
                       and e['name'].startswith('ProfilerStep#'))
        want = []
        for (s, e), name in steps:
            segs, at = [], s
            for a, b in busy:
                if b <= s or a >= e:
                    continue
                if a > at:
                    segs.append((at, a))
                at = max(at, b)
            if at < e:
                segs.append((at, e))
            idle = sum(b - a for a, b in segs)
            want.append({'step': name, 'start_ns': s, 'end_ns': e, 'idle_ns': idle,
                         'busy_ns': e - s - idle, 'batch_wait_ns': shared(segs, fetch),
                         'file_read_ns': shared(segs, reads),
                         'explained_ns': shared(segs, union(fetch + reads))})
        g = rep['gpu_idle']
        self.assertEqual([{k: s[k] for k in want[0]} for s in g['steps']], want)
        # the first step begins 1 ms into a fetch that waits 40 ms: its idle time all waits
        self.assertEqual(want[0]['explained_ns'], want[0]['idle_ns'])
        self.assertGreater(want[0]['idle_ns'], 0)
        d, = g['devices']
        self.assertEqual((d['pid'], d['device'], d['steps'], d['batch_from'], d['cache_miss_ns'],
                          d['block_io_ns']), (self.pid, 2, 2, 'fetch', None, None))
        self.assertEqual(d['explained_ns'], sum(s['explained_ns'] for s in want))
