/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `dltrace replay`'s plan: what a trace's application I/O was, per traced
 * thread, in the order each thread made it, ready to be issued again.
 *
 *   trace events --> replay_plan (a consumer: keeps the application-scope
 *   (event.h)        calls, pipe reads and writes, forks, exits, marks)
 *                --> replay_plan__finish: sorted by time, each process's
 *                    descriptors and mappings followed, one op list per
 *                    thread, the waits between threads, the think times
 *                --> replay_plan__map: where each file is replayed
 *                    (--map, --stage, the scratch directory)
 *                --> replay_prepare (checks, staging), replay_run (issues
 *                    the ops), replay_report (replayed against recorded),
 *                    replay_fio (fio iologs)
 *
 * Everything here is pure: no file is touched and no process started, so
 * that the planner can be fuzzed (tests/fuzz/replay_plan_fuzz.c).
 *
 * The ops of one thread, and when each starts in the replay:
 *
 *   thread T:  ... op[i-1] ......(gap).......> op[i] ...
 *                        \                    ^
 *   thread U:  ... op[j] ---------- dep ------'   (op[i] waits for op[j])
 *
 *   start(op[i]) = max(end(op[i-1]), end(deps that ended before op[i]
 *                  began when recorded)) + gap
 *
 * gap is the recorded time from that anchor to the op's start: the job's
 * compute ("think time"; --no-think makes it 0).  A dep is what another
 * thread must have done first: the open of a descriptor this thread uses,
 * the last use by another thread of a descriptor this thread closes, the
 * pipe write whose bytes a pipe read returns, the rest of a process's work
 * before one of its threads writes to a pipe, a child's exit before its
 * parent's next call.  A pipe read whose data was written after it began
 * waits for that write (a blocking dep) and ends `tail` after it.
 */
#ifndef REPLAY_PLAN_H
#define REPLAY_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/dltrace_events.h"
#include "event/event.h"
#include "event/lost_counts.h"
#include "lib/string_index.h"

#define RP_NONE UINT32_MAX

enum rp_op_type {
	RP_OP_SYS,	  /* a file syscall, issued again */
	RP_OP_FAULT,	  /* a page fault on a mapped file: one byte of the page is touched */
	RP_OP_SPAWN,	  /* start a traced thread, or fork a traced process */
	RP_OP_PIPE_READ,  /* a read of a pipe: waits for the write that fed it (not issued) */
	RP_OP_PIPE_WRITE, /* a write to a pipe: what a reader waits for (not issued) */
	RP_OP_MARK,	  /* a marker region's begin or end (epoch, step, fetch) */
	RP_OP_EXIT,	  /* the thread's end */
	RP_OP_TYPES,
};

/* rp_op.flags */
#define RPO_WATCHED 0x01 /* another op waits for this one: wake the waiters when done */
#define RPO_BLOCKED 0x02 /* pipe read: its last dep ended after it began (tail applies) */
#define RPO_BY_FD   0x04 /* a *at call on a descriptor (AT_EMPTY_PATH, futimens): fd, not path */
#define RPO_WRITE   0x08 /* fault: a write fault */
#define RPO_PARTIAL                                                                                \
	0x10	      /* the call cannot be issued exactly (readv with more iovecs than seen)      \
		       */
#define RPO_NOOP 0x20 /* planned away (a spawn of a thread that does nothing) */

/*
 * One op.  Recorded values: ts and dur in ns since the trace's
 * start; ret the result (bytes, a descriptor, or -errno).
 */
