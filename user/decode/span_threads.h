/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What a library call caused below it: the syscalls its thread made while
 * it ran (how many, the bytes they read and wrote) and the files it opened.
 * A thread's records arrive in completion order (its batched syscall
 * records go out before its span records), so the syscalls a call encloses
 * are those of its thread that arrived before its record and began after
 * it did.  Each thread keeps its running totals and, for its last syscalls,
 * the totals before each one: a call's share is the difference.
 *
 *   thread's records:  ... read | openat  pread64  pread64 | H5Dread ...
 *                                 `-- began after H5Dread --'  arrives last
 *
 * Only the last SPAN_RING syscalls since the thread's last outermost call
 * are kept: a call that encloses more is marked partial.
 */
#ifndef SPAN_THREADS_H
#define SPAN_THREADS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/id_map.h"
#include "lib/path_table.h"

#define SPAN_RING 256

struct sys_totals {
	uint64_t calls;		      /* syscalls of any kind */
	uint64_t reads, read_bytes;   /* of the read kinds, and the bytes they returned */
	uint64_t writes, write_bytes; /* of the write kinds */
	uint64_t cache_reads;	      /* reads the cache layer saw */
	uint64_t cache_miss_bytes;    /* bytes they brought into the page cache */
};

struct span_threads {
	struct id_map threads; /* tid -> struct span_thread */
	bool on;	       /* a library layer is active: keep the totals */
};

void span_threads_init(struct span_threads *t);
void span_threads_free(struct span_threads *t);

/*
 * A syscall of tid (kind: enum dl_kind) that began at ts; opened: the file
 * an open opened; cache_miss: the bytes a read brought into the page cache
 * (-1: not known); calls: how many calls alike it stands for (a run of the
 * counting mode; ret is each one's).
 */
void span_threads_syscall(struct span_threads *t, uint32_t tid, uint64_t ts, unsigned kind,
			  int64_t ret, struct path_ref *opened, int64_t cache_miss, uint32_t calls);
/*
 * The totals of tid's syscalls that began at ts or later (a call that
 * began at ts and whose record arrives now).  Returns false when some of
 * them may be missing (more than SPAN_RING).
 */
bool span_threads_enclosed(const struct span_threads *t, uint32_t tid, uint64_t ts,
			   struct sys_totals *out);
/*
 * The file of the first successful open of tid at ts or later whose last
 * path component is name's (name[0..len) as a program passed it); NULL.
 */
const struct path_ref *span_threads_opened(const struct span_threads *t, uint32_t tid, uint64_t ts,
					   const char *name, size_t len);
/* A call no other call encloses returned: no later call can enclose what came before. */
void span_threads_reset(struct span_threads *t, uint32_t tid);
/* The thread exited. */
void span_threads_exit(struct span_threads *t, uint32_t tid);

#endif
