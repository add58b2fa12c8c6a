// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for the .pftrace reader (format/perfetto/pftrace_events.c:
 * gzip detection, packet framing, protobuf decoding, interned strings,
 * event_parse) and what its events flow into: the report (figures,
 * findings, renderings) and both writers (.pftrace and JSON, to
 * /dev/null), as `dltrace report` and `dltrace convert` run them.  Built
 * from the same sources as dltrace; `make fuzz` runs it.
 *
 * The input is fed in pieces whose sizes come from its first byte, so that
 * packets and gzip streams are split at arbitrary places.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "event/event_tee.h"
#include "format/perfetto/pftrace_events.h"
#include "format/trace_format.h"
#include "report/render/report_output.h"
#include "report/report_findings.h"
#include "report/report_stats.h"

static FILE *sink;

static void writer_into_null(struct output_sink *out, enum trace_format f,
			     struct trace_writer **w)
{
	if (sink_init(out, open("/dev/null", O_WRONLY | O_CLOEXEC), f == TRACE_FORMAT_PFTRACE, 5))
		abort();
	*w = trace_writer__new(f, out, 0);
	if (!*w)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct report_stats *st = malloc(sizeof(*st));
	struct findings *fi = malloc(sizeof(*fi));
	struct finding_options fo = {1ull << 34, 1};
	struct output_sink json_out, pf_out;
	struct trace_writer *json, *pf;
	struct pftrace_events *r;
	struct event_tee tee;
	size_t piece = size ? 1 + data[0] % 61 : 1, pos = 0, n;
	const char *tail;
	int rc = 0;

	if (!sink)
		sink = fopen("/dev/null", "w");
	if (!st || !fi || !sink)
		abort();
	rs_init(st);
	rs_begin_trace(st, "fuzz");
	writer_into_null(&json_out, TRACE_FORMAT_JSON, &json);
	writer_into_null(&pf_out, TRACE_FORMAT_PFTRACE, &pf);
	event_tee_init(&tee);
	event_tee_add(&tee, rs_consumer(st));
	event_tee_add(&tee, trace_writer__consumer(json));
	event_tee_add(&tee, trace_writer__consumer(pf));
	r = pftrace_events__new(&tee.consumer);
	if (!r)
		abort();
	while (pos < size && !rc) {
		size_t k = size - pos < piece ? size - pos : piece;

		rc = pftrace_events__feed(r, data + pos, k);
		pos += k;
		piece = piece * 7 % 4093 + 1;
	}
	if (!rc)
		rc = pftrace_events__finish(r);
	rs_end_trace(st, pftrace_events__status(r));
	pftrace_events__free(r);
	tail = trace_writer__tail(json, &n);
	sink_close(&json_out, tail, n);
	tail = trace_writer__tail(pf, &n);
	sink_close(&pf_out, tail, n);
	trace_writer__free(json);
	trace_writer__free(pf);
	if (!rc) {
		struct report_view v;

		rs_derive(st);
		report_findings(st, &fo, fi);
		v = (struct report_view){st, fi, 20, true, "fuzz"};
		report_json(sink, &v);
		report_terminal(sink, &v);
	}
	rs_free(st);
	free(st);
	free(fi);
	return 0;
}