struct rp_op {
	uint64_t ts, dur;
	uint64_t gap;  /* recorded time from the op's anchor to ts (think time) */
	uint64_t tail; /* RPO_BLOCKED: recorded time from the dep's end to the op's end */
	int64_t ret;
	uint64_t offset, size;
	uint64_t addr; /* mmap: the recorded address; munmap, madvise, msync: the address */
	uint32_t arg_lo, arg_hi, at_flags;
	int32_t fd;	     /* the recorded descriptor (sendfile, copy_file_range: the input) */
	int32_t fd2;	     /* dup2/dup3: the new one; sendfile, copy_file_range: the output */
	uint32_t file;	     /* rp_file of the call (the path it named or its descriptor's file) */
	uint32_t file2;	     /* rename, link: the new name; sendfile, copy_file_range: the output */
	uint32_t text;	     /* string: an xattr's name, a symlink's target (RP_NONE: none) */
	uint32_t dep, ndeps; /* plan->deps[dep .. dep + ndeps): global op indexes */
	uint32_t map;	     /* mmap, munmap, madvise, msync, faults: the mapping's slot */
	uint32_t target;     /* SPAWN: the thread started; MARK: the mark; PIPE_*: the pipe */
	uint32_t times;	     /* utime*: index into plan->times (RP_NONE: none) */
	uint16_t sys;	     /* RP_OP_SYS: enum dl_kind */
	uint8_t type;	     /* enum rp_op_type */
	uint8_t flags;	     /* RPO_* */
};

/* rp_file.flags */
#define RPF_READ    0x001 /* the job read bytes of it (reads, faults, getdents, readlink) */
#define RPF_WRITTEN 0x002 /* the job changed it: replayed in the scratch directory */
#define RPF_EXISTED 0x004 /* it existed when the job first met it */
#define RPF_ABSENT                                                                                 \
	0x008 /* missing when the job first met it (it made it, or failed to find it)              \
	       */
#define RPF_DIR	      0x010 /* a directory */
#define RPF_OPENED    0x020 /* the job opened or stat'ed it with success: the replay needs it */
#define RPF_MAPPED    0x040 /* mmap'd */
#define RPF_STAGED    0x080 /* --stage copies it */
#define RPF_UNDER_DIR 0x100 /* below a directory the job renamed, removed or created */
#define RPF_SYMLINK   0x200 /* the job made it a symlink, or read it as one */

struct rp_file {
	uint32_t name;	     /* string: the recorded path */
	uint32_t replay;     /* string: the path the replay uses (replay_plan__map) */
	uint32_t source;     /* string: where its content comes from (staging, scratch copies) */
	uint32_t flags;	     /* RPF_* */
	uint64_t read_end;   /* the furthest byte a read or fault reached */
	uint64_t bytes_read; /* recorded */
	uint64_t bytes_written;
	uint64_t size_seen; /* the size an open saw (0: none seen) */
	uint32_t calls;	    /* ops naming it */
};

/* One traced thread with something to replay. */
struct rp_thread {
	uint32_t tid, proc;
	uint32_t op, nops;   /* plan->ops[op .. op + nops) */
	uint64_t start_ts;   /* its start (or its first event: it ran before the trace began) */
	uint64_t end_ts;     /* its exit (or its last event) */
	uint32_t spawned_by; /* the SPAWN op that starts it; RP_NONE: its process's start does */
	uint64_t buf_size;   /* the largest buffer one of its calls needs */
	char comm[16];
	bool needed; /* planning: has ops, or starts a thread that has */
};

struct rp_proc {
	uint32_t pid;
	uint32_t
	    parent_thread; /* the thread that forked it; RP_NONE: a root (started by the replay) */
	uint32_t main_thread; /* its first thread, the one its fork starts */
	uint64_t start_ts, end_ts;
	uint32_t name; /* string: its command line (RP_NONE: not known) */
};

enum rp_mark_kind {
	RP_MARK_EPOCH,
	RP_MARK_STEP,
	RP_MARK_FETCH,
	RP_MARK_KINDS,
};

/* A marker region of a traced thread (dltrace markers): two MARK ops. */
struct rp_mark {
	uint8_t kind;	/* enum rp_mark_kind */
	int64_t number; /* its epoch, step or batch number (-1: none) */
	uint32_t thread;
	uint32_t begin, end; /* global op indexes of its two MARK ops */
	uint64_t ts, dur;
};

