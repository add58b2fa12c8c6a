"""The daemon's /metrics, scraped by a real Prometheus (Debian's package) on
loopback every second: a job's statically linked reader (10,000 preads of
4 KiB, no loader reads) counts exactly 10,000 read operations and
40,960,000 bytes, a reader outside the job's cgroup adds nothing, the
job's series go when it ends, and promtool accepts the exposition."""
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import unittest
import urllib.error
import urllib.parse
import urllib.request

from dltrace_harness import cgroup2_root, wait_for, workload
from test_daemon import HOST, DaemonCase

READER = workload('static_reader')
JOB = 4711


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


class Prometheus:
    """prometheus on loopback, its own storage, scraping one target every second."""

    def __init__(self, target_port, directory):
        self.dir = directory
        self.port = free_port()
        config = os.path.join(directory, 'prometheus.yml')
        with open(config, 'w') as f:
            f.write('global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n'
                    'scrape_configs:\n  - job_name: dltrace\n    honor_labels: true\n'
                    '    static_configs:\n      - targets: ["127.0.0.1:%d"]\n' % target_port)
        self.log = open(os.path.join(directory, 'prometheus.log'), 'w+')
        self.proc = subprocess.Popen(
            ['prometheus', '--config.file=' + config,
             '--storage.tsdb.path=' + os.path.join(directory, 'data'),
             '--web.listen-address=127.0.0.1:%d' % self.port],
            stdout=self.log, stderr=subprocess.STDOUT, cwd=directory)
        assert wait_for(self.ready, timeout=60), self.output()

    def output(self):
        self.log.flush()
        with open(self.log.name) as f:
            return f.read()[-3000:]

    def get(self, path, **params):
        url = 'http://127.0.0.1:%d%s' % (self.port, path)
        if params:
            url += '?' + urllib.parse.urlencode(params)
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.read().decode()

    def ready(self):
        try:
            return self.get('/-/ready')[0] == 200
        except OSError:
            return False

    def query(self, expr):
        """{labels as a sorted tuple: value} of an instant query."""
        status, body = self.get('/api/v1/query', query=expr)
        data = json.loads(body)
        assert data['status'] == 'success', body
        return {tuple(sorted(r['metric'].items())): float(r['value'][1])
                for r in data['data']['result']}

    def targets(self):
        return json.loads(self.get('/api/v1/targets')[1])['data']['activeTargets']

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


