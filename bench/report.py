"""Figures from the runs (medians, spread, overhead against untraced and the
floor) and the tables printed at the end of `make bench`."""
import statistics


def spread(values):
    values = sorted(values)
    out = {'n': len(values), 'median': statistics.median(values), 'min': values[0],
           'max': values[-1]}
    if len(values) >= 2:
        q = statistics.quantiles(values, n=4, method='inclusive')
        out.update(q1=q[0], q3=q[2])
    return out


def _median(runs, key):
    values = [r[key] for r in runs if r.get(key) is not None]
    return statistics.median(values) if values else None


def summarize(runs, workloads, conditions):
    """{workload: {condition: figures}} from the successful timed runs."""
    out = {}
    for w in workloads:
        per = {}
        for c in conditions:
            ok = [r for r in runs if r['workload'] == w.name and r['condition'] == c.name
                  and r.get('metric') is not None]
            if not ok:
                continue
            s = {'metric': spread([r['metric'] for r in ok]), 'unit': w.metric_unit,
                 'calls': _median(ok, 'calls'), 'elapsed_s': _median(ok, 'elapsed_s')}
            for key in ('events', 'trace_bytes', 'programs'):
                s[key] = _median(ok, key)
            lost = [r['lost'] for r in ok if r.get('lost') is not None]
            s['lost'] = max(lost) if lost else None
            rss = [r['rss_max_kib'] for r in ok if r.get('rss_max_kib')]
            s['rss_max_mib'] = round(max(rss) / 1024, 1) if rss else None
            rates = [r['events'] / (r['elapsed_s'] if r.get('calls') else r['wall_s'])
                     for r in ok if r.get('events')]
            s['events_per_s'] = statistics.median(rates) if rates else None
            # CPU times come in clock ticks: below 0.1 s they say little
            cpu = [r['tracer_cpu_s'] * 1e9 / r['events'] for r in ok
                   if r.get('events') and (r.get('tracer_cpu_s') or 0) >= 0.1]
            s['cpu_ns_per_event'] = round(statistics.median(cpu)) if cpu else None
            cpu_s = [r['cpu_s'] for r in ok if r.get('cpu_s') is not None]
            s['cpu_s'] = spread(cpu_s) if cpu_s else None
            s['cpu_unit'] = w.cpu_unit
            sizes = [r['trace_bytes'] / r['events'] for r in ok
                     if r.get('events') and r.get('trace_bytes')]
            s['bytes_per_event'] = round(statistics.median(sizes), 2) if sizes else None
            per[c.name] = s
        base = per.get('untraced')
        floor = per.get('floor')
        floor_min = per.get('floor-min')
        for name, s in per.items():
            s['overhead_pct'] = s['added_ns_per_call'] = s['x_floor'] = None
            s['x_floor_min'] = s['cpu_over_floor_pct'] = None
            if floor and floor.get('cpu_s') and s.get('cpu_s') and name not in (
                    'untraced', 'floor'):
                # the target of CPU seconds: what the tracer adds over the empty programs
                f = floor['cpu_s']['median']
                s['cpu_over_floor_pct'] = round((s['cpu_s']['median'] / f - 1) * 100, 2)
            if not base or name == 'untraced':
                continue
            m, b = s['metric']['median'], base['metric']['median']
            s['overhead_pct'] = round((m / b - 1) * 100, 2)
            if w.metric_unit == 'ns/call':
                s['added_ns_per_call'] = round(m - b, 1)
                if floor and name != 'floor':
                    floor_added = floor['metric']['median'] - b
                    if floor_added > 0:
                        s['x_floor'] = round((m - b) / floor_added, 2)
                if floor_min and name != 'floor-min':
                    floor_added = floor_min['metric']['median'] - b
                    if floor_added > 0:
                        s['x_floor_min'] = round((m - b) / floor_added, 2)
        out[w.name] = per
    return out


def bpf_summary(stats_runs):
    """BPF programs' own time per traced syscall, from the bpf_stats runs."""
    out = []
    for r in stats_runs:
        progs = r.get('bpf') or {}
        total_ns = sum(ns for ns, _ in progs.values())
        top = sorted(progs.items(), key=lambda p: -p[1][0])[:4]
        out.append({
            'workload': r['workload'], 'condition': r['condition'], 'calls': r.get('calls'),
            'programs': len(progs), 'run_time_ns': total_ns,
            'run_cnt': sum(n for _, n in progs.values()),
            'ns_per_call': round(total_ns / r['calls'], 1) if r.get('calls') else None,
            'top': [{'name': name, 'run_cnt': n, 'ns_per_run': round(ns / n, 1) if n else None}
                    for name, (ns, n) in top],
            # every program that ran: which hooks a call meets, and what each costs
            'ran': [{'name': name, 'run_cnt': n, 'run_time_ns': ns}
                    for name, (ns, n) in sorted(progs.items(), key=lambda p: -p[1][0]) if n]})
    return out


def _fmt(v, fmt='%.0f', none='-'):
    return none if v is None else fmt % v


def _metric_fmt(unit):
    return '%.3f' if unit == 's/epoch' else '%.0f'


