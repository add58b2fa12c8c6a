"""The replay: user-space cost per event, counted in instructions.

For a workload, dltrace traces it once with --save-records (the kernel's raw
ring records); build/bench/replay then feeds those records through the
decoder and one consumer, with no kernel involved, under
`valgrind --tool=callgrind`, which counts the instructions of
replay_records() the same on a loaded or an idle machine.  Modes: json (the
Chrome writer), gz (the same, gzip level 1), pftrace and pftrace.gz (the
.pftrace writer; gzip level 5), report (the report's accumulators beside
the JSON writer, as `--report` runs them) and summary (the accumulators
alone, as `--summary-only` runs them).
"""
import os
import re
import subprocess
import tempfile

MODES = ('json', 'gz', 'pftrace', 'pftrace.gz', 'report', 'summary')


def record(dltrace, argv, records, env=None):
    """Trace argv once, saving the kernel's records; returns the trace's event count."""
    with tempfile.TemporaryDirectory(prefix='dltrace-replay-') as tmp:
        trace = os.path.join(tmp, 't.json')
        res = subprocess.run([dltrace, '-q', '-o', trace, '--save-records', records, '--'] +
                             argv, capture_output=True, text=True, env=env)
        if res.returncode != 0:
            raise RuntimeError('recording failed: %s' % res.stderr[-500:])
        with open(trace, 'rb') as f:
            f.seek(max(0, os.path.getsize(trace) - 4096))
            m = re.search(rb'"events":(\d+)', f.read())
        return int(m.group(1)) if m else None


def instructions(replay, mode, records):
    """Instructions of replay_records() per event, and the events, for one mode."""
    with tempfile.TemporaryDirectory(prefix='dltrace-callgrind-') as tmp:
        out = os.path.join(tmp, 'callgrind.out')
        res = subprocess.run(['valgrind', '--tool=callgrind', '--toggle-collect=replay_records',
                              '--callgrind-out-file=' + out, replay, mode, records],
                             capture_output=True, text=True)
        if res.returncode != 0:
            raise RuntimeError('callgrind failed: %s' % res.stderr[-500:])
        events = int(re.search(r'events (\d+)', res.stdout).group(1))
        with open(out) as f:
            total = int(re.search(r'^summary: (\d+)', f.read(), re.M).group(1))
    return {'events': events, 'instructions': total, 'per_event': total / events}


def replay_costs(replays, records_by_workload, log):
    """{workload: {build: {mode: {...}}}} for each replay binary (build name -> path)."""
    out = {}
    for work, records in records_by_workload.items():
        out[work] = {}
        for build, replay in replays.items():
            out[work][build] = {}
            for mode in MODES:
                try:
                    r = instructions(replay, mode, records)
                except RuntimeError as e:  # a base build without the mode
                    log('  replay %-8s %-8s %-10s not measured: %s' % (work, build, mode, e))
                    continue
                out[work][build][mode] = r
                log('  replay %-8s %-8s %-10s %8.0f instructions/event (%d events)' %
                    (work, build, mode, r['per_event'], r['events']))
    return out
