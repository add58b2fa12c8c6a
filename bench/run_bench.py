"""make bench: dltrace's overhead against untraced runs, the kernel's floor
(empty BPF programs on the same hooks), strace, bpftrace and perf trace.

Usage (as root, after `make all bench-build`):
  run_bench.py [--quick] [--reps N] [--workloads a,b] [--conditions a,b]
               [--no-sustained] [--no-bpf-stats] [--no-hooks] [--keep-traces]
Prints the tables and writes bench/results/bench.json (--lifecycle-only:
bench/results/lifecycle.json), the machine and every run; `make docs-table`
puts them in docs/performance.md.  See docs/performance.md.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import time

import daemon_metrics_cost
import hdf5_layer_cost
import hook_options
import lifecycle
import measure
import probe_list
import results_store
import decode_replay_cost
import report
import tracers
import workloads

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STATS_RUNS = (('micro-1t', 'floor-min'), ('micro-1t', 'floor'), ('micro-1t', 'dltrace-json'),
              ('metadata', 'floor-min'), ('metadata', 'floor'),
              ('metadata', 'dltrace-json'), ('meta-calls', 'floor-min'), ('meta-calls', 'floor'),
              ('meta-calls', 'dltrace-json'), ('py-micro', 'floor'), ('py-micro', 'dltrace-json'),
              ('py-micro', 'dltrace-json-pystacks'), ('micro-1t', 'base-json'),
              ('metadata', 'base-json'), ('meta-calls', 'base-json'))
STALL_NS = 500 * 10**6  # no progress for this long counts as a stall
# job-cpu: the traced conditions whose BPF programs are timed, run by run, after the timings
JOB_CPU_STATS = ('dltrace-json', 'base-json')


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def measure_run(job, workload, condition, rep, stats=False):
    base = os.path.join(job.out_dir, 'trace-%s-%s' % (workload.name, condition.name))
    record = {'workload': workload.name, 'condition': condition.name, 'rep': rep,
              'loadavg': os.getloadavg()[0]}
    try:
        if hasattr(condition, 'for_workload'):
            condition.for_workload(job, workload)
        cpu0 = measure.cgroup_cpu_s(job.cgroup)
        r = condition.run(job, workload.argv(condition.slow), base, stats=stats)
        record['job_cpu_s'] = measure.cgroup_cpu_s(job.cgroup) - cpu0
        if r['status'] != 0:
            raise RuntimeError('exit status %s: %s' % (r['status'], r['stderr'][-500:]))
        record.update(workload.parse(r['lines']))
        # what the job's machine feels: the job's CPU (its BPF programs' time in it) and
        # the tracer's while the job ran, per epoch where the workload has epochs
        record['cpu_s'] = (record['job_cpu_s'] + (r.get('tracer_cpu_s') or 0)) / \
            record.get('units', 1)
        for key in ('wall_s', 'events', 'lost', 'lost_bytes', 'trace_bytes', 'rss_max_kib',
                    'programs', 'bpf', 'detach_wait_s', 'tracer_cpu_s'):
            if r.get(key) is not None:
                record[key] = r[key]
    except (RuntimeError, ValueError, KeyError, OSError, subprocess.SubprocessError) as e:
        record['error'] = str(e)
    finally:
        workload.after_run()
    unit = workload.metric_unit
    log('  %-10s %-13s %s' % (workload.name, condition.name,
                              record.get('error') or '%.3f %s' % (record['metric'], unit)))
    return record


def sustained_test(job, micro2, seconds):
    """Micro, 2 threads, `seconds` under dltrace's defaults; every pread accounted."""
    argv = micro2.sustained_argv(seconds)
    untraced = tracers.execute(job, job.in_cgroup(argv))
    base_rate = None
    if untraced[0] == 0:
        r = workloads.json_result(untraced[1])
        base_rate = r['calls'] / (r['elapsed_ns'] / 1e9)
    dl = tracers.Dltrace(False)
    trace_base = os.path.join(job.out_dir, 'trace-sustained')
    path_json = json.dumps(micro2.file)[1:-1]
    r = dl.run(job, argv, trace_base, count={'preads': ('pread64', '"path":"%s"' % path_json)})
    if r['status'] != 0 or 'events' not in r:
        raise RuntimeError('the sustained run failed: %s' % r['stderr'][-500:])
    w = workloads.json_result(r['lines'])
    elapsed = w['elapsed_ns'] / 1e9
    per_second = {}
    for t, kib in r['rss_samples']:
        per_second.setdefault(int(t), kib)
    preads = r['counts']['preads']
    return {
        'seconds': seconds, 'output': '.json', 'workload_calls': w['calls'],
        'calls_per_s': w['calls'] / elapsed, 'untraced_calls_per_s': base_rate,
        'per_second_calls': w['per_second'], 'slowest_second': min(w['per_second'][:seconds]),
        'trace_preads': preads, 'missing': w['calls'] - preads, 'trace_events': r['events'],
        'lost_events': r['lost'], 'lost_bytes': r['lost_bytes'],
        'events_per_s': r['events'] / elapsed, 'trace_bytes': r['trace_bytes'],
        'dltrace_cpu_s': r['tracer_cpu_s'],
        'dltrace_cpu_ns_per_event': r['tracer_cpu_s'] * 1e9 / r['events'],
        'max_gap_ms': w['max_gap_ns'] / 1e6, 'stalled': w['max_gap_ns'] > STALL_NS,
        'rss_max_mib': r['rss_max_kib'] / 1024,
        'rss_mib_per_second': [per_second[t] / 1024 for t in sorted(per_second)],
    }


