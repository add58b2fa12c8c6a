"""Running dltrace in tests: start it, wait until its probes are attached,
stop it, and load what it wrote (always through the strict validator)."""
import errno
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import unittest

import trace_validator

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# make check BUILD=DIR points this at another build (make check-asan: a sanitized one)
BUILD = os.environ.get('DLTRACE_BUILD', os.path.join(ROOT, 'build'))
# make test-asan points this at a sanitizer build
DLTRACE = os.environ.get('DLTRACE_BIN', os.path.join(BUILD, 'dltrace'))
# ... and this at the same build's directory, for the helpers linked from user/ (HELPERS)
HELPER_BUILD = os.environ.get('DLTRACE_HELPERS', BUILD)
# The helpers built from user/'s code that tests run, by their path under a build directory.
# The Makefile's USER_HELPERS builds the same list with the sanitizers for make test-asan.
HELPERS = ('trace_rewrite', 'span_check', 'tools/pystack_check', 'tests/pftrace_encode',
           'tests/pb_writer_test', 'tests/live_stats_test', 'tests/btf_names_check',
           'tests/py_linetable_check', 'tests/event_roundtrip', 'tests/golden_decode',
           'tests/trace_damage')
# The test programs of tests/workloads/: built once, never with the sanitizers.
WORKLOADS = os.path.join(BUILD, 'tests')
TESTS = os.path.join(ROOT, 'tests')
# Debian's interpreter: the one with python3-numpy/torch/h5py.
PYTHON = os.environ.get('DLTRACE_TEST_PYTHON', '/usr/bin/python3')


def workload(name):
    return os.path.join(WORKLOADS, name)


def helper(name):
    """The path of a helper of HELPERS, in the build that DLTRACE comes from."""
    if name not in HELPERS:
        raise ValueError('%s is not in dltrace_harness.HELPERS (nor in the Makefile\'s '
                         'USER_HELPERS): add it to both' % name)
    return os.path.join(HELPER_BUILD, name)


def runs_no_dltrace_code(test):
    """Marks a test, or a class of tests, that runs neither dltrace nor a helper built
    from user/ (only workloads, Python and system tools): the sanitized run
    (run_tests.py --sanitized, make test-asan) has nothing to check in it and leaves it
    out.  run_tests.py checks the mark against the programs each test runs."""
    test.runs_no_dltrace_code = True
    return test


def load_trace(path):
    """Events of a trace file; fails the test when it breaks a Perfetto rule."""
    events, errors = trace_validator.validate_file(path)
    if errors:
        raise AssertionError('%s is not a valid trace:\n  %s' % (path, '\n  '.join(errors[:20])))
    return events


def summary(events):
    return events[-1]['args']


def metadata(events):
    return events[0]['args']


def io_events(events, pid=None, under=None):
    """Syscall slices, optionally of one process and/or naming files below a directory."""
    out = []
    for ev in events:
        if ev.get('ph') != 'X' or ev.get('cat') not in ('data', 'metadata', 'sync', 'hint'):
            continue
        if pid is not None and ev['pid'] != pid:
            continue
        if under is not None:
            path = ev['args'].get('path', '')
            if not (path == under or path.startswith(under.rstrip('/') + '/')):
                continue
        out.append(ev)
    out.sort(key=lambda e: (e['ts'], -e['dur']))
    return out


class Tracer:
    """A dltrace process started in the background (--pid / --cgroup)."""

    def __init__(self, args, output, env=None):
        self.output = output
        self.stderr_lines = []
        self._ready = threading.Event()
        self.proc = subprocess.Popen([DLTRACE, '-o', output] + list(args),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     env=env)
        self._reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._reader.start()

    def _read_stderr(self):
        for raw in self.proc.stderr:
            line = raw.decode('utf-8', 'replace').rstrip('\n')
            self.stderr_lines.append(line)
            if line.startswith('dltrace: tracing '):
                self._ready.set()
        self._ready.set()

    @property
    def stderr(self):
        return '\n'.join(self.stderr_lines)

    def wait_ready(self, timeout=60):
        """Block until the probes are attached (dltrace said 'tracing ...')."""
        if not self._ready.wait(timeout):
            raise AssertionError('dltrace did not start in %ds: %s' % (timeout, self.stderr))
        if self.proc.poll() is not None and not any(
                l.startswith('dltrace: tracing ') for l in self.stderr_lines):
            raise AssertionError('dltrace exited (%s): %s' % (self.proc.returncode, self.stderr))
        return self

    def stop(self, sig=signal.SIGINT):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return self.wait()

    def wait(self, timeout=120):
        rc = self.proc.wait(timeout)
        self._reader.join(10)
        return rc


def run_command(args, output, cmd, timeout=300, **kw):
    """dltrace [args] -o output -- cmd; returns the CompletedProcess."""
    return subprocess.run([DLTRACE, '-o', output] + list(args) + ['--'] + list(cmd),
                          capture_output=True, timeout=timeout, **kw)


def trace_command(cmd, output, args=(), check=True, **kw):
    """Trace cmd into output; returns (CompletedProcess, events)."""
    res = run_command(args, output, cmd, **kw)
    if check and res.returncode != 0:
        raise AssertionError('dltrace failed (%d): %s' % (res.returncode, res.stderr.decode()))
    return res, load_trace(output)


def scratch_dir():
    d = tempfile.mkdtemp(prefix='dltrace-test-')
    os.chmod(d, 0o755)
    return d


