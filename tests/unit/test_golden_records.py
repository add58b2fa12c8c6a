"""The decoder on ring records saved by `dltrace --save-records`
(tests/unit/golden, made by `make golden-records`), with no kernel:
tests/unit/golden_decode feeds each file of records through the decoder
(offline: /proc is never read) into the JSON writer.

- Each decodes to its committed trace, byte for byte (made with the same
  records; when they were recorded, that trace was checked equal to the one
  dltrace wrote while tracing, but for the metadata and the summary).
- And what each holds is what its workload logged it did: io_sequence's
  data calls with a fork, a thread and an exec (every call, per thread, with
  its fd, path, offset, size and result); meta_sequence's metadata, hint and
  sync calls and fcntl (every argument); native AIO requests (aio_cases) and
  io_uring requests on a registered file (uring_cases) with their results;
  a socketpair, a pipe and an eventfd named with the inodes fstat gave
  (fd_kinds).

The records change when their layout does (bpf/dltrace_events.h): then this
test fails and says to regenerate them.
"""
import json
import os
import re
import shutil
import struct
import subprocess
import tempfile
import unittest
from collections import defaultdict

from dltrace_harness import ROOT, errno_name, helper, load_trace, parse_log

GOLDEN = os.path.join(ROOT, 'tests', 'unit', 'golden')
DECODE = helper('tests/golden_decode')
NAMES = ('io', 'meta', 'aio', 'uring', 'fd')
WORK = '/tmp/dltrace-golden'  # where tests/unit/golden/record.sh ran the workloads


def magic_of_the_code():
    with open(os.path.join(ROOT, 'user', 'io', 'record_file.h')) as f:
        return re.search(r'#define RECORD_FILE_MAGIC "(\w+)\\n"', f.read()).group(1)


def magic_of(path):
    with open(path, 'rb') as f:
        return f.read(8).rstrip(b'\n').decode('ascii', 'replace')


def regenerate(name, why):
    return ('%s.rec: %s.  If the record layout changed (bpf/dltrace_events.h; the record '
            'files are %s, the code reads %s), or the decoder\'s output on purpose, '
            'regenerate the golden records as root with `make golden-records` and review the '
            'diff of tests/unit/golden.' %
            (name, why, magic_of(os.path.join(GOLDEN, name + '.rec')), magic_of_the_code()))


def slices(events, names=None):
    """The syscall slices, in time order, optionally of some syscalls only."""
    out = [e for e in events if e.get('ph') == 'X' and
           e.get('cat') in ('data', 'metadata', 'sync', 'hint') and
           (names is None or e['name'] in names)]
    out.sort(key=lambda e: e['ts'])
    return out


class GoldenRecordsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix='dltrace-golden-')
        cls.decoded, cls.runs = {}, {}
        for name in NAMES:
            with open(os.path.join(GOLDEN, name + '.json'), 'rb') as f:
                head = f.readline()
            # the trace's origin as it was when recording
            start = json.loads(head[1:])['args']['start_mono_ns']
            out = os.path.join(cls.tmp, name + '.json')
            cls.runs[name] = subprocess.run(
                [DECODE, '--start', str(start), os.path.join(GOLDEN, name + '.rec'), out],
                capture_output=True, text=True, timeout=60)
            cls.decoded[name] = out

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def events(self, name):
        self.assertEqual(self.runs[name].returncode, 0,
                         regenerate(name, 'golden_decode failed: ' + self.runs[name].stderr))
        return load_trace(self.decoded[name])

    def log(self, name):
        with open(os.path.join(GOLDEN, name + '.log')) as f:
            return f.read()

    def test_each_decodes_to_its_trace(self):
        for name in NAMES:
            with self.subTest(name):
                run = self.runs[name]
                self.assertEqual(run.returncode, 0, regenerate(name, 'golden_decode failed: ' +
                                                              run.stderr.strip()))
                with open(os.path.join(GOLDEN, name + '.json'), 'rb') as f:
                    want = f.read().splitlines()
                with open(self.decoded[name], 'rb') as f:
                    got = f.read().splitlines()
                self.assertRegex(run.stdout, r'^records [1-9]\d* events %d\n$' % (len(want) - 1))
                for i, (w, g) in enumerate(zip(want, got)):
                    if w != g:
                        self.fail(regenerate(name, 'line %d of its trace differs:\n  want %s\n'
                                             '  got  %s' % (i + 1, w[:300].decode(errors='replace'),
                                                            g[:300].decode(errors='replace'))))
                self.assertEqual(len(got), len(want), regenerate(name, 'a trace of %d lines, '
                                                                 'not %d' % (len(got), len(want))))

    def test_io_sequence_calls(self):
        """Every call io_sequence logged, in each thread's order, field by field."""
        events = self.events('io')
        log = parse_log(self.log('io'))
        under = WORK + '/io'
        expected = defaultdict(list)
        for c in log:
            expected[(c['pid'], c['tid'])].append(c)
        got = defaultdict(list)
        pids = {c['pid'] for c in log}
        for e in slices(events):
            path = e['args'].get('path')
            if e['pid'] in pids and (path == under or (path or '').startswith(under + '/') or
                                     (path is None and e['name'] in ('close', 'close_range'))):
                got[(e['pid'], e['tid'])].append(e)
        self.assertEqual(sorted(got), sorted(expected))
        self.assertEqual(len(pids), 3)  # the workload, its child, the exec'd helper
        for key, calls in expected.items():
            self.assertEqual([e['name'] for e in got[key]], [c['sys'] for c in calls], key)
            for c, e in zip(calls, got[key]):
                a, what = e['args'], '%s %s' % (c['sys'], c['path'])
                if c['ret'] < 0:
                    self.assertEqual((a['ret'], a['errno']), (-1, errno_name(-c['ret'])), what)
                else:
                    self.assertEqual(a['ret'], c['ret'], what)
                self.assertEqual(a.get('path'), c['path'], what)
                if c['offset'] >= 0:
                    key_ = 'length' if c['sys'] == 'ftruncate' else 'offset'
                    self.assertEqual(a[key_], c['offset'], what)
                if c['size'] >= 0:
                    self.assertEqual(a['size'], c['size'], what)
        # the fork, the thread and the exec, joined and named
        main = log[-1]['pid']
        forks = [e for e in events if e['name'] == 'fork' and e['pid'] == main]
        self.assertEqual(sorted(e['args']['child_pid'] for e in forks), sorted(pids - {main}))
        execs = [e['args']['file'] for e in events if e['name'] == 'exec']
        self.assertEqual(execs, [WORK + '/bin/io_sequence', WORK + '/bin/exec_helper'])
        self.assertEqual({e['pid'] for e in events if e['name'] == 'process_exit'}, pids)

    def test_meta_sequence_arguments(self):
        """Every metadata, hint and sync call, with the arguments meta_sequence logged."""
        events = self.events('meta')
        log = [c for c in parse_log(self.log('meta')) if not c.get('anonymous')]
        expected = defaultdict(list)
        for c in log:
            # a syscall the recording kernel lacked has no tracepoint: not in the records
            if c['args'].get('errno') != 'ENOSYS':
                expected[(c['pid'], c['tid'])].append((c['sys'], c['args']))
        names, pids, under = {c['sys'] for c in log}, {c['pid'] for c in log}, WORK + '/meta'
        got = defaultdict(list)
        for e in slices(events, names):
            path = e['args'].get('path', '')
            if e['pid'] in pids and (path == under or path.startswith(under + '/') or
                                     e['name'] == 'sync'):
                got[(e['pid'], e['tid'])].append((e['name'], e['args']))
        self.assertEqual(len(expected), 3)  # the main thread, a thread, a child process
        self.assertEqual(got, expected)
        self.assertEqual(len(names), 53)  # the 52 of the shared programs, and fcntl

    def test_aio_requests(self):
        events = self.events('aio')
        [run] = parse_log(self.log('aio'))
        reqs = {}
        for e in events:
            if e.get('cat') == 'aio':
                reqs.setdefault(e['id2']['local'], {})[e['ph']] = e
        got = [(r['b']['name'], r['b']['args']['iocb'], r['b']['args']['ctx'],
                r['b']['args']['fd'], r['e']['args']['ret'])
               for r in sorted(reqs.values(), key=lambda r: (r['b']['ts'], r['b']['id2']['local']))]
        # submitted: PREAD, PREAD, PWRITE; PREADV (the iocb on fd -1 refused); FDSYNC
        ops = ['PREAD', 'PREAD', 'PWRITE', 'PREADV', None, 'FDSYNC']
        want = [(op, run['iocbs'][i], run['ctx'], run['fd'], run['res'][i])
                for i, op in enumerate(ops) if op]
        self.assertEqual(got, want)
        self.assertEqual(run['submitted'], [3, 1, 1])

    def test_uring_requests(self):
        events = self.events('uring')
        [run] = parse_log(self.log('uring'))
        reqs = {}
        for e in events:
            if e.get('cat') == 'uring':
                reqs.setdefault(e['id2']['local'], {})[e['ph']] = e
        got = sorted((r['b']['name'], r['b']['args']['fixed_file'], r['b']['args']['path'],
                      r['b']['args']['offset'], r['b']['args']['len'], r['e']['args']['ret'])
                     for r in reqs.values())
        self.assertEqual(got, [('READ', run['index'], WORK + '/in.bin', off, n, res)
                               for (off, n), res in zip(((0, 4096), (8192, 8192), (30000, 100)),
                                                        run['res'])])

    def test_descriptor_names(self):
        """fd_kinds pair: the child writes 10 bytes on its socket, 20 on the pipe and an
        eventfd count, then reads 5 bytes of reply; the parent reads them and replies."""
        events = self.events('fd')
        rounds = parse_log(self.log('fd'))
        self.assertEqual(len(rounds), 2)
        parent = {e['pid'] for e in events if e['name'] == 'fork'}
        self.assertEqual(len(parent), 1)
        parent_calls = [(e['name'], e['args']['fd'], e['args']['path'], e['args']['ret'])
                        for e in slices(events, ('read', 'write')) if e['pid'] in parent and
                        e['args']['path'].startswith(('socket:', 'pipe:', 'anon_inode:'))]
        for r in rounds:
            sock0, sock1 = ('socket:[%d]' % i for i in r['sock_ino'])
            pipe, efd = 'pipe:[%d]' % r['pipe_ino'], 'anon_inode:[eventfd]'
            child = [(e['name'], e['args']['fd'], e['args']['path'], e['args']['ret'])
                     for e in slices(events, ('read', 'write')) if e['pid'] == r['child']]
            self.assertEqual(child, [('write', r['sock'][1], sock1, 10),
                                     ('write', r['pipe'][1], pipe, 20),
                                     ('write', r['eventfd'], efd, 8),
                                     ('read', r['sock'][1], sock1, 5)])
            self.assertEqual(parent_calls[4 * r['round']:4 * r['round'] + 4],
                             [('read', r['sock'][0], sock0, 10), ('read', r['pipe'][0], pipe, 20),
                              ('read', r['eventfd'], efd, 8), ('write', r['sock'][0], sock0, 5)])
        self.assertEqual(len(parent_calls), 8)

    def test_a_thread_exit_after_its_process_exit(self):
        """io_sequence's thread: its exit record moved after its process's last
        exit (a join returns before the thread's exit tracepoint runs) makes no
        process of a reused pid; the trace is otherwise the same."""
        with open(os.path.join(ROOT, 'bpf', 'dltrace_events.h')) as f:
            enum = f.read()
        after_fork = re.search(r'DL_EV_FORK = 128,.*?\n(.*?)DL_EV_EXIT,', enum, re.S).group(1)
        exit_kind = 129 + len(re.findall(r'DL_EV_\w+,', after_fork))
        with open(os.path.join(GOLDEN, 'io.rec'), 'rb') as f:
            data = f.read()
        head, recs, pos = data[:8], [], 8
        while pos < len(data):
            (n,) = struct.unpack_from('<I', data, pos)
            recs.append(data[pos + 4:pos + 4 + n])
            pos += 4 + n
        hdr = lambda r: struct.unpack_from('<QIIHBBi', r)  # ts tgid tid kind job flags fd
        exits = [i for i, r in enumerate(recs) if hdr(r)[3] == exit_kind]
        group_dead = {hdr(recs[i])[1]: i for i in exits if hdr(recs[i])[5] & 0x08}
        [thread_exit] = [i for i in exits if not hdr(recs[i])[5] & 0x08 and
                         hdr(recs[i])[1] in group_dead and hdr(recs[i])[1] != hdr(recs[i])[2]]
        last = group_dead[hdr(recs[thread_exit])[1]]
        self.assertLess(thread_exit, last)
        moved = recs[:thread_exit] + recs[thread_exit + 1:last + 1] + [recs[thread_exit]] + \
            recs[last + 1:]
        path = os.path.join(self.tmp, 'late-exit.rec')
        with open(path, 'wb') as f:
            f.write(head + b''.join(struct.pack('<I', len(r)) + r for r in moved))
        out = os.path.join(self.tmp, 'late-exit.json')
        res = subprocess.run([DECODE, path, out], capture_output=True, text=True, timeout=60)
        self.assertEqual(res.returncode, 0, res.stderr)
        names = lambda evs: sorted(e['args']['name'] for e in evs
                                   if e.get('ph') == 'M' and e.get('name') == 'process_name')
        late = load_trace(out)
        self.assertEqual([n for n in names(late) if 'reused' in n], [])
        self.assertEqual(names(late), names(load_trace(self.decoded['io'])))
        pids = lambda evs: sorted({e['pid'] for e in evs if e.get('ph') == 'X'})
        self.assertEqual(pids(late), pids(load_trace(self.decoded['io'])))

    def test_layout_version(self):
        """The files are of the layout the code reads (else test_each_decodes_to_its_trace
        says what to do)."""
        for name in NAMES:
            self.assertEqual(magic_of(os.path.join(GOLDEN, name + '.rec')), magic_of_the_code(),
                             regenerate(name, 'another record layout'))


if __name__ == '__main__':
    unittest.main()
