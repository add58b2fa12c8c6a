"""The documents say what the code does: README.md, docs/*.md and the man page.

No root and no BPF: runnable as any user (python3 -m unittest tests/test_docs.py)
once build/dltrace is built, whose --help and --list-syscalls are the truth
the documents are checked against.

- every relative link and #anchor of the markdown resolves (GitHub's anchors);
- every repository path the documents name in `code` exists, and so does
  every section a comment cites as docs/FILE.md "Heading" (or README "Heading");
- the man page and --help (of dltrace and of each subcommand) name the same
  long options;
- the syscall counts and lists agree with dltrace --list-syscalls;
- no comment or document names an issue number, and no document a test count;
- the results block of docs/performance.md is what bench/results_table.py
  makes of bench/results/.
"""
import glob
import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from dltrace_harness import runs_no_dltrace_code  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DLTRACE = os.environ.get('DLTRACE_BIN', os.path.join(ROOT, 'build', 'dltrace'))
MAN = os.path.join(ROOT, 'man', 'dltrace.8')
MARKDOWN = [os.path.join(ROOT, 'README.md')] + sorted(glob.glob(os.path.join(ROOT, 'docs',
                                                                            '*.md')))
# Where code, comments and documents live (build outputs excluded).
SOURCE_DIRS = ('user', 'bpf', 'tests', 'tools', 'bench', 'docs', 'man', 'markers', 'python',
               'examples', 'packaging', '.ci')
SOURCE_FILES = ('README.md', 'Makefile')
# A path in `code` is a repository path when it starts with one of these.
TOP_DIRS = ('user', 'bpf', 'tests', 'tools', 'bench', 'docs', 'man', 'markers', 'python',
            'examples', 'packaging', 'vmlinux', '.ci')
USER_DIRS = tuple(d for d in os.listdir(os.path.join(ROOT, 'user'))
                  if os.path.isdir(os.path.join(ROOT, 'user', d)))
SUBCOMMANDS = ('top', 'report', 'merge', 'convert', 'replay', 'daemon', 'ctl')
# The man page's sections that document each command's options.
MAN_SECTIONS = {'': ('TARGETS', 'OPTIONS'), 'top': ('TARGETS', 'OPTIONS', 'TOP'),
                'report': ('REPORT',), 'merge': ('MERGE',), 'convert': ('CONVERT',),
                'replay': ('REPLAY',),
                'daemon': ('DAEMON',), 'ctl': ('CTL',)}


def read(path):
    with open(path, encoding='utf-8') as f:
        return f.read()


def rel(path):
    return os.path.relpath(path, ROOT)


def prose(text):
    """The lines of a markdown text outside fenced code blocks, with their numbers."""
    fenced = False
    for n, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith('```'):
            fenced = not fenced
            continue
        if not fenced:
            yield n, line


def slug(heading):
    """GitHub's anchor of a heading: lowercase, punctuation dropped, spaces to '-'."""
    text = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', heading.strip())  # a link's text
    text = text.lower()
    text = re.sub(r'[^\w\- ]', '', text)
    return text.replace(' ', '-')


def headings(text):
    return [m.group(2).strip() for _, line in prose(text)
            for m in [re.match(r'(#{1,6})\s+(.*?)\s*#*\s*$', line)] if m]


def anchors(text):
    """Every anchor of a markdown text: headings (-1, -2 for repeats) and <a id=...>."""
    seen, out = {}, set()
    for h in headings(text):
        s = slug(h)
        out.add(s if s not in seen else '%s-%d' % (s, seen[s]))
        seen[s] = seen.get(s, 0) + 1
    out.update(re.findall(r'<a\s+(?:id|name)="([^"]+)"', text))
    return out


def code_spans(line):
    return re.findall(r'`([^`]+)`', line)


def repo_paths(span):
    """Repository paths named in a code span: `user/event/event.h`, `tests/run_tests.py
    --strict`, `event/event_args.c` (a folder of user/)."""
    for token in span.split():
        token = token.strip('.,;:()"\'')
        first = token.split('/')[0]
        if '/' not in token or token.startswith(('/', 'build/', 'http')):
            continue
        if first in TOP_DIRS:
            yield token
        elif first in USER_DIRS:
            yield 'user/' + token


def generated(path):
    """A path under a directory of outputs that .gitignore names (examples/out/...):
    made by a command the document describes, not part of the repository."""
    dirs = [line.strip().strip('/') for line in read(os.path.join(ROOT, '.gitignore'))
            .splitlines() if line.startswith('/') and line.strip().endswith('/')]
    return any(path.startswith(d + '/') for d in dirs)


