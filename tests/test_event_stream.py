"""One event stream, many consumers: the report made while tracing (from the
live events) equals the report of the trace file; it needs no file to read
back (--summary-only: no trace at all); and the daemon's job summary covers
the whole job past the trace's size cap, whatever its trace format (json,
pftrace, none)."""
import gzip
import json
import os
import subprocess

from dltrace_harness import DLTRACE, TraceTest, load_trace, wait_for, workload
from test_daemon import HOST, DaemonCase

KIB = 1024
READ_SIZE = 1024  # report_patterns small-reads reads in 1 KiB requests


def report_of(path):
    out = subprocess.run([DLTRACE, 'report', '--json', path], capture_output=True, check=True)
    return json.loads(out.stdout)


def without_file_name(rep):
    """The report with the trace's file name blanked (the one thing allowed to differ)."""
    for t in rep['traces']:
        t['file'] = ''
    return rep


class LiveReportTest(TraceTest):
    def make_input(self, size):
        path = self.path('input.bin')
        with open(path, 'wb') as f:
            f.write(os.urandom(size))
        return path

    def small_reads(self, path):
        return [workload('report_patterns'), 'small-reads', path]

    def test_live_report_equals_report_of_the_file(self):
        data = self.make_input(256 * KIB)
        # the trace into a file: --report-json while tracing, then `dltrace report`
        trace = self.path('t.json')
        live = self.path('live.json')
        subprocess.run([DLTRACE, '-q', '-o', trace, '--report-json', live, '--'] +
                       self.small_reads(data), check=True)
        load_trace(trace)
        with open(live) as f:
            live_rep = json.load(f)
        self.assertEqual(live_rep['traces'][0]['file'], trace)
        self.assertEqual(without_file_name(live_rep), without_file_name(report_of(trace)))
        self.assertEqual(live_rep['pattern']['reads'], 256 + 1)  # and the read at EOF
        self.assertEqual(live_rep['pattern']['bytes_read'], 256 * KIB)

        # the trace on standard output (which cannot be read back)
        piped = self.path('piped.json')
        live2 = self.path('live2.json')
        with open(piped, 'wb') as out:
            subprocess.run([DLTRACE, '-q', '-o', '-', '--report-json', live2, '--'] +
                           self.small_reads(data), stdout=out, check=True)
        with open(live2) as f:
            live2_rep = json.load(f)
        self.assertEqual(live2_rep['traces'][0]['file'], 'standard output')
        self.assertEqual(without_file_name(live2_rep), without_file_name(report_of(piped)))

        # the terminal report printed by --report is the one `dltrace report` prints
        trace3 = self.path('t3.json')
        res = subprocess.run([DLTRACE, '-q', '-o', trace3, '--report', '--'] +
                             self.small_reads(data), capture_output=True, check=True,
                             env=dict(os.environ, NO_COLOR='1'))
        again = subprocess.run([DLTRACE, 'report', trace3], capture_output=True, check=True)
        self.assertEqual(res.stdout.decode().lstrip('\n'), again.stdout.decode())

    def test_report_with_the_trace_to_dev_null(self):
        data = self.make_input(64 * KIB)
        rep_path = self.path('rep.json')
        res = subprocess.run([DLTRACE, '-q', '-o', '/dev/null', '--report', '--report-json',
                              rep_path, '--'] + self.small_reads(data),
                             capture_output=True, env=dict(os.environ, NO_COLOR='1'))
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(res.stderr, b'')
        text = res.stdout.decode()
        self.assertIn('dltrace report  1 trace', text)
        self.assertRegex(text, r'\n  reads +65, 64\.0 KiB')
        with open(rep_path) as f:
            rep = json.load(f)
        self.assertEqual(rep['traces'][0]['file'], '/dev/null')
        self.assertEqual((rep['pattern']['reads'], rep['pattern']['bytes_read']),
                         (64 + 1, 64 * KIB))
        [f] = [f for f in rep['files']['list'] if f['path'] == data]
        self.assertEqual((f['reads'], f['bytes_read'], f['opens']), (65, 64 * KIB, 1))

    def test_report_json_usage_errors(self):
        res = subprocess.run([DLTRACE, '-o', '-', '--report-json', '-', '--', 'true'],
                             capture_output=True)
        self.assertEqual(res.returncode, 2)
        self.assertIn(b'standard output', res.stderr)
        res = subprocess.run([DLTRACE, '--report-json', '', '--', 'true'], capture_output=True)
        self.assertEqual(res.returncode, 2)


