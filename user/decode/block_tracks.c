// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "decode/block_tracks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/chrome/chrome_layer_events.h"

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

static void flush_bucket(struct block_track *tr, struct chrome_writer *w)
{
	double secs = BLOCK_BUCKET_NS / 1e9;

	if (!tr->bucket)
		return;
	cw_block_throughput(w, tr->bucket, tr->pid, tr->read_bytes / 1e6 / secs,
			    tr->write_bytes / 1e6 / secs);
	tr->read_bytes = tr->write_bytes = 0;
}

void block_tracks_add(struct block_tracks *t, struct chrome_writer *w, const struct dl_block *b)
{
	struct block_track *tr = track_for(t, b->dev);
	uint64_t done = b->h.ts + b->dur;
	uint64_t bucket = done - done % BLOCK_BUCKET_NS;

	cw_block(w, b, tr->pid, ++t->requests);
	if (bucket > tr->bucket) {
		bool gap = tr->bucket && bucket > tr->bucket + BLOCK_BUCKET_NS;
		uint64_t idle = tr->bucket + BLOCK_BUCKET_NS;

		flush_bucket(tr, w);
		if (gap) /* the device was idle in between */
			cw_block_throughput(w, idle, tr->pid, 0, 0);
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

void block_tracks_finish(struct block_tracks *t, struct chrome_writer *w)
{
	for (size_t i = 0; i < t->n; i++) {
		struct block_track *tr = &t->v[i];
		char dev[64], name[128];

		flush_bucket(tr, w);
		tr->bucket = 0;
		device_name(tr->dev, dev, sizeof(dev));
		snprintf(name, sizeof(name), "block %s%s(%u:%u)", dev, *dev ? " " : "",
			 tr->dev >> 20, tr->dev & 0xfffff);
		cw_process_name(w, tr->pid, name);
	}
}

void block_tracks_free(struct block_tracks *t)
{
	free(t->v);
	t->v = NULL;
	t->n = 0;
}
