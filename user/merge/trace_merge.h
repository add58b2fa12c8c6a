/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The events of several traces rewritten into one (`dltrace merge`): each
 * event line is copied as it is, except
 *   - "ts": moved by the trace's start_wall_ns minus the earliest one, so
 *     that all hosts share one clock;
 *   - "pid", "tid" and the ids in args (child_pid, child_tid, parent_pid,
 *     creator_tid, issuer_pid): unique across traces (merge_ids.h);
 *   - "bind_id" (fork flows): id * ntraces + trace index;
 *   - process_name: "<host>: <name>", plus " (pid N)" when a real pid had
 *     to be given another value.
 * Async ids (id2.local) are per process and stay distinct once pids are.
 * The inputs' own metadata and summary events are left out: the caller
 * writes the merged ones; what their summaries said is kept here.
 */
#ifndef TRACE_MERGE_H
#define TRACE_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event/lost_counts.h"
#include "merge/merge_ids.h"
#include "io/output_sink.h"
#include "format/chrome/trace_event.h"

/* What one input's dltrace_summary event said. */
struct merge_input_summary {
	bool seen;
	bool truncated; /* its tracer could not write everything */
	uint64_t events, lost_events, lost_bytes, duration_ns;
	int64_t end_wall_ns;
	struct lost_counts lost; /* lost_by_kind */
};

/* Keep what a summary event says (its lost_by_kind added to what s has). */
void merge_keep_summary(struct merge_input_summary *s, const struct ev_trace_end *end);

struct trace_merge {
	struct output_sink *sink;
	struct merge_ids ids;
	uint32_t ntraces;
	uint64_t events;   /* lines written after the merged header */
	uint64_t unmerged; /* events whose text could not be walked (left out) */

	/* the input being merged */
	uint32_t index;
	uint64_t shift_ns;
	char *host;	 /* its hostname escaped for JSON, then ": " */
	size_t host_len; /* of that prefix */
	char *host_hex;	 /* the same bytes in hex (for a name_hex: a name that is not UTF-8) */
	size_t host_hex_len;
	struct merge_input_summary summary;

	char *line, *scratch; /* the rewritten line; keys of the walk */
	size_t line_cap, scratch_cap;
};

void trace_merge_init(struct trace_merge *m, struct output_sink *sink, uint32_t ntraces);
void trace_merge_free(struct trace_merge *m);

/* The next input: its index, how far its times move, its hostname (bytes). */
void trace_merge_begin(struct trace_merge *m, uint32_t index, uint64_t shift_ns, const char *host,
		       size_t host_len);
/* A trace_event_fn: rewrite one event of the current input into the sink. */
void trace_merge_event(void *merge, const struct trace_event *ev);
/* After the input's last event: names for its processes that had none. */
void trace_merge_end(struct trace_merge *m);

#endif
