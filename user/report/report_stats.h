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
 * outputs, wherever they are staged) carry the Darshan-style counters;
 * environment I/O (Python imports, shared libraries, /proc, /sys, /dev,
 * system files) and other descriptors (pipes, sockets, unnamed, shared
 * memory) are summarized on their own so they do not pollute the dataset
 * figures.
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
#include "io/trace_status.h"
#include "lib/u64_index.h"

#define NONE32 UINT32_MAX

struct rs_gpu;

#define SIZE_BINS     10 /* Darshan: 0-100, 100-1K, 1K-10K, 10K-100K, 100K-1M, 1M-4M, ... 1G+ */
#define TIMELINE_BINS 256
#define BURST_KEEP    32
#define ERRNO_KEEP    32
#define SIZE_KEYS_MAX 65536	    /* distinct access sizes counted exactly */
#define SMALL_IO      (1u << 20)    /* Drishti's "small" request: under 1 MiB */
#define BURST_GAP_NS  1000000000ull /* writes closer than this form one burst */
#define BURST_MIN     (1u << 20)    /* bursts that moved less are not kept */

enum { IO_DIR_READ, IO_DIR_WRITE };
/* the time classes; hint calls (fadvise64, readahead, madvise) count as CLS_META */
enum { CLS_DATA, CLS_META, CLS_SYNC, CLS_COUNT };

struct rs_trace {
	const char *file; /* as given on the command line */
	uint32_t hostname, kernel, target, version, start_wall, stop_reason; /* string ids */
	int64_t start_wall_ns;
	int64_t offset_ns; /* start_wall_ns - the report's origin */
	uint64_t events;   /* events read */
	bool has_summary;
	uint64_t summary_events, lost_events, lost_bytes, duration_ns;
	/* the summary: the file stopped taking events on a write error, or at its size cap */
	bool truncated;
	uint32_t write_error; /* its text (string id or NONE32) */
	uint64_t capped_events;
	int64_t end_wall_ns; /* CLOCK_REALTIME when tracing stopped (0: not said) */
	uint64_t end_ns;     /* latest ts + dur seen */
	struct trace_read_status status;
};

