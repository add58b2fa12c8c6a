/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The figures of `dltrace report`, accumulated event by event while the
 * trace streams past (report_events.c hands each event to report_tables.c,
 * report_access.c and report_timeline.c) and completed once at the end
 * (report_derive.c).  Memory is bounded by the number of distinct traces,
 * processes, threads, files, (process, file) pairs and directories, never
 * by the number of events: distributions are kept as fixed histograms or
 * quantile sketches.
 *
 * Three scopes (path_scope.h): application files (datasets, checkpoints,
 * outputs) carry the Darshan-style counters; environment I/O (Python
 * imports, shared libraries, /proc, /sys, /dev, system files) and other
 * descriptors (pipes, sockets, unnamed) are summarized on their own so
 * they do not pollute the dataset figures.
 *
 * Darshan's definitions, per file and process (Darshan's per-rank record):
 * an access is sequential when its offset is above the last byte of the
 * previous access in the same direction (initially 0), consecutive when it
 * starts right after it; sizes are the bytes the call moved (its return
 * value); a read/write switch is a read after a write or the reverse.
 */
#ifndef REPORT_STATS_H
#define REPORT_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "bpf/dltrace_events.h"
#include "report/path_scope.h"
#include "lib/quantile_sketch.h"
#include "lib/string_index.h"
#include "event/event.h"
#include "format/trace_status.h"
#include "lib/u64_index.h"

#define NONE32 UINT32_MAX

#define SIZE_BINS     10 /* Darshan: 0-100, 100-1K, 1K-10K, 10K-100K, 100K-1M, 1M-4M, ... 1G+ */
#define TIMELINE_BINS 256
#define BURST_KEEP    32
#define ERRNO_KEEP    32
#define SIZE_KEYS_MAX 65536	    /* distinct access sizes counted exactly */
#define SMALL_IO      (1u << 20)    /* Drishti's "small" request: under 1 MiB */
#define BURST_GAP_NS  1000000000ull /* writes closer than this form one burst */
#define BURST_MIN     (1u << 20)    /* bursts that moved less are not kept */

enum { IO_DIR_READ, IO_DIR_WRITE };
enum { CLS_DATA, CLS_META, CLS_SYNC, CLS_COUNT };

struct rs_trace {
	const char *file; /* as given on the command line */
	uint32_t hostname, kernel, target, version, start_wall, stop_reason; /* string ids */
	int64_t start_wall_ns;
	int64_t offset_ns; /* start_wall_ns - the report's origin */
	uint64_t events;   /* events read */
	bool has_summary;
	uint64_t summary_events, lost_events, lost_bytes, duration_ns;
	uint64_t end_ns; /* latest ts + dur seen */
	struct trace_read_status status;
};

struct rs_proc {
	uint32_t trace, pid, ppid; /* ppid 0: not known (not forked inside the trace) */
	uint32_t name;		   /* command line (string id) or NONE32 */
	uint32_t parent;	   /* index, set by report_derive */
	uint64_t first_ns, last_ns;
	bool started, exited;
	uint32_t threads;
	uint64_t io_ns[SCOPE_COUNT][CLS_COUNT];
	uint64_t calls, failed;
	uint64_t app_bytes_read, app_bytes_written, app_reads, app_writes;
	uint64_t app_read_ns, app_write_ns;
};

struct rs_thread {
	uint32_t proc, tid;
	uint32_t comm; /* string id or NONE32 */
	uint64_t first_ns, last_ns;
	bool started, exited;
	uint64_t io_ns[CLS_COUNT];	/* all scopes */
	uint64_t scope_ns[SCOPE_COUNT]; /* time in calls on application, environment, other files */
	uint64_t calls;
	uint64_t app_read_ns, app_bytes_read, app_reads;
	/* the write burst in progress */
	bool b_on;
	uint32_t b_file, b_ops;
	uint64_t b_start, b_end, b_bytes, b_blocked;
	/* bursts of at least BURST_MIN */
	uint64_t bursts, burst_bytes, burst_blocked_ns;
};

struct rs_file {
	uint32_t name, dir, mount; /* string id; dir and mount indexes (mount NONE32: none) */
	uint8_t scope, env;
	uint64_t bytes_read, bytes_written, reads, writes;
	uint64_t seq_reads, consec_reads, seq_writes, consec_writes;
	uint64_t random_reads, random_writes, small_reads, small_writes;
	uint64_t seeks, rw_switches, opens, stats, meta_ops, syncs, mmaps, calls;
	int64_t max_byte_read, max_byte_written; /* -1: none */
	uint64_t file_size;			 /* largest size seen at an open */
	uint64_t reread_within_open;		 /* bytes read again while the file stayed open */
	uint64_t faults, cache_miss; /* mmap page faults; bytes reads brought into the cache */
	uint64_t cache_read_bytes;   /* bytes returned by the reads that carry cache_miss */
	uint64_t io_ns[CLS_COUNT], read_ns, write_ns;
	uint64_t first_ns, last_ns;
	uint32_t procs, readers, first_pair;
	/* report_derive */
	uint64_t extent;	       /* max(size, highest byte accessed + 1) */
	uint64_t concurrent_dup_bytes; /* read by several processes at the same time */
	double passes; /* (bytes read - re-read within an open - read concurrently) / extent */
};

