"""The docs' lists of syscalls are the table's (bpf/syscalls.def).

The man page lists the syscalls by category, with their count, between two
marker lines that `make syscall-docs` fills (tools/syscall_docs.py, from
`dltrace --list-syscalls=man`); a markdown doc may hold the table of
`dltrace --list-syscalls=markdown` the same way.  Each list must name every
syscall of `dltrace --list-syscalls` once, in its category, and no other.
Needs no root: nothing is traced.
"""
import glob
import os
import re
import subprocess
import sys
import unittest
from collections import OrderedDict

from dltrace_harness import DLTRACE, ROOT

sys.path.insert(0, os.path.join(ROOT, 'tools'))
import syscall_docs  # noqa: E402

CATEGORIES = ('data', 'metadata', 'sync', 'hint')


def run(*args):
    return subprocess.run([DLTRACE] + list(args), capture_output=True, text=True, check=True).stdout


def table():
    """{category: [names, in the table's order]} of `dltrace --list-syscalls`."""
    by_cat = OrderedDict((c, []) for c in CATEGORIES)
    for line in run('--list-syscalls').splitlines():
        name, category = line.split()[:2]
        by_cat[category].append(name)
    return by_cat


def man_list(text):
    """(count, {category: names}) of a man page's list."""
    first, last = syscall_docs.region(text, 'man')
    lines = text.splitlines()[first:last]
    count = int(re.fullmatch(r'The (\d+) syscalls, by category:', lines[0]).group(1))
    by_cat, cat = OrderedDict(), None
    for line in lines[1:]:
        if line == '.TP':
            cat = None
        elif line.startswith('.B '):
            cat = line[3:]
            by_cat[cat] = []
        else:
            by_cat[cat] += [n for n in re.split(r'[,.]\s*', line) if n]
    return count, by_cat


def markdown_list(text):
    """{category: names} of a markdown table of categories."""
    by_cat = OrderedDict()
    for line in text.splitlines()[2:]:
        cat, names = re.fullmatch(r'\| `(\w+)` \| (.*) \|', line).groups()
        by_cat[cat] = names.split(', ')
    return by_cat


class SyscallDocsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.table = table()
        cls.count = sum(len(v) for v in cls.table.values())

    def test_the_table(self):
        """Each syscall once, in one of the four categories (test_syscall_capture: which)."""
        names = [n for v in self.table.values() for n in v]
        self.assertEqual(len(names), len(set(names)))
        self.assertEqual(list(self.table), list(CATEGORIES))
        self.assertTrue(all(self.table.values()), self.table)

    def test_man_page_list(self):
        with open(os.path.join(ROOT, 'man', 'dltrace.8')) as f:
            text = f.read()
        count, by_cat = man_list(text)
        self.assertEqual(count, self.count)
        self.assertEqual(by_cat, self.table)
        # what make syscall-docs writes: it would change nothing
        self.assertEqual(syscall_docs.update(text, 'man', run('--list-syscalls=man')), text)

    def test_markdown_list(self):
        """The docs' table: --list-syscalls=markdown, and each doc that holds it."""
        out = run('--list-syscalls=markdown')
        self.assertEqual(out.splitlines()[:2], ['| category | syscalls |', '| --- | --- |'])
        self.assertEqual(markdown_list(out), self.table)
        docs = [p for p in [os.path.join(ROOT, 'README.md')] +
                sorted(glob.glob(os.path.join(ROOT, 'docs', '**', '*.md'), recursive=True))
                if os.path.exists(p)]
        for path in docs:
            with open(path) as f:
                text = f.read()
            if syscall_docs.region(text, 'markdown') is not None:
                self.assertEqual(syscall_docs.update(text, 'markdown', out), text, path)

    def test_a_format_it_does_not_know(self):
        res = subprocess.run([DLTRACE, '--list-syscalls=html'], capture_output=True, text=True)
        self.assertEqual(res.returncode, 2)
        self.assertIn('--list-syscalls=html: FORMAT is man or markdown', res.stderr)
        self.assertEqual(res.stdout, '')


if __name__ == '__main__':
    unittest.main()
