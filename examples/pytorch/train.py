"""A small deep-learning training job with a realistic input pipeline.

A CNN learns to tell which quadrant of a 28x28 image is bright, from two
sources read by a DataLoader with worker processes: thousands of small
.npz files (one sample each, numpy) and one HDF5 file (h5py, one chunk per
sample).  A checkpoint is written with torch.save after every epoch.

The job marks its phases with dltrace's markers (python/dltrace_markers.py):
each epoch and training step as a region, and, through instrument_torch,
each batch fetch and the checkpoint.  Without dltrace they cost nothing.

Usage: train.py DATA_DIR CHECKPOINT_DIR [--epochs 2] [--workers 4]
"""
import argparse
import glob
import os
import sys
import time
import warnings
from contextlib import nullcontext

import h5py
import numpy as np
import torch
from torch import nn
from torch.utils.data import ConcatDataset, DataLoader, Dataset

# dltrace's markers, from the checkout (python/) or installed; no-ops without them
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'python'))
try:
    import dltrace_markers as dltrace
except ImportError:
    dltrace = None


class NpzFiles(Dataset):
    """One .npz file per sample: an open/read/close per item."""

    def __init__(self, directory):
        self.paths = sorted(glob.glob(os.path.join(directory, '*.npz')))

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        with np.load(self.paths[i]) as z:
            return torch.from_numpy(z['image']), int(z['label'])


class H5Samples(Dataset):
    """Samples of one HDF5 file, opened lazily in each worker."""

    def __init__(self, path):
        self.path = path
        self.file = None
        with h5py.File(path, 'r') as f:
            self.n = len(f['labels'])

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if self.file is None:
            self.file = h5py.File(self.path, 'r')
        return torch.from_numpy(self.file['images'][i]), int(self.file['labels'][i])


def model():
    return nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(16 * 7 * 7, 4))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('data')
    ap.add_argument('checkpoints')
    ap.add_argument('--epochs', type=int, default=2)
    ap.add_argument('--workers', type=int, default=4)
    ap.add_argument('--batch-size', type=int, default=64)
    args = ap.parse_args()
    # torch warns when workers outnumber cores; the example keeps 4 on purpose
    warnings.filterwarnings('ignore', message='This DataLoader will create')
    torch.manual_seed(0)
    os.makedirs(args.checkpoints, exist_ok=True)
    data = ConcatDataset([NpzFiles(os.path.join(args.data, 'npz')),
                          H5Samples(os.path.join(args.data, 'train.h5'))])
    loader = DataLoader(data, batch_size=args.batch_size, shuffle=True,
                        num_workers=args.workers)
    net = model()
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    if dltrace:
        dltrace.instrument_torch(loader)  # batch fetches and torch.save (checkpoint)
    for epoch in range(args.epochs):
        start = time.time()
        correct = total = 0
        with dltrace.epoch(epoch) if dltrace else nullcontext():
            for i, (images, labels) in enumerate(loader):
                with dltrace.step(i) if dltrace else nullcontext():
                    opt.zero_grad()
                    out = net(images)
                    loss = loss_fn(out, labels)
                    loss.backward()
                    opt.step()
                    correct += (out.argmax(1) == labels).sum().item()
                    total += len(labels)
            torch.save({'epoch': epoch, 'model': net.state_dict(),
                        'optimizer': opt.state_dict()},
                       os.path.join(args.checkpoints, 'epoch%d.pt' % epoch))
        if dltrace:
            dltrace.counter('accuracy_x1000', int(1000 * correct / total))
        print('epoch %d: %.3f s, accuracy %.3f, loss %.3f' %
              (epoch, time.time() - start, correct / total, loss.item()), flush=True)


if __name__ == '__main__':
    main()
