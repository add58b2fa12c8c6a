"""The measured conditions: untraced, the floor, dltrace (.json, .json.gz,
.pftrace, .pftrace.gz, --summary-only), strace, bpftrace and perf trace.  Each runs a workload command inside the
job cgroup and returns what it observed."""
import json
import os
import re
import shutil
import signal
import subprocess
import time

import bpftrace_script
import measure

RUN_TIMEOUT = 1800  # seconds; a run that takes longer is a failure


class Job:
    """Paths and settings shared by every run."""

    def __init__(self, root, out_dir, cgroup, syscalls, keep_traces=False):
        self.root = root
        self.build = os.path.join(root, 'build')
        self.out_dir = out_dir
        self.cgroup = cgroup
        self.syscalls = syscalls  # [(tracepoint name, syscall name)]
        self.keep_traces = keep_traces
        self.hooks = []  # names of the programs dltrace attaches, for the floor
        self.shared = []  # tracepoints of the syscalls its shared programs serve
        self.launcher = os.path.join(root, 'bench', 'run_in_cgroup.sh')
        # the same user in every condition: dltrace would drop to SUDO_UID
        self.env = {k: v for k, v in os.environ.items() if not k.startswith('SUDO_')}

    def in_cgroup(self, argv, hold=False):
        return ['/bin/sh', self.launcher, self.cgroup] + (['--hold'] if hold else []) + argv


def _stop(proc):
    """End a process we started (and wait for it), if it still runs."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def execute(job, argv, on_hold=None, on_start=None, on_begin=None, on_exit=None):
    """Run argv; returns (exit status, stdout lines, stderr text, seconds).

    on_start(pid) runs once the process exists, on_exit(pid) once it has
    exited, before it is reaped.  With on_hold, the command is
    run_in_cgroup.sh --hold: on_begin(pid) runs when the workload starts
    ("@@start"), on_hold(pid) when it has ended ("@@hold"), before the
    command may exit.
    """
    err_path = os.path.join(job.out_dir, 'stderr.txt')
    start = time.monotonic()
    with open(err_path, 'w+') as err:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=err,
                                stdin=subprocess.PIPE if on_hold else subprocess.DEVNULL,
                                env=job.env, text=True)
        lines = []
        try:
            if on_start:
                on_start(proc.pid)
            for line in proc.stdout:
                if on_hold and line == '@@start\n':
                    if on_begin:
                        on_begin(proc.pid)
                    continue
                if on_hold and line.startswith('@@hold '):
                    on_hold(proc.pid)
                    proc.stdin.close()
                    continue
                lines.append(line.rstrip('\n'))
            if on_exit:
                os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
                on_exit(proc.pid)
            status = proc.wait(timeout=RUN_TIMEOUT)
        finally:
            _stop(proc)
        err.seek(0)
        stderr = err.read()
    return status, lines, stderr, time.monotonic() - start


def _remove(job, path):
    if not job.keep_traces and os.path.exists(path):
        os.unlink(path)


def _count_lines(path, pattern):
    regex = re.compile(pattern)
    with open(path, 'rb') as f:
        return sum(1 for line in f if regex.match(line))


class Condition:
    name = ''
    label = ''
    slow = False  # the workload runs smaller sizes under it

    def available(self, job):
        return None  # or the reason it cannot run here

    def run(self, job, argv, trace_base, stats=False):
        raise NotImplementedError


class Untraced(Condition):
    name, label = 'untraced', 'untraced'

    def run(self, job, argv, trace_base, stats=False):
        status, lines, stderr, wall = execute(job, job.in_cgroup(argv))
        return {'status': status, 'lines': lines, 'stderr': stderr, 'wall_s': wall}


def floor_arguments(job, hooks=None):
    """floor_loader's program arguments: a shared program once per tracepoint it serves."""
    args = []
    for name in job.hooks if hooks is None else hooks:
        if name in ('dl_enter_shared', 'dl_exit_shared') and '@' not in name:
            side = 'enter' if name == 'dl_enter_shared' else 'exit'
            args += ['%s@syscalls/sys_%s_%s' % (name, side, tp) for tp in job.shared]
        else:
            args.append(name)
    return args