/* Why a call of the application's files is not replayed. */
enum rp_skip {
	RP_SKIP_KIND,	      /* a kind the replay does not issue (io_uring, AIO, splice, ...) */
	RP_SKIP_PATH_UNKNOWN, /* its file is not known (the record naming it was lost) */
	RP_SKIP_NO_OPEN,      /* its descriptor was opened before the trace, or received */
	/* a fault or munmap of a mapping not replayed (before the trace, or of RP_SKIP_NO_OPEN) */
	RP_SKIP_NO_MAPPING,
	RP_SKIP_MIXED, /* rename/link between the application's and other files */
	RP_SKIP_REASONS,
};

#define RP_FAULT_KIND DL_SYS_COUNT /* the skip tables' column of page faults */

/* What `dltrace replay` is asked for, as far as planning is concerned. */
struct replay_map_rule {
	const char *from, *to; /* a path prefix (whole components) and its replacement */
};

struct replay_plan {
	struct string_index strings; /* paths, names, texts */
	struct rp_file *files;
	uint32_t nfiles;
	struct rp_op *ops; /* thread by thread */
	uint32_t nops;
	uint32_t *deps;
	uint32_t ndeps;
	struct rp_thread *threads;
	uint32_t nthreads;
	struct rp_proc *procs;
	uint32_t nprocs;
	struct rp_mark *marks;
	uint32_t nmarks;
	struct ev_times *times;
	uint32_t ntimes;
	uint32_t nmaps; /* mapping slots: one per mmap */
	struct rp_mapping {
		uint64_t addr, off, len; /* the recorded address, file offset and length */
	} * maps;
	uint32_t npipes;    /* pipes that connect replayed threads */
	uint32_t max_fd;    /* the largest recorded descriptor + 1 */
	uint64_t origin;    /* the earliest start of a replayed process */
	uint64_t end;	    /* the latest end of a replayed thread */
	uint64_t max_write; /* the largest write's size (one zero buffer for all) */

	/* what the trace said of itself */
	bool begun, ended; /* its metadata and its summary were read */
	bool refused;	   /* a trace the replay cannot use (refusal holds why) */
	char refusal[256];
	struct lost_counts lost; /* records the tracer lost, by kind */
	uint64_t lost_events;
	uint64_t paths_unknown;
	char hostname[64];

	/* calls of the application's files that are not replayed, by reason and kind */
	uint64_t skipped[RP_SKIP_REASONS][DL_SYS_COUNT + 1];
	uint64_t app_calls;   /* application-scope calls and faults seen */
	uint64_t other_calls; /* environment and other calls (not replayed) */

	/* planning state (replay_plan_state.h) */
	struct rp_plan_state *st;
};

struct replay_plan *replay_plan__new(void);
void replay_plan__free(struct replay_plan *p);
/* The trace's events go here (in any order: they are sorted by finish). */
struct event_consumer *replay_plan__consumer(struct replay_plan *p);
/* After the last event: the ops, threads, deps and think times.  -1 when out of memory. */
int replay_plan__finish(struct replay_plan *p);

/*
 * Where each file is replayed: a file the job changed goes below scratch
 * (its recorded path appended), any other through the first rule whose
 * prefix it has (the longest wins), else where it was.  With stage, the
 * files the job read that existed go below stage, their common directory
 * replaced by it.  -1 when out of memory.
 */
int replay_plan__map(struct replay_plan *p, const struct replay_map_rule *rules, unsigned nrules,
		     const char *stage, const char *scratch);

/* A path's string (NUL-terminated) and length. */
static inline const char *rp_str(const struct replay_plan *p, uint32_t id)
{
	return id == RP_NONE ? "" : string_at(&p->strings, id);
}

/* The thread an op belongs to (binary search over the threads' ranges). */
uint32_t rp_thread_of(const struct replay_plan *p, uint32_t op);

/* Does an op move data of a file ("I/O" in the tables): every syscall and fault. */
static inline bool rp_op_is_io(const struct rp_op *o)
{
	return o->type == RP_OP_SYS || o->type == RP_OP_FAULT;
}

/* Syscalls and faults the plan issues, by kind (column RP_FAULT_KIND: faults). */
void replay_plan__count(const struct replay_plan *p, uint64_t counts[DL_SYS_COUNT + 1]);

/* The name of a kind of the tables: a syscall's, or "page_fault". */
const char *rp_kind_name(unsigned kind);

#endif
