/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `dltrace merge` on typed events, for .pftrace inputs or output: each
 * input is read as an event stream (format/trace_format.h) and every event
 * is rewritten the way the text merge (trace_merge.h) rewrites a JSON line,
 * then handed to the output's writer:
 *   - ts moved by the trace's start_wall_ns minus the earliest one;
 *   - pid, tid and the ids of forks, starts and block requests
 *     (child, parent, issuer) unique across traces (merge_ids.h), mapped
 *     in the same order as the text merge maps them, so both give the same
 *     ids;
 *   - fork flows: id * ntraces + trace index;
 *   - process names: "<host>: <name>", plus " (pid N)" when a real pid had
 *     to be given another value; a process never named gets "<host>: pid N".
 * The inputs' own metadata and summary are left out: the caller writes the
 * merged ones; what their summaries said is kept here (lost_by_kind added
 * up).  Events of no known kind keep their text as it was (their ids and
 * times inside it are not rewritten).
 */
#ifndef EVENT_MERGE_H
#define EVENT_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "event/event.h"
#include "merge/merge_ids.h"
#include "merge/trace_merge.h"

struct event_merge {
	struct event_consumer consumer; /* deliver each input here */
	struct event_consumer *out;	/* the writer */
	struct merge_ids ids;
	uint32_t ntraces;
	uint64_t events;  /* events handed to out */
	uint64_t last_ts; /* the current input's latest ts (before its shift) */

	/* the input being merged */
	uint32_t index;
	uint64_t shift_ns;
	char *host; /* "<host>: " */
	size_t host_len;
	struct merge_input_summary summary;
	char *name; /* a process name being rewritten */
	size_t name_cap;
};

void event_merge_init(struct event_merge *m, struct event_consumer *out, uint32_t ntraces);
void event_merge_free(struct event_merge *m);
/* The next input: its index, how far its times move, its hostname (bytes). */
void event_merge_begin(struct event_merge *m, uint32_t index, uint64_t shift_ns, const char *host,
		       size_t host_len);
/* After the input's last event: names for its processes that had none. */
void event_merge_end(struct event_merge *m);

#endif
