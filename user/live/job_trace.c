// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "live/job_trace.h"

#include <string.h>
#include <time.h>

int job_trace_init(struct job_trace *jt, int fd, bool gzip, int level, uint64_t size_cap)
{
	int err;

	memset(jt, 0, sizeof(*jt));
	err = sink_init(&jt->sink, fd, gzip, level);
	if (err)
		return err;
	jt->size_cap = size_cap;
	decoder_init(&jt->decoder, &jt->writer);
	jt->ready = true;
	return 0;
}

void job_trace_begin(struct job_trace *jt, const struct trace_meta *meta)
{
	cw_begin(&jt->writer, &jt->sink, meta);
	sink_flush(&jt->sink);
	jt->open = true;
}

int job_trace_start(struct job_trace *jt, int fd, bool gzip, int level, uint64_t size_cap,
		    const struct trace_meta *meta)
{
	int err = job_trace_init(jt, fd, gzip, level, size_cap);

	if (!err)
		job_trace_begin(jt, meta);
	return err;
}

void job_trace_abandon(struct job_trace *jt)
{
	if (!jt->ready)
		return;
	sink_close(&jt->sink, "", 0);
	decoder_free(&jt->decoder);
	jt->ready = jt->open = false;
}

void job_trace_record(struct job_trace *jt, const void *data, size_t size)
{
	if (!jt->open)
		return;
	if (jt->size_cap && jt->sink.bytes_in >= jt->size_cap) {
		jt->capped++; /* counted, reported in the summary */
		return;
	}
	decoder_handle(&jt->decoder, data, size);
}

int job_trace_finish(struct job_trace *jt, struct trace_summary *sum)
{
	char tail[CW_TAIL_MAX];
	size_t tail_len;
	struct timespec ts;
	int err;

	if (!jt->open)
		return 0;
	decoder_finish(&jt->decoder);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	sum->end_mono_ns = (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	clock_gettime(CLOCK_REALTIME, &ts);
	sum->end_wall_ns = (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
	sum->capped_events = jt->capped;
	sum->output_error = jt->sink.error != 0;
	cw_end(&jt->writer, sum, tail, &tail_len, sizeof(tail));
	err = sink_close(&jt->sink, tail, tail_len);
	decoder_free(&jt->decoder);
	jt->open = jt->ready = false;
	return err;
}
