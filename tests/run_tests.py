#!/usr/bin/env python3
"""Run dltrace's test suite: every tests/test_*.py (or the tests named).

Usage: run_tests.py [--unit] [--strict] [--shuffle [SEED]] [--list] [--each]
                    [MODULE[.Class[.test]]...]

  --unit            only the unit tier (tests/unit/test_*.py: no root, no BPF;
                    `make check`).  Without it every test runs, both tiers in
                    one run (`make test`), so that none runs twice.
  --strict          a skipped test fails the run (CI: every case must run
                    there).  Without it, skips are listed at the end, each
                    with why it did not run.

  --shuffle [SEED]  run the modules, the classes of each module and the tests
                    of each class in a random order drawn from SEED (an
                    integer; a random one when omitted).  The seed is printed
                    before and after the run: the same seed and the same
                    names give the same order.  A module's classes stay
                    together and so do a class's tests, so setUpModule and
                    setUpClass run once each, as in an ordered run (unittest
                    runs them again for every separate stretch of a module
                    or class, which would also test something else: fixtures
                    run twice).
  --list            print the id of every test selected, one a line, and exit.
  --each            run every test selected alone, each in a fresh process
                    (its own module and class fixtures), and print one line
                    per test, then a summary with the output of the failures.
                    With --shuffle, in the shuffled order.

The tests of tests/test_*.py load real BPF programs: run them as root on a
kernel with BTF.  Those of tests/unit/ run as any user.
"""
import os
import random
import subprocess
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
UNIT = os.path.join(HERE, 'unit')
sys.path.insert(0, HERE)
sys.path.insert(0, UNIT)


def usage(message):
    print('run_tests: %s\n%s' % (message, __doc__.strip().splitlines()[2]), file=sys.stderr)
    return 2


def parse_args(args):
    """(options, names) of the command line, or an error message."""
    opts = {'shuffle': False, 'seed': None, 'list': False, 'each': False, 'unit': False,
            'strict': False}
    names = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == '--shuffle' or a.startswith('--shuffle='):
            opts['shuffle'] = True
            value = a.partition('=')[2] if '=' in a else None
            if value is None and i + 1 < len(args) and args[i + 1].isdigit():
                i += 1
                value = args[i]
            if value is not None:
                if not value.isdigit():
                    return None, None, '--shuffle: the seed must be a non-negative integer'
                opts['seed'] = int(value)
        elif a == '--list':
            opts['list'] = True
        elif a == '--each':
            opts['each'] = True
        elif a == '--unit':
            opts['unit'] = True
        elif a == '--strict':
            opts['strict'] = True
        elif a.startswith('-'):
            return None, None, 'unknown option %s' % a
        elif a:
            names.append(a)
        i += 1
    return opts, names, None


def flatten(suite):
    """The tests of a (nested) suite, in order."""
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from flatten(item)
        else:
            yield item


def test_id(test):
    """module.Class.test (ids of discovered tests have no package prefix)."""
    return test.id()


def shuffled(tests, seed):
    """tests in a random order that keeps each module's and each class's tests together."""
    modules = {}
    for t in tests:
        cls = type(t)
        modules.setdefault(cls.__module__, {}).setdefault(cls.__qualname__, []).append(t)
    rng = random.Random(seed)
    out = []
    order = list(modules)
    rng.shuffle(order)
    for m in order:
        classes = list(modules[m])
        rng.shuffle(classes)
        for c in classes:
            group = list(modules[m][c])
            rng.shuffle(group)
            out.extend(group)
    return out


def discover(loader, unit_only):
    """The unit tier (tests/unit), and unless unit_only the BPF tier (tests/)."""
    unit = loader.discover(UNIT, pattern='test_*.py', top_level_dir=UNIT)
    if unit_only:
        return unit
    return unittest.TestSuite([unit, loader.discover(HERE, pattern='test_*.py',
                                                     top_level_dir=HERE)])


def run_each(ids, env_note, unit_only, strict):
    """Each id in its own process; returns the exit status."""
    failed = []
    start = time.time()
    for n, tid in enumerate(ids, 1):
        t0 = time.time()
        res = subprocess.run([sys.executable, os.path.abspath(__file__)] +
                             (['--unit'] if unit_only else []) + [tid],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        took = time.time() - t0
        out = res.stdout.decode('utf-8', 'replace')
        ok = res.returncode == 0
        # a test that skipped is no pass: say so (the suite never skips silently)
        skipped = ok and 'skipped=' in out
        word = 'ok' if ok and not skipped else 'SKIP' if skipped else 'FAIL'
        print('run_tests: [%d/%d] %-4s %6.1f s  %s' % (n, len(ids), word, took, tid), flush=True)
        if word != 'ok':
            failed.append((tid, word, out))
    for tid, word, out in failed:
        print('\n==== %s: %s ====\n%s' % (word, tid, out))
    print('run_tests: each test alone: %d tests in %.0f s, %d did not pass%s' %
          (len(ids), time.time() - start, len(failed), env_note))
    for tid, word, _ in failed:
        print('  %s %s' % (word, tid))
    bad = [f for f in failed if f[1] == 'FAIL' or strict]
    return 1 if bad else 0


def report_skips(skipped, strict):
    """Each test that did not run, and why: once, at the end of the run."""
    if not skipped:
        return
    print('run_tests: %d test%s did not run%s:' % (
        len(skipped), '' if len(skipped) == 1 else 's',
        ' (--strict: a skip fails the run)' if strict else ''))
    for test, reason in skipped:
        print('  %s: %s' % (test_id(test), reason))


def main(argv):
    opts, names, error = parse_args(argv[1:])
    if error:
        return usage(error)
    if os.geteuid() != 0 and not opts['list'] and not opts['unit']:
        print('run_tests: the tests load BPF programs and need root '
              '(--unit, or make check: the tests that do not)', file=sys.stderr)
        return 2
    loader = unittest.TestLoader()
    if names:
        suite = loader.loadTestsFromNames(names)
    else:
        suite = discover(loader, opts['unit'])
    tests = list(flatten(suite))
    if opts['unit']:
        # a test of the BPF tier named with --unit would fail for want of root
        other = sorted({test_id(t) for t in tests if not os.path.dirname(
            os.path.abspath(sys.modules[type(t).__module__].__file__)) == UNIT})
        if other:
            return usage('not in the unit tier (tests/unit): %s' % ', '.join(other[:5]))
    seed_note = ''
    if opts['shuffle']:
        if opts['seed'] is None:
            opts['seed'] = random.SystemRandom().randrange(1 << 32)
        tests = shuffled(tests, opts['seed'])
        seed_note = ', shuffled with seed %d (replay: tests/run_tests.py%s --shuffle %d%s%s)' % (
            opts['seed'], ' --unit' if opts['unit'] else '', opts['seed'],
            ' --each' if opts['each'] else '', ''.join(' ' + n for n in names))
        print('run_tests: %s' % seed_note[2:], flush=True)
    if opts['list']:
        for t in tests:
            print(test_id(t))
        return 0
    if opts['each']:
        return run_each([test_id(t) for t in tests], seed_note, opts['unit'], opts['strict'])
    start = time.time()
    result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(
        unittest.TestSuite(tests))
    print('run_tests: %d tests in %.0f s, %d failures, %d errors, %d skipped%s' %
          (result.testsRun, time.time() - start, len(result.failures), len(result.errors),
           len(result.skipped), seed_note))
    report_skips(result.skipped, opts['strict'])
    if opts['strict'] and result.skipped:
        return 1
    return 0 if result.wasSuccessful() else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
