/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Live statistics of one job's event stream: what `dltrace top`, `dltrace
 * ctl top` and the daemon's /metrics show while the job runs.
 *
 *   decoder -> tee -> live_stats (a consumer) --snapshot--> top view
 *                                            `--totals----> /metrics
 *
 * It only adds up: every counter is cumulative since the job's start, and
 * a reader that wants rates takes two snapshots and subtracts (the view
 * does; Prometheus does with rate()).  So any number of readers, at any
 * interval, read the same object without disturbing each other.
 *
 * Per event: a few additions, one latency bucket (a count of leading
 * zeros), and a lookup of the process, file and directory rows, each
 * cached for the next event.  Nothing is allocated per event.  Memory is
 * bounded: the process, file and directory tables have a fixed number of
 * rows; when one is full a new row replaces the least recently active one
 * (for processes, one that has exited), whose counts go to the table's
 * "other" row, so the rows of a table always add up to the job's totals.
 * Rows count system calls; the other capture layers are counted per layer.
 *
 * Not thread-safe: snapshots are taken by the thread that delivers events
 * (the tracing loop, the daemon's loop), between two records, so a
 * snapshot is always consistent.
 */
#ifndef LIVE_STATS_H
#define LIVE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event/event.h"

/*
 * Latencies (ns) in log-linear buckets: 4 per power of two, exact below 4,
 * up to 2^40 ns (18 minutes; longer ones in the last bucket).  A bucket's
 * middle is within 12.5% of any value in it.  Counts are 32 bits and
 * wrap: readers subtract two snapshots, which is exact modulo 2^32.
 */
#define LIVE_LAT_BUCKETS 160

static inline unsigned live_lat_bucket(uint64_t ns)
{
	unsigned m, i;

	if (ns < 4)
		return (unsigned)ns;
	m = 63 - (unsigned)__builtin_clzll(ns);
	i = 4 * (m - 1) + (unsigned)((ns >> (m - 2)) & 3);
	return i < LIVE_LAT_BUCKETS ? i : LIVE_LAT_BUCKETS - 1;
}

/* The middle of bucket i, in ns. */
uint64_t live_lat_value(unsigned i);
/* Quantile q (0..1) of a histogram of n values; 0 when n is 0. */
uint64_t live_lat_quantile(const uint32_t *lat, uint64_t n, double q);

/*
 * Fixed latency buckets of /metrics (Prometheus histograms), upper bounds
 * in ns: 1, 2.5 and 5 of each decade from 1 us to 10 s, then +Inf.
 */
#define LIVE_METRIC_BUCKETS 22
extern const uint64_t live_metric_bounds_ns[LIVE_METRIC_BUCKETS];

enum live_class { LIVE_DATA, LIVE_METADATA, LIVE_SYNC, LIVE_CLASSES };

/* System calls of a row or of the whole job. */
struct live_counts {
	uint64_t ops;	   /* all of them */
	uint64_t rd_ops;   /* read, pread64, readv, ..., sendfile, copy_file_range */
	uint64_t wr_ops;   /* write, pwrite64, writev, ... */
	uint64_t meta_ops; /* open, stat, lseek, close, rename, ... */
	uint64_t sync_ops; /* fsync, fdatasync, sync_file_range */
	uint64_t failed;
	uint64_t rd_bytes, wr_bytes; /* bytes moved (return values) */
	uint64_t io_ns;		     /* time inside them */
	uint32_t lat[LIVE_LAT_BUCKETS];
};

/* The capture layers beyond system calls (and what the syscalls say of the cache). */
struct live_layers {
	uint64_t faults, write_faults; /* mmap: page faults that read a mapped file */
	uint64_t fault_bytes;	       /* faults x page size */
	uint64_t cache_reads;	       /* cache: reads with cache information */
	uint64_t cache_read_bytes, cache_miss_bytes;
	uint64_t block_reqs, block_rd_bytes, block_wr_bytes; /* block: requests issued */
	uint64_t block_done, block_ns;			     /* completed, their latency */
	uint32_t block_lat[LIVE_LAT_BUCKETS];
	uint64_t uring_reqs, uring_rd_bytes, uring_wr_bytes, uring_ns; /* io_uring completions */
	uint32_t uring_lat[LIVE_LAT_BUCKETS];
	uint64_t vfs_calls, vfs_ns;
	uint64_t lib_calls[3], lib_ns[3]; /* library levels: stdio, hdf5, mpiio */
	uint64_t marker_regions;	  /* marked regions (markers layer) */
};

/* Marked phases: "fetch" and "step" regions (dltrace markers). */
struct live_phases {
	uint64_t fetches, fetch_ns;
	uint64_t steps, step_ns;
};

/* The training thread: the main thread of the job's first process. */
struct live_training {
	uint32_t pid, tid; /* 0: none yet */
	uint64_t ops, io_ns;
};

/* A process, a file or a directory. */
struct live_row {
	uint64_t serial;	     /* the row's identity; 0: the table's "other" row */
	uint32_t pid, ppid, threads; /* processes: threads alive */
	bool alive;		     /* processes: not exited */
	const char *name;	     /* command line, or path (not NUL-terminated) */
	uint32_t name_len;
	struct live_counts c;
};

enum live_table { LIVE_PROCS, LIVE_FILES, LIVE_DIRS, LIVE_TABLES };

/* Everything at one instant: plain data, owned by the snapshot. */
struct live_snapshot {
	uint64_t now_ns; /* trace time of the snapshot (ns since the trace's start) */
	int64_t start_wall_ns;
	char *target, *host, *layers; /* from the trace's metadata */
	uint64_t events, lost;	      /* events delivered; records lost (set by the owner) */
	uint32_t processes, threads;  /* alive now */
	uint32_t processes_seen;
	struct live_counts total;
	uint64_t class_ns[LIVE_CLASSES];
	struct live_layers layers_n;
	struct live_training training;
	struct live_phases phases;
	struct live_row *rows[LIVE_TABLES]; /* the table's rows, then its "other" row */
	uint32_t nrows[LIVE_TABLES];
	char *text; /* names */
};

void live_snapshot_free(struct live_snapshot *s);

/* Job totals for /metrics. */
struct live_totals {
	const struct live_counts *total;
	const uint64_t *class_ns;			      /* [LIVE_CLASSES] */
	const uint64_t (*class_lat)[LIVE_METRIC_BUCKETS + 1]; /* [LIVE_CLASSES], last: +Inf */
	const uint64_t *class_ops;			      /* [LIVE_CLASSES] */
	const struct live_layers *layers;
	uint64_t events;
	uint32_t processes, threads;
};

struct live_stats;

/* rows: rows per table (0: the defaults, 1024 processes, 1024 files, 512 directories). */
struct live_stats *live_stats__new(uint32_t rows);
void live_stats__free(struct live_stats *ls);
/* Deliver the job's events here. */
struct event_consumer *live_stats__consumer(struct live_stats *ls);
/* A copy of everything at trace time now_ns; -1 when out of memory. */
int live_stats__snapshot(const struct live_stats *ls, uint64_t now_ns, struct live_snapshot *out);
/* The same without the tables' rows (what the lines of the view need). */
int live_stats__snapshot_totals(const struct live_stats *ls, uint64_t now_ns,
				struct live_snapshot *out);
void live_stats__totals(const struct live_stats *ls, struct live_totals *out);

#endif
