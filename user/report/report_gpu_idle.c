// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The GPU's idle time per step and the data waits it overlaps (the picture
 * is in report_gpu_idle.h).  Intervals are collected as the trace streams
 * past (the waits only when a profiler trace is expected: a merge that holds
 * one, or --kineto), then sorted, merged into unions and swept at the end.
 */
#define _GNU_SOURCE
#include "report/report_gpu_idle.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event/kineto_names.h"
#include "lib/human_format.h"
#include "report/finding_rule.h"
#include "report/report_stats_internal.h"

#define GPU_SHARE     0.20 /* gpu_idle_on_data: data waits explain >= 20% of the idle time */
#define GPU_HIGH      0.50
#define GPU_STEPS     3		  /* over >= 3 steps */
#define TRACK_TID_END 0x60000000u /* the merge's fresh ids start here (merge/merge_ids.h) */

const char *const rs_gpu_overlap_names[GO_KINDS] = {"batch_wait", "file_read", "cache_miss",
						    "block_io"};

struct ivals {
	struct rs_gpu_ival *v;
	uint32_t n, cap;
};

static bool is(struct ev_str s, const char *lit)
{
	size_t n = strlen(lit);

	return s.len == n && !memcmp(s.s, lit, n);
}

static struct rs_gpu *gpu_get(struct report_stats *st)
{
	if (!st->gpu && !(st->gpu = calloc(1, sizeof(*st->gpu))))
		st->oom = true;
	return st->gpu;
}

const struct rs_gpu *rs_gpu_of(const struct report_stats *st)
{
	return st->gpu && st->gpu->ndevs ? st->gpu : NULL;
}

static void *grow(struct report_stats *st, void *p, uint32_t *cap, uint32_t n, size_t size)
{
	uint32_t c;

	if (n < *cap)
		return p;
	c = *cap ? 2 * *cap : 64;
	p = realloc(p, (size_t)c * size);
	if (!p) {
		st->oom = true;
		return NULL;
	}
	*cap = c;
	return p;
}

static void warn(struct rs_gpu *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct rs_gpu *g, const char *fmt, ...)
{
	va_list ap;

	if (g->nwarnings == GPU_WARNINGS)
		return;
	va_start(ap, fmt);
	vsnprintf(g->warnings[g->nwarnings++], sizeof(g->warnings[0]), fmt, ap);
	va_end(ap);
}

/* ---- collecting ---- */

static void add_busy(struct report_stats *st, uint32_t trace, uint32_t pid, int64_t device,
		     uint64_t start, uint64_t end)
{
	struct rs_gpu *g = gpu_get(st);
	struct rs_gpu_dev *d = NULL;
	void *p;

	if (!g)
		return;
	for (uint32_t i = 0; i < g->ndevs && !d; i++)
		if (g->devs[i].trace == trace && g->devs[i].pid == pid &&
		    g->devs[i].device == device)
			d = &g->devs[i];
	if (!d) {
		if (!(p = grow(st, g->devs, &g->cap_devs, g->ndevs, sizeof(*g->devs))))
			return;
		g->devs = p;
		d = &g->devs[g->ndevs++];
		memset(d, 0, sizeof(*d));
		d->trace = trace;
		d->pid = pid;
		d->device = device;
	}
	if (!(p = grow(st, d->busy, &d->cap_busy, d->nbusy, sizeof(*d->busy))))
		return;
	d->busy = p;
	d->busy[d->nbusy++] = (struct rs_gpu_ival){start, end};
}

static void add_step(struct report_stats *st, uint32_t trace, uint32_t pid, uint32_t tid,
		     int64_t index, uint64_t start, uint64_t end)
{
	struct rs_gpu *g = gpu_get(st);
	void *p;

	if (!g || !(p = grow(st, g->steps, &g->cap_steps, g->nsteps, sizeof(*g->steps))))
		return;
	g->steps = p;
	g->steps[g->nsteps++] = (struct rs_gpu_step){trace, pid, tid, index, start, end};
}

static int64_t step_number(struct ev_str name)
{
	int64_t v = 0;

	if (name.len <= 13 || memcmp(name.s, "ProfilerStep#", 13))
		return -1;
	for (uint32_t i = 13; i < name.len; i++) {
		if (name.s[i] < '0' || name.s[i] > '9' || v > INT64_MAX / 10 - 9)
			return -1;
		v = v * 10 + (name.s[i] - '0');
	}
	return v;
}

