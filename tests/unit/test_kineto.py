"""PyTorch profiler (Kineto) traces with dltrace, without root or BPF: the
dltrace traces are written by hand (synthetic_trace.py), the profiler
traces are the three real ones of tests/data/kineto as they are, or
written here in Kineto's layout (kineto_files.py) when a case must be
constructed.

- dltrace merge of each real trace with a node trace, JSON and .pftrace:
  every profiler event once, at baseTimeNanoseconds + ts on the merged
  timeline to the ns, on its track (the process's thread, "GPU N stream S",
  the "PyTorch profiler" thread), with its args and its flow; its own
  process group and the one-line warning why (no pid of the node trace is
  its).  The counts of the summary add up to the trace's elements.
- The join: a copy of a real trace rewritten (by the test) with the pid,
  tids and base time of the hand-written trace's training process lands on
  that process's tracks; the same copy a day later is another boot: its
  own group, and the warning says why.
- What cannot be placed is counted by category; a trace longer than the
  reader's chunks streams whole; one-line errors for a file that is not a
  profiler trace, has no baseTimeNanoseconds or is cut short.
- The report's GPU idle join on a constructed case (kernel gaps over fetch
  regions and file reads of known times): every figure exact, the same
  from the merged JSON, the merged .pftrace and --kineto; the finding
  gpu_idle_on_data at its threshold and one ns short of it; page-cache
  misses and block I/O when those layers were on; dltrace's step markers
  when the profiler has no steps.
(The join with a traced workload: tests/test_kineto_join.py.)
"""
import gzip
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest
import zlib
from collections import Counter

from dltrace_harness import DLTRACE
from kineto_files import TRACK_BASE, check_placed, fixture, gpu_pids, load, main_pid, names, \
    ns, read_merged, rewrite, wall, write
from synthetic_trace import START_WALL_NS, Trace
from trace_files import convert

MS = 1000000


def ms(v):
    """Milliseconds (given as decimals in the cases) as exact ns."""
    return int(round(v * MS))


def merge(*args, check=True):
    res = subprocess.run([DLTRACE, 'merge'] + list(args), capture_output=True, timeout=120)
    if check and res.returncode:
        raise AssertionError('dltrace merge %s: %s' % (args, res.stderr.decode()))
    return res


def report(*args):
    res = subprocess.run([DLTRACE, 'report', '--json', '--top', '1000', '--ram', '64G'] +
                         list(args), capture_output=True, timeout=120)
    if res.returncode:
        raise AssertionError('dltrace report %s: %s' % (args, res.stderr.decode()))
    return json.loads(res.stdout)


def node_trace(path, duration_ns=50 * MS):
    """A node's trace: process 100 reads a file at 10 ms."""
    t = Trace()
    t.call('read', 'data', 100, 100, 10 * MS, 1000, ret=10, fd=3, path='/data/a', offset=0,
           size=10)
    t.process_name(100, 'python3 train.py')
    return t.write(path, duration_ns)


class KinetoCase(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix='dltrace-kineto-')

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.dir, name)

    def check_placed(self, trace, merged, origin, track, index):
        return check_placed(self, trace, merged, origin, track, index)