def exists(path):
    """A repository path exists (a glob must match something)."""
    full = os.path.join(ROOT, path)
    return bool(glob.glob(full)) if '*' in path else os.path.exists(full)


def source_files():
    """Every text file of the sources and documents."""
    for name in SOURCE_FILES:
        yield os.path.join(ROOT, name)
    for d in SOURCE_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, d)):
            dirnames[:] = [x for x in dirnames if x != '__pycache__']
            for f in filenames:
                path = os.path.join(dirpath, f)
                try:
                    with open(path, encoding='utf-8') as fh:
                        fh.read(4096)
                except (UnicodeDecodeError, OSError):
                    continue
                yield path


def man_text():
    """The man page with groff's escapes of '-' and zero-width marks removed."""
    return read(MAN).replace('\\-', '-').replace('\\&', '')


def man_sections():
    """{name: text} of the man page's .SH sections."""
    out, name = {}, None
    for line in man_text().splitlines():
        m = re.match(r'\.SH\s+"?([^"]+)"?', line)
        if m:
            name = m.group(1).strip()
            out[name] = []
        elif name:
            out[name].append(line)
    return {k: '\n'.join(v) for k, v in out.items()}


def man_options(sections):
    """Long options the man page documents in the given sections: those in a .TP
    item's heading line, and in the SYNOPSIS."""
    s = man_sections()
    opts = set()
    for name in sections:
        lines = s[name].splitlines()
        for i, line in enumerate(lines[:-1]):
            if line.startswith('.TP'):
                opts.update(re.findall(r'--([a-z][a-z0-9-]*)', lines[i + 1]))
    return opts


def dltrace(*args):
    if not os.access(DLTRACE, os.X_OK):
        raise AssertionError('%s is missing: build it with make (the documents are checked '
                             'against its --help and --list-syscalls)' % rel(DLTRACE))
    res = subprocess.run([DLTRACE] + list(args), capture_output=True, text=True, timeout=60)
    if res.returncode != 0:
        raise AssertionError('dltrace %s: exit status %d: %s' % (' '.join(args), res.returncode,
                                                                 res.stderr.strip()))
    return res.stdout


def help_options(cmd):
    """Long options of a command's --help: those that start its option lines (the
    main help's usage lines name other commands' options); ctl's help is only its
    usage lines, which are its options."""
    text = dltrace(*([cmd] if cmd else []), '--help')
    opts = {m.group(1) for line in text.splitlines()
            for m in [re.match(r'\s+(?:-[A-Za-z], )?--([a-z][a-z0-9-]*)', line)] if m}
    return opts or set(re.findall(r'(?<![\w-])--([a-z][a-z0-9-]*)', text))


def list_syscalls():
    """[(name, category, program)] of dltrace --list-syscalls."""
    rows = [line.split() for line in dltrace('--list-syscalls').splitlines() if line.strip()]
    return [(r[0], r[1], r[3]) for r in rows]


@runs_no_dltrace_code  # reads files only: nothing for the sanitized run
class Links(unittest.TestCase):
    def test_links_and_anchors_resolve(self):
        bad = []
        for md in MARKDOWN:
            text = read(md)
            for n, line in prose(text):
                line = re.sub(r'`[^`]*`', '', line)
                for target in re.findall(r'\]\(([^)\s]+)\)', line):
                    if re.match(r'[a-z]+:', target):
                        continue  # http:, https:, mailto:
                    path, _, anchor = target.partition('#')
                    dest = os.path.normpath(os.path.join(os.path.dirname(md), path)) \
                        if path else md
                    if not os.path.exists(dest):
                        bad.append('%s:%d: %s: no such file' % (rel(md), n, target))
                    elif anchor and anchor not in anchors(read(dest)):
                        bad.append('%s:%d: %s: no heading with that anchor in %s'
                                   % (rel(md), n, target, rel(dest)))
        self.assertEqual(bad, [])

    def test_slugs(self):
        """The anchors GitHub makes of this project's kinds of headings."""
        self.assertEqual(slug('JSON or .pftrace'), 'json-or-pftrace')
        self.assertEqual(slug("A daemon's job"), 'a-daemons-job')
        self.assertEqual(slug('Another kernel: make vm-test'), 'another-kernel-make-vm-test')
        self.assertEqual(slug('`make bench`'), 'make-bench')
        self.assertEqual(anchors('# a\n## a\n```\n# not a heading\n```\n### a\n'),
                         {'a', 'a-1', 'a-2'})


