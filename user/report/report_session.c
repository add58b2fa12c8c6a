// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "report/report_session.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "event/version.h"
#include "report/report_findings.h"
#include "report/report_gpu_idle.h"
#include "report/report_stats_internal.h"
#include "report/report_warnings.h"

struct report_session {
	struct report_stats st;
	struct findings fi;
	char generator[64];
};

/* Zero, then each accumulator's own state (report_stats_internal.h). */
void rs_init(struct report_stats *st)
{
	memset(st, 0, sizeof(*st));
	rs_tables_init(st);
	rs_events_init(st);
	rs_timeline_init(st);
	rs_levels_init(st);
	rs_python_init(st);
	rs_phases_init(st);
	st->training_thread = NONE32;
}

void rs_free(struct report_stats *st)
{
	rs_events_free(st);
	rs_levels_free(st);
	rs_python_free(st);
	rs_phases_free(st);
	rs_gpu_free(st);
	rs_tables_free(st);
	memset(st, 0, sizeof(*st));
}

struct report_session *report_session__new(void)
{
	struct report_session *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	rs_init(&s->st);
	snprintf(s->generator, sizeof(s->generator), "dltrace %s", DLTRACE_VERSION);
	return s;
}

void report_session__free(struct report_session *s)
{
	if (!s)
		return;
	rs_free(&s->st);
	free(s);
}

void report_session__set_origin(struct report_session *s, int64_t wall_ns)
{
	rs_set_origin(&s->st, wall_ns);
}

struct event_consumer *report_session__begin_trace(struct report_session *s, const char *file)
{
	if (rs_begin_trace(&s->st, file))
		return NULL;
	return rs_consumer(&s->st);
}

void report_session__end_trace(struct report_session *s, const struct trace_read_status *st)
{
	/* a live stream: whole, from its first event to its last */
	struct trace_read_status live = {.header = true, .summary = true, .closed = true};

	if (!st) {
		live.events = s->st.traces[s->st.cur].events;
		live.lines = live.events + 1;
		st = &live;
	}
	rs_end_trace(&s->st, st);
}

void report_session__expect_kineto(struct report_session *s)
{
	rs_gpu_expect(&s->st);
}

struct rs_gpu_profile *report_session__gpu_profile(struct report_session *s)
{
	return rs_gpu_profile__new(&s->st);
}

static uint64_t machine_ram(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
}

void report_session__finish(struct report_session *s, uint64_t ram_bytes)
{
	struct finding_options fo = {ram_bytes ? ram_bytes : machine_ram(), ram_bytes != 0};

	rs_derive(&s->st);
	report_findings(&s->st, &fo, &s->fi);
}

void report_session__warnings(const struct report_session *s, FILE *out, const char *prefix)
{
	char lines[WARNING_MAX][WARNING_LINE];

	for (uint32_t t = 0; t < s->st.ntraces; t++) {
		int n = report_trace_warnings(&s->st, t, lines);

		for (int k = 0; k < n; k++)
			fprintf(out, "%swarning: %s\n", prefix, lines[k]);
	}
	if (rs_gpu_of(&s->st))
		for (uint32_t k = 0; k < rs_gpu_of(&s->st)->nwarnings; k++)
			fprintf(out, "%swarning: %s\n", prefix, rs_gpu_of(&s->st)->warnings[k]);
}

const struct report_stats *report_session__stats(const struct report_session *s)
{
	return &s->st;
}

const struct findings *report_session__findings(const struct report_session *s)
{
	return &s->fi;
}

const char *report_session__generator(const struct report_session *s)
{
	return s->generator;
}
