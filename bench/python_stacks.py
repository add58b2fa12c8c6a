#!/usr/bin/env python3
"""What Python stacks cost per traced syscall (docs/user-guide.md, "Python stacks").

The workload is bench/workloads/py_pread.py: 1,000,000 cached 4 KiB
os.pread calls from a Python loop (its frame stack: one module frame).  It
runs under tools/pystack_check, which loads dltrace's BPF programs (syscall
layer) with the stack walk (`on`) or the same programs without it (`off`,
--no-stacks), and untraced.  Two series, interleaved: every repetition runs
every condition, in an order rotated per repetition.

- wall: the workload's own ns per pread (bpf_stats off);
- bpf: with kernel.bpf_stats_enabled=1 (restored afterwards), run_time_ns /
  run_cnt of dl_enter_pread64 and dl_exit_pread64, the programs one pread
  runs; the walk is in the exit program.

Prints medians and [min-max]; `added` is on minus off, and the goal is
added <= 30% of off (enter + exit).  The same for a process that
is no Python (bench/workloads/micro_pread.c, one thread): what the walk's
presence costs everyone else.

Usage (root): bench/python_stacks.py [--python PY]... [--reps N] [--calls N] [--json FILE]
(make bench-build first: build/bench/micro_pread).  The results go to
bench/results/python-stacks.json unless --json says otherwise.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import measure  # noqa: E402
import results_store  # noqa: E402

CHECK = os.path.join(ROOT, 'build', 'tools', 'pystack_check')
WORKLOAD = os.path.join(HERE, 'workloads', 'py_pread.py')
C_MICRO = os.path.join(ROOT, 'build', 'bench', 'micro_pread')
PROGS = ('dl_enter_pread64', 'dl_exit_pread64')


def run(python, data, calls, condition):
    """One run: the workload's ns per call and the pread programs' {name: (ns, runs)}.
    python None: the C micro (no Python)."""
    argv = [python, WORKLOAD, data, str(calls)] if python else [C_MICRO, data, '1', str(calls)]
    if condition != 'untraced':
        argv = [CHECK, '--quiet'] + (['--no-stacks'] if condition == 'off' else []) + \
            ['--'] + argv
    out = subprocess.run(argv, capture_output=True, text=True, timeout=3600)
    if out.returncode:
        sys.exit('python_stacks: %s failed: %s' % (' '.join(argv), out.stderr[-2000:]))
    ns, progs = None, {}
    for line in out.stdout.splitlines():
        if line.startswith('{'):
            ns = json.loads(line)['ns_per_call']
        elif line.startswith('# prog '):
            f = line.split()
            progs[f[2]] = (int(f[6]), int(f[4]))
        elif line.startswith('# syscalls') and condition == 'on' and python:
            with_stack = int(line.split()[4])
            if with_stack < calls:
                sys.exit('python_stacks: only %d of %d preads had a stack' % (with_stack, calls))
    return ns, progs


def summary(values):
    return {'median': statistics.median(values), 'min': min(values), 'max': max(values),
            'runs': values}


def fmt(s):
    return '%.0f [%.0f-%.0f]' % (s['median'], s['min'], s['max'])


def bench(python, reps, calls, data):
    """The wall and bpf series of one interpreter (None: the C micro)."""
    wall = {c: [] for c in ('untraced', 'off', 'on')}
    bpf = {c: {p: [] for p in PROGS} for c in ('off', 'on')}
    for rep in range(reps):
        order = list(wall)
        order = order[rep % len(order):] + order[:rep % len(order)]
        for cond in order:
            wall[cond].append(run(python, data, calls, cond)[0])
    with measure.bpf_stats():
        for rep in range(reps):
            for cond in (('off', 'on') if rep % 2 == 0 else ('on', 'off')):
                progs = run(python, data, calls, cond)[1]
                for p in PROGS:
                    ns, runs = progs.get(p, (0, 0))
                    bpf[cond][p].append(ns / runs if runs else float('nan'))
    res = {'python': python or C_MICRO, 'calls': calls, 'reps': reps,
           'wall_ns_per_pread': {c: summary(v) for c, v in wall.items()},
           'bpf_ns_per_run': {c: {p: summary(v) for p, v in d.items()} for c, d in bpf.items()}}
    total = {c: [a + b for a, b in zip(bpf[c][PROGS[0]], bpf[c][PROGS[1]])] for c in bpf}
    res['bpf_ns_per_pread'] = {c: summary(v) for c, v in total.items()}
    added = statistics.median(total['on']) - statistics.median(total['off'])
    res['added_ns'] = added
    res['added_share'] = added / statistics.median(total['off'])
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--python', action='append', help='interpreter (repeatable; '
                    'default /usr/bin/python3)')
    ap.add_argument('--reps', type=int, default=5)
    ap.add_argument('--calls', type=int, default=1000000)
    ap.add_argument('--json', default=results_store.path('python-stacks'),
                    help='where to write the results (default '
                    'bench/results/python-stacks.json)')
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit('python_stacks: run as root (BPF programs, bpf_stats)')
    if measure.bpf_stats_on():
        print('warning: kernel.bpf_stats_enabled is already 1: wall times include it')
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, 'data')
        with open(data, 'wb') as f:
            f.write(os.urandom(256 * 4096))
        for python in (args.python or ['/usr/bin/python3']) + [None]:
            r = bench(python, args.reps, args.calls, data)
            python = python or C_MICRO + ' (no Python)'
            results.append(r)
            w, b = r['wall_ns_per_pread'], r['bpf_ns_per_run']
            print('%s, %d x %d preads, medians [min-max]' % (python, args.reps, args.calls))
            print('  wall ns/pread   untraced %s  off %s  on %s' %
                  (fmt(w['untraced']), fmt(w['off']), fmt(w['on'])))
            for p in PROGS:
                print('  %-16s off %s  on %s' % (p, fmt(b['off'][p]), fmt(b['on'][p])))
            print('  BPF ns/pread    off %s  on %s  added %.0f ns = %.0f%% (target <= 30%%)' %
                  (fmt(r['bpf_ns_per_pread']['off']), fmt(r['bpf_ns_per_pread']['on']),
                   r['added_ns'], 100 * r['added_share']))
    results_store.write({'machine': results_store.describe_machine(),
                         'loadavg_at_end': os.getloadavg(), 'results': results}, args.json)


if __name__ == '__main__':
    main()
