"""dltrace report and merge on inputs that are not whole dltrace traces, and
their usage: what a crash leaves (no closing bracket, an event cut, a gzip
stream cut) is summarized with a warning; what is not a dltrace trace
(empty, garbage, other Chrome traces, corrupt gzip, a missing file) is an
error of one line.  The traces are the small job of test_report_synthetic
(dltrace's format, written by hand): nothing here needs root."""
import gzip
import json
import os
import shutil
import subprocess
import tempfile
import unittest

from dltrace_harness import DLTRACE
from synthetic_trace import Trace
from test_report_synthetic import small_job


def run_report(args, check=True, **kw):
    res = subprocess.run([DLTRACE, 'report'] + list(args), capture_output=True, timeout=120,
                         **kw)
    if check and res.returncode != 0:
        raise AssertionError('dltrace report %s failed (%d): %s' %
                             (args, res.returncode, res.stderr.decode()))
    return res


def report_json(*traces):
    return json.loads(run_report(['--json', '--top', '1000'] + list(traces)).stdout)


def merge(args, check=True):
    res = subprocess.run([DLTRACE, 'merge'] + list(args), capture_output=True, timeout=300)
    if check and res.returncode != 0:
        raise AssertionError('dltrace merge %s failed (%d): %s' %
                             (args, res.returncode, res.stderr.decode()))
    return res