struct rs_pair {
	uint32_t proc, file, next; /* next pair of the same file */
	int64_t last_byte_read, last_byte_written;
	uint8_t last_io; /* 0 none, 1 read, 2 write */
	bool has_read, has_written, sess_on;
	int32_t open_depth;
	int64_t sess_min, sess_end;
	uint64_t sess_bytes;
	uint64_t bytes_read, first_read_ns, last_read_ns;
	uint64_t reread; /* bytes read again within one open */
};

struct rs_dir {
	uint32_t name;
	uint8_t scope;
	uint32_t files;
	uint64_t bytes_read, bytes_written, reads, writes, meta_ops, failed, io_ns;
};

struct rs_mount {
	uint32_t dev, fs; /* string ids */
	uint32_t prefix;  /* common directory of its files (report_derive) */
	uint32_t files;
	uint64_t bytes_read, bytes_written, io_ns;
};

struct rs_syscall {
	uint64_t calls, failed, bytes, lat_sum;
	struct quantile_sketch size, lat;
};

struct rs_burst {
	uint32_t thread, file, ops;
	uint64_t start_ns, end_ns, bytes, blocked_ns;
};

struct rs_size {
	uint64_t key; /* direction << 63 | bytes */
	uint64_t count;
};

struct rs_totals { /* one scope */
	uint64_t calls, failed, reads, writes, bytes_read, bytes_written;
	uint64_t seq_reads, consec_reads, seq_writes, consec_writes, random_reads, random_writes;
	uint64_t small_reads, small_writes, seeks, rw_switches, opens, stats, meta_ops, syncs;
	uint64_t mmaps, no_offset;
	uint64_t io_ns[CLS_COUNT], read_ns, write_ns;
};

struct rs_env_kind {
	uint64_t calls, failed, bytes_read, bytes_written, io_ns;
	uint32_t files;
};

struct rs_errno {
	char name[24];
	uint64_t count[SCOPE_COUNT];
};

/* How far peers are apart: application bytes moved and time in application I/O. */
struct rs_spread {
	uint64_t bytes_min, bytes_max, io_min, io_max;
	uint32_t slowest, fastest;		/* peer indexes (by app I/O time) */
	uint32_t most, least;			/* peer indexes (by bytes) */
	double bytes_imbalance, time_imbalance; /* (max - min) / max */
};

struct rs_group {		 /* processes compared for balance */
	uint32_t first, members; /* first member index in group_members */
	uint32_t parent;	 /* proc index or NONE32 (several hosts) */
	uint32_t name;
	struct rs_spread spread; /* peers: proc indexes */
};

/* A node: the traces of one hostname (report_derive). */
struct rs_host {
	uint32_t hostname; /* string id */
	uint32_t traces, procs, threads;
	uint64_t bytes_read, bytes_written; /* application files */
	uint64_t io_ns;			    /* time in calls on application files */
	uint64_t calls, failed;		    /* file syscalls, all files */
	uint64_t events, lost_events;
	uint64_t first_ns, last_ns; /* its processes' first and last event (report time) */
};

/* What the other capture layers saw (when the trace has them). */
struct rs_layers {
	uint32_t active;			/* the header's "layers" (string id), first trace */
	uint64_t faults[SCOPE_COUNT];		/* page faults on file mappings, by scope */
	uint64_t cache_reads;			/* reads that carry cache_miss_bytes */
	uint64_t cache_miss[SCOPE_COUNT];	/* bytes reads brought into the page cache */
	uint64_t cache_read_bytes[SCOPE_COUNT]; /* bytes those reads returned */
	uint64_t block_requests[3];		/* read, write, other */
	uint64_t block_bytes[2];		/* read, write */
	struct quantile_sketch block_lat;	/* ns */
	uint64_t uring_requests, vfs_events;
};

struct report_stats {
	struct string_index strings;
	struct rs_trace *traces;
	uint32_t ntraces, cur;
	int64_t origin_wall_ns;
	bool origin_set;

	struct rs_proc *procs;
	struct rs_thread *threads;
	struct rs_file *files;
	struct rs_pair *pairs;
	struct rs_dir *dirs;
	struct rs_mount *mounts;
	uint32_t nprocs, nthreads, nfiles, npairs, ndirs, nmounts;
	uint32_t cap_procs, cap_threads, cap_files, cap_pairs, cap_dirs, cap_mounts;
	struct u64_index proc_ix, thread_ix, pair_ix, file_ix, dir_ix, mount_ix;
	struct u64_index device_ix; /* trace << 32 | pid of block devices' tracks: not processes */
	uint32_t *file_of_string; /* string id -> file index (NONE32) */
	uint32_t file_of_string_cap;