class CappedJobSummaryTest(DaemonCase):
    """A job whose trace outgrows max_trace_mb still gets a summary of all its I/O."""
    settings = {'max_trace_mb': '1'}

    def test_summary_covers_the_job_past_the_size_cap(self):
        d = self.daemon
        size = 16 << 20  # 16,384 reads of 1 KiB: about 3 MB of trace, three times the cap
        data = self.make_file('big.bin', size)
        job = d.job_cgroup(3001)
        p = d.run_in(job, [workload('report_patterns'), 'small-reads', data], 'nobody')
        self.assertEqual(p.wait(120), 0)
        d.remove_job(job)
        trace, summary = d.job_files(3001, 'nobody')
        with gzip.open(trace, 'rb') as f:
            raw = f.read()
        events = load_trace(trace)
        end = events[-1]['args']
        self.assertGreater(end['capped_events'], 0)
        self.assertLess(len(raw), 2 << 20)
        traced_reads = [e for e in events if e.get('name') == 'read' and
                        e['args'].get('path') == data]
        self.assertLess(len(traced_reads), size // READ_SIZE)
        with open(summary) as f:
            rep = json.load(f)
        [f] = [f for f in rep['files']['list'] if f['path'] == data]
        self.assertEqual((f['reads'], f['bytes_read'], f['opens']),
                         (size // READ_SIZE + 1, size, 1))
        self.assertEqual(rep['pattern']['bytes_read'], size)
        # the summary counts every event of the job, the file only those it kept
        self.assertEqual(rep['traces'][0]['events'],
                         end['events'] + end['capped_events'])


class SummaryOnlyTest(TraceTest):
    """--summary-only: no trace file, the report's JSON into -o's file."""

    def test_the_report_and_no_trace(self):
        data = self.path('input.bin')
        with open(data, 'wb') as f:
            f.write(os.urandom(256 * KIB))
        out = self.path('job.json')
        res = subprocess.run([DLTRACE, '-o', out, '--summary-only', '--',
                              workload('report_patterns'), 'small-reads', data],
                             capture_output=True)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn(b'the report goes to %s' % out.encode(), res.stderr)
        self.assertEqual(sorted(os.listdir(self.dir)), ['input.bin', 'job.json'])
        self.assertEqual(os.stat(out).st_mode & 0o777, 0o600)
        with open(out) as f:
            rep = json.load(f)
        self.assertEqual(rep['schema'], 'dltrace-report-1')
        self.assertEqual(rep['traces'][0]['file'], '(no trace file)')
        self.assertEqual((rep['pattern']['reads'], rep['pattern']['bytes_read']),
                         (256 + 1, 256 * KIB))  # and the read at EOF
        [f] = [f for f in rep['files']['list'] if f['path'] == data]
        self.assertEqual((f['reads'], f['bytes_read'], f['opens']), (257, 256 * KIB, 1))
        # on standard output, with the terminal report on stderr
        res = subprocess.run([DLTRACE, '-q', '-o', '-', '--summary-only', '--report', '--',
                              workload('report_patterns'), 'small-reads', data],
                             capture_output=True, env=dict(os.environ, NO_COLOR='1'))
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(json.loads(res.stdout)['pattern']['bytes_read'], 256 * KIB)
        self.assertIn(b'Application I/O', res.stderr)

    def test_usage_errors(self):
        for args in (['--summary-only', '--report-json', self.path('r.json')],
                     ['-o', self.path('t.pftrace'), '--summary-only'],
                     ['-o', self.path('t.json.gz'), '--summary-only']):
            res = subprocess.run([DLTRACE] + args + ['--', 'true'], capture_output=True)
            self.assertEqual(res.returncode, 2, args)
            self.assertTrue(res.stderr.startswith(b'dltrace: '), args)
            self.assertEqual(os.listdir(self.dir), [])


class DaemonFormatCase(DaemonCase):
    def run_job(self, jobid, size=64 * KIB):
        data = self.make_file('in%d.bin' % jobid, size)
        job = self.daemon.job_cgroup(jobid)
        p = self.daemon.run_in(job, [workload('report_patterns'), 'small-reads', data], 'nobody')
        self.assertEqual(p.wait(120), 0)
        self.daemon.remove_job(job)
        return data

    def job_files(self, names):
        day = self.daemon.day_dir()
        self.assertTrue(wait_for(lambda: os.path.isdir(day) and sorted(
            x for x in os.listdir(day) if not x.startswith('.')) == sorted(names), timeout=60),
            self.daemon.log())
        self.assertEqual([x for x in os.listdir(day) if x.startswith('.')], [])
        return [os.path.join(day, n) for n in names]


class DaemonPftraceTest(DaemonFormatCase):
    settings = {'trace_format': 'pftrace'}

    def test_job_trace_as_pftrace(self):
        data = self.run_job(3101)
        base = 'nobody_3101_%s' % HOST
        trace, summary = self.job_files([base + '.pftrace.gz', base + '.summary.json'])
        with gzip.open(trace, 'rb') as f:
            self.assertEqual(f.read(1), b'\x0a')  # Trace.packet
        with open(summary) as f:
            rep = json.load(f)
        # the summary (live events) is the report of the .pftrace
        self.assertEqual(without_file_name(rep), without_file_name(report_of(trace)))
        [f] = [f for f in rep['files']['list'] if f['path'] == data]
        self.assertEqual((f['reads'], f['bytes_read']), (64 + 1, 64 * KIB))


class DaemonSummaryOnlyTest(DaemonFormatCase):
    settings = {'trace_format': 'none'}

    def test_job_summary_without_a_trace(self):
        data = self.run_job(3102)
        [summary] = self.job_files(['nobody_3102_%s.summary.json' % HOST])
        with open(summary) as f:
            rep = json.load(f)
        [f] = [f for f in rep['files']['list'] if f['path'] == data]
        self.assertEqual((f['reads'], f['bytes_read'], f['opens']), (64 + 1, 64 * KIB, 1))
