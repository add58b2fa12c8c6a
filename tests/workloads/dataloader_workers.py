"""A PyTorch DataLoader with worker processes reading one file per sample.

Usage: dataloader_workers.py DIR NUM_WORKERS
Creates 16 sample files, iterates once with batch_size=2 (so each of the
workers loads batches), and prints one JSON line:
{"main_pid": ..., "worker_pids": [...], "files": [...]}.
"""
import json
import os
import sys

import torch
from torch.utils.data import DataLoader, Dataset


class Files(Dataset):
    def __init__(self, paths):
        self.paths = paths

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        with open(self.paths[i], 'rb') as f:
            data = f.read()
        return torch.tensor(len(data)), torch.tensor(os.getpid())


def main():
    directory, workers = sys.argv[1], int(sys.argv[2])
    paths = []
    for i in range(16):
        p = os.path.join(directory, 'sample%02d.bin' % i)
        with open(p, 'wb') as f:
            f.write(os.urandom(1000 + i))
        paths.append(p)
    loader = DataLoader(Files(paths), batch_size=2, num_workers=workers, shuffle=False)
    pids = set()
    for sizes, worker_pids in loader:
        pids.update(int(p) for p in worker_pids)
    print(json.dumps({'main_pid': os.getpid(), 'worker_pids': sorted(pids), 'files': paths}))


if __name__ == '__main__':
    main()
