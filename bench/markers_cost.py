"""What a dltrace marker costs while no tracer is attached (the probes'
semaphores are 0), from Python and from C.

Usage: markers_cost.py [--reps N] [--calls N]
Each rep runs every case once (interleaved, so that a busy machine slows
them alike), CALLS calls each; prints the median ns per call over the reps
with min and max, and for the with-statement cases the cost above a with
statement on the cheapest no-op context manager (Python's own floor: the
marker cannot cost less than the with statement it is written as).  A
"with region()" block is two markers (begin and end).  The C case calls
dltrace_markers_enabled through build/bench/fread_loop --call (a function
pointer call from a loop).
"""
import argparse
import ctypes
import json
import os
import statistics
import subprocess
import sys
import timeit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, 'python'))
import dltrace_markers as dltrace  # noqa: E402


@dltrace.region('decorated')
def decorated():
    pass


def plain():
    pass


class Noop:
    """The cheapest context manager in Python: the with statement's floor."""
    __slots__ = ()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        return False


NOOP = Noop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--reps', type=int, default=7)
    ap.add_argument('--calls', type=int, default=500000)
    a = ap.parse_args()
    if not dltrace.library_path():
        sys.exit('markers_cost: libdltrace_markers.so not found (make)')
    if dltrace.enabled():
        sys.exit('markers_cost: a tracer is attached to the markers; measure without one')
    lib = ctypes.CDLL(dltrace.library_path())
    lib.dltrace_instant.argtypes = (ctypes.c_char_p, ctypes.c_char_p)
    globals()['lib'] = lib
    cases = [
        ('python: empty function call (reference)', 'plain()'),
        ('python: with on a no-op context manager (reference: the floor)', 'with NOOP: pass'),
        ('python: dltrace.instant("x")', 'dltrace.instant("x")'),
        ('python: dltrace.counter("x", 1)', 'dltrace.counter("x", 1)'),
        ('python: with dltrace.step(i): (2 markers)', 'with dltrace.step(1): pass'),
        ('python: with dltrace.region("epoch", epoch=1): (2 markers)',
         'with dltrace.region("epoch", epoch=1): pass'),
        ('python: @dltrace.region function call (2 markers)', 'decorated()'),
        ('python: ctypes call of dltrace_instant (what the semaphore check avoids)',
         'lib.dltrace_instant(b"x", None)'),
    ]
    ns = {label: [] for label, _ in cases}
    for _ in range(a.reps):
        for label, stmt in cases:
            ns[label].append(timeit.timeit(stmt, number=a.calls, globals=globals()) /
                             a.calls * 1e9)
    results = {label: {'median': statistics.median(v), 'min': min(v), 'max': max(v)}
               for label, v in ns.items()}
    floor = ns['python: with on a no-op context manager (reference: the floor)']
    for label, stmt in cases:
        if stmt.startswith('with dltrace'):
            above = [x - f for x, f in zip(ns[label], floor)]
            results[label]['above_floor'] = statistics.median(above)
    res = subprocess.run([os.path.join(ROOT, 'build', 'bench', 'fread_loop'), '--call',
                          dltrace.library_path() + ':dltrace_markers_enabled', '100000000'],
                         capture_output=True, text=True, check=True)
    results['C: dltrace_markers_enabled() through a function pointer'] = {
        'median': json.loads(res.stdout)['ns_per_call']}
    for label, r in results.items():
        print('%-75s %7.1f ns%s%s' % (
            label, r['median'], ' (%.1f-%.1f)' % (r['min'], r['max']) if 'min' in r else '',
            ', %.1f above the floor' % r['above_floor'] if 'above_floor' in r else ''))


if __name__ == '__main__':
    main()