static bool is_step(struct ev_str cat, struct ev_str name)
{
	return is(cat, "user_annotation") && name.len > 13 && !memcmp(name.s, "ProfilerStep#", 13);
}

static int64_t device_of(const struct ev_arg *args, uint32_t n, int64_t none)
{
	for (uint32_t i = 0; i < n; i++)
		if (is(args[i].key, "device")) {
			if (args[i].type == EV_ARG_I64)
				return args[i].i;
			if (args[i].type == EV_ARG_U64 && args[i].u <= INT64_MAX)
				return (int64_t)args[i].u;
		}
	return none;
}

bool rs_gpu_span(struct report_stats *st, const struct event *ev)
{
	const struct ev_span *sp = &ev->span;
	uint64_t start;
	struct rs_gpu *g;

	if (!kineto_category(sp->cat))
		return false;
	if (!(g = gpu_get(st)))
		return true;
	g->profiler_events++;
	if (sp->phase != EV_PH_COMPLETE)
		return true;
	start = (uint64_t)st->traces[st->cur].offset_ns + ev->ts;
	if (kineto_busy_category(sp->cat))
		add_busy(st, st->cur, ev->pid, device_of(sp->args, sp->nargs, -1), start,
			 start + sp->dur);
	else if (is_step(sp->cat, sp->name))
		add_step(st, st->cur, ev->pid, ev->tid, step_number(sp->name), start,
			 start + sp->dur);
	return true;
}

bool rs_gpu_track_name(const struct event *ev)
{
	const struct ev_str *n = &ev->name.name;

	return ev->type == EV_THREAD_NAME && ev->tid >= EV_GPU_TRACK_BASE &&
	       ev->tid < TRACK_TID_END &&
	       ((n->len > 4 && !memcmp(n->s, "GPU ", 4)) || is(*n, "PyTorch profiler"));
}

void rs_gpu_expect(struct report_stats *st)
{
	struct rs_gpu *g = gpu_get(st);

	if (g)
		g->collect = true;
}

void rs_gpu_wait(struct report_stats *st, enum rs_gpu_wait kind, uint32_t ti, uint32_t file,
		 uint64_t start, uint64_t end)
{
	struct rs_gpu *g = st->gpu;
	void *p;

	/* only when a profiler trace is there to join: a plain report keeps no intervals */
	if (!g || !g->collect || end <= start)
		return;
	if (g->nwaits == GPU_WAITS_MAX) {
		g->waits_dropped++;
		return;
	}
	if (!(p = grow(st, g->waits, &g->cap_waits, g->nwaits, sizeof(*g->waits))))
		return;
	g->waits = p;
	g->waits[g->nwaits].start = start;
	g->waits[g->nwaits].end = end;
	g->waits[g->nwaits].who = kind == GW_FETCH || kind == GW_PIPE ? ti : file;
	g->waits[g->nwaits].trace = st->cur > 0xfffe ? 0xffff : st->cur;
	g->waits[g->nwaits].kind = kind;
	g->nwaits++;
}

/* ---- a profiler trace given apart (--kineto) ---- */

struct rs_gpu_profile {
	struct report_stats *st;
	struct rs_gpu_ival *busy;
	int64_t *busy_dev;
	uint32_t nbusy, cap_busy;
	struct rs_gpu_step *steps; /* times relative to the base; pid, tid the profiler's */
	uint32_t nsteps, cap_steps;
	struct {
		uint64_t pid, events;
	} cpu[64];
	uint32_t ncpu;
	int64_t first, last; /* relative */
};

struct rs_gpu_profile *rs_gpu_profile__new(struct report_stats *st)
{
	struct rs_gpu_profile *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->st = st;
	p->first = INT64_MAX;
	p->last = INT64_MIN;
	return p;
}

