"""Trace files in tests of both tiers: dltrace convert and report --json on
them, comparing them, and writing one as dltrace does."""
import collections
import json
import os
import subprocess
import sys

from dltrace_harness import DLTRACE, TESTS

sys.path.insert(0, os.path.join(TESTS, 'perfetto'))
import pftrace_decode  # noqa: E402


def convert(src, dst, *args):
    res = subprocess.run([DLTRACE, 'convert', '-q'] + list(args) + [src, dst],
                         capture_output=True)
    if res.returncode:
        raise AssertionError('dltrace convert %s %s failed: %s' % (src, dst, res.stderr.decode()))
    return res


def report_json(path):
    res = subprocess.run([DLTRACE, 'report', '--json', path], capture_output=True, check=True)
    rep = json.loads(res.stdout)
    for t in rep['traces']:  # the file's name is the one thing allowed to differ
        t['file'] = ''
        t['warnings'] = [w.replace(path, 'TRACE') for w in t['warnings']]
    return rep


def same_bytes(a, b):
    with open(a, 'rb') as fa, open(b, 'rb') as fb:
        return fa.read() == fb.read()


def differences(json_events, pftrace_path):
    """Events only in the JSON, only in the .pftrace (decoded by protoc), and the JSON's."""
    want = collections.Counter(pftrace_decode.canonical_json(json_events))
    got = collections.Counter(pftrace_decode.events(pftrace_path))
    return list((want - got).elements()), list((got - want).elements()), want


def json_lines(path, events):
    """A trace file as dltrace writes one: '[' + one event per line + ']'."""
    with open(path, 'w', encoding='utf-8', errors='surrogateescape') as f:
        f.write('[' + '\n,'.join(json.dumps(e, ensure_ascii=False) for e in events) + '\n]\n')