def decode_replay_step(job, works, base, log):
    """Record micro-1t and pytorch once, then count instructions per event in the decode
    replay (bench/decode_replay.c)."""
    records = {}
    for w in works:
        if w.name not in ('micro-1t', 'pytorch'):
            continue
        path = os.path.join(job.out_dir, 'records-%s.bin' % w.name)
        log('decode replay: recording %s' % w.name)
        decode_replay_cost.record(os.path.join(job.build, 'dltrace'), w.argv(False), path,
                           env=job.env)
        records[w.name] = path
        w.after_run()
    replays = {'this': decode_replay_cost.binary(job.build)}
    if base:
        replays['base'] = decode_replay_cost.binary(os.path.join(base, 'build'))
    try:
        costs = decode_replay_cost.decode_replay_costs(replays, records, log)
        for work, path in records.items():  # --live against none, wall-clock
            costs[work]['wall'] = decode_replay_cost.wall_times(replays['this'], path)
            log('  decode replay %-8s wall ns/event: %s' % (work, ', '.join(
                '%s %.0f' % (m, v['median']) for m, v in costs[work]['wall'].items())))
        return costs
    finally:
        for path in records.values():
            os.unlink(path)


def report_scale(sizes):
    """`dltrace report` on a synthetic trace (bench/report_scale.py): time and memory."""
    n = sizes.get('report_events', 10000000)
    log('report scale: dltrace report on %d synthetic events' % n)
    res = subprocess.run([sys.executable, os.path.join(ROOT, 'bench', 'report_scale.py'),
                          '--events', str(n)], capture_output=True, text=True)
    line = (res.stdout.strip().splitlines() or [''])[-1]
    log('  ' + line)
    return {'events': n, 'status': res.returncode, 'line': line}


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--quick', action='store_true', help='fewer repetitions, smaller sizes')
    ap.add_argument('--reps', type=int, help='repetitions (default 5, quick 2)')
    ap.add_argument('--workloads', help='comma-separated subset of the workloads')
    ap.add_argument('--conditions', help='comma-separated subset of the conditions')
    ap.add_argument('--per-layer', action='store_true',
                    help='also the floor and dltrace .json of each capture layer on its own '
                    '(--layers syscall, syscall,mmap, ...): what each layer costs')
    ap.add_argument('--no-sustained', action='store_true')
    ap.add_argument('--no-bpf-stats', action='store_true')
    ap.add_argument('--no-report-scale', action='store_true')
    ap.add_argument('--no-daemon-metrics', action='store_true',
                    help='skip the daemon with /metrics off vs scraped every second')
    ap.add_argument('--keep-traces', action='store_true')
    ap.add_argument('--no-hooks', action='store_true',
                    help='skip the comparison of the ways to hook the metadata syscalls')
    ap.add_argument('--no-lifecycle', action='store_true',
                    help='skip the start-up and exit times (bench/lifecycle.py)')
    ap.add_argument('--floors-only', action='store_true',
                    help='the syscall workloads untraced, under both floors and dltrace .json, '
                    'with BPF run times, into bench/results/floors.json')
    ap.add_argument('--job-cpu-only', action='store_true',
                    help='the PyTorch example untraced, under the floor and each output format: '
                    'its CPU seconds per epoch (the job\'s and dltrace\'s) and dltrace\'s CPU '
                    'per event; then the BPF programs\' time per run of dltrace .json (and of '
                    '--base\'s), into bench/results/job-cpu.json')
    ap.add_argument('--decode-replay-only', action='store_true',
                    help='record micro-1t and the PyTorch example at make demo\'s size once, '
                    'then count the decode replay\'s instructions per event by mode and by '
                    'stage (callgrind), and time it, into bench/results/decode-replay.json')
    ap.add_argument('--counting-only', action='store_true',
                    help='micro (1 and 2 threads) and the metadata storm untraced, under '
                    'the floor and --summary-only with single events and with counts, '
                    'each also with the smallest ring (--ring-size 1: what each loses), '
                    'into bench/results/counting.json')
    ap.add_argument('--lifecycle-only', action='store_true',
                    help='only the start-up and exit times')
    ap.add_argument('--no-hdf5-layer', action='store_true',
                    help='skip the hdf5 layer per probe (bench/hdf5_layer_cost.py)')
    ap.add_argument('--no-decode-replay', action='store_true',
                    help='skip the instruction counts of the decode replay (callgrind)')
    ap.add_argument('--base', metavar='CHECKOUT',
                    help='another built checkout of dltrace to compare with: adds the '
                    'conditions base-json and base-gz and its decode replay')
    ap.add_argument('--out', default=os.path.join(ROOT, 'bench', 'out'))
    ap.add_argument('--results', help='where to write the results (default: '
                    'bench/results/bench.json, or lifecycle.json with --lifecycle-only)')
    args = ap.parse_args()
    if args.floors_only:
        # the workloads of single syscall kinds, and what their ratios need
        args.workloads = args.workloads or 'micro-1t,py-micro,metadata,meta-calls'
        args.conditions = args.conditions or ('untraced,floor,floor-min,dltrace-json' +
                                              (',base-json' if args.base else ''))
        for skip in ('sustained', 'hooks', 'lifecycle', 'decode_replay', 'hdf5_layer',
                     'report_scale', 'daemon_metrics'):
            setattr(args, 'no_' + skip, True)
    if args.job_cpu_only:
        args.workloads = args.workloads or 'pytorch'
        args.conditions = args.conditions or ('untraced,floor,dltrace-json,dltrace-pftrace,'
                                              'dltrace-gz,dltrace-pftrace-gz,dltrace-summary' +
                                              (',base-json' if args.base else ''))
        for skip in ('sustained', 'bpf_stats', 'hooks', 'lifecycle', 'decode_replay',
                     'hdf5_layer', 'report_scale', 'daemon_metrics'):
            setattr(args, 'no_' + skip, True)
    if args.counting_only:
        args.workloads = args.workloads or 'micro-1t,micro-2t,metadata'
        args.conditions = args.conditions or ('untraced,floor,dltrace-summary,'
                                              'dltrace-summary-counts,dltrace-summary-ring1,'
                                              'dltrace-summary-counts-ring1')
        for skip in ('sustained', 'hooks', 'lifecycle', 'decode_replay', 'hdf5_layer',
                     'report_scale', 'daemon_metrics'):
            setattr(args, 'no_' + skip, True)
    if args.decode_replay_only:
        args.workloads = args.workloads or 'micro-1t,pytorch'
        args.conditions = args.conditions or 'untraced'
    if not args.results:
        args.results = results_store.path('decode-replay' if args.decode_replay_only else
                                          'lifecycle' if args.lifecycle_only else
                                          'floors' if args.floors_only else
                                          'job-cpu' if args.job_cpu_only else
                                          'counting' if args.counting_only else 'bench')
    return args


