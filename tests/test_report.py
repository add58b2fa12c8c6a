"""dltrace report: exact Darshan-style counters of known workloads, each finding
on a workload made to trigger it (and none on a clean, large, sequential one),
--json, the HTML page in headless Chromium, --report.  Damaged input and
usage need no kernel: tests/unit/test_report_inputs.py.

Expected numbers come from the workloads themselves: io_sequence logs every
call it makes, report_patterns does a fixed number of accesses of fixed
sizes (see its header), and the Darshan definitions are applied to those
calls here, independently of the C code.
"""
import json
import math
import os
import pty
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from collections import Counter, defaultdict

from dltrace_harness import (DLTRACE, TESTS, disk_scratch_dir, io_events, load_trace, parse_log,
                             scratch_dir, trace_command, workload)
from throttled_disk import ThrottledDisk

sys.path.insert(0, os.path.join(TESTS, 'perfetto'))
import pftrace_decode  # noqa: E402

MIB = 1 << 20
PATTERNS = workload('report_patterns')
CHROMIUM = '/usr/bin/chromium'
READS = ('read', 'pread64', 'readv', 'preadv', 'preadv2', 'sendfile', 'copy_file_range')
WRITES = ('write', 'pwrite64', 'writev', 'pwritev', 'pwritev2')
SIZED = READS + WRITES
BIN_UPPER = [100, 1024, 10240, 102400, 1048576, 4194304, 10485760, 104857600, 1073741824]


def size_bin(n):
    """Darshan's bucket of a byte count (upper bounds inclusive)."""
    for i, upper in enumerate(BIN_UPPER):
        if n <= upper:
            return i
    return len(BIN_UPPER)


def nearest_rank(values, q):
    values = sorted(values)
    return values[max(1, math.ceil(q * len(values))) - 1]


def run_report(args, check=True, **kw):
    res = subprocess.run([DLTRACE, 'report'] + list(args), capture_output=True, timeout=120,
                         **kw)
    if check and res.returncode != 0:
        raise AssertionError('dltrace report %s failed (%d): %s' %
                             (args, res.returncode, res.stderr.decode()))
    return res


def report_json(*traces, extra=()):
    return json.loads(run_report(['--json', '--top', '1000'] + list(extra) + list(traces)).stdout)


def write_file(path, size):
    """A file of size bytes, on the disk: no dirty page of it is left for the
    workloads to flush (a workload that drops the file's cached pages first,
    as single-reader does, would otherwise spend its time writing it back)."""
    block = bytes(range(256)) * 4096
    with open(path, 'wb') as f:
        while size > 0:
            f.write(block[:min(size, len(block))])
            size -= len(block)
        f.flush()
        os.fsync(f.fileno())


class Darshan:
    """Darshan's per-file, per-process counters, applied to a list of accesses."""

    def __init__(self):
        self.state = {}
        self.files = defaultdict(Counter)

    def access(self, pid, path, direction, offset, nbytes):
        s = self.state.setdefault((pid, path), {'r': 0, 'w': 0, 'last': None, 'first_r': True,
                                                'first_w': True})
        c = self.files[path]
        name = 'reads' if direction == 'r' else 'writes'
        c[name] += 1
        c['bytes_read' if direction == 'r' else 'bytes_written'] += nbytes
        if s['last'] and s['last'] != direction:
            c['rw_switches'] += 1
        s['last'] = direction
        if offset is None:
            return
        suffix = name
        seq = offset > s[direction]
        if seq:
            c['seq_' + suffix] += 1
        if offset == s[direction] + 1:
            c['consec_' + suffix] += 1
        if not seq and not (s['first_' + direction] and offset == 0):
            c['random_' + suffix] += 1
        s['first_' + direction] = False
        s[direction] = offset + nbytes - 1


def finding(rep, fid):
    found = [f for f in rep['findings'] if f['id'] == fid]
    return found[0] if found else None


_traces = {}
_tmp = None
_disk = None
# The throttled disk's rates: the findings that need slow I/O get it from these,
# e.g. 64 MiB read in at least 4 s, whatever the machine's own disk.
READ_BPS = 16 * MIB
WRITE_BPS = 32 * MIB


def setUpModule():
    global _tmp
    _tmp = disk_scratch_dir('report-')


def tearDownModule():
    global _disk
    try:
        if _disk:
            _disk.close()
    finally:
        _disk = None
        shutil.rmtree(_tmp, ignore_errors=True)


def throttled_disk():
    """The module's throttled disk (ThrottledDisk), made on first use."""
    global _disk
    if _disk is None:
        _disk = ThrottledDisk(_tmp, 320 * MIB, READ_BPS, WRITE_BPS)
    return _disk


def recorded(name, cmd, setup=None, layers=False, **kw):
    """Trace cmd once for the whole module; returns (trace path, workload stdout).
    Only the syscall layer unless layers (it attaches faster)."""
    if name not in _traces:
        if setup:
            setup()
        out = os.path.join(_tmp, name + '.json')
        res, _ = trace_command(cmd, out, () if layers else ('--layers', 'syscall'), **kw)
        _traces[name] = (out, res.stdout.decode())
    return _traces[name]


def data(name):
    return os.path.join(_tmp, name)


def on_disk(name):
    """A file of the throttled disk."""
    return throttled_disk().path(name)


def make_inputs():
    if os.path.exists(data('in64')):
        return
    for name, size in (('in4', 4 * MIB), ('in16', 16 * MIB), ('in64', 64 * MIB)):
        write_file(data(name), size)
    os.mkdir(data('small'))
    for i in range(1200):
        write_file(os.path.join(data('small'), 'f%d' % i), 4096)


WORKLOADS = {
    'clean': ['clean', 'in64', 'out.bin'],
    'small-reads': ['small-reads', 'in4'],
    'random-reads': ['random-reads', 'in64'],
    'reread-open': ['reread-open', 'in4'],
    'concurrent': ['concurrent', 'in16'],
    'metadata': ['metadata', 'in4'],
    'metadata-new': ['metadata-new', 'in4'],
    'small-files': ['small-files', 'small', '1200'],
    'reread-epochs': ['reread-epochs', 'in32'],
    'imbalance': ['imbalance', 'in16'],
    'sync-heavy': ['sync-heavy', 'sync.out'],
    'checkpoint': ['checkpoint', 'ckpt.out'],
    'write-read-64': ['write-read', 'made64.bin', '64'],
    'write-read-256': ['write-read', 'made256.bin', '256'],
    'enoent': ['enoent', 'small'],
    'single-reader': ['single-reader', 'in64'],
}


# traced with every capture layer the kernel offers
ALL_LAYERS = ('single-reader',)
# Their findings need I/O that takes long against the job's start-up: their files are on
# the throttled disk and they run in its cgroup; the inputs (name: size) are made there,
# their pages out of the cache, so that the first read of each comes from the device.
THROTTLED = {'reread-epochs': {'in32': 32 * MIB}, 'checkpoint': {},
             'single-reader': {'in64': 64 * MIB}}


def throttled_inputs(mode):
    disk = throttled_disk()
    for name, size in THROTTLED[mode].items():
        if not os.path.exists(disk.path(name)):
            write_file(disk.path(name), size)
        disk.drop_cached_pages(disk.path(name))


