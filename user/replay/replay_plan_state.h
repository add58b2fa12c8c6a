/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The planner's working state, shared by its two halves: the collection of
 * a trace's events as compact records (replay_collect.c) and the walk over
 * them that makes the plan (replay_walk.c, and the files it calls:
 * replay_walk_internal.h).  Private to user/replay/.
 */
#ifndef REPLAY_PLAN_STATE_H
#define REPLAY_PLAN_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/u64_index.h"
#include "replay/replay_plan.h"

#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH 0x1000
#endif

#define FD_LIMIT   (1u << 20)	/* larger recorded descriptors are damage */
#define BUF_LIMIT  (1ull << 30) /* the largest buffer a replayed call gets */
#define USERS_KEPT 8		/* threads remembered per descriptor and mapping */
#define TIME_LIMIT (1ull << 62) /* later times and longer durations are damage */

enum rec_type {
	REC_MARK_END, /* sorted first among records of one time: a region ends ... */
	REC_FORK,     /* ... before a fork, */
	REC_START,    /* ... whose child starts at the same time, */
	REC_MARK_BEGIN,
	REC_SYS,
	REC_PIPE,
	REC_FAULT,
	REC_EXEC,
	REC_EXIT,
};

/* An event kept for planning (the fields its type uses). */
struct rec {
	uint64_t ts, dur;
	int64_t ret;
	uint64_t offset, size, addr, file_size;
	uint32_t pid, tid;
	uint32_t path, path2, text; /* strings */
	uint32_t arg_lo, arg_hi, at_flags;
	int32_t fd;
	uint32_t seq;	/* arrival order: ties stay stable */
	uint32_t times; /* utime*: plan->times index */
	uint16_t sys, flags;
	uint8_t type;
	uint8_t sub;	/* fault: RPO_WRITE; fork: 1 a thread; exit: 1 group dead; mark: its kind */
	int64_t number; /* mark: its number */
};

/* Who defined a descriptor or mapping, and who used it since (per thread). */
struct owner {
	uint32_t def_thread, def_op; /* RP_NONE: nothing in this process yet */
	uint32_t user_thread[USERS_KEPT], user_op[USERS_KEPT];
	uint8_t nusers, next_user;
};

struct ps_fd {
	uint32_t file; /* RP_NONE: not open (or not an application file) */
	bool cloexec;
	struct owner own;
};

struct ps_map {
	uint64_t addr, len, off;
	uint32_t file, slot;
	struct owner own;
};

struct ps_proc {
	struct ps_fd *fds;
	uint32_t nfds;
	struct ps_map *maps;
	uint32_t nmaps, cap_maps;
	uint32_t *threads; /* planning threads of the process */
	uint32_t nthreads, cap_threads;
};

/* A thread while planning: its ops in a list of its own. */
struct ps_thread {
	struct rp_op *ops;
	uint32_t nops, cap;
	uint32_t proc;
	uint32_t tid;
	uint64_t start_ts, end_ts;
	bool started, exited;
	uint32_t spawned_by_thread, spawned_by_op; /* RP_NONE: none */
};

struct pipe_io {
	uint32_t thread, op; /* planning thread, local op (global after layout) */
	uint64_t cum;	     /* bytes written (reads: read) up to and with it */
	uint64_t ts, end;
};

struct ps_pipe {
	struct pipe_io *w, *r;
	uint32_t nw, nr, capw, capr;
	uint64_t wsum, rsum;
};

struct pend_dep {
	uint32_t thread, op;   /* the op that waits */
	uint32_t dthread, dop; /* the op it waits for */
};

struct first_last {
	uint64_t first, last;
};

struct rp_plan_state {
	struct event_consumer consumer;
	struct replay_plan *plan;
	struct rec *recs;
	size_t nrecs, cap;
	/* per tid: first and last event, names */
	struct u64_index tid_index;
	struct first_last *tids;
	uint32_t ntids, cap_tids;
	struct u64_index pid_names;  /* pid -> string of its command line */
	struct u64_index tid_names;  /* tid -> string of its comm */
	struct u64_index file_index; /* string -> rp_file */
	uint32_t cap_files;
	/* planning */
	struct ps_proc *procs;
	uint32_t nprocs, cap_procs;
	struct u64_index pid_index; /* pid -> proc */
	struct ps_thread *threads;
	uint32_t nthreads, cap_threads;
	struct u64_index thread_index; /* tid -> thread */
	struct ps_pipe *pipes;
	uint32_t npipes, cap_pipes;
	struct u64_index pipe_index; /* string -> pipe */
	struct pend_dep *pdeps;
	size_t npdeps, cap_pdeps;
	struct rp_mark *marks;
	uint32_t cap_marks;
	bool oom;
};

/* Grow an array of uint32_t-counted capacity; false when out of memory. */
#define GROW(st, arr, cap32, need)                                                                 \
	({                                                                                         \
		size_t _c = (cap32);                                                               \
		void *_p = rp_grow((arr), &_c, (need), sizeof(*(arr)), &(st)->oom);                \
		if (_p) {                                                                          \
			(arr) = _p;                                                                \
			(cap32) = (uint32_t)_c;                                                    \
		}                                                                                  \
		_p != NULL;                                                                        \
	})

/* The calls on a pipe that the replay waits on (writes feed reads). */
static inline bool read_pipe_kind(unsigned k)
{
	return k == DL_SYS_READ || k == DL_SYS_READV;
}

static inline bool write_pipe_kind(unsigned k)
{
	return k == DL_SYS_WRITE || k == DL_SYS_WRITEV;
}

/* p grown to hold need elements of size bytes (capacity doubles); NULL and *oom when not. */
void *rp_grow(void *p, size_t *cap, size_t need, size_t size, bool *oom);
/* The string id of s (RP_NONE for an empty one, or out of memory: then st->oom). */
uint32_t rp_str_put(struct rp_plan_state *st, struct ev_str s);
/* s into out, cut to size - 1 bytes, control characters as '?'. */
void rp_copy_str(char *out, size_t size, struct ev_str s);
void rp_state_free(struct rp_plan_state *st);

#endif
