"""A call on a descriptor names the file the descriptor referred to at the
call, however the descriptor was made (docs/user-guide.md "How descriptors are named").

Each case runs ROUNDS times in one trace (tests/workloads/fd_kinds.c): the
rounds linger differently, so a name that depended on when the records were
decoded would be wrong in some of them."""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

from dltrace_harness import (DLTRACE, PYTHON, ROOT, TraceTest, Tracer, load_trace, summary,
                             workload)

ROUNDS = 10
FD_KINDS = workload('fd_kinds')
DATA_CALLS = ('read', 'write', 'pread64', 'pwrite64', 'readv', 'writev', 'preadv', 'pwritev',
              'preadv2', 'pwritev2')


def calls(events, pid, names, fd=None):
    """(name, path, ret) of pid's syscalls named in names (on fd), in order."""
    out = [e for e in events if e.get('ph') == 'X' and e['pid'] == pid and e['name'] in names
           and (fd is None or e['args'].get('fd') == fd)]
    out.sort(key=lambda e: e['ts'])
    return [(e['name'], e['args'].get('path'), e['args'].get('ret')) for e in out]


def rounds(stdout):
    return [json.loads(l) for l in stdout.decode().splitlines() if l.startswith('{')]


class NamingTest(TraceTest):
    def write(self, name, size):
        p = self.path(name)
        with open(p, 'wb') as f:
            f.write(os.urandom(size))
        return p

    def assert_none_unknown(self, events):
        self.assertEqual([e for e in events if e.get('ph') == 'X' and
                          e['args'].get('path_unknown')], [])
        self.assertNotIn('paths_unknown', summary(events))
        self.assertEqual(summary(events)['lost_events'], 0)


