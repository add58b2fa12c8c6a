"""How exactly `dltrace merge` puts a PyTorch profiler trace on dltrace's
timeline, measured on this machine (as root): build/bench/clock_pairs marks
N instants, GAP_MS apart, both ways from the same clock readings (a dltrace
marker, and a Kineto-format event of its CLOCK_REALTIME reading), under
dltrace; the two traces are merged and each pair compared.

Usage: clock_alignment.py [--pairs N] [--gap-ms MS] [--out FILE]

Per pair (ns; positive: dltrace's copy is later):
  alignment  the marker's time minus the profiler event's time, in the merged
             trace: what a user sees between the two traces;
  mapping    the wall clock dltrace gives the process's own CLOCK_MONOTONIC
             readings (start_wall_ns + reading - start_mono_ns, the mean of
             the two) minus its CLOCK_REALTIME reading: the error of the one
             pair of readings dltrace takes at its start, and of any step of
             the wall clock since;
  probe      the marker's kernel timestamp minus the process's second
             CLOCK_MONOTONIC reading: the time from the readings to the uprobe.
Writes bench/results/clock-alignment.json (the latest run, with its machine).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from decimal import Decimal

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, 'bench'))
import results_store  # noqa: E402

DLTRACE = os.path.join(ROOT, 'build', 'dltrace')
MARKERS = os.path.join(ROOT, 'build', 'libdltrace_markers.so')
PAIRS = os.path.join(ROOT, 'build', 'bench', 'clock_pairs')


def events(path):
    """A dltrace trace's events, ts as exact ns."""
    out = []
    with open(path) as f:
        for line in f:
            if line.startswith(('[{', ',{')):
                e = json.loads(line[1:], parse_float=Decimal)
                if 'ts' in e:
                    e['ts_ns'] = int(Decimal(e['ts']) * 1000)
                out.append(e)
    return out


def stats(values):
    def num(v):
        return int(v) if v == int(v) else float(v)
    return {'min': num(min(values)), 'median': num(statistics.median(values)),
            'max': num(max(values)), 'max_abs': num(max(abs(v) for v in values))}


def measure(pairs, gap_ms):
    with tempfile.TemporaryDirectory() as tmp:
        trace, kineto, merged = (os.path.join(tmp, n) for n in
                                 ('trace.json', 'kineto.json', 'merged.json'))
        subprocess.run([DLTRACE, '-q', '--layers', 'syscall,markers', '--lib', MARKERS,
                        '-o', trace, '--', PAIRS, MARKERS, kineto, str(pairs), str(gap_ms)],
                       check=True, timeout=600)
        subprocess.run([DLTRACE, 'merge', '-q', trace, kineto, '-o', merged], check=True,
                       timeout=600)
        own = events(trace)
        head = own[0]['args']
        both = events(merged)
    probe_at = {e['args']['i']: e['ts_ns'] for e in own
                if e.get('name') == 'clock_pair' and e.get('cat') == 'marker'}
    marks = {e['args']['i']: e for e in both
             if e.get('name') == 'clock_pair' and e.get('cat') == 'marker'}
    prof = {e['args']['i']: e for e in both
            if e.get('name') == 'clock_pair' and e.get('cat') == 'cpu_instant_event'}
    if set(marks) != set(range(pairs)) or set(prof) != set(range(pairs)):
        sys.exit('clock_alignment: the merged trace has %d markers and %d profiler events '
                 'of %d pairs' % (len(marks), len(prof), pairs))
    align, mapping, probe, gap = [], [], [], []
    for i in range(pairs):
        a = marks[i]['args']
        align.append(marks[i]['ts_ns'] - prof[i]['ts_ns'])
        mono = Decimal(a['mono0'] + a['mono1']) / 2  # exact: a float has 256 ns steps here
        mapping.append(head['start_wall_ns'] + mono - head['start_mono_ns'] - a['wall'])
        probe.append(head['start_mono_ns'] + probe_at[i] - a['mono1'])
        gap.append(a['mono1'] - a['mono0'])
    return {'pairs': pairs, 'gap_ms': gap_ms, 'span_s': round((pairs - 1) * gap_ms / 1000, 3),
            'alignment_ns': stats(align), 'mapping_ns': stats(mapping),
            'probe_ns': stats(probe), 'read_gap_ns': stats(gap)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--pairs', type=int, default=600)
    ap.add_argument('--gap-ms', type=int, default=100)
    ap.add_argument('--out', default=results_store.path('clock-alignment'))
    args = ap.parse_args()
    res = {'machine': results_store.describe_machine()}
    res.update(measure(args.pairs, args.gap_ms))
    results_store.write(res, args.out)
    print(json.dumps({k: v for k, v in res.items() if k != 'machine'}, indent=1))


if __name__ == '__main__':
    main()
