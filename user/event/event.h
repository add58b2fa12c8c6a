/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The event stream: the one contract between what produces events and what
 * consumes them.
 *
 *   sources                      events                 consumers
 *   decode/  (ring records)  --> struct event  --> tee --> format/ writer (chrome/ JSON,
 *   format/ readers              by pointer,        |       perfetto/ .pftrace)
 *   (a trace file: chrome/,      one at a time      |---> report/ accumulators
 *    perfetto/)                                     `---> (live view, metrics, ...)
 *
 * An event is typed and resolved: file names, command lines and process
 * names are strings, pids are the ids a trace shows (a reused pid already
 * has its alias), times are nanoseconds since the trace's start.  Strings
 * are valid only during the callback: a consumer that keeps one copies it.
 * Events are passed by pointer and never allocated per event.
 *
 * One event is one record of a trace: what the Chrome writer writes as one
 * line and the trace reader reads back from one line.  A fork is two events
 * (EV_FORK on the parent's track, EV_START on the child's), an asynchronous
 * request (block, io_uring, AIO) a begin and an end.  So a trace's `events`
 * count is a property of the stream, the same in every format.
 *
 * Order: a source delivers events in the order it completes them, not in
 * timestamp order.  A syscall is one event when it returns, stamped with
 * its entry time; records of different CPUs, and the data records a task
 * batches, arrive interleaved.  No consumer needs them sorted (Perfetto
 * sorts a JSON trace itself; the report and the live view add up), so the
 * stream is not sorted.  Per thread, events come in completion order.
 *
 * Adding an event kind:
 *   1. Add EV_<KIND> to enum event_type and its payload to the union of
 *      struct event (a struct ev_<kind>, typed fields, strings as ev_str).
 *   2. Add its slot to struct event_consumer and to event_consumer_init()
 *      and event_deliver() (event/event_consumer.c).
 *   3. List its name, category and arguments in event/event_args.c: the
 *      writers write what event_args() lists.
 *   4. Read them back in event/event_parse.c, the one reverse of
 *      event_args() that both trace readers use (the JSON reader and the
 *      .pftrace reader only turn their bytes into a head and typed args):
 *      a trace converted JSON -> .pftrace -> JSON must come back byte for
 *      byte (tests/test_pftrace.py, which traces every syscall).
 *   5. Produce it in a source (decode/record_decoder.c's dispatch, a handler
 *      in the decode/decode_*.c of its concern).
 *
 * Adding a consumer:
 *   1. Embed a struct event_consumer in the consumer's own state, call
 *      event_consumer_init() on it and set only the slots it needs (the
 *      others stay no-ops).  In a slot, get the state back with
 *      container_of(c, struct my_state, consumer).
 *   2. Attach it with event_tee_add() to the session's tee (live/), or give
 *      it to a file source (trace_file_read(), format/trace_format.h).
 */
#ifndef EVENT_H
#define EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "event/lost_counts.h"

#ifndef container_of
#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))
#endif

/* Bytes of a string: exact (any byte but NUL may occur), not NUL-terminated. */
struct ev_str {
	const char *s;
	uint32_t len;
};

#define EV_STR(lit) ((struct ev_str){(lit), sizeof(lit) - 1})

/* A C string (NULL: none) as an ev_str. */
static inline struct ev_str ev_str_of(const char *s)
{
	return (struct ev_str){s, s ? (uint32_t)strlen(s) : 0};
}

/* Is s the C string lit?  (lit a literal: its length is a constant once inlined.) */
static inline bool ev_str_is(const struct ev_str *s, const char *lit)
{
	size_t n = strlen(lit);

	return s->len == n && !memcmp(s->s, lit, n);
}

struct path_ref; /* lib/path_table.h */

/*
 * A file name.  name holds the exact bytes (len 0: no name).  ref, when a
 * live source interned the name, lets a writer reuse its cached JSON form
 * and intern it once; sources that have no table leave it NULL.
 */
struct ev_path {
	struct ev_str name;
	const struct path_ref *ref;
};

enum event_type {
	EV_TRACE_BEGIN,	 /* the trace's metadata: always the first event */
	EV_TRACE_END,	 /* the trace's summary: always the last event */
	EV_SYSCALL,	 /* a file syscall, entry to exit (cat data/metadata/sync) */
	EV_FORK,	 /* the parent's side of a fork or thread creation */
	EV_START,	 /* the child's side: the new process or thread starts */
	EV_EXEC,	 /* a process executed a program */
	EV_EXIT,	 /* a thread exited (with group_dead: the process) */
	EV_PROCESS_NAME, /* a process's name (its command line) */
	EV_THREAD_NAME,	 /* a thread's name (its comm) */
	EV_FAULT,	 /* mmap layer: a page fault that reads a mapped file */
	EV_BLOCK,	 /* block layer: a request's issue (begin) or completion (end) */
	EV_BLOCK_RATE,	 /* block layer: a device's read/write rate over a bucket */
	EV_URING,	 /* uring layer: a request's submission (begin) or completion (end) */
	EV_AIO,		 /* native AIO: an iocb's submission (begin) or its reaped event (end) */
	EV_VFS,		 /* vfs layer: a VFS call (slice), or an I/O check (instant) */
	EV_VFS_OPEN,	 /* vfs layer: vfs_open of a file (instant) */
	EV_SPAN,	 /* a level above syscalls: a library call or marked region, */
			 /* or an instant or counter of one (generic name, category, args) */
	EV_OTHER,	 /* trace reader: an event of no known kind (counted, kept raw) */
	EV_TYPE_COUNT,
};

/* Phase of an asynchronous request (EV_BLOCK, EV_URING, EV_AIO) or a span. */
enum ev_phase {
	EV_PH_COMPLETE = 'X', /* a slice with its duration */
	EV_PH_BEGIN = 'b',    /* async begin */
	EV_PH_END = 'e',      /* async end */
	EV_PH_INSTANT = 'i',
	EV_PH_COUNTER = 'C',
	EV_PH_SLICE_BEGIN = 'B', /* a slice whose end comes later on the same thread */
	EV_PH_SLICE_END = 'E',
	/* a profiler trace's arrows (dltrace merge): the ends of one flow share ev_span.flow */
	EV_PH_FLOW_OUT = 's', /* the arrow leaves the slice around this time */
	EV_PH_FLOW_IN = 'f',  /* it arrives at the slice around this time */
};

/* EV_TRACE_BEGIN */
struct ev_trace_begin {
	struct ev_str format, version, kernel, hostname, target;
	struct ev_str layers;	     /* active capture layers, comma separated */
	struct ev_str layers_off;    /* "layer: reason; ..." for the missing ones (may be empty) */
	struct ev_str layers_attach; /* "layer: method; ..." for the active ones (may be empty) */
	struct ev_str clock;	     /* "CLOCK_MONOTONIC" */
	struct ev_str start_wall;    /* start_wall_ns as ISO 8601 (readers; writers derive it) */
	uint64_t start_mono_ns;	     /* clock value at ts 0 */
	int64_t start_wall_ns;	     /* CLOCK_REALTIME at the same instant */
	uint32_t tracer_pid;
	uint32_t profiler_traces; /* a merge's: PyTorch profiler traces placed in it */
};

/* EV_TRACE_END */
struct ev_trace_end {
	uint64_t events;		/* events of the trace, this one included */
	const struct lost_counts *lost; /* records the kernel side dropped (NULL: none) */
	uint64_t lost_events, lost_bytes;
	uint64_t duration_ns;
	int64_t end_wall_ns;
	struct ev_str stop_reason;
	uint64_t capped_events;	   /* not written: the trace reached its size cap */
	uint64_t paths_unknown;	   /* calls whose file cannot be known (EVS_PATH_UNKNOWN) */
	bool truncated;		   /* the trace was cut short by a write error */
	struct ev_str write_error; /* that error's text ("No space left on device"; len 0: none) */
	/* keys after the others, of any name: a merge's counts of the profiler traces it placed */
	const struct ev_arg *extra;
	uint32_t nextra;
};

/* ev_syscall.flags */
#define EVS_OFFSET	  0x01 /* offset holds a file offset (or ftruncate's length) */
#define EVS_IOV_TRUNC	  0x02 /* more iovecs than the kernel side sums: size is partial */
#define EVS_CACHE	  0x04 /* cache_miss_bytes is known */
#define EVS_IDENTITY	  0x08 /* ino, dev, fs_magic, file_size describe the opened file */
#define EVS_PATH_UNKNOWN  0x10 /* the call's file cannot be known (its record was lost) */
#define EVS_PATH2_UNKNOWN 0x20 /* the same for path2 (sendfile/copy_file_range's output) */
#define EVS_OUT_OFFSET	  0x40 /* splice: offset is the output's (the input is a pipe) */

/* utime, utimes, futimesat, utimensat: atime ([0]) and mtime ([1]) */
struct ev_times {
	int64_t sec[2];
	uint32_t nsec[2]; /* UTIME_NOW, UTIME_OMIT as the kernel spells them; no times: both NOW */
};

/*
 * EV_SYSCALL: the fields of each kind are its row's in bpf/syscalls.def:
 * the record's (struct dl_io, bpf/dltrace_events.h), arg split in
 * arg_lo and arg_hi, and what its show column names (fcntl: arg_lo the
 * command, arg_hi its argument, the locks' l_type | l_whence << 16, with
 * offset = l_start and size = l_len).
 */
struct ev_syscall {
	uint16_t
	    sys; /* enum dl_kind (DL_SYS_*); readers: -1 never occurs, unknown names are EV_OTHER */
	uint16_t flags;	   /* EVS_* */
	uint32_t at_flags; /* *at flags: statx, newfstatat, unlinkat, renameat2, faccessat2, ... */
	uint64_t dur;
	int64_t ret;		 /* the value, or -errno */
	int32_t fd;		 /* the descriptor argument (open*: the dirfd; dup: the old fd) */
	uint32_t arg_lo, arg_hi; /* the kind's other arguments (struct dl_io.arg), */
				 /* cache misses excluded */
	uint64_t offset, size;
	uint64_t cache_miss_bytes; /* bytes the call brought into the page cache */
	uint64_t ino, file_size;   /* EVS_IDENTITY */
	uint32_t dev, fs_magic;
	struct ev_path path;   /* the fd's or the named file */
	struct ev_path path2;  /* rename's, link's new name; sendfile/copy_file_range's output */
	struct ev_str text;    /* xattr calls: the attribute's name; symlink*: the target */
	uint64_t addr;	       /* madvise, msync, munmap: the address (offset: its file offset) */
	struct ev_times times; /* utime* */
	uint16_t sock_family; /* path is a socket: its address family (AF_UNIX = 1, ...; 0: none) */
	/*
	 * --python-stacks: the Python code behind the call, as "FILE:LINE
	 * FUNCTION" (co_filename as the interpreter holds it, the line of the
	 * instruction, co_qualname): py the innermost application frame (the
	 * --python-skip rules), py_stack every frame walked, innermost first,
	 * joined by " | " (--python-stacks=full).  len 0: none.
	 */
	struct ev_str py, py_stack;
	/*
	 * A run (counting mode, --summary-only=counts): `calls` calls alike,
	 * one after another, each moving ret bytes, at offsets offset + i *
	 * stride (stride: ret, or 0 for calls at one offset); dur is their
	 * durations summed, span the time from the first one's entry to the
	 * last one's exit, longest the longest call's.  calls 0: one call.
	 */
	uint32_t calls;
	uint64_t span, longest, stride;
};

/* The calls a syscall event stands for: a run's, else 1. */
static inline uint64_t ev_calls(const struct ev_syscall *s)
{
	return s->calls ? s->calls : 1;
}

/* A run's longest call, at most their total (damaged input). */
static inline uint64_t ev_run_longest(const struct ev_syscall *s)
{
	return s->longest < s->dur ? s->longest : s->dur;
}

/* EV_FORK and EV_START */
struct ev_fork {
	bool thread;	/* a thread (thread_create/thread_start), else a process */
	uint32_t child; /* the new pid (process) or tid (thread) */
	uint32_t parent_pid, parent_tid;
	uint64_t flow; /* joins the two events (an arrow in Perfetto) */
};

/* EV_EXEC */
struct ev_exec {
	struct ev_str file;    /* the program's path */
	struct ev_str cmdline; /* the command line, arguments joined by spaces (len 0: none) */
};

/* EV_EXIT */
struct ev_exit {
	bool group_dead; /* the last thread: the process exited */
	bool signaled;	 /* killed by a signal (code holds it), else code is the exit code */
	int32_t code;
};

/* EV_PROCESS_NAME, EV_THREAD_NAME */
/*
 * EV_PROCESS_NAME, EV_THREAD_NAME.  A process's rank in its job, from the
 * launcher's variables in its environment (bpf/dltrace_events.h enum
 * dl_rank_var): rank_from names the variable (RANK, SLURM_PROCID,
 * OMPI_COMM_WORLD_RANK or PMI_RANK, the first set); ranks_read says that
 * the tracer looked (a process with no rank is then "unknown").
 */
#define EV_RANK	      0x1 /* rank holds the process's rank */
#define EV_LOCAL_RANK 0x2
#define EV_WORLD_SIZE 0x4
#define EV_RANKS_READ 0x8

struct ev_name {
	struct ev_str name;
	uint8_t ranks; /* EV_RANK | EV_LOCAL_RANK | EV_WORLD_SIZE | EV_RANKS_READ */
	uint32_t rank, local_rank, world_size;
	struct ev_str rank_from;
};

/* EV_FAULT */
struct ev_fault {
	bool write;
	bool exec;	  /* in an executable mapping: code, not data */
	bool cow;	  /* a write to a private mapping: the page is read, the file not written */
	uint32_t size;	  /* bytes of the page (0: not said; traces before it: 4096) */
	uint64_t offset;  /* file offset of the page */
	uint64_t address; /* faulting address (0: not known) */
	uint64_t ino;
	uint32_t dev;
	struct ev_path path;
};

/*
 * Processes whose pid was used before in the trace get distinct pids in it:
 * pid + PID_ALIAS_STRIDE * n for its n-th reuse (n at most PID_ALIAS_MAX).
 */
#define PID_ALIAS_STRIDE 4194304u /* PID_MAX_LIMIT */
#define PID_ALIAS_MAX	 255u	  /* below the block device tracks' pids */

/*
 * Block devices are tracks of their own: EV_BLOCK and EV_BLOCK_RATE have a
 * pid (= tid) from here up, above any real pid (and the aliases of reused
 * ones), named "block DEV (MAJ:MIN)" by an EV_PROCESS_NAME.  Not processes.
 */
#define EV_DEVICE_PID_BASE 0x40000000u

/*
 * A profiler trace's GPU streams (dltrace merge with a PyTorch profiler
 * trace) are threads of the process that drove them, tids from here up,
 * named "GPU 0 stream 7": above every real tid and block device track.
 */
#define EV_GPU_TRACK_BASE 0x50000000u

/* EV_BLOCK: pid and tid are the device's track; the issuing process is in issuer_pid. */
struct ev_block {
	char phase;   /* EV_PH_BEGIN or EV_PH_END */
	uint32_t op;  /* 0 read, 1 write, 2 flush, 3 discard, else other */
	uint64_t seq; /* joins begin and end */
	/* begin */
	uint64_t sector;
	uint32_t bytes, dev, issuer_pid;
	/* end */
	uint64_t latency_ns;
	int32_t error;
};

/* EV_BLOCK_RATE: pid and tid are the device's track. */
struct ev_block_rate {
	double read_mbps, write_mbps;
};

/* EV_URING */
struct ev_uring {
	char phase; /* EV_PH_BEGIN or EV_PH_END */
	uint8_t opcode;
	uint64_t seq;
	/* begin */
	int32_t fd;	   /* the descriptor, or with fixed the index in the registered files */
	bool fixed;	   /* IOSQE_FIXED_FILE: fd is a registered file's index */
	bool path_unknown; /* the request has a file whose name is not known */
	bool has_file;	   /* ino and dev: the file the request used */
	uint32_t len;
	uint64_t offset, user_data;
	uint64_t ino;
	uint32_t dev;
	struct ev_path path;
	/* end */
	int64_t res;
};

/*
 * EV_AIO: one iocb of io_submit, from the call's entry (begin) to the
 * io_event that io_getevents/io_pgetevents returned for it (end: when the
 * application reaped it).  A request never reaped ends, with reaped false,
 * when its context was destroyed, its process exited or the trace ended;
 * an event whose submission was not seen (submitted before tracing) begins
 * and ends when it was reaped, with submission_unknown.
 */
#define AIO_OP_UNKNOWN 0xffff /* ev_aio.opcode of submission_unknown */
struct ev_aio {
	char phase;	 /* EV_PH_BEGIN or EV_PH_END */
	uint16_t opcode; /* IOCB_CMD_* (PREAD 0, PWRITE 1, FSYNC 2, FDSYNC 3, POLL 5, ...) */
	uint64_t seq;	 /* joins begin and end */
	/* begin */
	int32_t fd;
	bool submission_unknown;
	bool size_partial;    /* PREADV/PWRITEV with more iovecs than summed */
	uint64_t offset, len; /* len: aio_nbytes (the iovec sum for *V) */
	uint64_t data, iocb, ctx;
	struct ev_path path;
	/* end */
	bool reaped; /* false: the request's event was never returned (res unknown) */
	int64_t res, res2;
};

/* EV_VFS */
struct ev_vfs {
	uint32_t op; /* enum dl_vfs_op; DL_VFS_RW_CHECK is an instant */
	bool write;  /* DL_VFS_RW_CHECK */
	uint64_t dur;
	int64_t ret;
	uint64_t offset, size, ino;
	uint32_t dev, fs_magic;
	struct ev_path path;
};

/* EV_VFS_OPEN */
struct ev_vfs_open {
	int64_t ret;
	uint64_t ino, file_size;
	uint32_t dev, fs_magic;
	struct ev_path path;
};

/* An argument of a generic event (EV_SPAN), and what event_args() lists. */
enum ev_arg_type {
	EV_ARG_U64,
	EV_ARG_I64,
	EV_ARG_STR,    /* s: text, any bytes (escaped by each writer) */
	EV_ARG_SYMBOL, /* s: a short printable ASCII word with no quote or backslash */
	/* (flag and errno names, devices): needs no escaping */
	EV_ARG_PATH, /* path: a file name, also given as hex when not UTF-8 */
	EV_ARG_BOOL,
	EV_ARG_DOUBLE,
	EV_ARG_US,	   /* u: nanoseconds, written as microseconds with ns precision */
	EV_ARG_LOST_KINDS, /* lost: records lost per kind (an object of counts) */
	EV_ARG_HEX,	   /* u: an address, flags or magic number, shown in hex ("0x1f") */
};

struct ev_arg {
	struct ev_str key;
	uint8_t type; /* enum ev_arg_type */
	/*
	 * Set by event_args() for the keys it names itself (ASCII letters,
	 * digits and '_': writers copy them as they are); 0 for a span's own
	 * keys, which may hold anything a trace held.  Other producers leave
	 * it alone: only event_args()'s list is read for it.
	 */
	uint8_t key_named;
	union {
		uint64_t u;
		int64_t i;
		struct ev_str s;
		const struct ev_path *path;
		bool b;
		double d;
		const struct lost_counts *lost;
	};
};

#define EV_ARGS_MAX 32

/* EV_SPAN */
struct ev_span {
	char phase; /* EV_PH_COMPLETE, _SLICE_BEGIN, _SLICE_END, _INSTANT, _COUNTER, _FLOW_* */
	struct ev_str name, cat;
	uint64_t dur;  /* EV_PH_COMPLETE */
	uint64_t flow; /* EV_PH_FLOW_OUT, _IN: the arrow's id */
	const struct ev_arg *args;
	uint32_t nargs;
};

/* EV_OTHER */
struct ev_other {
	struct ev_str name, cat;
	char phase;
};

struct event {
	enum event_type type;
	uint64_t ts; /* ns since the trace's start (its start_mono_ns) */
	uint32_t pid, tid;
	union {
		struct ev_trace_begin begin;
		struct ev_trace_end end;
		struct ev_syscall sys;
		struct ev_fork fork;
		struct ev_exec exec;
		struct ev_exit exit;
		struct ev_name name;
		struct ev_fault fault;
		struct ev_block block;
		struct ev_block_rate rate;
		struct ev_uring uring;
		struct ev_aio aio;
		struct ev_vfs vfs;
		struct ev_vfs_open vfs_open;
		struct ev_span span;
		struct ev_other other;
	};
	/* the event as a trace file held it (trace reader only; len 0 otherwise) */
	struct ev_str raw;
};

/*
 * A consumer: one slot per event type, each a no-op until set.  All slots
 * share one signature, so a consumer may point several at one function.
 */
struct event_consumer;
typedef void (*event_fn)(struct event_consumer *c, const struct event *e);

struct event_consumer {
	event_fn trace_begin;  /* EV_TRACE_BEGIN */
	event_fn trace_end;    /* EV_TRACE_END */
	event_fn syscall;      /* EV_SYSCALL */
	event_fn fork;	       /* EV_FORK */
	event_fn start;	       /* EV_START */
	event_fn exec;	       /* EV_EXEC */
	event_fn exit;	       /* EV_EXIT */
	event_fn process_name; /* EV_PROCESS_NAME */
	event_fn thread_name;  /* EV_THREAD_NAME */
	event_fn fault;	       /* EV_FAULT */
	event_fn block;	       /* EV_BLOCK */
	event_fn block_rate;   /* EV_BLOCK_RATE */
	event_fn uring;	       /* EV_URING */
	event_fn aio;	       /* EV_AIO */
	event_fn vfs;	       /* EV_VFS */
	event_fn vfs_open;     /* EV_VFS_OPEN */
	event_fn span;	       /* EV_SPAN */
	event_fn other;	       /* EV_OTHER */
};

/* Every slot a no-op. */
void event_consumer_init(struct event_consumer *c);
/* Every slot that is still a no-op set to fn (a consumer that wants all events). */
void event_consumer_fill(struct event_consumer *c, event_fn fn);
/* Hand e to the slot of its type. */
void event_deliver(struct event_consumer *c, const struct event *e);

#endif
