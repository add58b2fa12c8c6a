"""dltrace merge: traces of two "hosts" (real dltrace runs in UTS namespaces
named node1 and node2, the second started later) become one trace that
passes the strict validator, keeps every event of every input, moves each
input's times by its recorded wall-clock start to the nanosecond, gives
every process and thread an id no other input uses, and names processes
after their host.  Also: the same trace twice (every id collides), a trace
cut short, output files, the report on the two node traces, the inputs'
lost records by kind added up, and .pftrace inputs and output (typed
events: the same events as the text merge).  Inputs that are not dltrace
traces and usage: tests/unit/test_report_inputs.py.
"""
import ctypes
import gzip
import json
import os
import re
import subprocess
import time
import unittest
from collections import Counter
from decimal import Decimal

from dltrace_harness import DLTRACE, TraceTest, load_trace, run_command, workload

CLONE_NEWUTS = 0x04000000
PID_MAX_LIMIT = 4194304
ID_ARGS = ('child_pid', 'child_tid', 'parent_pid', 'creator_tid', 'issuer_pid')


def as_host(name):
    """preexec_fn: run the child in a new UTS namespace whose hostname is name."""
    def enter():
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.unshare(CLONE_NEWUTS) or libc.sethostname(name.encode(), len(name)):
            raise OSError(ctypes.get_errno(), 'unshare/sethostname')
    return enter


def read_exact(path):
    """Events of a trace line by line, numbers with a fraction as Decimal (exact ns)."""
    opener = gzip.open if open(path, 'rb').read(2) == b'\x1f\x8b' else open
    events = []
    with opener(path, 'rt', encoding='utf-8') as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith(('[{', ',{')):
                events.append(json.loads(line[1:], parse_float=Decimal))
    return events


def ns(ts):
    return int(Decimal(ts) * 1000)


def convert(src, dst):
    subprocess.run([DLTRACE, 'convert', '-q', src, dst], check=True, timeout=300)


def merge(args, check=True):
    res = subprocess.run([DLTRACE, 'merge'] + list(args), capture_output=True, timeout=300)
    if check and res.returncode != 0:
        raise AssertionError('dltrace merge %s failed (%d): %s' %
                             (args, res.returncode, res.stderr.decode()))
    return res


