/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One track per block device in the trace: a synthetic process (pid above
 * any real pid) named after the device, holding its requests as async
 * slices and a read/write throughput counter in 100 ms buckets.
 */
#ifndef BLOCK_TRACKS_H
#define BLOCK_TRACKS_H

#include <stddef.h>
#include <stdint.h>

#include "bpf/dltrace_events.h"
#include "event/event.h"

#define BLOCK_TRACK_PID_BASE EV_DEVICE_PID_BASE /* above PID_MAX_LIMIT (4194304) */
#define BLOCK_BUCKET_NS	     100000000ull

struct block_track {
	uint32_t dev;
	uint32_t pid;
	uint64_t bucket;     /* start of the bucket being filled (ns), 0 = none */
	uint64_t read_bytes; /* completed in the bucket */
	uint64_t write_bytes;
};

struct block_tracks {
	struct block_track *v;
	size_t n;
	uint64_t requests; /* requests seen: the async slice ids */
};

/* Where the block layer's events go (the decoder's emit). */
typedef void (*block_emit_fn)(void *ctx, struct event *e);

/*
 * One completed request: its begin and end events on the device's track,
 * and its share of the throughput counter.  Times are ns since t0.
 */
void block_tracks_add(struct block_tracks *t, const struct dl_block *b, uint64_t t0,
		      block_emit_fn emit, void *ctx);
/* Flush the counters and name the device tracks (end of trace). */
void block_tracks_finish(struct block_tracks *t, uint64_t t0, block_emit_fn emit, void *ctx);
void block_tracks_free(struct block_tracks *t);

#endif