class FixtureMergeTest(KinetoCase):
    """Each real trace merged with a node's trace: another host, its own group."""

    def merged(self, name, out):
        node = node_trace(self.path('node.json'))
        res = merge(node, fixture(name), '-o', self.path(out))
        return node, res.stderr.decode()

    def check_fixture(self, name, out):
        trace = load(fixture(name))
        node, err = self.merged(name, out)
        path = self.path(out)
        if '.pftrace' in out:
            convert(path, self.path('back.json'))
            path = self.path('back.json')
        merged = read_merged(path)
        pid = main_pid(trace)
        gpus = gpu_pids(trace)
        label = 'PyTorch profiler %s' % (
            'rank %d' % trace['distributedInfo']['rank'] if 'distributedInfo' in trace
            else name)
        # its own group, with one line saying why
        self.assertEqual(err.splitlines()[0],
                         'dltrace merge: warning: %s: merged as its own process group: no '
                         'process of the dltrace traces has its pid %d' % (fixture(name), pid))
        self.assertEqual([line for line in err.splitlines()[1:]
                          if not line.startswith('dltrace merge: wrote ')], [])
        threads, procs = names(merged)
        # the added tracks: one thread per (device, stream), one for the profiler's own
        added = {}
        for e in trace['traceEvents']:
            if e['ph'] == 'M':
                continue
            if e['pid'] in gpus:
                added.setdefault(('GPU', e['pid'], e['tid']), None)
            elif not isinstance(e['pid'], int):
                added.setdefault(('profiler',), None)
        tids = {}
        for (p, t), n in threads.items():
            if t >= TRACK_BASE:
                self.assertEqual(p, pid)
                m = re.fullmatch(r'GPU (\d+) stream (\d+)', n)
                tids[('GPU', int(m.group(1)), int(m.group(2))) if m else ('profiler',)] = t
                self.assertTrue(m or n == 'PyTorch profiler', n)
        self.assertEqual(set(tids), set(added))
        self.assertEqual(len(set(tids.values())), len(tids))

        def track(e):
            if e['pid'] in gpus:
                return pid, tids[('GPU', e['pid'], e['tid'])]
            if not isinstance(e['pid'], int):
                return pid, tids[('profiler',)]
            return e['pid'], e['tid']

        mine = self.check_placed(trace, merged, START_WALL_NS, track, 1)
        # its processes: named after the profiler, the pid kept (no node uses it)
        cpu = {e['pid'] for e in trace['traceEvents']
               if e['ph'] != 'M' and isinstance(e['pid'], int) and e['pid'] not in gpus}
        kname = {e['pid']: e['args']['name'] for e in trace['traceEvents']
                 if e['ph'] == 'M' and e['name'] == 'process_name'}
        self.assertEqual({p: procs[p] for p in cpu},
                         {p: '%s: %s (pid %d)' % (label, kname[p], p) if p in kname
                          else '%s: pid %d' % (label, p) for p in cpu})
        # the counts: every element is placed, a name, or counted as not placed
        summary = merged[-1]['args']
        meta = sum(e['ph'] == 'M' for e in trace['traceEvents'])
        self.assertEqual((summary['kineto_events'], summary['kineto_placed'],
                          summary['kineto_names'], summary['kineto_unplaced']),
                         (len(trace['traceEvents']), len(trace['traceEvents']) - meta, meta, 0))
        self.assertEqual(len(mine), len(trace['traceEvents']) - meta)
        self.assertEqual(merged[0]['args']['profiler_traces'], 1)
        record, = [e for e in merged if e['name'] == 'kineto_input']
        self.assertEqual((record['args']['placement'], record['args']['pid'],
                          record['args']['base_time_ns']),
                         ('own group', pid, trace['baseTimeNanoseconds']))
        self.assertEqual(summary['duration_ns'],
                         max(wall(trace, e) + ns(e.get('dur', 0))
                             for e in trace['traceEvents'] if e['ph'] != 'M') - START_WALL_NS)
        return merged

    def test_rocm_training_loop(self):
        for out in ('rocm.json', 'rocm.pftrace'):
            with self.subTest(out=out):
                merged = self.check_fixture('rocm_minitoy_train.json.gz', out)
                flows = Counter(e['id'] for e in merged if e['ph'] in 'sf')
                # ac2g and fwdbwd: 37 and 8 ends, the ids of both kinds apart
                self.assertEqual(sum(flows.values()), 45)
                self.assertEqual({i >> 44 & 0xff for i in flows}, {0, 1})

    def test_cuda_triton_kernel(self):
        for out in ('cuda.json', 'cuda.pftrace.gz'):
            with self.subTest(out=out):
                merged = self.check_fixture('cuda_triton_kernel.json.gz', out)
                kernel, = [e for e in merged if e.get('cat') == 'kernel']
                threads, _ = names(merged)
                self.assertEqual(threads[(kernel['pid'], kernel['tid'])], 'GPU 0 stream 7')
                self.assertEqual(kernel['args']['blocks per SM'], '0.009259')
                self.assertEqual(kernel['args']['grid'], '[1, 1, 1]')  # as the file has it

    def test_cpu_only_rank(self):
        for out in ('rank.json', 'rank.pftrace'):
            with self.subTest(out=out):
                merged = self.check_fixture('cpu_only_rank34.json.gz', out)
                _, procs = names(merged)
                self.assertEqual(procs[1074],
                                 'PyTorch profiler rank 34: pyper:trainer:8:2 (pid 1074)')


