// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Python locations (--python-stacks): the syscalls of each innermost
 * application frame ("FILE:LINE FUNCTION"), their bytes and time.
 */
#define _GNU_SOURCE
#include "report/report_stats_internal.h"

#include <stdlib.h>

uint32_t rs_python_syscall(struct report_stats *st, const struct ev_syscall *s, bool failed,
			   uint64_t moved, bool reads, bool writes)
{
	struct rs_python *py = &st->python;
	uint32_t id = rs_intern(st, &s->py), i;
	struct rs_py_loc *l;

	if (id == NONE32)
		return NONE32;
	i = u64_index_get(&py->ix, id);
	if (i == U64_NONE) {
		l = rs_grow(st, (void **)&py->locs, &py->cap, py->n, sizeof(*py->locs));
		if (!l || u64_index_put(&py->ix, id, py->n))
			return NONE32;
		i = py->n++;
		py->locs[i] = (struct rs_py_loc){.loc = id};
	}
	l = &py->locs[i];
	l->calls++;
	l->io_ns += s->dur;
	py->calls++;
	py->io_ns += s->dur;
	if (failed) {
		l->failed++;
	} else if (reads) {
		l->reads++;
		l->read_bytes += moved;
	} else if (writes) {
		l->writes++;
		l->write_bytes += moved;
	}
	if (failed) {
		l->what[PYW_FAILED].calls++;
		l->what[PYW_FAILED].ns += s->dur;
	}
	return i;
}

double key_py_loc(const struct report_stats *st, uint32_t i)
{
	const struct rs_py_loc *l = &st->python.locs[i];

	return (double)l->io_ns + (double)l->calls * 1e-9;
}

void rs_python_init(struct report_stats *st)
{
	u64_index_init(&st->python.ix);
	st->python.cur = NONE32;
}

void rs_python_free(struct report_stats *st)
{
	u64_index_free(&st->python.ix);
	free(st->python.locs);
}
