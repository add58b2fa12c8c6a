#!/usr/bin/env python3
"""Run dltrace's test suite: every tests/test_*.py (or the tests named).

Usage: run_tests.py [--unit] [--strict] [--shuffle [SEED]] [--sanitized] [--list] [--each]
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
  --sanitized       the run against dltrace and its helpers built with the
                    sanitizers (make test-asan: DLTRACE_BIN, DLTRACE_HELPERS):
                    leaves out the tests marked runs_no_dltrace_code (they run
                    no program built from user/, so nothing sanitized), prints
                    what it runs and what it leaves out, and fails a test that
                    runs a program built from user/ without the sanitizers, or
                    none at all.
  --list            print the id of every test selected, one a line, and exit.
  --each            run every test selected alone, each in a fresh process
                    (its own module and class fixtures), and print one line
                    per test, then a summary with the output of the failures.
                    With --shuffle, in the shuffled order.

Every run notes the programs built from user/ that each test starts (through
subprocess or os.exec*, fixtures included) and fails a test marked
runs_no_dltrace_code that starts one: a mark can leave no test out of the
sanitized run that has something to check there.

The tests load real BPF programs: run as root on a kernel with BTF.
"""
import os
import random
import re
import stat
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
UNIT = os.path.join(HERE, 'unit')
sys.path.insert(0, HERE)
sys.path.insert(0, UNIT)

import dltrace_harness  # noqa: E402 (needs the path above)


def usage(message):
    print('run_tests: %s\n%s' % (message, __doc__.strip().splitlines()[2]), file=sys.stderr)
    return 2


def parse_args(args):
    """(options, names) of the command line, or an error message."""
    opts = {'shuffle': False, 'seed': None, 'list': False, 'each': False, 'sanitized': False,
            'unit': False, 'strict': False}
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
        elif a == '--sanitized':
            opts['sanitized'] = True
        elif a == '--unit':
            opts['unit'] = True
        elif a == '--strict':
            opts['strict'] = True
        elif a == '--each':
            opts['each'] = True
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


# A compile unit's name in the debug information: the program holds code of user/.
USER_CODE = re.compile(rb'\0user/[\w./-]+\.c\0')
# The words of a command line that may name a program: `sh -c '.../dltrace ...'` and
# tmux's command strings name dltrace inside an argument.
PATH_WORDS = re.compile(r'[^\s\'"=,;:()\[\]{}<>|&]*/[^\s\'"=,;:()\[\]{}<>|&]*')


def marked_no_dltrace_code(test):
    """The test, or its class, is marked runs_no_dltrace_code (dltrace_harness)."""
    method = getattr(test, getattr(test, '_testMethodName', ''), None)
    return bool(getattr(test, 'runs_no_dltrace_code', False) or
                getattr(method, 'runs_no_dltrace_code', False))


PROGRAMS = {}


def program(word):
    """(real path, built with the sanitizers) when word names a program built from
    user/ (dltrace, a helper, a copy of them), else None."""
    try:
        real = os.path.realpath(word)
        st = os.stat(real)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    key = (real, st.st_ino, st.st_mtime_ns, st.st_size)
    if key not in PROGRAMS:
        PROGRAMS[key] = None
        name = os.path.basename(real)
        # what the checkout built (or a copy of dltrace elsewhere); not the system's
        if name == 'dltrace' or real.startswith(dltrace_harness.ROOT + os.sep):
            try:
                with open(real, 'rb') as f:
                    data = f.read() if f.read(4) == b'\x7fELF' else b''
            except OSError:
                data = b''
            if data and (name == 'dltrace' or USER_CODE.search(data) or
                         any(real.endswith(os.sep + h) for h in dltrace_harness.HELPERS)):
                PROGRAMS[key] = (real, b'__asan_init' in data)
    return PROGRAMS[key]


