"""Generate the example's dataset: many small .npz files and one HDF5 file.

Usage: make_dataset.py DIR [--npz N] [--h5 M]
DIR/npz/sample_00000.npz ... (one 1x28x28 float32 image and its label each)
DIR/train.h5 with datasets 'images' (M x 1 x 28 x 28 float32) and 'labels'.
Labels follow a simple rule of the image (mean brightness by quadrant), so
the CNN has something to learn.  Deterministic (seeded).
"""
import argparse
import os

import h5py
import numpy as np


def make_samples(rng, n):
    images = rng.random((n, 1, 28, 28), dtype=np.float32)
    quadrant = rng.integers(0, 4, n)
    for i, q in enumerate(quadrant):
        r, c = divmod(int(q), 2)
        images[i, 0, r * 14:(r + 1) * 14, c * 14:(c + 1) * 14] += 1.0
    return images, quadrant.astype(np.int64)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('dir')
    ap.add_argument('--npz', type=int, default=5000)
    ap.add_argument('--h5', type=int, default=5000)
    args = ap.parse_args()
    rng = np.random.default_rng(1234)
    npz_dir = os.path.join(args.dir, 'npz')
    os.makedirs(npz_dir, exist_ok=True)
    images, labels = make_samples(rng, args.npz)
    for i in range(args.npz):
        np.savez(os.path.join(npz_dir, 'sample_%05d.npz' % i), image=images[i], label=labels[i])
    images, labels = make_samples(rng, args.h5)
    with h5py.File(os.path.join(args.dir, 'train.h5'), 'w') as f:
        f.create_dataset('images', data=images, chunks=(1, 1, 28, 28))
        f.create_dataset('labels', data=labels)
    print('dataset: %d .npz files and %d HDF5 samples in %s' % (args.npz, args.h5, args.dir))


if __name__ == '__main__':
    main()