struct rs_proc {
	uint32_t trace, pid, ppid; /* ppid 0: not known (not forked inside the trace) */
	uint32_t owner, owner_gen; /* the training loop its I/O counts for (report_phases.c) */
	uint32_t name;		   /* command line (string id) or NONE32 */
	uint32_t parent;	   /* index, set by report_derive */
	uint64_t first_ns, last_ns;
	bool started, exited;
	uint32_t threads;
	uint64_t io_ns[SCOPE_COUNT][CLS_COUNT];
	uint64_t calls, failed;
	uint64_t app_bytes_read, app_bytes_written, app_reads, app_writes;
	uint64_t app_read_ns, app_write_ns;
	uint8_t origins; /* 1 << ORG_*: the layers of its application I/O */
	uint8_t libs;	 /* 1 << enum dl_layer: the libraries of the library layers it loaded */
	/* its rank in the job (launchers' environment variables); -1: unknown */
	int64_t rank, local_rank, world_size;
	uint32_t rank_from; /* the variable (string id) */
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

/*
 * Where an application's file I/O came from.  Each request is counted once,
 * in the figures, by the layer that issued it: a syscall, an io_uring or
 * native AIO request (when it completed), a page fault on a file mapping.
 */
enum { ORG_SYSCALL, ORG_URING, ORG_AIO, ORG_MMAP, ORG_COUNT };
struct rs_origin {
	uint64_t reads, writes, syncs, bytes_read, bytes_written;
};

/* An io_uring or AIO request between its begin and its end (report_events.c). */
struct rs_async {
	uint32_t trace, ti, file;	 /* file: NONE32 for other files */
	uint8_t origin, dir, scope, env; /* dir: 0 read, 1 write, 2 sync, 3 other */
	bool has_offset;
	uint64_t seq, offset, start;
};

struct rs_file {
	uint32_t name, dir, mount; /* string id; dir and mount indexes (mount NONE32: none) */
	uint8_t scope, env;
	uint8_t origins; /* 1 << ORG_*: the layers its reads, writes and syncs came from */
	uint64_t bytes_read, bytes_written, reads, writes;
	uint64_t seq_reads, consec_reads, seq_writes, consec_writes;
	uint64_t random_reads, random_writes, small_reads, small_writes;
	uint64_t seeks, rw_switches, opens, stats, meta_ops, syncs, mmaps, calls;
	uint64_t hints; /* fadvise64, readahead, madvise (also in meta_ops) */
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

/* What the report knows of one interned path: scope_of() and, once asked, its file. */
struct rs_ref {
	struct path_ref *ref; /* the report's reference */
	uint32_t file;	      /* NONE32: not asked yet */
	uint8_t scope, env;
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
	uint64_t hints; /* fadvise64, readahead, madvise (also in meta_ops) */
	uint64_t io_ns[CLS_COUNT], read_ns, write_ns;
};

struct rs_env_kind {
	uint64_t calls, failed, bytes_read, bytes_written, io_ns;
	uint32_t files;
};

/* Calls on shared memory (part of the other scope): segments, SysV, memfd. */
struct rs_shm {
	uint64_t calls, failed, bytes_read, bytes_written, io_ns;
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
	uint64_t uring_requests, aio_requests, vfs_events;
};

/*
 * Levels above the syscalls (report_levels.c): the library calls of the
 * stdio, hdf5 and mpiio layers, per function, and what they caused below
 * (the syscalls each call encloses on its thread, from its args).
 *
 * A level is its layer (enum dl_layer, bpf/dltrace_events.h): arrays of
 * levels have DL_LEVEL_COUNT entries, DL_LAYER_SYSCALL's for the syscalls;
 * the markers' stays empty (markers are phases, not I/O: report_phases.c).
 */
static inline bool rs_is_level(int l)
{
	return l >= 0 && l < DL_LEVEL_COUNT && l != DL_LAYER_MARKERS;
}

enum { LV_DIR_READ, LV_DIR_WRITE, LV_DIR_FLUSH, LV_DIR_OTHER };
#define LEVEL_FN_MAX 64

struct rs_level_fn {
	uint8_t level,
	    dir; /* enum dl_layer, LV_DIR_* (flush: calls that write what earlier calls buffered) */
	uint32_t name; /* string id */
	uint64_t calls, failed, time_ns;
	uint64_t bytes_requested, requested_calls; /* calls whose args give the bytes asked */
	uint64_t syscalls, sys_reads, sys_read_bytes, sys_writes, sys_write_bytes, partial;
	struct quantile_sketch lat;
};

/*
 * Amplification per object (report_levels.c): what the library calls on
 * one HDF5 dataset, or on one file (a stdio stream's, an MPI-IO file's,
 * or all of an HDF5 file's calls: the row whose object is NONE32), asked
 * for, joined with what the syscalls they enclose did and with what those
 * reads brought into the page cache.  Reads are the read calls (fread,
 * H5Dread, MPI_File_read*); writes the write calls with the flushes and
 * closes that write what they buffered.
 */
#define LEVEL_SIZES 16 /* distinct bytes-asked sizes counted per object */
enum { LV_SEL_NONE, LV_SEL_POINTS, LV_SEL_HYPER, LV_SEL_ALL, LV_SEL_COUNT };

struct rs_level_side { /* reads or writes */
	uint64_t calls, time_ns;
	uint64_t asked_calls, asked;	  /* calls whose bytes asked are known, and those bytes */
	uint64_t syscalls, sys_bytes;	  /* the read (write) syscalls they enclose */
	uint64_t cache_reads, cache_miss; /* reads: those the cache layer saw, bytes from storage */
	uint64_t sel_calls[LV_SEL_COUNT], sel_bytes[LV_SEL_COUNT]; /* HDF5: by selection kind */
	struct rs_size sizes[LEVEL_SIZES]; /* bytes asked by a call -> calls */
	uint32_t nsizes;
	uint64_t sizes_other; /* calls of sizes beyond LEVEL_SIZES */
};

struct rs_level_obj {
	uint8_t level;
	uint32_t file, object; /* string ids; object NONE32: the file's row */
	struct rs_level_side rd, wr;
	uint64_t opens;		  /* calls that opened it (H5Oopen, H5Dopen2, H5Fopen, fopen...) */
	uint64_t open_read_bytes; /* what their syscalls read */
};

struct rs_levels {
	struct rs_level_fn fn[LEVEL_FN_MAX];
	uint32_t nfn;
	uint64_t calls[DL_LEVEL_COUNT], time_ns[DL_LEVEL_COUNT];
	uint64_t unknown; /* calls of functions beyond LEVEL_FN_MAX */
	struct rs_level_obj *objs;
	uint32_t nobjs, cap_objs;
	struct u64_index obj_ix; /* file << 35 | level << 32 | object -> index in objs */
	/* libhdf5, libmpi loaded (opened) by traced processes: the first one's path, how many */
	uint32_t lib_path[DL_LEVEL_COUNT], lib_procs[DL_LEVEL_COUNT];
};

/*
 * A library layer that was off while traced processes loaded its library
 * (rs_layer_hint): what turning it on would explain.
 */
struct rs_layer_hint {
	const char *layer;     /* "hdf5", "mpiio" */
	uint32_t library;      /* the first such library's path (string id) */
	uint32_t procs;	       /* processes that loaded one */
	uint32_t files;	       /* hdf5: the .h5 files read */
	uint64_t reads, bytes; /* hdf5: their reads; mpiio: those processes' application reads */
};

/*
 * Python locations (report_python.c, --python-stacks): the syscalls whose
 * event names the Python code behind it (ev_syscall.py, "FILE:LINE
 * FUNCTION", the innermost application frame), per location: every such
 * syscall counts once, whatever file it touched; bytes are what read and
 * write kinds moved (the syscall origin only: page faults carry no frame).
 */
struct rs_py_count {
	uint64_t calls, bytes, ns;
};

/* What a location did that a finding is about (application files only, as the findings). */
enum rs_py_what {
	PYW_READS,	 /* reads of application files */
	PYW_WRITES,	 /* writes of application files */
	PYW_SMALL_READS, /* of them, under 1 MiB */
	PYW_SMALL_WRITES,
	PYW_RANDOM_READS, /* not sequential in the process's reads of the file */
	PYW_RANDOM_WRITES,
	PYW_META,   /* metadata calls (open, stat, close, ...) */
	PYW_SYNCS,  /* fsync, fdatasync, sync_file_range */
	PYW_FAILED, /* failed calls, any file */
	PYW_COUNT
};

struct rs_py_loc {
	uint32_t loc; /* string id */
	uint64_t calls, failed, reads, read_bytes, writes, write_bytes, io_ns;
	struct rs_py_count what[PYW_COUNT];
};

struct rs_python {
	struct u64_index ix; /* string id -> index in locs */
	struct rs_py_loc *locs;
	uint32_t n, cap;
	uint64_t calls, io_ns; /* syscalls with a location, and their time */
	uint32_t cur;	       /* the location of the syscall being counted, or NONE32 */
};

/*
 * Phases (report_phases.c): the job's own regions (dltrace markers).  A
 * thread with "step" or "epoch" regions is a training loop (an owner); the
 * I/O of its process and of the processes it started (DataLoader workers)
 * counts for its phases by the time each call began:
 *
 *   owner's thread:  [fetch][ step 0 ][fetch][ step 1 ] ...  (epoch 0) [fetch][ step 5 ]
 *   timeline:        |--iteration 0---|-gap-|--iteration 1-|  tail  |  gap  |iteration 5
 *
 * An iteration runs from the batch fetches before its step (fetch
 * regions; without any, from the previous step's end) to the step's end;
 * its data stall is the time in those fetches (without fetch regions: the
 * thread's reads of pipes and sockets in it).  Regions arrive when they
 * end, after the calls inside them: calls that began after the owner's
 * last step or epoch end wait (bounded) until the next one arrives.
 */
struct rs_phase_io {					  /* calls that began in a phase */
	uint64_t bytes_read, bytes_written, calls, io_ns; /* syscalls on application files */
	uint64_t level_ns[DL_LEVEL_COUNT]; /* time in calls of each level (syscalls: application
					      files) */
};

#define SLOW_KEEP  5 /* slowest iterations kept per owner, with their files */
#define SLOW_FILES 8

struct rs_slow_file {
	uint32_t file;
	uint64_t bytes, io_ns;
};

struct rs_slow {
	uint32_t step;
	uint32_t nfiles;
	struct rs_slow_file files[SLOW_FILES];
};

struct rs_step {
	uint32_t owner, epoch; /* epoch: index in phases.epochs, NONE32 */
	int64_t index;	       /* its "step" argument (-1: none) */
	uint64_t start, end;   /* the step region, report time */
	uint64_t istart;       /* its iteration's start */
	uint64_t stall_ns;
	bool fetched;  /* stall from fetch regions (else from pipe and socket reads) */
	uint32_t slow; /* its entry in the owner's slow[], NONE32 */
	struct rs_phase_io io, gap;
};

struct rs_epoch {
	uint32_t owner;
	int64_t index;
	uint64_t start, end;
	struct rs_phase_io tail; /* after its last step, to its end */
	/* report_phases' derive */
	uint32_t steps;
	uint64_t iter_ns, stall_ns, step_max_ns;
	struct rs_phase_io io;
};

struct rs_mark { /* a step's or an epoch's end on its owner's timeline */
	uint64_t end;
	uint32_t index;
	bool epoch;
};

struct rs_item { /* a call waiting for the phase it began in */
	uint64_t start, dur, bytes_read, bytes_written;
	uint32_t proc, thread, file; /* file: application file (NONE32: none) */
	uint8_t level;
	bool wait;	/* a read of a pipe or socket */
	uint32_t calls; /* a run's calls (dur: their time summed); 0: one */
};

#define FETCH_KEEP 64

struct rs_owner {
	uint32_t thread, proc;
	struct rs_mark *marks;
	uint32_t nmarks, cap_marks;
	uint64_t boundary; /* the last mark's end */
	struct {
		uint64_t start, end;
	} fetch[FETCH_KEEP]; /* fetch regions since the last mark */
	uint32_t nfetch;
	bool fetch_seen; /* fetch regions mark the batch waits */
	struct rs_item *pend;
	uint32_t npend, cap_pend;
	uint64_t dropped; /* calls that did not fit in pend (counted in after) */
	uint32_t steps, epochs, nested;
	/* calls outside its iterations, gaps and epochs: before its first mark, */
	/* between an epoch's end and the next mark's phase, after its last mark */
	struct rs_phase_io before, between, after;
	struct rs_slow slow[SLOW_KEEP];
	uint32_t nslow;
	/* rs_phases_derive: over its steps (iterations: fetch + step) */
	struct {
		uint64_t iter_ns, stall_ns, bytes_read, bytes_written;
		uint64_t iter_p50, iter_p99, iter_max, step_p50, step_p99, step_max;
		uint64_t stall_p50, stall_p99, stall_max, read_p50, read_p99, read_max;
		double share_p50, share_p99, share_max;
		uint32_t worst; /* the step of the longest iteration, NONE32 */
	} sum;
};

#define REGION_KEEP 64

struct rs_region { /* marker regions by name */
	uint32_t name;
	uint64_t count, time_ns;
	struct quantile_sketch dur;
};

struct rs_phases {
	struct rs_owner *owners;
	uint32_t nowners, cap_owners;
	struct u64_index owner_ix; /* thread index -> owner */
	uint32_t gen;		   /* owners changed: process -> owner caches are stale */
	struct rs_step *steps;
	uint32_t nsteps, cap_steps;
	struct rs_epoch *epochs;
	uint32_t nepochs, cap_epochs;
	struct rs_item *orphans; /* a ring: calls of processes with no owner (yet) */
	uint32_t norphans, orphan_head, cap_orphans;
	struct rs_phase_io unowned; /* calls no owner claimed */
	struct rs_region regions[REGION_KEEP];
	uint32_t nregions;
	uint64_t other_regions, instants, counters;
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
	uint32_t *file_of_string;   /* string id -> file index (NONE32) */
	uint32_t file_of_string_cap;

