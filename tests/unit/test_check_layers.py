"""Dependencies point one way: tools/check-layers, which `make` runs before it
links dltrace, passes on this tree and fails on a wrong-way include, an include
cycle, a call cycle between objects and a call into a BPF file of programs,
each planted in a copy of the tree or in a small tree of its own."""
import os
import shutil
import subprocess
import tempfile
import unittest

from dltrace_harness import BUILD, ROOT, runs_no_dltrace_code

TOOL = os.path.join(ROOT, 'tools', 'check-layers')
# The edges against the order that the tree had, and that the allowed list must not hold.
WRONG_WAY = [('decode', 'live'), ('live', 'cli'), ('report', 'format'),
             ('report', 'report/render'), ('merge', 'decode'), ('format/chrome', 'format'),
             ('format/perfetto', 'format')]


def run(*args):
    res = subprocess.run([TOOL] + list(args), capture_output=True, text=True)
    return res.returncode, res.stdout, res.stderr.splitlines()


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write(text)


def insert_line(path, n, text):
    """Make text line n of the file."""
    with open(path) as f:
        lines = f.readlines()
    lines.insert(n - 1, text + '\n')
    with open(path, 'w') as f:
        f.writelines(lines)


@runs_no_dltrace_code  # runs the checker script only: nothing for the sanitized run
class TreeTest(unittest.TestCase):
    def test_this_tree_passes(self):
        """The includes and the objects of this build: no fault, nothing said."""
        if not os.path.isdir(os.path.join(BUILD, 'obj', 'report')):
            self.fail('no objects in %s/obj: build dltrace first (make check does)' % BUILD)
        rc, out, err = run('--objects', os.path.join(BUILD, 'obj'), '--bpf-objects', BUILD)
        self.assertEqual((rc, err), (0, []))

    def test_allowed_list_has_none_of_the_old_wrong_way_edges(self):
        with open(os.path.join(ROOT, 'tools', 'layers.txt')) as f:
            edges = {tuple(line.split()[:2]) for line in f
                     if line.strip() and not line.startswith('#')}
        self.assertEqual(sorted(edges & set(WRONG_WAY)), [])


