"""Ways to hook the metadata, hint and sync syscalls, compared (docs/performance.md).

dltrace serves the 52 syscalls of bpf/meta_syscall_probes.bpf.c with two
programs, each attached to all their sys_enter_*/sys_exit_* tracepoints with
the syscall's kind as the attachment's cookie ("shared", build/dltrace).
`make bench-hooks` builds the alternatives from the same file:
  none         those syscalls not traced: dltrace as it was before them
  per-program  one program pair per tracepoint (104 programs to load)
  raw          raw_syscalls sys_enter/sys_exit, dispatching on the syscall
               number: two programs, run on every syscall of the node
Measured interleaved (the order rotates), `reps` times each:
  start-up   `dltrace -o /dev/null -- true`: seconds until it says "tracing"
             (load and attach), its whole wall time, and, in a second run (the
             first DETACH_REPS repetitions), the seconds the kernel takes to
             free the programs after it exits (a helper process detaches them)
  job        meta-calls (access, fcntl, fstatfs) traced by each: ns per call
  node       meta-calls and meta-other (getppid) in a process that is not
             traced, while each variant traces another process (a sleeper):
             what every other process of the node pays
The per-call figures are the workload's CPU time per call (its own clock:
other processes of a busy machine do not inflate it; BPF programs run in
the task's system time).  Then one more pass with BPF run-time statistics on
(not in the timings): the run time of the variant's programs per call,
for the job and for the node's untraced calls.  With --base CHECKOUT, that
build's dltrace is measured too, as "base".
"""
import json
import os
import signal
import statistics
import subprocess
import time

import measure

DETACH_REPS = 3
VARIANTS = (('none', 'bench/hooks/none/dltrace'), ('shared', 'dltrace'),
            ('per-program', 'bench/hooks/per-program/dltrace'),
            ('raw', 'bench/hooks/raw/dltrace'))


def _tracing(proc, timeout=120):
    """Wait for dltrace's "tracing ..." line on stderr; returns the line."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        line = proc.stderr.readline()
        if not line:
            break
        if line.startswith('dltrace: tracing'):
            return line
    raise RuntimeError('dltrace did not start tracing')


def _result(stdout):
    for line in stdout.splitlines():
        if line.startswith('{"workload"'):
            return json.loads(line)['cpu_ns_per_call']
    raise ValueError('the workload printed no result')


def _calls(argv):
    return int(argv[2]) // 3 * 3


def _bpf_ns(pid):
    """Run time of the BPF programs a process holds (statistics on: measure.bpf_stats)."""
    return sum(t for t, _ in measure.bpf_programs(pid).values())


def job_bpf(binary, argv):
    """BPF ns per call of argv traced by binary."""
    proc = subprocess.Popen([binary, '-o', os.devnull, '--', 'sh', '-c',
                             ' '.join(argv) + ' && read x'], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()
    ns = _bpf_ns(proc.pid)
    proc.stdin.write('\n')
    proc.stdin.close()
    ids = measure.program_ids(proc.pid)
    proc.wait()
    measure.wait_programs_gone(ids)
    if not line.startswith('{"workload"'):
        raise RuntimeError('the traced workload failed')
    return ns / _calls(argv)


def node_bpf(binary, argvs):
    """BPF ns per call of each argv, untraced, while binary traces a sleeping process."""
    sleeper = subprocess.Popen(['sleep', '600'])
    proc = subprocess.Popen([binary, '-o', os.devnull, '--pid', str(sleeper.pid)],
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    ids, out = set(), []
    try:
        _tracing(proc)
        ids = measure.program_ids(proc.pid)
        for argv in argvs:
            before = _bpf_ns(proc.pid)
            untraced(argv)
            out.append((_bpf_ns(proc.pid) - before) / _calls(argv))
        return out
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate()
        sleeper.kill()
        sleeper.wait()
        measure.wait_programs_gone(ids)


def startup(binary):
    """(seconds to the "tracing" line, wall seconds, attachments) of `dltrace -- true`."""
    start = time.monotonic()
    proc = subprocess.Popen([binary, '-o', os.devnull, '--', 'true'], stderr=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, text=True)
    line = _tracing(proc)
    ready = time.monotonic() - start
    proc.stderr.read()
    proc.wait()
    wall = time.monotonic() - start
    if proc.returncode != 0:
        raise RuntimeError('dltrace -- true failed')
    probes = line.split(' probes')[0].rsplit(' ', 1)[-1]
    return ready, wall, int(probes)


def detach(binary):
    """Seconds from dltrace's exit until the kernel has freed its programs."""
    proc = subprocess.Popen([binary, '-o', os.devnull, '--', 'sh', '-c', 'read x'],
                            stdin=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, text=True)
    _tracing(proc)
    ids = measure.program_ids(proc.pid)
    proc.stdin.write('\n')
    proc.stdin.close()
    proc.stderr.read()
    proc.wait()
    return measure.wait_programs_gone(ids)


def job_cost(binary, argv):
    res = subprocess.run([binary, '-q', '-o', os.devnull, '--'] + argv, capture_output=True,
                         text=True)
    if res.returncode != 0:
        raise RuntimeError('traced workload failed: %s' % res.stderr[-300:])
    return _result(res.stdout)


