"""The library layers (stdio, hdf5, mpiio) and the markers, checked on the
kernel's records (--save-records, read by build/span_check --json) until
their records have a place in the trace: exact calls, sizes, offsets,
names, and every slice nested properly with its thread's syscalls.
"""
import json
import os
import shutil
import subprocess
import unittest

from dltrace_harness import BUILD, PYTHON, ROOT, TraceTest, load_trace, metadata, run_command, \
    workload

SPAN_CHECK = os.path.join(BUILD, 'span_check')
MARKERS_PY = os.path.join(ROOT, 'python')


def ldconfig_path(prefix):
    out = subprocess.run(['/sbin/ldconfig', '-p'], capture_output=True, text=True).stdout
    for line in out.splitlines():
        name = line.strip().split(' ')[0]
        if name.startswith(prefix) and '=>' in line and 'x86-64' in line:
            return line.split('=>')[-1].strip()
    return None


def has_module(name):
    return subprocess.run([PYTHON, '-c', 'import ' + name], capture_output=True).returncode == 0


class LevelTest(TraceTest):
    def spans(self, cmd, layers, extra=()):
        """Trace cmd with --layers layers; the span records and dltrace's stderr."""
        records = self.path('records.bin')
        res = run_command(['--layers', layers, '--save-records', records] + list(extra),
                          self.path('trace.json'), cmd, timeout=600)
        self.assertEqual(res.returncode, 0, res.stderr.decode())
        out = subprocess.run([SPAN_CHECK, '--json', records], capture_output=True, text=True)
        lines = [json.loads(line) for line in out.stdout.splitlines()]
        summary = lines.pop()
        self.assertEqual(summary['partial_overlaps'], 0, out.stdout)
        self.assertEqual(out.returncode, 0)
        for s in lines:
            if s['ph'] == 'X':
                self.assertFalse(s['partial_overlap'], s)
        return lines, res.stderr.decode()


class StdioTest(LevelTest):
    def test_calls_sizes_offsets_and_nesting(self):
        spans, _ = self.spans([workload('level_calls'), 'stdio', self.dir], 'syscall,stdio')
        calls = [s for s in spans if s['level'] == 'stdio' and s.get('object') == self.path(
            'stdio.bin')]
        self.assertEqual([s['func'] for s in calls],
                         ['fopen'] + ['fwrite'] * 4 + ['fflush', 'fclose', 'fopen'] +
                         ['fread'] * 3 + ['fseek', 'ftell', 'fread', 'fclose'])
        self.assertEqual([s['str2'] for s in calls if s['func'] == 'fopen'], ['w', 'r'])
        self.assertEqual([(s['size'], s['ret']) for s in calls if s['func'] == 'fwrite'],
                         [(4096, 4096)] * 4)
        self.assertEqual([(s['size'], s['count'], s['ret']) for s in calls
                          if s['func'] == 'fread'],
                         [(1000, 1000, 1000)] * 3 + [(4096, 1, 1)])
        seek = [s for s in calls if s['func'] == 'fseek'][0]
        self.assertEqual((seek['offset'], seek['arg'], seek['ret']), (8192, 0, 0))
        self.assertEqual(seek['enclosed_by_kind'], {'lseek': 1})
        self.assertEqual([s['ret'] for s in calls if s['func'] == 'ftell'], [8192])
        # every byte written by the stream is written inside fwrite or fflush
        written = sum(s['enclosed_bytes'] for s in calls if s['func'] in ('fwrite', 'fflush'))
        self.assertEqual(written, 16384)
        self.assertEqual(sum(s['enclosed_by_kind'].get('write', 0) for s in calls), 4)
        # reads: one buffer fill (4096) for the three small freads, one direct 4096
        self.assertEqual([s['enclosed_bytes'] for s in calls if s['func'] == 'fread'],
                         [4096, 0, 0, 4096])
        fds = {s['fd'] for s in calls if 'fd' in s}
        self.assertEqual(len(fds), 1)
        self.assertEqual(calls[0]['enclosed_by_kind'], {'openat': 1})


@unittest.skipUnless(ldconfig_path('libhdf5_serial.so') and has_module('h5py'),
                     'libhdf5 and h5py (python3-h5py) needed')
