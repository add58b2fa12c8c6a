"""The kernel's cache of directory paths (bpf/path_walk.bpf.h, dl_dirs) is
never served stale: a traced job opens and stats files in a directory it has
met before, after another, untraced process has renamed a directory above it,
moved the mount it lies under, or after the job itself changed its root.

The job (JOB below) reads one command per line on its standard input and
answers "ok" once it has run it, so each change is made between two calls
whose order is known."""
import os
import subprocess

from dltrace_harness import DLTRACE, PYTHON, TraceTest, load_trace

# open P: os.open + os.read(1) + os.close; stat P: os.stat; chroot D: os.chroot + chdir /
JOB = r'''
import os, sys
os.chdir(sys.argv[1])
for line in sys.stdin:
    verb, arg = line.split(None, 1)
    arg = arg.rstrip('\n')
    if verb == 'open':
        fd = os.open(arg, os.O_RDONLY)
        os.read(fd, 1)
        os.close(fd)
    elif verb == 'stat':
        os.stat(arg)
    elif verb == 'chroot':
        os.chroot(arg)
        os.chdir('/')
    print('ok', flush=True)
'''


class PathCacheTest(TraceTest):
    def make_file(self, *names):
        p = self.path(*names)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, 'w') as f:
            f.write('x')
        return p

    def run_job(self, cwd, steps):
        """Trace JOB with its cwd at cwd; steps: a command line for the job, or a callable
        run between two of its calls.  Returns [(syscall, path)] of its openat and
        newfstatat calls on the scratch directory's files (the chroot's paths included),
        in order."""
        out = self.path('trace.json')
        proc = subprocess.Popen([DLTRACE, '-q', '-o', out, '--', PYTHON, '-c', JOB, cwd],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            for step in steps:
                if callable(step):
                    step()
                    continue
                proc.stdin.write(step + '\n')
                proc.stdin.flush()
                self.assertEqual(proc.stdout.readline(), 'ok\n', step)
        finally:
            proc.stdin.close()
            status = proc.wait(120)
            proc.stdout.close()
        self.assertEqual(status, 0)
        events = [e for e in load_trace(out) if e.get('ph') == 'X' and
                  e['name'] in ('openat', 'newfstatat') and
                  os.path.basename(e['args'].get('path', '')) in ('f', 'g')]
        events.sort(key=lambda e: e['ts'])
        return [(e['name'], e['args']['path']) for e in events]

    def test_rename_of_a_directory_above(self):
        """The grandparent of the file is renamed by another process between the opens."""
        self.make_file('a', 'b', 'c', 'f')
        a, moved = self.path('a'), self.path('A')
        old, new = self.path('a', 'b', 'c', 'f'), self.path('A', 'b', 'c', 'f')
        calls = self.run_job(self.path('a', 'b', 'c'), [
            'open ' + old, 'open ' + old, 'open f', 'stat f',
            lambda: os.rename(a, moved),
            'open ' + new, 'open f', 'stat f', 'stat ' + new,
            lambda: os.rename(moved, a),
            'open f', 'open ' + old])
        self.assertEqual(calls, [('openat', old)] * 3 + [('newfstatat', old)] +
                         [('openat', new)] * 2 + [('newfstatat', new)] * 2 +
                         [('openat', old)] * 2)

    def test_rename_of_the_directory_itself(self):
        """The file's own directory is renamed and another one takes its name."""
        self.make_file('d', 'e', 'f')
        d, e, e2 = self.path('d'), self.path('d', 'e'), self.path('d', 'e2')
        calls = self.run_job(self.dir, [
            'open d/e/f', 'open d/e/f',
            lambda: os.rename(e, e2),
            lambda: self.make_file('d', 'e', 'f'),
            'open d/e/f', 'open d/e2/f', 'open d/e/f'])
        self.assertEqual(calls, [('openat', os.path.join(e, 'f'))] * 2 + [
            ('openat', os.path.join(e, 'f')), ('openat', os.path.join(e2, 'f')),
            ('openat', os.path.join(e, 'f'))])
        self.assertTrue(os.path.isdir(d))

    def test_bind_mount_moved_without_a_rename(self):
        """The same directory under a bind mount that is unmounted and made again elsewhere:
        the same dentries, another mount point, and no rename on the machine."""
        self.make_file('src', 's', 'f')
        m1, m2 = self.path('m1'), self.path('m2')
        os.makedirs(m1)
        os.makedirs(m2)
        mounted = []

        def bind(where):
            subprocess.run(['mount', '--bind', self.path('src'), where], check=True)
            mounted.append(where)

        def unbind():
            subprocess.run(['umount', mounted.pop()], check=True)

        try:
            bind(m1)
            calls = self.run_job(self.dir, [
                'open m1/s/f', 'open m1/s/f', unbind, lambda: bind(m2),
                'open m2/s/f', 'open src/s/f', 'open m2/s/f'])
        finally:
            while mounted:
                unbind()
        self.assertEqual(calls, [('openat', os.path.join(m1, 's', 'f'))] * 2 + [
            ('openat', os.path.join(m2, 's', 'f')),
            ('openat', self.path('src', 's', 'f')),
            ('openat', os.path.join(m2, 's', 'f'))])

    def test_the_same_directory_seen_from_a_new_root(self):
        """After chroot, the directory met before is named from the new root."""
        self.make_file('r', 's', 'f')
        calls = self.run_job(self.dir, [
            'open r/s/f', 'open r/s/f', 'chroot ' + self.path('r'),
            'open /s/f', 'open s/f', 'stat /s/f'])
        self.assertEqual(calls, [('openat', self.path('r', 's', 'f'))] * 2 +
                         [('openat', '/s/f')] * 2 + [('newfstatat', '/s/f')])
