// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * After the walk: the threads that do nothing dropped, the ops laid out
 * thread by thread (with the processes and marks), each op's think time;
 * and the lookups on the laid-out plan.
 */
#include "replay/replay_walk_internal.h"

#include <stdlib.h>
#include <string.h>

#include "event/syscall_table.h"
#include "lib/u64_index.h"

/* Kinds whose buffer the replay must provide: the size a thread's buffer needs. */
static uint64_t buffer_need(const struct rp_op *o)
{
	switch (o->sys) {
	case DL_SYS_READ:
	case DL_SYS_PREAD64:
	case DL_SYS_READV:
	case DL_SYS_PREADV:
	case DL_SYS_PREADV2:
	case DL_SYS_GETDENTS64:
	case DL_SYS_READLINK:
	case DL_SYS_READLINKAT:
	case DL_SYS_GETXATTR:
	case DL_SYS_LGETXATTR:
	case DL_SYS_FGETXATTR:
	case DL_SYS_LISTXATTR:
	case DL_SYS_LLISTXATTR:
	case DL_SYS_FLISTXATTR:
		return o->size;
	default:
		return 0;
	}
}

static bool thread_does_something(const struct ps_thread *t, const bool *needed)
{
	for (uint32_t i = 0; i < t->nops; i++) {
		const struct rp_op *o = &t->ops[i];

		if (o->type == RP_OP_SPAWN ? needed[o->target] : o->type != RP_OP_EXIT)
			return true;
	}
	return false;
}

/* Threads with something to do, the threads that start them, and their processes' first. */
static bool *needed_threads(struct rp_plan_state *st)
{
	bool *needed = calloc(st->nthreads ? st->nthreads : 1, sizeof(*needed));
	bool changed = true;

	if (!needed)
		return NULL;
	while (changed) {
		changed = false;
		for (uint32_t i = st->nthreads; i-- > 0;) {
			struct ps_thread *t = &st->threads[i];
			struct ps_proc *pr = &st->procs[t->proc];

			if (needed[i] || !thread_does_something(t, needed))
				continue;
			needed[i] = changed = true;
			/* its process must be started: by its first thread */
			if (pr->nthreads && !needed[pr->threads[0]]) {
				needed[pr->threads[0]] = true;
			}
		}
	}
	return needed;
}

