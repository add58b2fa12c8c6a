"""The .pftrace codec and trace files with no kernel: the protobuf writer's
exact bytes (tests/perfetto/pb_writer_test.c); an event of every kind
dltrace writes, a file name with every byte 1-255 and text with every
character 1-255 through JSON -> .pftrace -> JSON, byte for byte (protoc,
against tests/perfetto/dltrace_trace.proto, decodes what the .pftrace holds);
a string table cleared and refilled; `dltrace convert`'s usage and bad and
cut inputs; both readers (JSON and .pftrace, plain and gzip) on a trace cut
after each of its bytes and with each byte flipped (tests/unit/trace_damage.c):
a warning or a one-line error, never a crash.  The same for real traces of
every syscall is in tests/test_pftrace.py (BPF)."""
import gzip
import json
import os
import re
import shutil
import subprocess
import unittest

from dltrace_harness import DLTRACE, helper, load_trace, scratch_dir
from test_report_synthetic import small_job
from trace_files import convert, differences, json_lines, pftrace_decode, report_json, same_bytes

ENCODE = helper('tests/pftrace_encode')


def need_protoc(test):
    """protoc decodes the .pftrace (Debian's protobuf-compiler: make deps-test installs it)."""
    if not shutil.which('protoc'):
        test.skipTest('protoc not installed (Debian protobuf-compiler; make deps-test)')


class EncoderBytesTest(unittest.TestCase):
    def test_known_messages_byte_for_byte(self):
        res = subprocess.run([helper('tests/pb_writer_test')],
                             capture_output=True, text=True)
        self.assertEqual(res.returncode, 0, res.stdout)
        self.assertRegex(res.stdout.splitlines()[-1], r'^\d+ passed, 0 failed$')


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
        'layers_unavailable': 'hdf5: library not found',
        'layers_attach': 'syscall: syscall tracepoints; vfs: fentry/fexit',
        'clock': 'CLOCK_MONOTONIC',
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


class EveryByteTest(unittest.TestCase):
    def setUp(self):
        self.tmp = scratch_dir()

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_bytes_1_to_255_survive(self):
        need_protoc(self)
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
        self.assertIn(('P', 7, utf8, frozenset()), got)
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
        need_protoc(self)
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


# What the readers may say of a file they cannot read: each a line that says why.
READ_ERRORS = (r'empty file', r'empty file \(no events\)',
               r"not a dltrace trace \(it does not start with '\['\)",
               r'not a dltrace trace \((no dltrace metadata in it|a packet that does not decode|'
               r'neither JSON nor a Perfetto \.pftrace)\)',
               r"not a dltrace trace: (a Perfetto trace|a Chrome trace) without dltrace's "
               r"metadata( event)?",
               r"not a dltrace trace: events before dltrace's metadata",
               r"not a dltrace trace: the first line does not hold dltrace's metadata event",
               r'not a dltrace trace: the first line is not an event \([^)]+\)',
               r'not a dltrace trace: more than one event on the first line',
               r"unsupported trace format '[^']*' \(this dltrace reads dltrace-chrome-1\)",
               r'corrupt gzip data \([^)]+\)', r'truncated gzip file: no data could be read')