class FdNamingTest(NamingTest):
    def test_scm_rights_with_fd_number_reused(self):
        a, b = self.write('a', 4096), self.write('b', 4096)
        res, events = self.trace_command([FD_KINDS, 'scm', a, b, str(ROUNDS)])
        got = rounds(res.stdout)
        self.assertEqual(len(got), ROUNDS)
        for r in got:
            child, n = r['child'], r['fd']
            sock = 'socket:[%d]' % r['sock_ino']
            # the parent's end of the socketpair closed, its number given to the received
            # descriptor, closed, then reused by an open of b
            self.assertEqual(calls(events, child, ('read', 'close', 'openat'), fd=n),
                             [('close', sock, 0), ('read', a, 100), ('close', a, 0), ('openat', b, n),
                              ('read', b, 200)], 'round %d' % r['round'])
            sock = 'socket:[%d]' % r['sock_ino']
            parent = [e for e in events if e.get('ph') == 'X' and e['name'] == 'read' and
                      e['args'].get('path') == sock]
            self.assertEqual([(e['args']['ret'], e['args']['socket_family']) for e in parent],
                             [(4, 'AF_UNIX')])
            writes = calls(events, child, ('write',))
            self.assertEqual(len(writes), 1)
            self.assertRegex(writes[0][1], r'^socket:\[\d+\]$')
            self.assertNotEqual(writes[0][1], sock)  # the peer is another inode
        self.assert_none_unknown(events)

    def test_socketpair_pipe_and_eventfd_with_a_forked_child(self):
        res, events = self.trace_command([FD_KINDS, 'pair', str(ROUNDS)])
        got = rounds(res.stdout)
        self.assertEqual(len(got), ROUNDS)
        for r in got:
            s0, s1 = ['socket:[%d]' % i for i in r['sock_ino']]
            pipe = 'pipe:[%d]' % r['pipe_ino']
            ev = 'anon_inode:[eventfd]'
            parent = [e for e in events if e.get('ph') == 'X' and e['name'] in ('read', 'write')
                      and e['args'].get('path') in (s0, pipe) and e['pid'] != r['child']]
            parent.sort(key=lambda e: e['ts'])
            self.assertEqual([(e['name'], e['args']['fd'], e['args']['path'], e['args']['ret'])
                              for e in parent],
                             [('read', r['sock'][0], s0, 10), ('read', r['pipe'][0], pipe, 20),
                              ('write', r['sock'][0], s0, 5)])
            self.assertEqual(calls(events, r['child'], ('read', 'write')),
                             [('write', s1, 10), ('write', pipe, 20), ('write', ev, 8),
                              ('read', s1, 5)], 'round %d' % r['round'])
            self.assertTrue(all(e['args']['socket_family'] == 'AF_UNIX' for e in parent
                                if e['args']['path'] == s0))
        self.assert_none_unknown(events)

    def test_memfd_write_then_mmap(self):
        res, events = self.trace_command([FD_KINDS, 'memfd', str(ROUNDS)])
        got = rounds(res.stdout)
        self.assertEqual(len(got), ROUNDS)
        pid = next(e['pid'] for e in events if e['name'] == 'mmap' and
                   e['args'].get('path') == 'memfd:dltrace-mem')
        seq = [c for c in calls(events, pid, ('write', 'mmap', 'munmap', 'close'))
               if c[1] == 'memfd:dltrace-mem']
        self.assertEqual([(n, ret if n != 'mmap' else None) for n, _, ret in seq],
                         [('write', 4096), ('mmap', None), ('munmap', 0), ('close', 0)] * ROUNDS)
        self.assert_none_unknown(events)

    def test_descriptor_inherited_across_exec_after_attach(self):
        a = self.write('a', 4096)
        target = subprocess.Popen([FD_KINDS, 'target', a, str(ROUNDS)], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE)
        try:
            ready = target.stdout.readline().decode().split()
            self.assertEqual(ready[0], 'ready')
            pid, fd = int(ready[1]), int(ready[2])
            tracer = Tracer(['--pid', str(pid)], self.path('trace.json')).wait_ready()
            out, _ = target.communicate(b'go\n', timeout=120)
            self.assertEqual(target.returncode, 0)
        finally:
            if target.poll() is None:
                target.kill()
        tracer.wait()
        events = load_trace(self.path('trace.json'))
        got = rounds(out)
        self.assertEqual(len(got), ROUNDS)
        for r in got:
            child = r['child']
            # the child exec'd; fd (opened by its parent before attach) is named as of the call
            self.assertEqual(calls(events, child, ('pread64',), fd=fd), [('pread64', a, 100)])
            writes = calls(events, child, ('write',))
            self.assertEqual(len(writes), 1)
            self.assertRegex(writes[0][1], r'^socket:\[\d+\]$')
            sock = 'socket:[%d]' % r['sock_ino']
            self.assertEqual([c for c in calls(events, pid, ('read',), fd=r['sock'])
                              if c[1] == sock], [('read', sock, 7)])
        self.assert_none_unknown(events)

    def test_name_sent_again_after_a_rename(self):
        root = self.path('r')
        for r in range(ROUNDS):
            os.makedirs(os.path.join(root, str(r)))
            with open(os.path.join(root, str(r), 'f'), 'wb') as f:
                f.write(b'x' * 100)
        tracer_out = self.path('trace.json')
        cmd = [DLTRACE, '-o',
               tracer_out, '--', FD_KINDS, 'rename', root, str(ROUNDS)]
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL)
        for r in range(ROUNDS):
            d = os.path.join(root, str(r))
            self.assertEqual(proc.stdout.readline().split()[:2], [b'ready', str(r).encode()])
            os.rename(os.path.join(d, 'f'), os.path.join(d, 'g'))  # by another process
            proc.stdin.write(b'\n')
            proc.stdin.flush()
            self.assertEqual(proc.stdout.readline().split()[:2], [b'ready', str(r).encode()])
            os.rename(d, d + '.moved')
            proc.stdin.write(b'\n')
            proc.stdin.flush()
        proc.stdin.close()
        self.assertEqual(proc.wait(120), 0)
        events = load_trace(tracer_out)
        preads = [e for e in events if e.get('ph') == 'X' and e['name'] == 'pread64' and
                  e['args'].get('path', '').startswith(root + '/')]
        preads.sort(key=lambda e: e['ts'])
        want = []
        for r in range(ROUNDS):
            d = os.path.join(root, str(r))
            want += [(d + '/f', 10), (d + '/g', 20), (d + '.moved/g', 30)]
        self.assertEqual([(e['args']['path'], e['args']['ret']) for e in preads], want)
        self.assert_none_unknown(events)