class Floor(Condition):
    """Empty programs on every hook dltrace uses (bench/floor_probes.bpf.c); with layers,
    on the hooks dltrace uses with `--layers LAYERS`."""

    def __init__(self, layers=None):
        self.layers = layers
        self.hooks = None  # dltrace's default hooks (job.hooks)
        self.name = 'floor' + ('-' + layers.replace(',', '+') if layers else '')
        self.label = 'floor, --layers ' + layers if layers else 'floor (empty BPF)'

    def available(self, job):
        if self.layers:
            try:
                self.hooks = dltrace_hooks(job, self.layers)[0]
            except RuntimeError as e:
                return str(e)
        return None

    def run(self, job, argv, trace_base, stats=False):
        loader = subprocess.Popen([os.path.join(job.build, 'bench', 'floor_loader'),
                                   os.path.join(job.build, 'bench', 'floor_probes.bpf.o')]
                                  + floor_arguments(job, self.hooks), stdout=subprocess.PIPE,
                                  text=True, env=job.env)
        programs = set()
        try:
            ready = loader.stdout.readline().split()
            if ready[:1] != ['ready']:
                raise RuntimeError('the floor loader failed to attach its programs')
            programs = measure.program_ids(loader.pid)
            status, lines, stderr, wall = execute(job, job.in_cgroup(argv))
            result = {'status': status, 'lines': lines, 'stderr': stderr, 'wall_s': wall,
                      'programs': int(ready[1])}
            if stats:
                result['bpf'] = measure.bpf_programs(loader.pid)
        finally:
            _stop(loader)
        result['detach_wait_s'] = measure.wait_programs_gone(programs)
        return result


class MinimalFloor(Floor):
    """Empty programs on only the enter and exit tracepoints of the workload's own syscalls
    (Workload.syscalls): the least any syscall tracer pays for them.  The same-hooks floor
    (Floor) adds every other hook dltrace attaches, which a node's other calls also meet."""

    def __init__(self):
        super().__init__()
        self.name, self.label = 'floor-min', "floor, the workload's syscalls only"

    def for_workload(self, job, workload):
        """Set the hooks for this workload; False when it names no syscalls."""
        if workload.syscalls is None:
            return False
        self.hooks = []
        for tp in workload.syscalls:
            if tp in job.shared:
                self.hooks += ['dl_enter_shared@syscalls/sys_enter_' + tp,
                               'dl_exit_shared@syscalls/sys_exit_' + tp]
            else:
                self.hooks += ['dl_enter_' + tp, 'dl_exit_' + tp]
        return True

    def run(self, job, argv, trace_base, stats=False):
        if not self.hooks:
            # no syscall of dltrace's: nothing attached is the floor
            return Untraced().run(job, argv, trace_base, stats)
        return super().run(job, argv, trace_base, stats)


def report_summary(dltrace, path):
    """events, lost_events and lost_bytes of a trace of any format, from `dltrace report`,
    or of a --summary-only report (which is that JSON)."""
    if path.endswith('.summary.json'):
        with open(path) as f:
            rep = json.load(f)
    else:
        res = subprocess.run([dltrace, 'report', '--json', path], capture_output=True)
        if res.returncode:
            raise ValueError('dltrace report %s failed: %s' % (path, res.stderr[-300:]))
        rep = json.loads(res.stdout)
    t = rep['traces'][0]
    return {'events': t['events'], 'lost_events': t['lost_events'],
            'lost_bytes': t['lost_bytes'], 'counts': {}}


