// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The replay's planner (see replay_plan.h for the picture), second half.
 *
 * Events arrive in no particular order, so they are first kept as compact
 * records (struct rec, replay_collect.c); finish sorts them by time and
 * walks them once, following each process's descriptors and mappings as
 * the job had them (replay_fds.c), appending each call to its thread's op
 * list (replay_walk_state.c) and noting the deps between threads
 * (replay_deps.c); then it drops the threads that do nothing, lays the ops
 * out thread by thread, and works out each op's think time
 * (replay_layout.c).  Here: the walk's loop, processes' forks, execs and
 * exits, marks, and finish.
 */
#include "replay/replay_walk_internal.h"

#include <stdlib.h>

#include "lib/u64_index.h"

static int rec_cmp(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void mark_rec(struct walk *w, const struct rec *r, uint32_t thread)
{
	struct rp_plan_state *st = w->st;
	struct replay_plan *p = w->p;
	struct rp_op *o;
	uint32_t mi;

	if (r->type == REC_MARK_BEGIN) {
		uint32_t cap = st->cap_marks;

		if (!GROW(st, st->marks, cap, p->nmarks + 1))
			return;
		st->cap_marks = cap;
		mi = p->nmarks++;
		st->marks[mi] =
		    (struct rp_mark){r->sub, r->number, thread, RP_NONE, RP_NONE, r->ts, r->dur};
	} else {
		/* its begin: the latest open mark of the thread with the same start */
		for (mi = p->nmarks; mi-- > 0;)
			if (st->marks[mi].thread == thread && st->marks[mi].end == RP_NONE &&
			    st->marks[mi].kind == r->sub &&
			    st->marks[mi].ts + st->marks[mi].dur == r->ts &&
			    st->marks[mi].begin != RP_NONE)
				break;
		if (mi == RP_NONE)
			return;
	}
	o = ps_op_add(st, thread, RP_OP_MARK, r);
	if (!o)
		return;
	o->dur = 0;
	o->target = mi;
	if (r->type == REC_MARK_BEGIN)
		st->marks[mi].begin = op_index_last(st, thread);
	else
		st->marks[mi].end = op_index_last(st, thread);
}

static void fork_rec(struct walk *w, const struct rec *r)
{
	struct rp_plan_state *st = w->st;
	uint32_t parent = ps_thread_get(st, r->pid, r->tid, r->ts), child, cproc;
	struct rp_op *o;

	if (parent == RP_NONE || u64_index_get(&st->thread_index, r->arg_lo) != U64_NONE)
		return;
	if (r->sub) {
		cproc = st->threads[parent].proc;
	} else {
		struct ps_proc *pp, *cp;

		if (u64_index_get(&st->pid_index, r->arg_lo) != U64_NONE)
			return;
		cproc = ps_proc_get(st, r->arg_lo);
		if (cproc == RP_NONE)
			return;
		/* the child's descriptors and mappings are the parent's, as they were */
		pp = &st->procs[st->threads[parent].proc];
		cp = &st->procs[cproc];
		if (pp->nfds) {
			cp->fds = malloc(pp->nfds * sizeof(*cp->fds));
			if (!cp->fds) {
				st->oom = true;
				return;
			}
			cp->nfds = pp->nfds;
			for (uint32_t i = 0; i < pp->nfds; i++) {
				cp->fds[i].file = pp->fds[i].file;
				cp->fds[i].cloexec = pp->fds[i].cloexec;
				deps_owner_reset(&cp->fds[i].own);
			}
		}
		if (pp->nmaps) {
			cp->maps = malloc(pp->nmaps * sizeof(*cp->maps));
			if (!cp->maps) {
				st->oom = true;
				return;
			}
			cp->nmaps = cp->cap_maps = pp->nmaps;
			for (uint32_t i = 0; i < pp->nmaps; i++) {
				cp->maps[i] = pp->maps[i];
				deps_owner_reset(&cp->maps[i].own);
			}
		}
	}
	child = ps_thread_new(st, r->arg_lo, cproc);
	if (child == RP_NONE)
		return;
	o = ps_op_add(st, parent, RP_OP_SPAWN, r);
	if (!o)
		return;
	o->dur = 0;
	o->target = child;
	st->threads[child].start_ts = r->ts;
	st->threads[child].started = true;
	st->threads[child].spawned_by_thread = parent;
	st->threads[child].spawned_by_op = op_index_last(st, parent);
}

static void exec_rec(struct walk *w, const struct rec *r)
{
	struct rp_plan_state *st = w->st;
	uint32_t t = ps_thread_get(st, r->pid, r->tid, r->ts);
	struct ps_proc *pr;

	if (t == RP_NONE)
		return;
	pr = &st->procs[st->threads[t].proc];
	/* the new program: close-on-exec descriptors closed, no mappings */
	for (uint32_t i = 0; i < pr->nfds; i++)
		if (pr->fds[i].cloexec)
			pr->fds[i].file = RP_NONE;
	pr->nmaps = 0;
}

static void exit_rec(struct walk *w, const struct rec *r)
{
	struct rp_plan_state *st = w->st;
	uint32_t t = u64_index_get(&st->thread_index, r->tid);
	struct rp_op *o;

	if (t == U64_NONE || st->threads[t].exited)
		return;
	st->threads[t].exited = true;
	st->threads[t].end_ts = r->ts;
	o = ps_op_add(st, t, RP_OP_EXIT, r);
	if (o)
		o->dur = 0;
}

static void walk(struct rp_plan_state *st)
{
	struct walk w = {st, st->plan};

	if (st->nrecs)
		qsort(st->recs, st->nrecs, sizeof(*st->recs), rec_cmp);
	for (size_t i = 0; i < st->nrecs && !st->oom; i++) {
		const struct rec *r = &st->recs[i];
		uint32_t t;

		switch (r->type) {
		case REC_FORK:
			fork_rec(&w, r);
			continue;
		case REC_START:
			continue; /* the fork made the thread */
		case REC_EXEC:
			exec_rec(&w, r);
			continue;
		case REC_EXIT:
			exit_rec(&w, r);
			continue;
		default:
			break;
		}
		t = ps_thread_get(st, r->pid, r->tid, r->ts);
		if (t == RP_NONE || st->threads[t].exited)
			continue;
		switch (r->type) {
		case REC_SYS:
			fds_sys_rec(&w, r, t);
			break;
		case REC_FAULT:
			fds_fault_rec(&w, r, t);
			break;
		case REC_PIPE:
			deps_pipe_rec(&w, r, t);
			break;
		case REC_MARK_BEGIN:
		case REC_MARK_END:
			mark_rec(&w, r, t);
			break;
		default:
			break;
		}
	}
}

/* the walk, the layout, the deps as global op indexes, the think times */
int replay_plan__finish(struct replay_plan *p)
{
	struct rp_plan_state *st = p->st;
	uint32_t *newidx;

	if (st->oom)
		return -1;
	walk(st);
	if (st->oom)
		return -1;
	newidx = layout_plan(p);
	if (!newidx)
		return -1;
	if (deps_resolve(p, newidx)) {
		free(newidx);
		return -1;
	}
	layout_think_times(p);
	free(newidx);
	rp_state_free(st);
	p->st = NULL;
	return 0;
}