class Hdf5Test(LevelTest):
    def setUp(self):
        super().setUp()
        self.h5 = self.path('data.h5')
        subprocess.run([PYTHON, '-c', '''if 1:
            import sys, h5py, numpy as np
            with h5py.File(sys.argv[1], "w") as f:
                f.create_dataset("images", data=np.arange(64 * 32 * 32, dtype="u1")
                                 .reshape(64, 32, 32), chunks=(8, 32, 32))
                f.create_dataset("labels", data=np.arange(64, dtype="i4"), chunks=(16,))
                f.create_group("meta").create_dataset("ints", data=np.arange(10, dtype="i4"))
            ''', self.h5], check=True)

    def test_library_loaded_after_tracing_started(self):
        lib = ldconfig_path('libhdf5_serial.so')
        spans, _ = self.spans([workload('level_calls'), 'hdf5', lib, self.h5, '/meta/ints'],
                              'syscall,hdf5')
        self.assertEqual([s['func'] for s in spans],
                         ['H5Fopen', 'H5Dopen2', 'H5Dread', 'H5Dclose', 'H5Fclose'])
        self.assertEqual(spans[0]['str'], self.h5)
        for s in spans[1:4]:
            self.assertEqual((s['object'], s['file']), ('/meta/ints', self.h5))
        read = spans[2]
        self.assertEqual(read['arg'], 3)  # whole dataset, file and memory selections
        self.assertEqual(read['enclosed_by_kind'], {'pread64': 1})
        self.assertEqual(read['enclosed_bytes'], 40)  # 10 ints

    def test_h5py_datasets_in_main_and_forked_worker(self):
        script = '''if 1:
            import os, sys, h5py
            def work():
                with h5py.File(sys.argv[1], "r") as f:
                    images, labels = f["images"], f["labels"]
                    for i in range(3):
                        images[i * 8:(i + 1) * 8]   # one chunk each
                    labels[0:16]
                    labels[16:32]
            work()
            pid = os.fork()
            if pid == 0:
                work()
                os._exit(0)
            os.waitpid(pid, 0)
            '''
        spans, _ = self.spans([PYTHON, '-c', script, self.h5], 'syscall,hdf5')
        pids = sorted({s['pid'] for s in spans}, key=lambda p: min(
            s['ts'] for s in spans if s['pid'] == p))
        self.assertEqual(len(pids), 2)  # the main process and its forked worker
        for pid in pids:
            mine = [s for s in spans if s['pid'] == pid]
            self.assertEqual([(s['func'], s.get('str')) for s in mine if s['func'] == 'H5Fopen'],
                             [('H5Fopen', self.h5)])
            # h5py opens datasets with H5Oopen (f["name"]), not H5Dopen2
            self.assertEqual([s['object'] for s in mine if s['func'] == 'H5Oopen'],
                             ['/images', '/labels'])
            reads = [s for s in mine if s['func'] == 'H5Dread']
            self.assertEqual([s['object'] for s in reads], ['/images'] * 3 + ['/labels'] * 2)
            self.assertEqual({s['file'] for s in reads}, {self.h5})
            for s in reads:
                self.assertEqual(list(s['enclosed_by_kind']), ['pread64'], s)
            # a chunk of images is 8 x 32 x 32 bytes, of labels 16 x 4
            self.assertEqual([s['enclosed_bytes'] >= (8192 if s['object'] == '/images' else 64)
                              for s in reads], [True] * 5)