class Dltrace(Condition):
    # kind: (name, output suffix, options)
    KINDS = {'json': ('json', '.json', []), 'gz': ('gz', '.json.gz', []),
             'pftrace': ('pftrace', '.pftrace', []),
             'pftrace.gz': ('pftrace-gz', '.pftrace.gz', []),
             'summary': ('summary', '.summary.json', ['--summary-only=events']),
             'counts': ('summary-counts', '.summary.json', ['--summary-only=counts']),
             # the smallest ring (1 MiB): what each way loses at the workload's rate
             'summary-ring1': ('summary-ring1', '.summary.json',
                               ['--summary-only=events', '--ring-size', '1']),
             'counts-ring1': ('summary-counts-ring1', '.summary.json',
                              ['--summary-only=counts', '--ring-size', '1']),
             'pystacks': ('json-pystacks', '.json', ['--python-stacks']),
             'live': ('json-live', '.json', ['--live'])}

    def __init__(self, gzip, base=None, kind=None, layers=None):
        """kind: json, gz (gzip), pftrace, pftrace.gz, summary (--summary-only, no
        trace) or live (.json with the live view: --live, its lines on the workload's
        standard output).  base: another built checkout, measured under the names
        base-json, base-gz."""
        kind = kind or ('gz' if gzip else 'json')  # pystacks: .json with --python-stacks
        name, self.suffix, self.options = self.KINDS[kind]
        self.kind = kind
        self.base = base
        self.name = ('base-' if base else 'dltrace-') + name
        self.label = ('dltrace (base) ' if base else 'dltrace ') + (
            '--summary-only=events' if kind == 'summary' else
            '--summary-only=counts' if kind == 'counts' else
            ' '.join(self.options) if kind.endswith('ring1') else
            ' '.join([self.suffix] + self.options))
        if kind.endswith('ring1'):
            self.only = ('micro-1t', 'micro-2t', 'metadata')  # the rates that fill a ring
        if kind in ('pftrace', 'pftrace.gz'):
            self.only = ('micro-1t', 'pytorch')  # sizes: the JSON's workloads
        if kind == 'pystacks':
            self.only = ('py-micro', 'pytorch')  # the Python workloads
        if layers:  # only these capture layers (the per-layer costs)
            self.options = self.options + ['--layers', layers]
            self.name += '-' + layers.replace(',', '+')
            self.label += ' --layers ' + layers

    def available(self, job):
        if self.base and not os.path.exists(os.path.join(self.base, 'build', 'dltrace')):
            return '%s/build/dltrace is missing' % self.base
        return None

    def run(self, job, argv, trace_base, stats=False, count=None):
        trace = trace_base + self.suffix
        seen = {}

        def on_start(pid):
            seen['sampler'] = measure.RssSampler(pid)

        def on_begin(pid):
            seen['cpu0'] = measure.cpu_seconds(pid)

        def on_exit(pid):  # the drain and the end of the trace included
            if 'cpu0' in seen:
                seen['cpu'] = measure.cpu_seconds(pid) - seen['cpu0']

        def on_hold(pid):
            seen['hwm'] = measure.memory_kib(pid, 'VmHWM')
            seen['programs'] = measure.program_ids(pid)
            if stats:
                seen['bpf'] = measure.bpf_programs(pid)

        build = os.path.join(self.base, 'build') if self.base else job.build
        cmd = [os.path.join(build, 'dltrace'), '-o', trace] + self.options + ['--']
        status, lines, stderr, wall = execute(job, cmd + job.in_cgroup(argv, hold=True),
                                              on_hold=on_hold, on_start=on_start,
                                              on_begin=on_begin, on_exit=on_exit)
        rss_max = seen['sampler'].stop()
        # dltrace leaves detaching to a helper; the next run must not pay for it
        detach_wait = measure.wait_programs_gone(seen.get('programs', set()))
        result = {'status': status, 'lines': lines, 'stderr': stderr, 'wall_s': wall,
                  'rss_max_kib': max(filter(None, [rss_max, seen.get('hwm')]), default=None),
                  'rss_samples': seen['sampler'].samples, 'detach_wait_s': detach_wait,
                  'tracer_cpu_s': seen.get('cpu')}
        probes = re.search(r'(\d+) probes', stderr)
        result['programs'] = int(probes.group(1)) if probes else None
        if 'bpf' in seen:
            result['bpf'] = seen['bpf']
        if os.path.exists(trace):
            if self.suffix in ('.json', '.json.gz'):
                summary = measure.trace_summary(trace, count)
            else:
                summary = report_summary(os.path.join(build, 'dltrace'), trace)
            result.update(events=summary['events'], lost=summary['lost_events'],
                          lost_bytes=summary['lost_bytes'], counts=summary['counts'])
            if self.suffix != '.summary.json':  # a trace, not the report alone
                result['trace_bytes'] = os.path.getsize(trace)
            _remove(job, trace)
        return result


_KNOWN = {}


def known_names(job, tool):
    """The syscall names of dltrace's set that the tool knows (strace 6.1 and perf 6.1
    predate fchmodat2 and the *xattrat calls): each is tried once, alone."""
    if tool not in _KNOWN:
        names = sorted({name for _, name in job.syscalls})
        probe = {'strace': lambda n: ['strace', '-o', os.devnull, '-e', 'trace=' + n, 'true'],
                 'perf': lambda n: ['perf', 'trace', '-o', os.devnull, '-e', n, '--', 'true']}
        if _runs(probe[tool](','.join(names))):
            _KNOWN[tool] = names
        else:
            _KNOWN[tool] = [n for n in names if _runs(probe[tool](n))]
    return _KNOWN[tool]


