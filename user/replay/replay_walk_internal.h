/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The walk's files (replay_walk.c, the main loop, calls the others):
 * replay_walk_state.c (files, processes, threads, op lists: a leaf),
 * replay_fds.c (file calls, descriptors, mappings), replay_deps.c (the deps
 * between threads), replay_layout.c (the plan laid out, think times).
 * Private to user/replay/.
 */
#ifndef REPLAY_WALK_INTERNAL_H
#define REPLAY_WALK_INTERNAL_H

#include <stdint.h>

#include "replay/replay_plan_state.h"

struct walk {
	struct rp_plan_state *st;
	struct replay_plan *p;
};

static inline uint32_t op_index_last(struct rp_plan_state *st, uint32_t thread)
{
	return st->threads[thread].nops - 1;
}

/* replay_walk_state.c: each made on first sight; RP_NONE (or NULL) when out of memory */
uint32_t ps_file_of(struct rp_plan_state *st, uint32_t name);
uint32_t ps_proc_get(struct rp_plan_state *st, uint32_t pid);
uint32_t ps_thread_new(struct rp_plan_state *st, uint32_t tid, uint32_t proc);
/* The planning thread of a tid, made (with its process) on first sight. */
uint32_t ps_thread_get(struct rp_plan_state *st, uint32_t pid, uint32_t tid, uint64_t ts);
/* A new op at the end of thread's list, its recorded values from r. */
struct rp_op *ps_op_add(struct rp_plan_state *st, uint32_t thread, uint8_t type,
			const struct rec *r);

/* replay_fds.c: a file call's op and what it does to its process's descriptors and mappings */
void fds_sys_rec(struct walk *w, const struct rec *r, uint32_t thread);
/* a page fault in a mapping of the thread's process */
void fds_fault_rec(struct walk *w, const struct rec *r, uint32_t thread);

/* replay_deps.c */
void deps_owner_reset(struct owner *o);
/* thread's op uses what o owns: after its definition */
void deps_owner_use(struct rp_plan_state *st, struct owner *o, uint32_t thread, uint32_t op);
/* thread's op ends what o owns (close, munmap) or defines it anew: after every use */
void deps_owner_end(struct rp_plan_state *st, struct owner *o, uint32_t thread, uint32_t op);
/* a read or write of a pipe: a write waits for its process's other threads' last calls */
void deps_pipe_rec(struct walk *w, const struct rec *r, uint32_t thread);
/*
 * After layout_plan (newidx: a planning thread's index in p->threads, or
 * RP_NONE): the deps noted, the pipes' reads and writes and children's exits
 * as global op indexes, into p->deps.  -1 when out of memory.
 */
int deps_resolve(struct replay_plan *p, const uint32_t *newidx);

/*
 * replay_layout.c: the threads that do something (and those that start
 * them) laid out in p; returns each planning thread's new index (RP_NONE:
 * dropped), to be freed; NULL when out of memory.
 */
uint32_t *layout_plan(struct replay_plan *p);
/* Each op's gap (think time) and tail, the plan's origin and end: after deps_resolve. */
void layout_think_times(struct replay_plan *p);

#endif
