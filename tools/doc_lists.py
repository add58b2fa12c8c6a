#!/usr/bin/env python3
"""The lists the documents take from dltrace's own tables, made from what
dltrace prints of them: the findings' rules (`dltrace report --list-findings`,
user/report/report_findings.c) and the capture layers (`dltrace
--list-layers`, user/probe/probe_layers.c).

Each list sits in a document between two marks, `<!-- begin NAME -->` and
`<!-- end NAME -->` in markdown, `.\\" begin NAME` and `.\\" end NAME` in the
man page; this script rewrites what is between them.

Usage: tools/doc_lists.py [--check]   (build/dltrace, or $DLTRACE_BIN)
--check: write nothing; exit 1 and name the lists that differ.
tests/unit/test_doc_lists.py runs the same check.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DLTRACE = os.environ.get('DLTRACE_BIN', os.path.join(ROOT, 'build', 'dltrace'))


def rows(*args):
    """The tab-separated lines dltrace prints for args."""
    res = subprocess.run([DLTRACE] + list(args), capture_output=True, text=True, timeout=60)
    if res.returncode:
        raise RuntimeError('dltrace %s: %s' % (' '.join(args), res.stderr.strip()))
    return [line.split('\t') for line in res.stdout.splitlines() if line]


def man_escape(text):
    """Text as a man page line: the dashes of options escaped, no line starting with a dot."""
    text = text.replace('\\', '\\e').replace('--', '\\-\\-')
    return '\\&' + text if text.startswith(('.', "'")) else text


def findings_markdown():
    out = ['| id | severity | fires when | needs |', '| --- | --- | --- | --- |']
    out += ['| `%s` | %s | %s | %s |' % tuple(r) for r in rows('report', '--list-findings')]
    return out


def findings_man():
    out = []
    for ident, severity, doc, needs in rows('report', '--list-findings'):
        out += ['.TP', '.B %s' % man_escape(ident),
                man_escape('(%s) %s.  Needs: %s.' % (severity, doc, needs))]
    return out


def layers_markdown():
    out = ['| layer | default | what it records | attached to | what it costs |',
           '| --- | --- | --- | --- | --- |']
    out += ['| `%s` | %s | %s | %s | %s |' % tuple(r) for r in rows('--list-layers')]
    return out


def layers_man():
    out = ['.RS']
    for name, default, records, attaches, cost in rows('--list-layers'):
        out += ['.TP', '.B %s' % man_escape(name),
                man_escape('(%s by default) %s.  Attached to: %s.  Cost: %s.' % (
                    default, records, attaches, cost))]
    return out + ['.RE']


# name -> (document, how the block is made)
LISTS = {
    'findings': ('docs/report.md', findings_markdown),
    'findings-man': ('man/dltrace.8', findings_man),
    'layers': ('docs/user-guide.md', layers_markdown),
    'layers-man': ('man/dltrace.8', layers_man),
}


def marks(path, name):
    if path.endswith('.md'):
        return '<!-- begin %s -->' % name, '<!-- end %s -->' % name
    return '.\\" begin %s' % name, '.\\" end %s' % name


def split(text, path, name):
    """(before, the block's lines, after) of a document; ValueError without the marks."""
    begin, end = marks(path, name)
    m = re.search(r'^%s\n(.*?)^%s$' % (re.escape(begin), re.escape(end)), text, re.M | re.S)
    if not m:
        raise ValueError('%s: no "%s" ... "%s"' % (path, begin, end))
    return text[:m.start(1)], m.group(1).splitlines(), text[m.end(1):]


def differences(write=False):
    """The lists whose block differs from what dltrace makes (rewritten when write)."""
    out = []
    for name, (doc, make) in LISTS.items():
        path = os.path.join(ROOT, doc)
        with open(path, encoding='utf-8') as f:
            text = f.read()
        before, block, after = split(text, doc, name)
        want = make()
        if block == want:
            continue
        out.append('%s: the list "%s"' % (doc, name))
        if write:
            with open(path, 'w', encoding='utf-8') as f:
                f.write(before + '\n'.join(want) + '\n' + after)
    return out


def main():
    check = sys.argv[1:] == ['--check']
    if sys.argv[1:] not in ([], ['--check']):
        sys.exit(__doc__)
    diff = differences(write=not check)
    for d in diff:
        print(('differs: ' if check else 'rewrote: ') + d)
    sys.exit(1 if check and diff else 0)


if __name__ == '__main__':
    main()
