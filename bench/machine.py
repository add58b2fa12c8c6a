"""The machine a benchmark ran on, and the versions of what it measured."""
import os
import platform
import subprocess
import time


def _first_line(argv):
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        return (out.stdout or out.stderr).strip().splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        return None


def _cpuinfo(field):
    with open('/proc/cpuinfo') as f:
        for line in f:
            if line.startswith(field):
                return line.split(':', 1)[1].strip()
    return None


def _os_release():
    try:
        with open('/etc/os-release') as f:
            for line in f:
                if line.startswith('PRETTY_NAME='):
                    return line.split('=', 1)[1].strip().strip('"')
    except OSError:
        pass
    return None


def _virtualization():
    vm = _first_line(['systemd-detect-virt', '--vm'])
    container = _first_line(['systemd-detect-virt', '--container'])
    if not vm or vm == 'none':
        flags = (_cpuinfo('flags') or '').split()
        vm = 'unknown hypervisor' if 'hypervisor' in flags else 'none'
    parts = [vm] if vm != 'none' else ['bare metal']
    if container and container != 'none':
        parts.append('container: ' + container)
    return ', '.join(parts)


def describe(dltrace, root):
    with open('/proc/meminfo') as f:
        mem_kib = int(f.readline().split()[1])
    return {
        'date_utc': time.strftime('%Y-%m-%dT%H:%MZ', time.gmtime()),
        'cpu': _cpuinfo('model name'),
        'cpus': os.cpu_count(),
        'ram_gib': round(mem_kib / 2**20, 1),
        'kernel': platform.release(),
        'os': _os_release(),
        'virtualization': _virtualization(),
        'loadavg_at_start': os.getloadavg(),
        'versions': {
            'dltrace': _first_line([dltrace, '--version']),
            'dltrace_commit': _first_line(['git', '-C', root, 'rev-parse', '--short', 'HEAD']),
            'strace': _first_line(['strace', '-V']),
            'bpftrace': _first_line(['bpftrace', '--version']),
            'perf': _first_line(['perf', 'version']),
        },
    }
