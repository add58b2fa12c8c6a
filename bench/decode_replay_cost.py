"""The decode replay: user-space cost per event, counted in instructions.

For a workload, dltrace traces it once with --save-records (the kernel's raw
ring records); build/bench/decode_replay then feeds those records through the
decoder and one consumer, with no kernel involved, under
`valgrind --tool=callgrind`, which counts the instructions of
decode_replay_records() the same on a loaded or an idle machine.  ("Decode"
replay: `dltrace replay` is to replay a job's I/O.)  Modes: json (the
Chrome writer), gz (the same, gzip level 1), pftrace and pftrace.gz (the
.pftrace writer; gzip level 5), report (the report's accumulators beside
the JSON writer, as `--report` runs them), summary (the accumulators
alone, as `--summary-only` runs them), live (the live view's statistics
beside the JSON writer, as `--live` runs them, with a snapshot and a screen
every 131,072 events) and live-only (the live view without a trace file:
`dltrace top` without -o).

Wall-clock: the same decode replay without valgrind, the modes interleaved, REPS
times each; medians and ranges of ns per event.

Standalone: decode_replay_cost.py [--reps N] [--modes a,b] RECORDS...  (records saved
with `dltrace --save-records FILE -- ...`).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

MODES = ('json', 'gz', 'pftrace', 'pftrace.gz', 'report', 'summary', 'live', 'live-only')
WALL_MODES = ('json', 'live', 'live-only')


def record(dltrace, argv, records, env=None):
    """Trace argv once, saving the kernel's records; returns the trace's event count."""
    with tempfile.TemporaryDirectory(prefix='dltrace-decode-replay-') as tmp:
        trace = os.path.join(tmp, 't.json')
        res = subprocess.run([dltrace, '-q', '-o', trace, '--save-records', records, '--'] +
                             argv, capture_output=True, text=True, env=env)
        if res.returncode != 0:
            raise RuntimeError('recording failed: %s' % res.stderr[-500:])
        with open(trace, 'rb') as f:
            f.seek(max(0, os.path.getsize(trace) - 4096))
            m = re.search(rb'"events":(\d+)', f.read())
        return int(m.group(1)) if m else None


def measured_function(replay):
    """The function callgrind counts: builds before the rename call the binary
    `replay` and the function replay_records()."""
    return 'replay_records' if os.path.basename(replay) == 'replay' else 'decode_replay_records'


def binary(build_dir):
    """The decode replay binary of a build directory (an older build's `replay` too)."""
    for name in ('decode_replay', 'replay'):
        path = os.path.join(build_dir, 'bench', name)
        if os.path.exists(path):
            return path
    return os.path.join(build_dir, 'bench', 'decode_replay')


# Where a function's own instructions go: dltrace's by the folder of its source
# (user/ by stage), a library's by its object.
STAGES = (('decode', '/user/decode/'), ('decode', '/bpf/'), ('event args', '/user/event/'),
          ('report', '/user/report/'), ('live view', '/user/view/'),
          ('writer', '/user/format/'), ('writer', '/user/io/'), ('dltrace lib', '/user/lib/'),
          ('glue', '/user/'), ('glue', '/bench/'))
LIBRARIES = (('compression', 'libz.so'), ('compression', 'libdeflate'), ('libc', 'libc.so'))


def stage_of(source, obj):
    """source as callgrind_annotate prints it: relative to the working directory or not."""
    source = '/' + source
    for stage, mark in STAGES:
        if mark in source:
            return stage
    for stage, mark in LIBRARIES:
        if mark in obj or mark in source:
            return stage
    return 'other'


def stages(callgrind_out):
    """{stage: instructions} of the functions' own instructions (callgrind_annotate)."""
    res = subprocess.run(['callgrind_annotate', '--auto=no', '--threshold=100', callgrind_out],
                         capture_output=True, text=True, check=True)
    out = {}
    for m in re.finditer(r'^\s*([\d,]+) \([\s\d.]+%\)\s+(\S+):\S+(?: \[(\S+)\])?$',
                         res.stdout, re.M):
        if m.group(2) == 'PROGRAM':
            continue
        stage = stage_of(m.group(2), m.group(3) or '')
        out[stage] = out.get(stage, 0) + int(m.group(1).replace(',', ''))
    return out


def instructions(replay, mode, records):
    """Instructions of the measured function per event, the events, and the instructions
    per event by stage (the functions' own), for one mode."""
    with tempfile.TemporaryDirectory(prefix='dltrace-callgrind-') as tmp:
        out = os.path.join(tmp, 'callgrind.out')
        res = subprocess.run(['valgrind', '--tool=callgrind',
                              '--toggle-collect=' + measured_function(replay),
                              '--callgrind-out-file=' + out, replay, mode, records],
                             capture_output=True, text=True)
        if res.returncode != 0:
            raise RuntimeError('callgrind failed: %s' % res.stderr[-500:])
        events = int(re.search(r'events (\d+)', res.stdout).group(1))
        with open(out) as f:
            total = int(re.search(r'^summary: (\d+)', f.read(), re.M).group(1))
        by_stage = {k: v / events for k, v in stages(out).items()}
    return {'events': events, 'instructions': total, 'per_event': total / events,
            'stages_per_event': by_stage}


def decode_replay_costs(replays, records_by_workload, log):
    """{workload: {build: {mode: {...}}}} for each decode replay binary (build name -> path)."""
    out = {}
    for work, records in records_by_workload.items():
        out[work] = {}
        for build, replay in replays.items():
            out[work][build] = {}
            for mode in MODES:
                try:
                    r = instructions(replay, mode, records)
                except RuntimeError as e:  # a base build without the mode
                    log('  decode replay %-8s %-8s %-10s not measured: %s' %
                        (work, build, mode, e))
                    continue
                out[work][build][mode] = r
                log('  decode replay %-8s %-8s %-10s %8.0f instructions/event (%d events)' %
                    (work, build, mode, r['per_event'], r['events']))
    return out


def wall_times(replay, records, modes=WALL_MODES, reps=7):
    """{mode: {'median', 'min', 'max', 'runs'}} of ns per event, the modes interleaved."""
    runs = {m: [] for m in modes}
    for rep in range(reps):
        k = rep % len(modes)
        for mode in modes[k:] + modes[:k]:
            res = subprocess.run([replay, mode, records], capture_output=True, text=True,
                                 check=True)
            runs[mode].append(float(re.search(r'ns_per_event ([\d.]+)', res.stdout).group(1)))
    return {m: {'median': statistics.median(v), 'min': min(v), 'max': max(v), 'runs': v}
            for m, v in runs.items()}


def main():
    ap = argparse.ArgumentParser(
        description='instructions and wall-clock per event of the decode replay')
    ap.add_argument('--decode-replay', default=binary(os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), 'build')), help='the decode replay binary')
    ap.add_argument('--reps', type=int, default=7)
    ap.add_argument('--modes', default='json,live,live-only')
    ap.add_argument('records', nargs='+')
    args = ap.parse_args()
    modes = tuple(args.modes.split(','))
    for records in args.records:
        print('%s (load average %.1f)' % (os.path.basename(records), os.getloadavg()[0]))
        for mode in modes:
            r = instructions(args.decode_replay, mode, records)
            print('  %-9s %8.0f instructions/event (%d events)' % (mode, r['per_event'],
                                                                 r['events']))
        for mode, w in wall_times(args.decode_replay, records, modes, args.reps).items():
            print('  %-9s %8.1f ns/event wall, median of %d (%.1f-%.1f)' % (
                mode, w['median'], args.reps, w['min'], w['max']))
        sys.stdout.flush()


if __name__ == '__main__':
    main()
