/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One traced job's pipeline, for the tracing session and the daemon:
 *
 *   ring records -> decoder -> tee -> trace writer (JSON or .pftrace) -> output sink (file)
 *                                  `-> other consumers (the report, ...)
 *
 * The decoder always decodes every record, so consumers other than the
 * writer see the whole job even when the trace file reached its size cap,
 * or when there is no trace file at all (--summary-only).
 */
#ifndef JOB_TRACE_H
#define JOB_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decode/record_decoder.h"
#include "event/event_tee.h"
#include "format/trace_format.h"
#include "io/output_sink.h"

/* The trace's metadata, as the session knows it. */
struct trace_meta {
	const char *version;
	const char *kernel;
	const char *hostname;
	const char *target;	   /* "pid 1234", "cgroup /job", "command python3 x.py" */
	const char *layers;	   /* active capture layers, comma separated */
	const char *layers_off;	   /* "layer: reason; ..." for the missing ones */
	const char *layers_attach; /* "layer: method; ..." for the active ones */
	uint64_t start_mono_ns;	   /* CLOCK_MONOTONIC origin of ts */
	int64_t start_wall_ns;	   /* CLOCK_REALTIME at the same instant */
	uint32_t tracer_pid;
};

/* How the trace ended. */
struct trace_summary {
	struct lost_counts lost; /* records the kernel side dropped */
	const char *stop_reason;
};

/* Where the trace goes. */
struct job_output {
	int fd;			  /* taken over by the job; -1: no trace file, only the consumers */
	enum trace_format format; /* by the output's name (trace_format_of_name) */
	bool gzip;
	int level;	   /* zlib level when gzip */
	uint64_t size_cap; /* the trace file stops taking events past this many bytes (0: none) */
};

struct job_trace {
	struct output_sink sink;
	struct trace_writer *writer; /* NULL: no trace file */
	struct event_tee tee;
	struct record_decoder decoder;
	uint64_t written; /* after job_trace_finish: events the file holds */
	bool has_sink;
	bool ready; /* initialized */
	bool open;  /* header written */
};

int job_trace_init(struct job_trace *jt, const struct job_output *out);
/* Another consumer of the job's events (before job_trace_begin). */
int job_trace_add_consumer(struct job_trace *jt, struct event_consumer *c);
void job_trace_begin(struct job_trace *jt, const struct trace_meta *meta);
int job_trace_start(struct job_trace *jt, const struct job_output *out,
		    const struct trace_meta *meta);
void job_trace_abandon(struct job_trace *jt);
void job_trace_record(struct job_trace *jt, const void *data, size_t size);
/* Events written to the trace file so far (without a file: events decoded). */
uint64_t job_trace_events(const struct job_trace *jt);
/* A write to the trace file failed (its errno), or 0. */
int job_trace_error(const struct job_trace *jt);
/* End the stream and close the file; 0 or -errno of a write error. */
int job_trace_finish(struct job_trace *jt, const struct trace_summary *sum);

#endif
