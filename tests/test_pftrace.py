"""Perfetto's protobuf format (.pftrace) on real traces: the same events in
both formats, checked through Debian's protoc against the project's own
.proto (tests/perfetto/dltrace_trace.proto).  The encoder's exact bytes,
every event kind, every byte of a name and `dltrace convert`'s damaged
inputs need no kernel: tests/unit/test_pftrace_codec.py.

- The io_sequence workload (syscalls, fork, thread, exec, exit, and the
  block/uring/mmap/cache layers the kernel offers) traced as JSON and
  converted: protoc decodes the .pftrace, and it holds the same events,
  field by field, as the JSON (names, categories, pids, tids, times to the
  nanosecond, durations, every argument, flows, async requests, counters,
  process and thread names, metadata and summary); JSON -> JSON and
  JSON -> .pftrace -> JSON give the same file byte for byte.
- The same workload traced straight into a .pftrace: its reads and writes
  are those the workload logged, its JSON conversion holds what protoc
  decodes, and `dltrace report` of it equals the report of the JSON.
- Every syscall traced here, in real traces of five workloads, comes back
  from the .pftrace byte for byte.
(Perfetto's complete .proto is not in the repository: tools/check-pftrace-proto.sh.)
"""
import collections
import errno
import gzip
import os
import shutil
import unittest

from dltrace_harness import (load_trace, parse_log, run_command, scratch_dir, traced_syscalls,
                             workload)
from trace_files import convert, differences, pftrace_decode, report_json, same_bytes

DATA_CALLS = ('read', 'write', 'pread64', 'pwrite64', 'readv', 'writev', 'preadv', 'pwritev',
              'preadv2', 'pwritev2')


