#!/usr/bin/env python3
"""Run dltrace's test suite: every tests/test_*.py (or the modules named).

Usage: run_tests.py [MODULE[.Class[.test]]...]
The tests load real BPF programs: run as root on a kernel with BTF.
"""
import os
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def main(argv):
    if os.geteuid() != 0:
        print('run_tests: the tests load BPF programs and need root', file=sys.stderr)
        return 2
    loader = unittest.TestLoader()
    names = [a for a in argv[1:] if a]
    if names:
        suite = loader.loadTestsFromNames(names)
    else:
        suite = loader.discover(HERE, pattern='test_*.py', top_level_dir=HERE)
    start = time.time()
    result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
    print('run_tests: %d tests in %.0f s, %d failures, %d errors, %d skipped' %
          (result.testsRun, time.time() - start, len(result.failures), len(result.errors),
           len(result.skipped)))
    return 0 if result.wasSuccessful() else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