void rs_gpu_profile__add(struct rs_gpu_profile *r, const struct rs_gpu_profile_event *ev)
{
	uint64_t pid = ev->has_pid ? ev->pid : UINT64_MAX;
	void *p;

	if (ev->start < r->first)
		r->first = ev->start;
	if (ev->end > r->last)
		r->last = ev->end;
	if (!ev->complete)
		return;
	if (kineto_busy_category(ev->cat)) {
		if (!(p = grow(r->st, r->busy, &r->cap_busy, r->nbusy, sizeof(*r->busy))))
			return;
		r->busy = p;
		p = realloc(r->busy_dev, (size_t)r->cap_busy * sizeof(*r->busy_dev));
		if (!p)
			return;
		r->busy_dev = p;
		r->busy[r->nbusy] = (struct rs_gpu_ival){(uint64_t)ev->start, (uint64_t)ev->end};
		r->busy_dev[r->nbusy++] = device_of(ev->args, ev->nargs, (int64_t)pid);
		return;
	}
	if (pid <= UINT32_MAX && !kineto_gpu_category(ev->cat)) {
		uint32_t i;

		for (i = 0; i < r->ncpu && r->cpu[i].pid != pid; i++)
			;
		if (i == r->ncpu && i < 64)
			r->cpu[r->ncpu++].pid = pid;
		if (i < 64)
			r->cpu[i].events++;
	}
	if (is_step(ev->cat, ev->name) && pid <= UINT32_MAX && ev->has_tid &&
	    ev->tid <= UINT32_MAX) {
		if (!(p = grow(r->st, r->steps, &r->cap_steps, r->nsteps, sizeof(*r->steps))))
			return;
		r->steps = p;
		r->steps[r->nsteps++] = (struct rs_gpu_step){
		    UINT32_MAX,		 (uint32_t)pid,	   (uint32_t)ev->tid, step_number(ev->name),
		    (uint64_t)ev->start, (uint64_t)ev->end};
	}
}

/* The trace whose process pid ran over [first, last] (wall clock), or NONE32. */
static uint32_t joined_trace(const struct report_stats *st, uint32_t pid, int64_t first,
			     int64_t last, bool *pid_seen)
{
	*pid_seen = false;
	for (uint32_t t = 0; t < st->ntraces; t++) {
		const struct rs_trace *tr = &st->traces[t];
		int64_t end = st->origin_wall_ns + (int64_t)tr->end_ns;

		if (tr->start_wall_ns + (int64_t)tr->duration_ns > end)
			end = tr->start_wall_ns + (int64_t)tr->duration_ns;
		if (u64_index_get(&st->proc_ix, (uint64_t)t << 32 | pid) == U64_NONE)
			continue;
		*pid_seen = true;
		if (last >= tr->start_wall_ns && first <= end)
			return t;
	}
	return NONE32;
}

void rs_gpu_profile__end(struct rs_gpu_profile *r, const char *path, int64_t base_ns,
			 uint64_t events)
{
	struct report_stats *st = r->st;
	struct rs_gpu *g = gpu_get(st);
	uint32_t pid = 0, trace = NONE32, before = 0;
	int64_t base = base_ns - st->origin_wall_ns; /* profiler time + base = report time */
	bool seen = false;

	if (!g)
		goto done;
	/* the training process: the steps', else the one with most CPU events */
	if (r->nsteps) {
		pid = r->steps[0].pid;
	} else {
		for (uint32_t i = 0; i < r->ncpu; i++)
			if (!i || r->cpu[i].events > r->cpu[0].events)
				pid = (uint32_t)r->cpu[i].pid;
	}
	if (r->first != INT64_MAX)
		trace = joined_trace(st, pid, base_ns + r->first, base_ns + r->last, &seen);
	if (trace == NONE32)
		warn(g,
		     "%s: %s; its steps are compared with the I/O of all traces by time only, "
		     "without the training thread's batch waits",
		     path,
		     seen ? "the process with its pid ran at other times (another boot or host?)"
			  : "no traced process has its pid");
	for (uint32_t i = 0; i < r->nbusy; i++) {
		if ((int64_t)r->busy[i].start + base < 0) {
			before++;
			continue;
		}
		add_busy(st, trace, pid, r->busy_dev[i], r->busy[i].start + base,
			 r->busy[i].end + base);
	}
	for (uint32_t i = 0; i < r->nsteps; i++) {
		const struct rs_gpu_step *s = &r->steps[i];

		if ((int64_t)s->start + base < 0) {
			before++;
			continue;
		}
		add_step(st, trace, trace == NONE32 ? s->pid : pid, s->tid, s->index,
			 s->start + base, s->end + base);
	}
	if (before)
		warn(g, "%s: %u kernels and steps before the traces' start were left out", path,
		     before);
	g->profiler_events += events;
done:
	rs_gpu_profile__free(r);
}

