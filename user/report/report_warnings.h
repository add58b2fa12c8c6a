/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What the report must say about a trace it read: cut short, damaged, lossy. */
#ifndef REPORT_WARNINGS_H
#define REPORT_WARNINGS_H

#include "report/report_stats.h"

#define WARNING_MAX  7
#define WARNING_LINE 640

/*
 * How a trace ended, from its summary and the events read.  A trace stops
 * early when tracing stopped while the job still ran (a signal, --duration,
 * a write or ring buffer error, the daemon told to stop: any stop reason but
 * the job's end), when its file stopped taking events (a write error, the
 * size cap: the summary's truncated and capped_events), or when it has no
 * summary at all (a crash).  The figures then cover only the time before.
 */
struct trace_stop {
	bool early;
	bool cut;		 /* the file lacks events of the traced time (write error, cap) */
	bool stopped;		 /* tracing stopped before the job ended (the stop reason) */
	bool known;		 /* the summary says when tracing stopped */
	const char *reason;	 /* the stop reason as the summary says it ("": none) */
	const char *write_error; /* the write error that cut the file ("": none said) */
	uint64_t stop_ns;	 /* when tracing stopped, since the trace's start */
	int64_t stop_wall_ns;	 /* the same on the wall clock (0: not said) */
	uint64_t until_ns;	 /* the end of its last event read, since the trace's start */
	uint64_t not_written;	 /* events the tracer had that the file does not hold */
};

void report_trace_stop(const struct report_stats *st, uint32_t t, struct trace_stop *out);

/* A wall-clock time as ISO 8601 UTC with `digits` (0..9) decimals of the second. */
void report_wall_time(int64_t wall_ns, int digits, char *out, size_t size);

/* Fill lines with the warnings of trace t; returns how many. */
int report_trace_warnings(const struct report_stats *st, uint32_t t,
			  char lines[WARNING_MAX][WARNING_LINE]);

#endif
