/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One trace being written: the output sink, the Chrome writer and the
 * record decoder (process and descriptor tables) of one job.  The tracing
 * command has one; the daemon one per job it traces at the same time.
 */
#ifndef JOB_TRACE_H
#define JOB_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/chrome/chrome_writer.h"
#include "io/output_sink.h"
#include "decode/record_decoder.h"

struct job_trace {
	struct output_sink sink;
	struct chrome_writer writer;
	struct record_decoder decoder;
	uint64_t size_cap; /* stop writing events past this many bytes (0: none) */
	uint64_t capped;   /* events not written because of the cap */
	bool ready;	   /* initialized */
	bool open;	   /* header written */
};

/* Take over fd: the sink and the decoder are ready (for seeding), no byte written. */
int job_trace_init(struct job_trace *jt, int fd, bool gzip, int level, uint64_t size_cap);
/* Write the header, as its own chunk (a later write error cannot take it away). */
void job_trace_begin(struct job_trace *jt, const struct trace_meta *meta);
/* Both. 0 or -errno. */
int job_trace_start(struct job_trace *jt, int fd, bool gzip, int level, uint64_t size_cap,
		    const struct trace_meta *meta);
/* Give up before job_trace_begin(): close the file, free everything. */
void job_trace_abandon(struct job_trace *jt);
/* One ring-buffer record of this job. */
void job_trace_record(struct job_trace *jt, const void *data, size_t size);
/*
 * Name the live processes, write the summary and close the file.  Returns 0,
 * or -errno of the first write error (the file then ends at a whole event).
 */
int job_trace_finish(struct job_trace *jt, struct trace_summary *sum);

#endif
