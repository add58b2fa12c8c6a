// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "report/report_intern.h"

#include <stdlib.h>

void *rs_grow_full(struct report_stats *st, void **arr, uint32_t *cap, uint32_t n, size_t elem)
{
	uint32_t c = *cap ? *cap * 2 : 64;
	void *a;

	if (*cap >= UINT32_MAX / 2) {
		st->oom = true;
		return NULL;
	}
	a = realloc(*arr, (size_t)c * elem);
	if (!a) {
		st->oom = true;
		return NULL;
	}
	*arr = a;
	*cap = c;
	return (char *)a + (size_t)n * elem;
}
