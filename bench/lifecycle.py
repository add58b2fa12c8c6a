"""dltrace's start-up and exit (goals: start <= 0.3 s cold and <= 0.4 s right after another
run, nothing attached 1 s after exit).

  start   `dltrace -o OUT -- first_instruction`: seconds from spawning dltrace to
          the command's first line (bench/workloads/first_instruction.c prints
          CLOCK_MONOTONIC first thing), less the same spawn without dltrace; and
          dltrace's own CPU seconds (user + system) when it says "tracing": the
          start-up's cost on an idle machine, which other processes of a busy
          one do not inflate.  Cold: no dltrace process is left (the run before
          held no events, DLTRACE_EVENTS_HOLD_MS=0, and its helper is gone); after:
          right after the cold run's exit, as a second command in a row starts
  exit    `dltrace -o OUT -- sh -c 'read x'`: seconds from dltrace's exit until the
          kernel has freed every program it held (polled by id every 20 ms)
  node    an untraced cached 4 KiB pread (micro_pread, 200,000 calls), ns per call:
          with no dltrace process at all, and 1 s after a run's exit, when its
          helper holds the tracepoint events for the next run (or, for a build
          without that, tears them down)
Builds interleaved (the order rotates), `reps` repetitions each: this one and,
with --base CHECKOUT, that checkout's build/dltrace.
"""
import json
import os
import statistics
import subprocess
import time

import measure


def _tracing(proc):
    while True:
        line = proc.stderr.readline()
        if not line:
            raise RuntimeError('dltrace did not start tracing')
        if line.startswith('dltrace: tracing'):
            return line


def _cpu_s(pid):
    with open('/proc/%d/stat' % pid) as f:
        fields = f.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def spawn_s(first):
    """Seconds from spawning first_instruction to its first line, untraced."""
    t0 = time.monotonic_ns()
    out = subprocess.run([first], capture_output=True, text=True, check=True).stdout
    return (int(out.split()[0]) - t0) / 1e9


def start(binary, first, out, env=None):
    """(seconds to the command's first instruction, dltrace's CPU seconds by then)."""
    t0 = time.monotonic_ns()
    proc = subprocess.Popen([binary, '-o', out, '--', first], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    _tracing(proc)
    cpu = _cpu_s(proc.pid)
    stdout, _ = proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError('dltrace -- first_instruction failed')
    return (int(stdout.split()[0]) - t0) / 1e9, cpu


def exit_s(binary, out, env=None):
    """Seconds from dltrace's exit until the kernel has freed its programs."""
    proc = subprocess.Popen([binary, '-o', out, '--', 'sh', '-c', 'read x'],
                            stdin=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, text=True, env=env)
    _tracing(proc)
    ids = measure.program_ids(proc.pid)
    proc.stdin.write('\n')
    proc.stdin.close()
    proc.stderr.read()
    proc.wait()
    return measure.wait_programs_gone(ids, interval=0.02), len(ids)


def processes_of(binary):
    """pids running binary (helpers included)."""
    exe = os.path.realpath(binary)
    pids = []
    for name in os.listdir('/proc'):
        if name.isdigit():
            try:
                if os.readlink('/proc/%s/exe' % name) == exe:
                    pids.append(int(name))
            except OSError:
                pass
    return pids


def wait_no_process(binaries, timeout=120):
    end = time.monotonic() + timeout
    while any(processes_of(b) for b in binaries):
        if time.monotonic() > end:
            raise RuntimeError('dltrace processes still running after %d s' % timeout)
        time.sleep(0.05)


def pread_ns(micro, path):
    """ns per untraced cached 4 KiB pread (200,000 calls, one thread)."""
    out = subprocess.run([micro, path, '1', '200000'], capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out)['ns_per_call']


def _stats(values):
    return {'median': statistics.median(values), 'min': min(values), 'max': max(values),
            'runs': values}


def measure_all(root, out_dir, reps, log, base=None):
    first = os.path.join(root, 'build', 'bench', 'first_instruction')
    builds = [('this', os.path.join(root, 'build', 'dltrace'))]
    if base:
        builds.append(('base', os.path.join(base, 'build', 'dltrace')))
    out = os.path.join(out_dir, 'trace-lifecycle.json')
    micro = os.path.join(root, 'build', 'bench', 'micro_pread')
    data = os.path.join(out_dir, 'lifecycle-pread.bin')
    with open(data, 'wb') as f:
        f.write(b'p' * (1 << 20))
    runs = {}

    def add(key, value):
        runs.setdefault(key, []).append(value)

    no_hold = dict(os.environ, DLTRACE_EVENTS_HOLD_MS='0')
    for rep in range(reps):
        order = builds[rep % len(builds):] + builds[:rep % len(builds)]
        add(('untraced', 'spawn_s'), spawn_s(first))
        for name, binary in order:
            # a run that holds nothing for the next, then no dltrace at all: cold
            gone, nprogs = exit_s(binary, out, no_hold)
            add((name, 'freed_after_exit_s'), gone)
            add((name, 'programs'), nprogs)
            wait_no_process([b for _, b in builds])
            add((name, 'pread_idle_ns'), pread_ns(micro, data))
            s, cpu = start(binary, first, out)
            add((name, 'start_s'), s)
            add((name, 'start_cpu_s'), cpu)
            after, _ = start(binary, first, out)
            add((name, 'start_after_s'), after)
            time.sleep(1)
            add((name, 'pread_after_exit_ns'), pread_ns(micro, data))
            add((name, 'loadavg'), os.getloadavg()[0])
            log('  lifecycle %-5s start %.3f s cold (CPU %.2f s), %.3f s right after another '
                'run, programs freed %.2f s after exit (%d programs; load %.1f)'
                % (name, s, cpu, after, gone, nprogs, os.getloadavg()[0]))
    os.unlink(out)
    os.unlink(data)
    res = {}
    for (name, what), values in runs.items():
        res.setdefault(name, {})[what] = _stats(values)
    return {'builds': [n for n, _ in builds], 'reps': reps, 'results': res}


def table(lc):
    """The table printed at the end of make bench: medians [min-max]."""
    if not lc:
        return ''
    r = lc['results']
    spawn = r['untraced']['spawn_s']['median']

    def cell(name, what, fmt='%.2f'):
        s = r[name][what]
        return '%s [%s-%s]' % (fmt % s['median'], fmt % s['min'], fmt % s['max'])

    lines = ['\nStart-up and exit (%d repetitions; medians [min-max]; untraced spawn of '
             'the command %.1f ms)' % (lc['reps'], spawn * 1e3),
             '| build | programs | to the command\'s first instruction, cold '
             '| right after another run | dltrace CPU by then '
             '| programs freed after exit | untraced pread, no dltrace | 1 s after an exit '
             '| load average |',
             '|---|---|---|---|---|---|---|---|---|']
    for name in lc['builds']:
        lines.append('| %s | %d | %s s | %s s | %s s | %s s | %s | %s | %s |' % (
            name, r[name]['programs']['median'], cell(name, 'start_s'),
            cell(name, 'start_after_s') if 'start_after_s' in r[name] else '-',
            cell(name, 'start_cpu_s'), cell(name, 'freed_after_exit_s'),
            cell(name, 'pread_idle_ns', '%.0f') + ' ns' if 'pread_idle_ns' in r[name] else '-',
            cell(name, 'pread_after_exit_ns', '%.0f') + ' ns'
            if 'pread_after_exit_ns' in r[name] else '-',
            cell(name, 'loadavg', '%.1f')))
    return '\n'.join(lines)