class JoinTest(KinetoCase):
    """A copy of the ROCm trace, rewritten with the pid, tids and base time of
    the hand-written trace's process 100 (its training thread 100; the
    profiler's autograd thread 598009 becomes 101, a thread the node trace
    never showed): its CPU ops on that process's tracks."""

    def setUp(self):
        super().setUp()
        self.src = load(fixture('rocm_minitoy_train.json.gz'))
        first = min(ns(e['ts']) for e in self.src['traceEvents'] if 'ts' in e)
        self.node = node_trace(self.path('node.json'))
        self.base = START_WALL_NS + 5 * MS - first  # its first event 5 ms into the trace

    def test_joined_to_the_process(self):
        copy = rewrite(fixture('rocm_minitoy_train.json.gz'), self.path('rocm.json'),
                       {597913: 100}, {597913: 100, 598009: 101}, self.base)
        trace = load(copy)
        for out in ('j.json', 'j.pftrace'):
            with self.subTest(out=out):
                res = merge('-q', self.node, copy, '-o', self.path(out))
                self.assertEqual(res.stderr.decode(), '')  # joined: no warning
                path = self.path(out)
                if out.endswith('.pftrace'):
                    convert(path, self.path('back.json'))
                    path = self.path('back.json')
                merged = read_merged(path)
                threads, procs = names(merged)
                gpu = {t for (p, t), n in threads.items() if n == 'GPU 2 stream 0'}
                self.assertEqual(len(gpu), 1)
                gpu = gpu.pop()
                self.assertEqual(threads[(100, gpu)], 'GPU 2 stream 0')
                self.assertEqual(threads[(100, 101)], 'thread 598009 (pt_autograd_0)')
                # the node's process keeps its name: the profiler names no process
                self.assertEqual(procs, {100: 'node1: python3 train.py'})
                own, = [t for (p, t), n in threads.items() if n == 'PyTorch profiler']

                def track(e):
                    if e['pid'] == 2:
                        return 100, gpu
                    if e['pid'] == 100:
                        return 100, e['tid']
                    return 100, own

                self.check_placed(trace, merged, START_WALL_NS, track, 1)
                record, = [e for e in merged if e['name'] == 'kineto_input']
                self.assertEqual((record['args']['placement'], record['args']['trace'],
                                  record['args']['pid']), ('joined', self.node, 100))
                # the node's own events as they were
                read, = [e for e in merged if e.get('cat') == 'data']
                self.assertEqual((read['pid'], read['tid'], ns(read['ts'])),
                                 (100, 100, 10 * MS))

    def test_another_boot(self):
        """The same pid a day later: not the traced process."""
        copy = rewrite(fixture('rocm_minitoy_train.json.gz'), self.path('later.json'),
                       {597913: 100}, {597913: 100, 598009: 101}, self.base + 86400 * 10**9)
        trace = load(copy)
        res = merge(self.node, copy, '-o', self.path('l.json'))
        first = min(wall(trace, e) for e in trace['traceEvents'] if e['ph'] != 'M')
        self.assertEqual(
            res.stderr.decode().splitlines()[0],
            'dltrace merge: warning: %s: merged as its own process group: its pid 100 is a '
            'process of %s, but its events (2023-11-15T22:13:20Z to 2023-11-15T22:13:20Z) '
            'are outside that trace (2023-11-14T22:13:20Z to 2023-11-14T22:13:20Z): another '
            'boot or host' % (copy, self.node))
        merged = read_merged(self.path('l.json'))
        self.assertEqual(first - START_WALL_NS, 86400 * 10**9 + 5 * MS)
        _, procs = names(merged)
        # its pid 100 is taken: a fresh one, and the name says which it was
        fresh = [p for p, n in procs.items() if n.endswith('(pid 100)')]
        self.assertEqual(len(fresh), 1)
        self.assertGreaterEqual(fresh[0], 0x60000000)


