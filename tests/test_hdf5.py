"""What an HDF5 program asked for against what the kernel did (hdf5 layer):
the bytes each H5Dread and H5Dwrite asks for (points of the file selection
x the dataset's type size, as Darshan counts them), the join per dataset
and file in the report, the read_amplification finding, the line a report
gives when the layer was off, and the ranks of a job's processes.

Every read below is an exact, known selection of Debian's h5py (HDF5
1.10), and each test says whether the dataset object stays open across
the reads: an open dataset keeps its chunk cache and sieve buffer, one
opened again for each read starts with empty ones.
"""
import json
import os
import subprocess

from dltrace_harness import DLTRACE, PYTHON, Tracer, load_trace, workload
from test_levels import LevelTest, inside, ldconfig_path, spans

ROWS, COLS = 64, 1024  # float32: 4 KiB a row, 256 KiB in all
MIB = 1 << 20


def make_file(path, chunked):
    """data.h5:/c, 64 x 1024 float32 (chunks of 8 rows, or contiguous); where it lies."""
    out = subprocess.run([PYTHON, '-c', '''if 1:
        import json, sys, h5py, numpy as np
        chunked = sys.argv[2] == "chunked"
        with h5py.File(sys.argv[1], "w") as f:
            f.create_dataset("c", data=np.arange(%d * %d, dtype="f4").reshape(%d, %d),
                             chunks=(8, %d) if chunked else None)
        with h5py.File(sys.argv[1], "r") as f:
            d = f["c"]
            chunks = [(c.byte_offset, c.size) for c in
                      (d.id.get_chunk_info(i) for i in range(d.id.get_num_chunks()))] \\
                if chunked else []
            print(json.dumps({"chunks": chunks, "offset": d.id.get_offset() or 0,
                              "sieve": f.id.get_access_plist().get_sieve_buf_size()}))
        ''' % (ROWS, COLS, ROWS, COLS, COLS), path, 'chunked' if chunked else 'contiguous'],
        check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def reads_of(events, obj):
    return [s for s in spans(events, 'hdf5') if s['name'] == 'H5Dread' and
            s['args'].get('object') == obj]


def preads(events, calls):
    return [(e['args']['offset'], e['args']['ret']) for s in calls for e in inside(events, s)
            if e['name'] == 'pread64']


def finding(report, fid):
    found = [f for f in report['findings'] if f['id'] == fid]
    return found[0] if found else None


def dataset_row(report, path, obj):
    rows = [o for o in report['levels']['objects']
            if o['level'] == 'hdf5' and o['file'] == path and o['object'] == obj]
    assert len(rows) == 1, rows
    return rows[0]


class Hdf5BytesTest(LevelTest):
    def setUp(self):
        super().setUp()
        self.assertTrue(ldconfig_path('libhdf5_serial.so'),
                        'libhdf5 (libhdf5-103-1, with python3-h5py) is needed')
        self.h5 = self.path('data.h5')

    def run_reads(self, body):
        script = 'if 1:\n    import h5py, numpy as np\n    f = h5py.File("%s", "r")\n%s' % (
            self.h5, '\n'.join('    ' + line for line in body.strip().splitlines()))
        events, err = self.trace([PYTHON, '-c', script], 'syscall,cache,hdf5')
        return events, err

    def assert_asked(self, calls, points, type_size, selection):
        for s in calls:
            a = s['args']
            self.assertEqual((a['selection'], a['points'], a['type_size'], a['bytes']),
                             (selection, points, type_size, points * type_size), s)

    def test_chunked_dataset_kept_open_reads_each_chunk_once(self):
        # d stays open: its chunk cache (1 MiB) keeps each 32 KiB chunk after its first read
        where = make_file(self.h5, chunked=True)
        events, _ = self.run_reads('d = f["c"]\nfor i in range(%d):\n    d[i, :16]' % ROWS)
        calls = reads_of(events, '/c')
        self.assertEqual(len(calls), ROWS)
        self.assert_asked(calls, 16, 4, 'hyperslab')
        self.assertEqual(sum(s['args']['bytes'] for s in calls), 4096)
        self.assert_encloses_what_it_says(events, calls)
        # the chunk reads: each of the 8 chunks once, at its place in the file
        chunk_reads = [p for p in preads(events, calls) if p[1] == 8 * COLS * 4]
        self.assertEqual(sorted(chunk_reads), sorted(map(tuple, where['chunks'])))
        # only the first read of each chunk reads: rows 0, 8, ..., 56
        self.assertEqual([i for i, s in enumerate(calls) if s['args'].get('sys_reads')],
                         list(range(0, ROWS, 8)))
        report = self.report()
        row = dataset_row(report, self.h5, '/c')
        sys_bytes = sum(s['args'].get('sys_read_bytes', 0) for s in calls)
        self.assertEqual((row['opens'], row['read']['calls'], row['read']['bytes_requested'],
                          row['read']['syscall_bytes'], row['read']['selections']['hyperslab']),
                         (1, ROWS, 4096, sys_bytes, {'calls': ROWS, 'bytes': 4096}))
        self.assertEqual(row['read']['sizes'], [{'bytes': 64, 'calls': ROWS}])
        self.assertEqual(row['read']['cache_miss_bytes'],
                         sum(s['args']['sys_cache_miss_bytes'] for s in calls
                             if 'sys_cache_miss_bytes' in s['args']))
        # 8 chunks for 4 KiB asked: 64x, but under the 1 MiB the finding needs
        self.assertLess(sys_bytes - 4096, MIB)
        self.assertGreater(sys_bytes, 2 * 4096)
        self.assertIsNone(finding(report, 'read_amplification'))
        self.assertEqual(report['levels']['hdf5']['read']['bytes_requested'], 4096)

    def test_contiguous_dataset_opened_again_per_read(self):
        # the demo's labels pattern: f["c"][i, :16] opens /c again for every read; its
        # sieve buffer starts empty and reads from row i towards the dataset's end
        where = make_file(self.h5, chunked=False)
        events, _ = self.run_reads('for i in range(%d):\n    f["c"][i, :16]' % ROWS)
        calls = reads_of(events, '/c')
        self.assertEqual(len(calls), ROWS)
        self.assertEqual(len([s for s in spans(events, 'hdf5') if s['name'] == 'H5Oopen' and
                              s['args']['object'] == '/c']), ROWS)
        self.assertEqual(len({s['args']['hid'] for s in calls}), ROWS)  # a new hid each time
        self.assert_asked(calls, 16, 4, 'hyperslab')
        self.assert_encloses_what_it_says(events, calls)
        total = ROWS * COLS * 4
        want = [(where['offset'] + i * COLS * 4, min(where['sieve'], total - i * COLS * 4))
                for i in range(ROWS)]
        self.assertEqual(preads(events, calls), want)
        read = sum(n for _, n in want)
        self.assertGreater(read - 4096, MIB)
        report = self.report()
        row = dataset_row(report, self.h5, '/c')
        self.assertEqual((row['opens'], row['read']['calls'], row['read']['bytes_requested'],
                          row['read']['syscall_bytes'], row['read']['excess_bytes']),
                         (ROWS, ROWS, 4096, read, read - 4096))
        f = finding(report, 'read_amplification')
        self.assertIsNotNone(f)
        self.assertEqual((f['metrics']['objects'], f['metrics']['asked_bytes'],
                          f['metrics']['syscall_read_bytes'], f['metrics']['excess_bytes']),
                         (1, 4096, read, read - 4096))
        self.assertTrue(f['evidence'][0].startswith(self.h5 + ':/c (hdf5): 64 reads asked '
                                                    '4,096 bytes'), f['evidence'][0])
        self.assertIn('opened again for each read (64 opens for 64 reads)', f['evidence'][0])
        self.assertTrue(f['recommendation'].startswith('Keep the dataset open'))
        # the terminal report names the dataset and the exact bytes
        text = subprocess.run([DLTRACE, 'report', self.path('trace.json')],
                              capture_output=True, text=True).stdout
        self.assertIn('reads: 64 calls asking 4,096 bytes (4.00 KiB)', text)
        self.assertIn('Reads that read far more than they asked for  (read_amplification)',
                      text)

    def test_contiguous_dataset_kept_open_stays_under_the_finding(self):
        # the same data and reads with /c kept open: the sieve buffer serves 16 rows a read
        where = make_file(self.h5, chunked=False)
        events, _ = self.run_reads('d = f["c"]\nfor i in range(%d):\n    d[i, :16]' % ROWS)
        calls = reads_of(events, '/c')
        self.assertEqual(len(calls), ROWS)
        rows_per_fill = where['sieve'] // (COLS * 4)
        self.assertEqual(preads(events, calls),
                         [(where['offset'] + i * COLS * 4, where['sieve'])
                          for i in range(0, ROWS, rows_per_fill)])
        report = self.report()
        row = dataset_row(report, self.h5, '/c')
        self.assertEqual((row['opens'], row['read']['bytes_requested'],
                          row['read']['syscall_bytes']), (1, 4096, ROWS * COLS * 4))
        self.assertIsNone(finding(report, 'read_amplification'))

    def test_point_selection_and_writes(self):
        make_file(self.h5, chunked=False)
        script = '''if 1:
            import h5py, numpy as np
            with h5py.File("%s", "r+") as f:
                d = f["c"]
                m = np.zeros((%d, %d), bool)
                m[3, 5] = m[7, 9] = m[60, 1000] = True
                d[m]                                    # 3 points
                w = f.create_dataset("w", (100,), "i8")  # an H5Dcreate2
                w[10:20] = np.arange(10)                 # 10 points of 8 bytes
                w[...] = np.arange(100)                  # the whole of w: H5S_SEL_ALL
            ''' % (self.h5, ROWS, COLS)
        events, _ = self.trace([PYTHON, '-c', script], 'syscall,hdf5')
        self.assert_asked(reads_of(events, '/c'), 3, 4, 'points')
        writes = [s for s in spans(events, 'hdf5') if s['name'] == 'H5Dwrite']
        # h5py passes a file space with an "all" selection, not H5S_ALL: the kind is the space's
        self.assertEqual([(s['args']['object'], s['args']['file_space'], s['args']['selection'],
                           s['args']['points'], s['args']['type_size'], s['args']['bytes'])
                          for s in writes],
                         [('/w', 'selection', 'hyperslab', 10, 8, 80),
                          ('/w', 'selection', 'all', 100, 8, 800)])
        report = self.report()
        self.assertEqual(report['levels']['hdf5']['write']['bytes_requested'], 880)
        row = dataset_row(report, self.h5, '/w')
        self.assertEqual((row['opens'], row['write']['calls'], row['write']['bytes_requested'],
                          row['write']['selections']['hyperslab'],
                          row['write']['selections']['all']),
                         (1, 2, 880, {'calls': 1, 'bytes': 80}, {'calls': 1, 'bytes': 800}))
        self.assertEqual(dataset_row(report, self.h5, '/c')['read']['selections']['points'],
                         {'calls': 1, 'bytes': 12})

    def test_h5py_read_in_forked_worker(self):
        # the probes are on the library for every process: a worker forked after tracing
        # began has every call, with its bytes asked
        make_file(self.h5, chunked=True)
        script = '''if 1:
            import os, h5py
            def work(n):
                with h5py.File("%s", "r") as f:
                    d = f["c"]
                    for i in range(n):
                        d[i, :32]
            work(2)
            pid = os.fork()
            if pid == 0:
                work(40)
                os._exit(0)
            os.waitpid(pid, 0)
            ''' % self.h5
        events, _ = self.trace([PYTHON, '-c', script], 'syscall,hdf5')
        calls = reads_of(events, '/c')
        pids = sorted({s['pid'] for s in calls}, key=lambda p: min(
            s['ts'] for s in calls if s['pid'] == p))
        self.assertEqual([len([s for s in calls if s['pid'] == p]) for p in pids], [2, 40])
        self.assertTrue(any(e['name'] == 'fork' and e['args']['child_pid'] == pids[1]
                            for e in events))
        self.assert_asked(calls, 32, 4, 'hyperslab')
        self.assertEqual(self.report()['levels']['hdf5']['read']['bytes_requested'],
                         42 * 32 * 4)

    def test_layer_off_says_what_it_would_show(self):
        # the default layers have no hdf5: one line names the library, the flag and the reads
        make_file(self.h5, chunked=False)
        script = 'if 1:\n    import h5py\n    with h5py.File("%s", "r") as f:\n' \
                 '        for i in range(8):\n            f["c"][i, :16]' % self.h5
        events, _ = self.trace([PYTHON, '-c', script], 'syscall')
        self.assertEqual(spans(events, 'hdf5'), [])
        reads = [e for e in events if e.get('cat') == 'data' and
                 e['name'] in ('read', 'pread64') and e['args'].get('path') == self.h5]
        report = self.report()
        hint = report['levels']['layers_off']
        self.assertEqual(len(hint), 1)
        self.assertEqual((hint[0]['layer'], hint[0]['processes'], hint[0]['files'],
                          hint[0]['reads'], hint[0]['bytes_read']),
                         ('hdf5', 1, 1, len(reads), sum(e['args']['ret'] for e in reads)))
        self.assertTrue(os.path.basename(hint[0]['library']).startswith('libhdf5'))
        text = subprocess.run([DLTRACE, 'report', self.path('trace.json')],
                              capture_output=True, text=True).stdout
        lines = [l for l in text.splitlines() if 'hdf5 layer off' in l]
        self.assertEqual(len(lines), 1, text)
        self.assertIn('--layers +hdf5 would show its HDF5 calls and explain the %d reads'
                      % len(reads), lines[0])
        # with the layer on, no such line
        self.trace([PYTHON, '-c', script], 'syscall,hdf5')
        self.assertEqual(self.report()['levels']['layers_off'], [])


class StdioAmplificationTest(LevelTest):
    def test_small_freads_after_seeks_refill_the_buffer(self):
        # 400 x (fseek, fread 8 bytes): each fread reads a whole 4 KiB buffer
        data = self.path('data.bin')
        with open(data, 'wb') as f:
            f.write(os.urandom(1 << 20))
        blksize = os.stat(data).st_blksize
        events, _ = self.trace([workload('level_calls'), 'stdio-seeks', data, '400'],
                               'syscall,stdio')
        reads = [s for s in spans(events, 'stdio') if s['name'] == 'fread']
        self.assertEqual(len(reads), 400)
        self.assertEqual([(e['name'], e['args']['offset'], e['args']['ret'])
                          for s in reads for e in inside(events, s)],
                         [('read', (7 * i) % 256 * 4096, blksize) for i in range(400)])
        report = self.report()
        rows = [o for o in report['levels']['objects'] if o['level'] == 'stdio' and
                o['file'] == data]
        self.assertEqual(len(rows), 1)
        self.assertEqual((rows[0]['opens'], rows[0]['read']['calls'],
                          rows[0]['read']['bytes_requested'], rows[0]['read']['syscalls'],
                          rows[0]['read']['syscall_bytes']),
                         (1, 400, 3200, 400, 400 * blksize))
        f = finding(report, 'read_amplification')
        self.assertEqual((f['metrics']['objects'], f['metrics']['excess_bytes']),
                         (1, 400 * blksize - 3200))
        self.assertTrue(f['evidence'][0].startswith(data + ' (stdio): 400 reads asked 3,200 '
                                                    'bytes (most often 8 B per call)'),
                        f['evidence'][0])
        self.assertTrue(f['recommendation'].startswith('Ask the stream for what is read'))


class RankTest(LevelTest):
    def names(self, events):
        return {e['pid']: e['args'] for e in events if e.get('name') == 'process_name' and
                e.get('ph') == 'M' and e['pid'] < 1 << 30}

    def test_ranks_from_the_environment(self):
        # rank 2 of 4 forks a child (it keeps the rank) and runs a program whose
        # environment has none (rank unknown) and one launched Slurm-style
        script = '''if 1:
            import os, sys
            pid = os.fork()
            if pid == 0:
                open("/etc/hostname").read()
                os._exit(0)
            os.waitpid(pid, 0)
            env = {k: v for k, v in os.environ.items()
                   if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK")}
            os.spawnve(os.P_WAIT, "/bin/cat", ["cat", "/etc/hostname"], env)
            env["SLURM_PROCID"] = "17"
            os.spawnve(os.P_WAIT, "/bin/cat", ["cat", "/etc/hostname"], env)
            '''
        env = dict(os.environ, RANK='2', WORLD_SIZE='4', LOCAL_RANK='0')
        env.pop('SLURM_PROCID', None)
        events, _ = self.trace([PYTHON, '-c', script], 'syscall', env=env)
        names = self.names(events)
        forks = [e for e in events if e['name'] == 'fork' and e.get('cat') == 'process']
        main = forks[0]['pid']
        child = forks[0]['args']['child_pid']
        execs = [e for e in events if e['name'] == 'exec' and e['pid'] != main]
        cats = [e['pid'] for e in execs if e['args'].get('file') == '/bin/cat']
        self.assertEqual(len(cats), 2)
        want = {'rank': 2, 'rank_from': 'RANK', 'local_rank': 0, 'world_size': 4}
        for pid in (main, child):
            self.assertEqual({k: names[pid].get(k) for k in want}, want)
            self.assertTrue(names[pid]['name'].endswith(' (rank 2 of 4)'), names[pid])
        self.assertEqual(names[cats[0]], {'name': 'cat /etc/hostname', 'rank': 'unknown'})
        self.assertEqual(names[cats[1]], {'name': 'cat /etc/hostname (rank 17)', 'rank': 17,
                                          'rank_from': 'SLURM_PROCID'})
        procs = {p['pid']: p for p in self.report()['time']['processes']}
        self.assertEqual([(procs[p]['rank'], procs[p]['world_size']) for p in
                          (main, child, cats[0], cats[1])], [(2, 4), (2, 4), (None, None),
                                                             (17, None)])
        # the ranks survive a .pftrace and its way back
        pf = self.path('trace.pftrace')
        back = self.path('back.json')
        for src, dst in ((self.path('trace.json'), pf), (pf, back)):
            out = subprocess.run([DLTRACE, 'convert', src, dst], capture_output=True, text=True)
            self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(self.names(load_trace(back)), names)

    def test_process_there_before_the_trace(self):
        # --pid: no exec to read; its environment at start comes from /proc/PID/environ
        env = dict(os.environ, OMPI_COMM_WORLD_RANK='5', WORLD_SIZE='6')
        env.pop('RANK', None)
        env.pop('SLURM_PROCID', None)
        proc = subprocess.Popen([PYTHON, '-c', 'import sys; sys.stdin.read(1); '
                                 'open("/etc/hostname").read()'], stdin=subprocess.PIPE,
                                env=env)
        try:
            tracer = Tracer(['--pid', str(proc.pid)], self.path('trace.json')).wait_ready()
            proc.stdin.write(b'x')
            proc.stdin.close()
            self.assertEqual(proc.wait(60), 0)
            self.assertEqual(tracer.wait(), 0, tracer.stderr)
        finally:
            if proc.poll() is None:
                proc.kill()
        names = self.names(load_trace(self.path('trace.json')))
        self.assertEqual({k: names[proc.pid].get(k) for k in ('rank', 'rank_from',
                                                               'world_size')},
                         {'rank': 5, 'rank_from': 'OMPI_COMM_WORLD_RANK', 'world_size': 6})

    def test_peers_compared_by_rank(self):
        # four ranks of one command under one shell, rank r reads (r + 1) x 64 KiB
        data = self.path('data.bin')
        with open(data, 'wb') as f:
            f.write(os.urandom(256 << 10))
        rank = 'if 1:\n    import os\n    r = int(os.environ["RANK"])\n' \
               '    with open("%s", "rb", buffering=0) as f:\n' \
               '        for i in range(16 * (r + 1)): f.read(4096)' % data
        shell = ' & '.join('RANK=%d WORLD_SIZE=4 %s -c \'%s\'' % (r, PYTHON, rank)
                           for r in range(4)) + ' & wait'
        self.trace(['/bin/sh', '-c', shell], 'syscall')
        report = self.report()
        groups = [g for g in report['balance']['groups'] if g['members'] == 4]
        self.assertEqual(len(groups), 1, report['balance']['groups'])
        g = groups[0]
        self.assertEqual((g['ranks'], g['most_rank'], g['least_rank'], g['bytes_max'],
                          g['bytes_min']), ([0, 1, 2, 3], 3, 0, 256 << 10, 64 << 10))
        text = subprocess.run([DLTRACE, 'report', self.path('trace.json')],
                              capture_output=True, text=True).stdout
        self.assertIn('(ranks 0-3): bytes 64.0 KiB..256 KiB', text)
        most = [p['pid'] for p in report['time']['processes'] if p['rank'] == 3][0]
        least = [p['pid'] for p in report['time']['processes'] if p['rank'] == 0][0]
        self.assertIn('rank 3 (pid %d) moved 300%% more bytes than rank 0 (pid %d)'
                      % (most, least), text)
