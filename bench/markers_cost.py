"""What a dltrace marker costs while no tracer is attached (the probes'
semaphores are 0), from Python and from C.

Usage: markers_cost.py [--reps N] [--calls N]
Each case runs N reps of CALLS calls; prints the median ns per call with
min and max.  A "with region()" block is two markers (begin and end).
The C case calls dltrace_region_begin through build/bench/fread_loop
--call (a function pointer call from a loop).
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


def per_call(stmt, calls, reps, setup='pass'):
    ns = [t / calls * 1e9 for t in timeit.repeat(stmt, setup, number=calls, repeat=reps,
                                                   globals=globals())]
    return {'median': statistics.median(ns), 'min': min(ns), 'max': max(ns)}


@dltrace.region('decorated')
def decorated():
    pass


def plain():
    pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--reps', type=int, default=7)
    ap.add_argument('--calls', type=int, default=1000000)
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
        ('python: dltrace.instant("x")', 'dltrace.instant("x")'),
        ('python: dltrace.counter("x", 1)', 'dltrace.counter("x", 1)'),
        ('python: with dltrace.step(i): (2 markers)', 'with dltrace.step(1): pass'),
        ('python: with dltrace.region("epoch", epoch=1): (2 markers)',
         'with dltrace.region("epoch", epoch=1): pass'),
        ('python: @dltrace.region function call (2 markers)', 'decorated()'),
        ('python: ctypes call of dltrace_instant (what the semaphore check avoids)',
         'lib.dltrace_instant(b"x", None)'),
    ]
    results = {}
    for label, stmt in cases:
        results[label] = per_call(stmt, a.calls, a.reps)
    res = subprocess.run([os.path.join(ROOT, 'build', 'bench', 'fread_loop'), '--call',
                          dltrace.library_path() + ':dltrace_markers_enabled', '100000000'],
                         capture_output=True, text=True, check=True)
    results['C: dltrace_markers_enabled() through a function pointer'] = {
        'median': json.loads(res.stdout)['ns_per_call']}
    for label, r in results.items():
        print('%-75s %7.1f ns%s' % (label, r['median'],
                                    ' (%.1f-%.1f)' % (r['min'], r['max']) if 'min' in r else ''))


if __name__ == '__main__':
    main()