def pattern_trace(mode):
    args = WORKLOADS[mode]
    if mode in THROTTLED:
        cmd = [PATTERNS, args[0]] + [a if a.isdigit() else on_disk(a) for a in args[1:]]
        return recorded(mode, cmd, lambda: throttled_inputs(mode), mode in ALL_LAYERS,
                        preexec_fn=throttled_disk().enter)[0]
    cmd = [PATTERNS, args[0]] + [a if a.isdigit() else data(a) for a in args[1:]]
    return recorded(mode, cmd, make_inputs, mode in ALL_LAYERS)[0]


def io_span(calls):
    """Seconds from the first call's start to the last one's end."""
    return (max(e['ts'] + e['dur'] for e in calls) - min(e['ts'] for e in calls)) / 1e6


def renamed_copy(trace, host, directory):
    """A copy of trace as if it had been recorded on host."""
    with open(trace, 'rb') as f:
        text = f.read()
    copy = os.path.join(directory, '%s-%s' % (host, os.path.basename(trace)))
    with open(copy, 'wb') as f:
        f.write(re.sub(rb'"hostname":"[^"]*"', b'"hostname":"%s"' % host.encode(), text, count=1))
    return copy


def trace_events(path):
    with open(path) as f:
        return [json.loads(line[1:]) for line in f if line.startswith(',{')]