def untraced(argv):
    return _result(subprocess.run(argv, capture_output=True, text=True, check=True).stdout)


def node_cost(binary, argvs):
    """ns per call of each argv, untraced, while binary traces a sleeping process."""
    sleeper = subprocess.Popen(['sleep', '600'])
    proc = subprocess.Popen([binary, '-o', os.devnull, '--pid', str(sleeper.pid)],
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    ids = set()
    try:
        _tracing(proc)
        ids = measure.program_ids(proc.pid)
        return [untraced(argv) for argv in argvs]
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate()
        sleeper.kill()
        sleeper.wait()
        measure.wait_programs_gone(ids)


def _stats(values):
    return {'median': statistics.median(values), 'min': min(values), 'max': max(values),
            'runs': values}


def measure_all(root, meta, other, reps, log, base=None):
    """meta, other: the workloads (bench/workloads.py MetaCalls); returns the results."""
    build = os.path.join(root, 'build')
    variants = [(n, os.path.join(build, p)) for n, p in VARIANTS
                if os.path.exists(os.path.join(build, p))]
    if base:
        variants.insert(0, ('base', os.path.join(base, 'build', 'dltrace')))
    runs = {}

    def add(key, value):
        runs.setdefault(key, []).append(value)

    argv_meta, argv_other = meta.argv(False), other.argv(False)
    for rep in range(reps):
        log('hooks: repetition %d of %d' % (rep + 1, reps))
        order = variants[rep % len(variants):] + variants[:rep % len(variants)]
        add(('untraced', 'meta-calls'), untraced(argv_meta))
        add(('untraced', 'meta-other'), untraced(argv_other))
        for name, binary in order:
            ready, wall, probes = startup(binary)
            add((name, 'ready_s'), ready)
            add((name, 'wall_s'), wall)
            add((name, 'attachments'), probes)
            if rep < DETACH_REPS:  # each takes seconds of the kernel's time
                add((name, 'detach_s'), detach(binary))
            add((name, 'job meta-calls'), job_cost(binary, argv_meta))
            node = node_cost(binary, [argv_meta, argv_other])
            add((name, 'node meta-calls'), node[0])
            add((name, 'node meta-other'), node[1])
            log('  %-11s ready %.2f s, wall %.2f s, %d attachments; job %.0f ns, node %.0f / '
                '%.0f ns' % (name, ready, wall, probes, runs[(name, 'job meta-calls')][-1],
                             node[0], node[1]))
    log('hooks: BPF run times (BPF_ENABLE_STATS)')
    with measure.bpf_stats():
        for name, binary in variants:
            add((name, 'bpf job meta-calls'), job_bpf(binary, argv_meta))
            node = node_bpf(binary, [argv_meta, argv_other])
            add((name, 'bpf node meta-calls'), node[0])
            add((name, 'bpf node meta-other'), node[1])
            log('  %-11s BPF ns/call: job %.0f, node %.0f / %.1f' % (
                name, runs[(name, 'bpf job meta-calls')][-1], node[0], node[1]))
    out = {}
    for (name, what), values in runs.items():
        out.setdefault(name, {})[what] = _stats(values)
    return {'variants': [n for n, _ in variants], 'reps': reps, 'results': out}


def table(h):
    """The table printed at the end of make bench: medians, [min-max]."""
    if not h:
        return ''
    r = h['results']
    base = {w: r['untraced'][w]['median'] for w in ('meta-calls', 'meta-other')}

    def cell(name, what, unit, fmt):
        s = r[name][what]
        return ('%s%s [%s-%s]' % (fmt % s['median'], unit, fmt % s['min'], fmt % s['max']))

    lines = ['\nHooks for the metadata, hint and sync syscalls (%d repetitions; medians '
             '[min-max]; CPU ns per call)' % h['reps'],
             '| hooks | attachments | start-up (to "tracing") | `dltrace -- true` | detach after '
             'exit | job: meta call traced | node: meta call untraced | node: getppid |',
             '|---|---|---|---|---|---|---|---|',
             '| untraced | - | - | - | - | %.0f | %.0f | %.0f |' % (
                 base['meta-calls'], base['meta-calls'], base['meta-other'])]
    for name in h['variants']:
        lines.append('| %s | %d | %s | %s | %s | %s | %s | %s |' % (
            name, r[name]['attachments']['median'], cell(name, 'ready_s', ' s', '%.2f'),
            cell(name, 'wall_s', ' s', '%.2f'), cell(name, 'detach_s', ' s', '%.1f'),
            cell(name, 'job meta-calls', '', '%.0f'), cell(name, 'node meta-calls', '', '%.0f'),
            cell(name, 'node meta-other', '', '%.0f')))
    lines += ['', 'BPF run time per call, ns (BPF_ENABLE_STATS, one run each)',
              '| hooks | job: meta call traced | node: meta call untraced | node: getppid |',
              '|---|---|---|---|']
    for name in h['variants']:
        lines.append('| %s | %.0f | %.0f | %.1f |' % (
            name, r[name]['bpf job meta-calls']['median'],
            r[name]['bpf node meta-calls']['median'], r[name]['bpf node meta-other']['median']))
    return '\n'.join(lines)
