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
 *
 * Speed: an input costs what parsing and reporting it costs, not set-up.
 * The statistics and findings (250 KB) are allocated once and reset by
 * rs_init() and report_findings() for every input, and the Makefile builds
 * the output sink, the gzip reader and the string index with 4 KiB buffers
 * instead of 1 MiB, 256 KiB and 1 MiB, so that nothing per input goes
 * through ASan's mmap-backed large allocations and their quarantine (which
 * made an input of a few bytes take 4 ms).  Small buffers also flush,
 * inflate and start new string blocks more often: those paths run for
 * inputs of any size.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

#include "report/report_findings.h"
#include "report/render/report_output.h"
#include "report/report_stats.h"
#include "merge/trace_merge.h"
#include "format/chrome/chrome_events.h"
#include "format/chrome/trace_reader.h"

static FILE *sink;
static struct report_stats *st;
static struct findings *fi;

/* The renderings go to a stream that drops what it is given, without a
 * write(2) to /dev/null every 4 KiB (system calls are slow in a VM). */
static ssize_t discard(void *cookie, const char *buf, size_t n)
{
	(void)cookie;
	(void)buf;
	return (ssize_t)n;
}

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

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	sink = fopencookie(NULL, "w", (cookie_io_functions_t){.write = discard});
	st = malloc(sizeof(*st));
	fi = malloc(sizeof(*fi));
	if (!st || !fi || !sink)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct finding_options fo = {1ull << 34, 1};
	struct output_sink out;
	struct trace_merge merge;
	struct both both = {NULL, &merge};
	struct trace_reader r;
	size_t piece = size ? 1 + data[0] % 61 : 1, pos = 0;
	int rc = 0;

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
	return 0;
}