@runs_no_dltrace_code  # reads files only: nothing for the sanitized run
class Paths(unittest.TestCase):
    def test_paths_in_documents_exist(self):
        bad = []
        for md in MARKDOWN:
            for n, line in prose(read(md)):
                for span in code_spans(line):
                    bad += ['%s:%d: %s' % (rel(md), n, p) for p in repo_paths(span)
                            if not exists(p) and not generated(p)]
        self.assertEqual(bad, [])

    def test_paths_in_the_man_page_exist(self):
        text = man_text()
        named = set(re.findall(r'(?<![\w/.])((?:%s)/[\w./-]*\w)' % '|'.join(
            re.escape(d) for d in TOP_DIRS), text))
        self.assertTrue(named, 'the man page names no repository path: the pattern is wrong')
        self.assertEqual(sorted(p for p in named if not exists(p)), [])

    def test_cited_sections_exist(self):
        """A comment that cites docs/FILE.md "Heading" (or README "Heading") names a
        heading of that file; a docs/ file it names exists."""
        bad = []
        cite = re.compile(r'(README(?:\.md)?|docs/[\w.-]+\.md),?(?:[\s*#(]|//)*"([^"\n]+)"')
        for path in source_files():
            if path.endswith('.md') and os.path.dirname(path) in (ROOT, os.path.join(
                    ROOT, 'docs')):
                continue  # the documents themselves: links, checked above
            if os.path.samefile(path, __file__):
                continue  # its own docstring shows the form
            text = read(path)
            for doc in set(re.findall(r'\bdocs/[\w.-]+\.md', text)):
                if not exists(doc):
                    bad.append('%s: %s: no such document' % (rel(path), doc))
            for doc, heading in cite.findall(text):
                doc = 'README.md' if doc.startswith('README') else doc
                if exists(doc) and heading.strip() not in headings(read(os.path.join(ROOT,
                                                                                   doc))):
                    bad.append('%s: %s "%s": no such heading' % (rel(path), doc, heading))
        self.assertEqual(bad, [])


class ManPage(unittest.TestCase):
    def test_help_and_man_page_name_the_same_options(self):
        for cmd in ('',) + SUBCOMMANDS:
            with self.subTest(command='dltrace ' + cmd):
                helped = help_options(cmd)
                documented = man_options(MAN_SECTIONS[cmd])
                self.assertTrue(helped, 'dltrace %s --help names no option' % cmd)
                # -h, --help is every command's; the man page says it once, in OPTIONS
                self.assertIn('help', man_options(('OPTIONS',)))
                helped.discard('help')
                documented.discard('help')
                self.assertEqual(sorted(helped - documented), [],
                                 'in `dltrace %s --help`, not in the man page' % cmd)
                if cmd == 'top':
                    continue  # its help names a few: "every option of dltrace --help applies"
                self.assertEqual(sorted(documented - helped), [],
                                 'in the man page, not in `dltrace %s --help`' % cmd)

    def test_known_options(self):
        """The parsing itself, on options known to be there."""
        self.assertIn('python-stacks', help_options(''))
        self.assertIn('interval', help_options('top'))
        self.assertEqual(help_options('ctl'), {'socket', 'cgroup'})
        self.assertIn('summary-only', man_options(('OPTIONS',)))
        self.assertIn('socket', man_options(('CTL',)))