class ExactCountsTest(unittest.TestCase):
    """io_sequence: every count of the report against the workload's own log."""

    @classmethod
    def setUpClass(cls):
        cls.data_dir = data('ioseq')
        os.makedirs(cls.data_dir, exist_ok=True)
        cls.trace, out = recorded('io_sequence', [workload('io_sequence'), cls.data_dir,
                                                  workload('exec_helper')])
        cls.log = [e for e in parse_log(out) if e['path'] and
                   (e['path'] == cls.data_dir or e['path'].startswith(cls.data_dir + '/'))]
        cls.rep = report_json(cls.trace)

    def accesses(self):
        """(pid, path, direction, offset, bytes) of each read and write in the log."""
        out = []
        for e in self.log:
            if e['ret'] < 0:
                continue
            if e['sys'] in READS:
                out.append((e['pid'], e['path'], 'r', e['offset'], e['ret']))
                if 'out_path' in e:  # sendfile, copy_file_range: a write of unknown offset
                    out.append((e['pid'], e['out_path'], 'w', None, e['ret']))
            elif e['sys'] in WRITES:
                out.append((e['pid'], e['path'], 'w', e['offset'], e['ret']))
        return out

    def test_calls_bytes_and_sizes_per_syscall(self):
        got = {s['name']: s for s in self.rep['syscalls']['application']}
        expected = defaultdict(lambda: {'calls': 0, 'failed': 0, 'bytes': 0, 'sizes': []})
        for e in self.log:
            x = expected[e['sys']]
            x['calls'] += 1
            if e['ret'] < 0:
                x['failed'] += 1
            elif e['sys'] in SIZED:
                x['bytes'] += e['ret']
                x['sizes'].append(e['ret'])
            elif e['sys'] == 'mmap':
                x['sizes'].append(e['size'])
        self.assertEqual(sorted(got), sorted(expected))
        for name, x in expected.items():
            s = got[name]
            self.assertEqual((s['calls'], s['failed'], s['bytes']),
                             (x['calls'], x['failed'], x['bytes']), name)
            if x['sizes']:
                want = (min(x['sizes']), nearest_rank(x['sizes'], 0.25),
                        nearest_rank(x['sizes'], 0.5), nearest_rank(x['sizes'], 0.75),
                        max(x['sizes']))
                z = s['size']
                self.assertEqual((z['min'], z['p25'], z['median'], z['p75'], z['max']), want,
                                 name)
                self.assertAlmostEqual(z['mean'], sum(x['sizes']) / len(x['sizes']), places=3)

    def test_darshan_counters_per_file(self):
        d = Darshan()
        for a in self.accesses():
            d.access(*a)
        files = {f['path']: f for f in self.rep['files']['list']}
        keys = ('reads', 'writes', 'bytes_read', 'bytes_written', 'seq_reads', 'consec_reads',
                'seq_writes', 'consec_writes', 'random_reads', 'random_writes', 'rw_switches')
        self.assertEqual(set(d.files), {p for p, f in files.items() if f['reads'] or f['writes']})
        for path, c in d.files.items():
            self.assertEqual({k: files[path][k] for k in keys}, {k: c[k] for k in keys}, path)
        totals = self.rep['pattern']
        for k in keys:
            self.assertEqual(totals[k], sum(c[k] for c in d.files.values()), k)
        # and what the pattern section counts besides
        a_bin = files[self.data_dir + '/a.bin']
        self.assertEqual((a_bin['seeks'], a_bin['syncs']), (2, 3))
        self.assertEqual(totals['seeks'], 2)
        self.assertEqual(totals['mmaps'], 1)
        self.assertEqual(a_bin['processes'], 3)  # the workload, its child, the exec'd helper
        self.assertEqual(a_bin['max_byte_read'], 16383)  # the short pread at 16000

    def test_size_histograms_and_common_sizes(self):
        hist = {'r': [0] * 10, 'w': [0] * 10}
        sizes = Counter()
        for _, _, direction, _, n in self.accesses():
            hist[direction][size_bin(n)] += 1
            sizes[n] += 1
        a = self.rep['access_sizes']
        self.assertEqual((a['read'], a['write']), (hist['r'], hist['w']))
        common = sorted(sizes.items(), key=lambda kv: (-kv[1], kv[0]))[:4]
        self.assertEqual([(c['size'], c['count']) for c in a['common']], common)
        self.assertTrue(a['exact'])

    def test_latency_quantiles_follow_the_trace(self):
        events = trace_events(self.trace)
        durs = defaultdict(list)
        for ev in io_events(events, under=self.data_dir):
            durs[ev['name']].append(round(ev['dur'] * 1000))
        for s in self.rep['syscalls']['application']:
            ns = durs[s['name']]
            self.assertEqual(len(ns), s['calls'], s['name'])
            lat = s['latency_ns']
            self.assertEqual(lat['max'], max(ns))
            for q, key in ((0.5, 'p50'), (0.99, 'p99')):
                true = nearest_rank(ns, q)
                # a log-linear sketch: exact below 512 ns, never more than 1/256 below
                self.assertLessEqual(lat[key], true, s['name'])
                self.assertGreaterEqual(lat[key], true - true // 256 - 1, s['name'])

    def test_terminal_report_shows_the_json_numbers(self):
        text = run_report([self.trace], env=dict(os.environ, NO_COLOR='1')).stdout.decode()
        p = self.rep['pattern']
        m = re.search(r'reads\s+([\d,]+), .*: ([\d,]+) sequential, ([\d,]+) consecutive, '
                      r'([\d,]+) random', text)
        self.assertEqual([int(g.replace(',', '')) for g in m.groups()],
                         [p['reads'], p['seq_reads'], p['consec_reads'], p['random_reads']])
        for s in self.rep['syscalls']['application']:
            row = re.search(r'^  %s\s+([\d,]+)\s+([\d,]+)' % s['name'], text, re.M)
            self.assertEqual((int(row.group(1).replace(',', '')), int(row.group(2))),
                             (s['calls'], s['failed']), s['name'])
        self.assertNotIn('\x1b[', text)


class FindingsTest(unittest.TestCase):
    """Each finding on the workload made for it; none on the clean workload."""

    def report(self, mode, extra=()):
        return report_json(pattern_trace(mode), extra=extra)

    def check(self, mode, fid, level=None):
        rep = self.report(mode)
        f = finding(rep, fid)
        self.assertIsNotNone(f, '%s: no %s finding in %s' %
                             (mode, fid, [x['id'] for x in rep['findings']]))
        self.assertIn(f['level'], ('info', 'warn', 'high'))
        if level:
            self.assertEqual(f['level'], level)
        self.assertRegex(f['rule'], r'\d')  # the rule states its threshold
        self.assertTrue(f['evidence'] and all(f['evidence']))
        self.assertGreater(len(f['recommendation']), 40)
        return rep, f

    def test_clean_sequential_workload_has_no_finding(self):
        rep = self.report('clean')
        self.assertEqual(rep['findings'], [])
        p = rep['pattern']
        # 16 reads of 4 MiB and the read at the end of the file; 8 writes of 4 MiB
        self.assertEqual((p['reads'], p['seq_reads'], p['consec_reads'], p['random_reads']),
                         (17, 16, 16, 0))
        self.assertEqual((p['writes'], p['seq_writes'], p['consec_writes']), (8, 7, 7))
        self.assertEqual((p['bytes_read'], p['bytes_written']), (64 * MIB, 32 * MIB))
        self.assertEqual(rep['access_sizes']['read'], [1, 0, 0, 0, 0, 16, 0, 0, 0, 0])
        self.assertEqual(rep['access_sizes']['write'], [0, 0, 0, 0, 0, 8, 0, 0, 0, 0])
        self.assertEqual(rep['access_sizes']['common'][0], {'size': 4 * MIB, 'count': 24})
        files = {os.path.basename(f['path']): f for f in rep['files']['list']}
        self.assertEqual((files['in64']['passes'], files['in64']['size']), (1, 64 * MIB))
        self.assertEqual(files['out.bin']['syncs'], 1)
        # the output was written by the second thread, in one burst, off the training thread
        self.assertEqual(rep['bursts']['count'], 1)
        self.assertEqual(rep['bursts']['list'][0]['bytes'], 32 * MIB)
        self.assertFalse(rep['bursts']['list'][0]['training_thread'])
        tt = rep['time']['training_thread']
        self.assertEqual(tt['tid'], tt['pid'])
        self.assertEqual(rep['job']['threads'], 2)

    def test_small_reads(self):
        _, f = self.check('small-reads', 'small_reads', 'high')
        # 4 MiB in 1 KiB reads, and the read that finds the end of the file
        self.assertEqual((f['metrics']['small'], f['metrics']['total']), (4097, 4097))

    def test_random_reads(self):
        x, offsets = 88172645463325252, []
        for _ in range(4000):
            x ^= (x << 13) & (2**64 - 1)
            x ^= x >> 7
            x ^= (x << 17) & (2**64 - 1)
            offsets.append((x % 16384) * 4096)
        d = Darshan()
        for off in offsets:
            d.access(1, 'f', 'r', off, 4096)
        _, f = self.check('random-reads', 'random_reads', 'high')
        self.assertEqual(f['metrics']['random'], d.files['f']['random_reads'])
        self.assertEqual(f['metrics']['total'], 4000)

    def test_redundant_reads_within_an_open(self):
        rep, f = self.check('reread-open', 'redundant_reads', 'high')
        # three passes over 4 MiB in one open: 8 MiB were read again
        self.assertEqual(f['metrics']['reread_within_open_bytes'], 8 * MIB)
        self.assertEqual(f['metrics']['bytes_read'], 12 * MIB)
        self.assertIsNone(finding(rep, 'reread_fits_in_ram'))

    def test_redundant_reads_by_concurrent_processes(self):
        rep, f = self.check('concurrent', 'redundant_reads', 'high')
        # 4 processes read the same 16 MiB at the same time: 3 of them were redundant
        self.assertEqual(f['metrics']['concurrent_duplicate_bytes'], 3 * 16 * MIB)
        self.assertIsNone(finding(rep, 'reread_fits_in_ram'))

    def test_metadata_heavy(self):
        _, f = self.check('metadata', 'metadata_heavy')
        self.assertEqual((f['metrics']['stats'], f['metrics']['opens']), (5000, 1001))

    def test_metadata_heavy_sees_every_metadata_call(self):
        """access, getxattr, chmod are metadata; fadvise64 a hint (also in the metadata time);
        statfs of /proc is the environment's."""
        rep, f = self.check('metadata-new', 'metadata_heavy')
        # 4000 metadata calls that succeeded (failed ones are counted apart), 100 hints,
        # the open and the close
        self.assertEqual(f['metrics']['metadata_calls'], 4102)
        self.assertEqual((f['metrics']['opens'], f['metrics']['stats']), (1, 0))
        self.assertEqual(rep['pattern']['hints'], 100)
        self.assertEqual(rep['pattern']['metadata_calls'], 4102)
        app = {s['name']: s for s in rep['syscalls']['application']}
        self.assertEqual({n: (app[n]['calls'], app[n]['failed'], app[n]['class'])
                          for n in ('access', 'getxattr', 'chmod', 'fadvise64')},
                         {'access': (2000, 0, 'metadata'), 'getxattr': (2000, 2000, 'metadata'),
                          'chmod': (2000, 0, 'metadata'), 'fadvise64': (100, 0, 'hint')})
        env = {s['name']: s for s in rep['syscalls']['environment']}
        self.assertEqual((env['statfs']['calls'], env['statfs']['class']), (50, 'metadata'))
        self.assertNotIn('statfs', app)
        in4 = next(x for x in rep['files']['list'] if x['path'] == data('in4'))
        self.assertEqual((in4['hints'], in4['reads']), (100, 1))

    def test_many_small_files(self):
        rep, f = self.check('small-files', 'many_small_files')
        self.assertEqual(f['metrics']['small_files'], 1200)
        self.assertEqual(f['metrics']['median_size'], 4096)
        self.assertEqual(rep['files']['size_bins'][2], 1200)  # 1K-10K

    def test_reread_fits_in_ram(self):
        # the rule also wants the reading to take >= 5% of the job's wall time: the first
        # pass comes from the throttled disk (32 MiB at 16 MiB/s, about 2 s; the later
        # ones from the page cache), against the process's start-up and exit (ms)
        events = trace_events(pattern_trace('reread-epochs'))
        calls = [e for e in io_events(events) if e['args'].get('path') == on_disk('in32')]
        opens = [e['ts'] for e in calls if e['name'] == 'openat']
        self.assertEqual(len(opens), 3)
        passes = [[e for e in calls if e['name'] == 'read' and
                   sum(ts <= e['ts'] for ts in opens) == k] for k in (1, 2, 3)]
        self.assertEqual([sum(e['args']['ret'] for e in p) for p in passes], [32 * MIB] * 3)
        disk = throttled_disk()
        self.assertGreaterEqual(io_span(passes[0]), disk.min_seconds(32 * MIB, 'read'),
                                'the first pass was not read from the throttled disk')
        rep, f = self.check('reread-epochs', 'reread_fits_in_ram')
        self.assertEqual((f['metrics']['files'], f['metrics']['passes']), (1, 3))
        self.assertEqual(f['metrics']['dataset_bytes'], 32 * MIB)
        # on a machine with 32 MiB of RAM the data would not fit in half of it
        small = self.report('reread-epochs', ['--ram', '32M'])
        self.assertIsNone(finding(small, 'reread_fits_in_ram'))

    def test_imbalance(self):
        rep, f = self.check('imbalance', 'imbalance')
        self.assertEqual((f['metrics']['bytes_min'], f['metrics']['bytes_max']),
                         (4 * MIB, 16 * MIB))
        self.assertEqual(f['metrics']['members'], 4)
        self.assertAlmostEqual(f['metrics']['bytes_imbalance'], 0.75)

    def test_sync_heavy(self):
        _, f = self.check('sync-heavy', 'sync_heavy')
        self.assertEqual((f['metrics']['syncs'], f['metrics']['bytes_written']), (200, 200 * 4096))

    def test_checkpoint_stall(self):
        # the rule wants the training thread blocked in the bursts >= 50 ms and >= 5% of its
        # time: each checkpoint writes 64 MiB with O_DIRECT to the throttled disk (32 MiB/s:
        # about 2 s), against 1.1 s of "compute" and the start-up
        events = trace_events(pattern_trace('checkpoint'))
        calls = [e for e in io_events(events) if e['args'].get('path') == on_disk('ckpt.out')]
        self.assertEqual(len({e['tid'] for e in calls}), 1)
        opens = [e['ts'] for e in calls if e['name'] == 'openat']
        self.assertEqual(len(opens), 2)
        disk = throttled_disk()
        for k in (1, 2):
            burst = [e for e in calls if e['name'] in ('write', 'fsync') and
                     sum(ts <= e['ts'] for ts in opens) == k]
            self.assertEqual(sum(e['args']['ret'] for e in burst if e['name'] == 'write'),
                             64 * MIB)
            self.assertGreaterEqual(io_span(burst), disk.min_seconds(64 * MIB, 'write'),
                                    'checkpoint %d was not written through the throttle' % k)
        rep, f = self.check('checkpoint', 'checkpoint_stall')
        # two checkpoints 1.1 s apart: two bursts of 64 MiB on the training thread
        self.assertEqual((f['metrics']['bursts'], f['metrics']['burst_bytes']), (2, 128 * MIB))
        self.assertEqual([b['bytes'] for b in rep['bursts']['list']], [64 * MIB] * 2)
        self.assertTrue(all(b['training_thread'] for b in rep['bursts']['list']))

    def test_a_file_written_once_is_no_checkpoint(self):
        """A data file made at the start and read back is one burst, not checkpoints."""
        for mode, mib in (('write-read-64', 64), ('write-read-256', 256)):
            rep = self.report(mode)
            # one burst on the training thread, most of the job's time or not
            self.assertEqual((rep['bursts']['count'], rep['bursts']['bytes']), (1, mib * MIB))
            self.assertTrue(rep['bursts']['list'][0]['training_thread'])
            self.assertEqual(rep['pattern']['bytes_read'], mib * MIB)
            self.assertIsNone(finding(rep, 'checkpoint_stall'), mode)
            # and nothing else at warning level: large sequential writes, then reads
            self.assertEqual([f['id'] for f in rep['findings'] if f['level'] != 'info'], [],
                             mode)

    def test_block_devices_are_not_processes(self):
        """A block device's track (pid 1073741824 up, "block vda (254:0)") is in the trace,
        never in the report's process and thread tables (JSON, terminal, HTML)."""
        trace = pattern_trace('single-reader')  # reads 64 MiB from the disk
        events = trace_events(trace)
        devices = {e['pid'] for e in events if e.get('cat') == 'block'}
        self.assertTrue(devices)
        self.assertTrue(all(d >= 0x40000000 for d in devices))
        names = {e['pid']: e['args']['name'] for e in events if e['name'] == 'process_name'}
        self.assertTrue(all(names[d].startswith('block ') for d in devices))
        rep = report_json(trace)
        self.assertGreater(rep['layers']['block']['reads'], 0)
        shown = {p['pid'] for p in rep['time']['processes']} | \
            {t['pid'] for t in rep['time']['threads']}
        self.assertEqual(shown & devices, set())
        self.assertEqual(rep['job']['processes'], 1)
        self.assertEqual(len(rep['time']['processes']), 1)
        html = os.path.join(_tmp, 'devices.html')
        run_report(['--html', html, '-q', trace])
        with open(html, encoding='utf-8') as f:
            page = f.read()
        text = run_report([trace], env=dict(os.environ, NO_COLOR='1')).stdout.decode()
        for out in (text, page):
            for d in devices:
                self.assertNotIn(str(d), out)
                self.assertNotIn(names[d], out)

    def test_failed_syscalls(self):
        rep, f = self.check('enoent', 'failed_syscalls', 'warn')
        events = trace_events(pattern_trace('enoent'))
        failed = [e for e in io_events(events) if e['args'].get('ret') == -1]
        self.assertEqual(f['metrics']['failed'], len(failed))
        missing = [e for e in failed if '/missing-' in e['args']['path']]
        self.assertEqual(len(missing), 3000)
        self.assertEqual({e['args']['errno'] for e in missing}, {'ENOENT'})

    def test_low_read_parallelism(self):
        """The finding needs an I/O-bound reader: it fires when the reader spends >= 20% of
        its lifetime reading and its 3 waiting threads live >= half of it.  The workload
        reads its input from the throttled disk (pages dropped, readahead off: 64 MiB at
        16 MiB/s, about 4 s), against the process's start-up and exit (ms); the 3 peers
        start before the first read and end after the last one."""
        trace = pattern_trace('single-reader')
        events = trace_events(trace)
        reads = [e for e in io_events(events) if e['name'] == 'read' and
                 e['args'].get('path') == on_disk('in64')]
        self.assertEqual((len(reads), sum(e['args']['ret'] for e in reads)), (1025, 64 * MIB))
        if 'cache' in report_json(trace)['layers']['active'].split(','):
            # every read brought its 64 KiB in; a read that had to look up the file's extent
            # tree also brought in that block (4 KiB, through the block device's cache)
            self.assertEqual([e['args'].get('cache_miss_bytes', 0) >= 64 << 10
                              for e in reads], [True] * 1024 + [False],
                             'a read was served by the page cache: the pages were not dropped')
        self.assertGreaterEqual(io_span(reads),
                                throttled_disk().min_seconds(64 * MIB, 'read'),
                                'the reads did not go through the throttled disk')
        _, f = self.check('single-reader', 'low_read_parallelism')
        self.assertEqual(f['metrics']['idle_peers'], 3)
        self.assertEqual(f['metrics']['reader_bytes'], 64 * MIB)

    def test_other_capture_layers(self):
        """With every layer: the syscall figures are the same, the others are summed."""
        trace = pattern_trace('single-reader')
        rep = report_json(trace)
        events = trace_events(trace)
        layers = rep['layers']
        self.assertTrue(layers['active'].startswith('syscall'))
        p = rep['pattern']
        self.assertEqual((p['reads'], p['bytes_read']), (1025, 64 * MIB))
        in64 = next(f for f in rep['files']['list'] if f['path'] == on_disk('in64'))
        misses = sum(e['args'].get('cache_miss_bytes', 0) for e in io_events(events)
                     if e['args'].get('path') == on_disk('in64'))
        self.assertEqual(in64['cache_miss_bytes'], misses)
        if 'cache' in layers['active'].split(','):
            # its pages were dropped before the reads: they came from the disk
            self.assertGreater(misses, 0)
        faults = [e for e in events if e.get('cat') == 'mmap' and e['ph'] == 'i']
        self.assertEqual(sum(layers['page_faults'].values()), len(faults))
        blocks = [e for e in events if e.get('cat') == 'block' and e['ph'] == 'b']
        self.assertEqual(layers['block']['reads'] + layers['block']['writes'] +
                         layers['block']['other'], len(blocks))


class HtmlReportTest(unittest.TestCase):
    """The page is self-contained, opens in Chromium without errors, and draws its charts."""

    FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
             '--disable-component-update', '--disable-sync', '--no-first-run',
             '--enable-logging=stderr', '--v=0']

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix='dltrace-html-')
        cls.html = os.path.join(cls.dir, 'report.html')
        run_report(['-q', '--html', cls.html, pattern_trace('clean')])
        with open(cls.html, encoding='utf-8') as f:
            cls.page = f.read()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def chromium(self, *args, page=None):
        profile = tempfile.mkdtemp(prefix='profile-', dir=self.dir)
        res = subprocess.run([CHROMIUM] + self.FLAGS + ['--user-data-dir=' + profile] +
                             list(args) + ['file://' + (page or self.html)],
                             capture_output=True, timeout=120)
        return res.stdout.decode('utf-8', 'replace'), res.stderr.decode('utf-8', 'replace')

    @staticmethod
    def console_errors(log):
        return [l for l in log.splitlines() if 'CONSOLE' in l and
                ('Uncaught' in l or ':ERROR:' in l or 'Error' in l)]

    def test_self_contained(self):
        self.assertNotRegex(self.page, r'(?i)\b(src|href)\s*=')
        self.assertNotRegex(self.page, r'(?i)@import|url\(')
        self.assertIn("default-src 'none'", self.page)

    def test_opens_without_console_errors_and_charts_render(self):
        dom, log = self.chromium('--dump-dom')
        self.assertEqual(self.console_errors(log), [])
        self.assertRegex(dom, r'<body[^>]*data-ready="1"')
        charts = re.findall(r'<svg data-chart="([\w-]+)"', self.page)
        self.assertEqual(sorted(charts), ['file-sizes', 'sizes', 'time', 'timeline'])
        self.assertRegex(dom, r'<body[^>]*data-charts="%d"' % len(charts))
        for chart in re.findall(r'<svg data-chart=.*?</svg>', dom, re.S):
            self.assertRegex(chart, r'class="(bar|pt)"', chart[:60])
        # the size chart has a bar per bin and series: reads in 1M-4M have the highest
        self.assertEqual(len(re.findall(r'class="bar"', re.search(
            r'<svg data-chart="sizes".*?</svg>', dom, re.S).group(0))), 20)
        self.assertIn('class="burst"', dom)
        self.assertIn('No finding', dom)

    def test_hosts_of_several_nodes(self):
        clean = pattern_trace('clean')
        page = os.path.join(self.dir, 'nodes.html')
        run_report(['-q', '--html', page, clean, renamed_copy(clean, 'node2', self.dir)])
        dom, log = self.chromium('--dump-dom', page=page)
        self.assertEqual(self.console_errors(log), [])
        chart = re.search(r'<svg data-chart="hosts".*?</svg>', dom, re.S).group(0)
        self.assertEqual(len(re.findall(r'class="bar"', chart)), 2)
        self.assertIn('>node2</text>', chart)
        self.assertIn('<h3>Hosts</h3><p>Across 2 hosts: ', dom)
        self.assertEqual(len(re.findall(r'<tr><td class="l">node2</td>', dom)), 1)

    def test_console_errors_are_noticed(self):
        """The check above can fail: a page with a script error is caught."""
        bad = os.path.join(self.dir, 'bad.html')
        with open(bad, 'w') as f:
            f.write('<!DOCTYPE html><html><body><script>undefined_function();</script>'
                    '</body></html>')
        _, log = self.chromium('--dump-dom', page=bad)
        self.assertNotEqual(self.console_errors(log), [])

    def test_screenshot(self):
        png = os.path.join(self.dir, 'report.png')
        self.chromium('--screenshot=' + png, '--window-size=1280,2400', '--hide-scrollbars')
        with open(png, 'rb') as f:
            image = f.read()
        self.assertEqual(image[:8], b'\x89PNG\r\n\x1a\n')
        self.assertGreater(len(image), 50000)  # a drawn page, not a blank one


