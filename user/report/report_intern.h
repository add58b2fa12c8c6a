/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What every accumulator of the report allocates with: growing arrays and
 * interned strings, both counting a failure in st->oom.  A leaf: it calls
 * no other file of the report.
 */
#ifndef REPORT_INTERN_H
#define REPORT_INTERN_H

#include "report/report_stats.h"

/* The array full (n == *cap): double it.  NULL (and st->oom) when out of memory. */
void *rs_grow_full(struct report_stats *st, void **arr, uint32_t *cap, uint32_t n, size_t elem);

/*
 * Make room for one more element; NULL (and st->oom) when out of memory.
 * Inline: the tables add rows per event, and the array is rarely full.
 */
static inline void *rs_grow(struct report_stats *st, void **arr, uint32_t *cap, uint32_t n,
			    size_t elem)
{
	if (n != *cap)
		return (char *)*arr + (size_t)n * elem;
	return rs_grow_full(st, arr, cap, n, elem);
}
#define GROW(st, arr, cap, n) rs_grow((st), (void **)&(arr), &(cap), (n), sizeof(*(arr)))

/* A string's id (NONE32 for no string, or out of memory). */
static inline uint32_t rs_intern(struct report_stats *st, const struct ev_str *s)
{
	uint32_t id;

	if (!s->s)
		return NONE32;
	id = string_index_put(&st->strings, s->s, s->len);
	if (id == STRING_NONE)
		st->oom = true;
	return id;
}

#endif
