/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What every accumulator of the report allocates with: growing arrays and
 * interned strings, both counting a failure in st->oom.  A leaf: it calls
 * no other file of the report.
 */
#ifndef REPORT_INTERN_H
#define REPORT_INTERN_H

#include "report/report_stats.h"

/* Make room for one more element; NULL (and st->oom) when out of memory. */
void *rs_grow(struct report_stats *st, void **arr, uint32_t *cap, uint32_t n, size_t elem);
#define GROW(st, arr, cap, n) rs_grow((st), (void **)&(arr), &(cap), (n), sizeof(*(arr)))

/* A string's id (NONE32 for no string, or out of memory). */
uint32_t rs_intern(struct report_stats *st, const struct ev_str *s);

#endif
