#!/usr/bin/env python3
"""What the hdf5 layer costs an h5py job, per probe, and what it costs the
processes it does not trace (part of `make bench`; alone, as root:
bench/hdf5_layer_cost.py [--reps N] [--calls N] [--base CHECKOUT]).

Workloads (Debian's h5py; each times its own loop: the CPU time of the
worker per call, which holds the probes' traps and programs and does not
grow with the machine's load, and its wall time), each run in a forked
child, as a DataLoader worker is:
  open-read  f["x"][i]: h5py opens the dataset again for each read
             (H5Oopen, H5Dread, H5D__read per call: the demo's labels)
  read       d[i] on a dataset kept open (H5Dread, H5D__read per call)
  no-hdf5    os.pread of 4 KiB from a Python loop that never loads h5py
Conditions, in an order rotated per repetition:
  untraced     nothing attached
  bystander    untraced, while `dltrace --layers +hdf5` traces another
               command: the layer's probes are on the library for every
               process, so an untraced h5py process on the node traps too
  traced       dltrace with its default layers (no hdf5)
  +H5Dread     --layers +hdf5 with only H5Dread probed
  +H5D__read   ... and the probe that reads the selection (H5D__read)
  +hdf5        --layers +hdf5 as shipped: every function of the layer
  base+hdf5    (--base) another checkout's dltrace with --layers +hdf5
Per probe: the difference of the medians of two conditions that differ by
that probe; and, load-independent, the BPF run time (kernel.bpf_stats) of
each of the layer's programs per call, from runs of their own.  Every traced run with the layer is checked: its trace holds
one H5Dread per call of the forked worker (no call lost).
Writes bench/results/hdf5-layer.json (--json FILE: elsewhere).
"""
import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import results_store  # noqa: E402

PYTHON = '/usr/bin/python3'  # Debian's, with h5py
LOOP = r'''
import json, os, sys, time
mode, path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
def loop():
    if mode == 'no-hdf5':
        fd = os.open(path, os.O_RDONLY)
        t0, c0 = time.perf_counter_ns(), time.process_time_ns()
        for i in range(n):
            os.pread(fd, 4096, (i % 64) * 4096)
    else:
        import h5py
        f = h5py.File(path, 'r')
        d = f['x']
        t0, c0 = time.perf_counter_ns(), time.process_time_ns()
        if mode == 'open-read':
            for i in range(n):
                f['x'][i % 1000]
        else:
            for i in range(n):
                d[i % 1000]
    t1, c1 = time.perf_counter_ns(), time.process_time_ns()
    print(json.dumps({'calls': n, 'wall_ns_per_call': (t1 - t0) / n,
                      'ns_per_call': (c1 - c0) / n}), flush=True)
pid = os.fork()  # a worker forked by the traced process
if pid == 0:
    loop()
    hold = os.environ.get('HOLD')  # the BPF statistics run reads them before the exit
    while hold and not os.path.exists(hold):
        time.sleep(0.02)
    os._exit(0)
os.waitpid(pid, 0)
'''
WORKLOADS = ('open-read', 'read', 'no-hdf5')
SETS = {'+H5Dread': 'H5Dread', '+H5D__read': 'H5Dread,H5D__read'}


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def summary(values):
    return {'median': statistics.median(values), 'min': min(values), 'max': max(values),
            'n': len(values)}


