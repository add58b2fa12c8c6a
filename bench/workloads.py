"""The benchmark's workloads: what each runs, the data it needs, and how its
own output is read.  Every workload times itself; `metric` is the figure the
conditions are compared on."""
import json
import os
import re
import shutil
import subprocess

PYTHON = '/usr/bin/python3'  # Debian's, with numpy, torch and h5py

FULL = {'reps': 5, 'micro_calls': 1000000, 'slow_divisor': 50, 'meta_files': 10000,
        'meta_calls': 1200000,
        'meta_passes': 3, 'checkpoint_mib': 512, 'pytorch_npz': 2000, 'pytorch_h5': 2000,
        'pytorch_epochs': 2, 'pytorch_workers': 4, 'sustained_s': 30}
QUICK = dict(FULL, reps=2, report_events=1000000, micro_calls=200000, meta_files=2000,
             meta_calls=300000,
             meta_passes=1,
             checkpoint_mib=64, pytorch_npz=300, pytorch_h5=300, pytorch_epochs=1,
             sustained_s=5)


def json_result(lines):
    for line in lines:
        if line.startswith('{"workload"'):
            return json.loads(line)
    raise ValueError('the workload printed no result')


class Workload:
    # the syscalls (tracepoint names) of the timed loop: the minimal floor's hooks; None
    # where a workload makes too many kinds to name (the PyTorch epoch, the checkpoint)
    syscalls = None
    name = ''
    title = ''
    metric_unit = 'ns/call'
    cpu_unit = 'run'  # what the CPU seconds are counted per (Pytorch: per epoch)

    def __init__(self, job, sizes):
        self.job = job
        self.sizes = sizes
        self.data = os.path.join(job.out_dir, 'data')

    def bin(self, name):
        return os.path.join(self.job.build, 'bench', name)

    def prepare(self):
        pass

    def argv(self, slow):
        raise NotImplementedError

    def after_run(self):
        pass

    def parse(self, lines):
        """{'metric', 'elapsed_s', 'calls' (None when unknown), ...} of a run."""
        r = json_result(lines)
        return {'metric': r['ns_per_call'], 'elapsed_s': r['elapsed_ns'] / 1e9,
                'calls': r['calls'], 'raw': r}


class Micro(Workload):
    syscalls = ('pread64',)
    def __init__(self, job, sizes, threads):
        super().__init__(job, sizes)
        self.threads = threads
        self.name = 'micro-%dt' % threads
        self.title = 'micro: cached 4 KiB pread, %d thread%s' % (threads, 's' * (threads > 1))
        self.file = os.path.join(self.data, 'micro.bin')

    def prepare(self):
        os.makedirs(self.data, exist_ok=True)
        if not os.path.exists(self.file) or os.path.getsize(self.file) != 1 << 20:
            with open(self.file, 'wb') as f:
                f.write(os.urandom(1 << 20))
        with open(self.file, 'rb') as f:
            f.read()  # in the page cache from now on

    def argv(self, slow):
        calls = self.sizes['micro_calls'] // (self.sizes['slow_divisor'] if slow else 1)
        return [self.bin('micro_pread'), self.file, str(self.threads), str(max(calls, 1000))]

    def sustained_argv(self, seconds):
        return [self.bin('micro_pread'), self.file, str(self.threads), '--seconds', str(seconds)]


class PyMicro(Micro):
    """micro from a Python loop (bench/workloads/py_pread.py, Debian's python3): what
    dltrace and its --python-stacks cost per os.pread, one module frame deep."""

    def __init__(self, job, sizes):
        super().__init__(job, sizes, 1)
        self.name = 'py-micro'
        self.title = 'micro in Python: cached 4 KiB os.pread, 1 thread (%s)' % PYTHON

    def argv(self, slow):
        calls = self.sizes['micro_calls'] // (self.sizes['slow_divisor'] if slow else 1)
        return [PYTHON, os.path.join(self.job.root, 'bench', 'workloads', 'py_pread.py'),
                self.file, str(max(calls, 1000))]

    def parse(self, lines):
        r = next(json.loads(line) for line in lines if line.startswith('{"calls"'))
        return {'metric': r['ns_per_call'], 'elapsed_s': r['elapsed_ns'] / 1e9,
                'calls': r['calls'], 'raw': r}


