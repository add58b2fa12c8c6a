// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What the live view shows, apart from how: the rows of a table with their
 * rates over the interval between two snapshots, their order (sorted, or
 * the process tree), and the figures of the header taken from a snapshot.
 */
#define _GNU_SOURCE
#include "view/top_model.h"

#include <stdlib.h>
#include <string.h>

#define NONE32 UINT32_MAX

/* ---- numbers ---- */

/* Seconds between the two snapshots (since the start for the first). */
double top_interval_s(const struct top_view *v)
{
	const struct live_snapshot *c = cur_snap(v), *p = prev_snap(v);
	uint64_t dt = p ? sub(c->now_ns, p->now_ns) : c->now_ns;

	return dt ? dt / 1e9 : 1e-9;
}

/* cur minus prev (NULL: zero), latencies included. */
void top_counts_delta(const struct live_counts *c, const struct live_counts *p,
		      struct live_counts *d)
{
	if (!p) {
		*d = *c;
		return;
	}
	d->ops = sub(c->ops, p->ops);
	d->rd_ops = sub(c->rd_ops, p->rd_ops);
	d->wr_ops = sub(c->wr_ops, p->wr_ops);
	d->meta_ops = sub(c->meta_ops, p->meta_ops);
	d->sync_ops = sub(c->sync_ops, p->sync_ops);
	d->failed = sub(c->failed, p->failed);
	d->rd_bytes = sub(c->rd_bytes, p->rd_bytes);
	d->wr_bytes = sub(c->wr_bytes, p->wr_bytes);
	d->io_ns = sub(c->io_ns, p->io_ns);
	for (unsigned b = 0; b < LIVE_LAT_BUCKETS; b++)
		d->lat[b] = c->lat[b] - p->lat[b]; /* modulo 2^32 */
}

/* ---- rows ---- */

static int ensure_rows(struct top_view *v, size_t n)
{
	struct disp *rows;
	uint32_t *order;

	if (n <= v->cap)
		return 0;
	rows = realloc(v->rows, n * sizeof(*rows));
	if (!rows)
		return -1;
	v->rows = rows;
	order = realloc(v->order, n * sizeof(*order));
	if (!order)
		return -1;
	v->order = order;
	v->cap = n;
	return 0;
}

static const struct live_row *prev_row(const struct top_view *v, int t, const struct live_row *r)
{
	const struct live_snapshot *p = prev_snap(v);
	uint32_t i;

	if (!p || !p->nrows[t])
		return NULL;
	if (!r->serial)
		return &p->rows[t][p->nrows[t] - 1];
	i = u64_index_get(&v->prev_index[t], r->serial);
	return i == U64_NONE ? NULL : &p->rows[t][i];
}

/* The rows of table t with their rates; returns how many. */
uint32_t top_build_rows(struct top_view *v, int t)
{
	const struct live_snapshot *c = cur_snap(v);
	double dt = top_interval_s(v);
	uint32_t n = c->nrows[t];

	if (ensure_rows(v, n ? n : 1))
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct live_row *r = &c->rows[t][i], *pr = prev_row(v, t, r);
		struct disp *d = &v->rows[i];
		struct live_counts delta;

		top_counts_delta(&r->c, pr ? &pr->c : NULL, &delta);
		memset(d, 0, sizeof(*d));
		d->r = r;
		d->d_ops = delta.ops;
		d->p50 = live_lat_quantile(delta.lat, delta.ops, 0.5);
		d->p99 = live_lat_quantile(delta.lat, delta.ops, 0.99);
		d->v[C_PID] = r->pid;
		d->v[C_THR] = r->threads;
		d->v[C_RD_S] = delta.rd_bytes / dt;
		d->v[C_WR_S] = delta.wr_bytes / dt;
		d->v[C_OPS_S] = delta.ops / dt;
		d->v[C_META_S] = delta.meta_ops / dt;
		d->v[C_IO] = delta.io_ns / 1e9 / dt;
		d->v[C_P50] = (double)d->p50;
		d->v[C_P99] = (double)d->p99;
		d->v[C_RD] = (double)r->c.rd_bytes;
		d->v[C_WR] = (double)r->c.wr_bytes;
		d->v[C_OPS] = (double)r->c.ops;
		d->parent = d->first_child = d->next_sibling = NONE32;
		/* processes: the live ones and those busy in the interval */
		d->visible = t != LIVE_PROCS || r->alive || delta.ops;
		if (!r->serial) /* the "other" row: only when it counted something */
			d->visible = r->c.ops || r->c.rd_bytes || r->c.wr_bytes;
	}
	return n;
}

