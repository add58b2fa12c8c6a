"""What naming a descriptor's file at each call costs (docs/user-guide.md,
"How descriptors are named"; docs/performance.md).

Variants, each a build of the same sources (`make bench-fdid`):
  untraced  the workload alone
  none      dltrace with no file identity on the records (-DDL_FILE_ID_NONE):
            the descriptor table lookup for the file position stays, as before
  cache     dltrace (build/dltrace): the task's cache of 4 files by fd, the
            dl_files LRU map on a miss, a struct dl_file record once per file
  lru       no task cache (-DDL_FILE_ID_NOCACHE): the LRU map at every call
Workloads (bench/workloads/fd_calls.c): one (preads of one descriptor),
spread (8 descriptors in turn: every call misses the task's cache of 4),
pipe (8-byte writes and reads).  The figure is the workload's CPU time per
call (its own clock); the variants are run interleaved, the order rotating
each repetition; medians with min..max.  Then the same runs with BPF
run-time statistics on (bpf(BPF_ENABLE_STATS)): the run time of dltrace's
programs per call, which the machine's other load does not blur as much.

Usage: fd_identity_cost.py [--reps N] [--calls N] [--json OUT] [--build DIR]
The results go to bench/results/fd-identity.json unless --json says otherwise.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

import measure
import results_store

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, 'build')
VARIANTS = (('untraced', None), ('none', 'bench/fdid/none/dltrace'), ('cache', 'dltrace'),
            ('lru', 'bench/fdid/lru/dltrace'))


def run(binary, argv):
    cmd = argv if binary is None else [os.path.join(BUILD, binary), '-q', '-o', os.devnull,
                                       '--'] + argv
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError('%s failed: %s' % (cmd, res.stderr[-300:]))
    for line in res.stdout.splitlines():
        if line.startswith('{"workload"'):
            return json.loads(line)['cpu_ns_per_call']
    raise RuntimeError('no result from %s' % cmd)


def bpf_ns(binary, argv):
    """Run time of binary's BPF programs per call of argv, traced by it (statistics on)."""
    proc = subprocess.Popen([os.path.join(BUILD, binary), '-o', os.devnull, '--', 'sh', '-c',
                             '"$@" && read x', 'sh'] + argv, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()
    ns = sum(t for t, _ in measure.bpf_programs(proc.pid).values())
    ids = measure.program_ids(proc.pid)
    proc.stdin.write('\n')
    proc.stdin.close()
    proc.wait()
    measure.wait_programs_gone(ids)
    if not line.startswith('{"workload"'):
        raise RuntimeError('the traced workload failed')
    return ns / json.loads(line)['calls']


def table(title, got, workloads, variants):
    print(title)
    print('%-8s' % 'workload' + ''.join('%24s' % v for v in variants))
    out = {}
    for w in workloads:
        row = '%-8s' % w
        for v in variants:
            vals = got[(w, v)]
            med = statistics.median(vals)
            out['%s/%s' % (w, v)] = {'median': med, 'min': min(vals), 'max': max(vals),
                                     'values': vals}
            row += '%24s' % ('%.0f (%.0f..%.0f)' % (med, min(vals), max(vals)))
        print(row)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--reps', type=int, default=5)
    ap.add_argument('--calls', type=int, default=400000)
    ap.add_argument('--json', default=results_store.path('fd-identity'),
                    help='where to write the results (default bench/results/fd-identity.json)')
    ap.add_argument('--build', help='the build directory (default: build/)')
    args = ap.parse_args()
    global BUILD
    BUILD = args.build or BUILD
    fd_calls = os.path.join(BUILD, 'bench', 'fd_calls')
    with tempfile.NamedTemporaryFile(prefix='dltrace-bench-') as f:
        f.write(os.urandom(4096))
        f.flush()
        workloads = {'one': [fd_calls, 'one', f.name, str(args.calls)],
                     'spread': [fd_calls, 'spread', f.name, str(args.calls)],
                     'pipe': [fd_calls, 'pipe', str(args.calls)]}
        got = {(w, v): [] for w in workloads for v, _ in VARIANTS}
        for rep in range(args.reps):
            order = VARIANTS[rep % len(VARIANTS):] + VARIANTS[:rep % len(VARIANTS)]
            for w, argv in workloads.items():
                for v, binary in order:
                    got[(w, v)].append(run(binary, argv))
            print('rep %d/%d done' % (rep + 1, args.reps), file=sys.stderr)
        traced = VARIANTS[1:]
        bpf = {(w, v): [] for w in workloads for v, _ in traced}
        with measure.bpf_stats():
            for rep in range(args.reps):
                order = traced[rep % len(traced):] + traced[:rep % len(traced)]
                for w, argv in workloads.items():
                    for v, binary in order:
                        bpf[(w, v)].append(bpf_ns(binary, argv))
                print('bpf rep %d/%d done' % (rep + 1, args.reps), file=sys.stderr)
    load = os.getloadavg()
    out = {'machine': results_store.describe_machine(), 'reps': args.reps, 'calls': args.calls,
           'loadavg': load}
    out['cpu_ns_per_call'] = table(
        'CPU ns per call, median (min..max) of %d interleaved runs, %d calls each; '
        'load average %.1f %.1f %.1f' % ((args.reps, args.calls) + load), got, workloads,
        [v for v, _ in VARIANTS])
    out['bpf_ns_per_call'] = table(
        'BPF run time per call (ns), median (min..max) of %d interleaved runs' % args.reps,
        bpf, workloads, [v for v, _ in traced])
    results_store.write(out, args.json)


if __name__ == '__main__':
    main()