class PyTorchExampleTest(NamingTest):
    """The example of make demo (examples/pytorch), its dataset staged in /dev/shm: the
    DataLoader's pipes and its descriptor-passing sockets (torch's resource sharer) are
    named by kind, never after a /dev/shm/torch_* file a descriptor number meant at
    another time; the report keeps them out of the /dev row."""

    def setUp(self):
        super().setUp()
        self.shm = tempfile.mkdtemp(prefix='dltrace-test-', dir='/dev/shm')

    def tearDown(self):
        shutil.rmtree(self.shm, ignore_errors=True)
        super().tearDown()

    def test_dataloader_sockets_and_pipes(self):
        example = os.path.join(ROOT, 'examples', 'pytorch')
        subprocess.run([PYTHON, os.path.join(example, 'make_dataset.py'), self.shm, '--npz',
                        '160', '--h5', '160'], check=True, capture_output=True, timeout=300)
        # 20 batches of 16 over 2 epochs: each one crosses a pipe and a socket
        res, events = self.trace_command(
            [PYTHON, os.path.join(example, 'train.py'), self.shm, self.path('ck'), '--epochs',
             '2', '--workers', '2', '--batch-size', '16'], name='train.json')
        xs = [e for e in events if e.get('ph') == 'X' and e.get('cat') in
              ('data', 'metadata', 'sync', 'hint')]
        main = next(e['pid'] for e in events if e['name'] == 'exec')
        data = [e for e in xs if e['name'] in DATA_CALLS]
        # every data call is named, and nothing is guessed
        self.assertEqual([e for e in data if not e['args'].get('path')], [])
        self.assert_none_unknown(events)
        kinds = {}
        for e in data:
            p = e['args']['path']
            if not p.startswith('/'):
                self.assertRegex(p, r'^(socket|pipe):\[\d+\]$|^anon_inode:')
                kinds.setdefault(p.split(':')[0], []).append(e)
        main_socket = [e for e in kinds.get('socket', []) if e['pid'] == main]
        main_pipe = [e for e in kinds.get('pipe', []) if e['pid'] == main]
        self.assertGreaterEqual(len([e for e in main_socket if e['name'] == 'read']), 20)
        self.assertGreaterEqual(len([e for e in main_pipe if e['name'] == 'read']), 20)
        self.assertTrue(all(e['args'].get('socket_family') == 'AF_UNIX' for e in main_socket))
        # torch never reads its shared-memory files; it writes one byte at 0 to size each
        # (MapAllocator) after its ftruncate: before, the socket calls were named after them
        shm = [e for e in data if e['args']['path'].startswith('/dev/shm/torch_')]
        created = [e for e in xs if e['name'] == 'ftruncate' and
                   e['args'].get('path', '').startswith('/dev/shm/torch_')]
        self.assertGreaterEqual(len(created), 20)
        self.assertEqual(sorted((e['name'], e['args']['ret'], e['args']['offset'], e['pid'])
                                for e in shm),
                         sorted(('write', 1, 0, e['pid']) for e in created))
        # the dataset staged in /dev/shm is the application's, every byte of it; torch's
        # segments are shared memory, with the sockets and pipes; /dev keeps what is below it
        rep = json.loads(subprocess.run([DLTRACE, 'report', '--json', '--top', '100000',
                                         self.path('train.json')],
                                        capture_output=True, check=True, timeout=120).stdout)
        dev = next((k for k in rep['environment']['kinds'] if k['kind'] == 'dev'),
                   {'bytes_read': 0, 'bytes_written': 0})

        def read_bytes(pred, calls=('read', 'pread')):
            return sum(e['args']['ret'] for e in data if e['args']['ret'] > 0 and
                       e['name'].startswith(calls) and pred(e['args']['path']))

        def below_dev(p):
            return p.startswith('/dev/') and not p.startswith('/dev/shm/')

        def segment(p):  # torch's, and the semaphores of its queues (sem.*)
            return ((p.startswith('/dev/shm/') and not p.startswith(self.shm + '/')) or
                    p.startswith(('/memfd:', '/SYSV')))

        def segment_or_unnamed(p):
            return not p.startswith('/') or segment(p)

        dataset = read_bytes(lambda p: p.startswith(self.shm + '/'))
        self.assertGreaterEqual(dataset, os.path.getsize(os.path.join(self.shm, 'train.h5')))
        staged = {f['path']: f['bytes_read'] for f in rep['files']['list']
                  if f['path'].startswith(self.shm + '/')}
        read = {e['args']['path'] for e in data if e['args']['path'].startswith(self.shm + '/')}
        self.assertEqual({p: staged.get(p) for p in read},
                         {p: read_bytes(lambda x: x == p) for p in read})
        self.assertEqual(sum(staged.values()), dataset)
        self.assertFalse([f for f in rep['files']['list'] if '/dev/shm/torch_' in f['path']])
        self.assertEqual(dev['bytes_read'], read_bytes(below_dev))
        self.assertEqual(dev['bytes_written'], read_bytes(below_dev, ('write', 'pwrite')))
        self.assertEqual(rep['other']['bytes_read'], read_bytes(segment_or_unnamed))
        self.assertEqual(rep['other']['bytes_written'],
                         read_bytes(segment_or_unnamed, ('write', 'pwrite')))
        self.assertEqual((rep['other']['shared_memory']['bytes_read'],
                          rep['other']['shared_memory']['bytes_written']),
                         (read_bytes(segment), read_bytes(segment, ('write', 'pwrite'))))


if __name__ == '__main__':
    unittest.main()
