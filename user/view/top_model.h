/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The live view's model, shared by top_model.c and top_view.c: its state
 * (two snapshots, the table shown, the sort) and the rows of a table with
 * their rates over the interval, sorted or as the process tree.
 */
#ifndef TOP_MODEL_H
#define TOP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/u64_index.h"
#include "view/live_stats.h"

enum top_table { TOP_PROCESSES, TOP_FILES, TOP_DIRS, TOP_LAYERS, TOP_VIEWS };

/* The columns of the tables, and the rows' sort keys. */
enum col {
	C_PID,
	C_THR,
	C_RD_S,
	C_WR_S,
	C_OPS_S,
	C_META_S,
	C_IO,
	C_P50,
	C_P99,
	C_RD,
	C_WR,
	C_OPS,
	C_NAME,
	C_COUNT,
};

/* A row as shown: rates over the interval, totals since the start. */
struct disp {
	const struct live_row *r;
	double v[C_COUNT]; /* sort values */
	uint64_t p50, p99; /* 0 with no call in the interval */
	uint64_t d_ops;
	uint32_t parent; /* tree: index of the parent in the disp array */
	uint32_t first_child, next_sibling;
	int depth;
	bool visible;
};

struct top_view {
	struct live_snapshot snap[2];
	int cur;				  /* snap[cur] is the newest */
	int count;				  /* snapshots held: 0, 1, 2 */
	struct u64_index prev_index[LIVE_TABLES]; /* serial -> row of the older snapshot */
	enum top_table table;
	int sort[TOP_VIEWS]; /* column index per table */
	bool reverse, tree, paused;
	double interval;
	char title[128];
	char message[256];
	struct disp *rows;
	uint32_t *order; /* rows in display order */
	size_t cap;
	uint32_t hidden; /* processes that exited and were idle in the interval */
};

static inline const struct live_snapshot *cur_snap(const struct top_view *v)
{
	return &v->snap[v->cur];
}

static inline const struct live_snapshot *prev_snap(const struct top_view *v)
{
	return v->count > 1 ? &v->snap[1 - v->cur] : NULL;
}

static inline uint64_t sub(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* ---- top_model.c ---- */

/* Seconds between the two snapshots (since the start for the first). */
double top_interval_s(const struct top_view *v);
/* cur minus prev (NULL: zero), latencies included. */
void top_counts_delta(const struct live_counts *c, const struct live_counts *p,
		      struct live_counts *d);
/* The rows of table t (enum live_table) in v->rows with their rates; returns how many. */
uint32_t top_build_rows(struct top_view *v, int t);
/* Display order of the n rows in v->order (sorted, or the tree); returns how many are shown. */
uint32_t top_order_rows(struct top_view *v, uint32_t n, bool tree);
/* The process of pid in the snapshot (NULL: none). */
const struct live_row *top_find_proc(const struct live_snapshot *s, uint32_t pid);
/* Data stall in the interval: time in "fetch" regions of fetch + step time; -1: none. */
double top_stall_share(const struct live_phases *c, const struct live_phases *p, uint64_t *steps);

#endif
