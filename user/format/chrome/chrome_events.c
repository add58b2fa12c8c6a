// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "format/chrome/chrome_events.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/chrome/trace_line_parser.h"

struct chrome_events {
	struct event_consumer *out;
	struct event_parse parse; /* what the event of the line points to */
};

void chrome_event_of(const struct trace_event *l, struct event_parse *p, struct event *e)
{
	struct ev_head h = {
	    {l->event_name.s, l->event_name.len}, {l->category.s, l->category.len}, l->ph};
	uint64_t id = l->bind_id;

	memset(e, 0, sizeof(*e));
	e->ts = l->ts_ns;
	e->pid = l->pid;
	e->tid = l->tid;
	e->raw = (struct ev_str){l->raw.s, l->raw.len};
	/* a fork's arrow, an asynchronous request's id, or a profiler trace's arrow (s, f) */
	if (l->has & TE_ID2)
		id = l->id2;
	else if ((l->has & TE_ID) && (l->ph == 's' || l->ph == 'f'))
		id = l->id;
	event_parse(p, e, &h, l->dur_ns, id, l->args, l->nargs);
}

void chrome_events__line(void *ctx, const struct trace_event *l)
{
	struct chrome_events *s = ctx;
	struct event e;

	chrome_event_of(l, &s->parse, &e);
	event_deliver(s->out, &e);
}

struct chrome_events *chrome_events__new(struct event_consumer *out)
{
	struct chrome_events *s = malloc(sizeof(*s));

	if (s)
		s->out = out;
	return s;
}

void chrome_events__free(struct chrome_events *s)
{
	free(s);
}

int chrome_read_events(const char *path, struct event_consumer *c, struct trace_read_status *st)
{
	struct chrome_events *s = chrome_events__new(c);
	int rc;

	if (!s) {
		memset(st, 0, sizeof(*st));
		snprintf(st->error, sizeof(st->error), "out of memory");
		return -1;
	}
	rc = trace_read_file(path, chrome_events__line, s, st);
	chrome_events__free(s);
	return rc;
}
