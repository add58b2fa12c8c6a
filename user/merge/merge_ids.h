/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Pids and tids that stay unique when traces of several hosts are merged.
 * Each trace's ids are mapped on their own (pids and tids share one space
 * in Linux, so a process's main thread keeps tid == pid): an id keeps its
 * value unless an earlier trace already used that value in the output,
 * then it gets a new one from MERGE_IDS_FRESH up.  Memory grows with the
 * number of processes and threads, never with events.
 */
#ifndef MERGE_IDS_H
#define MERGE_IDS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/id_map.h"

/* Above every pid a trace can hold (reused-pid aliases, block device tracks). */
#define MERGE_IDS_FRESH 0x60000000u

/* What an id of the current trace was seen as. */
#define MERGE_ID_PROCESS 1u /* the pid of events */
#define MERGE_ID_NAMED	 2u /* the pid of a process_name event */

struct merge_ids {
	struct id_map used;  /* output ids taken, all traces so far */
	struct id_map trace; /* the current trace's ids -> their entry */
	uint32_t next_fresh;
};

struct merge_id {
	uint32_t out;	/* the id in the merged trace */
	uint32_t flags; /* MERGE_ID_* */
};

void merge_ids_init(struct merge_ids *m);
void merge_ids_free(struct merge_ids *m);
/* The next trace's ids start afresh (the output ids stay taken). */
void merge_ids_next_trace(struct merge_ids *m);
/* The output id of an id of the current trace; flags are added to its entry. */
uint32_t merge_ids_map(struct merge_ids *m, uint32_t id, uint32_t flags);
/* The entry of an id of the current trace, without adding it: false when it was never seen. */
bool merge_ids_find(const struct merge_ids *m, uint32_t id, struct merge_id *e);
/*
 * An output id of no trace's, the first free one at or above from, taken
 * for good (the tracks a merge adds: a profiler trace's GPU streams).
 */
uint32_t merge_ids_take(struct merge_ids *m, uint32_t from);
/* Iterate over the current trace's ids: for (size_t i = 0; merge_ids_next(m, &i, &id, &e);) */
bool merge_ids_next(const struct merge_ids *m, size_t *pos, uint32_t *id, struct merge_id *e);

#endif