class ExecLog:
    """The programs built from user/ that this process and its forks start:
    subprocess.Popen and os.execv/execve (os.exec*p and pty go through them) are
    wrapped to append a line per such program to a file, so that a fork's exec
    (pty.fork) is seen too.  take() returns and forgets them: {(path, sanitized)}."""

    def __init__(self):
        fd, self.path = tempfile.mkstemp(prefix='run_tests-execs-')
        os.close(fd)
        self.fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
        log = self
        popen_init = subprocess.Popen.__init__

        def init(popen, args, *rest, **kw):
            log.note(args, kw.get('executable'))
            popen_init(popen, args, *rest, **kw)
        subprocess.Popen.__init__ = init
        for name in ('execv', 'execve'):
            def wrapper(path, args, *rest, _exec=getattr(os, name)):
                log.note([path] + list(args))
                return _exec(path, args, *rest)
            setattr(os, name, wrapper)

    def note(self, args, executable=None):
        if isinstance(args, (str, bytes, os.PathLike)):
            args = [args]
        try:
            words = [os.fsdecode(a) for a in list(args) + [executable] if a is not None]
        except TypeError:
            return
        for arg in words:
            for word in PATH_WORDS.findall(arg):
                prog = program(word)
                if prog:
                    os.write(self.fd, ('%d %s\n' % (prog[1], prog[0])).encode())

    def take(self):
        with open(self.path, 'rb') as f:
            lines = f.read().decode('utf-8', 'replace').splitlines()
        os.ftruncate(self.fd, 0)
        return {(l[2:], l[0] == '1') for l in lines if len(l) > 2}

    def close(self):
        os.close(self.fd)
        os.unlink(self.path)


class FixtureSuite(unittest.TestSuite):
    """A suite that hands the result what the module and class fixtures
    (setUpModule, setUpClass) started: their tests use it."""

    def _handleModuleFixture(self, test, result):
        log = getattr(result, 'exec_log', None)
        if log:
            log.take()  # a tearDownClass before: no test's
        super()._handleModuleFixture(test, result)
        if log:
            result.fixture_ran(type(test).__module__, log.take())

    def _handleClassSetUp(self, test, result):
        super()._handleClassSetUp(test, result)
        log = getattr(result, 'exec_log', None)
        if log:
            cls = type(test)
            result.fixture_ran((cls.__module__, cls.__qualname__), log.take())


class CheckedResult(unittest.TextTestResult):
    """Fails a passing test whose mark does not match what it started (ExecLog);
    in the sanitized run also one that started no program built from user/, or one
    built without the sanitizers."""
    exec_log = None
    sanitized = False

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.fixtures = {}
        self.durations = []  # (seconds, id): where a run's time goes

    def fixture_ran(self, key, programs):
        self.fixtures.setdefault(key, set()).update(programs)

    def startTest(self, test):
        self.exec_log.take()  # a tearDown of a fixture before: no test's
        self.started = time.time()
        super().startTest(test)

    def stopTest(self, test):
        self.durations.append((time.time() - self.started, test_id(test)))
        super().stopTest(test)

    def problem(self, test):
        cls = type(test)
        ran = (self.exec_log.take() | self.fixtures.get(cls.__module__, set()) |
               self.fixtures.get((cls.__module__, cls.__qualname__), set()))
        if marked_no_dltrace_code(test) and ran:
            return ('marked runs_no_dltrace_code, but it ran %s: remove the mark, so that '
                    'the sanitized run (make test-asan) runs it' %
                    ', '.join(sorted(p for p, _ in ran)))
        if self.sanitized and not ran:
            return ('ran no program built from user/, so nothing sanitized: mark it '
                    'runs_no_dltrace_code (tests/dltrace_harness.py) to leave it out of '
                    'the sanitized run')
        plain = sorted(p for p, sanitized in ran if not sanitized)
        if self.sanitized and plain:
            return ('ran %s, built without the sanitizers, in the sanitized run: start '
                    'dltrace_harness.DLTRACE or helper(NAME)' % ', '.join(plain))
        return None

    def addSuccess(self, test):
        problem = self.problem(test)
        if problem is None:
            super().addSuccess(test)
            return
        # no traceback: the problem is the test's, not this line's
        self.addFailure(test, (AssertionError, AssertionError(problem), None))


