/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The metadata of a merged trace: what is known of each input (from its
 * first line, then from reading it), the merged "dltrace" metadata event
 * that opens the file (hosts, every input's start, how far its times were
 * moved) and the summary that closes it (events and losses of all inputs
 * added up).
 */
#ifndef MERGE_META_H
#define MERGE_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event/event.h"
#include "io/output_sink.h"
#include "merge/trace_merge.h"
#include "format/chrome/trace_reader.h"

struct merge_input {
	const char *path;
	/* from its metadata event (copies, not NUL-terminated) */
	struct trace_str hostname, kernel, target, layers, start_wall;
	int64_t start_wall_ns;
	uint64_t shift_ns; /* start_wall_ns - the earliest start of all inputs */
	/* after reading it */
	struct merge_input_summary summary;
	struct trace_read_status status;
};

/* A trace_event_fn for trace_read_header: copy the metadata into a struct merge_input. */
void merge_input_header(void *input, const struct trace_event *ev);
/* The same from the metadata event of a typed stream (the typed merge). */
void merge_input_begin(struct merge_input *in, const struct ev_trace_begin *b);
void merge_input_free(struct merge_input *in);

/* Set every input's shift from the earliest start; returns that input's index. */
uint32_t merge_align(struct merge_input *in, uint32_t n);

/* Write the merged metadata event (the first line) into the sink. */
void merge_write_header(struct output_sink *s, const struct merge_input *in, uint32_t n,
			uint32_t origin);

/* What the inputs' summaries add up to (with the inputs' read status). */
struct merge_totals {
	struct lost_counts lost; /* events, bytes and by kind */
	uint64_t duration_ns, input_events;
	int64_t end_wall_ns;
	uint32_t truncated_inputs;
	bool truncated; /* an input's tracer, or the merge's output, could not write everything */
};
void merge_totals(const struct merge_input *in, uint32_t n, bool output_error,
		  struct merge_totals *t);

/* The merged summary event and the closing ']' into tail; returns their length. */
size_t merge_summary_tail(char *tail, size_t cap, const struct merge_input *in, uint32_t n,
			  uint64_t events, bool output_error);
#define MERGE_TAIL_MAX 4096

/* Hostnames, or layers, of all inputs without repeats, comma-separated (malloc'd). */
struct trace_str merge_hosts(const struct merge_input *in, uint32_t n);
struct trace_str merge_layers(const struct merge_input *in, uint32_t n);

/*
 * The typed merge's record of one input, an event of no dltrace kind
 * (JSON text, at most merge_input_line_max() bytes):
 *   {"name":"dltrace_input","ph":"M","pid":0,"tid":0,"args":{"file":..,"hostname":..,
 *    "kernel":..,"target":..,"start_wall":..,"start_wall_ns":..,"shift_ns":..,"events":..}}
 */
size_t merge_input_line_max(const struct merge_input *in);
size_t merge_input_line(char *out, const struct merge_input *in);

#endif
