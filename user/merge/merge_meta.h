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
void merge_input_free(struct merge_input *in);

/* Set every input's shift from the earliest start; returns that input's index. */
uint32_t merge_align(struct merge_input *in, uint32_t n);

/* Write the merged metadata event (the first line) into the sink. */
void merge_write_header(struct output_sink *s, const struct merge_input *in, uint32_t n,
			uint32_t origin);

/* The merged summary event and the closing ']' into tail; returns their length. */
size_t merge_summary_tail(char *tail, size_t cap, const struct merge_input *in, uint32_t n,
			  uint64_t events, bool output_error);
#define MERGE_TAIL_MAX 1024

#endif
