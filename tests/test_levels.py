"""The levels above the syscalls, in the trace and in the report: library
calls (stdio, hdf5, mpiio) and the job's marked phases, exact calls, sizes,
offsets, names and files, every slice nested with the syscalls it made on
its thread; what the report makes of them (levels, training loops, data
stall); the trace read back into events and written again byte for byte.
"""
import json
import os
import shutil
import subprocess
import unittest

from dltrace_harness import DLTRACE, PYTHON, ROOT, TraceTest, helper, load_trace, metadata, \
    run_command, runs_no_dltrace_code, tracer_processes, uprobes_on, wait_for, wait_until_detached, \
    workload

MARKERS_PY = os.path.join(ROOT, 'python')
REWRITE = helper('trace_rewrite')
LEVEL_CATS = ('stdio', 'hdf5', 'mpiio', 'marker')
READ_KINDS = ('read', 'pread64', 'readv', 'preadv', 'preadv2')
WRITE_KINDS = ('write', 'pwrite64', 'writev', 'pwritev', 'pwritev2')


def ldconfig_path(prefix):
    out = subprocess.run(['/sbin/ldconfig', '-p'], capture_output=True, text=True).stdout
    for line in out.splitlines():
        name = line.strip().split(' ')[0]
        if name.startswith(prefix) and '=>' in line and 'x86-64' in line:
            return line.split('=>')[-1].strip()
    return None


def ns(us):
    return int(round(us * 1000))


def is_syscall(ev):
    return ev.get('ph') == 'X' and ev.get('cat') in ('data', 'metadata', 'sync')


def inside(events, span):
    """The syscalls on span's thread that lie within it, in time order."""
    start, end = ns(span['ts']), ns(span['ts']) + ns(span['dur'])
    return sorted((e for e in events if is_syscall(e) and e['tid'] == span['tid'] and
                   e['pid'] == span['pid'] and start <= ns(e['ts']) and
                   ns(e['ts']) + ns(e['dur']) <= end), key=lambda e: e['ts'])


def spans(events, cat):
    return [e for e in events if e.get('cat') == cat]


