"""Capture layers beyond syscalls: mmap page faults, page-cache misses,
block requests, io_uring requests, and the VFS layer where the kernel
allows fentry or kprobes (reported unavailable, with the reason, where not).

The cache and block tests need a disk-backed file system (not tmpfs): they
work in build/tests/scratch, inside the checkout.
"""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

from dltrace_harness import BUILD, DLTRACE, helper, load_trace, metadata, run_command, workload

SCRATCH_PARENT = os.path.join(BUILD, 'tests', 'scratch')
TMPFS_MAGIC = 0x01021994


def write_random(path, size):
    with open(path, 'wb') as f:
        f.write(os.urandom(size))
        f.flush()
        os.fsync(f.fileno())


def kernel_features():
    out = subprocess.run([workload('kernel_features')], capture_output=True, check=True)
    return json.loads(out.stdout)


class LayerTest(unittest.TestCase):
    def setUp(self):
        os.makedirs(SCRATCH_PARENT, exist_ok=True)
        self.dir = tempfile.mkdtemp(prefix='layers-', dir=SCRATCH_PARENT)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def trace(self, mode, *files, args=()):
        out = self.trace_path = os.path.join(self.dir, 'trace.json')
        res = run_command(list(args), out, [workload('layer_io'), mode] + list(files))
        self.assertEqual(res.returncode, 0, res.stderr.decode())
        report = json.loads(res.stdout.decode().strip().splitlines()[-1])
        return report, load_trace(out), res.stderr.decode()

    @staticmethod
    def faults(report, events, path):
        """The workload's page faults on path, in trace order."""
        return [e for e in events if e['name'] == 'page_fault' and e['pid'] == report['pid'] and
                e['args'].get('path') == path]

    def test_mmap_page_faults(self):
        path = os.path.join(self.dir, 'mapped.bin')
        write_random(path, 4 << 20)
        report, events, _ = self.trace('mmap', path)
        faults = self.faults(report, events, path)
        # exactly the touched pages, in the order they were touched
        self.assertEqual([e['args']['offset'] for e in faults], report['offsets'])
        self.assertTrue(all(e['args']['access'] == 'read' and e['tid'] == report['pid']
                            for e in faults))
        self.assertEqual({e['args']['ino'] for e in faults}, {os.stat(path).st_ino})
        self.assertIn('mmap', metadata(events)['layers'].split(','))

    def assert_file_pages_faulted(self, mode):
        """layer_io MODE's file pages, mapped where anonymous memory was, every other page from
        the address it printed: each page's fault is in the trace, in order."""
        path = os.path.join(self.dir, mode + '.bin')
        write_random(path, 1 << 20)
        report, events, _ = self.trace(mode, path)
        faults = self.faults(report, events, path)
        self.assertEqual([e['args']['offset'] for e in faults], report['offsets'])
        self.assertEqual([int(e['args']['address'], 16) for e in faults],
                         [report['address'] + k * 2 * 4096 for k in range(4)])

    def test_page_faults_where_anonymous_memory_was(self):
        """A thread's faults on anonymous memory are not looked up again, until a file is mapped."""
        self.assert_file_pages_faulted('mmap-reuse')

    def test_page_faults_where_one_of_two_anonymous_allocations_was(self):
        """What a thread remembered of its anonymous memory before a file was mapped is forgotten
        at its next lookup: a file mapped over the second of two allocations, a fault in the
        first, then the file's pages."""
        self.assert_file_pages_faulted('mmap-reuse-two')

    def test_page_faults_of_a_file_moved_where_anonymous_memory_was(self):
        """mremap moves a file's mapping onto memory a thread remembers as anonymous: the file's
        pages fault there, and each fault is in the trace."""
        self.assert_file_pages_faulted('mmap-moved')

    def test_page_faults_after_the_mapping_changed(self):
        """A file mapping a thread remembers is not used once the address space's mappings have
        changed: a fault after mprotect(PROT_EXEC) is executable, one after a MAP_FIXED mapping of
        the file's second half has that half's offset, and a write to anonymous memory allocated
        where the file was unmapped is not a fault on the file."""
        path = os.path.join(self.dir, 'changed.bin')
        write_random(path, 16 << 20)
        report, events, _ = self.trace('mmap-changed', path)
        faults = self.faults(report, events, path)
        self.assertEqual([[e['args']['offset'], int(e['args']['address'], 16),
                           int(e['args'].get('exec', False))] for e in faults], report['faults'])
        self.assertTrue(all(e['args']['access'] == 'read' for e in faults))

    def test_cache_misses_cold_and_hot(self):
        path = os.path.join(self.dir, 'cold.bin')
        write_random(path, 1 << 20)
        self.assertNotEqual(os.statvfs(path).f_fsid, 0)
        report, events, _ = self.trace('cache', path)
        reads = [e for e in events if e['name'] == 'pread64' and e['pid'] == report['pid'] and
                 e['args'].get('path') == path]
        self.assertEqual([(e['args']['ret'], e['args']['cache_miss_bytes']) for e in reads],
                         [(report['cold'], 1 << 20), (report['hot'], 0)])
        # the report: 1 MiB of the 2 MiB read came from storage
        out = subprocess.run([DLTRACE, 'report', '--json', '--top', '1000', self.trace_path],
                             capture_output=True, check=True)
        files = json.loads(out.stdout)['files']['list']
        cold = next(f for f in files if f['path'] == path)
        self.assertEqual((cold['bytes_read'], cold['cache_miss_bytes'], cold['cache_hit_ratio']),
                         (2 << 20, 1 << 20, 0.5))
        out = subprocess.run([DLTRACE, 'report', self.trace_path], capture_output=True,
                             check=True).stdout.decode()
        self.assertRegex(out, r'\n  \S*cold\.bin +2\.00 MiB +1\.00 MiB +50%\n')

    def test_block_requests_of_direct_io(self):
        path = os.path.join(self.dir, 'direct.bin')
        write_random(path, 1 << 20)
        report, events, _ = self.trace('block', path)
        def in_file(e):
            first, count = e['args']['sector'], e['args']['bytes'] // 512
            return any(start <= first and first + count <= start + length
                       for start, length in report['extents'])
        # the requests that read the file's blocks (the process may also fault in its code)
        begins = [e for e in events if e.get('cat') == 'block' and e['ph'] == 'b' and
                  e['args'].get('issuer_pid') == report['pid'] and in_file(e)]
        ends = {e['id2']['local']: e for e in events if e.get('cat') == 'block' and e['ph'] == 'e'}
        self.assertTrue(begins)
        self.assertEqual({e['name'] for e in begins}, {'read'})
        self.assertEqual(sum(e['args']['bytes'] for e in begins), report['bytes'])
        self.assertEqual({e['args']['dev'] for e in begins}, {report['dev']})
        for b in begins:
            e = ends[b['id2']['local']]
            self.assertGreaterEqual(e['ts'], b['ts'])
            self.assertGreater(e['args']['latency_us'], 0)
        # the device track is named and carries a throughput counter
        track = begins[0]['pid']
        names = {e['pid']: e['args']['name'] for e in events if e['name'] == 'process_name'}
        self.assertTrue(names[track].startswith('block '), names[track])
        self.assertIn('(%s)' % report['dev'], names[track])
        counters = [e for e in events if e['ph'] == 'C' and e['pid'] == track]
        # MB/s over 100 ms buckets, printed with 3 decimals (other I/O on the disk may add)
        read_bytes = sum(e['args']['read'] for e in counters) * 0.1 * 1e6
        self.assertGreaterEqual(read_bytes, report['bytes'] - 50 * len(counters))

    def test_block_requests_dispatched_by_a_kernel_worker(self):
        # a loop device of few small requests: the reader sleeps for a request
        # while its plug holds others, and kblockd dispatches those; each
        # request's issuer is still the reader
        image = os.path.join(self.dir, 'device.img')
        with open(image, 'wb') as f:
            f.truncate(2 << 20)
        res = subprocess.run(['losetup', '--find', '--show', image], capture_output=True,
                             text=True)
        self.assertEqual(res.returncode, 0, 'setup failed: losetup: ' + res.stderr)
        device = res.stdout.strip()
        self.addCleanup(subprocess.run, ['losetup', '-d', device])
        queue = '/sys/block/%s/queue/' % os.path.basename(device)
        for knob, value in (('scheduler', 'mq-deadline'), ('max_sectors_kb', '4'),
                            ('nr_requests', '4')):
            with open(queue + knob, 'w') as f:
                f.write(value)
            with open(queue + knob) as f:
                got = f.read().split()
            self.assertIn(value if knob != 'scheduler' else '[%s]' % value, got,
                          'setup failed: %s of %s' % (knob, device))
        # udev's probe of the new device, if any, is over before the trace
        subprocess.run(['udevadm', 'settle', '--timeout=10'], capture_output=True)
        report, events, _ = self.trace('block-device', device)
        self.assertEqual(report['bytes'], 2 << 20)
        begins = [e for e in events if e.get('cat') == 'block' and e['ph'] == 'b' and
                  e['args']['dev'] == report['dev']]
        self.assertEqual(sorted((e['args']['sector'], e['args']['bytes']) for e in begins),
                         [(k * 8, 4096) for k in range(512)])
        self.assertEqual({(e['name'], e['args'].get('issuer_pid')) for e in begins},
                         {('read', report['pid'])})

    def test_io_uring_reads(self):
        path = os.path.join(self.dir, 'uring.bin')
        write_random(path, 64 << 10)
        report, events, _ = self.trace('uring', path)
        begins = [e for e in events if e.get('cat') == 'uring' and e['ph'] == 'b' and
                  e['pid'] == report['pid']]
        ends = {e['id2']['local']: e for e in events if e.get('cat') == 'uring' and e['ph'] == 'e'}
        got = sorted((b['args']['offset'], b['args']['len'], ends[b['id2']['local']]['args']['ret'],
                      b['args']['fd'], b['args']['path'], b['name']) for b in begins)
        self.assertEqual(got, [(0, 4096, 4096, report['fd'], path, 'READ'),
                               (4096, 8192, 8192, report['fd'], path, 'READ'),
                               (20000, 100, 100, report['fd'], path, 'READ')])
        self.assertEqual(sorted(report['res']), [100, 4096, 8192])
        user_data = sorted(b['args']['user_data'] for b in begins)
        self.assertEqual(user_data, ['0x64', '0x65', '0x66'])

    def check_vfs(self, attach, expected_how):
        path = os.path.join(self.dir, 'vfs.bin')
        out = os.path.join(self.dir, 'vfs.out')
        write_random(path, 8192)
        report, events, stderr = self.trace('vfs', path, out, args=['--vfs-attach', attach])
        meta = metadata(events)
        methods = dict(m.split(': ', 1) for m in meta['layers_attach'].split('; '))
        self.assertEqual(methods['syscall'], 'syscall tracepoints')
        # the method the kernel allows, written in the trace
        self.assertEqual(methods.get('vfs'), {'fentry': 'fentry/fexit',
                                              'kprobe': 'kprobe/kretprobe'}.get(expected_how))
        if expected_how is None:
            self.assertNotIn('vfs', meta['layers'].split(','))
            self.assertIn('vfs: ', meta['layers_unavailable'])
            self.assertIn('layers unavailable: vfs: ', stderr)
            self.assertFalse([e for e in events if e.get('cat') == 'vfs'])
            return
        self.assertIn('vfs', meta['layers'].split(','))
        mine = [e for e in events if e.get('cat') == 'vfs' and e['pid'] == report['pid']]
        reads = [e for e in mine if e['name'] == 'vfs_read' and e['args'].get('path') == path]
        writes = [e for e in mine if e['name'] == 'vfs_write' and e['args'].get('path') == out]
        fsyncs = [e for e in mine if e['name'] == 'vfs_fsync_range' and e['args'].get('path') == out]
        self.assertEqual([(e['args']['size'], e['args']['ret']) for e in reads],
                         [(4096, report['read'])])
        self.assertEqual([(e['args']['size'], e['args']['ret']) for e in writes],
                         [(report['read'], report['write'])])
        self.assertEqual(len(fsyncs), 1)
        # sendfile's reads happen inside the kernel: seen as rw_verify_area checks,
        # one on 6.18; two on 6.1, where do_sendfile and the splice path each check
        checks = [e for e in mine if e['name'] == 'rw_verify_area' and
                  e['args'].get('path') == path and e['args']['write'] == 0]
        self.assertIn([e['args']['size'] for e in checks], ([1000], [1000, 1000]))
        opened = [e for e in mine if e['name'] == 'vfs_open' and e['args'].get('path') == path]
        self.assertEqual(len(opened), 1)
        self.assertEqual(opened[0]['args']['ino'], os.stat(path).st_ino)

    def test_vfs_layer_matches_the_kernel(self):
        """fentry where the kernel allows it, else kprobes, else unavailable with a reason."""
        f = kernel_features()
        self.check_vfs('auto', 'fentry' if f['fentry'] else 'kprobe' if f['kprobe'] else None)
        self.check_vfs('kprobe', 'kprobe' if f['kprobe'] else None)
        self.check_vfs('fentry', 'fentry' if f['fentry'] else None)

    def test_layer_selection(self):
        report, events, stderr = self.trace('cache', self.make_file(), args=['--layers',
                                                                             'syscall'])
        self.assertEqual(metadata(events)['layers'], 'syscall')
        self.assertEqual(metadata(events)['layers_attach'], 'syscall: syscall tracepoints')
        self.assertNotIn('layers_unavailable', metadata(events))
        reads = [e for e in events if e['name'] == 'pread64' and e['pid'] == report['pid']]
        self.assertTrue(reads)
        self.assertFalse([e for e in reads if 'cache_miss_bytes' in e['args']])
        res = subprocess.run([DLTRACE, '--layers', 'syscall,bogus',
                              '--', 'true'], capture_output=True)
        self.assertEqual(res.returncode, 2)
        self.assertIn("unknown layer 'bogus'", res.stderr.decode())

    def make_file(self):
        path = os.path.join(self.dir, 'f.bin')
        write_random(path, 1 << 20)
        return path


if __name__ == '__main__':
    unittest.main()