class CommandLineTest(unittest.TestCase):
    def setUp(self):
        self.dir = scratch_dir()

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_report_when_tracing_ends(self):
        make_inputs()
        out = os.path.join(self.dir, 't.json')
        res = subprocess.run([DLTRACE, '-q', '-o', out, '--report', '--', PATTERNS,
                              'small-reads', data('in4')], capture_output=True, timeout=120)
        self.assertEqual(res.returncode, 0, res.stderr)
        text = res.stdout.decode()
        self.assertIn('dltrace report', text)
        self.assertIn('Many small reads', text)
        self.assertEqual(report_json(out)['pattern']['reads'], 4097)

    def test_report_when_the_trace_goes_to_standard_output(self):
        make_inputs()
        res = subprocess.run([DLTRACE, '-q', '-o', '-', '--report', '--', PATTERNS,
                              'small-reads', data('in4')], capture_output=True, timeout=120)
        self.assertEqual(res.returncode, 0, res.stderr)
        events = json.loads(res.stdout)
        self.assertEqual(events[0]['name'], 'dltrace')
        err = res.stderr.decode()
        self.assertIn('Many small reads', err)
        self.assertIn('reads  4,097, 4.00 MiB', err)

    def test_colors_only_on_a_terminal(self):
        trace = pattern_trace('small-reads')

        def on_tty(env):
            pid, fd = pty.fork()
            if pid == 0:
                os.execve(DLTRACE, [DLTRACE, 'report', trace], env)
            chunks = []
            while True:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                chunks.append(chunk)
            os.waitpid(pid, 0)
            return b''.join(chunks)

        env = {k: v for k, v in os.environ.items() if k != 'NO_COLOR'}
        self.assertIn(b'\x1b[', on_tty(env))
        self.assertNotIn(b'\x1b[', on_tty(dict(env, NO_COLOR='1')))
        self.assertNotIn(b'\x1b[', run_report([trace], env=env).stdout)

    def test_several_traces_are_combined(self):
        """Two nodes: the second trace is the first one renamed to another host."""
        first = pattern_trace('imbalance')
        second = renamed_copy(first, 'node2', self.dir)
        one, two = report_json(first), report_json(first, second)
        self.assertEqual(len(two['job']['hosts']), 2)
        self.assertIn('node2', two['job']['hosts'])
        self.assertEqual(two['job']['processes'], 2 * one['job']['processes'])
        self.assertEqual(two['job']['events'], 2 * one['job']['events'])
        self.assertEqual(two['pattern']['bytes_read'], 2 * one['pattern']['bytes_read'])
        self.assertEqual(len(two['balance']['groups']), 2 * len(one['balance']['groups']))
        # per node: each host has exactly the figures of its trace alone
        node = one['balance']['hosts'][0]
        self.assertEqual(node['bytes'], one['pattern']['bytes_read'] +
                         one['pattern']['bytes_written'])
        self.assertEqual((node['bytes_read'], node['bytes_written'], node['processes'],
                          node['events'], node['traces']),
                         (one['pattern']['bytes_read'], one['pattern']['bytes_written'],
                          one['job']['processes'], one['job']['events'], 1))
        self.assertEqual([h['hostname'] for h in two['balance']['hosts']],
                         [node['hostname'], 'node2'])
        for h in two['balance']['hosts']:
            self.assertEqual({k: v for k, v in h.items() if k not in ('hostname', 'start_ns')},
                             {k: v for k, v in node.items() if k not in ('hostname', 'start_ns')})
        across = two['balance']['across_hosts']
        self.assertEqual((across['hosts'], across['bytes_min'], across['bytes_max'],
                          across['bytes_imbalance'], across['time_imbalance']),
                         (2, node['bytes'], node['bytes'], 0, 0))
        # a second trace of the same host (another run) is the same node
        three = report_json(first, second, first)
        self.assertEqual([(h['hostname'], h['traces'], h['bytes'])
                          for h in three['balance']['hosts']],
                         [(node['hostname'], 2, 2 * node['bytes']), ('node2', 1, node['bytes'])])
        text = run_report([first, second]).stdout.decode()
        self.assertIn('\nBalance across hosts\n', text)
        row = re.search(r'\n  host node2: read [^\n]*; (\d+) processes, ([\d,]+) calls, '
                        r'([\d,]+) events, ([\d,]+) lost\n', text)
        self.assertEqual([int(g.replace(',', '')) for g in row.groups()],
                         [node['processes'], node['calls'], node['events'], node['lost_events']])
        self.assertRegex(text, r'\n  across 2 hosts: bytes [^\n]* \(0\.0% apart\), I/O time ')

    def test_imbalance_across_hosts(self):
        """One host moves the imbalance workload's bytes, node2 the clean workload's."""
        a, b = pattern_trace('imbalance'), renamed_copy(pattern_trace('clean'), 'node2', self.dir)
        moved = [r['pattern']['bytes_read'] + r['pattern']['bytes_written']
                 for r in (report_json(a), report_json(b))]
        rep = report_json(a, b)
        across = rep['balance']['across_hosts']
        most, least = (1, 0) if moved[1] > moved[0] else (0, 1)
        names = [h['hostname'] for h in rep['balance']['hosts']]
        self.assertEqual((across['bytes_min'], across['bytes_max'], across['most'],
                          across['least']),
                         (moved[least], moved[most], names[most], names[least]))
        self.assertAlmostEqual(across['bytes_imbalance'], 1 - moved[least] / moved[most])
        io = [h['io_ns'] for h in rep['balance']['hosts']]
        self.assertEqual((across['io_ns_min'], across['io_ns_max']), (min(io), max(io)))
        self.assertEqual(across['slowest'], names[io.index(max(io))])
        f = [x for x in rep['findings'] if x['id'] == 'imbalance'][0]
        self.assertAlmostEqual(f['metrics']['host_imbalance'], across['bytes_imbalance'])
        self.assertIn('hosts: %s moved ' % names[most], '\n'.join(f['evidence']))