void rs_gpu_profile__free(struct rs_gpu_profile *r)
{
	if (!r)
		return;
	free(r->busy);
	free(r->busy_dev);
	free(r->steps);
	free(r);
}

/* ---- unions of intervals ---- */

static int by_start(const void *a, const void *b)
{
	const struct rs_gpu_ival *x = a, *y = b;

	return x->start < y->start   ? -1
	       : x->start > y->start ? 1
				     : (x->end > y->end) - (x->end < y->end);
}

/* Sorted and merged in place: disjoint, in time order (touching ones joined). */
static void unite(struct rs_gpu_ival *v, uint32_t *n)
{
	uint32_t k = 0;

	if (!*n)
		return;
	qsort(v, *n, sizeof(*v), by_start);
	for (uint32_t i = 1; i < *n; i++) {
		if (v[i].start <= v[k].end) {
			if (v[i].end > v[k].end)
				v[k].end = v[i].end;
		} else {
			v[++k] = v[i];
		}
	}
	*n = k + 1;
}

static bool push(struct ivals *u, uint64_t start, uint64_t end)
{
	if (u->n == u->cap) {
		uint32_t cap = u->cap ? 2 * u->cap : 64;
		struct rs_gpu_ival *v = realloc(u->v, (size_t)cap * sizeof(*v));

		if (!v)
			return false;
		u->v = v;
		u->cap = cap;
	}
	u->v[u->n++] = (struct rs_gpu_ival){start, end};
	return true;
}

