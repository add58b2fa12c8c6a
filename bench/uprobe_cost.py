"""What library probes (uprobes) cost traced and untraced processes, to
choose how dltrace attaches them (docs/user-guide.md "Levels").

Usage (as root, after `make bench-build`):
  uprobe_cost.py [--reps N] [--out FILE] [--only a,b]

Experiments (each a set of modes run interleaved, N reps each):
  fread       an untraced fread-heavy process (8-byte buffered freads):
              nothing attached / uprobe+uretprobe on libc fread for every
              process / the same for another process only (pid filter);
              and the traced process's own cost per call (record emitted)
  inode       a uprobe on a libhdf5 function for every process: the cost to
              a process that does not map libhdf5, to one that maps it but
              does not call the function, and to one that calls it
  h5py        untraced h5py reads of one small dataset slice, with the hdf5
              layer's functions probed for every process or not at all
  attach      time to attach (and detach) the stdio or hdf5 function set for
              one process (also with 200 more processes mapping libc), and for
              every process
  inherit     coverage of forked children: 3 fread processes (a parent and
              two forked children, on a machine with fewer CPUs) traced through
              a probe for every process (the task filter decides) or through
              tracefs uprobe events opened for the parent with perf's inherit;
              the share of calls recorded
Prints medians with min/max and writes the raw runs as JSON.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, 'build', 'bench')
COST = os.path.join(BENCH, 'uprobe_cost')
LOOP = os.path.join(BENCH, 'fread_loop')
PYTHON = '/usr/bin/python3'

STDIO = 'fopen,fdopen,fread,fwrite,fseek,fseeko,ftell,ftello,fflush,fclose,fgets,fputs'
HDF5 = 'H5Fcreate,H5Fopen,H5Fclose,H5Dopen2,H5Dcreate2,H5Dread,H5Dwrite,H5Dclose,H5Gopen2,H5Oopen'

H5PY_READS = r'''
import sys, time, h5py
f = h5py.File(sys.argv[1], 'r')
ds = f['x']
n = int(sys.argv[2])
t0 = time.perf_counter_ns()
for i in range(n):
    ds[i % 1000]
t1 = time.perf_counter_ns()
print('{"calls":%d,"elapsed_ns":%d,"ns_per_call":%.2f}' % (n, t1 - t0, (t1 - t0) / n))
'''


def lib_path(name):
    out = subprocess.run(['ldconfig', '-p'], capture_output=True, text=True).stdout
    for line in out.splitlines():
        if line.strip().startswith(name) and 'x86-64' in line:
            return line.split('=>')[-1].strip()
    raise SystemExit('uprobe_cost: %s not found by ldconfig -p' % name)


def run_mode(mode, lib, funcs, cmd):
    res = subprocess.run([COST, 'run', mode, lib, funcs, '--'] + cmd, capture_output=True,
                         text=True, timeout=600)
    if res.returncode != 0:
        raise RuntimeError('%s %s: %s' % (mode, cmd, res.stderr[-500:]))
    lines = [json.loads(l) for l in res.stdout.splitlines() if l.startswith('{')]
    out = dict(lines[0])
    out.update(lines[-1])
    out['loadavg'] = os.getloadavg()[0]
    return out


def summary(values):
    return {'median': statistics.median(values), 'min': min(values), 'max': max(values),
            'n': len(values)}


def interleaved(name, reps, cases, results):
    """cases: list of (label, fn) run in rotation, reps times."""
    runs = {label: [] for label, _ in cases}
    for rep in range(reps):
        # rotate the order so that no case always runs first after a pause
        order = cases[rep % len(cases):] + cases[:rep % len(cases)]
        for label, fn in order:
            r = fn()
            r['rep'] = rep
            runs[label].append(r)
            print('  %-10s %-28s rep %d: %10.1f ns/call' % (name, label, rep, r['ns_per_call']),
                  file=sys.stderr, flush=True)
    results[name] = {label: {'ns_per_call': summary([r['ns_per_call'] for r in rs]),
                             'runs': rs} for label, rs in runs.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--reps', type=int, default=5)
    ap.add_argument('--out', default=os.path.join(ROOT, 'build', 'bench', 'uprobe_cost.json'))
    ap.add_argument('--only', default='fread,inode,h5py,attach,inherit')
    a = ap.parse_args()
    only = a.only.split(',')
    libc = lib_path('libc.so.6')
    hdf5 = lib_path('libhdf5_serial.so')
    results = {'libc': libc, 'hdf5': hdf5, 'nproc': os.cpu_count(),
               'kernel': os.uname().release}
    tmp = tempfile.mkdtemp(prefix='uprobe-cost-')
    data = os.path.join(tmp, 'data')
    with open(data, 'wb') as f:
        f.write(os.urandom(4 << 20))

    fast, slow = ['2000000'], ['200000']  # calls: untrapped runs vs trapping runs
    if 'fread' in only:
        interleaved('fread', a.reps, [
            ('untraced, nothing attached', lambda: run_mode('none', libc, 'fread', [LOOP, data] + fast)),
            ('untraced, every process', lambda: run_mode('global', libc, 'fread', [LOOP, data] + slow)),
            ('untraced, other pid only', lambda: run_mode('other', libc, 'fread', [LOOP, data] + fast)),
            ('traced (pid filter)', lambda: run_mode('traced', libc, 'fread', [LOOP, data] + slow)),
        ], results)
    if 'inode' in only:
        interleaved('inode', a.reps, [
            ('no libhdf5, nothing', lambda: run_mode('none', hdf5, 'H5open', [LOOP, data] + fast)),
            ('no libhdf5, probed', lambda: run_mode('global', hdf5, 'H5open', [LOOP, data] + fast)),
            ('maps libhdf5, probed', lambda: run_mode(
                'global', hdf5, 'H5open', [LOOP, '--map', hdf5, data] + fast)),
            ('calls H5open, nothing', lambda: run_mode(
                'none', hdf5, 'H5open', [LOOP, '--call', hdf5 + ':H5open'] + fast)),
            ('calls H5open, probed', lambda: run_mode(
                'global', hdf5, 'H5open', [LOOP, '--call', hdf5 + ':H5open'] + slow)),
        ], results)
    if 'h5py' in only:
        h5 = os.path.join(tmp, 'small.h5')
        subprocess.run([PYTHON, '-c', 'import h5py, numpy as np, sys\n'
                        'with h5py.File(sys.argv[1], "w") as f:\n'
                        '    f.create_dataset("x", data=np.arange(64000, dtype="f4").reshape(1000, 64))',
                        h5], check=True)
        script = os.path.join(tmp, 'reads.py')
        with open(script, 'w') as f:
            f.write(H5PY_READS)
        cmd = [PYTHON, script, h5, '20000']
        interleaved('h5py', a.reps, [
            ('untraced, nothing attached', lambda: run_mode('none', hdf5, HDF5, cmd)),
            ('untraced, hdf5 set, every process', lambda: run_mode('global', hdf5, HDF5, cmd)),
        ], results)
    if 'attach' in only:
        att = {}
        for label, lib, funcs, glob, mappers in (
                ('stdio, one pid', libc, STDIO, False, 0),
                ('stdio, one pid, +200 mapping libc', libc, STDIO, False, 200),
                ('stdio, every process', libc, STDIO, True, 0),
                ('hdf5, every process', hdf5, HDF5, True, 0)):
            sleepers = [subprocess.Popen(['sleep', '600']) for _ in range(mappers)]
            try:
                res = subprocess.run([COST, 'attach-time', lib, funcs, str(a.reps)] +
                                     (['global'] if glob else []), capture_output=True,
                                     text=True, timeout=600)
            finally:
                for p in sleepers:
                    p.kill()
                    p.wait()
            rows = [json.loads(l) for l in res.stdout.splitlines() if l.startswith('{')]
            if not rows:
                raise RuntimeError(res.stderr)
            att[label] = {'attach_ms': summary([r['attach_ms'] for r in rows]),
                          'detach_ms': summary([r['detach_ms'] for r in rows]),
                          'links': rows[0]['links'],
                          'mapping_processes': rows[0]['mapping_processes'], 'runs': rows}
            print('  attach     %-28s %d links: attach %.1f ms (%.1f-%.1f), detach %.0f ms'
                  % (label, rows[0]['links'], att[label]['attach_ms']['median'],
                     att[label]['attach_ms']['min'], att[label]['attach_ms']['max'],
                     att[label]['detach_ms']['median']), file=sys.stderr, flush=True)
        results['attach'] = att
    if 'inherit' in only:
        cov = {}
        for mode in ('global-all', 'inherit'):
            rows = []
            for rep in range(a.reps):
                res = subprocess.run([COST, 'run', mode, libc, 'fread', '--', LOOP, '--procs', '3',
                                      data, '20000'], capture_output=True, text=True, timeout=600)
                lines = [json.loads(l) for l in res.stdout.splitlines() if l.startswith('{')]
                per = [l for l in lines if 'per_tgid' in l][0]['per_tgid']
                rows.append({'calls': 60000, 'recorded': sum(per.values()),
                             'per_process': sorted(per.values())})
                print('  inherit    %-28s rep %d: %d of 60000 calls recorded %s' % (
                    mode, rep, rows[-1]['recorded'], rows[-1]['per_process']),
                    file=sys.stderr, flush=True)
            cov[mode] = {'recorded': summary([r['recorded'] for r in rows]), 'runs': rows}
        results['inherit'] = cov

    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, 'w') as f:
        json.dump(results, f, indent=1)
    print('\n%-8s %-36s %12s %12s %12s' % ('exp', 'case', 'median ns', 'min', 'max'))
    for exp in ('fread', 'inode', 'h5py'):
        for label, r in results.get(exp, {}).items():
            s = r['ns_per_call']
            print('%-8s %-36s %12.1f %12.1f %12.1f' % (exp, label, s['median'], s['min'], s['max']))
    for label, r in results.get('attach', {}).items():
        print('%-8s %-36s attach %.1f ms (%.1f-%.1f), detach %.0f ms (%.0f-%.0f), %d links, '
              '%d processes map the library' % (
                  'attach', label, r['attach_ms']['median'], r['attach_ms']['min'],
                  r['attach_ms']['max'], r['detach_ms']['median'], r['detach_ms']['min'],
                  r['detach_ms']['max'], r['links'], r['mapping_processes']))
    for mode, r in results.get('inherit', {}).items():
        print('%-8s %-36s recorded %d of 60000 calls (median; %d-%d)' % (
            'inherit', mode, r['recorded']['median'], r['recorded']['min'], r['recorded']['max']))
    print('raw runs: %s' % a.out)


if __name__ == '__main__':
    main()