def table(machine, config, summary, titles, labels, bpf, sustained, unavailable):
    lines = ['dltrace benchmark: %s, %d CPUs, %s GiB RAM, kernel %s, %s' % (
        machine['cpu'], machine['cpus'], machine['ram_gib'], machine['kernel'],
        machine['virtualization'])]
    lines.append('medians of %d interleaved repetitions, [min-max]; added = median minus '
                 'untraced median; x floor = added / floor\'s added; x min = added / the '
                 'minimal floor\'s added; CPU s = the job\'s CPU seconds (its cgroup, BPF '
                 'time included) + dltrace\'s while it ran, per run (per epoch: pytorch); '
                 'CPU>floor = that over the floor\'s' % config['reps'])
    hooks = {c: s['programs'] for per in summary.values() for c, s in per.items()
             if s.get('programs')}
    if hooks:
        lines.append('hooks attached: ' + ', '.join(
            '%s %d programs' % (labels[c], n) for c, n in sorted(hooks.items())))
    for name, why in unavailable.items():
        lines.append('not measured: %s: %s' % (labels.get(name, name), why))
    head = '%-18s %-26s %9s %8s %8s %9s %11s %8s %8s %8s %8s %9s %9s' % (
        'condition', 'median [min-max]', 'added ns', 'x floor', 'x min', 'overhead', 'events/s',
        'lost', 'RSS MiB', 'B/event', 'CPU/ev', 'CPU s', 'CPU>floor')
    for w, per in summary.items():
        unit = next(iter(per.values()))['unit'] if per else ''
        lines += ['', '%s (%s)' % (titles[w], unit), head]
        f = _metric_fmt(unit)
        for c, s in per.items():
            m = s['metric']
            cell = '%s [%s-%s]' % (f % m['median'], f % m['min'], f % m['max'])
            lines.append('%-18s %-26s %9s %8s %8s %9s %11s %8s %8s %8s %8s %9s %9s' % (
                labels[c], cell, _fmt(s['added_ns_per_call']), _fmt(s['x_floor'], '%.2f'),
                _fmt(s.get('x_floor_min'), '%.2f'),
                _fmt(s['overhead_pct'], '%+.1f%%'), _fmt(s['events_per_s']),
                _fmt(s['lost'], '%d'), _fmt(s['rss_max_mib'], '%.1f'),
                _fmt(s['bytes_per_event'], '%.1f'), _fmt(s['cpu_ns_per_event']),
                _fmt((s.get('cpu_s') or {}).get('median'), '%.3f'),
                _fmt(s.get('cpu_over_floor_pct'), '%+.1f%%')))
    if bpf:
        lines += ['', 'BPF programs\' own run time (kernel.bpf_stats_enabled=1; one extra run '
                  'each, not in the timings above)',
                  '%-12s %-18s %14s  %s' % ('workload', 'condition', 'BPF ns/call',
                                            'busiest programs: ns/run (runs)')]
        for b in bpf:
            top = ', '.join('%s %s (%d)' % (t['name'], _fmt(t['ns_per_run'], '%.0f'),
                                            t['run_cnt']) for t in b['top'][:2])
            lines.append('%-12s %-18s %14s  %s' % (b['workload'], labels[b['condition']],
                                                  _fmt(b['ns_per_call'], '%.1f'), top))
    if sustained:
        s = sustained
        lines += ['', 'sustained: micro, 2 threads, %d s under dltrace (default settings, %s)'
                  % (s['seconds'], s['output'])]
        lines.append('  workload preads: %d traced (%.0f/s), untraced rate %.0f/s' % (
            s['workload_calls'], s['calls_per_s'], s['untraced_calls_per_s'] or 0))
        lines.append('  trace: %d pread64 events, %d missing; dltrace lost counter %d '
                     '(%d bytes); %.0f events/s' % (
                         s['trace_preads'], s['missing'], s['lost_events'], s['lost_bytes'],
                         s['events_per_s']))
        lines.append('  stalled: %s (longest gap between 1024-call batches %.1f ms); '
                     'slowest second %.0f calls' % ('yes' if s['stalled'] else 'no',
                                                    s['max_gap_ms'], s['slowest_second']))
        lines.append('  dltrace CPU: %.1f s (%.0f ns per event, %.2f cores)' % (
            s['dltrace_cpu_s'], s['dltrace_cpu_ns_per_event'],
            s['dltrace_cpu_s'] / s['seconds']))
        lines.append('  dltrace RSS: max %.1f MiB; per second: %s' % (
            s['rss_max_mib'], ' '.join('%.0f' % v for v in s['rss_mib_per_second'])))
    return '\n'.join(lines)


def decode_replay_table(replay):
    """Instructions per event of the decode replay, by workload, build and consumer."""
    lines = ['', 'user-space instructions per event (decode replay of recorded ring records '
             'under callgrind: decoder + consumer, no kernel)',
             '%-10s %-6s %10s %10s %10s %10s %10s %10s %10s %10s' % (
                 'workload', 'build', 'json', 'json.gz', 'pftrace', 'pftrace.gz', 'report',
                 'summary', 'live', 'live-only')]
    for work, builds in replay.items():
        for build, modes in builds.items():
            if build == 'wall':
                continue
            lines.append('%-10s %-6s' % (work, build) + ''.join(
                ' %10s' % _fmt(modes[m]['per_event'] if m in modes else None)
                for m in ('json', 'gz', 'pftrace', 'pftrace.gz', 'report', 'summary', 'live',
                          'live-only')))
    walls = [(w, b['wall']) for w, b in replay.items() if 'wall' in b]
    if walls:
        lines += ['', 'wall-clock ns per event of the decode replay (modes interleaved), '
                  'median [min-max]']
        for work, wall in walls:
            lines.append('%-10s ' % work + '   '.join(
                '%s %.0f [%.0f-%.0f]' % (m, v['median'], v['min'], v['max'])
                for m, v in wall.items()))
    return '\n'.join(lines)

