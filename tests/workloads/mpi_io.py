"""MPI ranks each writing and reading back their own file (mpi4py).

Usage: mpirun -n N python3 mpi_io.py DIR CHUNKS
Rank r writes DIR/rank_<r>.bin in CHUNKS + r writes of 64 KiB (unbuffered,
so each is one write(2)), fsyncs it, reads it back in 64 KiB reads, and
checks the bytes.  After a barrier rank 0 prints one JSON line:
{"ranks": {"<rank>": {"pid": .., "file": .., "bytes": ..}, ...}}.
"""
import json
import os
import sys

from mpi4py import MPI

CHUNK = 64 * 1024


def main():
    directory, chunks = sys.argv[1], int(sys.argv[2])
    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    path = os.path.join(directory, 'rank_%d.bin' % rank)
    block = bytes([rank]) * CHUNK
    n = chunks + rank
    with open(path, 'wb', buffering=0) as f:
        for _ in range(n):
            f.write(block)
        os.fsync(f.fileno())
    got = 0
    with open(path, 'rb', buffering=0) as f:
        while True:
            data = f.read(CHUNK)
            if not data:
                break
            assert data == block[:len(data)], 'rank %d read back other bytes' % rank
            got += len(data)
    assert got == n * CHUNK
    mine = {'pid': os.getpid(), 'file': path, 'bytes': got}
    everyone = comm.gather((rank, mine), root=0)
    comm.Barrier()
    if rank == 0:
        print(json.dumps({'ranks': {str(r): v for r, v in everyone}}), flush=True)


if __name__ == '__main__':
    main()
