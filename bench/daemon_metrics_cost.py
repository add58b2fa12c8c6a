#!/usr/bin/env python3
"""What /metrics costs the daemon: its endpoint off, against on and scraped
every second (as Prometheus would), for an idle node and a traced job.

Each repetition starts the daemon once per condition, in an order rotated
per repetition; in each:
  idle  the micro workload (1 thread of cached 4 KiB preads) outside any
        job, the tracing programs attached (a job has come and gone,
        idle_detach_s = -1): ns per pread;
  job   the same workload inside a job cgroup, traced: ns per pread, and
        the daemon's CPU time (user + system) over the run per event of the
        job's trace.
"scraped" GETs /metrics every second for the whole time the daemon runs.

Usage (root, after `make all bench-build`):
  daemon_metrics_cost.py [--reps N] [--calls N]
Prints medians and [min-max]; --json FILE writes every run.
"""
import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import measure  # noqa: E402

ROOT = os.path.dirname(HERE)
CONDITIONS = ('off', 'scraped')


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


class Scraper(threading.Thread):
    """GET /metrics every second until stopped; counts the scrapes."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.url = 'http://127.0.0.1:%d/metrics' % port
        self.stop = threading.Event()
        self.scrapes = self.errors = 0
        self.bytes = 0

    def run(self):
        while not self.stop.wait(1.0):
            try:
                with urllib.request.urlopen(self.url, timeout=5) as r:
                    self.bytes = len(r.read())
                self.scrapes += 1
            except OSError:
                self.errors += 1


def wait_log(path, text, timeout=60):
    end = time.time() + timeout
    while time.time() < end:
        with open(path, errors='replace') as f:
            if text in f.read():
                return True
        time.sleep(0.05)
    return False


def run_in(cgroup, argv):
    """Run argv with its pid in cgroup (None: where we are); its JSON result line."""
    def enter():
        with open(os.path.join(cgroup, 'cgroup.procs'), 'w') as f:
            f.write(str(os.getpid()))
    res = subprocess.run(argv, capture_output=True, text=True,
                         preexec_fn=enter if cgroup else None, check=True)
    return json.loads(res.stdout.strip().splitlines()[-1])


def ctl_events(dltrace, sock, jobid):
    out = subprocess.run([dltrace, 'ctl', '--socket', sock, 'status'], capture_output=True,
                         text=True, check=True).stdout
    return next(j['events'] for j in json.loads(out)['jobs'] if j['job'] == jobid)


def one_daemon(dltrace, condition, argv, work, tag):
    """Start the daemon, measure idle and job, stop it: {'idle_ns', 'job_ns', 'cpu_ns_per_event'}."""
    mount = measure.cgroup2_mount()
    base = os.path.join(mount, tag)
    port = free_port()
    config = os.path.join(work, 'dltrace.conf')
    sock = os.path.join(work, 'ctl.sock')
    with open(config, 'w') as f:
        f.write('job_cgroup = /%s/job_*\nlog_dir = %s\nsocket = %s\nidle_detach_s = -1\n'
                'metrics_listen = %s\n' % (tag, os.path.join(work, 'log'), sock,
                                           '127.0.0.1:%d' % port if condition != 'off'
                                           else 'off'))
    err_path = os.path.join(work, 'daemon.err')
    err = open(err_path, 'w')
    daemon = subprocess.Popen([dltrace, 'daemon', '--config', config, '--foreground'],
                              stderr=err)
    scraper = None
    out = {}
    try:
        if not wait_log(err_path, 'started'):
            raise RuntimeError('the daemon did not start')
        if condition == 'scraped':
            scraper = Scraper(port)
            scraper.start()
        # a job comes and goes: the tracing programs are attached, then idle
        os.makedirs(os.path.join(base, 'job_1'))
        if not wait_log(err_path, 'job 1: tracing'):
            raise RuntimeError('the daemon did not notice job 1')
        os.rmdir(os.path.join(base, 'job_1'))
        if not wait_log(err_path, 'job 1: '):
            raise RuntimeError('the daemon did not finish job 1')
        time.sleep(1)
        out['idle_ns'] = run_in(None, argv)['ns_per_call']
        # a job, traced
        job = os.path.join(base, 'job_2')
        os.makedirs(job)
        if not wait_log(err_path, 'job 2: tracing'):
            raise RuntimeError('the daemon did not notice job 2')
        cpu0 = measure.cpu_seconds(daemon.pid)
        ev0 = ctl_events(dltrace, sock, '2')
        r = run_in(job, argv)
        time.sleep(0.2)  # the last records
        cpu1 = measure.cpu_seconds(daemon.pid)
        ev1 = ctl_events(dltrace, sock, '2')
        out['job_ns'] = r['ns_per_call']
        out['events'] = ev1 - ev0
        out['cpu_ns_per_event'] = (cpu1 - cpu0) * 1e9 / max(ev1 - ev0, 1)
        os.rmdir(job)
        wait_log(err_path, 'job 2: ')
        if scraper:
            out['scrapes'], out['scrape_errors'] = scraper.scrapes, scraper.errors
            out['scrape_bytes'] = scraper.bytes
    finally:
        if scraper:
            scraper.stop.set()
        if daemon.poll() is None:
            daemon.terminate()
            daemon.wait(60)
        err.close()
        for d in (os.path.join(base, 'job_2'), os.path.join(base, 'job_1'), base):
            for _ in range(50):
                try:
                    if os.path.isdir(d):
                        os.rmdir(d)
                    break
                except OSError:
                    time.sleep(0.1)
    return out


def measure_all(dltrace, micro, reps, calls, log=lambda m: print(m, file=sys.stderr)):
    work = tempfile.mkdtemp(prefix='dltrace-metrics-cost-')
    data = os.path.join(work, 'data.bin')
    with open(data, 'wb') as f:
        f.write(os.urandom(1 << 20))
    argv = [micro, data, '1', str(calls)]
    tag = 'dltrace-bench-metrics-%d' % os.getpid()
    runs = []
    try:
        for rep in range(reps):
            order = CONDITIONS[rep % 2:] + CONDITIONS[:rep % 2]
            for cond in order:
                d = os.path.join(work, '%s-%d' % (cond, rep))
                os.makedirs(d)
                r = one_daemon(dltrace, cond, argv, d, tag)
                r.update(condition=cond, rep=rep, loadavg=os.getloadavg()[0])
                runs.append(r)
                log('  metrics %-8s rep %d: idle %.0f ns/pread, job %.0f ns/pread, daemon '
                    '%.0f ns CPU/event%s' % (cond, rep, r['idle_ns'], r['job_ns'],
                                             r['cpu_ns_per_event'],
                                             ', %d scrapes' % r['scrapes'] if 'scrapes' in r
                                             else ''))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    summary = {}
    for cond in CONDITIONS:
        rs = [r for r in runs if r['condition'] == cond]
        summary[cond] = {k: {'median': statistics.median(r[k] for r in rs),
                             'min': min(r[k] for r in rs), 'max': max(r[k] for r in rs)}
                         for k in ('idle_ns', 'job_ns', 'cpu_ns_per_event')}
    return {'runs': runs, 'summary': summary, 'calls': calls, 'reps': reps}


def table(result):
    lines = ['', '/metrics: the daemon with the endpoint off vs on and scraped every second '
             '(%d reps, %d preads per run), median [min-max]' % (result['reps'],
                                                                 result['calls']),
             '%-9s %26s %26s %26s' % ('endpoint', 'idle node, ns/pread', 'traced job, ns/pread',
                                      'daemon CPU ns/event')]
    for cond, s in result['summary'].items():
        lines.append('%-9s' % cond + ''.join(
            ' %26s' % ('%.0f [%.0f-%.0f]' % (s[k]['median'], s[k]['min'], s[k]['max']))
            for k in ('idle_ns', 'job_ns', 'cpu_ns_per_event')))
    return '\n'.join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--reps', type=int, default=5)
    ap.add_argument('--calls', type=int, default=1000000)
    ap.add_argument('--json')
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit('daemon_metrics_cost.py: run as root')
    result = measure_all(os.path.join(ROOT, 'build', 'dltrace'),
                         os.path.join(ROOT, 'build', 'bench', 'micro_pread'), args.reps,
                         args.calls)
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(result, f, indent=1)
    print(table(result))


if __name__ == '__main__':
    main()