class Syscalls(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.listed = list_syscalls()
        cls.total = len(cls.listed)
        cls.by_category = {}
        for name, cat, _ in cls.listed:
            cls.by_category.setdefault(cat, set()).add(name)
        cls.shared = sum(1 for _, _, prog in cls.listed if prog == 'dl_enter_shared')

    def test_list(self):
        self.assertGreater(self.total, 0)
        self.assertEqual(sorted(self.by_category), ['data', 'hint', 'metadata', 'sync'])

    def counts(self, text):
        """The syscall counts a text states: 'N file syscalls', 'N in all'."""
        return [int(n.replace(',', '')) for n in re.findall(
            r'\b(\d[\d,]*) (?:file syscalls|in all)\b', text)]

    def test_counts_in_documents(self):
        for md in MARKDOWN:
            text = '\n'.join(line for _, line in prose(read(md)))
            for n in self.counts(text):
                self.assertEqual(n, self.total, '%s says %d syscalls' % (rel(md), n))
        self.assertIn(self.total, self.counts(read(os.path.join(ROOT, 'README.md'))))

    # the man page's and the user guide's lists: tests/unit/test_syscall_docs.py


@runs_no_dltrace_code  # reads files only: nothing for the sanitized run
class NoDriftingFacts(unittest.TestCase):
    def test_no_issue_numbers(self):
        """An issue number means nothing to a reader of the repository."""
        found = []
        for path in source_files():
            for n, line in enumerate(read(path).splitlines(), 1):
                if re.search(r'\bissues?\s+#?\d', line, re.I):
                    found.append('%s:%d: %s' % (rel(path), n, line.strip()[:100]))
        self.assertEqual(found, [])

    def test_no_test_counts(self):
        """The number of tests changes with every test: the documents do not state it."""
        found = ['%s:%d: %s' % (rel(md), n, line.strip())
                 for md in MARKDOWN for n, line in prose(read(md))
                 if re.search(r'\b\d[\d,]* tests\b', line)]
        self.assertEqual(found, [])

    @staticmethod
    def results_table():
        sys.path.insert(0, os.path.join(ROOT, 'bench'))
        try:
            import results_table
        finally:
            sys.path.pop(0)
        return results_table

    def test_results_table_renders_every_section(self):
        """What make bench writes that no committed result has yet: the decode
        replay, the sustained run, the report's scale, /metrics, Python stacks."""
        rt = self.results_table()

        def s(median, lo, hi):
            return {'median': median, 'min': lo, 'max': hi}
        bench = {
            'config': {'reps': 3, 'quick': True}, 'complete': True, 'runtime_s': 61.0,
            'decode_replay': {'micro-1t': {
                'this': {'json': {'per_event': 1742.4}, 'summary': {'per_event': 1400.0}},
                'wall': {'json': s(459, 376, 496), 'live': s(420, 358, 566)}}},
            'sustained': {'seconds': 30, 'output': '.json', 'workload_calls': 100,
                          'trace_preads': 90, 'lost_events': 10, 'stalled': False,
                          'dltrace_cpu_s': 15.0, 'rss_max_mib': 43.4},
            'report_scale': {'line': '10000000 events in 7.4 s'},
            'daemon_metrics': {'reps': 5, 'summary': {'off': {
                'idle_ns': s(5084, 4123, 7313), 'job_ns': s(8222, 3945, 10433),
                'cpu_ns_per_event': s(1100, 1090, 1209)}}}}
        lines = rt.bench_block(bench)
        self.assertEqual(lines[0], 'Run: 3 interleaved repetitions (quick sizes), complete, '
                         '61 s in all.')
        self.assertIn('| micro-1t | this | 1742 | - | - | - | - | 1400 | - | - |', lines)
        self.assertIn('| micro-1t | 459 [376-496] | 420 [358-566] |', lines)
        self.assertIn('Sustained (micro, 2 threads, 30 s, `.json`): 100 preads, 90 in the '
                      'trace, 10 counted lost, no stall; dltrace 0.50 cores, RSS at most '
                      '43.4 MiB.', lines)
        self.assertIn('Report scale: 10000000 events in 7.4 s', lines)
        self.assertIn('| off | 5084 [4123-7313] | 8222 [3945-10433] | 1100 [1090-1209] |',
                      lines)
        py = {'results': [{'python': '/usr/bin/python3', 'added_ns': 141.0,
                           'added_share': 0.27,
                           'wall_ns_per_pread': {'untraced': s(1, 1, 1), 'off': s(2, 2, 2),
                                                 'on': s(3, 3, 3)},
                           'bpf_ns_per_pread': {'off': s(523, 423, 606),
                                                'on': s(663, 593, 953)}}]}
        self.assertEqual(rt.python_stacks_block(py)[2], '| /usr/bin/python3 | 1 [1-1] | '
                         '2 [2-2] | 3 [3-3] | 523 [423-606] | 663 [593-953] | 141 (27%) |')
        self.assertEqual(rt.machine_line({'cpus': 2, 'loadavg_at_end': [11.66, 1, 1]}),
                         'Machine: 2 CPUs; load average 11.7 at the end.')

    def test_results_table_is_current(self):
        results_table = self.results_table()
        _, block, _ = results_table.split(read(results_table.DOC))
        self.assertIn('bench/results/bench.json', block)
        self.assertEqual(block, results_table.render(),
                         'docs/performance.md: the results block is not what '
                         'bench/results/ makes: run make docs-table')


if __name__ == '__main__':
    unittest.main()
