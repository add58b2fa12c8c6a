// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The timeline of application bytes and metadata calls, and write bursts (checkpoints). */
#include "report/report_stats_internal.h"

#include <string.h>

void rs_timeline_init(struct report_stats *st)
{
	st->tl_width = 1000000; /* 1 ms, doubled as needed */
}

static void timeline_fold(struct report_stats *st)
{
	for (int i = 0; i < TIMELINE_BINS / 2; i++) {
		st->tl_read[i] = st->tl_read[2 * i] + st->tl_read[2 * i + 1];
		st->tl_write[i] = st->tl_write[2 * i] + st->tl_write[2 * i + 1];
		st->tl_meta[i] = st->tl_meta[2 * i] + st->tl_meta[2 * i + 1];
	}
	memset(st->tl_read + TIMELINE_BINS / 2, 0, sizeof(st->tl_read) / 2);
	memset(st->tl_write + TIMELINE_BINS / 2, 0, sizeof(st->tl_write) / 2);
	memset(st->tl_meta + TIMELINE_BINS / 2, 0, sizeof(st->tl_meta) / 2);
	st->tl_width *= 2;
}

/* Spread bytes over [start, end) of report time. */
void rs_timeline_add(struct report_stats *st, uint64_t *bins, uint64_t start, uint64_t end,
		     uint64_t bytes)
{
	uint64_t first, last;

	if (end < start)
		end = start;
	while (end / st->tl_width >= TIMELINE_BINS && st->tl_width < (UINT64_MAX >> 10))
		timeline_fold(st);
	first = start / st->tl_width;
	last = end / st->tl_width;
	if (last >= TIMELINE_BINS)
		last = TIMELINE_BINS - 1;
	if (first > last)
		first = last;
	if (first == last || !bytes) {
		bins[last] += bytes;
		return;
	}
	uint64_t span = end - start, given = 0;

	for (uint64_t b = first; b <= last; b++) {
		uint64_t lo = b * st->tl_width, hi = lo + st->tl_width;
		uint64_t part;

		if (lo < start)
			lo = start;
		if (hi > end)
			hi = end;
		part = b == last ? bytes - given
				 : (uint64_t)((double)bytes * (double)(hi - lo) / (double)span);
		if (part > bytes - given)
			part = bytes - given;
		bins[b] += part;
		given += part;
	}
}

/* ---- write bursts (checkpoints) ---- */

void rs_burst_close(struct report_stats *st, uint32_t ti)
{
	struct rs_thread *t = &st->threads[ti];
	struct rs_burst b;
	uint32_t k;

	if (!t->b_on)
		return;
	t->b_on = false;
	if (t->b_bytes < BURST_MIN)
		return;
	t->bursts++;
	t->burst_bytes += t->b_bytes;
	t->burst_blocked_ns += t->b_blocked;
	st->bursts++;
	st->burst_bytes += t->b_bytes;
	st->burst_blocked_ns += t->b_blocked;
	b = (struct rs_burst){ti,	t->b_file,  t->b_ops,	 t->b_start,
			      t->b_end, t->b_bytes, t->b_blocked};
	/* keep the BURST_KEEP that blocked longest, in order */
	if (st->nbursts_kept < BURST_KEEP) {
		k = st->nbursts_kept++;
	} else {
		if (st->top_bursts[BURST_KEEP - 1].blocked_ns >= b.blocked_ns)
			return;
		k = BURST_KEEP - 1;
	}
	while (k > 0 && st->top_bursts[k - 1].blocked_ns < b.blocked_ns) {
		st->top_bursts[k] = st->top_bursts[k - 1];
		k--;
	}
	st->top_bursts[k] = b;
}

void rs_burst_add(struct report_stats *st, uint32_t ti, uint32_t file, uint64_t start, uint64_t end,
		  uint64_t bytes)
{
	struct rs_thread *t = &st->threads[ti];

	if (t->b_on && start > t->b_end + BURST_GAP_NS)
		rs_burst_close(st, ti);
	if (!t->b_on) {
		t->b_on = true;
		t->b_start = start;
		t->b_end = end;
		t->b_file = file;
		t->b_bytes = t->b_blocked = 0;
		t->b_ops = 0;
	}
	if (end > t->b_end)
		t->b_end = end;
	t->b_bytes += bytes;
	t->b_blocked += end - start;
	t->b_ops++;
}
