"""PyTorch profiler (Kineto) traces for the tests: the three real ones of
tests/data/kineto read exactly, a copy of one rewritten with another
process's pid, tids and base time, constructed ones written in Kineto's
layout, and what `dltrace merge` must make of each event.

Times are exact: a Kineto ts is microseconds with nanosecond decimals, read
here as Decimal, so an event's wall clock is base + ts * 1000 to the ns."""
import gzip
import json
import os
import re
from collections import Counter
from decimal import Decimal

from dltrace_harness import load_trace

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data', 'kineto')
FIXTURES = ('rocm_minitoy_train.json.gz', 'cuda_triton_kernel.json.gz',
            'cpu_only_rank34.json.gz')
GPU_CATS = ('kernel', 'gpu_memcpy', 'gpu_memset', 'gpu_user_annotation')
TRACK_BASE = 0x50000000  # EV_GPU_TRACK_BASE: the tids of the tracks a merge adds


def fixture(name):
    return os.path.join(DATA, name)


def read_text(path):
    with open(path, 'rb') as f:
        data = f.read()
    if data[:2] == b'\x1f\x8b':
        data = gzip.decompress(data)
    return data.decode('utf-8')


def load(path):
    """The trace as JSON, numbers with a fraction as Decimal (exact)."""
    return json.loads(read_text(path), parse_float=Decimal)


def ns(us):
    """Microseconds (a Decimal or an int) as exact ns."""
    return int(Decimal(us) * 1000)


def wall(trace, ev):
    return trace['baseTimeNanoseconds'] + ns(ev['ts'])


def rewrite(src, dst, pids, tids, base_ns):
    """A copy of src whose "pid": P and "tid": T (numbers) are pids[P] and
    tids[T] where given, and whose baseTimeNanoseconds is base_ns; every
    other byte as it was."""
    text = read_text(src)

    def sub(key, table):
        def one(m):
            v = int(m.group(2))
            return '%s%d' % (m.group(1), table.get(v, v))
        return re.compile(r'("%s": )(\d+)(?=[,}\s])' % key).sub(one, text)

    text = sub('pid', pids)
    text = sub('tid', tids)
    text, n = re.subn(r'"baseTimeNanoseconds": \d+', '"baseTimeNanoseconds": %d' % base_ns,
                      text)
    assert n == 1, 'no baseTimeNanoseconds in %s' % src
    with open(dst, 'w', encoding='utf-8') as f:
        f.write(text)
    return dst


def write(path, events, base_ns, **members):
    """A constructed trace in Kineto's layout: members, traceEvents (one event a
    line), baseTimeNanoseconds last.  ts and dur are given in ns and written
    as microseconds with three decimals, as Kineto writes them."""
    def us(v):
        return Decimal(v) / 1000

    lines = []
    for e in events:
        if not isinstance(e, dict):  # an element that is not an event, as it is
            lines.append('  ' + json.dumps(e))
            continue
        e = dict(e)
        for key in ('ts', 'dur'):
            if key in e and isinstance(e[key], int):
                e[key] = '@%d@' % e[key]
        text = json.dumps(e)
        text = re.sub(r'"@(-?\d+)@"', lambda m: '%.3f' % us(int(m.group(1))), text)
        lines.append('  ' + text)
    head = ''.join('  %s: %s,\n' % (json.dumps(k), json.dumps(v)) for k, v in members.items())
    with open(path, 'w', encoding='utf-8') as f:
        f.write('{\n  "schemaVersion": 1,\n%s  "traceEvents": [\n%s\n  ],\n'
                '  "traceName": "%s",\n  "baseTimeNanoseconds": %d\n}\n'
                % (head, ',\n'.join(lines), os.path.basename(path), base_ns))
    return path


def gpu_pids(trace):
    """The pids of devices: labelled "GPU N", or with work on a GPU."""
    out = set()
    for e in trace['traceEvents']:
        if not isinstance(e.get('pid'), int):
            continue
        if e.get('ph') == 'M' and e.get('name') == 'process_labels' and \
                str(e.get('args', {}).get('labels', '')).startswith('GPU'):
            out.add(e['pid'])
        if e.get('ph') != 'M' and e.get('cat') in GPU_CATS:
            out.add(e['pid'])
    return out


def main_pid(trace):
    """The CPU process with most events (ties: the first seen)."""
    gpus, count, order = gpu_pids(trace), {}, []
    for e in trace['traceEvents']:
        pid = e.get('pid')
        if e.get('ph') == 'M' or not isinstance(pid, int) or pid in gpus:
            continue
        if pid not in count:
            order.append(pid)
        count[pid] = count.get(pid, 0) + 1
    return max(order, key=lambda p: (count[p], -order.index(p))) if order else None