class DamagedInputTest(unittest.TestCase):
    """What a crash leaves is summarized with a warning; what is not a trace is an error."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix='dltrace-report-')
        cls.trace = small_job(os.path.join(cls.dir, 'job.json'))
        with open(cls.trace, 'rb') as f:
            cls.text = f.read()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def write(self, name, data):
        path = os.path.join(self.dir, name)
        with open(path, 'wb') as f:
            f.write(data)
        return path

    def expect_error(self, path, message):
        res = run_report([path], check=False)
        self.assertEqual(res.returncode, 1, res.stderr)
        err = res.stderr.decode()
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertIn(message, err)
        self.assertEqual(res.stdout, b'')

    def expect_truncated(self, path, why):
        res = run_report(['--json', path], check=False)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn('warning: ', res.stderr.decode())
        self.assertIn(why, res.stderr.decode())
        rep = json.loads(res.stdout)
        self.assertFalse(rep['traces'][0]['complete'])
        self.assertTrue(any(why in w for w in rep['traces'][0]['warnings']))
        return rep

    def test_missing_closing_bracket(self):
        text = self.text[:self.text.rindex(b'\n]')]
        rep = self.expect_truncated(self.write('no-bracket.json', text), "no closing ']'")
        full = report_json(self.trace)
        self.assertEqual(rep['pattern'], full['pattern'])

    def test_cut_in_the_middle_of_an_event(self):
        cut = self.text.index(b'\n,{"name":"read"', len(self.text) // 2) + 40
        rep = self.expect_truncated(self.write('cut.json', self.text[:cut]),
                                    'the last event is cut')
        whole_lines = self.text[:cut].count(b'\n')  # the header line and complete events
        self.assertEqual(rep['traces'][0]['events'], whole_lines)

    def test_cut_gzip_stream(self):
        gz = gzip.compress(self.text)
        rep = self.expect_truncated(self.write('cut.json.gz', gz[:len(gz) // 2]),
                                    'the gzip stream ends early')
        self.assertGreater(rep['pattern']['reads'], 0)

    def test_empty_file(self):
        self.expect_error(self.write('empty.json', b''), 'empty file')

    def test_garbage(self):
        self.expect_error(self.write('garbage.json', b'\x00' + os.urandom(8191)),
                          'not a dltrace trace')
        self.expect_error(self.write('text.json', b'hello world\n' * 100),
                          'not a dltrace trace')

    def test_other_chrome_traces(self):
        other = [{'name': 'step', 'ph': 'X', 'ts': 1, 'dur': 2, 'pid': 1, 'tid': 1}]
        self.expect_error(self.write('array.json', json.dumps(other).encode()),
                          "without dltrace's metadata event")
        self.expect_error(self.write('object.json', json.dumps({'traceEvents': other}).encode()),
                          'a JSON object')

    def test_corrupt_gzip(self):
        gz = bytearray(gzip.compress(self.text))
        for i in range(len(gz) // 3, len(gz) // 3 + 64):
            gz[i] ^= 0x5a
        self.expect_error(self.write('corrupt.json.gz', bytes(gz)), 'corrupt gzip data')

    def test_missing_file(self):
        self.expect_error(os.path.join(self.dir, 'nope.json'), 'cannot open')

    def test_gzip_input_gives_the_same_report(self):
        gz = self.write('t.json.gz', gzip.compress(self.text))
        a, b = report_json(self.trace), report_json(gz)
        for rep in (a, b):
            rep['traces'][0].pop('file')
        self.assertEqual(a, b)


class ReportUsageTest(unittest.TestCase):
    def test_usage(self):
        res = run_report(['--help'])
        self.assertIn(b'Usage: dltrace report', res.stdout)
        for args in ([], ['--bogus', 'x.json'], ['--top', '0', 'x.json'], ['--html']):
            res = run_report(args, check=False)
            self.assertEqual(res.returncode, 2, args)
            self.assertIn(b'dltrace report: ', res.stderr)


class MergeInputsTest(unittest.TestCase):
    """Two node traces (the small job as node1 and node2), and inputs that are not traces."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix='dltrace-merge-')
        self.inputs = [small_job(os.path.join(self.dir, 'node1.json'))]
        node2 = Trace(hostname='node2')
        node2.call('openat', 'metadata', 7, 7, 1000, 2048, ret=3, fd=3, path='/data/x',
                   flags='O_RDONLY')
        node2.process_name(7, 'python3 train.py')
        self.inputs.append(node2.write(os.path.join(self.dir, 'node2.json'), 10000))

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_inputs_that_are_not_dltrace_traces(self):
        cases = {
            'garbage.json': (b'\x00\x01garbage',
                             "not a dltrace trace (it does not start with '[')"),
            'empty.json': (b'', 'empty file'),
            'chrome.json': (b'[{"name":"x","ph":"M","pid":1,"tid":1,"args":{}}\n]\n',
                            "not a dltrace trace: a Chrome trace without dltrace's metadata"),
            # a JSON object is a PyTorch profiler trace to merge (tests/unit/test_kineto.py)
            'object.json': (b'{"traceEvents":[]}\n', 'no baseTimeNanoseconds: the profiler '
                            'trace does not say the wall clock its times count from'),
            'other_object.json': (b'{"schemaVersion":1}\n', 'not a PyTorch profiler trace: '
                                  'a JSON object without traceEvents'),
            'corrupt.json.gz': (b'\x1f\x8b\x08\x00' + b'\xff' * 64, 'corrupt gzip data'),
        }
        for name, (data, message) in cases.items():
            path = os.path.join(self.dir, name)
            with open(path, 'wb') as f:
                f.write(data)
            out = os.path.join(self.dir, 'never.json')
            res = merge([self.inputs[0], path, '-o', out], check=False)
            self.assertEqual(res.returncode, 1, name)
            self.assertTrue(res.stderr.decode().startswith(
                'dltrace merge: %s: %s' % (path, message)), res.stderr)
            self.assertEqual(res.stderr.count(b'\n'), 1)
            self.assertFalse(os.path.exists(out), name)
        res = merge([os.path.join(self.dir, 'missing.json'), '-o', os.path.join(self.dir, 'never.json')], check=False)
        self.assertEqual(res.returncode, 1)
        self.assertIn(b'cannot open', res.stderr)

    def test_usage(self):
        res = merge(['--help'])
        self.assertIn(b'Usage: dltrace merge', res.stdout)
        out = os.path.join(self.dir, 'u.json')
        for args in ([], [self.inputs[0]], ['-o', out], [self.inputs[0], '-', '-o', out],
                     [self.inputs[0], '-o', out, '--gzip-level', '0'], ['--bogus'],
                     [self.inputs[0], '-o']):
            res = merge(args, check=False)
            self.assertEqual(res.returncode, 2, args)
            self.assertTrue(res.stderr.startswith(b'dltrace merge: '), args)
        # the output is one of the inputs: refused before anything is written
        size = os.path.getsize(self.inputs[0])
        res = merge(self.inputs + ['-o', self.inputs[0]], check=False)
        self.assertEqual(res.returncode, 1)
        self.assertIn(b'is the input', res.stderr)
        self.assertEqual(os.path.getsize(self.inputs[0]), size)


if __name__ == '__main__':
    unittest.main()
