// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "lib/quantile_sketch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static unsigned row_len(unsigned row)
{
	return row ? SKETCH_SUB : 2 * SKETCH_SUB;
}

static void locate(uint64_t v, unsigned *row, unsigned *col)
{
	unsigned e;

	if (v < 2 * SKETCH_SUB) {
		*row = 0;
		*col = v;
		return;
	}
	e = 63 - __builtin_clzll(v); /* >= SKETCH_SUB_BITS + 1 */
	*row = e - SKETCH_SUB_BITS;
	*col = (v >> (e - SKETCH_SUB_BITS)) - SKETCH_SUB;
}

static uint64_t lower_edge(unsigned row, unsigned col)
{
	unsigned e;

	if (!row)
		return col;
	e = row + SKETCH_SUB_BITS;
	return (uint64_t)(SKETCH_SUB + col) << (e - SKETCH_SUB_BITS);
}

void sketch_init(struct quantile_sketch *s)
{
	memset(s, 0, sizeof(*s));
}

void sketch_free(struct quantile_sketch *s)
{
	/* rows exist only once a value was counted (n > 0); most of a report's
	 * 300 sketches have none, and the fuzz target frees them every input */
	if (s->n)
		for (unsigned r = 0; r < SKETCH_ROWS; r++)
			free(s->rows[r]);
	memset(s, 0, sizeof(*s));
}

void sketch_add(struct quantile_sketch *s, uint64_t v)
{
	sketch_add_n(s, v, 1);
}

void sketch_add_n(struct quantile_sketch *s, uint64_t v, uint64_t n)
{
	unsigned row, col;

	if (!n)
		return;
	if (!s->n || v < s->min)
		s->min = v;
	if (v > s->max)
		s->max = v;
	s->n += n;
	s->sum += v * n;
	locate(v, &row, &col);
	if (!s->rows[row]) {
		s->rows[row] = calloc(row_len(row), sizeof(uint64_t));
		if (!s->rows[row]) {
			s->oom = 1;
			return;
		}
	}
	s->rows[row][col] += n;
}

uint64_t sketch_quantile(const struct quantile_sketch *s, double q)
{
	uint64_t rank, seen = 0;

	if (!s->n)
		return 0;
	if (!(q > 0))
		return s->min;
	if (q >= 1)
		return s->max;
	rank = (uint64_t)ceil(q * (double)s->n);
	if (rank < 1)
		rank = 1;
	for (unsigned r = 0; r < SKETCH_ROWS; r++) {
		if (!s->rows[r])
			continue;
		for (unsigned c = 0; c < row_len(r); c++) {
			seen += s->rows[r][c];
			if (seen >= rank) {
				uint64_t v = lower_edge(r, c);

				return v < s->min ? s->min : v > s->max ? s->max : v;
			}
		}
	}
	return s->max;
}

void sketch_merge(struct quantile_sketch *dst, const struct quantile_sketch *src)
{
	if (!src->n)
		return;
	if (!dst->n || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->n += src->n;
	dst->sum += src->sum;
	dst->oom |= src->oom;
	for (unsigned r = 0; r < SKETCH_ROWS; r++) {
		if (!src->rows[r])
			continue;
		if (!dst->rows[r]) {
			dst->rows[r] = calloc(row_len(r), sizeof(uint64_t));
			if (!dst->rows[r]) {
				dst->oom = 1;
				continue;
			}
		}
		for (unsigned c = 0; c < row_len(r); c++)
			dst->rows[r][c] += src->rows[r][c];
	}
}