class UnplacedTest(KinetoCase):
    def test_counted_by_category(self):
        base = START_WALL_NS + 1 * MS
        events = [
            {'ph': 'X', 'cat': 'cpu_op', 'name': 'ok', 'pid': 100, 'tid': 100, 'ts': 0,
             'dur': 1000},
            {'ph': 't', 'cat': 'ac2g', 'name': 'step', 'pid': 100, 'tid': 100, 'ts': 10,
             'id': 1},
            {'ph': 'b', 'cat': 'async', 'name': 'a', 'pid': 100, 'tid': 100, 'ts': 20, 'id': 2},
            {'ph': 'e', 'cat': 'async', 'name': 'a', 'pid': 100, 'tid': 100, 'ts': 30, 'id': 2},
            {'ph': 'X', 'cat': 'cpu_op', 'name': 'no time', 'pid': 100, 'tid': 100},
            {'ph': 'X', 'cat': 'cpu_op', 'name': 'negative', 'pid': 100, 'tid': 100, 'ts': 40,
             'dur': -5},
            {'ph': 's', 'cat': 'ac2g', 'name': 'no id', 'pid': 100, 'tid': 100, 'ts': 50},
            {'ph': 'P', 'name': 'sample', 'pid': 100, 'tid': 100, 'ts': 60},
            [1, 2],
            {'name': 'no phase', 'pid': 100, 'tid': 100, 'ts': 70},
            {'ph': 'M', 'name': 'process_name', 'pid': 100, 'tid': 0,
             'args': {'name': 'python3'}},
        ]
        k = write(self.path('k.json'), events, base)
        node = node_trace(self.path('node.json'))
        res = merge('-q', node, k, '-o', self.path('m.json'))
        merged = read_merged(self.path('m.json'))
        summary = merged[-1]['args']
        self.assertEqual({k: v for k, v in summary.items() if k.startswith('kineto_')},
                         {'kineto_events': 11, 'kineto_placed': 1, 'kineto_names': 1,
                          'kineto_unplaced': 9, 'kineto_unplaced.ac2g': 2,
                          'kineto_unplaced.async': 2, 'kineto_unplaced.cpu_op': 2,
                          'kineto_unplaced.(none)': 1, 'kineto_unplaced.(malformed)': 2})
        self.assertEqual(
            res.stderr.decode().splitlines()[-1],
            'dltrace merge: warning: %s: 9 profiler events could not be placed (by category: '
            'ac2g 2, async 2, cpu_op 2, (none) 1, (malformed) 2) (counted in the merged '
            'summary)' % k)
        ok, = [e for e in merged if e['name'] == 'ok']
        self.assertEqual((ok['pid'], ok['tid'], ns(ok['ts'])), (100, 100, 1 * MS))

    def test_args_beyond_what_an_event_holds(self):
        args = {'a%02d' % i: i for i in range(40)}
        k = write(self.path('k.json'), [{'ph': 'X', 'cat': 'cpu_op', 'name': 'wide',
                                         'pid': 100, 'tid': 100, 'ts': 0, 'dur': 10,
                                         'args': args}], START_WALL_NS)
        merge(node_trace(self.path('node.json')), k, '-o', self.path('m.json'))
        merged = read_merged(self.path('m.json'))
        wide, = [e for e in merged if e['name'] == 'wide']
        self.assertEqual(wide['args'], {'a%02d' % i: i for i in range(32)})
        self.assertEqual(merged[-1]['args']['kineto_args_dropped'], 8)