class MetricsTest(DaemonCase):
    def setUp(self):
        super().setUp()
        self.assertTrue(wait_for(lambda: self.daemon.metrics_port(), timeout=10),
                        self.daemon.log())
        self.prom_dir = tempfile.mkdtemp(prefix='dltrace-prometheus-')
        self.prometheus = Prometheus(self.daemon.metrics_port(), self.prom_dir)

    def tearDown(self):
        self.prometheus.stop()
        shutil.rmtree(self.prom_dir, ignore_errors=True)
        super().tearDown()

    def one(self, expr):
        res = self.prometheus.query(expr)
        return next(iter(res.values())) if len(res) == 1 else None

    def test_job_metrics_in_prometheus(self):
        d, prom = self.daemon, self.prometheus
        data = self.make_file('data.bin', 1 << 20)
        job = d.job_cgroup(JOB)
        cgroup = job[len(cgroup2_root()):]
        # the job: 10,000 x 4 KiB over 4 s, then alive until it is told to end (so that
        # its process is counted however long the scrapes take); outside it, the same
        # reader at the same time
        outside = subprocess.Popen([READER, data, '3000', '4096', '2', '0'])
        reader = d.run_in(job, [READER, data, '10000', '4096', '4', '-1'], 'nobody')
        sel = '{job="%d",op="read"}' % JOB
        self.assertTrue(wait_for(lambda: self.one('dltrace_job_operations_total' + sel) ==
                                 10000, timeout=60),
                        (prom.query('dltrace_job_operations_total'), d.log()))
        labels = dict(next(iter(prom.query('dltrace_job_operations_total' + sel))))
        self.assertEqual((labels['job'], labels['cgroup'], labels['host'], labels['op']),
                         (str(JOB), cgroup, HOST, 'read'))
        self.assertEqual(self.one('dltrace_job_read_bytes_total{job="%d",layer="syscall"}' %
                                  JOB), 10000 * 4096)
        self.assertEqual(self.one('dltrace_job_operations_total{job="%d",op="write"}' % JOB), 0)
        self.assertEqual(self.one('dltrace_job_written_bytes_total{job="%d",layer="syscall"}' %
                                  JOB), 0)
        # the latency histogram counts every data call: the reads, nothing else
        self.assertEqual(self.one('dltrace_job_io_latency_seconds_count{job="%d",class="data"}'
                                  % JOB), 10000)
        self.assertEqual(self.one('dltrace_job_io_latency_seconds_bucket{job="%d",class="data",'
                                  'le="+Inf"}' % JOB), 10000)
        self.assertEqual(self.one('dltrace_job_lost_events_total{job="%d"}' % JOB), 0)
        self.assertEqual(self.one('dltrace_job_processes{job="%d"}' % JOB), 1)
        self.assertEqual(self.one('dltrace_jobs_traced'), 1)
        # Prometheus asked for OpenMetrics and read it; promtool checks the text format
        self.assertEqual([(t['health'], t['lastError']) for t in prom.targets()], [('up', '')])
        ctype, om = d.metrics('application/openmetrics-text;version=1.0.0')
        self.assertTrue(ctype.startswith('application/openmetrics-text; version=1.0.0'), ctype)
        self.assertTrue(om.endswith('# EOF\n'))
        ctype, text = d.metrics()
        self.assertTrue(ctype.startswith('text/plain; version=0.0.4'), ctype)
        check = subprocess.run(['promtool', 'check', 'metrics'], input=text,
                               capture_output=True, text=True)
        self.assertEqual((check.returncode, check.stdout, check.stderr), (0, '', ''))
        self.assertIn('dltrace_job_operations_total{job="%d",cgroup="%s",host="%s",op="read"} '
                      '10000\n' % (JOB, cgroup, HOST), text)
        # the reads outside the job were made and are not counted
        self.assertEqual(outside.wait(60), 0)
        reader.terminate()
        self.assertEqual(reader.wait(60), -signal.SIGTERM)
        self.assertEqual(self.one('dltrace_job_operations_total' + sel), 10000)
        # the job ends: its series leave /metrics once its trace is finished, and Prometheus
        d.remove_job(job)
        self.assertTrue(wait_for(lambda: 'job="%d"' % JOB not in d.metrics()[1], timeout=60),
                        d.metrics()[1])
        self.assertTrue(wait_for(lambda: prom.query('dltrace_job_operations_total') == {},
                                 timeout=10))
        self.assertTrue(wait_for(lambda: self.one('dltrace_jobs_finished_total') == 1,
                                 timeout=10))
        self.assertEqual(self.one('dltrace_jobs_traced'), 0)
        # the final values stay in the job's summary
        trace, summary = d.job_files(JOB, 'nobody')
        with open(summary) as f:
            pattern = json.load(f)['pattern']
        self.assertEqual((pattern['reads'], pattern['bytes_read']), (10000, 40960000))

    def test_a_sleeping_threads_last_calls_are_counted(self):
        """A job's thread that makes 3 reads (fewer than a batch of records) and then
        sleeps: /metrics counts the 3 reads while it sleeps, not at its next file call."""
        d = self.daemon
        job = d.job_cgroup(JOB + 2)
        reader = d.run_in(job, [READER, self.make_file('s.bin', 4096), '3', '4096', '0', '-1'],
                          'nobody')
        try:
            line = 'dltrace_job_operations_total{job="%d",cgroup="%s",host="%s",op="read"} 3\n' % (
                JOB + 2, job[len(cgroup2_root()):], HOST)
            self.assertTrue(wait_for(lambda: line in d.metrics()[1], timeout=30),
                            d.metrics()[1])
        finally:
            reader.terminate()
            reader.wait(60)
            d.remove_job(job)

    def test_node_metrics(self):
        """Without a job: the node's series; counters never go down across a job."""
        d = self.daemon
        _, text = d.metrics()
        values = dict(l.rsplit(' ', 1) for l in text.splitlines() if not l.startswith('#'))
        self.assertEqual(values['dltrace_jobs_traced{host="%s"}' % HOST], '0')
        self.assertEqual(values['dltrace_jobs_finished_total{host="%s"}' % HOST], '0')
        self.assertGreater(int(values['process_resident_memory_bytes']), 1 << 20)
        self.assertGreater(float(values['process_cpu_seconds_total']), 0)
        self.assertNotIn('job=', text)
        job = d.job_cgroup(JOB + 1)
        d.run_in(job, [READER, self.make_file('n.bin', 4096), '100', '4096', '0', '0'],
                 'nobody').wait(30)
        _, during = d.metrics()
        d.remove_job(job)
        self.assertTrue(wait_for(lambda: 'dltrace_jobs_finished_total{host="%s"} 1' % HOST in
                                 d.metrics()[1], timeout=10))
        _, after = d.metrics()
        ev = lambda t: int(next(l for l in t.splitlines()
                                if l.startswith('dltrace_events_total')).split()[-1])
        self.assertGreater(ev(during), 0)
        self.assertGreaterEqual(ev(after), ev(during))
        check = subprocess.run(['promtool', 'check', 'metrics'], input=during,
                               capture_output=True, text=True)
        self.assertEqual((check.returncode, check.stdout, check.stderr), (0, '', ''))
        # what is not /metrics
        with self.assertRaises(urllib.error.HTTPError) as e:
            urllib.request.urlopen('http://127.0.0.1:%d/nothing' % d.metrics_port(), timeout=10)
        self.assertEqual(e.exception.code, 404)


if __name__ == '__main__':
    unittest.main()
