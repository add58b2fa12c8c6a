/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Records the kernel side dropped because the ring buffer was full: in
 * total and by record kind, so that a user (and a test) knows which
 * syscalls or events are missing from a trace, not only how many.
 */
#ifndef LOST_COUNTS_H
#define LOST_COUNTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/dltrace_events.h"

struct lost_counts {
	uint64_t events;
	uint64_t bytes;
	uint64_t by_kind[DL_LOST_KINDS]; /* index: dl_lost_index(kind) */
};

/* a -= b: what was lost since b was read. */
void lost_counts_sub(struct lost_counts *a, const struct lost_counts *b);

/*
 * "pread64 9126760, write 3, exit 2": the kinds with losses, most first,
 * at most `max` of them and then ", ...".  Empty when nothing was lost.
 */
void lost_counts_describe(const struct lost_counts *c, unsigned max, char *buf, size_t size);

/*
 * The kinds with lost records, in kind order: call with *i = 0 until it
 * returns false; name is the kind's name ("pread64").
 */
bool lost_counts_next(const struct lost_counts *c, unsigned *i, const char **name,
		      uint64_t *count);

/* Add n to the kind named name[0..len) ("pread64"); -1 when no kind has that name. */
int lost_counts_add_named(struct lost_counts *c, const char *name, size_t len, uint64_t n);

#endif