class StreamingTest(KinetoCase):
    def test_longer_than_the_reader_reads_at_once(self):
        """40,000 events (about 6 MiB, events cut across the reader's 1 MiB
        reads and gzip's chunks): every one placed, in order of the file."""
        events = [{'ph': 'X', 'cat': 'cpu_op', 'name': 'op%d' % i, 'pid': 100, 'tid': 100,
                   'ts': 1000 * i, 'dur': 500, 'args': {'Input Dims': [[i, 128], [128]],
                                                        'pad': 'x' * (i % 97)}}
                  for i in range(40000)]
        k = write(self.path('big.json'), events, START_WALL_NS + 1 * MS)
        self.assertGreater(os.path.getsize(k), 6 << 20)
        with open(k, 'rb') as f, gzip.open(self.path('big.json.gz'), 'wb') as g:
            g.write(f.read())
        node = node_trace(self.path('node.json'), 200 * MS)
        for src in (k, self.path('big.json.gz')):
            with self.subTest(src=src):
                merge(node, src, '-o', self.path('m.json'))
                ops = [e for e in read_merged(self.path('m.json')) if e.get('cat') == 'cpu_op']
                self.assertEqual([(e['name'], ns(e['ts']), ns(e['dur'])) for e in ops],
                                 [('op%d' % i, 1 * MS + 1000 * i, 500) for i in range(40000)])
                self.assertEqual(ops[12345]['args'], {'Input Dims': '[[12345, 128], [128]]',
                                                      'pad': 'x' * (12345 % 97)})