def check_sanitized_build():
    """None when dltrace and every helper of the sanitized run are built with the
    sanitizers, else what is not."""
    wanted = [dltrace_harness.DLTRACE] + [os.path.join(dltrace_harness.HELPER_BUILD, h)
                                          for h in dltrace_harness.HELPERS]
    bad = []
    for path in wanted:
        prog = program(path)
        if not prog or not prog[1]:
            bad.append(path if prog else path + ' (missing)')
    if bad:
        return ('--sanitized: not built with the sanitizers: %s (make test-asan builds them; '
                'DLTRACE_BIN and DLTRACE_HELPERS point at them)' % ', '.join(bad))
    return None


def discover(loader, unit_only):
    """The unit tier (tests/unit), and unless unit_only the BPF tier (tests/)."""
    unit = loader.discover(UNIT, pattern='test_*.py', top_level_dir=UNIT)
    if unit_only:
        return unit
    return unittest.TestSuite([unit, loader.discover(HERE, pattern='test_*.py',
                                                     top_level_dir=HERE)])


def report_skips(skipped, strict):
    """Each test that did not run, and why: once, at the end of the run."""
    if not skipped:
        return
    print('run_tests: %d test%s did not run%s:' % (
        len(skipped), '' if len(skipped) == 1 else 's',
        ' (--strict: a skip fails the run)' if strict else ''))
    for test, reason in skipped:
        print('  %s: %s' % (test_id(test), reason))


def run_each(ids, env_note, opts):
    """Each id in its own process; returns the exit status."""
    failed = []
    start = time.time()
    for n, tid in enumerate(ids, 1):
        t0 = time.time()
        res = subprocess.run([sys.executable, os.path.abspath(__file__)] +
                             (['--sanitized'] if opts['sanitized'] else []) +
                             (['--unit'] if opts['unit'] else []) + [tid],
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
    bad = [f for f in failed if f[1] == 'FAIL' or opts['strict']]
    return 1 if bad else 0


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
    if opts['sanitized']:
        error = check_sanitized_build()
        if error:
            print('run_tests: %s' % error, file=sys.stderr)
            return 2
        os.environ['DLTRACE_SANITIZED'] = '1'
        left_out = [test_id(t) for t in tests if marked_no_dltrace_code(t)]
        tests = [t for t in tests if not marked_no_dltrace_code(t)]
        print('run_tests: sanitized run (%s): %d tests; %d left out, which run no program '
              'built from user/%s' % (dltrace_harness.DLTRACE, len(tests), len(left_out),
                                      ':' if left_out else ''), flush=True)
        for tid in left_out:
            print('  left out: %s' % tid)
    seed_note = ''
    if opts['shuffle']:
        if opts['seed'] is None:
            opts['seed'] = random.SystemRandom().randrange(1 << 32)
        tests = shuffled(tests, opts['seed'])
        seed_note = ', shuffled with seed %d (replay: tests/run_tests.py%s --shuffle %d%s%s%s)' % (
            opts['seed'], ' --unit' if opts['unit'] else '', opts['seed'],
            ' --sanitized' if opts['sanitized'] else '',
            ' --each' if opts['each'] else '', ''.join(' ' + n for n in names))
        print('run_tests: %s' % seed_note[2:], flush=True)
    if opts['list']:
        for t in tests:
            print(test_id(t))
        return 0
    if opts['each']:
        return run_each([test_id(t) for t in tests], seed_note, opts)
    start = time.time()
    CheckedResult.exec_log = ExecLog()
    CheckedResult.sanitized = opts['sanitized']
    try:
        result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout,
                                         resultclass=CheckedResult).run(FixtureSuite(tests))
    finally:
        CheckedResult.exec_log.close()
    if opts['sanitized']:
        modules = {}
        for t in tests:
            modules[type(t).__module__] = modules.get(type(t).__module__, 0) + 1
        print('run_tests: the sanitized run ran %s' %
              ', '.join('%s (%d)' % m for m in sorted(modules.items())))
    print('run_tests: the slowest: %s' % ', '.join(
        '%s %.0f s' % (tid, took) for took, tid in sorted(result.durations, reverse=True)[:8]))
    print('run_tests: %d tests in %.0f s, %d failures, %d errors, %d skipped%s' %
          (result.testsRun, time.time() - start, len(result.failures), len(result.errors),
           len(result.skipped), seed_note))
    report_skips(result.skipped, opts['strict'])
    if opts['strict'] and result.skipped:
        return 1
    return 0 if result.wasSuccessful() else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
