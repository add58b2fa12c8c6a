"""The daemon's configuration file, checked and refused before anything is
attached (`dltrace daemon --check`, and a bad file with --foreground): needs
no root."""
import os
import subprocess
import unittest

from dltrace_harness import DLTRACE, ROOT, TraceTest


class DaemonConfigTest(TraceTest):
    def test_example_configuration_parses(self):
        example = os.path.join(ROOT, 'packaging', 'dltrace.conf.example')
        res = subprocess.run([DLTRACE, 'daemon', '--config', example, '--check'],
                             capture_output=True)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(res.stdout.decode().split(': ', 1)[1],
                         '2 job patterns, log dir /var/log/dltrace\n')

    def test_bad_configuration_is_refused(self):
        cases = {
            'bogus = 1\n': "line 1: unknown key 'bogus'",
            'log_dir = relative\n': 'line 1: log_dir needs an absolute directory',
            '# ok\nring_size_mb = 3\n': 'line 2: ring_size_mb needs a power of two',
            'gzip_level = 11\n': "line 1: gzip_level: '11' is not a valid number here",
            'trace_format = xml\n': 'line 1: trace_format needs json, pftrace or none',
            'no equals sign\n': "line 1: expected 'key = value'",
            'metrics_listen = 9477\n': 'line 1: metrics_listen needs HOST:PORT',
            'metrics_listen = localhost:http\n': 'line 1: metrics_listen needs HOST:PORT',
        }
        for text, message in cases.items():
            conf = self.path('bad.conf')
            with open(conf, 'w') as f:
                f.write(text)
            res = subprocess.run([DLTRACE, 'daemon', '--config', conf, '--foreground'],
                                 capture_output=True, timeout=30)
            self.assertEqual(res.returncode, 1, text)
            self.assertIn(message, res.stderr.decode(), text)


if __name__ == '__main__':
    unittest.main()