static int compare_rows(const void *a, const void *b, void *ctx)
{
	const struct top_view *v = ctx;
	const struct disp *x = &v->rows[*(const uint32_t *)a], *y = &v->rows[*(const uint32_t *)b];
	int col = v->sort[v->table], r = 0;

	if (!x->r->serial != !y->r->serial) /* the "other" row last */
		return x->r->serial ? -1 : 1;
	if (col == C_NAME) {
		uint32_t n = x->r->name_len < y->r->name_len ? x->r->name_len : y->r->name_len;

		r = memcmp(x->r->name, y->r->name, n);
		if (!r)
			r = (x->r->name_len > y->r->name_len) - (x->r->name_len < y->r->name_len);
	} else if (col == C_PID) {
		r = (x->v[col] > y->v[col]) - (x->v[col] < y->v[col]);
	} else {
		r = (x->v[col] < y->v[col]) - (x->v[col] > y->v[col]); /* largest first */
	}
	if (v->reverse)
		r = -r;
	if (!r) /* ties: the busiest since the start, then the oldest */
		r = (x->v[C_OPS] < y->v[C_OPS]) - (x->v[C_OPS] > y->v[C_OPS]);
	if (!r)
		r = (x->r->serial > y->r->serial) - (x->r->serial < y->r->serial);
	return r;
}

/* Display order of the n rows in v->order; returns how many are shown. */
uint32_t top_order_rows(struct top_view *v, uint32_t n, bool tree)
{
	uint32_t *sorted = v->order, shown = 0, *tail, root_head = NONE32, root_tail = NONE32;
	struct u64_index by_pid;

	for (uint32_t i = 0; i < n; i++)
		sorted[i] = i;
	qsort_r(sorted, n, sizeof(*sorted), compare_rows, v);
	v->hidden = 0;
	if (!tree) {
		for (uint32_t i = 0; i < n; i++)
			if (v->rows[sorted[i]].visible)
				sorted[shown++] = sorted[i];
			else if (v->rows[sorted[i]].r->serial)
				v->hidden++;
		return shown;
	}
	/* the job's tree: each process under its parent, siblings in sort order */
	u64_index_init(&by_pid);
	tail = malloc(n * sizeof(*tail));
	if (!tail) {
		u64_index_free(&by_pid);
		return top_order_rows(v, n, false);
	}
	for (uint32_t i = 0; i < n; i++)
		if (v->rows[i].r->serial && u64_index_get(&by_pid, v->rows[i].r->pid) == U64_NONE)
			u64_index_put(&by_pid, v->rows[i].r->pid, i);
	for (uint32_t i = 0; i < n; i++) {
		struct disp *d = &v->rows[i];
		uint32_t p = d->r->serial ? u64_index_get(&by_pid, d->r->ppid) : U64_NONE;

		d->parent = p != U64_NONE && p != i ? p : NONE32;
		tail[i] = NONE32;
	}
	/* an exited parent stays on screen while one of its descendants is shown */
	for (uint32_t i = 0; i < n; i++) {
		uint32_t p = v->rows[i].parent;

		for (int depth = 0; v->rows[i].visible && p != NONE32 && depth < 64; depth++) {
			v->rows[p].visible = true;
			p = v->rows[p].parent;
		}
	}
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = sorted[k], p = v->rows[i].parent;

		if (!v->rows[i].visible) {
			if (v->rows[i].r->serial)
				v->hidden++;
			continue;
		}
		if (p != NONE32 && v->rows[p].visible) {
			if (tail[p] == NONE32)
				v->rows[p].first_child = i;
			else
				v->rows[tail[p]].next_sibling = i;
			tail[p] = i;
		} else {
			v->rows[i].parent = NONE32;
			if (root_tail == NONE32)
				root_head = i;
			else
				v->rows[root_tail].next_sibling = i;
			root_tail = i;
		}
	}
	/* depth-first, iteratively (a parent loop cannot recurse forever) */
	for (uint32_t i = root_head; i != NONE32 && shown < n;) {
		sorted[shown++] = i;
		if (v->rows[i].first_child != NONE32 && v->rows[i].depth < 64) {
			uint32_t c = v->rows[i].first_child;

			v->rows[c].depth = v->rows[i].depth + 1;
			i = c;
			continue;
		}
		while (i != NONE32 && v->rows[i].next_sibling == NONE32)
			i = v->rows[i].parent;
		if (i != NONE32) {
			uint32_t s = v->rows[i].next_sibling;

			v->rows[s].depth = v->rows[i].depth;
			i = s;
		}
	}
	free(tail);
	u64_index_free(&by_pid);
	return shown;
}

/* ---- header figures ---- */

const struct live_row *top_find_proc(const struct live_snapshot *s, uint32_t pid)
{
	for (uint32_t i = 0; i < s->nrows[LIVE_PROCS]; i++)
		if (s->rows[LIVE_PROCS][i].serial && s->rows[LIVE_PROCS][i].pid == pid)
			return &s->rows[LIVE_PROCS][i];
	return NULL;
}

/* Data stall in the interval: time in "fetch" regions of fetch + step time; -1: none. */
double top_stall_share(const struct live_phases *c, const struct live_phases *p, uint64_t *steps)
{
	uint64_t fetch = sub(c->fetch_ns, p->fetch_ns), step = sub(c->step_ns, p->step_ns);

	*steps = sub(c->steps, p->steps);
	if (c->fetches == p->fetches || !(fetch + step))
		return -1;
	return (double)fetch / (double)(fetch + step);
}