class LevelTest(TraceTest):
    def trace(self, cmd, layers, extra=(), **kw):
        """Trace cmd with --layers layers: (events, dltrace's stderr)."""
        out = self.path('trace.json')
        res = run_command(['--layers', layers] + list(extra), out, cmd, timeout=600, **kw)
        self.assertEqual(res.returncode, 0, res.stderr.decode())
        return load_trace(out), res.stderr.decode()

    def report(self):
        out = subprocess.run([DLTRACE, 'report', '--json', self.path('trace.json')],
                             capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        return json.loads(out.stdout)

    def assert_round_trip(self):
        """JSON -> events -> JSON gives the trace back, byte for byte."""
        path = self.path('trace.json')
        out = subprocess.run([REWRITE, path], capture_output=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        with open(path, 'rb') as f:
            original = f.read()
        self.assertEqual(out.stdout.count(b'\n'), original.count(b'\n'))
        self.assertEqual(out.stdout, original)

    def assert_encloses_what_it_says(self, events, calls):
        """Each library call's syscall args are those of the syscalls inside it."""
        for c in calls:
            mine = inside(events, c)
            reads = [e for e in mine if e['name'] in READ_KINDS]
            writes = [e for e in mine if e['name'] in WRITE_KINDS]
            got = {k: c['args'].get(k, 0) for k in ('syscalls', 'sys_reads', 'sys_read_bytes',
                                                    'sys_writes', 'sys_write_bytes')}
            self.assertEqual(got, {'syscalls': len(mine), 'sys_reads': len(reads),
                                   'sys_read_bytes': sum(e['args']['ret'] for e in reads),
                                   'sys_writes': len(writes),
                                   'sys_write_bytes': sum(e['args']['ret'] for e in writes)}, c)
            self.assertNotIn('syscalls_partial', c['args'])


class StdioTest(LevelTest):
    def test_calls_sizes_offsets_and_nesting(self):
        # a relative directory: fopen's path is made absolute from the descriptor
        events, _ = self.trace([workload('level_calls'), 'stdio', '.'], 'syscall,stdio',
                               cwd=self.dir)
        data = self.path('stdio.bin')
        calls = [s for s in spans(events, 'stdio') if s['args'].get('path') == data]
        self.assertEqual([s['name'] for s in calls],
                         ['fopen'] + ['fwrite'] * 4 + ['fflush', 'fclose', 'fopen'] +
                         ['fread'] * 3 + ['fseek', 'ftell', 'fread', 'fclose'])
        self.assertEqual([s['args']['mode'] for s in calls if s['name'] == 'fopen'], ['w', 'r'])
        key = ('item_size', 'items', 'size', 'ret')
        self.assertEqual([tuple(s['args'][k] for k in key) for s in calls
                          if s['name'] == 'fwrite'], [(1, 4096, 4096, 4096)] * 4)
        self.assertEqual([tuple(s['args'][k] for k in key) for s in calls
                          if s['name'] == 'fread'],
                         [(1, 1000, 1000, 1000)] * 3 + [(4096, 1, 4096, 1)])
        seek = [s for s in calls if s['name'] == 'fseek'][0]['args']
        self.assertEqual((seek['offset'], seek['whence'], seek['ret']), (8192, 'SEEK_SET', 0))
        self.assertEqual([s['args']['ret'] for s in calls if s['name'] == 'ftell'], [8192])
        self.assert_encloses_what_it_says(events, calls)
        # each fopen encloses the openat of its descriptor; every call uses that descriptor
        for opened in (calls[0], calls[7]):
            opens = [e for e in inside(events, opened) if e['name'] == 'openat']
            self.assertEqual([(e['args']['path'], e['args']['fd']) for e in opens],
                             [(data, opened['args']['fd'])])
        self.assertEqual({s['args']['fd'] for s in calls}, {calls[0]['args']['fd']})
        # the stream's writes go out in fwrite and fflush, 16 KiB in 4 writes of the file
        written = [e for s in calls for e in inside(events, s) if e['name'] == 'write']
        self.assertEqual([(e['args']['path'], e['args']['ret']) for e in written],
                         [(data, 4096)] * 4)
        # reads: one buffer fill for the three small freads, one direct read after fseek
        reads = [[(e['name'], e['args']['ret']) for e in inside(events, s)
                  if e['name'] == 'read'] for s in calls if s['name'] == 'fread']
        self.assertEqual(reads, [[('read', 4096)], [], [], [('read', 4096)]])
        self.assertEqual([e['name'] for e in inside(events, calls[11])], ['lseek'])  # fseek
        self.assert_round_trip()
        lv = self.report()['levels']['stdio']
        self.assertEqual(lv['calls'], 15)
        self.assertEqual({(f['name'], f['calls']) for f in lv['functions']},
                         {('fopen', 2), ('fwrite', 4), ('fflush', 1), ('fclose', 2),
                          ('fread', 4), ('fseek', 1), ('ftell', 1)})
        r, w = lv['read'], lv['write']
        self.assertEqual((r['calls'], r['bytes_requested'], r['syscalls'], r['syscall_bytes']),
                         (4, 3 * 1000 + 4096, 2, 8192))
        self.assertEqual((r['syscalls_per_call'], r['bytes_ratio']), (0.5, 8192 / 7096))
        self.assertEqual((w['calls'], w['bytes_requested'], w['syscalls'], w['syscall_bytes']),
                         (4, 16384, 4, 16384))


class Hdf5Test(LevelTest):
    def setUp(self):
        super().setUp()
        self.lib = ldconfig_path('libhdf5_serial.so')
        self.assertTrue(self.lib, 'libhdf5 (libhdf5-103-1, with python3-h5py) is needed')
        self.h5 = self.path('data.h5')
        out = subprocess.run([PYTHON, '-c', '''if 1:
            import json, sys, h5py, numpy as np
            with h5py.File(sys.argv[1], "w") as f:
                f.create_dataset("images", data=np.arange(64 * 32 * 32, dtype="u1")
                                 .reshape(64, 32, 32), chunks=(8, 32, 32))
                f.create_dataset("labels", data=np.arange(64, dtype="i4"), chunks=(16,))
                f.create_group("meta").create_dataset("ints", data=np.arange(10, dtype="i4"))
            with h5py.File(sys.argv[1], "r") as f:
                chunks = {n: [(c.byte_offset, c.size) for c in
                              (f[n].id.get_chunk_info(i) for i in range(f[n].id.get_num_chunks()))]
                          for n in ("images", "labels")}
                chunks["ints"] = [(f["meta/ints"].id.get_offset(), 40)]
            print(json.dumps(chunks))
            ''', self.h5], check=True, capture_output=True, text=True)
        self.chunks = json.loads(out.stdout)

    def test_library_loaded_after_tracing_started(self):
        events, _ = self.trace([workload('level_calls'), 'hdf5', self.lib, self.h5,
                                '/meta/ints'], 'syscall,hdf5')
        calls = spans(events, 'hdf5')
        self.assertEqual([s['name'] for s in calls],
                         ['H5Fopen', 'H5Dopen2', 'H5Dread', 'H5Dclose', 'H5Fclose'])
        self.assertEqual({s['args']['path'] for s in calls}, {self.h5})
        self.assertEqual(calls[0]['args']['flags'], 'H5F_ACC_RDONLY')
        for s in calls[1:4]:
            self.assertEqual(s['args']['object'], '/meta/ints')
        read = calls[2]['args']
        self.assertEqual((read['file_space'], read['mem_space'], read['ret']), ('all', 'all', 0))
        self.assertEqual([(e['name'], e['args']['offset'], e['args']['ret'])
                          for e in inside(events, calls[2])],
                         [('pread64', self.chunks['ints'][0][0], 40)])
        self.assert_encloses_what_it_says(events, calls)
        fn = {f['name']: f for f in self.report()['levels']['hdf5']['functions']}
        self.assertEqual((fn['H5Dread']['calls'], fn['H5Dread']['sys_reads'],
                          fn['H5Dread']['sys_read_bytes']), (1, 1, 40))

    def test_h5py_datasets_in_main_and_forked_worker(self):
        script = '''if 1:
            import os, h5py
            def work():
                with h5py.File("data.h5", "r") as f:   # relative: resolved by its open
                    images, labels = f["images"], f["labels"]
                    for i in range(3):
                        images[i * 8:(i + 1) * 8]   # one chunk each
                    labels[0:16]
                    labels[16:32]
            work()
            pid = os.fork()                          # a DataLoader-style worker
            if pid == 0:
                work()
                os._exit(0)
            os.waitpid(pid, 0)
            '''
        events, _ = self.trace([PYTHON, '-c', script], 'syscall,hdf5', cwd=self.dir)
        calls = spans(events, 'hdf5')
        pids = sorted({s['pid'] for s in calls}, key=lambda p: min(
            s['ts'] for s in calls if s['pid'] == p))
        self.assertEqual(len(pids), 2)  # the main process and its forked worker
        self.assertTrue(any(e['name'] == 'fork' and e['args']['child_pid'] == pids[1] and
                            e['pid'] == pids[0] for e in events))
        for pid in pids:
            mine = [s for s in calls if s['pid'] == pid]
            self.assertEqual([s['args']['path'] for s in mine if s['name'] == 'H5Fopen'],
                             [self.h5])
            self.assertEqual({s['args']['path'] for s in mine}, {self.h5})
            # h5py opens datasets with H5Oopen (f["name"]), not H5Dopen2
            self.assertEqual([s['args']['object'] for s in mine if s['name'] == 'H5Oopen'],
                             ['/images', '/labels'])
            reads = [s for s in mine if s['name'] == 'H5Dread']
            self.assertEqual([s['args']['object'] for s in reads],
                             ['/images'] * 3 + ['/labels'] * 2)
            self.assert_encloses_what_it_says(events, reads)
            # each read's last pread64 is its chunk, at the chunk's offset in the file
            want = self.chunks['images'][:3] + self.chunks['labels'][:2]
            for s, (offset, size) in zip(reads, want):
                preads = [e for e in inside(events, s) if e['name'] == 'pread64']
                self.assertEqual((preads[-1]['args']['path'], preads[-1]['args']['offset'],
                                  preads[-1]['args']['ret']), (self.h5, offset, size), s)
            # the chunks after the first of each dataset: the one pread only
            self.assertEqual([s['args']['sys_reads'] for s in (reads[1], reads[2], reads[4])],
                             [1, 1, 1])
        self.assert_round_trip()
        hdf5 = self.report()['levels']['hdf5']
        fn = {f['name']: f for f in hdf5['functions']}
        self.assertEqual((fn['H5Fopen']['calls'], fn['H5Oopen']['calls'],
                          fn['H5Dread']['calls']), (2, 4, 10))
        pread_bytes = sum(e['args']['ret'] for s in calls if s['name'] == 'H5Dread'
                          for e in inside(events, s) if e['name'] == 'pread64')
        self.assertEqual((hdf5['read']['calls'], hdf5['read']['syscall_bytes']),
                         (10, pread_bytes))
        # asked: 3 chunks of 8 x 32 x 32 u1 and 2 x 16 i4, in each of the two processes
        self.assertEqual(hdf5['read']['bytes_requested'], 2 * (3 * 8 * 32 * 32 + 2 * 16 * 4))
        self.assertEqual([(s['args']['selection'], s['args']['bytes']) for s in calls
                          if s['name'] == 'H5Dread'],
                         2 * ([('hyperslab', 8192)] * 3 + [('hyperslab', 64)] * 2))


class MpiioTest(LevelTest):
    def test_mpi4py_file_on_two_ranks(self):
        script = '''if 1:
            import sys
            import numpy as np
            from mpi4py import MPI
            comm = MPI.COMM_WORLD
            rank = comm.Get_rank()
            fh = MPI.File.Open(comm, sys.argv[1], MPI.MODE_CREATE | MPI.MODE_RDWR)
            buf = np.full(1024, rank, dtype="i4")
            fh.Write_at(rank * 4096, buf)
            fh.Sync()
            fh.Write_at_all(8192 + rank * 4096, buf)
            out = np.empty(1024, dtype="i4")
            fh.Read_at(rank * 4096, out)
            fh.Read_at_all(8192 + rank * 4096, out)
            fh.Set_view(16384 + rank * 800, MPI.DOUBLE)
            fh.Write(np.arange(100, dtype="f8"))
            fh.Close()
            '''
        path = self.path('shared.bin')
        self.assertTrue(shutil.which('mpirun'), 'Open MPI (openmpi-bin) is needed')
        events, _ = self.trace(['mpirun', '--allow-run-as-root', '--oversubscribe', '-np', '2',
                                PYTHON, '-c', script, path], 'syscall,mpiio')
        calls = spans(events, 'mpiio')
        ranks = {}
        for s in calls:
            ranks.setdefault(s['pid'], []).append(s)
        self.assertEqual(len(ranks), 2)
        seen = set()
        for mine in ranks.values():
            self.assertEqual([s['name'] for s in mine],
                             ['MPI_File_open', 'MPI_File_write_at', 'MPI_File_sync',
                              'MPI_File_write_at_all', 'MPI_File_read_at',
                              'MPI_File_read_at_all', 'MPI_File_set_view', 'MPI_File_write',
                              'MPI_File_close'])
            self.assertEqual({s['args']['path'] for s in mine}, {path})
            self.assertEqual({s['args']['ret'] for s in mine}, {0})
            self.assertEqual(mine[0]['args']['amode'], 'MPI_MODE_CREATE|MPI_MODE_RDWR')
            by = {s['name']: s for s in mine}
            rank = by['MPI_File_write_at']['args']['offset'] // 4096
            seen.add(rank)
            for f, off in (('MPI_File_write_at', 0), ('MPI_File_write_at_all', 8192),
                           ('MPI_File_read_at', 0), ('MPI_File_read_at_all', 8192)):
                a = by[f]['args']
                self.assertEqual((a['offset'], a['count'], a['bytes']),
                                 (off + rank * 4096, 1024, 4096), f)
                moved = a['sys_read_bytes'] if 'read' in f else a['sys_write_bytes']
                self.assertEqual(moved, 4096, f)
            # the independent calls are one pwrite64/pread64 at the call's byte offset
            for f, kind in (('MPI_File_write_at', 'pwrite64'), ('MPI_File_read_at', 'pread64')):
                io = [(e['name'], e['args']['offset'], e['args']['ret'])
                      for e in inside(events, by[f]) if e['name'] == kind]
                self.assertEqual(io, [(kind, rank * 4096, 4096)], f)
            view = by['MPI_File_set_view']['args']
            self.assertEqual((view['disp'], view['etype_size'], view['datarep']),
                             (16384 + rank * 800, 8, 'native'))
            w = by['MPI_File_write']
            self.assertEqual((w['args']['count'], w['args']['bytes']), (100, 800))
            self.assertEqual([(e['args']['offset'], e['args']['ret']) for e in inside(events, w)
                              if e['name'] == 'pwrite64'], [(16384 + rank * 800, 800)])
            self.assert_encloses_what_it_says(events, mine)
        self.assertEqual(seen, {0, 1})
        # each rank's process has its MPI rank, from OMPI_COMM_WORLD_RANK in its environment
        names = {e['pid']: e['args'] for e in events if e.get('name') == 'process_name'}
        for pid, mine in ranks.items():
            rank = {s['name']: s for s in mine}['MPI_File_write_at']['args']['offset'] // 4096
            self.assertEqual((names[pid]['rank'], names[pid]['rank_from']),
                             (rank, 'OMPI_COMM_WORLD_RANK'))
        self.assert_round_trip()
        report = self.report()
        mpi = report['levels']['mpiio']
        self.assertEqual((mpi['read']['calls'], mpi['read']['bytes_requested'],
                          mpi['read']['syscall_bytes']), (4, 4 * 4096, 4 * 4096))
        self.assertEqual((mpi['write']['calls'], mpi['write']['bytes_requested']),
                         (6, 4 * 4096 + 2 * 800))
        # the same join for the file: both ranks' opens, reads and writes
        row = [o for o in report['levels']['objects'] if o['level'] == 'mpiio' and
               o['file'] == path]
        self.assertEqual(len(row), 1)
        self.assertEqual((row[0]['opens'], row[0]['read']['calls'],
                          row[0]['read']['bytes_requested'], row[0]['read']['syscall_bytes'],
                          row[0]['write']['calls'], row[0]['write']['bytes_requested']),
                         (2, 4, 4 * 4096, 4 * 4096, 6, 4 * 4096 + 2 * 800))


class MarkerTest(LevelTest):
    def test_two_epochs_of_five_steps(self):
        data = self.path('sample.bin')
        with open(data, 'wb') as f:
            f.write(b'x' * 1000)
        script = '''if 1:
            import sys
            sys.path.insert(0, sys.argv[1])
            import dltrace_markers as dltrace
            assert dltrace.enabled()
            for e in range(2):
                with dltrace.epoch(e):
                    for i in range(5):
                        with dltrace.step(i):
                            with open(sys.argv[2], "rb", buffering=0) as f:
                                f.read(100)
                    dltrace.counter("loss_x1000", 1000 - e)
                dltrace.instant("epoch_done", epoch=e, lr=0.125, tag="caf\\u00e9")
            '''
        events, _ = self.trace([PYTHON, '-c', script, MARKERS_PY, data], 'syscall,markers')
        marks = spans(events, 'marker')
        epochs = [s for s in marks if s['name'] == 'epoch']
        steps = [s for s in marks if s['name'] == 'step']
        self.assertEqual(len([s for s in marks if s['ph'] == 'X']), 12)
        self.assertEqual(sorted(s['args']['epoch'] for s in epochs), [0, 1])
        self.assertEqual({s['ph'] for s in epochs + steps}, {'X'})
        for epoch in sorted(epochs, key=lambda s: s['ts']):
            start, end = ns(epoch['ts']), ns(epoch['ts']) + ns(epoch['dur'])
            mine = sorted((s for s in steps if start <= ns(s['ts']) and
                           ns(s['ts']) + ns(s['dur']) <= end), key=lambda s: s['ts'])
            self.assertEqual([s['args'] for s in mine], [{'step': i} for i in range(5)])
            for s in mine:
                self.assertEqual(s['tid'], epoch['tid'])
                # the step's open (Python's stats it), read and close are inside it
                calls = [(e['name'], e['args']['ret']) for e in inside(events, s)
                         if e['args'].get('path') == data]
                self.assertEqual(calls, [('openat', calls[0][1]), ('newfstatat', 0),
                                         ('read', 100), ('close', 0)])
        self.assertEqual([(s['ph'], s['args']) for s in marks if s['name'] == 'loss_x1000'],
                         [('C', {'value': 1000}), ('C', {'value': 999})])
        self.assertEqual([(s['ph'], s['s'], s['args']) for s in marks
                          if s['name'] == 'epoch_done'],
                         [('i', 't', {'epoch': e, 'lr': 0.125, 'tag': 'caf\u00e9'})
                          for e in range(2)])
        self.assert_round_trip()
        ph = self.report()['phases']
        self.assertEqual({(r['name'], r['count']) for r in ph['regions']},
                         {('epoch', 2), ('step', 10)})
        self.assertEqual((ph['instants'], ph['counters']), (2, 2))
        loop, = ph['loops']
        self.assertEqual((loop['steps'], loop['epochs'], loop['stall_from']),
                         (10, 2, 'pipe_reads'))
        self.assertEqual([(s['epoch'], s['step'], s['bytes_read']) for s in loop['step_list']],
                         [(e, i, 100) for e in range(2) for i in range(5)])
        self.assertEqual([(e['epoch'], e['steps'], e['bytes_read']) for e in loop['epoch_list']],
                         [(0, 5, 500), (1, 5, 500)])

    @runs_no_dltrace_code
    def test_markers_cost_nothing_untraced(self):
        """Without a tracer the semaphores are 0 and the module calls no C."""
        # the test before may have traced markers: its detaching helper drops the USDT
        # semaphores with the perf events, seconds after dltrace's exit; the kernel closes
        # perf events one at a time for all tracers (event_mutex), so the helpers of several
        # tests before this one queue up: 6.8 s after an HDF5 test here, over 30 s in an
        # ASan run of the suite
        self.assertTrue(wait_until_detached(timeout=300), tracer_processes())
        # and until no process holds a probe on the library: a tracer's last perf events are
        # closed as it exits, after /proc stops showing what it runs
        lib = subprocess.run([PYTHON, '-c', '''if 1:
            import sys
            sys.path.insert(0, sys.argv[1])
            import dltrace_markers as dltrace
            print(dltrace.library_path())
            ''', MARKERS_PY], capture_output=True, text=True, check=True).stdout.strip()
        self.assertTrue(wait_for(lambda: not uprobes_on(lib), timeout=300), uprobes_on(lib))
        out = subprocess.run([PYTHON, '-c', '''if 1:
            import sys
            sys.path.insert(0, sys.argv[1])
            import dltrace_markers as dltrace
            print(dltrace.library_path() is not None, dltrace.enabled())
            with dltrace.region("x", a=1):
                dltrace.instant("y")
            ''', MARKERS_PY], capture_output=True, text=True, check=True)
        self.assertEqual(out.stdout.split(), ['True', 'False'])


class PhaseReportTest(LevelTest):
    """The report of a training loop whose steps sleep and read known amounts."""

    def run_loop(self, mode):
        data = self.path('data.bin')
        with open(data, 'wb') as f:
            f.write(os.urandom(100000))
        events, _ = self.trace([PYTHON, os.path.join(ROOT, 'tests', 'workloads',
                                                     'training_phases.py'),
                                MARKERS_PY, data, self.path('checkpoint.bin'), mode],
                               'syscall,markers')
        return data, events, self.report()

    def test_starved_loader(self):
        data, _, rep = self.run_loop('starved')
        loop, = rep['phases']['loops']
        self.assertEqual((loop['steps'], loop['epochs'], loop['stall_from']), (10, 2, 'fetch'))
        steps = loop['step_list']
        # each iteration: the loader's batch (8192 bytes) and the step's own pread
        self.assertEqual([(s['epoch'], s['step'], s['bytes_read'], s['bytes_written'])
                          for s in steps],
                         [(e, i, 8192 + 1000 * (i + 1), 0) for e in range(2) for i in range(5)])
        for s in steps:
            self.assertGreaterEqual(s['stall_ns'], 40e6, s)  # the loader's 40 ms
            self.assertGreaterEqual(s['step_ns'], 10e6, s)   # the step's 10 ms
            self.assertGreaterEqual(s['iteration_ns'], s['stall_ns'] + s['step_ns'])
            self.assertEqual(s['stall_share'], s['stall_ns'] / s['iteration_ns'])
        # the figures over the steps are the steps' own
        iters = sorted(s['iteration_ns'] for s in steps)
        stalls = sorted(s['stall_ns'] for s in steps)
        self.assertEqual(loop['iteration_ns'], {'median': iters[4], 'p99': iters[9],
                                                'max': iters[9], 'total': sum(iters)})
        self.assertEqual(loop['stall_ns'], {'median': stalls[4], 'p99': stalls[9],
                                            'max': stalls[9], 'total': sum(stalls)})
        self.assertEqual(loop['stall_share'], sum(stalls) / sum(iters))
        self.assertEqual(loop['bytes_read'], 2 * (5 * 8192 + 15000))
        # epochs: their steps, and the checkpoint (65536 bytes) written before each ends
        self.assertEqual([(e['epoch'], e['steps'], e['bytes_read'], e['bytes_written'])
                          for e in loop['epoch_list']],
                         [(0, 5, 5 * 8192 + 15000, 65536), (1, 5, 5 * 8192 + 15000, 65536)])
        # the slowest iterations, slowest first, with the file behind them
        slow = loop['slowest']
        self.assertEqual(len(slow), 5)
        self.assertEqual([s['iteration_ns'] for s in slow], sorted(iters, reverse=True)[:5])
        for s in slow:
            self.assertEqual([(f['path'], f['bytes']) for f in s['files']],
                             [(data, s['bytes_read'])])
        self.assertEqual(loop['stall_chart']['stall_ns'], [s['stall_ns'] for s in steps])
        found = {f['id']: f for f in rep['findings']}
        self.assertIn('data_stall', found)
        f = found['data_stall']
        self.assertEqual(f['level'], 'high' if loop['stall_share'] >= 0.5 else 'warn')
        self.assertEqual((f['metrics']['steps'], f['metrics']['stall_ns'], f['metrics']['share']),
                         (10, sum(stalls), loop['stall_share']))
        self.assertIn(data, ' '.join(f['evidence']))
        # the terminal and the page show the same loop
        text = subprocess.run([DLTRACE, 'report', self.path('trace.json')], capture_output=True,
                              text=True, check=True).stdout
        self.assertIn('10 steps, 2 epochs; batch waits from fetch regions', text)
        self.assertIn('[HIGH] The training loop waits for its data  (data_stall)'
                      if f['level'] == 'high' else '(data_stall)', text)
        subprocess.run([DLTRACE, 'report', '--html', self.path('r.html'),
                        self.path('trace.json')], capture_output=True, check=True)
        with open(self.path('r.html')) as page:
            chart = page.read().split('<svg data-chart="stall"')[1].split('</svg>')[0]
        self.assertEqual(chart.count('class="bar"'), 20)  # 10 steps: waiting and the rest

    def test_fed_loader(self):
        _, _, rep = self.run_loop('fed')
        loop, = rep['phases']['loops']
        self.assertEqual((loop['steps'], loop['epochs']), (10, 2))
        self.assertLess(loop['stall_share'], 0.2)
        self.assertEqual([s['step_ns'] >= 30e6 for s in loop['step_list']], [True] * 10)
        self.assertNotIn('data_stall', [f['id'] for f in rep['findings']])


class MissingLibraryTest(LevelTest):
    def test_missing_markers_library_is_one_line_and_the_rest_runs(self):
        # a copy of dltrace with no marker library next to it (nor in ldconfig -p)
        alone = self.path('bin')
        os.mkdir(alone)
        shutil.copy(DLTRACE, os.path.join(alone, 'dltrace'))
        out = self.path('trace.json')
        res = subprocess.run([os.path.join(alone, 'dltrace'), '-o', out, '--layers',
                              'syscall,markers', '--', 'cat', '/etc/hostname'],
                             capture_output=True, text=True, timeout=300,
                             env={k: v for k, v in os.environ.items()
                                  if k != 'DLTRACE_MARKERS_LIB'})
        self.assertEqual(res.returncode, 0, res.stderr)
        lines = [l for l in res.stderr.splitlines() if 'markers' in l]
        self.assertEqual(len([l for l in lines if 'layers unavailable' in l]), 1, res.stderr)
        self.assertIn('markers: library not found (libdltrace_markers.so', res.stderr)
        events = load_trace(out)
        meta = metadata(events)
        self.assertEqual(meta['layers'], 'syscall')
        self.assertIn('markers: library not found', meta['layers_unavailable'])
        self.assertTrue(any(e.get('name') == 'openat' and
                            e['args'].get('path') == '/etc/hostname' for e in events))

    def test_missing_symbols_are_one_line_and_the_rest_is_traced(self):
        # a library with only H5Fopen and H5Fclose of the hdf5 layer's functions
        lib, prog = self.path('libfakehdf5.so'), self.path('use')
        with open(self.path('fake.c'), 'w') as f:
            f.write('#include <fcntl.h>\n#include <stdint.h>\n#include <unistd.h>\n'
                    'int64_t H5Fopen(const char *n, unsigned f, int64_t p)\n'
                    '{ int fd = open(n, O_RDONLY); return fd < 0 ? -1 : (1LL << 56) + fd; }\n'
                    'int H5Fclose(int64_t id) { return close((int)(id & 0xffff)); }\n')
        with open(self.path('use.c'), 'w') as f:
            f.write('#include <stdint.h>\nint64_t H5Fopen(const char *, unsigned, int64_t);\n'
                    'int H5Fclose(int64_t);\n'
                    'int main(int c, char **v) { int64_t f = H5Fopen(v[1], 0, 0);\n'
                    '  return f < 0 || H5Fclose(f); }\n')
        subprocess.run(['cc', '-shared', '-fPIC', '-o', lib, self.path('fake.c')], check=True)
        subprocess.run(['cc', '-o', prog, self.path('use.c'), '-L' + self.dir, '-lfakehdf5',
                        '-Wl,-rpath,' + self.dir], check=True)
        with open(self.path('file.h5'), 'w') as f:
            f.write('x')
        events, err = self.trace([prog, 'file.h5'], 'syscall,hdf5', ['--lib', lib],
                                 cwd=self.dir)
        lines = [l for l in err.splitlines() if 'symbols missing' in l]
        self.assertEqual(lines, ['dltrace: hdf5: symbols missing in %s: H5Fcreate, H5Dcreate2, '
                                 'H5Dopen2, H5Dread, H5Dwrite, H5Dclose, H5Gopen2, H5Gclose, '
                                 'H5Oopen, H5Oclose (the others are traced)' % lib])
        self.assertIn('hdf5', metadata(events)['layers'].split(','))
        calls = spans(events, 'hdf5')
        self.assertEqual([(s['name'], s['args']['path']) for s in calls],
                         [('H5Fopen', self.path('file.h5')), ('H5Fclose', self.path('file.h5'))])
        self.assertEqual([e['args']['path'] for e in inside(events, calls[0])],
                         [self.path('file.h5')])  # the openat the call made

    def test_lib_that_is_no_library_of_a_layer(self):
        res = subprocess.run([DLTRACE, '--lib', '/etc/hostname', '--',
                              'true'], capture_output=True, text=True)
        self.assertEqual(res.returncode, 2)
        self.assertEqual(res.stderr.splitlines()[0],
                         'dltrace: --lib /etc/hostname: not an ELF file')


if __name__ == '__main__':
    unittest.main()