def check_setup(lifecycle_only):
    if os.geteuid() != 0:
        sys.exit('run_bench.py: run as root (BPF programs, cgroups, bpf_stats)')
    need = ('dltrace', 'bench/first_instruction')
    if not lifecycle_only:
        need += ('bench/floor_loader', 'bench/floor_probes.bpf.o', 'bench/micro_pread')
    for path in need:
        if not os.path.exists(os.path.join(ROOT, 'build', path)):
            sys.exit('run_bench.py: build/%s is missing; run `make bench`' % path)


def pick(items, names, what):
    if not names:
        return items
    wanted = names.split(',')
    unknown = set(wanted) - {i.name for i in items}
    if unknown:
        sys.exit('run_bench.py: unknown %s: %s' % (what, ', '.join(sorted(unknown))))
    return [i for i in items if i.name in wanted]


def run(args, results):
    sizes = dict(workloads.QUICK if args.quick else workloads.FULL)
    if args.reps:
        sizes['reps'] = args.reps
    if args.lifecycle_only:
        os.makedirs(args.out, exist_ok=True)
        base = os.path.abspath(args.base) if args.base else None
        results['lifecycle'] = lifecycle.measure_all(ROOT, args.out, max(5, sizes['reps']), log,
                                                     base)
        return []
    if (args.job_cpu_only or args.decode_replay_only) and not args.quick:
        # make demo's dataset (examples/pytorch/make_dataset.py's defaults)
        sizes.update(pytorch_npz=5000, pytorch_h5=5000)
    results['config'] = dict(sizes, quick=args.quick)
    listed = probe_list.listed_syscalls(os.path.join(ROOT, 'build', 'dltrace'))
    syscalls = [(tp, name) for tp, name, _ in listed]
    os.makedirs(args.out, exist_ok=True)
    with measure.job_cgroup('dltrace-bench-%d' % os.getpid()) as cgroup:
        job = tracers.Job(ROOT, args.out, cgroup, syscalls, args.keep_traces)
        job.shared = [tp for tp, _, program in listed if program == 'dl_enter_shared']
        job.hooks, said = tracers.dltrace_hooks(job)
        results['dltrace_hooks'] = {'programs': job.hooks, 'dltrace_says': said}
        log('dltrace attaches %d programs here: %s' % (len(job.hooks), ' / '.join(said)))
        base = os.path.abspath(args.base) if args.base else None
        every = tracers.all_conditions(base) + (tracers.layer_conditions() if args.per_layer
                                                else [])
        conditions = pick(every, args.conditions, 'conditions')
        unavailable = {}
        for c in conditions:
            why = c.available(job)
            if why:
                unavailable[c.name] = why
                log('not measured: %s: %s' % (c.label, why))
        conditions = [c for c in conditions if c.name not in unavailable]
        results['unavailable'] = unavailable
        works = pick(workloads.all_workloads(job, sizes), args.workloads, 'workloads')
        log('preparing data in %s' % args.out)
        for w in works:
            w.prepare()
        if args.decode_replay_only:
            results['decode_replay'] = decode_replay_step(job, works, base, log)
            return works
        if measure.bpf_stats_on():
            log('warning: kernel.bpf_stats_enabled is already 1: BPF timings include it')
        runs = results['runs']
        for rep in range(sizes['reps']):
            log('repetition %d of %d' % (rep + 1, sizes['reps']))
            for w in works:
                k = rep % len(conditions)
                for c in conditions[k:] + conditions[:k]:
                    if getattr(c, 'only', None) and w.name not in c.only:
                        continue
                    if hasattr(c, 'for_workload') and not c.for_workload(job, w):
                        continue  # the minimal floor of a workload without a syscall list
                    runs.append(measure_run(job, w, c, rep))
        by_name = {c.name: c for c in conditions}
        if not args.no_bpf_stats:
            log('BPF program run times (kernel.bpf_stats_enabled=1)')
            with measure.bpf_stats():
                for wname, cname in STATS_RUNS:
                    w = next((w for w in works if w.name == wname), None)
                    if w and cname in by_name:
                        results['bpf_runs'].append(
                            measure_run(job, w, by_name[cname], 'bpf-stats', stats=True))
        stats_conds = [by_name[c] for c in JOB_CPU_STATS if c in by_name]
        if args.job_cpu_only and stats_conds:
            # interleaved as the timings are: the programs' time moves with the machine
            log('BPF program run times per run (kernel.bpf_stats_enabled=1), %d repetitions'
                % sizes['reps'])
            with measure.bpf_stats():
                for rep in range(sizes['reps']):
                    for w in works:
                        k = rep % len(stats_conds)
                        for c in stats_conds[k:] + stats_conds[:k]:
                            results['bpf_runs'].append(
                                measure_run(job, w, c, rep, stats=True))
        micro2 = next((w for w in works if w.name == 'micro-2t'), None)
        if not args.no_sustained and micro2:
            log('sustained: micro, 2 threads, %d s under dltrace' % sizes['sustained_s'])
            try:
                results['sustained'] = sustained_test(job, micro2, sizes['sustained_s'])
            except (RuntimeError, ValueError, KeyError, OSError) as e:
                results['sustained_error'] = str(e)
                log('sustained test failed: %s' % e)
        if not args.no_hooks:
            meta, other = (workloads.MetaCalls(job, sizes, o) for o in (False, True))
            meta.prepare()
            results['hooks'] = hook_options.measure_all(ROOT, meta, other, 2 * sizes['reps'],
                                                        log, base)
        if not args.no_lifecycle:
            log('lifecycle: start-up and exit')
            results['lifecycle'] = lifecycle.measure_all(ROOT, args.out, max(5, sizes['reps']),
                                                         log, base)
        if not args.no_decode_replay:
            results['decode_replay'] = decode_replay_step(job, works, base, log)
        if not args.no_hdf5_layer:
            log('hdf5 layer: an h5py job per probe, and untraced processes beside it')
            try:
                h5 = {'machine': results_store.describe_machine()}
                h5['hdf5_layer'] = hdf5_layer_cost.measure_all(
                    os.path.join(job.build, 'dltrace'), max(5, sizes['reps']),
                    sizes.get('hdf5_calls', 20000), log, base)
                results_store.write(h5, results_store.path('hdf5-layer'))
                results['hdf5_layer_table'] = hdf5_layer_cost.table(h5['hdf5_layer'])
            except (RuntimeError, OSError, subprocess.SubprocessError) as e:
                results['hdf5_layer_error'] = str(e)
                log('hdf5 layer step failed: %s' % e)
        if not args.no_report_scale:
            results['report_scale'] = report_scale(sizes)
        if not args.no_daemon_metrics:
            log('daemon: /metrics off vs on and scraped every second')
            try:
                results['daemon_metrics'] = daemon_metrics_cost.measure_all(
                    os.path.join(job.build, 'dltrace'), os.path.join(job.build, 'bench',
                                                                     'micro_pread'),
                    sizes['reps'], sizes['micro_calls'], log)
            except (RuntimeError, OSError, subprocess.SubprocessError) as e:
                results['daemon_metrics_error'] = str(e)
                log('daemon metrics step failed: %s' % e)
        results['summary'] = report.summarize(runs, works, conditions)
        results['bpf_stats'] = report.bpf_summary(
            [r for r in results['bpf_runs'] if 'error' not in r])
        return works


