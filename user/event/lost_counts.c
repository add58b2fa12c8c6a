// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "event/lost_counts.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "event/syscall_table.h"

_Static_assert(DL_SYS_COUNT + (DL_KIND_COUNT - DL_EV_FORK) <= DL_LOST_KINDS,
	       "every record kind needs its own lost counter");

void lost_counts_sub(struct lost_counts *a, const struct lost_counts *b)
{
	a->events -= b->events;
	a->bytes -= b->bytes;
	for (unsigned i = 0; i < DL_LOST_KINDS; i++)
		a->by_kind[i] -= b->by_kind[i];
}

static const char *index_name(unsigned i)
{
	const char *name = record_kind_name(dl_lost_kind(i));

	return name ? name : "unknown";
}

void lost_counts_describe(const struct lost_counts *c, unsigned max, char *buf, size_t size)
{
	bool done[DL_LOST_KINDS] = {false};
	size_t len = 0;

	if (size)
		buf[0] = '\0';
	for (unsigned shown = 0;; shown++) {
		unsigned best = DL_LOST_KINDS;

		for (unsigned i = 0; i < DL_LOST_KINDS; i++)
			if (!done[i] && c->by_kind[i] &&
			    (best == DL_LOST_KINDS || c->by_kind[i] > c->by_kind[best]))
				best = i;
		if (best == DL_LOST_KINDS)
			return;
		if (shown == max) {
			snprintf(buf + len, size - len, ", ...");
			return;
		}
		done[best] = true;
		len += snprintf(buf + len, size - len, "%s%s %llu", shown ? ", " : "",
				index_name(best), (unsigned long long)c->by_kind[best]);
		if (len >= size)
			return;
	}
}

bool lost_counts_next(const struct lost_counts *c, unsigned *i, const char **name,
		      uint64_t *count)
{
	for (; *i < DL_LOST_KINDS; ++*i) {
		if (c->by_kind[*i]) {
			*name = index_name(*i);
			*count = c->by_kind[(*i)++];
			return true;
		}
	}
	return false;
}

int lost_counts_add_named(struct lost_counts *c, const char *name, size_t len, uint64_t n)
{
	for (unsigned k = 0; k < DL_KIND_COUNT; k++) {
		const char *kn = record_kind_name(k);

		if (kn && strlen(kn) == len && !memcmp(kn, name, len)) {
			c->by_kind[dl_lost_index(k)] += n;
			return 0;
		}
	}
	return -1;
}
