// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The deps between threads: who owns a descriptor or mapping, the pipes
 * (a read waits for the write that fed it), children's exits; noted during
 * the walk, then made global op indexes once the ops are laid out.
 */
#include "replay/replay_walk_internal.h"

#include <stdlib.h>
#include <string.h>

#include "lib/u64_index.h"

static void dep_add(struct rp_plan_state *st, uint32_t thread, uint32_t op, uint32_t dthread,
		    uint32_t dop)
{
	if (dthread == RP_NONE || dthread == thread)
		return;
	{
		size_t cap = st->cap_pdeps;
		struct pend_dep *q = rp_grow(st->pdeps, &cap, st->npdeps + 1, sizeof(*q), &st->oom);

		if (!q)
			return;
		st->pdeps = q;
		st->cap_pdeps = cap;
	}
	st->pdeps[st->npdeps++] = (struct pend_dep){thread, op, dthread, dop};
}

void deps_owner_reset(struct owner *o)
{
	o->def_thread = o->def_op = RP_NONE;
	o->nusers = o->next_user = 0;
}

/* thread's op uses what o owns: after its definition */
void deps_owner_use(struct rp_plan_state *st, struct owner *o, uint32_t thread, uint32_t op)
{
	uint8_t k;

	dep_add(st, thread, op, o->def_thread, o->def_op);
	for (k = 0; k < o->nusers && o->user_thread[k] != thread; k++)
		;
	if (k == o->nusers) {
		if (o->nusers < USERS_KEPT)
			o->nusers++;
		else
			k = o->next_user++ % USERS_KEPT;
	}
	o->user_thread[k] = thread;
	o->user_op[k] = op;
}

/* thread's op ends what o owns (close, munmap) or defines it anew: after every use */
void deps_owner_end(struct rp_plan_state *st, struct owner *o, uint32_t thread, uint32_t op)
{
	dep_add(st, thread, op, o->def_thread, o->def_op);
	for (uint8_t k = 0; k < o->nusers; k++)
		dep_add(st, thread, op, o->user_thread[k], o->user_op[k]);
	o->def_thread = thread;
	o->def_op = op;
	o->nusers = o->next_user = 0;
}

static uint32_t pipe_get(struct rp_plan_state *st, uint32_t name)
{
	uint32_t i = u64_index_get(&st->pipe_index, name);

	if (i != U64_NONE)
		return i;
	if (!GROW(st, st->pipes, st->cap_pipes, st->npipes + 1))
		return RP_NONE;
	i = st->npipes;
	if (u64_index_put(&st->pipe_index, name, i)) {
		st->oom = true;
		return RP_NONE;
	}
	st->npipes++;
	memset(&st->pipes[i], 0, sizeof(st->pipes[i]));
	return i;
}

void deps_pipe_rec(struct walk *w, const struct rec *r, uint32_t thread)
{
	struct rp_plan_state *st = w->st;
	struct ps_thread *t = &st->threads[thread];
	uint32_t pi = pipe_get(st, r->path);
	bool writes = write_pipe_kind(r->sys);
	struct ps_pipe *pp;
	struct pipe_io io;
	uint64_t prev_end;
	struct rp_op *o;
	uint32_t opi;

	if (pi == RP_NONE)
		return;
	prev_end = t->nops ? t->ops[t->nops - 1].ts + t->ops[t->nops - 1].dur : t->start_ts;
	o = ps_op_add(st, thread, writes ? RP_OP_PIPE_WRITE : RP_OP_PIPE_READ, r);
	if (!o)
		return;
	o->target = pi;
	o->size = (uint64_t)r->ret;
	opi = op_index_last(st, thread);
	pp = &st->pipes[pi];
	io = (struct pipe_io){thread, opi, 0, r->ts, r->ts + r->dur};
	if (writes) {
		struct ps_proc *pr = &st->procs[t->proc];

		pp->wsum += (uint64_t)r->ret;
		io.cum = pp->wsum;
		if (GROW(st, pp->w, pp->capw, pp->nw + 1))
			pp->w[pp->nw++] = io;
		/*
		 * What a process sends depends on what it did before: the write
		 * waits for the last call each of its other threads ended before it
		 * (a DataLoader worker's feeder thread sends the batch its main
		 * thread read).
		 */
		for (uint32_t i = 0; i < pr->nthreads; i++) {
			struct ps_thread *u = &st->threads[pr->threads[i]];

			if (pr->threads[i] == thread)
				continue;
			for (uint32_t j = u->nops; j-- > 0;) {
				uint64_t end = u->ops[j].ts + u->ops[j].dur;

				if (end <= r->ts) {
					if (end > prev_end)
						dep_add(st, thread, opi, pr->threads[i], j);
					break;
				}
				if (u->nops - j > 4)
					break;
			}
		}
	} else {
		pp->rsum += (uint64_t)r->ret;
		io.cum = pp->rsum;
		if (GROW(st, pp->r, pp->capr, pp->nr + 1))
			pp->r[pp->nr++] = io;
	}
}

