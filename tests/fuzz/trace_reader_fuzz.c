// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for `dltrace report`'s and `dltrace merge`'s input side:
 * the trace reader (gzip detection, line splitting, the event parser) and
 * everything the events flow into (the figures, the findings and the three
 * renderings; the merge's rewriting of each event into an output sink),
 * built from the same sources as dltrace.  `make fuzz` runs it.
 *
 * The input is fed in pieces whose sizes come from its first byte, so that
 * lines and gzip streams are split at arbitrary places.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "report/report_findings.h"
#include "report/render/report_output.h"
#include "report/report_stats.h"
#include "merge/trace_merge.h"
#include "format/chrome/chrome_events.h"
#include "format/chrome/trace_reader.h"

static FILE *sink;

struct both {
	struct chrome_events *events; /* lines -> typed events -> the report */
	struct trace_merge *merge;
};

static void both_event(void *ctx, const struct trace_event *ev)
{
	struct both *b = ctx;

	chrome_events__line(b->events, ev);
	trace_merge_event(b->merge, ev);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct report_stats *st = malloc(sizeof(*st));
	struct findings *fi = malloc(sizeof(*fi));
	struct finding_options fo = {1ull << 34, 1};
	struct output_sink out;
	struct trace_merge merge;
	struct both both = {NULL, &merge};
	struct trace_reader r;
	size_t piece = size ? 1 + data[0] % 61 : 1, pos = 0;
	int rc = 0;

	if (!sink)
		sink = fopen("/dev/null", "w");
	if (!st || !fi || !sink)
		abort();
	rs_init(st);
	rs_begin_trace(st, "fuzz");
	both.events = chrome_events__new(rs_consumer(st));
	if (!both.events)
		abort();
	if (sink_init(&out, open("/dev/null", O_WRONLY | O_CLOEXEC), size & 1, 1))
		abort();
	trace_merge_init(&merge, &out, 2);
	trace_merge_begin(&merge, 1, 1000, "h\"o\\st", 7);
	trace_reader_init(&r, both_event, &both);
	while (pos < size && !rc) {
		size_t n = size - pos < piece ? size - pos : piece;

		rc = trace_reader_feed(&r, data + pos, n);
		pos += n;
		piece = piece * 7 % 4093 + 1;
	}
	if (!rc)
		rc = trace_reader_finish(&r);
	rs_end_trace(st, &r.st);
	chrome_events__free(both.events);
	trace_reader_free(&r);
	trace_merge_end(&merge);
	trace_merge_free(&merge);
	sink_close(&out, "\n]\n", 3);
	if (!rc) {
		struct report_view v;

		rs_derive(st);
		report_findings(st, &fo, fi);
		v = (struct report_view){st, fi, 20, true, "fuzz"};
		report_json(sink, &v);
		report_terminal(sink, &v);
		report_html(sink, &v);
	}
	rs_free(st);
	free(st);
	free(fi);
	return 0;
}