/* The first interval of a union that ends after t. */
static uint32_t first_after(const struct rs_gpu_ival *v, uint32_t n, uint64_t t)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (v[mid].end <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The time the segments (disjoint, in order) share with the union u. */
static uint64_t shared(const struct ivals *segs, const struct ivals *u)
{
	uint64_t sum = 0;

	if (!u || !u->n)
		return 0;
	for (uint32_t i = 0; i < segs->n; i++) {
		const struct rs_gpu_ival *s = &segs->v[i];

		for (uint32_t j = first_after(u->v, u->n, s->start);
		     j < u->n && u->v[j].start < s->end; j++) {
			uint64_t a = s->start > u->v[j].start ? s->start : u->v[j].start;
			uint64_t b = s->end < u->v[j].end ? s->end : u->v[j].end;

			if (b > a)
				sum += b - a;
		}
	}
	return sum;
}

/* ---- deriving ---- */

/* The unions the rows are measured against. */
struct unions {
	struct ivals *kind[GW_KINDS]; /* per trace + 1 (the last: all traces) */
	uint32_t ntraces;
	/* a thread's batch waits, and everything a step of it may wait on */
	struct {
		uint32_t thread, trace;
		uint8_t from;
		struct ivals batch, any;
	} who[16];
	uint32_t nwho;
};

static int wait_order(const void *a, const void *b)
{
	const struct rs_gpu_wait_ival *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->trace != y->trace)
		return x->trace < y->trace ? -1 : 1;
	if (x->who != y->who)
		return x->who < y->who ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static void build_unions(struct report_stats *st, struct unions *u)
{
	struct rs_gpu *g = st->gpu;

	u->ntraces = st->ntraces;
	if (g->nwaits)
		qsort(g->waits, g->nwaits, sizeof(*g->waits), wait_order);
	for (int k = GW_READ; k < GW_KINDS; k++) {
		u->kind[k] = calloc(u->ntraces + 1, sizeof(struct ivals));
		if (!u->kind[k]) {
			st->oom = true;
			continue;
		}
		for (uint32_t i = 0; i < g->nwaits; i++) {
			uint32_t t = g->waits[i].trace;

			if (g->waits[i].kind != k || t >= u->ntraces)
				continue;
			if (!push(&u->kind[k][t], g->waits[i].start, g->waits[i].end) ||
			    !push(&u->kind[k][u->ntraces], g->waits[i].start, g->waits[i].end))
				st->oom = true;
		}
		for (uint32_t t = 0; t <= u->ntraces; t++)
			unite(u->kind[k][t].v, &u->kind[k][t].n);
	}
}

static void merge_into(struct ivals *dst, const struct ivals *src)
{
	if (!src)
		return;
	for (uint32_t i = 0; i < src->n; i++)
		push(dst, src->v[i].start, src->v[i].end);
}

/* The batch waits of thread ti and the union of all waits a step of it (in trace t) may overlap. */
static uint32_t who_of(struct report_stats *st, struct unions *u, uint32_t ti, uint32_t t)
{
	struct rs_gpu *g = st->gpu;
	uint32_t k;
	uint32_t ut = t == NONE32 || t >= u->ntraces ? u->ntraces : t;

	for (k = 0; k < u->nwho; k++)
		if (u->who[k].thread == ti && u->who[k].trace == ut)
			return k;
	if (k == 16)
		return NONE32;
	u->nwho++;
	memset(&u->who[k], 0, sizeof(u->who[k]));
	u->who[k].thread = ti;
	u->who[k].trace = ut;
	u->who[k].from = GW_KINDS;
	/* fetch regions when the thread has any, else its pipe and socket reads */
	for (int kind = GW_FETCH; ti != NONE32 && kind <= GW_PIPE && !u->who[k].batch.n; kind++)
		for (uint32_t i = 0; i < g->nwaits; i++)
			if (g->waits[i].kind == kind && g->waits[i].who == ti) {
				push(&u->who[k].batch, g->waits[i].start, g->waits[i].end);
				u->who[k].from = kind;
			}
	if (ti != NONE32 && u->who[k].from == GW_KINDS)
		u->who[k].from = GW_PIPE; /* measured as pipe reads: there were none */
	unite(u->who[k].batch.v, &u->who[k].batch.n);
	merge_into(&u->who[k].any, &u->who[k].batch);
	for (int kind = GW_READ; kind < GW_KINDS; kind++)
		merge_into(&u->who[k].any, u->kind[kind] ? &u->kind[kind][ut] : NULL);
	unite(u->who[k].any.v, &u->who[k].any.n);
	return k;
}

/* The steps of dltrace's markers, when the profiler gave none. */
static void marker_steps(struct report_stats *st)
{
	struct rs_gpu *g = st->gpu;

	for (uint32_t i = 0; i < st->phases.nsteps; i++) {
		const struct rs_step *s = &st->phases.steps[i];
		const struct rs_thread *th = &st->threads[st->phases.owners[s->owner].thread];
		const struct rs_proc *p = &st->procs[th->proc];

		add_step(st, p->trace, p->pid, th->tid, s->index, s->start, s->end);
	}
	g->marker_steps = g->nsteps > 0;
}

static int step_order(const void *a, const void *b)
{
	const struct rs_gpu_step *x = a, *y = b;

	return x->start < y->start   ? -1
	       : x->start > y->start ? 1
				     : (x->end > y->end) - (x->end < y->end);
}

static int file_order(const void *a, const void *b)
{
	const struct rs_gpu_file *x = a, *y = b;

	return x->idle_ns < y->idle_ns	 ? 1
	       : x->idle_ns > y->idle_ns ? -1
					 : (x->file > y->file) - (x->file < y->file);
}

/* The idle time each file's reads overlap (idle: per trace, + 1 for all). */
static void idle_files(struct report_stats *st, struct ivals *idle)
{
	struct rs_gpu *g = st->gpu;
	struct ivals reads = {0};

	for (uint32_t i = 0; i < g->nwaits;) {
		uint32_t j = i, t = g->waits[i].trace, f = g->waits[i].who;
		struct rs_gpu_file *x;
		uint64_t ns;

		if (g->waits[i].kind != GW_READ) {
			i++;
			continue;
		}
		reads.n = 0;
		for (; j < g->nwaits && g->waits[j].kind == GW_READ && g->waits[j].trace == t &&
		       g->waits[j].who == f;
		     j++)
			push(&reads, g->waits[j].start, g->waits[j].end);
		i = j;
		unite(reads.v, &reads.n);
		ns = shared(&reads, t < st->ntraces && idle[t].n ? &idle[t] : &idle[st->ntraces]);
		if (!ns || f == NONE32)
			continue;
		for (j = 0; j < g->nfiles && g->files[j].file != f; j++)
			;
		if (j == g->nfiles) {
			void *p = realloc(g->files, (size_t)(g->nfiles + 1) * sizeof(*g->files));

			if (!p) {
				st->oom = true;
				break;
			}
			g->files = p;
			g->files[g->nfiles++] = (struct rs_gpu_file){f, 0};
		}
		x = &g->files[j];
		x->idle_ns += ns;
	}
	free(reads.v);
	if (g->nfiles)
		qsort(g->files, g->nfiles, sizeof(*g->files), file_order);
}

static void derive_row(struct report_stats *st, struct unions *u, struct ivals *idle_all,
		       uint32_t si, uint32_t di, struct ivals *segs)
{
	struct rs_gpu *g = st->gpu;
	const struct rs_gpu_step *s = &g->steps[si];
	struct rs_gpu_dev *d = &g->devs[di];
	struct rs_gpu_row *r = &g->rows[g->nrows++];
	uint64_t cursor = s->start;
	uint32_t ti = NONE32, w, ut;

	memset(r, 0, sizeof(*r));
	r->step = si;
	r->dev = di;
	/* idle: the window minus the device's busy union */
	segs->n = 0;
	for (uint32_t j = first_after(d->busy, d->nbusy, s->start);
	     j < d->nbusy && d->busy[j].start < s->end; j++) {
		if (d->busy[j].start > cursor)
			push(segs, cursor, d->busy[j].start);
		if (d->busy[j].end > cursor)
			cursor = d->busy[j].end;
	}
	if (cursor < s->end)
		push(segs, cursor, s->end);
	for (uint32_t j = 0; j < segs->n; j++)
		r->idle_ns += segs->v[j].end - segs->v[j].start;
	r->busy_ns = s->end - s->start - r->idle_ns;
	/* the training thread: the step's own */
	if (s->trace < st->ntraces)
		ti = u64_index_get(&st->thread_ix, (uint64_t)s->trace << 32 | s->tid);
	w = who_of(st, u, ti == U64_NONE ? NONE32 : ti, s->trace);
	ut = s->trace < u->ntraces ? s->trace : u->ntraces;
	if (w != NONE32) {
		r->overlap_ns[GO_BATCH] = shared(segs, &u->who[w].batch);
		r->explained_ns = shared(segs, &u->who[w].any);
		if (d->batch_from == GW_KINDS)
			d->batch_from = u->who[w].from;
	}
	for (int k = GW_READ; k < GW_KINDS; k++)
		r->overlap_ns[GO_READS + (k - GW_READ)] =
		    u->kind[k] ? shared(segs, &u->kind[k][ut]) : 0;
	for (uint32_t j = 0; j < segs->n; j++) {
		push(&idle_all[ut], segs->v[j].start, segs->v[j].end);
		if (ut != u->ntraces)
			push(&idle_all[u->ntraces], segs->v[j].start, segs->v[j].end);
	}
	d->steps++;
	d->window_ns += s->end - s->start;
	d->busy_ns += r->busy_ns;
	d->idle_ns += r->idle_ns;
	d->explained_ns += r->explained_ns;
	for (int k = 0; k < GO_KINDS; k++)
		d->overlap_ns[k] += r->overlap_ns[k];
}

void rs_gpu_derive(struct report_stats *st)
{
	struct rs_gpu *g = st->gpu;
	struct unions u = {0};
	struct ivals segs = {0}, *idle_all;
	const char *layers = rs_str(st, st->layers.active);
	uint32_t nrows = 0;

	if (!g || !g->ndevs)
		return;
	g->cache_layer = strstr(layers, "cache") || st->layers.cache_reads;
	g->block_layer = strstr(layers, "block") || st->layers.block_requests[0] ||
			 st->layers.block_requests[1] || st->layers.block_requests[2];
	for (uint32_t i = 0; i < g->ndevs; i++) {
		unite(g->devs[i].busy, &g->devs[i].nbusy);
		g->devs[i].batch_from = GW_KINDS;
	}
	if (!g->nsteps)
		marker_steps(st);
	if (g->nsteps)
		qsort(g->steps, g->nsteps, sizeof(*g->steps), step_order);
	if (g->waits_dropped)
		warn(g, "%llu data waits beyond %u were not compared with the GPU's idle time",
		     (unsigned long long)g->waits_dropped, GPU_WAITS_MAX);
	build_unions(st, &u);
	for (uint32_t si = 0; si < g->nsteps; si++)
		for (uint32_t di = 0; di < g->ndevs; di++)
			nrows += g->devs[di].trace == g->steps[si].trace &&
				 g->devs[di].pid == g->steps[si].pid;
	g->rows = calloc(nrows ? nrows : 1, sizeof(*g->rows));
	idle_all = calloc(st->ntraces + 1, sizeof(*idle_all));
	if (!g->rows || !idle_all) {
		st->oom = true;
		free(idle_all);
		return;
	}
	for (uint32_t si = 0; si < g->nsteps; si++)
		for (uint32_t di = 0; di < g->ndevs; di++)
			if (g->devs[di].trace == g->steps[si].trace &&
			    g->devs[di].pid == g->steps[si].pid)
				derive_row(st, &u, idle_all, si, di, &segs);
	for (uint32_t t = 0; t <= st->ntraces; t++)
		unite(idle_all[t].v, &idle_all[t].n);
	idle_files(st, idle_all);
	if (!nrows && g->nsteps)
		warn(g,
		     "the steps and the GPU work are of different processes: nothing to compare");
	else if (!g->nsteps)
		warn(g, "no steps (ProfilerStep#N, or dltrace's step markers) to measure the "
			"GPU's idle time in");
	for (uint32_t t = 0; t <= st->ntraces; t++)
		free(idle_all[t].v);
	free(idle_all);
	for (int k = 0; k < GW_KINDS; k++) {
		for (uint32_t t = 0; u.kind[k] && t <= u.ntraces; t++)
			free(u.kind[k][t].v);
		free(u.kind[k]);
	}
	for (uint32_t k = 0; k < u.nwho; k++) {
		free(u.who[k].batch.v);
		free(u.who[k].any.v);
	}
	free(segs.v);
}

void rs_gpu_free(struct report_stats *st)
{
	struct rs_gpu *g = st->gpu;

	if (!g)
		return;
	for (uint32_t i = 0; i < g->ndevs; i++)
		free(g->devs[i].busy);
	free(g->devs);
	free(g->steps);
	free(g->waits);
	free(g->rows);
	free(g->files);
	free(g);
	st->gpu = NULL;
}

const char *rs_gpu_step_label(const struct rs_gpu *g, const struct rs_gpu_step *s, char *buf,
			      size_t size)
{
	if (s->index < 0)
		snprintf(buf, size, "step at %.6f s", s->start / 1e9);
	else if (g->marker_steps)
		snprintf(buf, size, "step %lld", (long long)s->index);
	else
		snprintf(buf, size, "ProfilerStep#%lld", (long long)s->index);
	return buf;
}

/* ---- the finding ---- */

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0;
}

