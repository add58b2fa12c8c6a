"""What the benchmark reads from the system: a job cgroup, a tracer's memory,
the BPF programs' own run time (kernel.bpf_stats_enabled), and the summary
that dltrace writes at the end of a trace."""
import contextlib
import gzip
import json
import os
import subprocess
import threading
import time

BPF_STATS = '/proc/sys/kernel/bpf_stats_enabled'


def cgroup2_mount():
    with open('/proc/mounts') as f:
        for line in f:
            fields = line.split()
            if fields[2] == 'cgroup2':
                return fields[1]
    raise RuntimeError('no cgroup v2 hierarchy is mounted')


@contextlib.contextmanager
def job_cgroup(name):
    """A fresh cgroup v2 directory for the workloads; removed at the end."""
    path = os.path.join(cgroup2_mount(), name)
    os.makedirs(path, exist_ok=True)
    try:
        yield path
    finally:
        for _ in range(50):
            try:
                os.rmdir(path)
                break
            except OSError:
                time.sleep(0.1)  # its last processes are still exiting


def memory_kib(pid, field):
    """VmRSS, VmHWM, ... of a process in KiB, or None once it is gone."""
    try:
        with open('/proc/%d/status' % pid) as f:
            for line in f:
                if line.startswith(field + ':'):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def cpu_seconds(pid):
    """User + system CPU time of a process (all its threads), or None."""
    try:
        with open('/proc/%d/stat' % pid) as f:
            fields = f.read().rsplit(')', 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def cgroup_cpu_s(path):
    """CPU seconds used so far by every process that ran in a cgroup v2 directory
    (cpu.stat's usage_usec: there without the cpu controller), BPF programs they ran
    included."""
    with open(os.path.join(path, 'cpu.stat')) as f:
        for line in f:
            key, value = line.split()
            if key == 'usage_usec':
                return int(value) / 1e6
    raise RuntimeError('%s/cpu.stat has no usage_usec' % path)


class RssSampler:
    """Samples a process's VmRSS every `interval` seconds while it lives."""

    def __init__(self, pid, interval=0.1):
        self.pid = pid
        self.interval = interval
        self.samples = []  # (seconds since start, KiB)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        start = time.monotonic()
        while not self._stop.is_set():
            kib = memory_kib(self.pid, 'VmRSS')
            if kib is None:
                break
            self.samples.append((round(time.monotonic() - start, 2), kib))
            self._stop.wait(self.interval)

    def stop(self):
        self._stop.set()
        self._thread.join()
        return max((kib for _, kib in self.samples), default=None)


@contextlib.contextmanager
def bpf_stats():
    """BPF run-time statistics on for the block.  Through bpf(BPF_ENABLE_STATS): the
    statistics stay on while the descriptor is open, whatever other users of the machine
    write to kernel.bpf_stats_enabled meanwhile (a write of theirs restoring 0 would
    switch a sysctl setting of ours off)."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    attr = ctypes.create_string_buffer(16)  # enable_stats.type = BPF_STATS_RUN_TIME (0)
    fd = libc.syscall(321, 32, attr, 16)  # SYS_bpf, BPF_ENABLE_STATS (x86_64)
    if fd < 0:
        raise OSError(ctypes.get_errno(), 'bpf(BPF_ENABLE_STATS)')
    try:
        yield
    finally:
        os.close(fd)


def bpf_stats_on():
    with open(BPF_STATS) as f:
        return f.read().strip() != '0'


def _program_names():
    try:
        out = subprocess.run(['bpftool', 'prog', 'show', '--json'], capture_output=True,
                             timeout=60, check=True).stdout
        return {p['id']: p.get('name', '') for p in json.loads(out)}
    except (OSError, subprocess.SubprocessError, ValueError):
        return {}


def bpf_programs(pid):
    """{name: (run_time_ns, run_cnt)} of the BPF programs a process holds."""
    progs = {}
    fdinfo = '/proc/%d/fdinfo' % pid
    for fd in os.listdir(fdinfo):
        try:
            with open(os.path.join(fdinfo, fd)) as f:
                info = dict(line.rstrip('\n').split(':\t', 1) for line in f if ':\t' in line)
        except OSError:
            continue
        if 'prog_type' in info and 'run_cnt' in info:
            progs[int(info['prog_id'])] = (int(info['run_time_ns']), int(info['run_cnt']))
    names = _program_names()
    return {names.get(i) or 'prog_%d' % i: v for i, v in progs.items()}


def trace_summary(path, count=None):
    """dltrace's summary args of a trace.  With count = {label: (event name,
    text the line must hold)}, also 'counts': {label: matching events}."""
    count = count or {}
    wanted = {label: ((',{"name":"%s",' % name).encode(), text.encode())
              for label, (name, text) in count.items()}
    counts = dict.fromkeys(count, 0)
    last = b''
    if path.endswith('.gz') or count:
        opener = gzip.open if path.endswith('.gz') else open
        with opener(path, 'rb') as f:
            for line in f:
                for label, (prefix, text) in wanted.items():
                    if line.startswith(prefix) and text in line:
                        counts[label] += 1
                if line.startswith(b',{"name":"dltrace_summary"'):
                    last = line
    else:
        with open(path, 'rb') as f:
            f.seek(max(0, os.path.getsize(path) - 65536))
            for line in f.read().split(b'\n'):
                if line.startswith(b',{"name":"dltrace_summary"'):
                    last = line
    if not last:
        raise ValueError('%s has no dltrace_summary event' % path)
    summary = json.loads(last[1:])['args']
    summary['counts'] = counts
    return summary


def program_ids(pid, attached=False):
    """Ids of the BPF programs a process holds (attached: through a link)."""
    ids = set()
    fdinfo = '/proc/%d/fdinfo' % pid
    for fd in os.listdir(fdinfo):
        try:
            with open(os.path.join(fdinfo, fd)) as f:
                text = f.read()
        except OSError:
            continue
        if ('link_type:' if attached else 'prog_type:') in text and 'prog_id:' in text:
            ids.add(int(text.split('prog_id:')[1].split()[0]))
    return ids


def program_names(ids):
    names = _program_names()
    return sorted(names.get(i, 'prog_%d' % i) for i in ids)


def program_alive(prog_id):
    """Whether the kernel still has program prog_id: bpf(BPF_PROG_GET_FD_BY_ID), a
    cheap exact test (bpftool lists every program of the machine: a tenth of a second
    and more on a busy one)."""
    import ctypes
    import struct
    libc = ctypes.CDLL(None, use_errno=True)
    attr = ctypes.create_string_buffer(struct.pack('=III', prog_id, 0, 0), 16)
    fd = libc.syscall(321, 13, attr, 16)  # SYS_bpf, BPF_PROG_GET_FD_BY_ID (x86_64)
    if fd >= 0:
        os.close(fd)
        return True
    return ctypes.get_errno() != 2  # ENOENT: gone


def wait_programs_gone(ids, timeout=120, interval=0.1):
    """Wait until the kernel has freed these programs; returns the seconds waited."""
    start = time.monotonic()
    ids = set(ids)
    while ids and time.monotonic() - start < timeout:
        ids = {i for i in ids if program_alive(i)}
        if not ids:
            break
        time.sleep(interval)
    return time.monotonic() - start


