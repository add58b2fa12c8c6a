"""Python stacks: the CPython frames the kernel side walks at each syscall.

tools/pystack_check loads dltrace's BPF programs with the stack walk on and
prints every traced syscall with its frames; tests/workloads/
py_stack_cases.py logs, right before each I/O statement, the file, function
and line CPython itself reports for it.  Every syscall of those statements
must carry exactly that frame as its innermost application frame.

Interpreters (the policy):
- Debian's /usr/bin/python3 (3.11, with numpy, h5py and torch, which
  `make test` installs) is required: every case runs on it, and a missing
  interpreter or module fails the tests.
- pyenv's CPython 3.10, 3.11, 3.12 and 3.13 (root from `pyenv root`, else
  ~/.pyenv; the newest patch release of each) run the cases that need no
  third-party module, when installed.  pyenv is no Debian package, so an
  absent version is a skip, unless DLTRACE_REQUIRE_PYENV=1 (then a failure).
- An unsupported version: a copy of Debian's interpreter whose Py_Version
  says 3.9.0 (always), and pyenv's newest 3.9 or older (when installed).
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import time
import unittest

from dltrace_harness import (DLTRACE, ROOT, Tracer, TraceTest, cgroup2_root, helper, load_trace,
                             metadata, remove_cgroup, start_in_cgroup, wait_for)

CHECK = helper('tools/pystack_check')
CASES = os.path.join(ROOT, 'tests', 'workloads', 'py_stack_cases.py')
DEBIAN_PYTHON = '/usr/bin/python3'
WALK_FRAMES = 16  # DL_PY_FRAMES
# syscalls whose records carry no stack (py_probe_default_kinds)
NO_STACK = {'lseek', 'close', 'close_range', 'dup', 'dup2', 'dup3', 'fcntl'}
PLAIN_CASES = ['direct', 'copy', 'names', 'thread', 'fork', 'spawn', 'deep', 'gil', 'counts']
ALL_CASES = PLAIN_CASES + ['numpy', 'h5py', 'torch', 'dataloader']
FRAME = re.compile(r'^(.*):(\d+) (.*)$')


def pyenv_root():
    try:
        out = subprocess.run(['pyenv', 'root'], capture_output=True, text=True, timeout=30)
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return os.path.expanduser('~/.pyenv')


def pyenv_python(minor):
    """The newest pyenv CPython 3.<minor>.x, or None."""
    versions = os.path.join(pyenv_root(), 'versions')
    best = None
    try:
        names = os.listdir(versions)
    except OSError:
        return None
    for name in names:
        m = re.fullmatch(r'3\.(\d+)\.(\d+)', name)
        exe = os.path.join(versions, name, 'bin', 'python3.%d' % minor)
        if m and int(m.group(1)) == minor and os.access(exe, os.X_OK):
            if best is None or int(m.group(2)) > best[0]:
                best = (int(m.group(2)), exe)
    return best and best[1]


def pyenv_old_python():
    """pyenv's newest CPython older than 3.10 (unsupported), or None."""
    for minor in (9, 8, 7, 6):
        exe = pyenv_python(minor)
        if exe:
            return exe
    return None


def parse_frame(text):
    m = FRAME.match(text)
    return (m.group(1), int(m.group(2)), m.group(3)) if m else (text, 0, '')


def parse_output(text):
    """Syscall lines, remark lines and location lines of pystack_check's output."""
    events, remarks, locs = [], [], {}
    for line in text.splitlines():
        f = line.split('\t')
        if f[0] == 'sys' and len(f) == 12:
            events.append({
                'pid': int(f[1]), 'tid': int(f[2]), 'ts': int(f[3]), 'dur': int(f[4]),
                'name': f[5], 'path': f[6], 'fd': int(f[7]), 'ret': int(f[8]),
                'stack': f[9], 'app': parse_frame(f[10]) if f[10] else None,
                'frames': [parse_frame(x) for x in f[11].split(' | ')] if f[11] else [],
            })
        elif f[0] == 'loc' and len(f) == 5:
            locs[(parse_frame(f[1]), f[2])] = (int(f[3]), int(f[4]))
        elif line.startswith('#'):
            remarks.append(line)
    return events, remarks, locs