def wait_detached(timeout=20):
    """Until no hdf5 program of an earlier run is loaded: nothing carries over."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        out = subprocess.run(['bpftool', 'prog', 'show', '-j'], capture_output=True, text=True)
        try:
            progs = json.loads(out.stdout or '[]')
        except ValueError:
            progs = []
        if not any(p.get('name') in ('hdf5_entry', 'hdf5_return', 'hdf5_select')
                   for p in progs):
            return
        time.sleep(0.2)


class Run:
    def __init__(self, tmp, dltrace, base):
        self.tmp, self.dltrace, self.base = tmp, dltrace, base
        self.script = os.path.join(tmp, 'loop.py')
        with open(self.script, 'w') as f:
            f.write(LOOP)

    def argv(self, work, calls, data):
        return [PYTHON, self.script, work, data[work], str(calls)]

    def parse(self, out):
        """(CPU ns, wall ns) per call of the worker's loop."""
        lines = [json.loads(l) for l in out.splitlines() if l.startswith('{')]
        if not lines:
            raise RuntimeError('the workload printed no result: %s' % out[-500:])
        return lines[-1]['ns_per_call'], lines[-1]['wall_ns_per_call']

    def untraced(self, argv, env=None):
        out = subprocess.run(argv, capture_output=True, text=True, timeout=900, env=env)
        if out.returncode:
            raise RuntimeError('%s: %s' % (argv, out.stderr[-500:]))
        return self.parse(out.stdout)

    def bystander(self, argv):
        """Untraced, while dltrace --layers +hdf5 traces a sleep."""
        tracer = subprocess.Popen([self.dltrace, '-o', os.path.join(self.tmp, 'by.json'),
                                   '--layers', '+hdf5', '--', 'sleep', '3600'],
                                  stderr=subprocess.PIPE, text=True)
        try:
            for line in tracer.stderr:
                if line.startswith('dltrace: tracing '):
                    break
            else:
                raise RuntimeError('dltrace did not start')
            return self.untraced(argv)
        finally:
            tracer.send_signal(signal.SIGINT)
            tracer.communicate(timeout=120)
            wait_detached()

    def traced(self, argv, dltrace, hdf5, funcs=None, calls=None):
        out_path = os.path.join(self.tmp, 'trace.json')
        env = dict(os.environ)
        env.pop('DLTRACE_HDF5_FUNCTIONS', None)
        if funcs:
            env['DLTRACE_HDF5_FUNCTIONS'] = funcs
        cmd = [dltrace, '-q', '-o', out_path] + (['--layers', '+hdf5'] if hdf5 else []) + \
            ['--'] + argv
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=900, env=env)
        if out.returncode:
            raise RuntimeError('%s: %s' % (cmd, out.stderr[-500:]))
        ns = self.parse(out.stdout)
        if hdf5 and calls:
            with open(out_path) as f:
                got = sum(l.count('"name":"H5Dread"') for l in f)
            if got != calls:
                raise RuntimeError('the trace has %d H5Dread of %d calls' % (got, calls))
        os.unlink(out_path)
        wait_detached()
        return ns


def bpf_per_call(r, work, calls, data):
    """With BPF statistics on: the run time of the layer's programs per h5py call
    (dltrace --layers +hdf5 traces the workload; read before it exits)."""
    import measure
    hold = os.path.join(r.tmp, 'hold')
    env = dict(os.environ, HOLD=hold)
    env.pop('DLTRACE_HDF5_FUNCTIONS', None)
    cmd = [r.dltrace, '-q', '-o', os.path.join(r.tmp, 'stats.json'), '--layers', '+hdf5',
           '--'] + r.argv(work, calls, data)
    with measure.bpf_stats():
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env)
        try:
            r.parse(p.stdout.readline())
            progs = measure.bpf_programs(p.pid)
        finally:
            with open(hold, 'w'):
                pass
            p.communicate(timeout=300)
            os.unlink(hold)
    wait_detached()
    out = {}
    for name in ('hdf5_entry', 'hdf5_return', 'hdf5_select'):
        ns, runs = progs.get(name, (0, 0))
        out[name] = {'runs_per_call': runs / calls, 'ns_per_run': ns / runs if runs else None,
                     'ns_per_call': ns / calls}
    return out


def prepare(tmp):
    h5 = os.path.join(tmp, 'small.h5')
    subprocess.run([PYTHON, '-c', 'import h5py, numpy as np, sys\n'
                    'with h5py.File(sys.argv[1], "w") as f:\n'
                    '    f.create_dataset("x", data=np.arange(64000, dtype="f4")'
                    '.reshape(1000, 64))', h5], check=True)
    raw = os.path.join(tmp, 'raw.bin')
    with open(raw, 'wb') as f:
        f.write(os.urandom(256 << 10))
    return {'open-read': h5, 'read': h5, 'no-hdf5': raw}


