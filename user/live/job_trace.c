// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "live/job_trace.h"
#include "lib/clock_ns.h"

#include <string.h>
#include <time.h>

int job_trace_init(struct job_trace *jt, const struct job_output *out)
{
	int err;

	memset(jt, 0, sizeof(*jt));
	event_tee_init(&jt->tee);
	if (out->fd >= 0) {
		err = sink_init(&jt->sink, out->fd, out->gzip, out->level);
		if (err)
			return err;
		jt->has_sink = true;
		jt->writer = trace_writer__new(out->format, &jt->sink, out->size_cap);
		if (!jt->writer) {
			sink_close(&jt->sink, "", 0);
			return -1;
		}
		event_tee_add(&jt->tee, trace_writer__consumer(jt->writer));
	}
	decoder_init(&jt->decoder, &jt->tee.consumer);
	jt->ready = true;
	return 0;
}

int job_trace_add_consumer(struct job_trace *jt, struct event_consumer *c)
{
	return event_tee_add(&jt->tee, c);
}

static struct ev_str str(const char *s)
{
	return (struct ev_str){s ? s : "", s ? strlen(s) : 0};
}

void job_trace_begin(struct job_trace *jt, const struct trace_meta *m)
{
	struct ev_trace_begin b = {
	    .version = str(m->version),
	    .kernel = str(m->kernel),
	    .hostname = str(m->hostname),
	    .target = str(m->target),
	    .layers = str(m->layers),
	    .layers_off = str(m->layers_off),
	    .layers_attach = str(m->layers_attach),
	    .start_mono_ns = m->start_mono_ns,
	    .start_wall_ns = m->start_wall_ns,
	    .tracer_pid = m->tracer_pid,
	};

	decoder_begin(&jt->decoder, &b);
	if (jt->has_sink)
		sink_flush(&jt->sink); /* the header is its own chunk: it survives a full disk */
	jt->open = true;
}

int job_trace_start(struct job_trace *jt, const struct job_output *out,
		    const struct trace_meta *meta)
{
	int err = job_trace_init(jt, out);

	if (!err)
		job_trace_begin(jt, meta);
	return err;
}

void job_trace_abandon(struct job_trace *jt)
{
	if (!jt->ready)
		return;
	if (jt->has_sink)
		sink_close(&jt->sink, "", 0);
	decoder_free(&jt->decoder);
	trace_writer__free(jt->writer);
	jt->writer = NULL;
	jt->ready = jt->open = false;
}

void job_trace_record(struct job_trace *jt, const void *data, size_t size)
{
	if (jt->open)
		decoder_handle(&jt->decoder, data, size);
}

uint64_t job_trace_events(const struct job_trace *jt)
{
	if (!jt->has_sink)
		return jt->ready ? jt->decoder.emitted : jt->written;
	return jt->writer ? trace_writer__events(jt->writer) : jt->written;
}

int job_trace_error(const struct job_trace *jt)
{
	return jt->has_sink ? jt->sink.error : 0;
}

int job_trace_finish(struct job_trace *jt, const struct trace_summary *sum)
{
	struct ev_trace_end end = {0};
	const char *tail;
	size_t tail_len;
	uint64_t now;
	int err;

	if (!jt->open)
		return 0;
	now = clock_ns(CLOCK_MONOTONIC);
	end.lost = &sum->lost;
	end.lost_events = sum->lost.events;
	end.lost_bytes = sum->lost.bytes;
	end.duration_ns = now > jt->decoder.t0 ? now - jt->decoder.t0 : 0;
	end.end_wall_ns = (int64_t)clock_ns(CLOCK_REALTIME);
	end.stop_reason = str(sum->stop_reason);
	end.truncated = job_trace_error(jt) != 0;
	if (end.truncated)
		end.write_error = str(strerror(job_trace_error(jt)));
	decoder_finish(&jt->decoder, &end);
	err = 0;
	jt->written = jt->decoder.emitted;
	if (jt->has_sink) {
		tail = trace_writer__tail(jt->writer, &tail_len);
		jt->written = trace_writer__events(jt->writer);
		err = sink_close(&jt->sink, tail, tail_len);
	}
	decoder_free(&jt->decoder);
	trace_writer__free(jt->writer);
	jt->writer = NULL;
	jt->open = jt->ready = false;
	return err;
}