# build/tests/scratch: on the checkout's disk (/tmp is a tmpfs on many machines)
SCRATCH_PARENT = os.path.join(BUILD, 'tests', 'scratch')


def disk_scratch_dir(prefix='dltrace-test-'):
    """A new directory on a disk: for files whose reads must reach a device."""
    os.makedirs(SCRATCH_PARENT, exist_ok=True)
    d = tempfile.mkdtemp(prefix=prefix, dir=SCRATCH_PARENT)
    os.chmod(d, 0o755)
    return d


class TraceTest(unittest.TestCase):
    """A test with its own scratch directory."""

    def setUp(self):
        self.dir = scratch_dir()

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def path(self, *names):
        return os.path.join(self.dir, *names)

    def trace_command(self, cmd, args=(), name='trace.json', check=True, **kw):
        return trace_command(cmd, self.path(name), args, check, **kw)


def errno_name(code):
    return errno.errorcode.get(code, str(code))


def traced_syscalls():
    """`dltrace --list-syscalls`: {name: {category, tracepoint, program, present}}."""
    out = subprocess.run([DLTRACE, '--list-syscalls'], capture_output=True, text=True, check=True)
    table = {}
    for line in out.stdout.splitlines():
        name, category, tracepoint, program, present = line.split()
        table[name] = {'category': category, 'tracepoint': tracepoint, 'program': program,
                       'present': present == 'yes'}
    return table


def parse_log(text):
    return [json.loads(l) for l in text.splitlines() if l.startswith('{')]


def cgroup2_root():
    """The cgroup v2 mount (/sys/fs/cgroup, or /sys/fs/cgroup/unified on hybrid systems)."""
    with open('/proc/self/mountinfo') as f:
        mounts = [l.split() for l in f]
    roots = [m[4] for m in mounts if m[m.index('-') + 1] == 'cgroup2']
    for c in ('/sys/fs/cgroup/unified', '/sys/fs/cgroup'):
        if c in roots:
            return c
    return roots[0]


def remove_cgroup(path, timeout=10):
    """rmdir a cgroup, retrying while its last processes leave; True when gone."""
    def gone():
        try:
            os.rmdir(path)
        except FileNotFoundError:
            pass
        except OSError:
            return False
        return True
    return wait_for(gone, timeout=timeout)


def start_in_cgroup(cgroup, argv, user=None, **kw):
    """Start argv with its pid already in cgroup (joined as root, then as `user`)."""
    import pwd
    procs = os.path.join(cgroup, 'cgroup.procs')
    pw = pwd.getpwnam(user) if user else None

    def enter():
        with open(procs, 'w') as f:
            f.write(str(os.getpid()))
        if pw:
            os.setgroups([])
            os.setgid(pw.pw_gid)
            os.setuid(pw.pw_uid)
    return subprocess.Popen(argv, preexec_fn=enter, stdout=subprocess.PIPE, **kw)


def in_syscall(pid):
    """The number of the syscall pid's main thread is blocked in (/proc/PID/syscall), -1 when
    it runs in user space, None when it cannot be read."""
    try:
        with open('/proc/%d/syscall' % pid) as f:
            word = f.read().split()[0]
    except (OSError, IndexError):
        return None
    return -1 if word == 'running' else int(word)


def wait_for(predicate, timeout=30, step=0.05):
    end = time.time() + timeout
    while time.time() < end:
        if predicate():
            return True
        time.sleep(step)
    return False


def _dltrace_processes():
    """(pid, comm) of every process running the dltrace binary under test."""
    exe = os.path.realpath(DLTRACE)
    out = []
    for name in os.listdir('/proc'):
        if name.isdigit():
            try:
                if os.readlink('/proc/%s/exe' % name) != exe:
                    continue
                with open('/proc/%s/comm' % name) as f:
                    out.append((int(name), f.read().strip()))
            except OSError:
                pass
    return out


def tracer_processes():
    """pids running the dltrace binary under test (a traced run's detaching helper included,
    until it is "dltrace-held": it then holds only disabled tracepoint events, without a
    program, for the next run to take)."""
    return [pid for pid, comm in _dltrace_processes() if comm != 'dltrace-held']


HANDOVER_SOCKET = '/run/dltrace/tracepoints.sock'


def events_held():
    """pids of the helpers that hold tracepoint events for the next run (comm dltrace-held)."""
    return [pid for pid, comm in _dltrace_processes() if comm == 'dltrace-held']


def uprobes_on(path):
    """(pid, fd) of each uprobe, USDT probes included, that a BPF program is attached through on
    the file at path, whoever holds it: bpftool's list of perf events by process, which still
    shows a tracer that is exiting, when /proc no longer gives its executable."""
    want = os.stat(path)
    bpftool = shutil.which('bpftool') or '/usr/sbin/bpftool'
    out = subprocess.run([bpftool, '-j', 'perf'], capture_output=True, text=True,
                         check=True).stdout
    held = []
    for e in json.loads(out or '[]'):
        if e.get('fd_type') not in ('uprobe', 'uretprobe') or 'filename' not in e:
            continue
        try:
            st = os.stat(e['filename'])
        except OSError:
            continue
        if (st.st_dev, st.st_ino) == (want.st_dev, want.st_ino):
            held.append((e['pid'], e['fd']))
    return held


def wait_until_detached(timeout=30):
    """True once no dltrace of this build runs: an earlier test's tracer has let go of its
    probes (dltrace exits first; its helper frees the programs at once and closes the perf
    events, uprobes and USDT semaphores included, over the next few seconds)."""
    return wait_for(lambda: not tracer_processes(), timeout=timeout)
