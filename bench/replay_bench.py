#!/usr/bin/env python3
"""dltrace replay, measured: how close its timing is to the job's, and how
close its predicted saving is to the saving of running the job both ways.

Timing fidelity (goal: within 10%): on one file system, warm cache, N
rounds of: the untraced job (its wall time, fork to exit), and the job
traced, then `dltrace replay --warm` of that trace (its wall_ns.replayed:
the replay's first process start to its last call's end), in an order that
alternates.  Each replay is of a run of its round, so that the machine's
load when the trace was taken weighs on both sides alike.  Think time is replayed as waiting: a job that keeps every CPU busy
cannot be matched, so each workload says how busy it keeps them.

Predicted against measured saving (goal: within 20%): the dataset on a
throttled loop disk (tests/throttled_disk.py, cgroup v1 blkio) and a copy on
a tmpfs.  Measured: the untraced job, cold, from the disk and from the
tmpfs copy, interleaved, N times each, in the throttled cgroup; the saving
is the difference of the medians.  Predicted: the job traced once from the
disk (cold), then N times `dltrace replay --cold --stage TMPFS` of it, in
the same cgroup, interleaved with the measured runs; its saving is the
recorded wall time less the replayed.  And the replay where the job ran
(cold, from the disk), which should take the recorded time.

Workloads: reader (tests/workloads/replay_reader.c: 64 KiB reads with
2 ms of sleep after each), reader-busy (the same compute as a busy loop:
one CPU), pytorch (examples/pytorch/train.py, 1 epoch, 2 workers: all CPUs).

Usage (root): bench/replay_bench.py [--reps N] [--quick] [--out FILE]
    [--workloads reader,reader-busy,pytorch]
Writes bench/results/replay.json (results_store), prints a table.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, 'tests'))
import results_store  # noqa: E402
from throttled_disk import ThrottledDisk  # noqa: E402

DLTRACE = os.path.join(ROOT, 'build', 'dltrace')
READER = os.path.join(ROOT, 'build', 'tests', 'replay_reader')
EXAMPLE = os.path.join(ROOT, 'examples', 'pytorch')
PYTHON = '/usr/bin/python3'
MIB = 1 << 20
FIDELITY_GOAL, SAVING_GOAL = 0.10, 0.20


def spread(values):
    return {'median': statistics.median(values), 'min': min(values), 'max': max(values),
            'values': values}


class Workload:
    """A job on a dataset directory: make_data(dir), argv(dir, scratch)."""

    def __init__(self, name, cpus, quick):
        self.name, self.cpus, self.quick = name, cpus, quick

    def make_data(self, d):
        if self.name == 'pytorch':
            n = '128' if self.quick else '256'
            subprocess.run([PYTHON, os.path.join(EXAMPLE, 'make_dataset.py'), d, '--npz', n,
                            '--h5', n], check=True, capture_output=True)
            return
        os.makedirs(d, exist_ok=True)
        for i in range(16 if self.quick else 32):
            with open(os.path.join(d, 'shard%02d.bin' % i), 'wb') as f:
                f.write(os.urandom(512 * 1024))

    def argv(self, d, scratch):
        if self.name == 'pytorch':
            return [PYTHON, os.path.join(EXAMPLE, 'train.py'), d, os.path.join(scratch, 'ck'),
                    '--epochs', '1', '--workers', '2']
        files = sorted(os.path.join(d, n) for n in os.listdir(d) if n.startswith('shard'))
        return [READER, '-b', '65536', '-g', '2000'] + (['-c'] if self.name == 'reader-busy'
                                                         else []) + files

    def files(self, d):
        out = []
        for dirpath, _, names in os.walk(d):
            out += [os.path.join(dirpath, n) for n in names]
        return out


def timed(argv, **kw):
    t = time.monotonic()
    res = subprocess.run(argv, capture_output=True, timeout=3600, **kw)
    if res.returncode:
        sys.exit('replay_bench: %s failed (%d): %s' % (' '.join(argv[:6]), res.returncode,
                                                       res.stderr.decode()[-2000:]))
    return time.monotonic() - t, res


def trace(argv, out, **kw):
    timed([DLTRACE, '-q', '-o', out, '--'] + argv, **kw)


def replay(args, **kw):
    _, res = timed([DLTRACE, 'replay', '--json', '-q'] + args, **kw)
    return json.loads(res.stdout)


def drop(files):
    for p in files:
        ThrottledDisk.drop_cached_pages(p)


def warm(files):
    for p in files:
        with open(p, 'rb') as f:
            while f.read(1 << 20):
                pass


def fidelity(w, reps, scratch):
    d = os.path.join(scratch, 'data-' + w.name)
    w.make_data(d)
    warm(w.files(d))
    job, rec, rep = [], [], []
    for r in range(reps):
        order = ('job', 'trace')
        for what in order[r % 2:] + order[:r % 2]:
            if what == 'job':
                job.append(timed(w.argv(d, scratch))[0])
                continue
            # a trace of this round's run, replayed at once
            t = os.path.join(scratch, 'trace-%s-%d.json' % (w.name, r))
            trace(w.argv(d, scratch), t)
            j = replay(['--warm', '--scratch', os.path.join(scratch, 'scr'), t])
            rec.append(j['wall_ns']['recorded'] / 1e9)
            rep.append(j['wall_ns']['replayed'] / 1e9)
            os.unlink(t)
        print('  %s fidelity %d/%d: job %.3f s, traced %.3f s, replay %.3f s'
              % (w.name, r + 1, reps, job[-1], rec[-1], rep[-1]), flush=True)
    ratio = statistics.median(rep) / statistics.median(job)
    return {'cpus_busy': w.cpus, 'job_s': spread(job), 'recorded_s': spread(rec),
            'replay_s': spread(rep), 'ratio': ratio,
            'within_goal': abs(ratio - 1) <= FIDELITY_GOAL}


def what_if(w, reps, scratch, read_bps):
    disk_dir = tempfile.mkdtemp(prefix='dltrace-bench-disk-',
                                dir=os.path.join(ROOT, 'build', 'bench'))
    tmpfs = os.path.join(scratch, 'tmpfs-' + w.name)
    os.makedirs(tmpfs, exist_ok=True)
    disk = ThrottledDisk(disk_dir, 256 * MIB, read_bps, 256 * MIB)
    subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=512m', 'tmpfs', tmpfs], check=True)
    try:
        slow_d, fast_d = disk.path('data'), os.path.join(tmpfs, 'data')
        w.make_data(slow_d)
        shutil.copytree(slow_d, fast_d)
        files = w.files(slow_d)
        t = os.path.join(scratch, 'trace-whatif-%s.json' % w.name)
        drop(files)
        trace(w.argv(slow_d, tmpfs), t, preexec_fn=disk.enter)
        slow, fast, predicted, in_place, rec = [], [], [], [], None
        stage = os.path.join(tmpfs, 'stage')
        for r in range(reps):
            order = ('slow', 'fast', 'staged', 'in-place')
            for what in order[r % 4:] + order[:r % 4]:
                if what == 'slow':
                    drop(files)
                    slow.append(timed(w.argv(slow_d, tmpfs), preexec_fn=disk.enter)[0])
                elif what == 'fast':
                    fast.append(timed(w.argv(fast_d, tmpfs), preexec_fn=disk.enter)[0])
                elif what == 'staged':
                    drop(files)
                    j = replay(['--cold', '--stage', stage, t], preexec_fn=disk.enter)
                    rec = j['wall_ns']['recorded'] / 1e9
                    predicted.append(j['wall_ns']['saving'] / 1e9)
                else:
                    # the replay where the job ran: it should take the recorded time
                    drop(files)
                    j = replay(['--cold', '--scratch', os.path.join(tmpfs, 'scr'), t],
                               preexec_fn=disk.enter)
                    in_place.append(j['wall_ns']['replayed'] / 1e9)
            print('  %s what-if %d/%d: disk %.3f s, tmpfs %.3f s, predicted saving %.3f s, '
                  'replayed on the disk %.3f s' % (w.name, r + 1, reps, slow[-1], fast[-1],
                                                   predicted[-1], in_place[-1]), flush=True)
        measured = statistics.median(slow) - statistics.median(fast)
        ratio = statistics.median(predicted) / measured if measured > 0 else None
        return {'read_bps': read_bps, 'recorded_s': rec, 'disk_s': spread(slow),
                'tmpfs_s': spread(fast), 'measured_saving_s': measured,
                'predicted_saving_s': spread(predicted), 'ratio': ratio,
                'replayed_on_disk_s': spread(in_place),
                'within_goal': ratio is not None and abs(ratio - 1) <= SAVING_GOAL}
    finally:
        subprocess.run(['umount', tmpfs], capture_output=True)
        disk.close()
        shutil.rmtree(disk_dir, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--reps', type=int, default=5)
    ap.add_argument('--quick', action='store_true', help='3 repetitions, smaller datasets')
    ap.add_argument('--workloads', default='reader,reader-busy,pytorch')
    ap.add_argument('--out', default=results_store.path('replay'))
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit('replay_bench: run as root (tracing, a loop disk, cgroups)')
    reps = 3 if args.quick else args.reps
    names = args.workloads.split(',')
    cpus = {'reader': 0, 'reader-busy': 1, 'pytorch': os.cpu_count()}
    os.makedirs(os.path.join(ROOT, 'build', 'bench'), exist_ok=True)
    scratch = tempfile.mkdtemp(prefix='dltrace-bench-replay-',
                               dir=os.path.join(ROOT, 'build', 'bench'))
    machine = results_store.describe_machine()
    out = {'config': {'reps': reps, 'quick': args.quick, 'fidelity_goal': FIDELITY_GOAL,
                      'saving_goal': SAVING_GOAL},
           'fidelity': {}, 'what_if': {}}
    start = time.monotonic()
    try:
        for n in names:
            out['fidelity'][n] = fidelity(Workload(n, cpus[n], args.quick), reps, scratch)
        for n in names:
            if n == 'reader-busy':
                continue  # the same I/O as reader: its fidelity is the point
            bps = 8 * MIB if n == 'reader' else MIB // 4
            out['what_if'][n] = what_if(Workload(n, cpus[n], args.quick), reps, scratch, bps)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    out['runtime_s'] = time.monotonic() - start
    machine['loadavg_at_end'] = list(os.getloadavg())
    out['machine'] = machine
    results_store.write(out, args.out)
    print('\nworkload      job (untraced)   replay        ratio')
    for n, f in out['fidelity'].items():
        print('%-12s %8.3f s     %8.3f s    %.3f%s' % (n, f['job_s']['median'],
                                                      f['replay_s']['median'], f['ratio'],
                                                      '' if f['within_goal'] else '  (outside)'))
    print('\nworkload      disk      tmpfs     measured   predicted  ratio')
    for n, x in out['what_if'].items():
        print('%-12s %7.3f s %7.3f s %8.3f s %8.3f s  %s' % (
            n, x['disk_s']['median'], x['tmpfs_s']['median'], x['measured_saving_s'],
            x['predicted_saving_s']['median'],
            '-' if x['ratio'] is None else '%.3f' % x['ratio']))
    print('wrote %s' % args.out)


if __name__ == '__main__':
    main()