class Strace(Condition):
    name, label, slow = 'strace', 'strace -f', True

    def available(self, job):
        return None if _runs(['strace', '-V']) else 'strace is not installed'

    def run(self, job, argv, trace_base, stats=False):
        trace = trace_base + '.strace'
        names = ','.join(known_names(job, 'strace'))
        cmd = ['strace', '-f', '-qq', '-ttt', '-T', '-e', 'trace=' + names, '-o', trace, '--']
        return _external(job, cmd + job.in_cgroup(argv), trace,
                         rb'^\d+ +[\d.]+ [a-z_0-9]+\(', None)


class Bpftrace(Condition):
    name, label, slow = 'bpftrace', 'bpftrace script', True

    def available(self, job):
        return None if _runs(['bpftrace', '--version']) else 'bpftrace is not installed'

    def _script(self, job):
        path = os.path.join(job.out_dir, 'record_io.bt')
        text = bpftrace_script.script([tp for tp, _ in job.syscalls], '/sys/kernel/tracing',
                                      job.cgroup)
        with open(path, 'w') as f:
            f.write(text)
        return path

    def run(self, job, argv, trace_base, stats=False):
        trace = trace_base + '.bpftrace'
        command = job.in_cgroup(argv)
        if any(' ' in a for a in command):
            raise RuntimeError('bpftrace -c cannot pass arguments with spaces: %s' % command)
        cmd = ['bpftrace', '-o', trace, self._script(job), '-c', ' '.join(command)]
        return _external(job, cmd, trace, rb'^\d+ \d+ ', rb'Lost (\d+) events')


class PerfTrace(Condition):
    name, label, slow = 'perf-trace', 'perf trace', True

    def available(self, job):
        if _runs(['perf', 'trace', '-o', os.devnull, '-e', 'close', '--', 'true']):
            return None
        return '`perf trace` does not run here (perf missing or unsupported)'

    def run(self, job, argv, trace_base, stats=False):
        trace = trace_base + '.perf'
        names = ','.join(known_names(job, 'perf'))
        cmd = ['perf', 'trace', '-o', trace, '-e', names, '--']
        return _external(job, cmd + job.in_cgroup(argv), trace, rb'^ *[\d.]+ \( *[\d.]+ ms\)',
                         rb'LOST (\d+) events')


def dltrace_hooks(job, layers=None):
    """The programs dltrace attaches here by default (or with `--layers LAYERS`), and what it
    says about them."""
    seen = {}

    def on_hold(pid):
        seen['names'] = measure.program_names(measure.program_ids(pid, attached=True))
        seen['ids'] = measure.program_ids(pid)

    trace = os.path.join(job.out_dir, 'hooks.json')
    cmd = [os.path.join(job.build, 'dltrace'), '-o', trace] + \
        (['--layers', layers] if layers else []) + ['--']
    status, _, stderr, _ = execute(job, cmd + job.in_cgroup(['true'], hold=True),
                                   on_hold=on_hold)
    measure.wait_programs_gone(seen.get('ids', set()))
    _remove(job, trace)
    if status != 0 or not seen.get('names'):
        raise RuntimeError('dltrace did not start: %s' % stderr.strip())
    return seen['names'], [line for line in stderr.splitlines() if 'probes' in line or
                           'layers' in line]


def _runs(argv):
    try:
        return subprocess.run(argv, capture_output=True, timeout=120).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def _external(job, cmd, trace, event_pattern, lost_pattern):
    """Run a tracer that writes a text log; count its events and losses."""
    seen = {}
    status, lines, stderr, wall = execute(
        job, cmd, on_start=lambda pid: seen.update(sampler=measure.RssSampler(pid)))
    result = {'status': status, 'lines': lines, 'stderr': stderr, 'wall_s': wall,
              'rss_max_kib': seen['sampler'].stop()}
    if os.path.exists(trace):
        result['events'] = _count_lines(trace, event_pattern)
        result['trace_bytes'] = os.path.getsize(trace)
        lost = 0
        if lost_pattern:
            with open(trace, 'rb') as f:
                text = f.read()
            lost = sum(int(n) for n in re.findall(lost_pattern, text + stderr.encode()))
        result['lost'] = lost
        _remove(job, trace)
    return result