def measure_all(dltrace, reps, calls, log=log, base=None):
    tmp = tempfile.mkdtemp(prefix='hdf5-cost-')
    try:
        data = prepare(tmp)
        r = Run(tmp, dltrace, base)
        conds = ['untraced', 'bystander', 'traced', '+H5Dread', '+H5D__read', '+hdf5']
        if base:
            conds.append('base+hdf5')
        runs = {w: {c: [] for c in conds} for w in WORKLOADS}
        wall = {w: {c: [] for c in conds} for w in WORKLOADS}
        for rep in range(reps):
            for w in WORKLOADS:
                n = calls * 10 if w == 'no-hdf5' else calls
                argv = r.argv(w, n, data)
                order = conds[rep % len(conds):] + conds[:rep % len(conds)]
                for c in order:
                    if c in SETS and w == 'no-hdf5':
                        continue
                    check = n if w != 'no-hdf5' else None
                    if c == 'untraced':
                        ns = r.untraced(argv)
                    elif c == 'bystander':
                        ns = r.bystander(argv)
                    elif c == 'traced':
                        ns = r.traced(argv, dltrace, False)
                    elif c == 'base+hdf5':
                        ns = r.traced(argv, os.path.join(base, 'build', 'dltrace'), True,
                                      calls=check)
                    else:
                        ns = r.traced(argv, dltrace, True, SETS.get(c), calls=check)
                    runs[w][c].append(ns[0])
                    wall[w][c].append(ns[1])
                    log('  hdf5 layer  %-9s %-11s rep %d: %9.1f CPU ns/call, %9.1f wall'
                        % (w, c, rep, ns[0], ns[1]))
        bpf = {w: [bpf_per_call(r, w, calls, data) for _ in range(reps)]
               for w in ('open-read', 'read')}
        res = {'reps': reps, 'calls': calls, 'pread_calls': calls * 10,
               'wall_runs': wall,
               'wall_ns_per_call': {w: {c: summary(v) for c, v in d.items() if v}
                                    for w, d in wall.items()},
               'bpf': {w: {p: {k: statistics.median([x[p][k] for x in v])
                               if all(x[p][k] is not None for x in v) else None
                               for k in v[0][p]} for p in v[0]} for w, v in bpf.items()},
               'bpf_runs': bpf,
               'runs': runs, 'ns_per_call': {w: {c: summary(v) for c, v in d.items() if v}
                                             for w, d in runs.items()}}
        res['per_probe_ns'] = per_probe(res['ns_per_call'])
        return res
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def per_probe(ns):
    """Median differences: what each probe adds to a call that reaches it."""
    def med(w, c):
        s = ns[w].get(c)
        return s['median'] if s else None

    def diff(w, a, b):
        x, y = med(w, a), med(w, b)
        return None if x is None or y is None else x - y
    out = {}
    for w in ('open-read', 'read'):
        out[w] = {'H5Dread (entry and return)': diff(w, '+H5Dread', 'traced'),
                  'H5D__read (entry)': diff(w, '+H5D__read', '+H5Dread'),
                  'the layer as shipped': diff(w, '+hdf5', 'traced'),
                  'untraced bystander': diff(w, 'bystander', 'untraced')}
        if w == 'open-read':
            out[w]['H5Oopen (entry and return)'] = diff(w, '+hdf5', '+H5D__read')
        if 'base+hdf5' in ns[w]:
            out[w]['this layer against the base'] = diff(w, '+hdf5', 'base+hdf5')
    out['no-hdf5'] = {'untraced bystander': diff('no-hdf5', 'bystander', 'untraced'),
                      'the layer as shipped': diff('no-hdf5', '+hdf5', 'traced')}
    return out


def table(res):
    conds = list(dict.fromkeys(c for w in res['ns_per_call'].values() for c in w))
    lines = []
    for what, key in (('CPU', 'ns_per_call'), ('wall', 'wall_ns_per_call')):
        lines += ['\nhdf5 layer: %s ns per call, median [min-max] of %d interleaved '
                  'repetitions' % (what, res['reps']),
                  '%-10s' % 'workload' + ''.join('%24s' % c for c in conds)]
        for w, d in res[key].items():
            cells = ''.join('%24s' % ('%.0f [%.0f-%.0f]' % (d[c]['median'], d[c]['min'],
                                                             d[c]['max']) if c in d else '-')
                            for c in conds)
            lines.append('%-10s%s' % (w, cells))
    lines.append('BPF run time of the layer\'s programs per h5py call (median of %d runs):'
                 % res['reps'])
    for w, d in res['bpf'].items():
        lines.append('  %-10s %s' % (w, ', '.join(
            '%s %.1f runs x %s ns' % (p, x['runs_per_call'], '-' if x['ns_per_run'] is None
                                      else '%.0f' % x['ns_per_run']) for p, x in d.items())))
    lines.append('per probe (differences of the CPU medians, ns per call):')
    for w, d in res['per_probe_ns'].items():
        lines.append('  %-10s %s' % (w, ', '.join('%s %s' % (k, '-' if v is None else
                                                             '%.0f' % v) for k, v in d.items())))
    return '\n'.join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--reps', type=int, default=5)
    ap.add_argument('--calls', type=int, default=20000)
    ap.add_argument('--base', help='another built checkout: its dltrace with --layers +hdf5')
    ap.add_argument('--json', default=None, help='default: bench/results/hdf5-layer.json')
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit('hdf5_layer_cost.py: run as root')
    results = {'machine': results_store.describe_machine()}
    results['hdf5_layer'] = measure_all(os.path.join(ROOT, 'build', 'dltrace'), a.reps,
                                        a.calls, log, os.path.abspath(a.base) if a.base else None)
    results['machine']['loadavg_at_end'] = os.getloadavg()
    results_store.write(results, a.json or results_store.path('hdf5-layer'))
    print(table(results['hdf5_layer']))


if __name__ == '__main__':
    main()
