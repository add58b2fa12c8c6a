"""A job of several processes on one node, traced through its cgroup: OpenMPI
(Debian's openmpi-bin, python3-mpi4py) runs four ranks of
tests/workloads/mpi_io.py inside a job cgroup in Slurm's layout; the daemon
must put every rank's I/O into that job's trace, and the report must show
the four ranks side by side."""
import json
import os
import shutil
import socket

from dltrace_harness import DLTRACE, PYTHON, TESTS, load_trace, wait_for
from test_daemon import DaemonCase
from test_report import report_json, run_report

HOST = socket.gethostname()
MPI_IO = os.path.join(TESTS, 'workloads', 'mpi_io.py')
CHUNK = 64 * 1024
CHUNKS = 8  # rank r writes CHUNKS + r chunks
RANKS = 4


class MpiJobTest(DaemonCase):
    def test_every_rank_in_the_job_trace(self):
        d = self.daemon
        data = self.path('data')
        os.mkdir(data)
        os.chmod(data, 0o777)
        job = d.job_cgroup(4001)
        # as a job's user; OpenMPI wants a home it can read (nobody's does not exist)
        mpirun = d.run_in(job, [shutil.which('mpirun'), '--oversubscribe', '-n', str(RANKS),
                                PYTHON, MPI_IO, data, str(CHUNKS)], 'nobody',
                          env=dict(os.environ, HOME=self.dir))
        out, _ = mpirun.communicate(timeout=300)
        self.assertEqual(mpirun.returncode, 0)
        ranks = {int(r): v for r, v in json.loads(out)['ranks'].items()}
        self.assertEqual(sorted(ranks), list(range(RANKS)))
        d.remove_job(job)
        trace, summary = d.job_files(4001, 'nobody')
        events = load_trace(trace)
        self.assertIn('job 4001', events[0]['args']['target'])
        names = {e['pid']: e['args']['name'] for e in events if e['name'] == 'process_name'}
        for r, rank in ranks.items():
            pid, path, n = rank['pid'], rank['file'], CHUNKS + r
            self.assertIn(MPI_IO, names[pid])
            calls = [e for e in events if e.get('cat') in ('data', 'sync') and
                     e['args'].get('path') == path]
            self.assertEqual({e['pid'] for e in calls}, {pid})
            writes = [e['args']['ret'] for e in calls if e['name'] == 'write']
            reads = [e['args']['ret'] for e in calls if e['name'] == 'read']
            self.assertEqual(writes, [CHUNK] * n)
            self.assertEqual(reads, [CHUNK] * n + [0])  # the last read finds the end
            self.assertEqual([e['name'] for e in calls if e['cat'] == 'sync'], ['fsync'])
            self.assertEqual(rank['bytes'], n * CHUNK)
        # mpirun started the ranks: all of them are in the trace, nothing else of the node
        starts = {e['pid'] for e in events if e['name'] == 'process_start'}
        self.assertLessEqual({r['pid'] for r in ranks.values()}, starts)
        self.assertEqual(events[-1]['args']['lost_events'], 0)
        # the summary next to the trace is the report's JSON
        with open(summary) as f:
            self.check_report(json.load(f), ranks)
        self.check_report(report_json(trace), ranks)
        text = run_report([trace]).stdout.decode()
        self.assertRegex(text, r'\n  4 x python3 [^\n]*: bytes 1\.00 MiB\.\.1\.38 MiB ')

    def check_report(self, rep, ranks):
        """The per-file figures are exact; the ranks form one balance group of four."""
        files = {f['path']: f for f in rep['files']['list']}
        for r, rank in ranks.items():
            f = files[rank['file']]
            self.assertEqual((f['bytes_written'], f['bytes_read'], f['writes'], f['reads']),
                             (rank['bytes'], rank['bytes'], CHUNKS + r, CHUNKS + r + 1))
        groups = [g for g in rep['balance']['groups'] if MPI_IO in g['command']]
        self.assertEqual([g['members'] for g in groups], [RANKS])
        g = groups[0]
        # each rank moved its own file twice (written, read back) and no other file
        self.assertEqual((g['bytes_min'], g['bytes_max']),
                         (2 * CHUNKS * CHUNK, 2 * (CHUNKS + RANKS - 1) * CHUNK))
        self.assertEqual(g['most_pid'], ranks[RANKS - 1]['pid'])
        self.assertEqual(g['least_pid'], ranks[0]['pid'])


if __name__ == '__main__':
    import unittest
    unittest.main()