def elf_symbol_offset(path, name):
    """File offset of a dynamic symbol's value in an ELF64 little-endian file."""
    with open(path, 'rb') as f:
        elf = f.read()
    phoff, shoff = struct.unpack_from('<QQ', elf, 0x20)
    phentsize, phnum, shentsize, shnum = struct.unpack_from('<HHHH', elf, 0x36)
    sections = [struct.unpack_from('<IIQQQQIIQQ', elf, shoff + i * shentsize)
                for i in range(shnum)]
    for sec in sections:
        if sec[1] != 11:  # SHT_DYNSYM
            continue
        strtab = sections[sec[6]][4]
        for off in range(sec[4], sec[4] + sec[5], sec[9]):
            name_off, _, _, _, value, size = struct.unpack_from('<IBBHQQ', elf, off)
            end = elf.index(b'\0', strtab + name_off)
            if elf[strtab + name_off:end] == name.encode():
                for i in range(phnum):
                    ptype, _, poff, vaddr, _, filesz = struct.unpack_from(
                        '<IIQQQQ', elf, phoff + i * phentsize)
                    if ptype == 1 and vaddr <= value < vaddr + filesz:
                        return poff + value - vaddr, size
    raise LookupError('%s: no symbol %s' % (path, name))


class PythonStacks(TraceTest):
    def pyenv_missing(self, msg):
        """An interpreter pyenv does not have: a failure where the machine must have it
        (DLTRACE_REQUIRE_PYENV=1, as in CI), else a skip that the runner lists at its end."""
        msg += ' (under %s)' % pyenv_root()
        if os.environ.get('DLTRACE_REQUIRE_PYENV') == '1':
            self.fail(msg)
        self.skipTest(msg)

    def python_or_skip(self, minor):
        exe = pyenv_python(minor)
        if exe is None:
            self.pyenv_missing('pyenv CPython 3.%d not installed' % minor)
        return exe

    def debian_python(self):
        self.assertTrue(os.access(DEBIAN_PYTHON, os.X_OK), 'missing ' + DEBIAN_PYTHON)
        return DEBIAN_PYTHON

    def run_check(self, argv, extra=(), timeout=300):
        out = subprocess.run([CHECK] + list(extra) + ['--'] + argv, capture_output=True,
                             text=True, timeout=timeout)
        self.assertEqual(out.returncode, 0, 'pystack_check %s failed:\n%s\n%s' %
                         (argv, out.stderr[-3000:], out.stdout[-3000:]))
        return out

    def run_bare(self, argv):
        """argv traced with stacks on: the lines said about it ('# ...')."""
        out = subprocess.run([CHECK, '--quiet', '--'] + argv, capture_output=True, text=True,
                             timeout=300)
        self.assertEqual(out.returncode, 0, 'pystack_check %s failed:\n%s\n%s' %
                         (argv, out.stderr[-3000:], out.stdout[-3000:]))
        return [line for line in out.stdout.splitlines() if line.startswith('#')]

    def run_cases(self, python, cases, extra=()):
        log = os.path.join(self.dir, 'expect.jsonl')
        data = os.path.join(self.dir, 'data')
        os.makedirs(data, exist_ok=True)
        out = self.run_check([python, CASES, log, os.path.realpath(data)] + cases, extra)
        events, remarks, locs = parse_output(out.stdout)
        with open(log) as f:
            expects = [json.loads(line) for line in f]
        return events, remarks, locs, expects

    def check_expectations(self, events, expects, cases):
        """Every I/O of an expected statement carries the statement's frame."""
        seen_cases = set()
        by_thread = {}
        for rec in expects:
            by_thread.setdefault((rec['pid'], rec['tid']), []).append(rec)
        for recs in by_thread.values():
            recs.sort(key=lambda r: r['ts'])
            for i, rec in enumerate(recs):
                end = recs[i + 1]['ts'] if i + 1 < len(recs) else float('inf')
                window = [e for e in events if e['pid'] == rec['pid'] and
                          e['tid'] == rec['tid'] and e['path'] == rec['path'] and
                          rec['ts'] < e['ts'] < end]
                want = (rec['file'], rec['line'], rec['func'])
                names = rec['syscalls']
                hits = [e for e in window if (e['name'] in names if names else
                                              e['name'] not in NO_STACK)]
                where = '%s: %s %s:%d' % (rec['case'], rec['path'], rec['func'], rec['line'])
                self.assertTrue(hits, '%s: no %s in the trace' % (where, names or 'syscall'))
                for name in names or ('openat', 'read'):
                    self.assertTrue([e for e in hits if e['name'] == name],
                                    '%s: no %s' % (where, name))
                for e in hits:
                    self.assertNotEqual(e['stack'], '-', '%s: %s without a stack' %
                                        (where, e['name']))
                    if rec['case'] == 'deep':
                        continue  # its application frame is checked by test_deep
                    self.assertEqual(e['app'], want, '%s: %s has %s' % (where, e['name'],
                                                                       e['frames']))
                for e in window:
                    if e['name'] in NO_STACK:
                        self.assertEqual(e['stack'], '-', '%s: %s has a stack' %
                                         (where, e['name']))
                seen_cases.add(rec['case'])
        self.assertEqual(seen_cases, set(cases))

    def check_cases(self, events, expects, locs, cases):
        self.check_expectations(events, expects, cases)
        main_pid = min(r['pid'] for r in expects if r['case'] == cases[0])
        for rec in expects:
            if rec['case'] in ('thread', 'gil'):
                self.assertNotEqual(rec['tid'], rec['pid'], rec)
            if rec['case'] in ('fork', 'spawn', 'dataloader'):
                self.assertNotEqual(rec['pid'], main_pid, rec)
        if 'gil' in cases:
            rec = [r for r in expects if r['case'] == 'gil' and r['syscalls'] == ['read']][0]
            read = [e for e in events if e['tid'] == rec['tid'] and e['path'] == rec['path']
                    and e['name'] == 'read']
            # blocked, GIL released, while the main thread ran Python code: the main thread
            # writes 0.3 s after it saw the reader inside its read
            self.assertGreaterEqual(read[0]["dur"], 300 * 1000 * 1000, read)
            spun = [e for e in events if e['tid'] == rec['pid'] and
                    read[0]['ts'] < e['ts'] < read[0]['ts'] + read[0]['dur']]
            self.assertTrue(spun, 'the main thread made no syscall during the read')
        if 'deep' in cases:
            self.check_deep(events, expects)
        if 'counts' in cases:
            for rec in (r for r in expects if r['case'] == 'counts'):
                key = ((rec['file'], rec['line'], rec['func']), 'pread64')
                self.assertEqual(locs.get(key), (rec['count'], rec['count'] * rec['size']),
                                 key)
        if 'dataloader' in cases:
            workers = {r['pid'] for r in expects if r['case'] == 'dataloader'}
            self.assertEqual(len(workers), 2, workers)

    def check_deep(self, events, expects):
        rec = [r for r in expects if r['case'] == 'deep'][0]
        self.assertGreater(rec['depth'], WALK_FRAMES)
        e = [e for e in events if e['path'] == rec['path'] and e['name'] == 'pread64'][0]
        self.assertTrue(e['stack'].endswith('T'), 'not marked truncated: %s' % e['stack'])
        self.assertEqual(len(e['frames']), WALK_FRAMES)
        self.assertEqual(e['frames'][0], (rec['file'], rec['line'], rec['func']))
        self.assertEqual([f[2] for f in e['frames'][1:]], ['recurse'] * (WALK_FRAMES - 1))
        self.assertEqual(len({f[1] for f in e['frames'][2:]}), 1)  # recurse's own line

    def test_debian_python(self):
        """Every case, numpy, h5py, torch.load and DataLoader workers included."""
        python = self.debian_python()
        events, remarks, locs, expects = self.run_cases(python, ALL_CASES)
        self.assertFalse([r for r in remarks if 'python stacks:' in r], remarks)
        self.check_cases(events, expects, locs, ALL_CASES)
        self.assertIn('# lost 0', remarks)

    def pyenv_cases(self, minor):
        python = self.python_or_skip(minor)
        events, remarks, locs, expects = self.run_cases(python, PLAIN_CASES)
        self.assertFalse([r for r in remarks if 'python stacks:' in r], remarks)
        self.check_cases(events, expects, locs, PLAIN_CASES)

    def test_pyenv_310(self):
        self.pyenv_cases(10)

    def test_pyenv_311(self):
        self.pyenv_cases(11)

    def test_pyenv_312(self):
        self.pyenv_cases(12)

    def test_pyenv_313(self):
        self.pyenv_cases(13)

    def kernel_follows(self, python):
        """Every process is found by the kernel side alone: the command's own (its
        interpreter file was given to the kernel side before its exec) and the processes
        exec'd from it; user space hands over none."""
        events, remarks, locs, expects = self.run_cases(python, ['spawn'],
                                                        ['--kernel-follows'])
        self.check_expectations(events, expects, ['spawn'])
        counts = [r for r in remarks if r.startswith('# syscalls')][0].split()
        self.assertEqual(counts[counts.index('python_processes') + 1], '0', counts)

    def test_kernel_follows_exec_debian(self):
        """Debian's interpreter: an executable, recognized at exec."""
        self.kernel_follows(self.debian_python())

    def test_kernel_follows_exec_pyenv(self):
        """pyenv's: libpython, recognized when the dynamic loader maps it."""
        self.kernel_follows(self.python_or_skip(12))

    def attach(self, python):
        """A process running before the tracer attaches (--pid) gets stacks too."""
        data = os.path.realpath(os.path.join(self.dir, 'attach'))
        os.makedirs(data)
        log = os.path.join(self.dir, 'attach.jsonl')
        target = subprocess.Popen([python, CASES, log, data, 'attach'])
        try:
            self.assertTrue(wait_for(lambda: os.path.exists(os.path.join(data, 'ready'))),
                            'the Python process did not get ready')
            check = subprocess.Popen([CHECK, '--pid', str(target.pid)],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
            first = check.stderr.readline()  # "attached to PID", or why not
            self.assertIn('attached to %d' % target.pid, first)
            open(os.path.join(data, 'go'), 'w').close()
            self.assertEqual(target.wait(timeout=60), 0)
            stdout, stderr = check.communicate(timeout=60)
        finally:
            target.kill()
        self.assertEqual(check.returncode, 0, stderr)
        events, _, _ = parse_output(stdout)
        with open(log) as f:
            expects = [json.loads(line) for line in f]
        self.check_expectations(events, expects, ['attach'])

    def test_attach_debian(self):
        self.attach(self.debian_python())

    def test_attach_pyenv_310(self):
        self.attach(self.python_or_skip(10))

    def test_attach_pyenv_311(self):
        self.attach(self.python_or_skip(11))

    def test_attach_pyenv_312(self):
        self.attach(self.python_or_skip(12))

    def test_attach_pyenv_313(self):
        self.attach(self.python_or_skip(13))

    def unsupported(self, python, version):
        events, remarks, _, expects = self.run_cases(python, ['direct'])
        said = [r for r in remarks if 'python stacks:' in r]
        self.assertEqual(len(said), 1, remarks)
        self.assertIn('CPython %s is not supported (3.10 to 3.13 are)' % version, said[0])
        self.assertIn('its events have no Python stack', said[0])
        mine = [e for e in events if e['path'].startswith(os.path.realpath(self.dir))]
        self.assertTrue(mine)
        self.assertEqual({e['stack'] for e in events}, {'-'})
        self.assertEqual(len(expects), 5)  # the workload ran to its end

    def unsupported_short(self, python, version):
        """`python -c pass`, the shortest life there is: exactly one line, both when the
        interpreter is the command (looked at before its exec) and when a shell execs it
        later (named by its exec record: the process is gone before /proc is read)."""
        for argv in ([python, '-c', 'pass'], ['/bin/sh', '-c', '"$0" -c pass; true', python]):
            said = [r for r in self.run_bare(argv) if 'python stacks:' in r]
            self.assertEqual(len(said), 1, (argv, said))
            self.assertIn('CPython %s is not supported (3.10 to 3.13 are)' % version, said[0])
            self.assertIn('its events have no Python stack', said[0])

    def test_unsupported_version(self):
        """Py_Version of a copy of Debian's interpreter says 3.9.0: one line, no stacks;
        with a workload, and with `-c pass` (every machine has this case)."""
        python = self.debian_python()
        copy = os.path.join(self.dir, 'python3.9')
        shutil.copy(os.path.realpath(python), copy)
        off, size = elf_symbol_offset(copy, 'Py_Version')
        self.assertEqual(size, 8)
        with open(copy, 'r+b') as f:
            f.seek(off)
            f.write(struct.pack('<Q', 0x030900f0))
        os.environ['PYTHONHOME'] = sys.base_prefix if sys.base_prefix else '/usr'
        try:
            self.unsupported(copy, '3.9.0')
            self.unsupported_short(copy, '3.9.0')
        finally:
            del os.environ['PYTHONHOME']

    def test_unsupported_pyenv(self):
        python = pyenv_old_python()
        if python is None:
            self.pyenv_missing('no pyenv CPython older than 3.10 installed')
        ver = subprocess.run([python, '-c', 'import sys; print("%d.%d.%d" % '
                              'sys.version_info[:3])'], capture_output=True,
                             text=True).stdout.strip()
        minor = int(ver.split('.')[1])
        version = ver if minor >= 9 else '3.%s or older' % ('8' if minor >= 7 else '6')
        self.unsupported(python, version)
        self.unsupported_short(python, version)


def trace_to_events(events):
    """The syscall slices of a dltrace trace in parse_output()'s form (ts and dur in ns,
    absolute CLOCK_MONOTONIC as the workload logs them), and the per-(location,
    syscall) calls and bytes they add up to."""
    t0 = metadata(events)['start_mono_ns']
    out, locs = [], {}
    for ev in events:
        if ev.get('ph') != 'X' or ev.get('cat') not in ('data', 'metadata', 'sync', 'hint'):
            continue
        a = ev['args']
        py, full = a.get('py'), a.get('py_stack')
        frames = full.split(' | ') if full else []
        cut = frames[-1:] == ['...']
        if cut:
            frames.pop()
        e = {'pid': ev['pid'], 'tid': ev['tid'], 'ts': t0 + round(ev['ts'] * 1000),
             'dur': round(ev['dur'] * 1000), 'name': ev['name'], 'path': a.get('path', ''),
             'fd': a.get('fd', -1), 'ret': a.get('ret', 0),
             'stack': '-' if py is None else ('T' if cut else 'S'),
             'app': parse_frame(py) if py else None,
             'frames': [parse_frame(x) for x in frames]}
        out.append(e)
        if py:
            calls, nbytes = locs.get((e['app'], e['name']), (0, 0))
            locs[(e['app'], e['name'])] = (calls + 1, nbytes + max(e['ret'], 0))
    return out, locs


class DltracePythonStacks(PythonStacks):
    """The same cases through dltrace itself: --python-stacks=full, args.py and
    args.py_stack in the trace (JSON, and .pftrace read back by dltrace convert)."""

    def run_cases(self, python, cases, extra=(), fmt='json'):
        log = os.path.join(self.dir, 'expect.jsonl')
        data = os.path.join(self.dir, 'data')
        os.makedirs(data, exist_ok=True)
        trace = os.path.join(self.dir, 'trace.' + fmt)
        argv = [DLTRACE, '--python-stacks=full', '-o', trace] + list(extra) + \
            ['--', python, CASES, log, os.path.realpath(data)] + cases
        out = subprocess.run(argv, capture_output=True, text=True, timeout=600)
        self.assertEqual(out.returncode, 0, out.stderr[-3000:])
        if fmt != 'json':
            back = os.path.join(self.dir, 'back.json')
            conv = subprocess.run([DLTRACE, 'convert', trace, back], capture_output=True,
                                  text=True, timeout=300)
            self.assertEqual(conv.returncode, 0, conv.stderr)
            trace = back
        self.trace = trace
        events, locs = trace_to_events(load_trace(trace))
        remarks = ['# ' + line for line in out.stderr.splitlines()]
        with open(log) as f:
            expects = [json.loads(line) for line in f]
        return events, remarks, locs, expects

    def test_debian_python(self):
        """Every case, numpy, h5py, torch.load and DataLoader workers included."""
        python = self.debian_python()
        events, remarks, locs, expects = self.run_cases(python, ALL_CASES)
        self.assertFalse([r for r in remarks if 'python stacks:' in r], remarks)
        self.check_cases(events, expects, locs, ALL_CASES)
        self.assertFalse([r for r in remarks if 'lost' in r], remarks)

    def run_bare(self, argv):
        trace = os.path.join(self.dir, 'bare.json')
        out = subprocess.run([DLTRACE, '--python-stacks=full', '-o', trace, '--'] + argv,
                             capture_output=True, text=True, timeout=300)
        self.assertEqual(out.returncode, 0, out.stderr[-3000:])
        return ['# ' + line for line in out.stderr.splitlines()]

    def check_cases(self, events, expects, locs, cases):
        super().check_cases(events, expects, locs, cases)
        self.check_report(events, expects)

    def check_report(self, events, expects):
        """The report's Python locations: every syscall with a location counted once, and
        the counts case's two lines exactly."""
        out = subprocess.run([DLTRACE, 'report', '--json', '--top', '1000000', self.trace],
                             capture_output=True, text=True, timeout=300)
        self.assertEqual(out.returncode, 0, out.stderr)
        py = json.loads(out.stdout)['python']
        with_py = [e for e in events if e['app']]
        self.assertEqual(py['calls'], len(with_py))
        self.assertEqual(py['count'], len({e['app'] for e in with_py}))
        self.assertEqual(sum(l['calls'] for l in py['locations']), len(with_py))
        by_loc = {l['location']: l for l in py['locations']}
        counts = [r for r in expects if r['case'] == 'counts']
        for rec in counts:
            l = by_loc['%s:%d %s' % (rec['file'], rec['line'], rec['func'])]
            self.assertEqual((l['calls'], l['failed'], l['reads'], l['read_bytes'], l['writes'],
                              l['write_bytes']),
                             (rec['count'], 0, rec['count'], rec['count'] * rec['size'], 0, 0),
                             l)

    def test_pyenv_313_pftrace(self):
        """pyenv's 3.13 (_Py_DebugOffsets) into a .pftrace, read back."""
        python = self.python_or_skip(13)
        events, remarks, locs, expects = self.run_cases(python, PLAIN_CASES, fmt='pftrace')
        self.assertFalse([r for r in remarks if 'python stacks:' in r], remarks)
        self.check_cases(events, expects, locs, PLAIN_CASES)

    def test_first_run_env_script(self):
        """A script run through "#!/usr/bin/env python3.12" (PATH), the interpreter's first
        run in this dltrace: its libpython is known before the exec, so the interpreter's
        very first Python frames (getpath's search at start-up) have stacks, and the
        script's own open has its line."""
        python = self.python_or_skip(12)
        script = os.path.join(self.dir, 'first_open.py')
        data = os.path.join(os.path.realpath(self.dir), 'first.bin')
        with open(data, 'wb') as f:
            f.write(b'x' * 100)
        with open(script, 'w') as f:
            f.write('#!/usr/bin/env python3.12\n'
                    'import os, sys\n'
                    'fd = os.open(sys.argv[1], os.O_RDONLY)\n'
                    'os.close(fd)\n')
        os.chmod(script, 0o755)
        trace = os.path.join(self.dir, 'first.json')
        env = dict(os.environ, PATH=os.path.dirname(python) + ':' + os.environ['PATH'])
        out = subprocess.run([DLTRACE, '--python-stacks=full', '-o', trace, '--', script, data],
                             capture_output=True, text=True, timeout=300, env=env)
        self.assertEqual(out.returncode, 0, out.stderr[-3000:])
        events, _ = trace_to_events(load_trace(trace))
        opens = [e for e in events if e['name'] == 'openat' and e['path'] == data]
        self.assertEqual(len(opens), 1, opens)
        self.assertEqual(opens[0]['app'], (os.path.realpath(script), 3, '<module>'),
                         opens[0]['frames'])
        pid = opens[0]['pid']
        first = [e for e in events if e['pid'] == pid and e['path'].endswith(('.py', '.pyc'))]
        self.assertTrue(first, 'no .py file looked at')
        self.assertEqual(first[0]['stack'], 'S', first[0])
        self.assertTrue(first[0]['frames'][0][0].startswith('<frozen '), first[0])

    def test_off(self):
        """Without --python-stacks: no py argument at all."""
        log = os.path.join(self.dir, 'expect.jsonl')
        data = os.path.realpath(os.path.join(self.dir, 'data'))
        os.makedirs(data)
        trace = os.path.join(self.dir, 'trace.json')
        out = subprocess.run([DLTRACE, '-o', trace, '--', self.debian_python(), CASES, log,
                              data, 'direct'], capture_output=True, text=True, timeout=300)
        self.assertEqual(out.returncode, 0, out.stderr)
        events, locs = trace_to_events(load_trace(trace))
        self.assertTrue([e for e in events if e['path'].startswith(data)])
        self.assertEqual({e['stack'] for e in events}, {'-'})

    def attach(self, python):
        """`dltrace --python-stacks=full --pid PID` on a Python process started before it:
        its reads after the attach carry their file:function:line (the interpreter is
        found in /proc/PID/maps at attach), and dltrace stops when it exits."""
        data = os.path.realpath(os.path.join(self.dir, 'attach'))
        os.makedirs(data)
        log = os.path.join(self.dir, 'attach.jsonl')
        self.trace = os.path.join(self.dir, 'trace.json')
        target = subprocess.Popen([python, CASES, log, data, 'attach'])
        try:
            self.assertTrue(wait_for(lambda: os.path.exists(os.path.join(data, 'ready'))),
                            'the Python process did not get ready')
            tracer = Tracer(['--python-stacks=full', '--pid', str(target.pid)],
                            self.trace).wait_ready()
            open(os.path.join(data, 'go'), 'w').close()
            self.assertEqual(target.wait(timeout=60), 0)
            self.assertEqual(tracer.wait(), 0, tracer.stderr)
        finally:
            target.kill()
        events = self.check_attached(tracer, log, target.pid)
        # nothing from before the attach: the ready file's open is not in the trace
        self.assertFalse([e for e in events if e['path'] == os.path.join(data, 'ready')])

    def test_cgroup_running_python(self):
        """`dltrace --python-stacks=full --cgroup CG` on a Python process that was in the
        cgroup's child cgroup before dltrace started: found at start (the cgroup's
        processes are read once), its reads after that carry their lines."""
        python = self.debian_python()
        cg = os.path.join(cgroup2_root(), 'dltrace-pystacks-%d' % os.getpid())
        child = os.path.join(cg, 'worker')
        os.makedirs(child)
        data = os.path.realpath(os.path.join(self.dir, 'attach'))
        os.makedirs(data)
        log = os.path.join(self.dir, 'attach.jsonl')
        self.trace = os.path.join(self.dir, 'trace.json')
        target = start_in_cgroup(child, [python, CASES, log, data, 'attach'])
        tracer = None
        try:
            self.assertTrue(wait_for(lambda: os.path.exists(os.path.join(data, 'ready'))),
                            'the Python process did not get ready')
            tracer = Tracer(['--python-stacks=full', '--cgroup', cg], self.trace).wait_ready()
            open(os.path.join(data, 'go'), 'w').close()
            self.assertEqual(target.wait(timeout=60), 0)
            self.assertTrue(remove_cgroup(child) and remove_cgroup(cg))
            self.assertEqual(tracer.wait(), 0, tracer.stderr)
        finally:
            target.kill()
            if tracer:
                tracer.stop()
            remove_cgroup(child)
            remove_cgroup(cg)
        self.check_attached(tracer, log, target.pid)

    def check_attached(self, tracer, log, pid):
        """A tracer started on a running Python process (the 'attach' case): no line about
        stacks, and every expectation of the process met in self.trace; its events."""
        self.assertFalse([l for l in tracer.stderr_lines if 'python stacks:' in l],
                         tracer.stderr)
        events, _ = trace_to_events(load_trace(self.trace))
        with open(log) as f:
            expects = [json.loads(line) for line in f]
        self.assertEqual({r['pid'] for r in expects}, {pid})
        self.check_expectations(events, expects, ['attach'])
        return events

    def test_findings_python_locations(self):
        """Each finding's evidence names the top 3 Python locations behind it: the small
        reads of the workload's four lines (1500, 1200, 300 and 10 calls: the fourth is
        cut), the random reads of its one backwards line (1199 calls)."""
        events, remarks, locs, expects = self.run_cases(self.debian_python(), ['findings'])
        self.check_expectations(events, expects, ['findings'])
        out = subprocess.run([DLTRACE, 'report', '--json', self.trace], capture_output=True,
                             text=True, timeout=300)
        self.assertEqual(out.returncode, 0, out.stderr)
        found = {f['id']: f for f in json.loads(out.stdout)['findings']}
        loc = ['%s:%d %s' % (r['file'], r['line'], r['func']) for r in expects]
        small = found['small_reads']
        self.assertEqual(small['python_by'], 'small reads')
        self.assertEqual([(l['location'], l['calls'], l['bytes'])
                          for l in small['python_locations']],
                         [(loc[0], 1500, 1500 * 100), (loc[1], 1200, 1200 * 200),
                          (loc[2], 300, 300 * 4096)])
        rand = found['random_reads']
        self.assertEqual(rand['python_by'], 'random reads')
        self.assertEqual([(l['location'], l['calls'], l['bytes'])
                          for l in rand['python_locations']], [(loc[1], 1199, 1199 * 200)])
        for f in found.values():  # every location behind a finding is one of the workload's
            self.assertTrue(set(l['location'] for l in f.get('python_locations', [])) <=
                            set(loc), f)
        html = os.path.join(self.dir, 'report.html')
        text = subprocess.run([DLTRACE, 'report', '--html', html, self.trace],
                              capture_output=True, text=True, timeout=300)
        self.assertEqual(text.returncode, 0, text.stderr)
        with open(html) as f:
            page = f.read()
        for out in (text.stdout, page):  # the terminal's and the page's evidence line
            out = ' '.join(out.split())  # the terminal wraps it
            for what, line, calls, amount in (('small reads', 0, '1,500', '146 KiB'),
                                              ('random reads', 1, '1,199', '234 KiB')):
                self.assertRegex(out, r'Python lines by %s: [^<]*?:%d case_findings '
                                 r'\(%s calls, %s\)' % (what, expects[line]['line'], calls,
                                                        re.escape(amount)))

    test_attach_pyenv_310 = test_attach_pyenv_311 = test_attach_pyenv_312 = None

    # pystack_check's own: not dltrace's options
    test_kernel_follows_exec_debian = test_kernel_follows_exec_pyenv = None
    test_pyenv_311 = test_pyenv_312 = test_pyenv_313 = None



class DaemonPythonStacks(TraceTest):
    """`python_stacks = full` in the daemon's configuration: a job's Python process that
    was running before the daemon started (found when the job's cgroup is found) and
    one started in the job afterwards both carry their lines in the job's trace."""

    def test_job_python_processes(self):
        from test_daemon import Daemon
        python = DEBIAN_PYTHON
        root = os.path.join(cgroup2_root(), 'dltrace-test-%d' % os.getpid())
        job = os.path.join(root, 'system.slice', 'slurmstepd.scope', 'job_1004')
        task = os.path.join(job, 'step_0', 'user', 'task_0')
        os.makedirs(task)
        os.chmod(self.dir, 0o755)
        data = os.path.realpath(os.path.join(self.dir, 'attach'))
        os.makedirs(data)
        log = os.path.join(self.dir, 'attach.jsonl')
        before = start_in_cgroup(task, [python, CASES, log, data, 'attach'])
        daemon = after = None
        try:
            self.assertTrue(wait_for(lambda: os.path.exists(os.path.join(data, 'ready'))),
                            'the Python process did not get ready')
            daemon = Daemon(self, python_stacks='full')
            self.assertTrue(wait_for(lambda: any(j['job'] == '1004'
                                                 for j in daemon.status()['jobs'])),
                            daemon.log())
            open(os.path.join(data, 'go'), 'w').close()
            self.assertEqual(before.wait(timeout=60), 0)
            # a process started in the job: its interpreter file is known by now
            later = os.path.realpath(os.path.join(self.dir, 'later'))
            os.makedirs(later)
            after = start_in_cgroup(task, [python, CASES, log, later, 'direct'])
            self.assertEqual(after.wait(timeout=60), 0)
            daemon.remove_job(job)
            trace, _ = daemon.job_files(1004, 'root')
            self.assertNotIn('python stacks:', daemon.log())
        finally:
            for p in (before, after):
                if p:
                    p.kill()
            if daemon:
                daemon.stop()
            for top, _, _ in os.walk(root, topdown=False):
                remove_cgroup(top)
        events, _ = trace_to_events(load_trace(trace))
        with open(log) as f:
            expects = [json.loads(line) for line in f]
        self.assertEqual({r['pid'] for r in expects}, {before.pid, after.pid})
        PythonStacks.check_expectations(self, events, expects, ['attach', 'direct'])
        full = [e for e in events if e['pid'] == after.pid and e['frames']]
        self.assertTrue(full)  # python_stacks = full: every frame too

if __name__ == '__main__':
    unittest.main()