class DamagedTraceTest(unittest.TestCase):
    """The small job of test_report_synthetic in each format, damaged every way."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = scratch_dir()
        cls.json = small_job(os.path.join(cls.tmp, 'job.json'))
        cls.files = [cls.json]
        for name in ('job.json.gz', 'job.pftrace', 'job.pftrace.gz'):
            cls.files.append(os.path.join(cls.tmp, name))
            convert(cls.json, cls.files[-1])

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def damage(self, path):
        res = subprocess.run([helper('tests/trace_damage'), path],
                             capture_output=True, text=True, errors='replace', timeout=300)
        self.assertEqual((res.returncode, res.stderr), (0, ''), res.stdout[-3000:])
        lines = res.stdout.splitlines()
        size = os.path.getsize(path)
        self.assertEqual(lines[0], 'events 36')
        m = re.fullmatch(r'prefixes (\d+): (\d+) whole, (\d+) cut, (\d+) errors; read from '
                         r'(\d+) bytes on', lines[1])
        self.assertTrue(m, lines[1])
        prefixes, whole, cut, errors, readable = map(int, m.groups())
        # every cut from the metadata's end on is read, with a warning; before it, an
        # error; whole: only plain JSON but for its last newline
        whole_want = 1 if path.endswith('.json') else 0
        self.assertEqual((prefixes, whole, cut, errors),
                         (size, whole_want, size - readable - whole_want, readable))
        m = re.fullmatch(r'flips (\d+): (\d+) read, (\d+) errors', lines[2])
        self.assertEqual(int(m.group(1)), size)
        messages = [re.fullmatch(r'error (\d+): (.*)', l).group(2) for l in lines[3:]]
        for text in messages:
            self.assertTrue(any(re.fullmatch(r, text) for r in READ_ERRORS), text)
        return readable, messages

    def test_json_cut_and_flipped(self):
        readable, messages = self.damage(self.json)
        with open(self.json, 'rb') as f:
            first = f.readline()
        self.assertEqual(readable, len(first) - 1)  # the metadata line, but for its newline
        self.assertIn('empty file', messages)

    def test_pftrace_cut_and_flipped(self):
        readable, messages = self.damage(self.files[2])
        with open(self.files[2], 'rb') as f:
            data = f.read()
        # the packets: key 0x0a, a varint length, the packet; the metadata event is in one
        at, ends = 0, []
        while at < len(data):
            self.assertEqual(data[at], 0x0a)
            at, n, shift = at + 1, 0, 0
            while True:
                n |= (data[at] & 0x7f) << shift
                shift, at = shift + 7, at + 1
                if data[at - 1] < 0x80:
                    break
            ends.append((at + n, b'dltrace-chrome-1' in data[at:at + n]))
            at += n
        self.assertEqual(readable, next(end for end, meta in ends if meta))
        self.assertIn('not a dltrace trace (no dltrace metadata in it)', messages)

    def test_gzip_cut_and_flipped(self):
        for path in (self.files[1], self.files[3]):
            with self.subTest(path):
                _, messages = self.damage(path)
                self.assertIn('truncated gzip file: no data could be read', messages)
                self.assertTrue([t for t in messages if t.startswith('corrupt gzip data')])

    def test_a_foreign_format_is_quoted(self):
        """The format a trace names is quoted in the error: a newline or an escape
        sequence in it does not reach the terminal."""
        with open(self.json, encoding='utf-8') as f:
            text = f.read()
        bad = os.path.join(self.tmp, 'format.json')
        with open(bad, 'w', encoding='utf-8') as f:
            f.write(text.replace('"format":"dltrace-chrome-1"',
                                 '"format":"x\\n\\u001b[31m\\u00e9\'\\\\' + 'y' * 40 + '"', 1))
        res = subprocess.run([DLTRACE, 'report', bad], capture_output=True)
        self.assertEqual((res.returncode, res.stdout), (1, b''))
        self.assertEqual(res.stderr.decode(), "dltrace report: %s: unsupported trace format "
                         "'x\\x0a\\x1b[31m\\xc3\\xa9\\x27\\x5c%s...' (this dltrace reads "
                         "dltrace-chrome-1)\n" % (bad, 'y' * 29))

    def test_report_of_a_cut_pftrace(self):
        """dltrace report: a .pftrace cut in a packet, and its gzip cut short."""
        with open(self.files[2], 'rb') as f:
            data = f.read()
        for name, cut, why in (
                ('cut.pftrace', data[:len(data) // 2], 'the last event is cut'),
                ('cut.pftrace.gz', gzip.compress(data)[:len(gzip.compress(data)) * 2 // 3],
                 'the gzip stream ends early')):
            path = os.path.join(self.tmp, name)
            with open(path, 'wb') as f:
                f.write(cut)
            res = subprocess.run([DLTRACE, 'report', '--json', path], capture_output=True,
                                 text=True)
            self.assertEqual(res.returncode, 0, res.stderr)
            self.assertEqual(len(res.stderr.splitlines()), 1, res.stderr)
            self.assertIn('dltrace report: warning: %s: the trace is incomplete (' % path,
                          res.stderr)
            self.assertIn(why, res.stderr)
            [tr] = json.loads(res.stdout)['traces']
            self.assertFalse(tr['complete'])
            self.assertTrue(0 < tr['events'] < 36, tr['events'])
        # a byte of the metadata packet's length flipped: an error, one line
        bad = os.path.join(self.tmp, 'bad.pftrace')
        with open(bad, 'wb') as f:
            f.write(data[:1] + bytes([data[1] ^ 0x7f]) + data[2:])
        res = subprocess.run([DLTRACE, 'report', bad], capture_output=True, text=True)
        self.assertEqual((res.returncode, res.stdout), (1, ''))
        self.assertEqual(len(res.stderr.splitlines()), 1, res.stderr)
        self.assertRegex(res.stderr, r'^dltrace report: %s: not a dltrace trace' % re.escape(bad))


if __name__ == '__main__':
    unittest.main()