@runs_no_dltrace_code  # runs the checker script only: nothing for the sanitized run
class PlantedTest(unittest.TestCase):
    """A copy of the tree's sources (user/, bpf/) with one fault planted."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='dltrace-layers-')
        for d in ('user', 'bpf'):
            shutil.copytree(os.path.join(ROOT, d), os.path.join(self.tmp, d))
        os.mkdir(os.path.join(self.tmp, 'tools'))
        shutil.copy(os.path.join(ROOT, 'tools', 'layers.txt'), os.path.join(self.tmp, 'tools'))

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_copy_passes(self):
        self.assertEqual(run('--root', self.tmp), (0, '', []))

    def test_wrong_way_include(self):
        """The decoder including live/ again."""
        insert_line(os.path.join(self.tmp, 'user', 'decode', 'fd_table.c'), 3,
                    '#include "live/cgroup_lookup.h"')
        self.assertEqual(run('--root', self.tmp), (1, '', [
            'check-layers: user/decode/fd_table.c:3: decode -> live is not an allowed edge '
            '(tools/layers.txt): #include "live/cgroup_lookup.h"']))

    def test_include_cycle_between_headers(self):
        insert_line(os.path.join(self.tmp, 'user', 'lib', 'id_map.h'), 8,
                    '#include "lib/u64_index.h"')
        insert_line(os.path.join(self.tmp, 'user', 'lib', 'u64_index.h'), 8,
                    '#include "lib/id_map.h"')
        self.assertEqual(run('--root', self.tmp), (1, '', [
            'check-layers: include cycle: user/lib/id_map -> user/lib/u64_index -> user/lib/id_map',
            'check-layers:   user/lib/id_map.h:8 #include "lib/u64_index.h" (user/lib/u64_index.h)',
            'check-layers:   user/lib/u64_index.h:8 #include "lib/id_map.h" (user/lib/id_map.h)']))

    def test_include_cycle_through_the_c_files(self):
        """Each .c includes the other's header: no header cycle, but a file.c and its
        file.h are one node, so the two files use each other."""
        insert_line(os.path.join(self.tmp, 'user', 'lib', 'id_map.c'), 3,
                    '#include "lib/u64_index.h"')
        insert_line(os.path.join(self.tmp, 'user', 'lib', 'u64_index.c'), 3,
                    '#include "lib/id_map.h"')
        self.assertEqual(run('--root', self.tmp), (1, '', [
            'check-layers: include cycle: user/lib/id_map -> user/lib/u64_index -> user/lib/id_map',
            'check-layers:   user/lib/id_map.c:3 #include "lib/u64_index.h" (user/lib/u64_index.h)',
            'check-layers:   user/lib/u64_index.c:3 #include "lib/id_map.h" (user/lib/id_map.h)']))

    def test_allowed_edges_that_make_a_cycle(self):
        with open(os.path.join(self.tmp, 'tools', 'layers.txt'), 'a') as f:
            f.write('lib report a helper that reads the report\n')
        self.assertEqual(run('--root', self.tmp), (1, '', [
            'check-layers: tools/layers.txt: the allowed edges make a cycle of folders']))

    def test_edge_without_reason(self):
        with open(os.path.join(self.tmp, 'tools', 'layers.txt'), 'a') as f:
            f.write('lib bpf\n')
        rc, out, err = run('--root', self.tmp)
        self.assertEqual(rc, 1)
        self.assertRegex(err[0], r'^check-layers: .*tools/layers.txt:\d+: an edge needs a '
                         r'reason: "from to why"$')


@runs_no_dltrace_code  # runs the checker script only: nothing for the sanitized run
class SmallTreeTest(unittest.TestCase):
    """A tree of a few files, with objects compiled from them."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='dltrace-layers-')
        write(os.path.join(self.tmp, 'tools', 'layers.txt'),
              '# from to why\nreport lib the report uses the helpers\n')

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def compile(self, source, obj):
        os.makedirs(os.path.dirname(obj), exist_ok=True)
        subprocess.run(['cc', '-O2', '-c', source, '-o', obj], check=True)

    def user_objects(self, sources):
        """Each user/DIR/NAME.c as it is given, compiled to obj/DIR/NAME.o."""
        for rel, text in sources.items():
            src = os.path.join(self.tmp, 'user', rel)
            write(src, text)
            self.compile(src, os.path.join(self.tmp, 'obj', rel[:-2] + '.o'))
        return os.path.join(self.tmp, 'obj')

    def test_graph(self):
        write(os.path.join(self.tmp, 'user', 'lib', 'a.h'), 'int a(void);\n')
        write(os.path.join(self.tmp, 'user', 'report', 'b.c'), '#include "lib/a.h"\n')
        self.assertEqual(run('--root', self.tmp, '--graph'), (
            0, 'lib              -> (nothing of dltrace)\nreport           -> lib(1)\n', []))

    def test_call_cycle(self):
        """No include at all: the objects call each other."""
        obj = self.user_objects({
            'lib/a.c': 'int b(int);\nint a(int x) { return x ? b(x - 1) : 0; }\n',
            'lib/b.c': 'int a(int);\nint b(int x) { return x ? a(x - 1) : 1; }\n'})
        self.assertEqual(run('--root', self.tmp, '--objects', obj), (1, '', [
            'check-layers: call cycle: user/lib/a -> user/lib/b -> user/lib/a',
            'check-layers:   user/lib/a.c calls b (user/lib/b.c)',
            'check-layers:   user/lib/b.c calls a (user/lib/a.c)']))

    def test_wrong_way_call(self):
        """lib calls the report, through a declaration of its own."""
        obj = self.user_objects({'lib/a.c': 'int b(void);\nint a(void) { return b(); }\n',
                                 'report/b.c': 'int b(void) { return 1; }\n'})
        self.assertEqual(run('--root', self.tmp, '--objects', obj), (1, '', [
            'check-layers: user/lib/a.c: lib -> report is not an allowed edge '
            '(tools/layers.txt): calls b']))

    def test_call_into_a_bpf_file_of_programs(self):
        """A function defined beside a program (a section other than .text), called
        from another object."""
        build = os.path.join(self.tmp, 'build')
        for name, text in (('p', 'int f(int x) { return x + 1; }\n'
                                 '__attribute__((section("tp/x"))) int prog(int x) '
                                 '{ return f(x); }\n'),
                           ('q', 'int f(int);\n__attribute__((section("tp/y"))) '
                                 'int prog2(int x) { return f(x); }\n'),
                           ('r', 'int g(int x) { return x; }\n')):
            write(os.path.join(self.tmp, 'bpf', name + '.bpf.c'), text)
            self.compile(os.path.join(self.tmp, 'bpf', name + '.bpf.c'),
                         os.path.join(build, name + '.bpf.o'))
        self.assertEqual(run('--root', self.tmp, '--bpf-objects', build), (1, '', [
            'check-layers: bpf/q.bpf.c calls f of bpf/p.bpf.c, a file of programs: '
            'move it to a file of its own']))
        # the same function in an object with no programs: allowed
        write(os.path.join(self.tmp, 'bpf', 'p.bpf.c'), 'int f(int x) { return x + 1; }\n')
        self.compile(os.path.join(self.tmp, 'bpf', 'p.bpf.c'), os.path.join(build, 'p.bpf.o'))
        self.assertEqual(run('--root', self.tmp, '--bpf-objects', build), (0, '', []))


if __name__ == '__main__':
    unittest.main()
