// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The walk's tables, made on first sight: files, processes, threads, and
 * the op list each thread's calls are appended to.  Every part of the walk
 * uses them; they use nothing of it.
 */
#include "replay/replay_walk_internal.h"

#include <string.h>

#include "lib/u64_index.h"

uint32_t ps_file_of(struct rp_plan_state *st, uint32_t name)
{
	struct replay_plan *p = st->plan;
	uint32_t i;

	if (name == RP_NONE)
		return RP_NONE;
	i = u64_index_get(&st->file_index, name);
	if (i != U64_NONE)
		return i;
	if (!GROW(st, p->files, st->cap_files, p->nfiles + 1))
		return RP_NONE;
	i = p->nfiles++;
	memset(&p->files[i], 0, sizeof(p->files[i]));
	p->files[i].name = name;
	p->files[i].replay = p->files[i].source = RP_NONE;
	if (u64_index_put(&st->file_index, name, i)) {
		st->oom = true;
		return RP_NONE;
	}
	return i;
}

uint32_t ps_thread_new(struct rp_plan_state *st, uint32_t tid, uint32_t proc)
{
	struct ps_thread *t;
	struct ps_proc *pr;
	uint32_t i;

	if (!GROW(st, st->threads, st->cap_threads, st->nthreads + 1))
		return RP_NONE;
	i = st->nthreads;
	if (u64_index_put(&st->thread_index, tid, i)) {
		st->oom = true;
		return RP_NONE;
	}
	st->nthreads++;
	t = &st->threads[i];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->proc = proc;
	t->spawned_by_thread = t->spawned_by_op = RP_NONE;
	pr = &st->procs[proc];
	if (GROW(st, pr->threads, pr->cap_threads, pr->nthreads + 1))
		pr->threads[pr->nthreads++] = i;
	return i;
}

uint32_t ps_proc_get(struct rp_plan_state *st, uint32_t pid)
{
	uint32_t i = u64_index_get(&st->pid_index, pid);

	if (i != U64_NONE)
		return i;
	if (!GROW(st, st->procs, st->cap_procs, st->nprocs + 1))
		return RP_NONE;
	i = st->nprocs;
	if (u64_index_put(&st->pid_index, pid, i)) {
		st->oom = true;
		return RP_NONE;
	}
	st->nprocs++;
	memset(&st->procs[i], 0, sizeof(st->procs[i]));
	return i;
}

/* The planning thread of a tid, made (with its process) on first sight. */
uint32_t ps_thread_get(struct rp_plan_state *st, uint32_t pid, uint32_t tid, uint64_t ts)
{
	uint32_t i = u64_index_get(&st->thread_index, tid);
	uint32_t pr;

	if (i != U64_NONE)
		return i;
	pr = ps_proc_get(st, pid);
	if (pr == RP_NONE)
		return RP_NONE;
	i = ps_thread_new(st, tid, pr);
	if (i != RP_NONE)
		st->threads[i].start_ts = ts;
	return i;
}

struct rp_op *ps_op_add(struct rp_plan_state *st, uint32_t thread, uint8_t type,
			const struct rec *r)
{
	struct ps_thread *t = &st->threads[thread];
	struct rp_op *o;

	if (!GROW(st, t->ops, t->cap, t->nops + 1))
		return NULL;
	o = &t->ops[t->nops++];
	memset(o, 0, sizeof(*o));
	o->type = type;
	o->ts = r->ts;
	o->dur = r->dur;
	o->ret = r->ret;
	o->fd = r->fd;
	o->fd2 = -1;
	o->file = o->file2 = o->text = o->map = o->target = o->times = RP_NONE;
	return o;
}