class StagedInShmTest(unittest.TestCase):
    """A dataset staged in /dev/shm is application I/O; the shared-memory segments beside it
    (one named as PyTorch names its own, one of no known name made as shm_open(3) makes them)
    stay out of the application's figures, whatever their calls and page faults."""

    def setUp(self):
        self.dir = scratch_dir()
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        stage = tempfile.mkdtemp(prefix='dltrace-stage-', dir='/dev/shm')
        self.addCleanup(shutil.rmtree, stage, ignore_errors=True)
        self.shard = os.path.join(stage, 'shard0.bin')
        write_file(self.shard, 4 * MIB)
        fd, self.top = tempfile.mkstemp(prefix='dltrace-top-', suffix='.bin', dir='/dev/shm')
        os.close(fd)
        self.addCleanup(os.unlink, self.top)
        write_file(self.top, MIB)
        tag = '%d_%d' % (os.getpid(), int.from_bytes(os.urandom(4), 'little'))
        self.seg = '/dev/shm/dltrace-seg-' + tag
        self.torch = '/dev/shm/torch_' + tag
        for path in (self.seg, self.torch):  # the workload unlinks them; a failed run may not
            self.addCleanup(lambda p=path: os.path.exists(p) and os.unlink(p))

    def test_staged_files_are_application_io_segments_are_not(self):
        out = os.path.join(self.dir, 'shm.json')
        _, events = trace_command([PATTERNS, 'shm-stage', self.shard, self.top,
                                   self.seg[len('/dev/shm'):], self.torch], out)
        calls = [e for e in events if e.get('ph') == 'X' and 'path' in e.get('args', {})]

        def on(path):
            return [e for e in calls if e['args']['path'] == path]

        # the workload did what the report is asked about: two segments, made two ways
        seg_opens = [e['args']['flags'] for e in on(self.seg) if e['name'] == 'openat']
        torch_opens = [e['args']['flags'] for e in on(self.torch) if e['name'] == 'openat']
        self.assertEqual(seg_opens, ['O_RDWR|O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC'])
        self.assertEqual(torch_opens, ['O_RDWR|O_CREAT|O_EXCL'])  # only its name tells
        made = ['close', 'ftruncate', 'mmap', 'munmap', 'openat', 'unlink']
        self.assertEqual(sorted(e['name'] for e in on(self.seg)), made)
        self.assertEqual(sorted(e['name'] for e in on(self.torch)), sorted(made + ['write']))
        self.assertEqual(sorted((e['name'], e['args']['ret']) for e in on(self.shard)),
                         [('close', 0), ('openat', 3)] + [('pread64', 64 << 10)] * 64)

        rep = report_json(out)
        p = rep['pattern']
        self.assertEqual((p['reads'], p['bytes_read'], p['writes'], p['bytes_written'],
                          p['opens'], p['mmaps']), (64 + 17, 5 * MIB, 0, 0, 2, 0))
        self.assertEqual(p['by_origin']['mmap'], {'reads': 0, 'writes': 0, 'syncs': 0,
                                                  'bytes_read': 0, 'bytes_written': 0})
        files = {f['path']: f for f in rep['files']['list']}
        self.assertEqual(sorted(x for x in files if x.startswith('/dev/shm/')),
                         sorted([self.shard, self.top]))
        self.assertEqual((files[self.shard]['reads'], files[self.shard]['bytes_read'],
                          files[self.shard]['opens']), (64, 4 * MIB, 1))
        self.assertEqual((files[self.top]['reads'], files[self.top]['bytes_read'],
                          files[self.top]['opens']), (17, MIB, 1))
        app_calls = {c['name']: c for c in rep['syscalls']['application']}
        self.assertEqual((app_calls['pread64']['calls'], app_calls['pread64']['bytes']),
                         (64, 4 * MIB))
        self.assertEqual((app_calls['read']['calls'], app_calls['read']['bytes']), (17, MIB))
        for name in ('ftruncate', 'mmap', 'munmap', 'unlink', 'write'):
            self.assertNotIn(name, app_calls)
        # the segments' calls are shared memory, apart; /dev keeps only what is below /dev
        segment_calls = on(self.seg) + on(self.torch)
        self.assertEqual(rep['other']['shared_memory'],
                         {'calls': len(segment_calls), 'failed': 0, 'bytes_read': 0,
                          'bytes_written': 1,
                          'io_ns': rep['other']['shared_memory']['io_ns']})
        dev = [k for k in rep['environment']['kinds'] if k['kind'] == 'dev']
        below_dev = [e for e in calls if e['args']['path'].startswith('/dev/') and
                     not e['args']['path'].startswith('/dev/shm/')]
        self.assertEqual(dev[0]['calls'] if dev else 0, len(below_dev))
        # the pages filled through the segments' mappings are no application I/O either
        faults = [e for e in events if e['name'] == 'page_fault']
        self.assertEqual(len([e for e in faults if e['args']['path'] in
                              (self.seg, self.torch)]), 2 * 256)  # one per page written
        self.assertEqual(rep['layers']['page_faults']['application'],
                         len([e for e in faults if e['args'].get('path') in files]))
        text = run_report([out]).stdout.decode()
        self.assertIn('reads  81, 5.00 MiB', text)
        self.assertIn('of them shared memory (segments in /dev/shm, SysV, memfd): %d calls, '
                      '0 B read, 1 B written' % len(segment_calls), text)



