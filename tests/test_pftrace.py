"""Perfetto's protobuf format (.pftrace): the encoder's exact bytes, and the
writer checked through Debian's protoc against the project's own .proto
(tests/perfetto/dltrace_trace.proto).

- pb_writer_test: known messages byte for byte (varints, zigzag, fixed,
  doubles, bytes, nested lengths that grow), and the interning tables.
- A real trace of the io_sequence workload (syscalls, fork, thread, exec,
  exit, and the block/uring/mmap/cache layers the kernel offers), written
  as JSON by dltrace, goes through the .pftrace writer (the event list of
  tests/perfetto/pftrace_events.py, encoded by tests/perfetto/
  pftrace_encode); protoc decodes it, and it must hold the same events,
  field by field, as the JSON: names, categories, pids, tids, times to the
  nanosecond, durations, every argument, flows, async requests, counters,
  process and thread names, metadata and summary.
- A file name with every byte 1-255, and text arguments with every
  character 1-255, come back exactly.
- With PERFETTO_PROTO set to Perfetto's complete perfetto_trace.proto (not
  part of this repository), the same file also decodes against it with no
  field it does not know.
"""
import collections
import gzip
import json
import os
import shutil
import subprocess
import sys
import unittest

from dltrace_harness import BUILD, TESTS, scratch_dir, trace_command, workload

sys.path.insert(0, os.path.join(TESTS, 'perfetto'))
import pftrace_decode  # noqa: E402

ENCODE = os.path.join(BUILD, 'tests', 'pftrace_encode')
EVENTS = os.path.join(TESTS, 'perfetto', 'pftrace_events.py')


def encode(json_path, out, level=0, table=0):
    ev = out + '.events'
    subprocess.run([sys.executable, EVENTS, json_path, ev], check=True)
    res = subprocess.run([ENCODE, '-z', str(level), '-t', str(table), ev, out],
                         capture_output=True)
    if res.returncode:
        raise AssertionError('pftrace_encode failed: %s' % res.stderr.decode())
    return res.stderr.decode()


def differences(json_events, pftrace_path):
    want = collections.Counter(pftrace_decode.canonical_json(json_events))
    got = collections.Counter(pftrace_decode.events(pftrace_path))
    return list((want - got).elements()), list((got - want).elements()), want


class EncoderBytesTest(unittest.TestCase):
    def test_known_messages_byte_for_byte(self):
        res = subprocess.run([os.path.join(BUILD, 'tests', 'pb_writer_test')],
                             capture_output=True, text=True)
        self.assertEqual(res.returncode, 0, res.stdout)
        self.assertRegex(res.stdout.splitlines()[-1], r'^\d+ passed, 0 failed$')


class SameEventsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = scratch_dir()
        data = os.path.join(cls.tmp, 'data')
        os.mkdir(data)
        cls.json_path = os.path.join(cls.tmp, 'trace.json')
        _, cls.events = trace_command([workload('io_sequence'), data, workload('exec_helper')],
                                      cls.json_path)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def check_same(self, out, level=0):
        encode(self.json_path, out, level)
        json_only, pftrace_only, want = differences(self.events, out)
        self.assertEqual(json_only, [])
        self.assertEqual(pftrace_only, [])
        return want

    def test_io_sequence_same_events_both_formats(self):
        want = self.check_same(os.path.join(self.tmp, 'trace.pftrace'))
        kinds = collections.Counter(e[0] for e in want)
        # every event of the JSON is one canonical event (b/e pairs are one 'A')
        self.assertEqual(sum(kinds.values()) + kinds['A'], len(self.events))
        self.assertEqual(kinds['M'], 2)
        self.assertGreater(kinds['X'], 50)
        flows = [e for e in want if e[0] == 'X' and (e[8] or e[9])]
        self.assertTrue(flows, 'no fork arrows in the trace')

    def test_gzip(self):
        self.check_same(os.path.join(self.tmp, 'trace.pftrace.gz'), level=1)
        with gzip.open(os.path.join(self.tmp, 'trace.pftrace.gz'), 'rb') as f:
            self.assertEqual(f.read(1), b'\x0a')  # Trace.packet

    @unittest.skipUnless(os.environ.get('PERFETTO_PROTO'),
                         "PERFETTO_PROTO: Perfetto's perfetto_trace.proto, not in the repository")
    def test_perfetto_complete_proto(self):
        out = os.path.join(self.tmp, 'full.pftrace')
        encode(self.json_path, out)
        text, _ = pftrace_decode.decode_text(out, os.environ['PERFETTO_PROTO'],
                                             'perfetto.protos.Trace')
        self.assertIn('trusted_packet_sequence_id', text)
        self.assertIn('debug_annotation_string_values', text)