class DaemonIdle(Condition):
    """`dltrace daemon` running with no job: what an always-on node pays.

    attached: a job has come and gone and idle_detach_s = -1 keeps the
    tracing programs attached, so every file syscall of the node runs the
    filter; detached: the default once idle (only the cgroup programs stay).
    Measured on the micro workload only.
    """
    only = ('micro-1t',)

    def __init__(self, attached):
        self.attached = attached
        self.name = 'daemon-idle-att' if attached else 'daemon-idle-det'
        self.label = 'daemon idle, ' + ('attached' if attached else 'detached')

    def run(self, job, argv, trace_base, stats=False):
        work = trace_base + '.daemon'
        os.makedirs(work, exist_ok=True)
        mount = measure.cgroup2_mount()
        tag = 'dltrace-bench-idle-%d' % os.getpid()
        config = os.path.join(work, 'dltrace.conf')
        with open(config, 'w') as f:
            f.write('job_cgroup = /%s/job_*\nlog_dir = %s\nsocket = %s\nidle_detach_s = %d\n'
                    % (tag, os.path.join(work, 'log'), os.path.join(work, 'ctl.sock'),
                       -1 if self.attached else 0))
        err = open(os.path.join(work, 'daemon.err'), 'w+')
        daemon = subprocess.Popen([os.path.join(job.build, 'dltrace'), 'daemon', '--config',
                                   config, '--foreground'], stderr=err, env=job.env)
        programs = set()
        try:
            if not _wait_log(err, 'started'):
                raise RuntimeError('the daemon did not start')
            if self.attached:
                # one job, come and gone: the tracing programs are attached and stay
                jobdir = os.path.join(mount, tag, 'job_1')
                os.makedirs(jobdir)
                if not _wait_log(err, 'job 1: tracing'):
                    raise RuntimeError('the daemon did not notice the job')
                os.rmdir(jobdir)
                os.rmdir(os.path.dirname(jobdir))
                if not _wait_log(err, 'job 1: '):
                    raise RuntimeError('the daemon did not finish the job')
                time.sleep(0.5)
            programs = measure.program_ids(daemon.pid)
            attached = measure.program_ids(daemon.pid, attached=True)
            status, lines, stderr, wall = execute(job, job.in_cgroup(argv))
            result = {'status': status, 'lines': lines, 'stderr': stderr, 'wall_s': wall,
                      'programs': len(attached)}
        finally:
            _stop(daemon)
            err.close()
            shutil.rmtree(work, ignore_errors=True)
            for d in (os.path.join(mount, tag, 'job_1'), os.path.join(mount, tag)):
                if os.path.isdir(d):
                    os.rmdir(d)
        result['detach_wait_s'] = measure.wait_programs_gone(programs)
        return result


def _wait_log(f, text, timeout=60):
    end = time.time() + timeout
    while time.time() < end:
        f.flush()
        f.seek(0)
        if text in f.read():
            return True
        time.sleep(0.05)
    return False


# The per-layer sets (`make bench BENCH_ARGS=--per-layer`): the syscall layer alone, then
# with each layer whose hooks these workloads reach (uring's and markers' fire only on
# io_uring requests and marker calls).
LAYER_SETS = ('syscall', 'syscall,mmap', 'syscall,cache', 'syscall,block')


def layer_conditions():
    """Floor and dltrace .json for each of LAYER_SETS: what each layer costs."""
    return [c for layers in LAYER_SETS for c in (Floor(layers), Dltrace(False, layers=layers))]


def all_conditions(base=None):
    base_runs = [Dltrace(False, base), Dltrace(True, base)] if base else []
    return [Untraced(), Floor(), MinimalFloor(), Dltrace(False), Dltrace(False, kind='live'), Dltrace(True),
            Dltrace(False, kind='pftrace'), Dltrace(False, kind='pftrace.gz'),
            Dltrace(False, kind='summary'), Dltrace(False, kind='counts'),
            Dltrace(False, kind='summary-ring1'), Dltrace(False, kind='counts-ring1'),
            Dltrace(False, kind='pystacks')] + base_runs + [
        Strace(), Bpftrace(), PerfTrace(), DaemonIdle(True), DaemonIdle(False)]