uint32_t *layout_plan(struct replay_plan *p)
{
	struct rp_plan_state *st = p->st;
	uint32_t *newidx = NULL, *procmap = NULL;
	bool *needed;
	uint32_t nt = 0, np = 0;
	uint64_t total = 0;

	needed = needed_threads(st);
	newidx = malloc((st->nthreads + 1) * sizeof(*newidx));
	procmap = malloc((st->nprocs + 1) * sizeof(*procmap));
	if (!needed || !newidx || !procmap)
		goto oom;

	/* the threads kept, numbered anew; their processes likewise */
	for (uint32_t i = 0; i < st->nprocs; i++)
		procmap[i] = RP_NONE;
	for (uint32_t i = 0; i < st->nthreads; i++) {
		newidx[i] = needed[i] ? nt++ : RP_NONE;
		if (needed[i] && procmap[st->threads[i].proc] == RP_NONE)
			procmap[st->threads[i].proc] = np++;
		if (needed[i])
			total += st->threads[i].nops + 1;
	}
	p->threads = calloc(nt ? nt : 1, sizeof(*p->threads));
	p->procs = calloc(np ? np : 1, sizeof(*p->procs));
	p->ops = malloc((total ? total : 1) * sizeof(*p->ops));
	if (!p->threads || !p->procs || !p->ops)
		goto oom;
	p->nthreads = nt;
	p->nprocs = np;
	for (uint32_t i = 0; i < st->nprocs; i++) {
		uint32_t pi = procmap[i];
		struct ps_proc *pr = &st->procs[i];

		if (pi == RP_NONE)
			continue;
		p->procs[pi].parent_thread = RP_NONE;
		p->procs[pi].main_thread = pr->nthreads ? newidx[pr->threads[0]] : RP_NONE;
		p->procs[pi].start_ts = UINT64_MAX;
	}
	{
		/* pids: the index maps them to procs */
		struct u64_index_slot *s = st->pid_index.slots;

		for (size_t k = 0; k < st->pid_index.cap; k++) {
			if (s[k].value == U64_NONE || procmap[s[k].value] == RP_NONE)
				continue;
			p->procs[procmap[s[k].value]].pid = (uint32_t)s[k].key;
			{
				uint32_t nm = u64_index_get(&st->pid_names, s[k].key);

				p->procs[procmap[s[k].value]].name = nm == U64_NONE ? RP_NONE : nm;
			}
		}
	}

	/* ops, thread by thread */
	p->nops = 0;
	for (uint32_t i = 0; i < st->nthreads; i++) {
		struct ps_thread *t = &st->threads[i];
		struct rp_thread *rt;
		uint32_t ti = newidx[i], fl;

		if (ti == RP_NONE)
			continue;
		rt = &p->threads[ti];
		rt->tid = t->tid;
		rt->proc = procmap[t->proc];
		rt->op = p->nops;
		rt->start_ts = t->start_ts;
		rt->spawned_by = RP_NONE;
		rt->needed = true;
		fl = u64_index_get(&st->tid_index, t->tid);
		if (!t->started && fl != U64_NONE && st->tids[fl].first < rt->start_ts)
			rt->start_ts = st->tids[fl].first;
		rt->end_ts = t->exited ? t->end_ts : rt->start_ts;
		if (!t->exited && fl != U64_NONE && st->tids[fl].last > rt->end_ts)
			rt->end_ts = st->tids[fl].last;
		{
			uint32_t nm = u64_index_get(&st->tid_names, t->tid);

			if (nm != U64_NONE)
				rp_copy_str(
				    rt->comm, sizeof(rt->comm),
				    (struct ev_str){rp_str(p, nm), string_len(&p->strings, nm)});
		}
		for (uint32_t k = 0; k < t->nops; k++) {
			struct rp_op *o = &p->ops[p->nops++];

			*o = t->ops[k];
			if (o->type == RP_OP_SPAWN) {
				uint32_t child = o->target;

				o->target = newidx[child];
				if (o->target == RP_NONE)
					o->flags |= RPO_NOOP;
			}
			if (o->ts + o->dur > rt->end_ts)
				rt->end_ts = o->ts + o->dur;
			if (o->type == RP_OP_SYS && !(o->flags & RPO_PARTIAL) &&
			    buffer_need(o) > rt->buf_size)
				rt->buf_size = buffer_need(o);
		}
		if (!t->nops || p->ops[p->nops - 1].type != RP_OP_EXIT) {
			struct rp_op *o = &p->ops[p->nops++];

			memset(o, 0, sizeof(*o));
			o->type = RP_OP_EXIT;
			o->ts = rt->end_ts;
			o->file = o->file2 = o->text = o->map = o->target = o->times = RP_NONE;
			o->fd = o->fd2 = -1;
		}
		rt->nops = p->nops - rt->op;
		if (rt->start_ts > rt->end_ts)
			rt->start_ts = rt->end_ts;
	}
	/* who starts whom */
	for (uint32_t i = 0; i < st->nthreads; i++) {
		struct ps_thread *t = &st->threads[i];
		uint32_t ti = newidx[i], by = t->spawned_by_thread;

		if (ti == RP_NONE || by == RP_NONE || newidx[by] == RP_NONE)
			continue;
		p->threads[ti].spawned_by = p->threads[newidx[by]].op + t->spawned_by_op;
		if (st->threads[by].proc != t->proc &&
		    p->procs[p->threads[ti].proc].main_thread == ti)
			p->procs[p->threads[ti].proc].parent_thread = newidx[by];
	}
	for (uint32_t i = 0; i < nt; i++) {
		struct rp_proc *pr = &p->procs[p->threads[i].proc];

		if (p->threads[i].start_ts < pr->start_ts)
			pr->start_ts = p->threads[i].start_ts;
		if (p->threads[i].end_ts > pr->end_ts)
			pr->end_ts = p->threads[i].end_ts;
	}
	/* a thread its process's start creates (it ran before the trace): the process's first */
	for (uint32_t i = 0; i < np; i++) {
		struct rp_proc *pr = &p->procs[i];

		if (pr->main_thread == RP_NONE)
			for (uint32_t k = 0; k < nt; k++)
				if (p->threads[k].proc == i) {
					pr->main_thread = k;
					break;
				}
	}

	/* marks */
	p->marks = st->marks;
	st->marks = NULL;
	{
		uint32_t n = 0;

		for (uint32_t i = 0; i < p->nmarks; i++) {
			struct rp_mark mk = p->marks[i];

			if (mk.begin == RP_NONE || mk.end == RP_NONE ||
			    newidx[mk.thread] == RP_NONE)
				continue;
			mk.thread = newidx[mk.thread];
			mk.begin += p->threads[mk.thread].op; /* local op indexes until now */
			mk.end += p->threads[mk.thread].op;
			p->ops[mk.begin].target = n;
			p->ops[mk.end].target = n;
			p->marks[n++] = mk;
		}
		/* marks whose end was never seen keep a begin op that points nowhere */
		for (uint32_t i = 0; i < p->nops; i++)
			if (p->ops[i].type == RP_OP_MARK &&
			    (p->ops[i].target >= n || (p->marks[p->ops[i].target].begin != i &&
						       p->marks[p->ops[i].target].end != i)))
				p->ops[i].target = RP_NONE;
		p->nmarks = n;
	}
	free(needed);
	free(procmap);
	return newidx;
oom:
	free(needed);
	free(newidx);
	free(procmap);
	return NULL;
}

