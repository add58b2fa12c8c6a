"""A training loop with known phases, for the report's per-step figures.

Usage: training_phases.py MARKERS_DIR DATA_FILE OUT_FILE starved|fed
2 epochs of 5 steps.  A forked loader process serves batches through
pipes; each batch is one pread of 8192 bytes of DATA_FILE at offset
8192 x its number.  Each step region sleeps 10 ms (starved) or 30 ms (fed)
and preads 1000 x (step + 1) bytes itself; each epoch ends with a
"checkpoint" region that writes 65536 bytes to OUT_FILE (inside the epoch).

starved: the loader sleeps 40 ms before reading each batch, and starts
  only when the loop asks for it in its fetch region: every fetch waits.
fed: the loop asks for the next batch at the start of each step and the
  loader serves it at once; the step ends only once the batch is there
  (select), so that it is there when the fetch begins, however long the
  loader takes to be scheduled.

Prints one JSON line: {"main_pid", "loader_pid"}.
"""
import json
import os
import select
import sys
import time

sys.path.insert(0, sys.argv[1])
import dltrace_markers as dltrace  # noqa: E402

BATCH = 8192
EPOCHS, STEPS = 2, 5


def loader(data, requests, batches, delay):
    fd = os.open(data, os.O_RDONLY)
    while True:
        req = os.read(requests, 4)
        if len(req) < 4:
            break
        n = int.from_bytes(req, 'little')
        if delay:
            time.sleep(delay)
        os.write(batches, os.pread(fd, BATCH, n * BATCH)[:16])
    os._exit(0)


def main():
    data, out, mode = sys.argv[2], sys.argv[3], sys.argv[4]
    starved = mode == 'starved'
    req_r, req_w = os.pipe()
    bat_r, bat_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(req_w)
        os.close(bat_r)
        loader(data, req_r, bat_w, 0.040 if starved else 0)
    os.close(req_r)
    os.close(bat_w)
    fd = os.open(data, os.O_RDONLY)
    print(json.dumps({'main_pid': os.getpid(), 'loader_pid': pid}), flush=True)
    n = 0
    if not starved:
        os.write(req_w, n.to_bytes(4, 'little'))
        select.select([bat_r], [], [])
    for e in range(EPOCHS):
        with dltrace.epoch(e):
            for i in range(STEPS):
                with dltrace.region('fetch', batch=i):
                    if starved:
                        os.write(req_w, n.to_bytes(4, 'little'))
                    os.read(bat_r, 16)
                n += 1
                with dltrace.step(i):
                    ask = not starved and n < EPOCHS * STEPS
                    if ask:
                        os.write(req_w, n.to_bytes(4, 'little'))
                    time.sleep(0.010 if starved else 0.030)
                    os.pread(fd, 1000 * (i + 1), 0)
                    if ask:
                        select.select([bat_r], [], [])
            with dltrace.region('checkpoint', epoch=e):
                with open(out, 'wb') as f:
                    f.write(b'c' * 65536)
    os.close(req_w)
    os.waitpid(pid, 0)


if __name__ == '__main__':
    main()
