"""The line-table decoder of Python stacks (user/lib/py_linetable.c,
tools/py_linetable_check.c) against CPython's own co_lines(), on every
instruction of four standard modules: Debian's /usr/bin/python3 (required)
and pyenv's CPython 3.10 to 3.13 (each missing one is a skip that names it,
a failure with DLTRACE_REQUIRE_PYENV=1, as in tests/test_python_stacks.py).
It runs the interpreters, and needs no root."""
import os
import subprocess
import unittest

from dltrace_harness import ROOT, helper
from test_python_stacks import DEBIAN_PYTHON, pyenv_python, pyenv_root

LINES = helper('tests/py_linetable_check')
DUMP = os.path.join(ROOT, 'tests', 'workloads', 'py_linetable_dump.py')


class LineTableTest(unittest.TestCase):
    def check(self, python):
        dump = subprocess.run([python, DUMP, 'zipfile', 'json.decoder', 'dataclasses',
                               'asyncio.base_events'], capture_output=True, timeout=120)
        self.assertEqual(dump.returncode, 0, dump.stderr)
        out = subprocess.run([LINES], input=dump.stdout, capture_output=True, timeout=60)
        self.assertEqual(out.returncode, 0, '%s: %s' % (python, out.stdout.decode()))
        self.assertRegex(out.stdout.decode(), r'checked [1-9]\d{3,} mismatches 0')

    def test_debian_python(self):
        """The line-table decoder agrees with co_lines() on every instruction."""
        self.assertTrue(os.access(DEBIAN_PYTHON, os.X_OK), 'missing ' + DEBIAN_PYTHON)
        self.check(DEBIAN_PYTHON)

    def test_pyenv_pythons(self):
        for minor in (10, 11, 12, 13):
            with self.subTest(python='3.%d' % minor):
                exe = pyenv_python(minor)
                if exe is None:
                    msg = 'pyenv CPython 3.%d not installed (under %s)' % (minor, pyenv_root())
                    if os.environ.get('DLTRACE_REQUIRE_PYENV') == '1':
                        self.fail(msg)
                    self.skipTest(msg)
                self.check(exe)


if __name__ == '__main__':
    unittest.main()
