"""Perfetto's protobuf format (.pftrace): the encoder's exact bytes, and the
same events in both formats, checked through Debian's protoc against the
project's own .proto (tests/perfetto/dltrace_trace.proto).

- pb_writer_test: known messages byte for byte (varints, zigzag, fixed,
  doubles, bytes, nested lengths that grow), and the interning tables.
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
- A file name with every byte 1-255, and text with every character 1-255,
  come back exactly; a string table cleared and refilled keeps every name.
(Perfetto's complete .proto is not in the repository: tools/check-pftrace-proto.sh.)
"""
import collections
import errno
import gzip
import json
import os
import shutil
import subprocess
import sys
import unittest

from dltrace_harness import (DLTRACE, TESTS, helper, load_trace, parse_log, run_command,
                             scratch_dir, traced_syscalls, workload)

sys.path.insert(0, os.path.join(TESTS, 'perfetto'))
import pftrace_decode  # noqa: E402

ENCODE = helper('tests/pftrace_encode')
DATA_CALLS = ('read', 'write', 'pread64', 'pwrite64', 'readv', 'writev', 'preadv', 'pwritev',
              'preadv2', 'pwritev2')


def convert(src, dst, *args):
    res = subprocess.run([DLTRACE, 'convert', '-q'] + list(args) + [src, dst],
                         capture_output=True)
    if res.returncode:
        raise AssertionError('dltrace convert %s %s failed: %s' % (src, dst, res.stderr.decode()))
    return res


def report_json(path):
    res = subprocess.run([DLTRACE, 'report', '--json', path], capture_output=True, check=True)
    rep = json.loads(res.stdout)
    for t in rep['traces']:  # the file's name is the one thing allowed to differ
        t['file'] = ''
        t['warnings'] = [w.replace(path, 'TRACE') for w in t['warnings']]
    return rep


def same_bytes(a, b):
    with open(a, 'rb') as fa, open(b, 'rb') as fb:
        return fa.read() == fb.read()


def differences(json_events, pftrace_path):
    want = collections.Counter(pftrace_decode.canonical_json(json_events))
    got = collections.Counter(pftrace_decode.events(pftrace_path))
    return list((want - got).elements()), list((got - want).elements()), want


def json_lines(path, events):
    """A trace file as dltrace writes one: '[' + one event per line + ']'."""
    with open(path, 'w', encoding='utf-8', errors='surrogateescape') as f:
        f.write('[' + '\n,'.join(json.dumps(e, ensure_ascii=False) for e in events) + '\n]\n')


class EncoderBytesTest(unittest.TestCase):
    def test_known_messages_byte_for_byte(self):
        res = subprocess.run([helper('tests/pb_writer_test')],
                             capture_output=True, text=True)
        self.assertEqual(res.returncode, 0, res.stdout)
        self.assertRegex(res.stdout.splitlines()[-1], r'^\d+ passed, 0 failed$')


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


