// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for PyTorch profiler (Kineto) traces: the streaming
 * reader (format/kineto/kineto_reader.c: gzip detection, the byte-level
 * scanner, each event's parse) fed in pieces whose sizes come from the
 * input's first byte; then the whole of `dltrace merge` on it
 * (merge/kineto_merge.c: both readings, placing every event as its own
 * group) into both writers (to /dev/null) and the report with its GPU idle
 * join (report/report_gpu_idle.c), rendered.  Built from dltrace's sources;
 * `make fuzz` runs it.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "event/event_tee.h"
#include "format/kineto/kineto_reader.h"
#include "format/trace_format.h"
#include "merge/event_merge.h"
#include "merge/kineto_merge.h"
#include "report/render/report_output.h"
#include "report/report_findings.h"
#include "report/report_stats.h"

static FILE *sink;
static volatile uint64_t touched;

static void writer_into_null(struct output_sink *out, enum trace_format f,
			     struct trace_writer **w)
{
	if (sink_init(out, open("/dev/null", O_WRONLY | O_CLOEXEC), f == TRACE_FORMAT_PFTRACE, 5))
		abort();
	*w = trace_writer__new(f, out, 0);
	if (!*w)
		abort();
}

/* Every field of an event, read (the sanitizers see each byte the reader points to). */
static void touch(void *ctx, const struct kineto_event *ev)
{
	uint64_t sum = 0;

	(void)ctx;
	for (uint32_t i = 0; i < ev->name.len; i++)
		sum += (unsigned char)ev->name.s[i];
	for (uint32_t i = 0; i < ev->cat.len; i++)
		sum += (unsigned char)ev->cat.s[i];
	for (uint32_t i = 0; i < ev->nargs; i++) {
		for (uint32_t k = 0; k < ev->args[i].key.len; k++)
			sum += (unsigned char)ev->args[i].key.s[k];
		if (ev->args[i].type == EV_ARG_STR)
			for (uint32_t k = 0; k < ev->args[i].s.len; k++)
				sum += (unsigned char)ev->args[i].s.s[k];
	}
	if (ev->pid.is_str)
		for (uint32_t k = 0; k < ev->pid.s.len; k++)
			sum += (unsigned char)ev->pid.s.s[k];
	touched += sum + (uint64_t)ev->ts_ns + (uint64_t)ev->dur_ns + ev->id;
}

static void reader_in_pieces(const uint8_t *data, size_t size)
{
	struct kineto_reader *r = kineto_reader__new(touch, NULL);
	size_t piece = size ? 1 + data[0] % 61 : 1, pos = 0;
	int rc = 0;

	if (!r)
		abort();
	while (pos < size && !rc) {
		size_t k = size - pos < piece ? size - pos : piece;

		rc = kineto_reader__feed(r, data + pos, k);
		pos += k;
		piece = piece * 7 % 4093 + 1;
	}
	if (!rc)
		kineto_reader__finish(r);
	kineto_reader__free(r);
}

/* dltrace merge of the input alone (its own group), into both writers and the report. */
static void merge_and_report(const char *path)
{
	struct report_stats *st = malloc(sizeof(*st));
	struct findings *fi = malloc(sizeof(*fi));
	struct finding_options fo = {1ull << 34, 1};
	struct kineto_input *k = kineto_input__new(path, 1);
	struct output_sink json_out, pf_out;
	struct trace_writer *json, *pf;
	struct event_tee tee;
	struct event_merge m;
	struct event e = {.type = EV_TRACE_BEGIN};
	struct trace_read_status status = {.header = true, .summary = true, .closed = true};
	struct ev_arg extra[EV_ARGS_MAX];
	struct kineto_input *list[1] = {k};
	char err[400], keys[2048];
	const char *tail;
	size_t n;

	if (!st || !fi || !k)
		abort();
	if (kineto_input__scan(k, err, sizeof(err))) {
		kineto_input__free(k);
		free(st);
		free(fi);
		return;
	}
	rs_init(st);
	rs_begin_trace(st, "fuzz");
	writer_into_null(&json_out, TRACE_FORMAT_JSON, &json);
	writer_into_null(&pf_out, TRACE_FORMAT_PFTRACE, &pf);
	event_tee_init(&tee);
	event_tee_add(&tee, rs_consumer(st));
	event_tee_add(&tee, trace_writer__consumer(json));
	event_tee_add(&tee, trace_writer__consumer(pf));
	/* as dltrace merge makes it: every string given (none NULL) */
	e.begin.version = e.begin.kernel = e.begin.hostname = e.begin.layers = EV_STR("");
	e.begin.target = EV_STR("merge of 0 traces and 1 profiler trace");
	e.begin.clock = EV_STR("CLOCK_REALTIME");
	e.begin.profiler_traces = 1;
	e.begin.start_wall_ns = kineto_input__first_wall(k) == INT64_MAX ? 0
									  : kineto_input__first_wall(k);
	event_deliver(&tee.consumer, &e);
	event_merge_init(&m, &tee.consumer, 2);
	kineto_input__place(k, &m, e.begin.start_wall_ns, false, err, sizeof(err));
	kineto_input__unplaced_warning(k, err, sizeof(err));
	e = (struct event){.type = EV_TRACE_END};
	e.end.extra = extra;
	e.end.nextra = kineto_summary_args(list, 1, extra, EV_ARGS_MAX - 16, keys, sizeof(keys));
	e.end.stop_reason = EV_STR("merged");
	event_deliver(&tee.consumer, &e);
	rs_end_trace(st, &status);
	event_merge_free(&m);
	tail = trace_writer__tail(json, &n);
	sink_close(&json_out, tail, n);
	tail = trace_writer__tail(pf, &n);
	sink_close(&pf_out, tail, n);
	trace_writer__free(json);
	trace_writer__free(pf);
	rs_derive(st);
	report_findings(st, &fo, fi);
	{
		struct report_view v = {st, fi, 20, true, "fuzz"};

		report_json(sink, &v);
		report_terminal(sink, &v);
		report_html(sink, &v);
	}
	rs_free(st);
	kineto_input__free(k);
	free(st);
	free(fi);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd;

	if (!sink)
		sink = fopen("/dev/null", "w");
	if (!sink)
		abort();
	reader_in_pieces(data, size);
	/* the merge reads a file twice: the input as one, in memory */
	fd = memfd_create("kineto", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	merge_and_report(path);
	close(fd);
	return 0;
}
