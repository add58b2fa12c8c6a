"""Where measured results live: bench/results/KIND.json, one file per kind of
run, the latest run of that kind, each with the machine it ran on.

  bench          make bench (run_bench.py): the workloads under every
                 condition, BPF run times, hooks, decode replay, ...
  floors         run_bench.py --floors-only (make bench-floors): the syscall workloads
                 against both floors, with BPF run times
  job-cpu        run_bench.py --job-cpu-only (make bench-job-cpu): the PyTorch
                 example's CPU seconds per epoch under each output format
  lifecycle      run_bench.py --lifecycle-only: start-up and exit
  fd-identity    fd_identity_cost.py: what naming a descriptor's file costs
  python-stacks  python_stacks.py (make bench-python-stacks)
  replay         replay_bench.py: dltrace replay's timing and predicted saving
  clock-alignment  clock_alignment.py (make bench-clock-alignment): a profiler
                 trace's events against dltrace's, from the same clock readings
  hdf5-layer     hdf5_layer_cost.py (part of make bench): the hdf5 layer per probe

docs/performance.md shows them as one generated block (bench/results_table.py,
`make docs-table`); tests/test_docs.py checks that the block is current.
"""
import json
import os

import machine

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIR = os.path.join(ROOT, 'bench', 'results')
KINDS = ('bench', 'floors', 'job-cpu', 'decode-replay', 'lifecycle', 'fd-identity', 'python-stacks',
         'replay', 'clock-alignment', 'hdf5-layer', 'counting')


def path(kind):
    if kind not in KINDS:
        raise ValueError('unknown kind of results: %s' % kind)
    return os.path.join(DIR, kind + '.json')


def describe_machine():
    return machine.describe(os.path.join(ROOT, 'build', 'dltrace'), ROOT)


def write(results, dest):
    """Write results (a dict with a 'machine' block) to dest, with the paths of
    this checkout made relative: the file is meant to be committed."""
    if 'machine' not in results:
        raise ValueError('results without a machine block')
    os.makedirs(os.path.dirname(os.path.abspath(dest)), exist_ok=True)
    text = json.dumps(results, indent=1).replace(json.dumps(ROOT + '/')[1:-1], '')
    with open(dest, 'w') as f:
        f.write(text + '\n')


def load(kind):
    """The results of a kind, or None when there are none."""
    try:
        with open(path(kind)) as f:
            return json.load(f)
    except FileNotFoundError:
        return None