static void line(char *out, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void line(char *out, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out, size, fmt, ap);
	va_end(ap);
}

bool rs_gpu_finding(const struct finding_rule *r, const struct report_stats *st,
		    struct finding *f)
{
	const struct rs_gpu *g = rs_gpu_of(st);
	const struct rs_gpu_dev *d = NULL;
	const struct rs_gpu_row *worst = NULL, *best = NULL;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], e[HUMAN_MAX], h[HUMAN_MAX], l1[64], l2[64];
	char name[320];
	double share = 0;
	uint32_t di = 0, nf = 0;
	size_t o;

	if (!g)
		return false;
	for (uint32_t i = 0; i < g->ndevs; i++) {
		const struct rs_gpu_dev *x = &g->devs[i];
		double sh = ratio(x->explained_ns, x->idle_ns);

		if (x->steps >= r->min && x->idle_ns && sh >= r->share && (!d || sh > share)) {
			d = x;
			di = i;
			share = sh;
		}
	}
	if (!d)
		return false;
	for (uint32_t k = 0; k < g->nrows; k++) {
		const struct rs_gpu_row *r = &g->rows[k];

		if (r->dev != di)
			continue;
		if (!worst || r->idle_ns - r->explained_ns > worst->idle_ns - worst->explained_ns)
			worst = r;
		if (!best || r->explained_ns > best->explained_ns)
			best = r;
	}
	if (share >= r->high)
		f->severity = SEVERITY_HIGH;
	line(f->rule, sizeof(f->rule),
	     "the GPU is idle in steps (ProfilerStep#N of a PyTorch profiler trace, else dltrace's "
	     "step markers) while the job waits for data (the training thread's batch waits, file "
	     "reads, page-cache misses, block I/O) for >= %.0f%% of that idle time, over >= %.0f "
	     "steps; high >= %.0f%%",
	     r->share * 100, r->min, r->high * 100);
	line(f->evidence[f->nevidence++], FINDING_LINE,
	     "GPU %lld of pid %u: idle %s of %s in %u steps; data waits overlap %s of the idle "
	     "time (%s): batch waits %s, file reads %s, cache misses %s, block I/O %s",
	     (long long)d->device, d->pid, human_ns(a, d->idle_ns), human_ns(b, d->window_ns),
	     d->steps, human_ns(c, d->explained_ns), human_pct(e, share),
	     human_ns(h, d->overlap_ns[GO_BATCH]), human_ns(l1, d->overlap_ns[GO_READS]),
	     g->cache_layer ? human_ns(l2, d->overlap_ns[GO_MISSES]) : "(layer off)",
	     g->block_layer ? human_ns(name, d->overlap_ns[GO_BLOCK]) : "(layer off)");
	if (best && best->explained_ns)
		line(f->evidence[f->nevidence++], FINDING_LINE,
		     "the most idle time explained by data waits: %s, %s of %s idle",
		     rs_gpu_step_label(g, &g->steps[best->step], l1, sizeof(l1)),
		     human_ns(a, best->explained_ns), human_ns(b, best->idle_ns));
	if (worst && worst->idle_ns > worst->explained_ns)
		line(f->evidence[f->nevidence++], FINDING_LINE,
		     "the most idle time no data wait explains: %s, %s of %s idle",
		     rs_gpu_step_label(g, &g->steps[worst->step], l2, sizeof(l2)),
		     human_ns(a, worst->idle_ns - worst->explained_ns),
		     human_ns(b, worst->idle_ns));
	o = (size_t)snprintf(f->evidence[f->nevidence], FINDING_LINE,
			     "files whose reads overlap the idle time:");
	for (uint32_t k = 0; k < g->nfiles && nf < 3 && o < FINDING_LINE; k++, nf++)
		o += (size_t)snprintf(
		    f->evidence[f->nevidence] + o, FINDING_LINE - o, "%s %s (%s)", nf ? ";" : "",
		    display_text(name, sizeof(name), rs_str(st, st->files[g->files[k].file].name),
				 rs_strlen(st, st->files[g->files[k].file].name), 96),
		    human_ns(a, g->files[k].idle_ns));
	if (nf)
		f->nevidence++;
	f->metrics[f->nmetrics++] = (struct finding_metric){"steps", d->steps};
	f->metrics[f->nmetrics++] = (struct finding_metric){"idle_ns", d->idle_ns};
	f->metrics[f->nmetrics++] = (struct finding_metric){"explained_ns", d->explained_ns};
	f->metrics[f->nmetrics++] = (struct finding_metric){"share", share};
	f->metrics[f->nmetrics++] =
	    (struct finding_metric){"batch_wait_ns", d->overlap_ns[GO_BATCH]};
	f->metrics[f->nmetrics++] =
	    (struct finding_metric){"file_read_ns", d->overlap_ns[GO_READS]};
	f->metrics[f->nmetrics++] = (struct finding_metric){"pid", d->pid};
	f->metrics[f->nmetrics++] = (struct finding_metric){"device", (double)d->device};
	snprintf(f->recommendation, sizeof(f->recommendation),
		 "The GPU runs out of work while batches are read: feed it ahead of time.  More "
		 "loader processes (DataLoader(num_workers=N)) and a deeper prefetch "
		 "(prefetch_factor), persistent_workers=True, pin_memory=True with "
		 "non_blocking copies; read less per sample (packed shards, larger reads, a local "
		 "or page-cache-warm copy of the files above).  Idle time no data wait explains "
		 "is the CPU's own (Python, the optimizer step, synchronization): see the merged "
		 "trace around the steps named above.");
	return true;
}