class EveryByteTest(unittest.TestCase):
    def setUp(self):
        self.tmp = scratch_dir()

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_bytes_1_to_255_survive(self):
        name = bytes(range(1, 256))
        text = ''.join(map(chr, range(1, 256)))
        events = [
            {'name': 'dltrace', 'ph': 'M', 'pid': 0, 'tid': 0,
             'args': {'format': 'dltrace-chrome-1', 'target': text, 'start_mono_ns': 5}},
            {'name': 'process_name', 'ph': 'M', 'pid': 7, 'tid': 7, 'args': {'name': text}},
            {'name': 'thread_name', 'ph': 'M', 'pid': 7, 'tid': 8, 'args': {'name': text}},
            {'name': 'openat', 'cat': 'metadata', 'ph': 'X', 'ts': 1.5, 'pid': 7, 'tid': 8,
             'dur': 0.001, 'args': {'ret': -1, 'errno': 'ENOENT',
                                    'path': name.decode('utf-8', 'replace'),
                                    'path_hex': name.hex(), 'flags': text}},
            {'name': text, 'cat': 'span', 'ph': 'i', 'ts': 2.0, 'pid': 7, 'tid': 8, 's': 't',
             'args': {text: text}},
            {'name': 'dltrace_summary', 'ph': 'M', 'pid': 0, 'tid': 0,
             'args': {'events': 6, 'duration_ns': 3000}},
        ]
        path = os.path.join(self.tmp, 'bytes.json')
        with open(path, 'w') as f:
            json.dump(events, f)
        out = os.path.join(self.tmp, 'bytes.pftrace')
        encode(path, out)
        json_only, pftrace_only, _ = differences(events, out)
        self.assertEqual((json_only, pftrace_only), ([], []))
        got = pftrace_decode.events(out)
        paths = [dict(e[7])[b'path'] for e in got if e[0] == 'X']
        self.assertEqual(paths, [name])
        self.assertIn(('P', 7, text.encode('utf-8')), got)


    def test_string_table_cleared_and_restarted(self):
        """More distinct strings than the table holds (1,000 here): it is
        cleared, every sequence clears its state, and the names stay right."""
        events = [{'name': 'dltrace', 'ph': 'M', 'pid': 0, 'tid': 0, 'args': {'format': 'x'}}]
        for i in range(3000):
            events.append({'name': 'openat', 'cat': 'metadata', 'ph': 'X', 'ts': i * 2.0,
                           'pid': 7, 'tid': 7 + i % 3, 'dur': 1.0,
                           'args': {'ret': 3, 'path': '/data/f%06d' % i, 'flags': 'O_RDONLY'}})
        events.append({'name': 'dltrace_summary', 'ph': 'M', 'pid': 0, 'tid': 0,
                       'args': {'events': len(events) + 1}})
        path = os.path.join(self.tmp, 'many.json')
        with open(path, 'w') as f:
            json.dump(events, f)
        out = os.path.join(self.tmp, 'many.pftrace')
        encode(path, out, table=1000)
        json_only, pftrace_only, _ = differences(events, out)
        self.assertEqual((json_only[:3], pftrace_only[:3]), ([], []))
        text, _ = pftrace_decode.decode_text(out)
        # Full at more than 744 strings (1,000 less a packet's 256): the first
        # 736 events (9 strings + one path each), then every 738 (7 + one
        # each): 4 clears.  Each clear restarts the 3 threads' sequences; the
        # metadata's restarts once, for the summary.  Plus the 4 first packets.
        self.assertEqual(text.count('sequence_flags: 1\n'), 4 + 4 * 3 + 1)


if __name__ == '__main__':
    unittest.main()