	struct rs_syscall sys[SCOPE_COUNT][DL_SYS_COUNT];
	struct rs_totals tot[SCOPE_COUNT];
	uint64_t hist[2][SIZE_BINS]; /* application reads, writes */
	struct u64_index size_ix;    /* dir << 63 | size -> index in sizes */
	struct rs_size *sizes;
	uint32_t nsizes, cap_sizes;
	uint64_t sizes_uncounted; /* accesses of sizes beyond SIZE_KEYS_MAX */
	struct rs_env_kind env[ENV_COUNT];
	struct rs_errno errnos[ERRNO_KEEP];
	uint32_t nerrnos;
	uint64_t errnos_other;

	uint64_t events, syscalls, unknown_syscalls, process_events;
	struct rs_layers layers;
	uint64_t last_ns; /* latest event end, report time */

	/* timeline of application bytes (report time: ns since the origin) */
	uint64_t tl_width;
	uint64_t tl_read[TIMELINE_BINS], tl_write[TIMELINE_BINS], tl_meta[TIMELINE_BINS];

	struct rs_burst top_bursts[BURST_KEEP]; /* longest blocked first */
	uint32_t nbursts_kept;
	uint64_t bursts, burst_bytes, burst_blocked_ns;

	/* lookup caches */
	uint64_t cache_thread_key;
	/* the scope of the last path classified (most events repeat their file) */
	char scope_path[256];
	uint32_t scope_len; /* 0: none */
	uint8_t scope, scope_env;
	uint32_t cache_thread;

	/* report_derive */
	bool derived;
	uint32_t training_thread; /* NONE32 when there is no thread */
	struct rs_group *groups;
	uint32_t *group_members;
	uint32_t ngroups;
	struct rs_host *hosts; /* in order of first appearance */
	uint32_t nhosts;
	uint32_t *host_of_trace;
	struct rs_spread host_spread; /* across hosts (peers: host indexes) */
	uint32_t nprocs_active;	      /* processes with a thread seen (not device tracks) */
	uint64_t job_start_ns;	      /* the first event of the job's processes */
	uint64_t wall_ns;	      /* from the first to the last event of the job's processes */
	uint64_t traces_end_ns;	      /* the end of the last trace */
	uint64_t dataset_bytes;	      /* sum of extents of application files read */
	uint64_t redundant_in_open;   /* sum of reread_within_open */
	uint64_t concurrent_dup;      /* sum of concurrent_dup_bytes */
	uint32_t files_read, files_written, files_read_once, files_reread;
	uint32_t size_bins_files[SIZE_BINS]; /* application files by extent */
	bool oom;
	struct event_consumer consumer; /* rs_consumer() */
};

void rs_init(struct report_stats *st);
void rs_free(struct report_stats *st);
/* Report time 0 = this wall-clock time (the earliest start of the traces). */
void rs_set_origin(struct report_stats *st, int64_t wall_ns);
/* Start a new trace file; events follow through rs_event. */
int rs_begin_trace(struct report_stats *st, const char *file);
void rs_event(struct report_stats *st, const struct event *e);
/* The report as a consumer of the event stream (delivers to rs_event). */
struct event_consumer *rs_consumer(struct report_stats *st);
void rs_end_trace(struct report_stats *st, const struct trace_read_status *status);

/* Darshan's size bin of a byte count. */
int rs_size_bin(uint64_t bytes);
extern const char *const rs_size_bin_names[SIZE_BINS];
const char *rs_class_name(int cls);

/* report_derive.c: complete the figures after the last trace. */
void rs_derive(struct report_stats *st);
/* Close what is still open at the end of the input (bursts, sessions). */
void rs_finish_input(struct report_stats *st);
/* End the open-file session of a (process, file) pair: count bytes read twice. */
void rs_session_end(struct report_stats *st, struct rs_pair *p);

/* The timeline bins that cover the job: tl_*[first .. first + n). */
void rs_timeline_range(const struct report_stats *st, uint32_t *first, uint32_t *n);

/* Helpers for the outputs */
static inline uint64_t rs_since_job(const struct report_stats *st, uint64_t t)
{
	return t > st->job_start_ns ? t - st->job_start_ns : 0;
}
static inline const char *rs_str(const struct report_stats *st, uint32_t id)
{
	return id == NONE32 ? "" : string_at(&st->strings, id);
}
static inline uint32_t rs_strlen(const struct report_stats *st, uint32_t id)
{
	return id == NONE32 ? 0 : string_len(&st->strings, id);
}
uint64_t rs_thread_wall(const struct report_stats *st, const struct rs_thread *t);
uint64_t rs_proc_wall(const struct report_stats *st, const struct rs_proc *p);
uint64_t rs_thread_io(const struct rs_thread *t);
uint64_t rs_proc_io(const struct rs_proc *p);
/* Indexes 0..n-1 sorted by a key, largest first; caller frees. */
uint32_t *rs_sorted(uint32_t n, double (*key)(const struct report_stats *, uint32_t),
		    const struct report_stats *st);

/*
 * Share of the bytes read that the page cache served: 1 - misses / bytes
 * read, at least 0 (readahead can bring in more than a read returns);
 * -1 when no read carried cache information.
 */
double rs_cache_hit_ratio(uint64_t miss, uint64_t read_bytes);

#endif