class ConvertCommandTest(unittest.TestCase):
    def setUp(self):
        self.tmp = scratch_dir()
        self.src = os.path.join(self.tmp, 'small.json')
        events = [{'name': 'dltrace', 'ph': 'M', 'pid': 0, 'tid': 0,
                   'args': {'format': 'dltrace-chrome-1', 'start_wall_ns': 10 ** 18}}]
        for i in range(100):
            events.append({'name': 'read', 'cat': 'data', 'ph': 'X', 'ts': i * 10.0, 'pid': 5,
                           'tid': 5, 'dur': 2.0,
                           'args': {'ret': 10, 'fd': 3, 'path': '/d/f', 'size': 10}})
        events.append({'name': 'dltrace_summary', 'ph': 'M', 'pid': 0, 'tid': 0,
                       'args': {'events': 102, 'duration_ns': 1000000}})
        json_lines(self.src, events)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_convert(self, *args):
        return subprocess.run([DLTRACE, 'convert'] + list(args), capture_output=True)

    def test_usage(self):
        res = self.run_convert('--help')
        self.assertEqual(res.returncode, 0)
        self.assertIn(b'Usage: dltrace convert', res.stdout)
        out = os.path.join(self.tmp, 'u.pftrace')
        for args in ([], [self.src], [self.src, out, 'extra'], ['--bogus', self.src, out],
                     ['--gzip-level', '0', self.src, out]):
            res = self.run_convert(*args)
            self.assertEqual(res.returncode, 2, args)
            self.assertTrue(res.stderr.startswith(b'dltrace convert: '), args)
        self.assertFalse(os.path.exists(out))
        res = self.run_convert(self.src, self.src)
        self.assertEqual(res.returncode, 1)
        self.assertIn(b'is the input', res.stderr)

    def test_bad_and_cut_inputs(self):
        out = os.path.join(self.tmp, 'out.pftrace')
        for data, message in ((b'', b'empty file'), (b'garbage', b'not a dltrace trace'),
                              (b'\x0a\x05\x50\x01\x58\x01\x00', b'not a dltrace trace')):
            bad = os.path.join(self.tmp, 'bad')
            with open(bad, 'wb') as f:
                f.write(data)
            res = self.run_convert(bad, out)
            self.assertEqual(res.returncode, 1, data)
            self.assertIn(message, res.stderr)
            self.assertFalse(os.path.exists(out), data)
        # a trace cut in an event: converted with a warning, its summary says truncated
        with open(self.src, 'rb') as f:
            text = f.read()
        cut = os.path.join(self.tmp, 'cut.json')
        with open(cut, 'wb') as f:
            f.write(text[:text.index(b'\n,', len(text) // 2) + 30])
        res = self.run_convert(cut, out)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn(b'warning: %s: the trace is incomplete' % cut.encode(), res.stderr)
        back = os.path.join(self.tmp, 'back.json')
        convert(out, back)
        events = load_trace(back)
        self.assertTrue(events[-1]['args']['truncated'])
        self.assertEqual(events[-1]['args']['events'], len(events))
        reads = [e for e in events if e['name'] == 'read']
        self.assertEqual(len(reads), text[:text.index(b'\n,', len(text) // 2)].count(b'"read"'))
        # and a .pftrace cut in a packet
        with open(out, 'rb') as f:
            packets = f.read()
        cut_pf = os.path.join(self.tmp, 'cut.pftrace')
        with open(cut_pf, 'wb') as f:
            f.write(packets[:len(packets) // 2])
        res = self.run_convert(cut_pf, os.path.join(self.tmp, 'cut-back.json'))
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn(b'the last event is cut', res.stderr)


def every_kind():
    """One trace with an event of every kind dltrace writes (and some of no known kind)."""
    ev = [{'name': 'dltrace', 'ph': 'M', 'pid': 0, 'tid': 0, 'args': {
        'format': 'dltrace-chrome-1', 'version': '0.1.0', 'kernel': '6.1.0', 'hostname': 'node',
        'target': 'command train', 'layers': 'syscall,mmap,cache,block,uring,vfs',
        'layers_unavailable': 'hdf5: library not found', 'clock': 'CLOCK_MONOTONIC',
        'start_mono_ns': 1000000, 'start_wall_ns': 1700000000000000000,
        'start_wall': '2023-11-14T22:13:20.000000000Z', 'tracer_pid': 9}}]

    def x(name, cat, ts, dur, args, pid=10, tid=10, **more):
        e = {'name': name, 'cat': cat, 'ph': 'X', 'ts': ts, 'pid': pid, 'tid': tid,
             'dur': dur}
        e.update(more)
        e['args'] = args
        ev.append(e)

    def i(name, cat, ts, args, pid=10, tid=10):
        ev.append({'name': name, 'cat': cat, 'ph': 'i', 'ts': ts, 'pid': pid, 'tid': tid,
                   's': 't', 'args': args})

    x('openat', 'metadata', 1.0, 2.5, {'ret': 3, 'fd': 3, 'path': '/d/a.bin',
                                        'flags': 'O_RDWR|O_CREAT', 'mode': '0644', 'ino': 12,
                                        'dev': '254:0', 'fs': 'ext4', 'file_size': 0})
    x('openat', 'metadata', 4.0, 1.0, {'ret': -1, 'errno': 'ENOENT', 'dirfd': 5,
                                        'path': '/d/none', 'flags': 'O_RDONLY'})
    x('pwrite64', 'data', 5.0, 3.25, {'ret': 4096, 'fd': 3, 'path': '/d/a.bin',
                                       'offset': 8192, 'size': 4096})
    x('read', 'data', 9.0, 0.5, {'ret': 10, 'fd': 3, 'path': '/d/a.bin', 'offset': 0,
                                  'size': 10, 'cache_miss_bytes': 4096})
    x('readv', 'data', 9.75, 0.125, {'ret': 600, 'fd': 3, 'path': '/d/a.bin', 'offset': 10,
                                      'size': 600, 'size_partial': True})
    x('lseek', 'metadata', 10.0, 0.25, {'ret': 4096, 'fd': 3, 'path': '/d/a.bin',
                                         'offset': 4096, 'whence': 'SEEK_SET'})
    x('mmap', 'data', 11.0, 1.5, {'ret': 140000000000, 'fd': 3, 'path': '/d/a.bin',
                                   'offset': 0, 'size': 8192, 'prot': 'PROT_READ',
                                   'flags': 'MAP_SHARED', 'addr': '0x20989e6c00'})
    x('newfstatat', 'metadata', 12.0, 0.5, {'ret': 0, 'path': '/d/a.bin', 'flags': '0x100'})
    x('renameat2', 'metadata', 12.5, 0.5, {'ret': 0, 'path': '/d/a.bin',
                                            'new_path': '/d/b.bin', 'flags': '0x1'})
    x('sendfile', 'data', 13.0, 0.5, {'ret': 100, 'fd': 3, 'path': '/d/b.bin',
                                       'out_path': '/d/c.bin', 'offset': 0, 'size': 100,
                                       'out_fd': 4})
    x('read', 'data', 25.0, 0.25, {'ret': 16, 'fd': 5, 'path': 'socket:[4242]',
                                    'socket_family': 'AF_UNIX', 'offset': 0, 'size': 16},
      tid=12)
    x('write', 'data', 25.5, 0.25, {'ret': 8, 'fd': 6, 'path_unknown': True, 'offset': 0,
                                    'size': 8}, tid=12)
    x('sendfile', 'data', 26.0, 0.25, {'ret': 100, 'fd': 3, 'path': '/d/b.bin',
                                       'out_path_unknown': True, 'offset': 0, 'size': 100,
                                       'out_fd': 4}, tid=12)
    x('fcntl', 'metadata', 13.5, 0.25, {'ret': 7, 'fd': 3, 'path': '/d/b.bin',
                                         'cmd': 'F_DUPFD_CLOEXEC', 'minfd': 7})
    x('fsync', 'sync', 14.0, 100.0, {'ret': 0, 'fd': 3, 'path': '/d/b.bin'})
    x('fork', 'process', 15.0, 0.0, {'child_pid': 11}, bind_id=1, flow_out=True)
    x('process_start', 'process', 15.5, 0.0, {'parent_pid': 10}, pid=11, tid=11,
      bind_id=1, flow_in=True)
    x('thread_create', 'process', 16.0, 0.0, {'child_tid': 12}, bind_id=2, flow_out=True)
    x('thread_start', 'process', 16.5, 0.0, {'creator_tid': 10}, tid=12, bind_id=2,
      flow_in=True)
    i('exec', 'process', 17.0, {'file': '/usr/bin/helper', 'cmdline': 'helper /d/b.bin'},
      pid=11, tid=11)
    i('page_fault', 'mmap', 18.0, {'offset': 4096, 'path': '/d/a.bin', 'access': 'read',
                                    'address': '0x7f0012345000', 'ino': 12, 'dev': '254:0'})
    ev.append({'name': 'read', 'cat': 'block', 'ph': 'b', 'ts': 19.0, 'pid': 1073741824,
               'tid': 1073741824, 'id2': {'local': '0x1'},
               'args': {'sector': 2048, 'bytes': 4096, 'dev': '254:0', 'issuer_pid': 10}})
    ev.append({'name': 'read', 'cat': 'block', 'ph': 'e', 'ts': 19.25, 'pid': 1073741824,
               'tid': 1073741824, 'id2': {'local': '0x1'},
               'args': {'latency_us': 250.0, 'error': -5}})
    ev.append({'name': 'throughput_MBps', 'cat': 'block', 'ph': 'C', 'ts': 100.0,
               'pid': 1073741824, 'tid': 1073741824, 'args': {'read': 0.041, 'write': 0.0}})
    ev.append({'name': 'READ', 'cat': 'uring', 'ph': 'b', 'ts': 20.0, 'pid': 10, 'tid': 12,
               'id2': {'local': '0x1'}, 'args': {'fd': 3, 'path': '/d/a.bin', 'offset': 0,
                                                  'len': 4096, 'user_data': '0x2a'}})
    ev.append({'name': 'READ', 'cat': 'uring', 'ph': 'e', 'ts': 21.0, 'pid': 10, 'tid': 12,
               'id2': {'local': '0x1'}, 'args': {'ret': 4096}})
    x('vfs_read', 'vfs', 22.0, 0.5, {'ret': 4096, 'path': '/d/a.bin', 'offset': 0,
                                      'size': 4096, 'ino': 12, 'dev': '254:0', 'fs': 'ext4'})
    i('rw_verify_area', 'vfs', 23.0, {'write': 1, 'path': '/d/a.bin', 'offset': 0,
                                       'size': 4096, 'ino': 12, 'dev': '254:0',
                                       'fs': '0x9123683e'})
    i('vfs_open', 'vfs', 23.5, {'ret': 0, 'path': '/d/a.bin', 'ino': 12, 'dev': '254:0',
                                 'fs': 'ext4', 'file_size': 8192})
    ev.append({'name': 'epoch', 'cat': 'marker', 'ph': 'B', 'ts': 24.0, 'pid': 10, 'tid': 10,
               'args': {'epoch': 0}})
    x('H5Dread', 'hdf5', 24.5, 3.0, {'ret': 0, 'path': '/d/t.h5', 'dataset': '/x'})
    ev.append({'name': 'epoch', 'cat': 'marker', 'ph': 'E', 'ts': 30.0, 'pid': 10, 'tid': 10,
               'args': {}})
    ev.append({'name': 'step', 'cat': 'marker', 'ph': 'B', 'ts': 31.0, 'pid': 10, 'tid': 10,
               'args': {}})
    ev.append({'name': 'step', 'cat': 'marker', 'ph': 'E', 'ts': 31.0, 'pid': 10, 'tid': 10,
               'args': {}})
    i('epoch_done', 'marker', 32.0, {'lr': 0.125, 'tag': 'caf\u00e9', 'big': 2 ** 64 - 1})
    ev.append({'name': 'loss_x1000', 'cat': 'marker', 'ph': 'C', 'ts': 33.0, 'pid': 10,
               'tid': 12, 'args': {'value': 999}})
    ev.append({'name': 'something_else', 'ph': 'M', 'pid': 3, 'tid': 4,
               'args': {'note': 'kept as it was'}})
    i('thread_exit', 'process', 34.0, {'exit_code': 0}, tid=12)
    i('process_exit', 'process', 35.0, {'signal': 9}, pid=11, tid=11)
    for pid, tid, kind, name in ((10, 10, 'process_name', 'train --epochs 2'),
                                 (11, 11, 'process_name', 'helper /d/b.bin'),
                                 (1073741824, 1073741824, 'process_name', 'block vda (254:0)'),
                                 (10, 12, 'thread_name', 'worker'),
                                 (10, 10, 'thread_name', 'train')):
        ev.append({'name': kind, 'ph': 'M', 'pid': pid, 'tid': tid, 'args': {'name': name}})
    ev.append({'name': 'dltrace_summary', 'ph': 'M', 'pid': 0, 'tid': 0, 'args': {
        'events': len(ev) + 1, 'lost_events': 5, 'lost_bytes': 640,
        'lost_by_kind': {'pread64': 3, 'write': 2}, 'duration_ns': 200000,
        'end_wall_ns': 1700000000000200000, 'stop_reason': 'signal', 'capped_events': 7,
        'paths_unknown': 2}})
    return ev


class EveryKindTest(unittest.TestCase):
    def setUp(self):
        self.tmp = scratch_dir()

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_every_event_kind_round_trips(self):
        """Every kind (syscalls and their arguments, forks, exec, exit, faults, block and
        io_uring requests, counters, vfs, spans X/B/E/i/C, names, an event of no known
        kind, lost_by_kind, capped_events, socket_family, path_unknown, paths_unknown) comes back from the .pftrace as it was."""
        src = os.path.join(self.tmp, 'kinds.json')
        json_lines(src, every_kind())
        first = os.path.join(self.tmp, 'first.json')
        convert(src, first)  # dltrace's own formatting of the same events
        events = load_trace(first)
        self.assertEqual(len(events), len(every_kind()))
        for gz in ('', '.gz'):
            pf, back = os.path.join(self.tmp, 'k.pftrace' + gz), os.path.join(self.tmp, 'k.json')
            convert(first, pf)
            convert(pf, back)
            self.assertTrue(same_bytes(first, back), gz)
        summary = events[-1]['args']
        self.assertEqual((summary['lost_by_kind'], summary['capped_events'],
                          summary['paths_unknown']), ({'pread64': 3, 'write': 2}, 7, 2))
        back = load_trace(back)
        self.assertEqual([(e['args'].get('socket_family'), e['args'].get('path_unknown'),
                           e['args'].get('out_path_unknown')) for e in back
                          if e.get('ts') in (25.0, 25.5, 26.0)],
                         [('AF_UNIX', None, None), (None, True, None), (None, None, True)])
        self.assertEqual(summary['events'], len(events))
        other = [e for e in events if e['name'] == 'something_else']
        self.assertEqual(other, [{'name': 'something_else', 'ph': 'M', 'pid': 3, 'tid': 4,
                                  'args': {'note': 'kept as it was'}}])
        report = os.path.join(self.tmp, 'k.pftrace')
        self.assertEqual(report_json(report), report_json(first))


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
        # the precondition: both traces together hold every syscall the shared programs
        # trace on this kernel, and the data calls
        table = traced_syscalls()
        shared = {n for n, s in table.items() if s['present'] and s['program'] == 'dl_enter_shared'}
        self.assertEqual(shared - seen, set())
        self.assertEqual(set(DATA_CALLS) - seen, set())


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
                                    'path_hex': name.hex(), 'flags': 'O_RDONLY'}},
            {'name': 'exec', 'cat': 'process', 'ph': 'i', 'ts': 1.8, 'pid': 7, 'tid': 8,
             's': 't', 'args': {'file': text, 'cmdline': text}},
            {'name': text, 'cat': 'span', 'ph': 'i', 'ts': 2.0, 'pid': 7, 'tid': 8, 's': 't',
             'args': {text: text}},
            {'name': 'dltrace_summary', 'ph': 'M', 'pid': 0, 'tid': 0,
             'args': {'events': 7, 'duration_ns': 3000}},
        ]
        src = os.path.join(self.tmp, 'bytes.json')
        json_lines(src, events)
        out = os.path.join(self.tmp, 'bytes.pftrace')
        convert(src, out)
        got = pftrace_decode.events(out)
        paths = [dict(e[7])[b'path'] for e in got if e[0] == 'X']
        self.assertEqual(paths, [name])
        utf8 = text.encode('utf-8')
        self.assertIn(('P', 7, utf8), got)
        self.assertIn(('T', 7, 8, utf8), got)
        instants = {e[3]: dict(e[6]) for e in got if e[0] == 'i'}
        self.assertEqual(instants[b'exec'], {b'file': utf8, b'cmdline': utf8})
        self.assertEqual(instants[utf8], {utf8: utf8})
        meta = dict(next(e[2] for e in got if e[0] == 'M' and e[1] == b'dltrace'))
        self.assertEqual(meta[b'target'], utf8)
        # and back: JSON that decodes to the same, with the file name's exact bytes in path_hex
        back = os.path.join(self.tmp, 'back.json')
        convert(out, back)
        again = load_trace(back)
        json_only, pftrace_only, _ = differences(again, out)
        self.assertEqual((json_only, pftrace_only), ([], []))
        opened = [e for e in again if e['name'] == 'openat'][0]
        self.assertEqual(bytes.fromhex(opened['args']['path_hex']), name)

    def test_string_table_cleared_and_restarted(self):
        """More distinct strings than the table holds (1,000 here): it is
        cleared, every sequence clears its state, and the names stay right."""
        events = [{'name': 'dltrace', 'ph': 'M', 'pid': 0, 'tid': 0,
                   'args': {'format': 'dltrace-chrome-1'}}]
        for i in range(3000):
            events.append({'name': 'openat', 'cat': 'metadata', 'ph': 'X', 'ts': i * 2.0,
                           'pid': 7, 'tid': 7 + i % 3, 'dur': 1.0,
                           'args': {'ret': 3, 'fd': 3, 'path': '/data/f%06d' % i,
                                    'flags': 'O_RDONLY'}})
        events.append({'name': 'dltrace_summary', 'ph': 'M', 'pid': 0, 'tid': 0,
                       'args': {'events': len(events) + 1}})
        src = os.path.join(self.tmp, 'many.json')
        json_lines(src, events)
        out = os.path.join(self.tmp, 'many.pftrace')
        res = subprocess.run([ENCODE, '-t', '1000', src, out], capture_output=True)
        self.assertEqual(res.returncode, 0, res.stderr.decode())
        back = os.path.join(self.tmp, 'back.json')
        convert(out, back)
        json_only, pftrace_only, _ = differences(load_trace(back), out)
        self.assertEqual((json_only[:3], pftrace_only[:3]), ([], []))
        paths = [dict(e[7])[b'path'] for e in pftrace_decode.events(out) if e[0] == 'X']
        self.assertEqual(paths, [b'/data/f%06d' % i for i in range(3000)])
        text, _ = pftrace_decode.decode_text(out)
        # Full at more than 744 strings (1,000 less a packet's 256).  The
        # metadata interns 17 (its name, 11 keys, 5 distinct string values),
        # the first openat 7 (openat, metadata, ret, fd, path, flags,
        # O_RDONLY: one table for all threads) and each openat its path: the
        # first table takes 744 - 24 + 1 = 721 events, every later one
        # 744 - 7 + 1 = 738, so 3,000 events clear it 4 times.  Each clear
        # restarts the 3 threads' sequences (the metadata's writes nothing
        # after them: the summary needs no state), plus the 4 sequences'
        # first packets.
        self.assertEqual(text.count('sequence_flags: 1\n'), 4 + 4 * 3)


if __name__ == '__main__':
    unittest.main()