class SameEventsTest(unittest.TestCase):
    """io_sequence traced twice: into a .json, and straight into a .pftrace."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = scratch_dir()
        cmd = lambda d: [workload('io_sequence'), d, workload('exec_helper')]  # noqa: E731
        for kind in ('json', 'pftrace'):
            data = os.path.join(cls.tmp, 'data-' + kind)
            os.mkdir(data)
            out = os.path.join(cls.tmp, 'live.' + kind)
            res = run_command([], out, cmd(data))
            assert res.returncode == 0, res.stderr.decode()
            setattr(cls, kind + '_path', out)
            setattr(cls, kind + '_log', parse_log(res.stdout.decode()))
            setattr(cls, kind + '_data', data)
        cls.json_events = load_trace(cls.json_path)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.tmp, name)

    def test_json_and_its_pftrace_hold_the_same_events(self):
        out = self.path('from-json.pftrace')
        convert(self.json_path, out)
        json_only, pftrace_only, want = differences(self.json_events, out)
        self.assertEqual(json_only, [])
        self.assertEqual(pftrace_only, [])
        kinds = collections.Counter(e[0] for e in want)
        # every event of the JSON is one canonical event (b/e pairs are one 'A')
        self.assertEqual(sum(kinds.values()) + kinds['A'], len(self.json_events))
        self.assertEqual(kinds['M'], 2)
        self.assertGreater(kinds['X'], 50)
        flows = [e for e in want if e[0] == 'X' and (e[8] or e[9])]
        self.assertTrue(flows, 'no fork arrows in the trace')
        with open(out, 'rb') as f:
            self.assertEqual(f.read(1), b'\x0a')  # Trace.packet

    def test_round_trips_byte_for_byte(self):
        # JSON -> JSON: the reader and the writer undo each other
        again = self.path('again.json')
        convert(self.json_path, again)
        self.assertTrue(same_bytes(self.json_path, again))
        # JSON -> .pftrace -> JSON, and on to .pftrace again
        pf, back, pf2 = self.path('rt.pftrace'), self.path('rt.json'), self.path('rt2.pftrace')
        convert(self.json_path, pf)
        convert(pf, back)
        self.assertTrue(same_bytes(self.json_path, back))
        convert(back, pf2)
        self.assertTrue(same_bytes(pf, pf2))
        # the same through gzip (.pftrace.gz at its default level, 5)
        pgz, jgz = self.path('rt.pftrace.gz'), self.path('rt.json.gz')
        convert(self.json_path, pgz)
        with gzip.open(pgz, 'rb') as f, open(pf, 'rb') as g:
            self.assertEqual(f.read(), g.read())
        convert(pgz, jgz)
        with gzip.open(jgz, 'rb') as f, open(self.json_path, 'rb') as g:
            self.assertEqual(f.read(), g.read())

    def test_pftrace_written_live(self):
        got = pftrace_decode.events(self.pftrace_path)
        # its reads and writes on the workload's files are the ones it logged
        under = self.pftrace_data.encode() + b'/'
        traced = collections.Counter()
        for e in got:
            args = dict(e[7]) if e[0] == 'X' else {}
            if e[0] == 'X' and e[3].decode() in DATA_CALLS and \
                    args.get(b'path', b'').startswith(under):
                ret = args[b'ret']
                if b'errno' in args:
                    ret = -getattr(errno, args[b'errno'].decode())
                traced[(e[3].decode(), args[b'path'], ret)] += 1
        logged = collections.Counter(
            (c['sys'], c['path'].encode(), c['ret']) for c in self.pftrace_log
            if c['sys'] in DATA_CALLS and (c['path'] or '').startswith(self.pftrace_data + '/'))
        self.assertEqual(traced, logged)
        self.assertGreaterEqual(sum(logged.values()), 15)
        # its JSON holds exactly what protoc decodes, and converts back to the same bytes
        as_json, again = self.path('live-as.json'), self.path('live-again.pftrace')
        convert(self.pftrace_path, as_json)
        json_only, pftrace_only, _ = differences(load_trace(as_json), self.pftrace_path)
        self.assertEqual((json_only, pftrace_only), ([], []))
        convert(as_json, again)
        self.assertTrue(same_bytes(self.pftrace_path, again))
        # the summary counts the events the file holds
        summary = [e for e in got if e[0] == 'M' and e[1] == b'dltrace_summary']
        self.assertEqual(len(summary), 1)
        self.assertEqual(dict(summary[0][2])[b'events'], len(load_trace(as_json)))

    def test_report_of_either_format_is_the_same(self):
        as_json = self.path('report-of.json')
        convert(self.pftrace_path, as_json)
        self.assertEqual(report_json(self.pftrace_path), report_json(as_json))
        as_pf = self.path('report-of.pftrace.gz')
        convert(self.json_path, as_pf)
        rep = report_json(as_pf)
        self.assertEqual(rep, report_json(self.json_path))
        self.assertEqual(rep['traces'][0]['events'], len(self.json_events))


class EverySyscallTest(unittest.TestCase):
    """Real traces holding every syscall dltrace traces here: meta_sequence makes each
    syscall of the shared programs (the strace comparison's workload), io_sequence the
    data calls, aio_cases, splice_cases and uring_cases the pipe, AIO and io_uring calls
    (and AIO and io_uring requests).  Each trace comes back from the .pftrace byte for byte, so each syscall's
    arguments are read back by the one reverse of the writer's (event/event_parse.c)."""

    def setUp(self):
        self.tmp = scratch_dir()

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_every_traced_syscall_round_trips(self):
        seen = set()
        for name in ('meta', 'io', 'aio', 'splice', 'uring'):
            data = os.path.realpath(os.path.join(self.tmp, 'data-' + name))
            os.mkdir(data)
            file = os.path.join(data, 'in.bin')  # meta_sequence and io_sequence want data empty
            if name in ('aio', 'splice', 'uring'):
                with open(file, 'wb') as f:
                    f.write(os.urandom(1 << 20))
            cmd = {'meta': [workload('meta_sequence'), data],
                   'io': [workload('io_sequence'), data, workload('exec_helper')],
                   'aio': [workload('aio_cases'), 'buffered', file],
                   'splice': [workload('splice_cases'), file, os.path.join(data, 'out.bin')],
                   'uring': [workload('uring_cases'), 'fixed', file]}[name]
            src = os.path.join(self.tmp, name + '.json')
            res = run_command([], src, cmd)
            self.assertEqual(res.returncode, 0, res.stderr.decode())
            events = load_trace(src)
            seen |= {e['name'] for e in events if e['ph'] == 'X'}
            again, pf, back = (os.path.join(self.tmp, name + x)
                               for x in ('-again.json', '.pftrace', '-back.json'))
            convert(src, again)
            self.assertTrue(same_bytes(src, again), name)
            convert(src, pf)
            convert(pf, back)
            self.assertTrue(same_bytes(src, back), name)
            self.assertEqual(report_json(pf), report_json(src), name)
        # what the round trips above covered: both traces together hold every syscall the
        # shared programs trace on this kernel, and the data calls
        table = traced_syscalls()
        shared = {n for n, s in table.items() if s['present'] and s['program'] == 'dl_enter_shared'}
        self.assertEqual(shared - seen, set())
        self.assertEqual(set(DATA_CALLS) - seen, set())


if __name__ == '__main__':
    unittest.main()
