// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "report/report_session.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "event/version.h"
#include "format/kineto/kineto_reader.h"
#include "format/trace_format.h"
#include "report/render/report_output.h"
#include "report/report_gpu_idle.h"
#include "report/report_warnings.h"

struct report_session {
	struct report_stats st;
	struct findings fi;
	char generator[64];
};

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

int report_session__read_file(struct report_session *s, const char *path, char *err,
			      size_t errlen)
{
	return report_session__read_file_progress(s, path, NULL, err, errlen);
}

int report_session__read_file_progress(struct report_session *s, const char *path,
				       struct progress *progress, char *err, size_t errlen)
{
	struct trace_read_status status;
	struct event_consumer *c = report_session__begin_trace(s, path);

	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (trace_file_read_progress(path, c, &status, progress)) {
		snprintf(err, errlen, "%s", status.error);
		return -1;
	}
	report_session__end_trace(s, &status);
	return 0;
}

void report_session__expect_kineto(struct report_session *s)
{
	rs_gpu_expect(&s->st);
}

/* A profiler event to the GPU join: its slices and their times (relative to the base). */
static void kineto_event(void *ctx, const struct kineto_event *ev)
{
	struct rs_gpu_profile_event e = {.name = ev->name, .cat = ev->cat};

	if (ev->malformed || !ev->has_ts || (ev->ph.len == 1 && ev->ph.s[0] == 'M'))
		return;
	e.complete = ev->ph.len == 1 && ev->ph.s[0] == 'X';
	e.start = ev->ts_ns;
	e.end = ev->ts_ns + (ev->has_dur && ev->dur_ns > 0 ? ev->dur_ns : 0);
	e.has_pid = ev->pid.present && !ev->pid.is_str;
	e.pid = ev->pid.v;
	e.has_tid = ev->tid.present && !ev->tid.is_str;
	e.tid = ev->tid.v;
	e.args = ev->args;
	e.nargs = ev->nargs;
	rs_gpu_profile__add(ctx, &e);
}

int report_session__add_kineto(struct report_session *s, const char *path, char *err,
			       size_t errlen)
{
	struct rs_gpu_profile *p = rs_gpu_profile__new(&s->st);
	struct kineto_header h;
	struct kineto_status st;

	if (!p) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (kineto_file_read(path, kineto_event, p, &h, &st)) {
		snprintf(err, errlen, "%s", st.error);
		rs_gpu_profile__free(p);
		return -1;
	}
	rs_gpu_profile__end(p, path, h.base_ns, st.elements);
	return 0;
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

static struct report_view view(const struct report_session *s, unsigned top, bool color)
{
	return (struct report_view){&s->st, &s->fi, top, color, s->generator};
}

void report_session__terminal(const struct report_session *s, FILE *out, unsigned top,
			      bool color)
{
	struct report_view v = view(s, top, color);

	report_terminal(out, &v);
}

void report_session__json(const struct report_session *s, FILE *out, unsigned top)
{
	struct report_view v = view(s, top, false);

	report_json(out, &v);
}

void report_session__html(const struct report_session *s, FILE *out, unsigned top)
{
	struct report_view v = view(s, top, false);

	report_html(out, &v);
}

char *report_session__json_text(const struct report_session *s, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	if (!f)
		return NULL;
	report_session__json(s, f, REPORT_DEFAULT_TOP);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}