def placed_args(ev):
    """The args a merged event carries for a Kineto event: its own, with the
    profiler's ids first on its own track; arrays, objects, null and
    decimals past three digits as their JSON text."""
    out = {}
    if not isinstance(ev.get('pid'), int):
        out['kineto_pid'] = ev['pid']
        out['kineto_tid'] = ev['tid']
    for k, v in ev.get('args', {}).items():
        if isinstance(v, Decimal) and -v.as_tuple().exponent > 3:
            v = '@text'
        elif isinstance(v, (list, dict)) or v is None:
            v = '@text'
        out[k] = v
    return out


def same_arg(want, got, orig):
    """A merged arg against what it must be (orig: the Kineto value)."""
    if want == '@text':
        # the JSON text as written: the same value once parsed
        return isinstance(got, str) and json.loads(got, parse_float=Decimal) == orig
    if isinstance(want, Decimal):
        return Decimal(got) == want
    return got == want


def read_merged(path):
    """A merged JSON trace's events, line by line, fractions as Decimal."""
    load_trace(path)  # Perfetto's rules
    out = []
    opener = gzip.open if open(path, 'rb').read(2) == b'\x1f\x8b' else open
    with opener(path, 'rt', encoding='utf-8') as f:
        for line in f:
            if line.startswith(('[{', ',{')):
                out.append(json.loads(line.rstrip('\n')[1:], parse_float=Decimal))
    return out


def names(events):
    """{(pid, tid): thread name}, {pid: process name}."""
    threads = {(e['pid'], e['tid']): e['args']['name'] for e in events
               if e['name'] == 'thread_name' and e['ph'] == 'M'}
    procs = {e['pid']: e['args']['name'] for e in events
             if e['name'] == 'process_name' and e['ph'] == 'M'}
    return threads, procs


def original(ev, key):
    """The value a merged arg came from: the profiler's arg, or its pid or tid."""
    if key in ('kineto_pid', 'kineto_tid'):
        return ev[key[7:]]
    return ev['args'][key]


FLOW_BIT = 1 << 63


def check_placed(test, trace, merged, origin, track, index):
    """Every event of the profiler trace (but its metadata) is in merged once,
    at base + ts - origin to the ns, on the track track(ev) gives, with its
    args; flows with the ids of the merge's rule.  Returns the merged
    events that came from it."""
    kinds = []
    want = Counter()
    for e in trace['traceEvents']:
        if e['ph'] == 'M':
            continue
        args = placed_args(e)
        pid, tid = track(e)
        x = {'name': e['name'], 'ph': e['ph'], 'ts_ns': wall(trace, e) - origin,
             'pid': pid, 'tid': tid}
        if e.get('cat'):
            x['cat'] = e['cat']
        if e['ph'] == 'X':
            x['dur_ns'] = ns(e['dur'])
        if e['ph'] in 'sf':
            if e['cat'] not in kinds:
                kinds.append(e['cat'])
            x['id'] = FLOW_BIT | index << 52 | kinds.index(e['cat']) << 44 | e['id']
        x['args'] = sorted(args)
        want[json.dumps(x, sort_keys=True, default=str)] += 1
        x['orig'] = e.get('args', {})
    got, mine = Counter(), []
    origs = {}
    for e in trace['traceEvents']:
        if e['ph'] != 'M':
            origs.setdefault((e['name'], e['ph'], wall(trace, e) - origin), []).append(e)
    for e in merged:
        key = (e['name'], e['ph'], ns(e['ts'])) if 'ts' in e else None
        if e['ph'] == 'M' or key not in origs:
            continue
        x = {'name': e['name'], 'ph': e['ph'], 'ts_ns': ns(e['ts']), 'pid': e['pid'],
             'tid': e['tid'], 'args': sorted(e['args'])}
        if 'cat' in e:
            x['cat'] = e['cat']
        if e['ph'] == 'X':
            x['dur_ns'] = ns(e['dur'])
        if e['ph'] in 'sf':
            x['id'] = e['id']
            test.assertEqual(e.get('bp'), 'e' if e['ph'] == 'f' else None)
        if e['ph'] == 'i':
            test.assertEqual(e['s'], 't')
        got[json.dumps(x, sort_keys=True, default=str)] += 1
        mine.append(e)
        # the values of its args: those of one profiler event of its name and time
        test.assertTrue(any(all(same_arg(placed_args(o)[k], v, original(o, k))
                                for k, v in e['args'].items())
                            for o in origs[key] if set(placed_args(o)) == set(e['args'])),
                        e)
    test.assertEqual(got, want)
    return mine