@unittest.skipUnless(shutil.which('mpirun') and has_module('mpi4py'),
                     'Open MPI and mpi4py (openmpi-bin, python3-mpi4py) needed')
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
        spans, _ = self.spans(['mpirun', '--allow-run-as-root', '--oversubscribe', '-np', '2',
                               PYTHON, '-c', script, path], 'syscall,mpiio')
        ranks = {}
        for s in spans:
            ranks.setdefault(s['pid'], []).append(s)
        self.assertEqual(len(ranks), 2)
        seen_offsets = set()
        for calls in ranks.values():
            funcs = [s['func'] for s in calls]
            self.assertEqual(funcs, ['MPI_File_open', 'MPI_File_write_at', 'MPI_File_sync',
                                     'MPI_File_write_at_all', 'MPI_File_read_at',
                                     'MPI_File_read_at_all', 'MPI_File_set_view',
                                     'MPI_File_write', 'MPI_File_close'])
            self.assertEqual({s['object'] for s in calls}, {path})
            self.assertEqual({s['ret'] for s in calls}, {0})
            by = {s['func']: s for s in calls}
            rank = by['MPI_File_write_at']['offset'] // 4096
            seen_offsets.add(rank)
            for f, off in (('MPI_File_write_at', 0), ('MPI_File_write_at_all', 8192),
                           ('MPI_File_read_at', 0), ('MPI_File_read_at_all', 8192)):
                self.assertEqual((by[f]['offset'], by[f]['count'], by[f]['size']),
                                 (off + rank * 4096, 1024, 4096), f)
                self.assertEqual(by[f]['enclosed_bytes'], 4096, f)
            view = by['MPI_File_set_view']
            self.assertEqual((view['offset'], view['arg'], view['str2']),
                             (16384 + rank * 800, 8, 'native'))
            self.assertEqual((by['MPI_File_write']['count'], by['MPI_File_write']['size']),
                             (100, 800))
        self.assertEqual(seen_offsets, {0, 1})


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
                dltrace.instant("epoch_done", epoch=e)
            '''
        spans, _ = self.spans([PYTHON, '-c', script, MARKERS_PY, data], 'syscall,markers')
        regions = [s for s in spans if s['func'] == 'region']
        epochs = sorted((s for s in regions if s['str'] == 'epoch'), key=lambda s: s['ts'])
        steps = sorted((s for s in regions if s['str'] == 'step'), key=lambda s: s['ts'])
        self.assertEqual([json.loads(s['str2']) for s in epochs], [{'epoch': 0}, {'epoch': 1}])
        self.assertEqual([json.loads(s['str2'])['step'] for s in steps], list(range(5)) * 2)
        self.assertEqual(len(regions), 12)
        for e, epoch in enumerate(epochs):
            self.assertEqual(epoch['depth'], 0)
            inside = [s for s in steps if epoch['ts'] <= s['ts'] and
                      s['ts'] + s['dur'] <= epoch['ts'] + epoch['dur']]
            self.assertEqual(len(inside), 5)
            for s in inside:
                self.assertEqual(s['depth'], 1)
                # the step's open, read and close are inside it
                self.assertEqual(s['enclosed_by_kind'].get('read'), 1, s)
                self.assertEqual(s['enclosed_bytes'], 100)
        self.assertEqual([s['ret'] for s in spans if s['func'] == 'counter'], [1000, 999])
        self.assertEqual([json.loads(s['str2']) for s in spans if s['func'] == 'instant'],
                         [{'epoch': 0}, {'epoch': 1}])

    def test_markers_cost_nothing_untraced(self):
        """Without a tracer the semaphores are 0 and the module calls no C."""
        out = subprocess.run([PYTHON, '-c', '''if 1:
            import sys
            sys.path.insert(0, sys.argv[1])
            import dltrace_markers as dltrace
            print(dltrace.library_path() is not None, dltrace.enabled())
            with dltrace.region("x", a=1):
                dltrace.instant("y")
            ''', MARKERS_PY], capture_output=True, text=True, check=True)
        self.assertEqual(out.stdout.split(), ['True', 'False'])


class MissingLibraryTest(LevelTest):
    def test_missing_markers_library_is_one_line_and_the_rest_runs(self):
        # a copy of dltrace with no marker library next to it (nor in ldconfig -p)
        alone = self.path('bin')
        os.mkdir(alone)
        shutil.copy(os.path.join(BUILD, 'dltrace'), alone)
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

    def test_lib_that_is_no_library_of_a_layer(self):
        res = subprocess.run([os.path.join(BUILD, 'dltrace'), '--lib', '/etc/hostname', '--',
                              'true'], capture_output=True, text=True)
        self.assertEqual(res.returncode, 2)
        self.assertEqual(res.stderr.splitlines()[0],
                         'dltrace: --lib /etc/hostname: not an ELF file')


if __name__ == '__main__':
    unittest.main()
