// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "decode/block_tracks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct block_track *track_for(struct block_tracks *t, uint32_t dev)
{
	struct block_track *v;

	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].dev == dev)
			return &t->v[i];
	v = realloc(t->v, (t->n + 1) * sizeof(*v));
	if (!v)
		abort();
	t->v = v;
	v = &t->v[t->n];
	memset(v, 0, sizeof(*v));
	v->dev = dev;
	v->pid = BLOCK_TRACK_PID_BASE + t->n++;
	return v;
}

static uint64_t since(uint64_t ts, uint64_t t0)
{
	return ts > t0 ? ts - t0 : 0;
}

/* The rate counter of one 100 ms bucket (MB/s). */
static void rate(struct block_track *tr, uint64_t ts, uint64_t t0, double read, double write,
		 block_emit_fn emit, void *ctx)
{
	struct event e = {.type = EV_BLOCK_RATE, .ts = since(ts, t0), .pid = tr->pid,
			  .tid = tr->pid};

	e.rate.read_mbps = read;
	e.rate.write_mbps = write;
	emit(ctx, &e);
}

static void flush_bucket(struct block_track *tr, uint64_t t0, block_emit_fn emit, void *ctx)
{
	double secs = BLOCK_BUCKET_NS / 1e9;

	if (!tr->bucket)
		return;
	rate(tr, tr->bucket, t0, tr->read_bytes / 1e6 / secs, tr->write_bytes / 1e6 / secs, emit,
	     ctx);
	tr->read_bytes = tr->write_bytes = 0;
}

void block_tracks_add(struct block_tracks *t, const struct dl_block *b, uint64_t t0,
		      block_emit_fn emit, void *ctx)
{
	struct block_track *tr = track_for(t, b->dev);
	uint64_t done = b->h.ts + b->dur;
	uint64_t bucket = done - done % BLOCK_BUCKET_NS;
	struct event e = {.type = EV_BLOCK, .ts = since(b->h.ts, t0), .pid = tr->pid,
			  .tid = tr->pid};

	e.block.phase = EV_PH_BEGIN;
	e.block.op = b->op;
	e.block.seq = ++t->requests;
	e.block.sector = b->sector;
	e.block.bytes = b->bytes;
	e.block.dev = b->dev;
	e.block.issuer_pid = b->h.tgid;
	emit(ctx, &e);
	e.ts = since(done, t0);
	e.block.phase = EV_PH_END;
	e.block.latency_ns = b->dur;
	e.block.error = b->error;
	emit(ctx, &e);
	if (bucket > tr->bucket) {
		bool gap = tr->bucket && bucket > tr->bucket + BLOCK_BUCKET_NS;
		uint64_t idle = tr->bucket + BLOCK_BUCKET_NS;

		flush_bucket(tr, t0, emit, ctx);
		if (gap) /* the device was idle in between */
			rate(tr, idle, t0, 0, 0, emit, ctx);
		tr->bucket = bucket;
	}
	if (b->op == 0)
		tr->read_bytes += b->bytes;
	else if (b->op == 1)
		tr->write_bytes += b->bytes;
}

/* "vda" from /sys/dev/block/MAJ:MIN/uevent, or "" */
static void device_name(uint32_t dev, char *out, size_t size)
{
	char path[64], line[256];
	FILE *f;

	out[0] = '\0';
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent", dev >> 20, dev & 0xfffff);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "DEVNAME=", 8) == 0) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(out, size, "%.63s", line + 8);
		}
	fclose(f);
}

void block_tracks_finish(struct block_tracks *t, uint64_t t0, block_emit_fn emit, void *ctx)
{
	for (size_t i = 0; i < t->n; i++) {
		struct block_track *tr = &t->v[i];
		char dev[64], name[128];
		struct event e = {.type = EV_PROCESS_NAME, .pid = tr->pid, .tid = tr->pid};
		int n;

		flush_bucket(tr, t0, emit, ctx);
		tr->bucket = 0;
		device_name(tr->dev, dev, sizeof(dev));
		n = snprintf(name, sizeof(name), "block %s%s(%u:%u)", dev, *dev ? " " : "",
			     tr->dev >> 20, tr->dev & 0xfffff);
		e.name.name = (struct ev_str){name, n};
		emit(ctx, &e);
	}
}

void block_tracks_free(struct block_tracks *t)
{
	free(t->v);
	t->v = NULL;
	t->n = 0;
}