class ErrorsTest(KinetoCase):
    """A file that is not a profiler trace, has no base time, or is cut short:
    one line, exit status 1, nothing written."""

    def expect(self, data, message, name='bad.json'):
        path = self.path(name)
        with open(path, 'wb') as f:
            f.write(data)
        node = node_trace(self.path('node.json'))
        out = self.path('never.json')
        res = merge(node, path, '-o', out, check=False)
        self.assertEqual(res.returncode, 1)
        self.assertEqual(res.stderr.decode(), 'dltrace merge: %s: %s\n' % (path, message))
        self.assertFalse(os.path.exists(out))
        res = subprocess.run([DLTRACE, 'report', '--kineto', path, node], capture_output=True)
        self.assertEqual((res.returncode, res.stderr.decode()),
                         (1, 'dltrace report: %s: %s\n' % (path, message)))

    def test_not_a_profiler_trace(self):
        self.expect(b'{"displayTimeUnit": "ms"}\n',
                    'not a PyTorch profiler trace: a JSON object without traceEvents')
        self.expect(b'{"traceEvents": {}}\n',
                    'not a PyTorch profiler trace: its traceEvents is not an array')
        self.expect(b'{"traceEvents" [], "baseTimeNanoseconds": 1}\n',
                    'not a PyTorch profiler trace: a member without a value')

    def test_no_base_time(self):
        text = open(fixture('rocm_minitoy_train.json.gz'), 'rb').read()
        text = re.sub(rb',\s*"baseTimeNanoseconds": \d+', b'', gzip.decompress(text))
        self.expect(text, 'no baseTimeNanoseconds: the profiler trace does not say the wall '
                          'clock its times count from, so they cannot be placed')

    def test_cut_short(self):
        text = gzip.decompress(open(fixture('cuda_triton_kernel.json.gz'), 'rb').read())
        events = text.index(b'"traceEvents"')
        inside = text.index(b'"cat": "kernel"')  # in the kernel's element
        after = text.index(b'"traceName"')
        self.expect(text[:inside], 'truncated PyTorch profiler trace: it ends inside '
                    'traceEvents, after %d events and before baseTimeNanoseconds'
                    % self.elements_in(text[:inside]))
        self.expect(text[:after], 'truncated PyTorch profiler trace: it ends before its '
                    "closing '}', after 71 events and before baseTimeNanoseconds")
        self.expect(text.rstrip()[:-1], 'truncated PyTorch profiler trace: it ends before '
                    "its closing '}', after 71 events")
        self.expect(text[:events + 5], "truncated PyTorch profiler trace: it ends before its "
                    "closing '}', after 0 events and before baseTimeNanoseconds")
        gz = gzip.compress(text)
        self.expect(gz[:len(gz) // 2], 'truncated PyTorch profiler trace: the gzip stream '
                    'ends early; it ends inside traceEvents, after %d events and before '
                    'baseTimeNanoseconds' % self.elements_in(gz[:len(gz) // 2]),
                    name='cut.json.gz')

    def elements_in(self, data):
        """Elements of traceEvents whole in a cut file (plain, or a cut gzip stream)."""
        if data[:2] == b'\x1f\x8b':
            data = zlib.decompressobj(31).decompress(data)
        text = data.decode('utf-8', 'replace')
        body = text[text.index('"traceEvents"'):]
        depth, n, instr, esc = 0, 0, False, False
        for ch in body[body.index('[') + 1:]:
            if instr:
                esc, instr = (False, instr) if esc else (ch == '\\', ch != '"')
                continue
            if ch == '"':
                instr = True
            elif ch in '{[':
                depth += 1
            elif ch in '}]':
                depth -= 1
                n += depth == 0
        return n

    def test_report_names_a_profiler_trace_given_as_a_trace(self):
        res = subprocess.run([DLTRACE, 'report', fixture('cpu_only_rank34.json.gz')],
                             capture_output=True)
        self.assertEqual((res.returncode, res.stderr.decode()), (
            1, 'dltrace report: %s: not a dltrace trace: a JSON object, as a PyTorch profiler '
            'trace is (give one with --kineto FILE, or merge it with the trace: dltrace '
            'merge)\n' % fixture('cpu_only_rank34.json.gz')))


class GpuIdleTest(KinetoCase):
    """Steps of 10 ms (ProfilerStep#1-3 from 10 ms), kernels on GPU 0 stream 7
    leaving idle [12, 15], [21, 25] and [31, 39] ms; the training thread's
    fetch regions [12.5, 14] and [21, 23]; a loader process reads /data/a.bin
    over [13, 16] and [32, 33], /data/b.bin over [24, 26]:

      step 1: idle 3 ms; batch 1.5; reads 2 ([13, 15]); explained [12.5, 15] 2.5
      step 2: idle 4 ms; batch 2;   reads 1 ([24, 25]); explained 3
      step 3: idle 8 ms; batch 0;   reads 1;            explained 1
      files: a.bin 3 ms, b.bin 1 ms."""

    STEPS = [(10, 20), (20, 30), (30, 40)]
    KERNELS = [(10, 12), (15, 20), (20, 21), (25, 30), (30, 31), (39, 40)]
    FETCH = [(12.5, 14), (21, 23)]
    READS = [(13, 16, '/data/a.bin'), (24, 26, '/data/b.bin'), (32, 33, '/data/a.bin')]

    def case(self, steps=STEPS, kernels=KERNELS, fetch=FETCH, reads=READS, layers='syscall',
             misses=(), blocks=(), profiler_steps=True):
        t = Trace(layers=layers)
        t.fork(100, 100, 200, 1 * MS)
        for s, e in fetch:
            t.marker('fetch', 100, 100, ms(s), ms(e) - ms(s))
        if not profiler_steps:
            for i, (s, e) in enumerate(steps):
                t.marker('step', 100, 100, ms(s), ms(e) - ms(s), step=i + 1)
        for s, e, f in reads:
            extra = {'cache_miss_bytes': 4096} if (s, e) in misses else \
                {'cache_miss_bytes': 0} if 'cache' in layers else {}
            t.call('read', 'data', 200, 200, ms(s), ms(e) - ms(s), ret=4096, fd=3,
                   path=f, offset=0, size=4096, **extra)
        for i, (s, e) in enumerate(blocks):
            dev = 0x40000001
            t.events.append({'name': 'read', 'cat': 'block', 'ph': 'b', 'ts': s * 1000,
                             'pid': dev, 'tid': dev, 'id2': {'local': '0x%x' % (i + 1)},
                             'args': {'sector': 8 * i, 'bytes': 4096, 'dev': '8:0',
                                      'issuer_pid': 200}})
            t.events.append({'name': 'read', 'cat': 'block', 'ph': 'e', 'ts': e * 1000,
                             'pid': dev, 'tid': dev, 'id2': {'local': '0x%x' % (i + 1)},
                             'args': {'latency_us': (e - s) * 1000}})
        t.process_name(100, 'python3 train.py')
        t.process_name(200, 'python3 train.py')
        node = t.write(self.path('node.json'), 50 * MS)
        ev = []
        if profiler_steps:
            ev += [{'ph': 'X', 'cat': 'user_annotation', 'name': 'ProfilerStep#%d' % (i + 1),
                    'pid': 100, 'tid': 100, 'ts': ms(s), 'dur': ms(e) - ms(s),
                    'args': {'External id': i}} for i, (s, e) in enumerate(steps)]
        for s, e in kernels:  # each launched from the training thread just before it runs
            ev.append({'ph': 'X', 'cat': 'cuda_runtime', 'name': 'cudaLaunchKernel', 'pid': 100,
                       'tid': 100, 'ts': ms(s) - 1000, 'dur': 500, 'args': {}})
            ev.append({'ph': 'X', 'cat': 'kernel', 'name': 'k', 'pid': 0, 'tid': 7, 'ts': ms(s),
                       'dur': ms(e) - ms(s), 'args': {'device': 0, 'stream': 7}})
        k = write(self.path('k.json'), ev, START_WALL_NS)
        return node, k

    def gpu(self, node, k):
        """The section, the same from the merged JSON, the merged .pftrace and --kineto."""
        merge(node, k, '-o', self.path('m.json'))
        merge(node, k, '-o', self.path('m.pftrace'))
        a = report(self.path('m.json'))
        self.assertEqual(report(self.path('m.pftrace'))['gpu_idle'], a['gpu_idle'])
        self.assertEqual(report('--kineto', k, node)['gpu_idle'], a['gpu_idle'])
        return a

    def test_constructed_case(self):
        rep = self.gpu(*self.case())
        g = rep['gpu_idle']
        self.assertEqual((g['steps_from'], g['cache_layer'], g['block_layer']),
                         ('ProfilerStep', False, False))
        self.assertEqual(g['devices'], [{
            'pid': 100, 'device': 0, 'steps': 3, 'window_ns': 30 * MS, 'busy_ns': 15 * MS,
            'idle_ns': 15 * MS, 'explained_ns': 6500000, 'unexplained_ns': 8500000,
            'explained_share': 6.5 / 15, 'batch_wait_ns': 3500000, 'batch_from': 'fetch',
            'file_read_ns': 4 * MS, 'cache_miss_ns': None, 'block_io_ns': None}])
        self.assertEqual([(s['step'], s['index'], s['start_ns'], s['end_ns'], s['busy_ns'],
                           s['idle_ns'], s['batch_wait_ns'], s['file_read_ns'],
                           s['explained_ns'], s['unexplained_ns']) for s in g['steps']],
                         [('ProfilerStep#1', 1, 10 * MS, 20 * MS, 7 * MS, 3 * MS, 1500000,
                           2 * MS, 2500000, 500000),
                          ('ProfilerStep#2', 2, 20 * MS, 30 * MS, 6 * MS, 4 * MS, 2 * MS, MS,
                           3 * MS, MS),
                          ('ProfilerStep#3', 3, 30 * MS, 40 * MS, 2 * MS, 8 * MS, 0, MS, MS,
                           7 * MS)])
        self.assertEqual([s['step'] for s in g['most_unexplained']],
                         ['ProfilerStep#3', 'ProfilerStep#2', 'ProfilerStep#1'])
        self.assertEqual([s['step'] for s in g['most_explained']],
                         ['ProfilerStep#2', 'ProfilerStep#1', 'ProfilerStep#3'])
        self.assertEqual(g['files'], [{'path': '/data/a.bin', 'idle_ns': 3 * MS},
                                      {'path': '/data/b.bin', 'idle_ns': MS}])
        f, = [f for f in rep['findings'] if f['id'] == 'gpu_idle_on_data']
        self.assertEqual(f['level'], 'warn')
        self.assertEqual(f['metrics'], {'steps': 3, 'idle_ns': 15 * MS,
                                        'explained_ns': 6500000, 'share': 6.5 / 15,
                                        'batch_wait_ns': 3500000, 'file_read_ns': 4 * MS,
                                        'pid': 100, 'device': 0})
        self.assertEqual(f['evidence'][1:], [
            'the most idle time explained by data waits: ProfilerStep#2, 3.0 ms of 4.0 ms idle',
            'the most idle time no data wait explains: ProfilerStep#3, 7.0 ms of 8.0 ms idle',
            'files whose reads overlap the idle time: /data/a.bin (3.0 ms); /data/b.bin '
            '(1.0 ms)'])
        # the terminal and the HTML page say the same
        node = self.path('node.json')
        text = subprocess.run([DLTRACE, 'report', self.path('m.json')], capture_output=True,
                              text=True).stdout
        self.assertIn('  GPU 0 of pid 100: 3 steps of 30.0 ms, busy 15.0 ms, idle 15.0 ms; data '
                      'waits overlap 6.5 ms of it (43%)\n', text)
        self.assertIn('  most unexplained idle time: ProfilerStep#3 7.0 ms, ProfilerStep#2 '
                      '1.0 ms, ProfilerStep#1 500.0 us\n', text)
        subprocess.run([DLTRACE, 'report', '-q', '--html', self.path('r.html'), node, '--kineto',
                        self.path('k.json')], check=True, capture_output=True)
        html = open(self.path('r.html')).read()
        self.assertIn('<section id="gpu-idle">', html)
        self.assertEqual(html.count('<tr><td class="l">ProfilerStep#'), 3)

    def test_threshold(self):
        """Explained exactly 20% of the idle time fires, one ns less does not;
        2 steps never do.  Three steps whose kernels leave 25,999,996 ns idle:
        20% is 5,199,999.2 ns, so a fetch region of 5,200,000 ns in the last
        step's idle time fires, and one of 5,199,999 ns does not."""
        steps = [(10, 20), (20, 30), (30, 36)]
        kernels = [(10, 10.000001), (20, 20.000001), (30, 30.000002)]
        # idle: [10.000001, 20], [20.000001, 30], [30.000002, 36] ms
        idle = 2 * 9999999 + 5999998
        want = idle // 5 + (idle % 5 > 0)  # the least explained ns that is >= 20%
        for explained, fires in ((want, True), (want - 1, False)):
            with self.subTest(explained=explained):
                node, k = self.case(steps=steps, kernels=kernels,
                                    fetch=[(30.000002, 30.000002 + explained / MS)], reads=[])
                rep = self.gpu(node, k)
                d, = rep['gpu_idle']['devices']
                self.assertEqual((d['idle_ns'], d['explained_ns']), (idle, explained))
                self.assertEqual('gpu_idle_on_data' in [f['id'] for f in rep['findings']],
                                 fires)
        node, k = self.case(steps=steps[:2], kernels=kernels, fetch=[(10.5, 19.5),
                                                                      (20.5, 29.5)], reads=[])
        rep = self.gpu(node, k)
        self.assertEqual(rep['gpu_idle']['devices'][0]['steps'], 2)
        self.assertNotIn('gpu_idle_on_data', [f['id'] for f in rep['findings']])

    def test_cache_misses_and_block_io(self):
        """The cache and block layers on: the read [13, 16] missed the page cache,
        and a block request over [11, 13.5] (idle from 12 ms: 1.5 ms in step 1)."""
        node, k = self.case(layers='syscall,cache,block', misses=[(13, 16)],
                            blocks=[(11, 13.5)])
        g = self.gpu(node, k)['gpu_idle']
        self.assertEqual((g['cache_layer'], g['block_layer']), (True, True))
        self.assertEqual([(s['cache_miss_ns'], s['block_io_ns'], s['explained_ns'])
                          for s in g['steps']],
                         [(2 * MS, 1500000, 3 * MS), (0, 0, 3 * MS), (0, 0, MS)])
        self.assertEqual((g['devices'][0]['cache_miss_ns'], g['devices'][0]['block_io_ns']),
                         (2 * MS, 1500000))

    def test_dltrace_step_markers(self):
        """No ProfilerStep: dltrace's step regions are the steps."""
        g = self.gpu(*self.case(profiler_steps=False))['gpu_idle']
        self.assertEqual(g['steps_from'], 'markers')
        self.assertEqual([(s['step'], s['idle_ns'], s['explained_ns']) for s in g['steps']],
                         [('step 1', 3 * MS, 2500000), ('step 2', 4 * MS, 3 * MS),
                          ('step 3', 8 * MS, MS)])

    def test_no_profiler_trace_no_section(self):
        node, _ = self.case()
        self.assertIsNone(report(node)['gpu_idle'])


if __name__ == '__main__':
    unittest.main()