def main():
    args = parse_args()
    check_setup(args.lifecycle_only)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit('run_bench.py: terminated'))
    start = time.monotonic()
    results = {'machine': results_store.describe_machine(), 'runs': [], 'bpf_runs': [],
               'complete': False}
    try:
        works = run(args, results)
        results['complete'] = True
    finally:
        results['runtime_s'] = round(time.monotonic() - start, 1)
        results['machine']['loadavg_at_end'] = os.getloadavg()
        results_store.write(results, args.results)
    if args.lifecycle_only:
        print(lifecycle.table(results['lifecycle']))
        return
    if args.decode_replay_only:
        print(report.decode_replay_table(results['decode_replay']))
        return
    labels = {c.name: c.label for c in tracers.all_conditions(args.base or '.') +
              tracers.layer_conditions()}
    print(report.table(results['machine'], results['config'], results['summary'],
                       {w.name: w.title for w in works}, labels, results['bpf_stats'],
                       results.get('sustained'), results['unavailable']))
    if results.get('hooks'):
        print(hook_options.table(results['hooks']))
    if results.get('lifecycle'):
        print(lifecycle.table(results['lifecycle']))
    if results.get('decode_replay'):
        print(report.decode_replay_table(results['decode_replay']))
    if results.get('hdf5_layer_table'):
        print(results['hdf5_layer_table'])
    if 'sustained_error' in results:
        print('\nsustained test failed: %s' % results['sustained_error'])
    if results.get('report_scale'):
        print('\n' + results['report_scale']['line'])
    if results.get('daemon_metrics'):
        print(daemon_metrics_cost.table(results['daemon_metrics']))
    print('\nruntime %.0f s; results in %s' % (results['runtime_s'], args.results))


if __name__ == '__main__':
    main()