	struct rs_syscall sys[SCOPE_COUNT][DL_SYS_COUNT];
	struct rs_totals tot[SCOPE_COUNT];
	struct rs_origin origin[ORG_COUNT]; /* application files, by the layer that issued */
	struct rs_async *async;		    /* io_uring and AIO requests begun, not ended */
	uint32_t nasync, cap_async;
	uint64_t hist[2][SIZE_BINS]; /* application reads, writes */
	struct u64_index size_ix;    /* dir << 63 | size -> index in sizes */
	struct rs_size *sizes;
	uint32_t nsizes, cap_sizes;
	uint64_t sizes_uncounted; /* accesses of sizes beyond SIZE_KEYS_MAX */
	struct rs_env_kind env[ENV_COUNT];
	struct rs_shm shm;
	struct u64_index shm_ix; /* names directly in /dev/shm: string id -> scope (first use) */
	struct rs_errno errnos[ERRNO_KEEP];
	uint32_t nerrnos;
	uint64_t errnos_other;

	uint64_t events, syscalls, unknown_syscalls, process_events;
	uint64_t
	    run_calls; /* syscalls counted in runs (counting mode): their times are the runs' */
	struct rs_layers layers;
	struct rs_levels levels;
	struct rs_python python;
	struct rs_phases phases;
	struct rs_gpu *gpu; /* a profiler trace's GPU idle time (report_gpu_idle.h; NULL: none) */
	uint64_t last_ns;   /* latest event end, report time */

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
	/*
	 * The live decoder's interned paths (lib/path_table.h) met so far, found
	 * by address instead of by hashing the name; a reference is held on each,
	 * so that no address comes back for another name.
	 */
	struct u64_index ref_ix; /* path_ref address -> index in refs */
	struct rs_ref *refs;
	uint32_t nrefs, cap_refs;
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

/* All of the accumulators' state (report_session.c). */
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

/* report_phases.c: per epoch figures and the steps' epochs (called by rs_derive). */
void rs_phases_derive(struct report_stats *st);
/* The data stall of a step: its share of the step's iteration. */
double rs_step_stall_share(const struct rs_step *s);
/* "epoch 1 step 3": what the step's arguments say, else "step at T s" from the job's start. */
const char *rs_step_label(const struct report_stats *st, const struct rs_step *s, char *buf,
			  size_t size);
static inline uint64_t rs_step_iter_ns(const struct rs_step *s)
{
	return s->end > s->istart ? s->end - s->istart : 0;
}
/* An owner's steps in time order, grouped into at most max bars of consecutive steps. */
struct rs_stall_bar {
	uint32_t first, steps;	    /* the bar's first step (index in phases.steps), how many */
	uint64_t iter_ns, stall_ns; /* sums */
};
uint32_t rs_stall_bars(const struct report_stats *st, uint32_t owner, struct rs_stall_bar *bars,
		       uint32_t max);
/* The owner's slow[] entries, slowest iteration first; returns how many. */
uint32_t rs_slow_order(const struct report_stats *st, const struct rs_owner *o,
		       uint32_t order[SLOW_KEEP]);
/* The owners worth reporting (with steps or epochs), most steps first; caller frees. */
uint32_t *rs_phase_owners(const struct report_stats *st, uint32_t *n);
/* A level's reads or writes (flushes count with the writes) against the syscalls they made. */
struct rs_level_dir {
	uint64_t calls, time_ns;
	uint64_t requested, requested_calls; /* bytes asked, by the calls whose args say */
	uint64_t syscalls, sys_bytes;	     /* read (write) syscalls inside them, their bytes */
};
void rs_level_dirs(const struct report_stats *st, int level, struct rs_level_dir *read,
		   struct rs_level_dir *write);
/*
 * Syscall bytes per byte asked on one side of an object: < 0 when unknown
 * (a call's bytes asked unknown, or no calls), INFINITY when bytes moved
 * and none were asked.
 */
double rs_level_ratio(const struct rs_level_side *s);
/* Whether the trace had level's layer off while processes loaded its library; fills h. */
bool rs_layer_hint(const struct report_stats *st, int level, struct rs_layer_hint *h);
/* "FILE:/dataset", or the file's name for a file's row. */
const char *rs_level_obj_name(const struct report_stats *st, const struct rs_level_obj *o,
			      char *buf, size_t size);
/* Sort key (rs_sorted) of the objects: read bytes beyond those asked, then bytes moved. */
double key_level_obj(const struct report_stats *st, uint32_t i);
/* Read syscall bytes beyond the bytes asked (0 when unknown or not more). */
uint64_t rs_level_excess(const struct rs_level_side *s);
/* The most common bytes-asked sizes of o, most calls first: up to n indexes into o->sizes. */
uint32_t rs_level_top_sizes(const struct rs_level_side *o, uint32_t *idx, uint32_t n);
extern const char *const rs_sel_names[LV_SEL_COUNT];
/* Level names: "syscall", "stdio", "hdf5", "mpiio". */
extern const char *const rs_level_names[DL_LEVEL_COUNT];

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
/* Python locations by I/O time (then calls). */
double key_py_loc(const struct report_stats *st, uint32_t i);
uint32_t *rs_sorted(uint32_t n, double (*key)(const struct report_stats *, uint32_t),
		    const struct report_stats *st);

/*
 * Share of the bytes read that the page cache served: 1 - misses / bytes
 * read, at least 0 (readahead can bring in more than a read returns);
 * -1 when no read carried cache information.
 */
double rs_cache_hit_ratio(uint64_t miss, uint64_t read_bytes);

#endif
