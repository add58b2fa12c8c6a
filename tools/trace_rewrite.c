// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * trace_rewrite: a trace read back into events (the trace reader) and
 * written again (the Chrome writer), on standard output.  A trace dltrace
 * wrote comes out byte for byte the same when the reader and event_args()
 * agree on every key: JSON -> event -> JSON is exact (tests/test_levels.py
 * checks it on traces with library calls and markers).
 *
 * Usage: trace_rewrite TRACE   (plain or .gz)
 * Exit status: 0, 1 when the trace cannot be read.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <unistd.h>

#include "format/chrome/chrome_events.h"
#include "format/chrome/chrome_writer.h"
#include "io/output_sink.h"

int main(int argc, char **argv)
{
	struct output_sink sink;
	struct chrome_writer *w;
	struct trace_read_status st;
	const char *tail;
	size_t tail_len;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: trace_rewrite TRACE\n");
		return 2;
	}
	if (sink_init(&sink, dup(STDOUT_FILENO), false, 0) || !(w = chrome_writer__new(&sink, 0))) {
		fprintf(stderr, "trace_rewrite: out of memory\n");
		return 1;
	}
	rc = chrome_read_events(argv[1], chrome_writer__consumer(w), &st);
	if (rc)
		fprintf(stderr, "trace_rewrite: %s: %s\n", argv[1], st.error);
	tail = chrome_writer__tail(w, &tail_len);
	if (sink_close(&sink, tail, tail_len))
		rc = 1;
	chrome_writer__free(w);
	return rc ? 1 : 0;
}
