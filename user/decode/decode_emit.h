/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The helpers of the decoder's handlers (decode_*.c): an event's delivery,
 * its time, its paths.  Inline: they run for every record.
 */
#ifndef DECODE_EMIT_H
#define DECODE_EMIT_H

#include <string.h>

#include "decode/record_decoder.h"

/* Deliver e, with the ids a trace shows for its process (a reused pid has an alias). */
static inline void emit(struct record_decoder *d, struct event *e)
{
	proc_trace_ids(&d->procs, &e->pid, &e->tid);
	d->emitted++;
	event_deliver(d->out, e);
}

/* ns since the trace's start */
static inline uint64_t rel(const struct record_decoder *d, uint64_t ts)
{
	return ts > d->t0 ? ts - d->t0 : 0;
}

static inline struct ev_path ev_path(const struct path_ref *p)
{
	if (!p)
		return (struct ev_path){{NULL, 0}, NULL};
	return (struct ev_path){{p->raw, p->len}, p};
}

static inline struct ev_str ev_cstr(const char *s)
{
	return (struct ev_str){s, s ? strlen(s) : 0};
}

/* The file fd meant at time ts by the descriptor table (records may arrive late). */
static inline const struct path_ref *fd_path(struct process *p, int fd, uint64_t ts)
{
	const struct fd_entry *e = fdt_lookup_at(p->fds, fd, ts);

	return e ? e->path : NULL;
}

#endif
