// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for `dltrace replay`'s planner: a trace's bytes through
 * the trace reader into the plan (replay_walk.c and the files it calls:
 * sorting, descriptors, mappings, pipes, deps, think times), where each
 * file goes (--map rules, a stage, the scratch directory), and everything
 * that prints a plan or a comparison without running it (--dry-run, the
 * report of a replay that issued nothing).  Nothing is replayed: no file
 * is touched.  `make fuzz` runs it.
 *
 * The input is fed in pieces whose sizes come from its first byte, as the
 * trace reader's own target does.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

#include "format/chrome/chrome_events.h"
#include "format/chrome/trace_reader.h"
#include "replay/replay_plan.h"
#include "replay/replay_report.h"

static FILE *sink;

static ssize_t discard(void *cookie, const char *buf, size_t n)
{
	(void)cookie;
	(void)buf;
	return (ssize_t)n;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	sink = fopencookie(NULL, "w", (cookie_io_functions_t){.write = discard});
	if (!sink)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct replay_map_rule rules[] = {
	    {"/data", "/new/data"}, {"/data/deep", "/x"}, {"/", "/root-moved"}, {"/tmp/", "/t"}};
	struct replay_report_info info = {"fuzz", NULL,	 "/scratch", rules, 4,
					  false,  false, false,	     20};
	struct replay_plan *p = replay_plan__new();
	struct chrome_events *events;
	struct trace_reader r;
	size_t piece = size ? 1 + data[0] % 61 : 1, pos = 0;
	int rc = 0;

	if (!p)
		abort();
	events = chrome_events__new(replay_plan__consumer(p));
	if (!events)
		abort();
	trace_reader_init(&r, chrome_events__line, events);
	while (pos < size && !rc) {
		size_t n = size - pos < piece ? size - pos : piece;

		rc = trace_reader_feed(&r, data + pos, n);
		pos += n;
		piece = piece * 7 % 4093 + 1;
	}
	if (!rc)
		rc = trace_reader_finish(&r);
	chrome_events__free(events);
	trace_reader_free(&r);
	if (!p->refused && !replay_plan__finish(p)) {
		struct replay_report *rep;

		replay_plan_warnings(p, sink, "fuzz: ");
		if (!replay_plan__map(p, rules, size & 1 ? 4 : 0, size & 2 ? "/stage" : NULL,
				      "/scratch")) {
			info.stage = size & 2 ? "/stage" : NULL;
			replay_plan_print(p, NULL, &info, sink);
			replay_plan_json(p, NULL, &info, sink);
			rep = replay_report__new(p, NULL, NULL, &info);
			if (rep) {
				replay_report__terminal(rep, sink, size & 4);
				replay_report__json(rep, sink);
				replay_report__html(rep, sink);
				replay_report__free(rep);
			}
		}
	}
	replay_plan__free(p);
	return 0;
}