def pftrace_summary(path):
    """The summary packet's args of a .pftrace, as protoc decodes them."""
    text, _ = pftrace_decode.decode_text(path)
    for p in reversed(pftrace_decode.parse_text(text)['packet']):
        for ev in p.get('track_event', []):
            if pftrace_decode.one(ev, 'name') == b'dltrace_summary':
                return {k.decode(): v.decode() if isinstance(v, bytes) else v
                        for k, v in (pftrace_decode.arg_value(a, {}, {})
                                     for a in ev['debug_annotations'])}
    raise AssertionError('%s: no dltrace_summary packet' % path)


def html_text(s):
    """s as the HTML report escapes it."""
    for a, b in (('&', '&amp;'), ('<', '&lt;'), ('>', '&gt;'), ('"', '&quot;'), ("'", '&#39;')):
        s = s.replace(a, b)
    return s


def wall_ms(ns):
    """A wall-clock time in ns as the report's warning writes it (UTC, ms)."""
    return time.strftime('%Y-%m-%dT%H:%M:%S', time.gmtime(ns // 10**9)) + \
        '.%03dZ' % (ns % 10**9 // 10**6)



class StopReasonsTest(unittest.TestCase):
    """Each way a summary says the trace does not cover the whole job, said once: the same
    trace with its summary rewritten (a signal, --duration, the size cap, a write error the
    daemon's job ran past, a trace converted from a cut one)."""

    @classmethod
    def setUpClass(cls):
        cls.trace = pattern_trace('small-reads')
        with open(cls.trace) as f:
            cls.text = f.read()
        cls.summary = json.loads(cls.text.splitlines()[-2][1:])['args']
        cls.dir = tempfile.mkdtemp(prefix='dltrace-report-')

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def with_summary(self, name, **changes):
        args = dict(self.summary, **changes)
        lines = self.text.splitlines()
        lines[-2] = ',' + json.dumps({'name': 'dltrace_summary', 'ph': 'M', 'pid': 0, 'tid': 0,
                                      'args': args}, separators=(',', ':'))
        path = os.path.join(self.dir, name)
        with open(path, 'w') as f:
            f.write('\n'.join(lines) + '\n')
        rep = report_json(path)
        t = rep['traces'][0]
        text = run_report([path]).stdout.decode()
        self.assertEqual(rep['pattern'], report_json(self.trace)['pattern'])  # same events
        self.assertEqual((t['stopped_early'], rep['job']['stopped_early'], len(t['warnings'])),
                         (True, True, 1))
        self.assertEqual([l for l in text.splitlines() if 'warning:' in l],
                         ['  warning: ' + t['warnings'][0]])
        return t, t['warnings'][0][len(path) + 2:]

    def test_stop_reasons(self):
        stop, wall = self.summary['duration_ns'], self.summary['end_wall_ns']
        t, w = self.with_summary('signal.json', stop_reason='signal')
        self.assertEqual((t['complete'], t['events_not_written'], t['stop_ns'],
                          t['stop_wall_ns']), (True, 0, stop, wall))
        self.assertRegex(w, r"^tracing stopped early \(signal\) at [\d.]+ m?s into the trace, "
                         r"%s; the figures cover only the trace's first [\d.]+ m?s$" %
                         re.escape(wall_ms(wall)))
        t, w = self.with_summary('duration.json', stop_reason='duration')
        self.assertTrue(w.startswith('tracing stopped early (duration) at '), w)
        t, w = self.with_summary('cap.json', capped_events=12345)
        self.assertEqual((t['complete'], t['capped_events'], t['events_not_written']),
                         (False, 12345, 12345))
        self.assertRegex(w, r"^the trace stopped taking events at its size cap; tracing went "
                         r"on to [\d.]+ m?s \(target exited\); its events end at [\d.]+ m?s, "
                         r"12,345 more were not written; the figures cover only the trace's "
                         r"first [\d.]+ m?s$")
        t, w = self.with_summary('daemon.json', stop_reason='cgroup removed', truncated=True,
                                 write_error='Disk quota exceeded')
        self.assertEqual((t['complete'], t['truncated'], t['write_error']),
                         (False, True, 'Disk quota exceeded'))
        self.assertTrue(w.startswith('the trace file stopped taking events (output write '
                                     'error: Disk quota exceeded); tracing went on to '), w)
        args = dict(self.summary)
        del args['stop_reason']
        self.summary, saved = args, self.summary
        try:
            t, w = self.with_summary('converted.json', truncated=True)
        finally:
            self.summary = saved
        self.assertTrue(w.startswith('the trace was cut short (its summary says truncated); '
                                     'its events end at '), w)


class StoppedEarlyTest(unittest.TestCase):
    """A trace cut short by a full disk says so in every report format (terminal, --json,
    --html, --report at the end of the run), in JSON and .pftrace: tracing stopped early,
    when, why, and that the figures cover only the time before; a trace of a whole job says
    nothing of the kind."""

    N = 100000  # preads: about 20 MB of events, ten times what the file system holds
    STOP = 'tracing stopped early (output write error: No space left on device) at '

    def setUp(self):
        self.dir = scratch_dir()
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.mnt = os.path.join(self.dir, 'small')
        os.mkdir(self.mnt)
        res = subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', self.mnt],
                             capture_output=True)
        if res.returncode:
            self.fail('setup: mounting a 2 MiB tmpfs on %s failed: %s' %
                      (self.mnt, res.stderr.decode()))
        self.addCleanup(subprocess.run, ['umount', self.mnt])
        self.input = os.path.join(self.dir, 'in.bin')
        write_file(self.input, 4096)

    def trace_until_stopped(self, out, *args):
        """Trace N preads into out on the full file system.  The job waits until dltrace
        has said that tracing stopped, then ends: tracing stops while the job runs.
        Returns (dltrace's stdout, its stderr, the job's end on the wall clock)."""
        p = subprocess.Popen([DLTRACE, '-o', out] + list(args) +
                             ['--', PATTERNS, 'preads-wait', self.input, str(self.N)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        said, err = 'writing %s failed: No space left on device; tracing stopped' % out, b''
        deadline = time.monotonic() + 300  # a guard against a hang, not a timing goal
        while said.encode() not in err:
            ready, _, _ = select.select([p.stderr], [], [], max(0, deadline - time.monotonic()))
            chunk = os.read(p.stderr.fileno(), 65536) if ready else b''
            if not chunk:
                p.kill()
                p.wait()
                self.fail('dltrace did not say that tracing stopped: %s' % err.decode())
            err += chunk
        out_text, rest = p.communicate(input=b'', timeout=300)  # the job's input ends
        err = (err + rest).decode()
        self.assertEqual(p.returncode, 1, err)
        end_wall = int(re.search(r'end_wall_ns (\d+)', out_text.decode()).group(1))
        return out_text.decode(), err, end_wall

    def check_stopped(self, out, end_wall):
        """The trace out, cut short: its summary and every report format say so."""
        json_out = out
        if out.endswith('.pftrace'):
            json_out = os.path.join(self.dir, 'back.json')
            subprocess.run([DLTRACE, 'convert', '-q', out, json_out], check=True,
                           capture_output=True)
        events = load_trace(json_out)
        summary = events[-1]['args']
        if out.endswith('.pftrace'):  # convert counts its own events: the file's summary
            summary = pftrace_summary(out)
        self.assertEqual((summary['stop_reason'], summary['truncated'],
                          summary['write_error']),
                         ('output write error', True, 'No space left on device'))
        preads = [e for e in events if e['name'] == 'pread64' and
                  e['args']['path'] == self.input]
        self.assertGreater(len(preads), 1000)  # what 2 MiB holds, not the job's N
        self.assertLess(len(preads), self.N)
        # a .pftrace holds a syscall as a begin and an end packet: a file cut between them
        # ends with a begin (B) whose end never came, an event the file holds
        timed = [e for e in events if e.get('ph') in ('X', 'B') or
                 (e.get('ph') == 'i' and e.get('cat') == 'process')]
        first = min(round(e['ts'] * 1000) for e in timed)
        until = max(round(e['ts'] * 1000) + round(e.get('dur', 0) * 1000) for e in timed)

        res = run_report(['--json', out])
        rep = json.loads(res.stdout)
        t = rep['traces'][0]
        self.assertEqual((t['stop_reason'], t['truncated'], t['write_error'], t['complete'],
                          t['stopped_early'], rep['job']['stopped_early']),
                         ('output write error', True, 'No space left on device', False, True,
                          True))
        self.assertEqual((t['stop_ns'], t['stop_wall_ns'], t['events_until_ns']),
                         (summary['duration_ns'], summary['end_wall_ns'], until))
        # it stopped after the last event the file kept, while the job still ran
        self.assertLessEqual(first, t['events_until_ns'])
        self.assertLess(t['events_until_ns'], t['stop_ns'])
        self.assertLess(t['start_wall_ns'], t['stop_wall_ns'])
        self.assertLess(t['stop_wall_ns'], end_wall)
        self.assertEqual(t['events_not_written'], summary['events'] - t['events'])
        self.assertGreater(t['events_not_written'], 0)
        # the time before, no more; a read cut after its begin packet (the last event, 'B')
        # is no complete call and no read of the figures
        cut = [e for e in preads if e['ph'] != 'X']
        self.assertIn([e['ph'] for e in cut], ([], ['B']))
        if cut:
            self.assertEqual(cut[0]['ts'], max(e['ts'] for e in preads))
        self.assertEqual(rep['pattern']['reads'], len(preads) - len(cut))
        warning = t['warnings'][0]
        self.assertIn(self.STOP, warning)
        self.assertIn(' into the trace, %s; its events end at ' % wall_ms(t['stop_wall_ns']),
                      warning)
        self.assertIn(', {:,} more were not written; the figures cover only the trace\'s '
                      'first '.format(t['events_not_written']), warning)
        self.assertEqual(len(t['warnings']), 1)
        self.assertEqual(res.stderr.decode(), 'dltrace report: warning: %s\n' % warning)
        # the terminal: once, near the top, and only there (not also on stderr)
        res = run_report([out])
        lines = res.stdout.decode().splitlines()
        self.assertEqual([i for i, l in enumerate(lines) if self.STOP in l], [3])
        self.assertEqual(lines[3], '  warning: ' + warning)
        self.assertEqual(res.stderr, b'')
        # the HTML page: once, first in its first section
        page = os.path.join(self.dir, 'report.html')
        run_report(['-q', '--html', page, out])
        with open(page, encoding='utf-8') as f:
            html = f.read()
        self.assertEqual(html.count('tracing stopped early'), 1)
        self.assertIn('<section id="job"><h2>Job</h2><p class="warnline">Warning: %s</p>' %
                      html_text(warning), html)

    def test_full_disk_json_and_report_at_the_end(self):
        out = os.path.join(self.mnt, 't.json')
        stdout, err, end_wall = self.trace_until_stopped(out, '--layers', 'syscall',
                                                         '--report')
        self.check_stopped(out, end_wall)
        # the report printed when tracing ended saw every event traced: it says the stop
        # once, with no events left out of it
        stops = [l for l in stdout.splitlines() if self.STOP in l]
        self.assertEqual(len(stops), 1, stdout)
        self.assertRegex(stops[0], r'^  warning: %s: %s[\d.]+ [mun]?s into the trace, '
                         r'[-\dT:.]+Z; its events end at [\d.]+ [mun]?s; the figures cover '
                         r"only the trace's first [\d.]+ [mun]?s$" %
                         (re.escape(out), re.escape(self.STOP)))

    def test_full_disk_pftrace(self):
        out = os.path.join(self.mnt, 't.pftrace')
        self.check_stopped(out, self.trace_until_stopped(out, '--layers', 'syscall')[2])

    def test_a_whole_job_says_nothing_of_it(self):
        out = os.path.join(self.dir, 'whole.json')
        res = subprocess.run([DLTRACE, '-q', '-o', out, '--layers', 'syscall', '--',
                              PATTERNS, 'preads-wait', self.input, '1000'],
                             stdin=subprocess.DEVNULL, capture_output=True, timeout=300)
        self.assertEqual(res.returncode, 0, res.stderr)
        summary = load_trace(out)[-1]['args']
        rep = report_json(out)
        t = rep['traces'][0]
        self.assertEqual((t['stop_reason'], t['truncated'], t['write_error'], t['complete'],
                          t['stopped_early'], rep['job']['stopped_early'],
                          t['events_not_written'], t['capped_events'], t['warnings']),
                         ('target exited', False, None, True, False, False, 0, 0, []))
        self.assertEqual((t['stop_ns'], t['stop_wall_ns'], t['events']),
                         (summary['duration_ns'], summary['end_wall_ns'], summary['events']))
        self.assertEqual(rep['pattern']['reads'], 1000)
        self.assertNotIn('stopped early', run_report([out]).stdout.decode())
        page = os.path.join(self.dir, 'report.html')
        run_report(['-q', '--html', page, out])
        with open(page, encoding='utf-8') as f:
            self.assertNotIn('stopped early', f.read())


if __name__ == '__main__':
    unittest.main()