class MergeTest(TraceTest):
    @classmethod
    def setUpClass(cls):
        """Two runs of io_sequence (fork, thread, exec, every syscall) as node1 and node2."""
        cls.shared = TraceTest()
        cls.shared.setUp()
        cls.inputs = []
        for n, (host, name) in enumerate((('node1', 'node1.json'), ('node2', 'node2.json.gz'))):
            if n:
                time.sleep(0.5)  # the second trace starts later
            data = cls.shared.path('data-%s' % host)
            os.makedirs(data)
            out = cls.shared.path(name)
            res = run_command([], out, [workload('io_sequence'), data, workload('exec_helper')],
                              preexec_fn=as_host(host))
            assert res.returncode == 0, res.stderr.decode()
            cls.inputs.append(out)

    @classmethod
    def tearDownClass(cls):
        cls.shared.tearDown()

    def check_merged(self, inputs, merged_path, added_names=0):
        """Every input event is in the merged trace, in input order, rewritten exactly."""
        load_trace(merged_path)  # the strict Perfetto rules
        ins = [read_exact(p) for p in inputs]
        out = read_exact(merged_path)
        starts = [e[0]['args']['start_wall_ns'] for e in ins]
        origin = min(starts)
        head, summary = out[0]['args'], out[-1]['args']
        self.assertEqual(head['format'], 'dltrace-chrome-1')
        self.assertEqual(head['start_wall_ns'], origin)
        self.assertEqual([(t['file'], t['hostname'], t['start_wall_ns'], t['shift_ns'])
                          for t in head['traces']],
                         [(p, e[0]['args']['hostname'], s, s - origin)
                          for p, e, s in zip(inputs, ins, starts)])
        self.assertEqual(summary['events'], len(out))
        self.assertEqual(summary['inputs'], len(inputs))
        self.assertEqual(summary['input_events'], sum(len(e) for e in ins))
        self.assertEqual(summary['lost_events'], sum(e[-1]['args']['lost_events'] for e in ins))
        # every event of every input, in order, then the names the merge added
        body = out[1:-1]
        self.assertEqual(len(body), sum(len(e) - 2 for e in ins) + added_names)
        ids, pos = {}, 0
        for i, events in enumerate(ins):
            host = events[0]['args']['hostname']
            shift = starts[i] - origin
            idmap = {}

            def mapped(old, new):
                self.assertEqual(idmap.setdefault(old, new), new, (i, old))
                return old

            for orig in events[1:-1]:
                got = body[pos]
                pos += 1
                want = dict(orig)
                if 'ts' in orig:
                    self.assertEqual(ns(got['ts']), ns(orig['ts']) + shift)
                    want['ts'] = got['ts']
                for key in ('pid', 'tid'):
                    want[key] = got[key]
                    mapped(orig[key], got[key])
                if 'bind_id' in orig:
                    want['bind_id'] = orig['bind_id'] * len(inputs) + i
                args = dict(orig.get('args', {}))
                for key in ID_ARGS:
                    if key in args:
                        mapped(args[key], got['args'][key])
                        args[key] = got['args'][key]
                if orig['name'] == 'process_name':
                    renamed = got['pid'] != orig['pid'] and orig['pid'] < PID_MAX_LIMIT
                    args['name'] = '%s: %s%s' % (host, args['name'],
                                                 ' (pid %d)' % orig['pid'] if renamed else '')
                if 'args' in orig:
                    want['args'] = args
                self.assertEqual(got, want)
            # an id keeps its value unless an earlier input has that value
            earlier = set(ids)
            for old, new in idmap.items():
                if old:
                    self.assertNotIn(new, ids, 'id %d of input %d is taken' % (new, i))
                    ids[new] = (i, old)
                    self.assertEqual(new == old, old not in earlier, (i, old, new))
                    if new != old:
                        self.assertGreaterEqual(new, 0x60000000)
        return out

    def test_two_hosts_recorded_separately(self):
        merged = self.path('job.json.gz')
        res = merge(self.inputs + ['-o', merged])
        self.assertRegex(res.stderr.decode(), r'^dltrace merge: wrote \d+ events of 2 traces')
        out = self.check_merged(self.inputs, merged)
        self.assertEqual(out[0]['args']['hostname'], 'node1,node2')
        # the second trace started later: its events are moved by the difference
        shifts = [t['shift_ns'] for t in out[0]['args']['traces']]
        self.assertEqual(shifts[0], 0)
        self.assertGreater(shifts[1], 500000000)
        # every process is named after its host, and so every event belongs to one host
        procs = {e['pid']: e['args']['name'] for e in out if e['name'] == 'process_name'}
        self.assertEqual({e['pid'] for e in out[1:-1]} - set(procs), set())
        hosts = Counter(procs[e['pid']].split(': ', 1)[0] for e in out[1:-1])
        self.assertEqual(hosts, {'node%d' % (i + 1): len(read_exact(p)) - 2
                                 for i, p in enumerate(self.inputs)})

    def test_the_same_trace_twice(self):
        """Every id of the second copy is taken by the first: all get new ones."""
        merged = self.path('twice.json')
        merge([self.inputs[0], self.inputs[0], '-o', merged])
        out = self.check_merged([self.inputs[0]] * 2, merged)
        half = (len(out) - 2) // 2
        first, second = out[1:1 + half], out[1 + half:-1]
        self.assertTrue(all(a['pid'] < 0x60000000 for a in first))
        self.assertTrue(all(b['pid'] >= 0x60000000 for b in second if b['pid']))
        self.assertEqual([ns(a['ts']) for a in first if 'ts' in a],
                         [ns(b['ts']) for b in second if 'ts' in b])
        names = [b['args']['name'] for b in second if b['name'] == 'process_name']
        self.assertTrue(names and all(n.startswith('node1: ') for n in names))
        self.assertTrue(any(re.search(r' \(pid \d+\)$', n) for n in names))

    def test_output_to_standard_output_plain_and_gzip(self):
        plain, packed = self.path('m.json'), self.path('m.json.gz')
        merge(self.inputs + ['-o', plain, '-q'])
        merge(self.inputs + ['-o', packed, '--gzip-level', '6', '-q'])
        res = merge(self.inputs + ['-o', '-'])
        with open(plain, 'rb') as f:
            text = f.read()
        self.assertEqual(res.stdout, text)
        with gzip.open(packed, 'rb') as f:
            self.assertEqual(f.read(), text)
        self.assertTrue(text.endswith(b'}}\n]\n'))

    def test_output_file_is_private_and_never_a_symlink(self):
        out = self.path('private.json')
        env = dict(os.environ, SUDO_UID='65534', SUDO_GID='65534')
        res = subprocess.run([DLTRACE, 'merge', '-q', '-o', out] + self.inputs, env=env,
                             capture_output=True)
        self.assertEqual(res.returncode, 0, res.stderr)
        st = os.stat(out)
        self.assertEqual((st.st_mode & 0o777, st.st_uid, st.st_gid), (0o600, 65534, 65534))
        link = self.path('link.json')
        os.symlink(self.path('elsewhere.json'), link)
        res = merge(self.inputs + ['-o', link], check=False)
        self.assertEqual(res.returncode, 1)
        self.assertIn(b'is a symbolic link', res.stderr)
        self.assertFalse(os.path.exists(self.path('elsewhere.json')))

    def test_truncated_input_is_merged_with_a_warning(self):
        with open(self.inputs[0], 'rb') as f:
            text = f.read()
        cut = self.path('cut.json')
        middle = text.index(b'\n,{', len(text) // 2)
        with open(cut, 'wb') as f:
            f.write(text[:middle + 20])  # ends inside an event: no names, no summary
        whole = read_exact(self.inputs[0])
        merged = self.path('with-cut.json')
        res = merge([self.inputs[1], cut, '-o', merged])
        err = res.stderr.decode()
        self.assertIn('dltrace merge: warning: %s: the trace is incomplete (' % cut, err)
        self.assertIn("no closing ']'", err)
        out = load_trace(merged)
        kept = text[:middle].count(b'\n,{')  # the complete events after the header
        self.assertEqual(out[-1]['args']['truncated_inputs'], 1)
        self.assertEqual(out[-1]['args']['input_events'],
                         len(read_exact(self.inputs[1])) + 1 + kept)
        # the cut trace's processes are still named after their host
        ids = {e['pid'] for e in out[1:-1]} - {0}
        named = {e['pid']: e['args']['name'] for e in out if e['name'] == 'process_name'}
        self.assertEqual(ids - set(named), set())
        added = [n for n in named.values() if re.fullmatch(r'node1: pid \d+', n)]
        self.assertTrue(added)
        self.assertEqual(len(out), len(read_exact(self.inputs[1])) - 2 + kept + len(added) + 2)
        self.assertLess(kept, len(whole))

    def test_pftrace_inputs_and_output(self):
        """Typed events give the same events as the text rewrite of the same traces."""
        pfs = [self.path('node1.pftrace'), self.path('node2.pftrace.gz')]
        for src, dst in zip(self.inputs, pfs):
            convert(src, dst)
        text, typed, typed_pf = self.path('text.json'), self.path('typed.json'), \
            self.path('typed.pftrace')
        merge(self.inputs + ['-o', text, '-q'])
        res = merge(pfs + ['-o', typed])
        self.assertRegex(res.stderr.decode(), r'^dltrace merge: wrote \d+ events of 2 traces')
        load_trace(typed)
        a, b = read_exact(text), read_exact(typed)
        listed = [e['args'] for e in b if e['name'] == 'dltrace_input']
        self.assertEqual([e for e in b[1:-1] if e['name'] != 'dltrace_input'], a[1:-1])
        head, summary = b[0]['args'], b[-1]['args']
        self.assertEqual((head['hostname'], head['target'], head['start_wall_ns']),
                         ('node1,node2', 'merge of 2 traces', a[0]['args']['start_wall_ns']))
        self.assertEqual([(t['file'], t['hostname'], t['shift_ns']) for t in listed],
                         [(p, t['hostname'], t['shift_ns'])
                          for p, t in zip(pfs, a[0]['args']['traces'])])
        self.assertEqual(summary['events'], len(b))
        for key in ('lost_events', 'duration_ns', 'end_wall_ns', 'stop_reason'):
            self.assertEqual(summary[key], a[-1]['args'][key], key)
        # into a .pftrace: the same events again
        merge(pfs + ['-o', typed_pf, '-q'])
        back = self.path('typed-back.json')
        convert(typed_pf, back)
        with open(back, 'rb') as f, open(typed, 'rb') as g:
            self.assertEqual(f.read(), g.read())

    def test_lost_by_kind_is_added_up(self):
        """The inputs' summaries as tracers that lost records write them; the merged
        summary adds up lost_by_kind, kind by kind, in both paths."""
        losses = ({'pread64': 5, 'write': 2}, {'pread64': 3})
        edited = []
        for i, (src, kinds) in enumerate(zip(self.inputs, losses)):
            opener = gzip.open if src.endswith('.gz') else open
            with opener(src, 'rt', encoding='utf-8') as f:
                lines = f.read().split('\n')
            at = max(k for k, l in enumerate(lines) if '"dltrace_summary"' in l)
            summary = json.loads(lines[at][1:])
            summary['args'].update(lost_events=sum(kinds.values()), lost_by_kind=kinds)
            lines[at] = ',' + json.dumps(summary, separators=(',', ':'))
            out = self.path('lossy%d.json' % i)
            with open(out, 'w', encoding='utf-8') as f:
                f.write('\n'.join(lines))
            edited.append(out)
        text = self.path('lossy-text.json')
        merge(edited + ['-o', text, '-q'])
        self.assertEqual(read_exact(text)[-1]['args']['lost_by_kind'],
                         {'pread64': 8, 'write': 2})
        self.assertEqual(read_exact(text)[-1]['args']['lost_events'], 10)
        pfs = [self.path('lossy%d.pftrace' % i) for i in range(2)]
        for src, dst in zip(edited, pfs):
            convert(src, dst)
        typed, back = self.path('lossy.pftrace'), self.path('lossy-back.json')
        merge(pfs + ['-o', typed, '-q'])
        convert(typed, back)
        self.assertEqual(read_exact(back)[-1]['args']['lost_by_kind'],
                         {'pread64': 8, 'write': 2})

    def test_report_on_the_node_traces_shows_both_hosts(self):
        res = subprocess.run([DLTRACE, 'report', '--json'] + self.inputs, capture_output=True)
        self.assertEqual(res.returncode, 0, res.stderr)
        rep = json.loads(res.stdout)
        self.assertEqual(rep['job']['hosts'], ['node1', 'node2'])
        self.assertEqual([h['hostname'] for h in rep['balance']['hosts']], ['node1', 'node2'])
        res = subprocess.run([DLTRACE, 'report'] + self.inputs, capture_output=True)
        text = res.stdout.decode()
        self.assertIn('2 traces, 2 hosts', text)
        self.assertIn('host node1', text)
        self.assertIn('host node2', text)


if __name__ == '__main__':
    unittest.main()
