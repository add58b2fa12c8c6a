/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One traced job's pipeline, for the tracing session and the daemon:
 *
 *   ring records -> decoder -> tee -> Chrome writer -> output sink (file)
 *                                  `-> other consumers (the report, ...)
 *
 * The decoder always decodes every record, so consumers other than the
 * writer see the whole job even when the trace file reached its size cap.
 */
#ifndef JOB_TRACE_H
#define JOB_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decode/record_decoder.h"
#include "event/event_tee.h"
#include "format/chrome/chrome_writer.h"
#include "io/output_sink.h"

/* The trace's metadata, as the session knows it. */
struct trace_meta {
	const char *version;
	const char *kernel;
	const char *hostname;
	const char *target;	/* "pid 1234", "cgroup /job", "command python3 x.py" */
	const char *layers;	/* active capture layers, comma separated */
	const char *layers_off; /* "layer: reason; ..." for the missing ones */
	uint64_t start_mono_ns; /* CLOCK_MONOTONIC origin of ts */
	int64_t start_wall_ns;	/* CLOCK_REALTIME at the same instant */
	uint32_t tracer_pid;
};

/* How the trace ended. */
struct trace_summary {
	struct lost_counts lost; /* records the kernel side dropped */
	const char *stop_reason;
};

struct job_trace {
	struct output_sink sink;
	struct chrome_writer *writer;
	struct event_tee tee;
	struct record_decoder decoder;
	uint64_t written; /* after job_trace_finish: events the file holds */
	bool ready;	  /* initialized */
	bool open;	  /* header written */
};

/* size_cap: the trace file stops taking events past this many bytes (0: none). */
int job_trace_init(struct job_trace *jt, int fd, bool gzip, int level, uint64_t size_cap);
/* Another consumer of the job's events (before job_trace_begin). */
int job_trace_add_consumer(struct job_trace *jt, struct event_consumer *c);
void job_trace_begin(struct job_trace *jt, const struct trace_meta *meta);
int job_trace_start(struct job_trace *jt, int fd, bool gzip, int level, uint64_t size_cap,
		    const struct trace_meta *meta);
void job_trace_abandon(struct job_trace *jt);
void job_trace_record(struct job_trace *jt, const void *data, size_t size);
/* Events written to the trace file so far. */
uint64_t job_trace_events(const struct job_trace *jt);
/* End the stream and close the file; 0 or -errno of a write error. */
int job_trace_finish(struct job_trace *jt, const struct trace_summary *sum);

#endif