class Metadata(Workload):
    name = 'metadata'
    syscalls = ('openat', 'newfstatat', 'read', 'close')

    def __init__(self, job, sizes):
        super().__init__(job, sizes)
        self.dir = os.path.join(self.data, 'metadata-%d' % sizes['meta_files'])
        self.title = 'metadata storm: open/fstat/read/close, %d files' % sizes['meta_files']

    def prepare(self):
        done = os.path.join(self.dir, '.complete')
        if not os.path.exists(done):
            os.makedirs(self.dir, exist_ok=True)
            subprocess.run([self.bin('metadata_storm'), '--create', self.dir,
                            str(self.sizes['meta_files'])], check=True)
            open(done, 'w').close()

    def argv(self, slow):
        passes = 1 if slow else self.sizes['meta_passes']
        return [self.bin('metadata_storm'), self.dir, str(self.sizes['meta_files']), str(passes)]


class MetaCalls(Workload):
    """access, fcntl(F_GETFL), fstatfs of one cached file in turn (the shared programs'
    syscalls); with other=True getppid, which dltrace never traces."""

    def __init__(self, job, sizes, other=False):
        super().__init__(job, sizes)
        self.other = other
        self.name = 'meta-other' if other else 'meta-calls'
        self.syscalls = () if other else ('access', 'fcntl', 'fstatfs')
        self.title = ('getppid (no file syscall)' if other else
                      'meta calls: access/fcntl/fstatfs')
        self.file = os.path.join(self.data, 'meta-calls.bin')

    def prepare(self):
        os.makedirs(self.data, exist_ok=True)
        with open(self.file, 'wb') as f:
            f.write(b'x' * 4096)

    def argv(self, slow):
        calls = self.sizes['meta_calls'] // (self.sizes['slow_divisor'] if slow else 1)
        return [self.bin('meta_calls'), self.file, str(max(calls, 3000))] + \
            (['--other'] if self.other else [])


class Checkpoint(Workload):
    name = 'checkpoint'

    def __init__(self, job, sizes):
        super().__init__(job, sizes)
        self.file = os.path.join(self.data, 'checkpoint.bin')
        self.title = 'checkpoint: %d MiB in 1 MiB writes + fsync' % sizes['checkpoint_mib']

    def prepare(self):
        os.makedirs(self.data, exist_ok=True)
        self.after_run()

    def argv(self, slow):
        return [self.bin('checkpoint_write'), self.file, str(self.sizes['checkpoint_mib'])]

    def after_run(self):
        if os.path.exists(self.file):
            os.unlink(self.file)


class Pytorch(Workload):
    name = 'pytorch'
    metric_unit = 's/epoch'
    cpu_unit = 'epoch'

    def __init__(self, job, sizes):
        super().__init__(job, sizes)
        s = sizes
        self.dir = os.path.join(self.data, 'pytorch-%d-%d' % (s['pytorch_npz'], s['pytorch_h5']))
        self.checkpoints = os.path.join(self.data, 'pytorch-checkpoints')
        self.example = os.path.join(job.root, 'examples', 'pytorch')
        self.title = ('PyTorch example: %d .npz + %d HDF5 samples, %d workers'
                      % (s['pytorch_npz'], s['pytorch_h5'], s['pytorch_workers']))

    def prepare(self):
        if not os.path.exists(os.path.join(self.dir, 'train.h5')):
            subprocess.run([PYTHON, os.path.join(self.example, 'make_dataset.py'), self.dir,
                            '--npz', str(self.sizes['pytorch_npz']),
                            '--h5', str(self.sizes['pytorch_h5'])],
                           check=True, stdout=subprocess.DEVNULL)

    def argv(self, slow):
        return [PYTHON, os.path.join(self.example, 'train.py'), self.dir, self.checkpoints,
                '--epochs', str(self.sizes['pytorch_epochs']),
                '--workers', str(self.sizes['pytorch_workers'])]

    def after_run(self):
        shutil.rmtree(self.checkpoints, ignore_errors=True)

    def parse(self, lines):
        epochs = [float(m.group(1)) for m in
                  (re.match(r'epoch \d+: ([\d.]+) s', line) for line in lines) if m]
        if len(epochs) != self.sizes['pytorch_epochs']:
            raise ValueError('train.py printed %d epoch times' % len(epochs))
        return {'metric': sum(epochs) / len(epochs), 'elapsed_s': sum(epochs), 'calls': None,
                'units': len(epochs), 'raw': {'epoch_s': epochs}}


def all_workloads(job, sizes):
    return [Micro(job, sizes, 1), Micro(job, sizes, 2), PyMicro(job, sizes), Metadata(job, sizes),
            MetaCalls(job, sizes), Checkpoint(job, sizes), Pytorch(job, sizes)]
