// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "merge/event_merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *grow(void *p, size_t *cap, size_t need)
{
	size_t c = *cap ? *cap : 256;

	if (need <= *cap)
		return p;
	while (c < need)
		c *= 2;
	p = realloc(p, c);
	if (!p)
		abort();
	*cap = c;
	return p;
}

static uint32_t id(struct event_merge *m, uint32_t v)
{
	return merge_ids_map(&m->ids, v, 0);
}

/* "<host>: <name>", and " (pid N)" when a real pid changed */
static struct ev_str host_name(struct event_merge *m, struct ev_str name, uint32_t pid,
			       uint32_t out_pid)
{
	char suffix[48] = "";
	size_t n;

	if (out_pid != pid && pid < PID_ALIAS_STRIDE)
		snprintf(suffix, sizeof(suffix), " (pid %u)", pid);
	n = m->host_len + name.len + strlen(suffix);
	m->name = grow(m->name, &m->name_cap, n);
	memcpy(m->name, m->host, m->host_len);
	memcpy(m->name + m->host_len, name.s, name.len);
	memcpy(m->name + m->host_len + name.len, suffix, strlen(suffix));
	return (struct ev_str){m->name, n};
}

static void merge_event(struct event_consumer *c, const struct event *e)
{
	struct event_merge *m = container_of(c, struct event_merge, consumer);
	struct event x = *e;

	if (e->type == EV_TRACE_BEGIN)
		return;
	if (e->type == EV_TRACE_END) {
		merge_keep_summary(&m->summary, &e->end);
		return;
	}
	/* the same order of first sight as the text merge: pid, tid, then the ids in args */
	x.pid = merge_ids_map(&m->ids, e->pid,
			      MERGE_ID_PROCESS | (e->type == EV_PROCESS_NAME ? MERGE_ID_NAMED : 0));
	x.tid = id(m, e->tid);
	x.ts = e->ts > UINT64_MAX - m->shift_ns ? UINT64_MAX : e->ts + m->shift_ns;
	if (e->ts > m->last_ts)
		m->last_ts = e->ts;
	switch (e->type) {
	case EV_FORK:
		x.fork.child = id(m, e->fork.child);
		x.fork.parent_pid = x.pid;
		x.fork.parent_tid = x.tid;
		x.fork.flow = e->fork.flow * m->ntraces + m->index;
		break;
	case EV_START:
		x.fork.child = x.tid;
		if (e->fork.thread) {
			x.fork.parent_pid = x.pid;
			x.fork.parent_tid = id(m, e->fork.parent_tid);
		} else {
			x.fork.parent_pid = id(m, e->fork.parent_pid);
		}
		x.fork.flow = e->fork.flow * m->ntraces + m->index;
		break;
	case EV_BLOCK:
		if (e->block.phase == EV_PH_BEGIN && e->block.issuer_pid)
			x.block.issuer_pid = id(m, e->block.issuer_pid);
		break;
	case EV_PROCESS_NAME:
		x.name.name = host_name(m, e->name.name, e->pid, x.pid);
		break;
	default:
		break;
	}
	m->events++;
	event_deliver(m->out, &x);
}

void event_merge_init(struct event_merge *m, struct event_consumer *out, uint32_t ntraces)
{
	memset(m, 0, sizeof(*m));
	m->out = out;
	m->ntraces = ntraces ? ntraces : 1;
	merge_ids_init(&m->ids);
	event_consumer_init(&m->consumer);
	event_consumer_fill(&m->consumer, merge_event);
}

void event_merge_free(struct event_merge *m)
{
	merge_ids_free(&m->ids);
	free(m->host);
	free(m->name);
	m->host = m->name = NULL;
}

void event_merge_begin(struct event_merge *m, uint32_t index, uint64_t shift_ns, const char *host,
		       size_t host_len)
{
	m->index = index;
	m->shift_ns = shift_ns;
	m->last_ts = 0;
	memset(&m->summary, 0, sizeof(m->summary));
	free(m->host);
	m->host = malloc(host_len + 2);
	if (!m->host)
		abort();
	memcpy(m->host, host, host_len);
	memcpy(m->host + host_len, ": ", 2);
	m->host_len = host_len + 2;
	merge_ids_next_trace(&m->ids);
}

void event_merge_end(struct event_merge *m)
{
	struct merge_id e;
	uint32_t pid;

	for (size_t i = 0; merge_ids_next(&m->ids, &i, &pid, &e);) {
		struct event x = {.type = EV_PROCESS_NAME, .pid = e.out, .tid = e.out};
		char name[32];

		if (!pid || !(e.flags & MERGE_ID_PROCESS) || (e.flags & MERGE_ID_NAMED))
			continue;
		/* a process whose name the trace never gave (it was cut short) */
		snprintf(name, sizeof(name), "pid %u", pid);
		x.name.name = host_name(m, (struct ev_str){name, strlen(name)}, pid, pid);
		m->events++;
		event_deliver(m->out, &x);
	}
}
