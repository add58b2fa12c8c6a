// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The job's phases (dltrace markers): regions per name; training loops
 * (threads with "step" or "epoch" regions), their iterations (a step and
 * the batch fetches before it), data stall, and the I/O of the job that
 * began in each iteration, in the gap before it, and in each epoch.
 * See struct rs_owner in report_stats.h for the picture.
 *
 * Regions arrive when they end, after the calls inside them and often
 * after calls of other processes that began later, so a call is
 * attributed at once when its owner's timeline already covers its start
 * (a binary search over the owner's marks), and waits in the owner's
 * pending list otherwise, until the next step or epoch end covers it.
 * Memory: a few hundred bytes per step and epoch; pending calls are bounded
 * (PEND_MAX per owner, ORPHAN_MAX for processes with no owner yet).
 */
#define _GNU_SOURCE
#include "report/report_stats_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PEND_MAX   (1u << 17)
#define ORPHAN_MAX (1u << 16)

const char *rs_step_label(const struct report_stats *st, const struct rs_step *s, char *buf,
			  size_t size)
{
	size_t o = 0;

	buf[0] = '\0';
	if (s->epoch != NONE32)
		o = snprintf(buf, size, "epoch %lld ",
			     (long long)st->phases.epochs[s->epoch].index);
	if (s->index >= 0)
		snprintf(buf + o, size - o, "step %lld", (long long)s->index);
	else
		snprintf(buf + o, size - o, "step at %.3f s", rs_since_job(st, s->end) / 1e9);
	return buf;
}

double rs_step_stall_share(const struct rs_step *s)
{
	uint64_t iter = rs_step_iter_ns(s);

	if (!iter)
		return 0;
	return s->stall_ns >= iter ? 1 : (double)s->stall_ns / (double)iter;
}

/* ---- attributing calls ---- */

static void io_add(struct rs_phase_io *io, const struct rs_item *it)
{
	if (it->wait)
		return;
	io->level_ns[it->level] += it->dur;
	if (it->level != DL_LAYER_SYSCALL)
		return;
	io->bytes_read += it->bytes_read;
	io->bytes_written += it->bytes_written;
	io->calls += it->calls ? it->calls : 1;
	io->io_ns += it->dur;
}

static void slow_add(struct rs_owner *o, const struct rs_step *s, const struct rs_item *it)
{
	struct rs_slow *sl;
	uint32_t k;

	if (s->slow == NONE32 || it->file == NONE32 || it->wait)
		return;
	sl = &o->slow[s->slow];
	for (k = 0; k < sl->nfiles && sl->files[k].file != it->file; k++)
		;
	if (k == sl->nfiles) {
		if (k == SLOW_FILES) { /* full: replace the file with the least time */
			k = 0;
			for (uint32_t j = 1; j < SLOW_FILES; j++)
				if (sl->files[j].io_ns < sl->files[k].io_ns)
					k = j;
			if (sl->files[k].io_ns >= it->dur)
				return;
		} else {
			sl->nfiles++;
		}
		sl->files[k] = (struct rs_slow_file){it->file, 0, 0};
	}
	sl->files[k].bytes += it->bytes_read + it->bytes_written;
	sl->files[k].io_ns += it->dur;
}

/* A call that began at or before the owner's last mark. */
static void attribute(struct report_stats *st, struct rs_owner *o, const struct rs_item *it)
{
	struct rs_phases *ph = &st->phases;
	uint32_t lo = 0, hi = o->nmarks;
	const struct rs_mark *m;

	while (lo < hi) { /* the first mark ending at or after the call's start */
		uint32_t mid = (lo + hi) / 2;

		if (o->marks[mid].end < it->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == o->nmarks) {
		io_add(&o->after, it);
		return;
	}
	m = &o->marks[lo];
	if (m->epoch) {
		struct rs_epoch *e = &ph->epochs[m->index];

		if (it->start >= e->start)
			io_add(&e->tail, it);
		else
			io_add(lo ? &o->between : &o->before, it);
		return;
	}
	struct rs_step *s = &ph->steps[m->index];

	if (it->start >= s->istart) {
		io_add(&s->io, it);
		if (!s->fetched && it->wait && it->thread == o->thread)
			s->stall_ns += it->dur;
		slow_add(o, s, it);
	} else {
		io_add(lo ? &s->gap : &o->before, it);
	}
}

static void drain(struct report_stats *st, struct rs_owner *o)
{
	uint32_t j = 0;

	for (uint32_t i = 0; i < o->npend; i++) {
		if (o->pend[i].start <= o->boundary)
			attribute(st, o, &o->pend[i]);
		else
			o->pend[j++] = o->pend[i];
	}
	o->npend = j;
}

static void pend(struct report_stats *st, struct rs_owner *o, const struct rs_item *it)
{
	struct rs_item *p;

	if (o->nmarks && it->start <= o->boundary) {
		attribute(st, o, it);
		return;
	}
	if (o->npend == PEND_MAX) {
		io_add(&o->after, it);
		o->dropped++;
		return;
	}
	p = GROW(st, o->pend, o->cap_pend, o->npend);
	if (!p)
		return;
	*p = *it;
	o->npend++;
}

/* The owner whose phases a process's calls count for: its own, or its nearest ancestor's. */
static uint32_t owner_for(struct report_stats *st, uint32_t proc)
{
	struct rs_phases *ph = &st->phases;
	struct rs_proc *p = &st->procs[proc];
	uint32_t q = proc, found = NONE32;

	if (p->owner_gen == ph->gen + 1)
		return p->owner;
	for (int depth = 0; depth < 64 && q != NONE32 && found == NONE32; depth++) {
		const struct rs_proc *x = &st->procs[q];
		uint32_t next;

		for (uint32_t k = 0; k < ph->nowners; k++)
			if (ph->owners[k].proc == q) {
				found = k;
				break;
			}
		if (!x->ppid || x->ppid == x->pid)
			break;
		next = u64_index_get(&st->proc_ix, (uint64_t)x->trace << 32 | x->ppid);
		q = next == U64_NONE ? NONE32 : next;
	}
	p->owner = found;
	p->owner_gen = ph->gen + 1;
	return found;
}

static void orphan(struct report_stats *st, const struct rs_item *it)
{
	struct rs_phases *ph = &st->phases;
	uint32_t slot;

	if (!ph->orphans) {
		ph->orphans = malloc(ORPHAN_MAX * sizeof(*ph->orphans));
		if (!ph->orphans) {
			st->oom = true;
			return;
		}
		ph->cap_orphans = ORPHAN_MAX;
	}
	if (ph->norphans == ORPHAN_MAX) { /* full: the oldest is nobody's */
		io_add(&ph->unowned, &ph->orphans[ph->orphan_head]);
		ph->orphans[ph->orphan_head] = *it;
		ph->orphan_head = (ph->orphan_head + 1) % ORPHAN_MAX;
		return;
	}
	slot = (ph->orphan_head + ph->norphans++) % ORPHAN_MAX;
	ph->orphans[slot] = *it;
}

void rs_phase_call(struct report_stats *st, const struct rs_item *it)
{
	uint32_t o = owner_for(st, it->proc);

	if (o == NONE32)
		orphan(st, it);
	else
		pend(st, &st->phases.owners[o], it);
}

/* The owner of a thread with phase regions, made when new. */
static struct rs_owner *owner_get(struct report_stats *st, uint32_t ti)
{
	struct rs_phases *ph = &st->phases;
	uint32_t i = u64_index_get(&ph->owner_ix, ti), n, kept = 0;
	struct rs_owner *o;

	if (i != U64_NONE)
		return &ph->owners[i];
	o = GROW(st, ph->owners, ph->cap_owners, ph->nowners);
	if (!o || u64_index_put(&ph->owner_ix, ti, ph->nowners)) {
		st->oom = true;
		return NULL;
	}
	memset(o, 0, sizeof(*o));
	o->thread = ti;
	o->proc = st->threads[ti].proc;
	ph->nowners++;
	ph->gen++;
	/* calls that waited for an owner: this one's go to it, the others wait on */
	n = ph->norphans;
	for (uint32_t k = 0; k < n; k++) {
		struct rs_item it = ph->orphans[(ph->orphan_head + k) % ORPHAN_MAX];
		uint32_t oi = owner_for(st, it.proc);

		if (oi == NONE32)
			ph->orphans[(ph->orphan_head + kept++) % ORPHAN_MAX] = it;
		else
			pend(st, &ph->owners[oi], &it);
	}
	ph->norphans = kept;
	return &ph->owners[ph->nowners - 1];
}

/* ---- regions ---- */

static int64_t int_arg(const struct ev_span *s, const char *key, int64_t none)
{
	size_t n = strlen(key);

	for (uint32_t i = 0; i < s->nargs; i++) {
		const struct ev_arg *a = &s->args[i];

		if (a->key.len != n || memcmp(a->key.s, key, n))
			continue;
		if (a->type == EV_ARG_I64)
			return a->i;
		if (a->type == EV_ARG_U64 && a->u <= INT64_MAX)
			return (int64_t)a->u;
	}
	return none;
}

static void add_mark(struct report_stats *st, struct rs_owner *o, uint64_t end, uint32_t index,
		     bool epoch)
{
	struct rs_mark *m = GROW(st, o->marks, o->cap_marks, o->nmarks);

	if (!m)
		return;
	*m = (struct rs_mark){end, index, epoch};
	o->nmarks++;
	o->boundary = end;
	drain(st, o);
}

/* Keep the step among the owner's slowest iterations when it is one. */
static void consider_slow(struct report_stats *st, struct rs_owner *o, uint32_t si)
{
	struct rs_step *s = &st->phases.steps[si];
	uint64_t iter = rs_step_iter_ns(s);
	uint32_t k;

	if (o->nslow < SLOW_KEEP) {
		k = o->nslow++;
	} else {
		k = 0;
		for (uint32_t j = 1; j < SLOW_KEEP; j++)
			if (rs_step_iter_ns(&st->phases.steps[o->slow[j].step]) <
			    rs_step_iter_ns(&st->phases.steps[o->slow[k].step]))
				k = j;
		if (iter <= rs_step_iter_ns(&st->phases.steps[o->slow[k].step]))
			return;
		st->phases.steps[o->slow[k].step].slow = NONE32;
	}
	memset(&o->slow[k], 0, sizeof(o->slow[k]));
	o->slow[k].step = si;
	s->slow = k;
}

static void step_region(struct report_stats *st, uint32_t ti, const struct ev_span *sp,
			uint64_t start)
{
	struct rs_phases *ph = &st->phases;
	struct rs_owner *o = owner_get(st, ti);
	uint64_t end = start + sp->dur;
	struct rs_step *s;
	uint32_t oi, si;

	if (!o)
		return;
	if (o->nmarks && start < o->boundary) { /* encloses steps already seen */
		o->nested++;
		return;
	}
	oi = o - ph->owners;
	s = GROW(st, ph->steps, ph->cap_steps, ph->nsteps);
	if (!s)
		return;
	si = ph->nsteps++;
	memset(s, 0, sizeof(*s));
	s->owner = oi;
	s->epoch = NONE32;
	s->slow = NONE32;
	s->index = int_arg(sp, "step", -1);
	s->start = s->istart = start;
	s->end = end;
	s->fetched = o->fetch_seen;
	if (o->fetch_seen) {
		/* the fetches before it (since the last mark) and inside it */
		for (uint32_t k = 0; k < o->nfetch; k++) {
			uint64_t fs = o->fetch[k].start, fe = o->fetch[k].end;

			if (fe <= start && fs >= o->boundary) {
				if (fs < s->istart)
					s->istart = fs;
				s->stall_ns += fe - fs;
			} else if (fs >= start && fe <= end) {
				s->stall_ns += fe - fs;
			}
		}
	} else if (o->nmarks) {
		s->istart = o->boundary; /* from the previous step's end: the wait for its batch */
	}
	o->nfetch = 0;
	o->steps++;
	consider_slow(st, o, si);
	add_mark(st, o, end, si, false);
}

static void epoch_region(struct report_stats *st, uint32_t ti, const struct ev_span *sp,
			 uint64_t start)
{
	struct rs_phases *ph = &st->phases;
	struct rs_owner *o = owner_get(st, ti);
	uint64_t end = start + sp->dur;
	struct rs_epoch *e;
	uint32_t ei;

	if (!o)
		return;
	e = GROW(st, ph->epochs, ph->cap_epochs, ph->nepochs);
	if (!e)
		return;
	ei = ph->nepochs++;
	memset(e, 0, sizeof(*e));
	e->owner = o - ph->owners;
	e->index = int_arg(sp, "epoch", o->epochs);
	e->start = start;
	e->end = end;
	o->epochs++;
	o->nfetch = 0; /* the fetch that found the epoch's end of data */
	if (!o->nmarks || end >= o->boundary)
		add_mark(st, o, end, ei, true);
}

static void fetch_region(struct report_stats *st, uint32_t ti, const struct ev_span *sp,
			 uint64_t start)
{
	struct rs_owner *o = owner_get(st, ti);

	if (!o)
		return;
	o->fetch_seen = true;
	if (o->nfetch < FETCH_KEEP && (!o->nmarks || start >= o->boundary)) {
		o->fetch[o->nfetch].start = start;
		o->fetch[o->nfetch].end = start + sp->dur;
		o->nfetch++;
	}
}

static void region_stats(struct report_stats *st, const struct ev_span *sp)
{
	struct rs_phases *ph = &st->phases;
	uint32_t id = rs_intern(st, &sp->name), k;

	for (k = 0; k < ph->nregions && ph->regions[k].name != id; k++)
		;
	if (k == ph->nregions) {
		if (k == REGION_KEEP || id == NONE32) {
			ph->other_regions++;
			return;
		}
		ph->nregions++;
		ph->regions[k].name = id;
		sketch_init(&ph->regions[k].dur);
	}
	ph->regions[k].count++;
	ph->regions[k].time_ns += sp->dur;
	sketch_add(&ph->regions[k].dur, sp->dur);
}

void rs_phase_marker(struct report_stats *st, uint32_t ti, const struct event *ev, uint64_t start)
{
	const struct ev_span *sp = &ev->span;

	switch (sp->phase) {
	case EV_PH_COMPLETE:
		region_stats(st, sp);
		if (ev_str_is(&sp->name, "step"))
			step_region(st, ti, sp, start);
		else if (ev_str_is(&sp->name, "epoch"))
			epoch_region(st, ti, sp, start);
		else if (ev_str_is(&sp->name, "fetch"))
			fetch_region(st, ti, sp, start);
		return;
	case EV_PH_INSTANT:
		st->phases.instants++;
		return;
	case EV_PH_COUNTER:
		st->phases.counters++;
		return;
	default:
		return;
	}
}

void rs_phases_finish(struct report_stats *st)
{
	struct rs_phases *ph = &st->phases;

	for (uint32_t i = 0; i < ph->nowners; i++) {
		struct rs_owner *o = &ph->owners[i];

		for (uint32_t k = 0; k < o->npend; k++)
			io_add(o->nmarks ? &o->after : &o->before, &o->pend[k]);
		o->npend = 0;
	}
	for (uint32_t k = 0; k < ph->norphans; k++)
		io_add(&ph->unowned, &ph->orphans[(ph->orphan_head + k) % ORPHAN_MAX]);
	ph->norphans = 0;
}

/* ---- derived figures ---- */

static void io_sum(struct rs_phase_io *dst, const struct rs_phase_io *src)
{
	dst->bytes_read += src->bytes_read;
	dst->bytes_written += src->bytes_written;
	dst->calls += src->calls;
	dst->io_ns += src->io_ns;
	for (int l = 0; l < DL_LEVEL_COUNT; l++)
		dst->level_ns[l] += src->level_ns[l];
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank quantile of sorted v[0..n). */
static uint64_t q_u64(const uint64_t *v, uint32_t n, double q)
{
	uint32_t k;

	if (!n)
		return 0;
	k = (uint32_t)(q * n + 0.999999999);
	return v[k ? k - 1 : 0];
}

static double q_double(const double *v, uint32_t n, double q)
{
	uint32_t k;

	if (!n)
		return 0;
	k = (uint32_t)(q * n + 0.999999999);
	return v[k ? k - 1 : 0];
}

static void owner_summary(struct report_stats *st, struct rs_owner *o)
{
	const struct rs_phases *ph = &st->phases;
	uint64_t *iter = malloc((o->steps + 1) * sizeof(*iter) * 4);
	double *share = malloc((o->steps + 1) * sizeof(*share));
	uint64_t *step, *stall, *bytes;
	uint32_t n = 0;

	o->sum.worst = NONE32;
	if (!iter || !share) {
		free(iter);
		free(share);
		st->oom = true;
		return;
	}
	step = iter + o->steps + 1;
	stall = step + o->steps + 1;
	bytes = stall + o->steps + 1;
	for (uint32_t k = 0; k < o->nmarks; k++) {
		const struct rs_step *s;

		if (o->marks[k].epoch)
			continue;
		s = &ph->steps[o->marks[k].index];
		iter[n] = rs_step_iter_ns(s);
		step[n] = s->end - s->start;
		stall[n] = s->stall_ns;
		bytes[n] = s->io.bytes_read;
		share[n] = rs_step_stall_share(s);
		o->sum.iter_ns += iter[n];
		o->sum.stall_ns += s->stall_ns < iter[n] ? s->stall_ns : iter[n];
		o->sum.bytes_read += s->io.bytes_read;
		o->sum.bytes_written += s->io.bytes_written;
		if (o->sum.worst == NONE32 || iter[n] > rs_step_iter_ns(&ph->steps[o->sum.worst]))
			o->sum.worst = o->marks[k].index;
		n++;
	}
	qsort(iter, n, sizeof(*iter), cmp_u64);
	qsort(step, n, sizeof(*step), cmp_u64);
	qsort(stall, n, sizeof(*stall), cmp_u64);
	qsort(bytes, n, sizeof(*bytes), cmp_u64);
	qsort(share, n, sizeof(*share), cmp_double);
	o->sum.iter_p50 = q_u64(iter, n, 0.5);
	o->sum.iter_p99 = q_u64(iter, n, 0.99);
	o->sum.iter_max = n ? iter[n - 1] : 0;
	o->sum.step_p50 = q_u64(step, n, 0.5);
	o->sum.step_p99 = q_u64(step, n, 0.99);
	o->sum.step_max = n ? step[n - 1] : 0;
	o->sum.stall_p50 = q_u64(stall, n, 0.5);
	o->sum.stall_p99 = q_u64(stall, n, 0.99);
	o->sum.stall_max = n ? stall[n - 1] : 0;
	o->sum.read_p50 = q_u64(bytes, n, 0.5);
	o->sum.read_p99 = q_u64(bytes, n, 0.99);
	o->sum.read_max = n ? bytes[n - 1] : 0;
	o->sum.share_p50 = q_double(share, n, 0.5);
	o->sum.share_p99 = q_double(share, n, 0.99);
	o->sum.share_max = n ? share[n - 1] : 0;
	free(iter);
	free(share);
}

void rs_phases_derive(struct report_stats *st)
{
	struct rs_phases *ph = &st->phases;

	for (uint32_t ei = 0; ei < ph->nepochs; ei++) {
		struct rs_epoch *e = &ph->epochs[ei];
		const struct rs_owner *o = &ph->owners[e->owner];

		for (uint32_t k = 0; k < o->nmarks; k++) {
			struct rs_step *s;
			uint64_t iter;

			if (o->marks[k].epoch)
				continue;
			s = &ph->steps[o->marks[k].index];
			if (s->start < e->start || s->end > e->end || s->epoch != NONE32)
				continue;
			s->epoch = ei;
			iter = rs_step_iter_ns(s);
			e->steps++;
			e->iter_ns += iter;
			e->stall_ns += s->stall_ns < iter ? s->stall_ns : iter;
			if (iter > e->step_max_ns)
				e->step_max_ns = iter;
			io_sum(&e->io, &s->io);
			io_sum(&e->io, &s->gap);
		}
		io_sum(&e->io, &e->tail);
	}
	for (uint32_t i = 0; i < ph->nowners; i++)
		owner_summary(st, &ph->owners[i]);
}

uint32_t rs_stall_bars(const struct report_stats *st, uint32_t owner, struct rs_stall_bar *bars,
		       uint32_t max)
{
	const struct rs_owner *o = &st->phases.owners[owner];
	uint32_t per = max && o->steps > max ? (o->steps + max - 1) / max : 1, n = 0, in = 0;

	for (uint32_t k = 0; k < o->nmarks && max; k++) {
		const struct rs_step *s;
		uint64_t iter;

		if (o->marks[k].epoch)
			continue;
		s = &st->phases.steps[o->marks[k].index];
		if (!in) {
			bars[n] = (struct rs_stall_bar){o->marks[k].index, 0, 0, 0};
			n++;
		}
		iter = rs_step_iter_ns(s);
		bars[n - 1].steps++;
		bars[n - 1].iter_ns += iter;
		bars[n - 1].stall_ns += s->stall_ns < iter ? s->stall_ns : iter;
		in = (in + 1) % per;
	}
	return n;
}

uint32_t rs_slow_order(const struct report_stats *st, const struct rs_owner *o,
		       uint32_t order[SLOW_KEEP])
{
	for (uint32_t k = 0; k < o->nslow; k++) {
		uint32_t j = k;
		uint64_t it = rs_step_iter_ns(&st->phases.steps[o->slow[k].step]);

		for (; j > 0 && rs_step_iter_ns(&st->phases.steps[o->slow[order[j - 1]].step]) < it;
		     j--)
			order[j] = order[j - 1];
		order[j] = k;
	}
	return o->nslow;
}

static int by_steps(const void *a, const void *b, void *arg)
{
	const struct report_stats *st = arg;
	const struct rs_owner *x = &st->phases.owners[*(const uint32_t *)a],
			      *y = &st->phases.owners[*(const uint32_t *)b];

	if (x->steps != y->steps)
		return x->steps < y->steps ? 1 : -1;
	if (x->epochs != y->epochs)
		return x->epochs < y->epochs ? 1 : -1;
	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

uint32_t *rs_phase_owners(const struct report_stats *st, uint32_t *n)
{
	uint32_t *v = malloc((st->phases.nowners + 1) * sizeof(*v));

	*n = 0;
	if (!v)
		return NULL;
	for (uint32_t i = 0; i < st->phases.nowners; i++)
		if (st->phases.owners[i].steps || st->phases.owners[i].epochs)
			v[(*n)++] = i;
	qsort_r(v, *n, sizeof(*v), by_steps, (void *)st);
	return v;
}

void rs_phases_init(struct report_stats *st)
{
	u64_index_init(&st->phases.owner_ix);
}

void rs_phases_free(struct report_stats *st)
{
	struct rs_phases *ph = &st->phases;

	for (uint32_t i = 0; i < ph->nowners; i++) {
		free(ph->owners[i].marks);
		free(ph->owners[i].pend);
	}
	for (uint32_t k = 0; k < ph->nregions; k++)
		sketch_free(&ph->regions[k].dur);
	free(ph->owners);
	free(ph->steps);
	free(ph->epochs);
	free(ph->orphans);
	u64_index_free(&ph->owner_ix);
}