static int u32_cmp2(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

int deps_resolve(struct replay_plan *p, const uint32_t *newidx)
{
	struct rp_plan_state *st = p->st;
	uint32_t *pairs = NULL, nt = p->nthreads;
	size_t npairs = 0, cap_pairs = 0;

	/* deps: (waiting op, op waited for), global */
#define PAIR_ADD(a, b)                                                                             \
	do {                                                                                       \
		if (npairs == cap_pairs) {                                                         \
			size_t _c = cap_pairs;                                                     \
			uint32_t *_q =                                                             \
			    rp_grow(pairs, &_c, 2 * (npairs + 1), sizeof(*pairs), &st->oom);       \
			if (!_q)                                                                   \
				goto oom;                                                          \
			pairs = _q;                                                                \
			cap_pairs = _c / 2;                                                        \
		}                                                                                  \
		pairs[2 * npairs] = (a);                                                           \
		pairs[2 * npairs + 1] = (b);                                                       \
		npairs++;                                                                          \
	} while (0)

	for (size_t i = 0; i < st->npdeps; i++) {
		struct pend_dep *d = &st->pdeps[i];

		if (newidx[d->thread] == RP_NONE || newidx[d->dthread] == RP_NONE)
			continue;
		PAIR_ADD(p->threads[newidx[d->thread]].op + d->op,
			 p->threads[newidx[d->dthread]].op + d->dop);
	}
	/* a pipe read waits for the write that completed the bytes it returned */
	for (uint32_t i = 0; i < st->npipes; i++) {
		struct ps_pipe *pp = &st->pipes[i];
		uint32_t k = 0;
		bool used = false;

		for (uint32_t j = 0; j < pp->nr; j++) {
			struct pipe_io *rd = &pp->r[j];

			while (k < pp->nw && pp->w[k].cum < rd->cum)
				k++;
			if (k == pp->nw)
				break;
			if (newidx[rd->thread] == RP_NONE || newidx[pp->w[k].thread] == RP_NONE ||
			    rd->thread == pp->w[k].thread)
				continue;
			PAIR_ADD(p->threads[newidx[rd->thread]].op + rd->op,
				 p->threads[newidx[pp->w[k].thread]].op + pp->w[k].op);
			used = true;
		}
		p->npipes += used;
	}
	/* a child's exit before its parent's next call: the parent waited for it */
	for (uint32_t i = 0; i < nt; i++) {
		struct rp_thread *t = &p->threads[i];
		uint32_t by = t->spawned_by, pt, exit_op = t->op + t->nops - 1;
		struct rp_thread *parent;

		if (by == RP_NONE)
			continue;
		pt = rp_thread_of(p, by);
		parent = &p->threads[pt];
		for (uint32_t k = by + 1; k < parent->op + parent->nops; k++) {
			struct rp_op *o = &p->ops[k], *prev = &p->ops[k - 1];

			if (o->ts < t->end_ts)
				continue;
			if (prev->ts + prev->dur < t->end_ts)
				PAIR_ADD(k, exit_op);
			break;
		}
	}
	if (npairs)
		qsort(pairs, npairs, 2 * sizeof(*pairs), u32_cmp2);
	p->deps = malloc((npairs ? npairs : 1) * sizeof(*p->deps));
	if (!p->deps)
		goto oom;
	for (size_t i = 0; i < npairs; i++) {
		struct rp_op *o = &p->ops[pairs[2 * i]];

		if (i && pairs[2 * i] == pairs[2 * i - 2] && pairs[2 * i + 1] == pairs[2 * i - 1])
			continue;
		if (pairs[2 * i] == pairs[2 * i + 1])
			continue;
		/* a dep that ended after its waiter: damage (it could make a cycle) */
		if (p->ops[pairs[2 * i + 1]].ts + p->ops[pairs[2 * i + 1]].dur > o->ts + o->dur)
			continue;
		if (!o->ndeps)
			o->dep = p->ndeps;
		o->ndeps++;
		p->deps[p->ndeps++] = pairs[2 * i + 1];
		p->ops[pairs[2 * i + 1]].flags |= RPO_WATCHED;
	}
	free(pairs);
	return 0;
oom:
	free(pairs);
	return -1;
}