void layout_think_times(struct replay_plan *p)
{
	uint32_t nt = p->nthreads;

	/* think times: from the op's anchor (its thread's last end, its deps' ends) to its start */
	p->origin = UINT64_MAX;
	p->end = 0;
	for (uint32_t i = 0; i < nt; i++) {
		struct rp_thread *t = &p->threads[i];
		uint64_t prev_end = t->start_ts;

		if (t->start_ts < p->origin && p->procs[t->proc].parent_thread == RP_NONE)
			p->origin = t->start_ts;
		for (uint32_t k = t->op; k < t->op + t->nops; k++) {
			struct rp_op *o = &p->ops[k];
			uint64_t anchor = prev_end, end = o->ts + o->dur;

			for (uint32_t d = o->dep; d < o->dep + o->ndeps; d++) {
				struct rp_op *dop = &p->ops[p->deps[d]];
				uint64_t dend = dop->ts + dop->dur;

				if (dend <= o->ts) {
					if (dend > anchor)
						anchor = dend;
				} else if (o->type == RP_OP_PIPE_READ) {
					/* the read waited for the data: what came after it */
					o->flags |= RPO_BLOCKED;
					o->tail = end > dend ? end - dend : 0;
				}
			}
			o->gap = o->ts > anchor ? o->ts - anchor : 0;
			if (end > prev_end)
				prev_end = end;
		}
		if (t->end_ts > p->end)
			p->end = t->end_ts;
	}
	if (p->origin == UINT64_MAX)
		p->origin = 0;
}

uint32_t rp_thread_of(const struct replay_plan *p, uint32_t op)
{
	uint32_t lo = 0, hi = p->nthreads;

	while (lo + 1 < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (p->threads[mid].op <= op)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

void replay_plan__count(const struct replay_plan *p, uint64_t counts[DL_SYS_COUNT + 1])
{
	memset(counts, 0, (DL_SYS_COUNT + 1) * sizeof(*counts));
	for (uint32_t i = 0; i < p->nops; i++) {
		const struct rp_op *o = &p->ops[i];

		if (o->type == RP_OP_SYS && o->sys < DL_SYS_COUNT)
			counts[o->sys]++;
		else if (o->type == RP_OP_FAULT)
			counts[RP_FAULT_KIND]++;
	}
}

const char *rp_kind_name(unsigned kind)
{
	const char *n;

	if (kind == RP_FAULT_KIND)
		return "page_fault";
	n = record_kind_name(kind);
	return n ? n : "?";
}
