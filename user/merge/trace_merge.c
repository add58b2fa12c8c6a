// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "merge/trace_merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event/event.h"
#include "format/chrome/chrome_events.h"
#include "format/chrome/chrome_format.h"
#include "lib/json_string.h"
#include "format/chrome/trace_line_parser.h"

#define NUMBER_MAX 32 /* bytes of the longest number written */

void trace_merge_init(struct trace_merge *m, struct output_sink *sink, uint32_t ntraces)
{
	memset(m, 0, sizeof(*m));
	m->sink = sink;
	m->ntraces = ntraces ? ntraces : 1;
	merge_ids_init(&m->ids);
}

void trace_merge_free(struct trace_merge *m)
{
	merge_ids_free(&m->ids);
	free(m->host);
	free(m->host_hex);
	free(m->line);
	free(m->scratch);
	m->host = m->host_hex = m->line = m->scratch = NULL;
}

static void *grow(void *p, size_t *cap, size_t need)
{
	size_t c = *cap ? *cap : 4096;

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

void trace_merge_begin(struct trace_merge *m, uint32_t index, uint64_t shift_ns, const char *host,
		       size_t host_len)
{
	bool lossy = false;

	m->index = index;
	m->shift_ns = shift_ns;
	memset(&m->summary, 0, sizeof(m->summary));
	free(m->host);
	m->host = malloc(JSON_ESCAPED_MAX(host_len) + 2);
	if (!m->host)
		abort();
	m->host_len = json_escape(m->host, host, host_len, &lossy);
	memcpy(m->host + m->host_len, ": ", 2);
	m->host_len += 2;
	free(m->host_hex);
	m->host_hex = malloc(2 * host_len + 5); /* the host, ": ", each in hex, and a NUL */
	if (!m->host_hex)
		abort();
	m->host_hex_len = json_hex(m->host_hex, host, host_len);
	m->host_hex_len += json_hex(m->host_hex + m->host_hex_len, ": ", 2);
	merge_ids_next_trace(&m->ids);
}

/* One event line being rewritten: the raw text is copied up to each value replaced. */
struct rewrite {
	struct trace_merge *m;
	const struct trace_event *ev;
	const char *from; /* raw text not copied yet */
	size_t len;	  /* bytes of m->line so far */
	uint32_t pid, tid;
	const char *name_suffix; /* process_name: " (pid N)" or "" */
};

static void emit(struct rewrite *rw, const char *p, size_t n)
{
	struct trace_merge *m = rw->m;

	m->line = grow(m->line, &m->line_cap, rw->len + n);
	memcpy(m->line + rw->len, p, n);
	rw->len += n;
}

static void copy_to(struct rewrite *rw, const char *upto)
{
	emit(rw, rw->from, upto - rw->from);
	rw->from = upto;
}

static void replace(struct rewrite *rw, const struct json_member *mb, const char *text, size_t n)
{
	copy_to(rw, mb->value);
	emit(rw, text, n);
	rw->from = mb->value + mb->value_len;
}

static void replace_u64(struct rewrite *rw, const struct json_member *mb, uint64_t v)
{
	char num[NUMBER_MAX];

	replace(rw, mb, num, fmt_u64(num, v) - num);
}

/* A value written as a plain non-negative integer. */
static bool plain_u64(const struct json_member *mb, uint64_t *out)
{
	uint64_t v = 0;

	if (!mb->value_len)
		return false;
	for (size_t i = 0; i < mb->value_len; i++) {
		unsigned d = (unsigned char)mb->value[i] - '0';

		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

static bool key_is(const struct json_member *mb, const char *key)
{
	size_t n = strlen(key);

	return mb->key.len == n && !memcmp(mb->key.s, key, n);
}

static int arg_member(void *ctx, const struct json_member *mb)
{
	static const char *const id_args[] = {"child_pid", "child_tid", "parent_pid", "creator_tid",
					      "issuer_pid"};
	struct rewrite *rw = ctx;
	uint64_t v;

	if (rw->name_suffix && key_is(mb, "name") && mb->value_len >= 2 && mb->value[0] == '"') {
		copy_to(rw, mb->value + 1);
		emit(rw, rw->m->host, rw->m->host_len);
		copy_to(rw, mb->value + mb->value_len - 1);
		emit(rw, rw->name_suffix, strlen(rw->name_suffix));
		return 0;
	}
	/* the exact bytes of a name that is not UTF-8: the same prefix and suffix, in hex */
	if (rw->name_suffix && key_is(mb, "name_hex") && mb->value_len >= 2 &&
	    mb->value[0] == '"') {
		char hex[2 * 48];

		copy_to(rw, mb->value + 1);
		emit(rw, rw->m->host_hex, rw->m->host_hex_len);
		copy_to(rw, mb->value + mb->value_len - 1);
		emit(rw, hex, json_hex(hex, rw->name_suffix, strlen(rw->name_suffix)));
		return 0;
	}
	for (size_t i = 0; i < sizeof(id_args) / sizeof(id_args[0]); i++)
		if (key_is(mb, id_args[i]) && plain_u64(mb, &v) && v <= UINT32_MAX)
			replace_u64(rw, mb, merge_ids_map(&rw->m->ids, v, 0));
	return 0;
}

static int event_member(void *ctx, const struct json_member *mb)
{
	struct rewrite *rw = ctx;
	const struct trace_event *ev = rw->ev;
	struct trace_merge *m = rw->m;
	char num[NUMBER_MAX];
	uint64_t v;

	if (key_is(mb, "ts") && (ev->has & TE_TS)) {
		v = ev->ts_ns > UINT64_MAX - m->shift_ns ? UINT64_MAX : ev->ts_ns + m->shift_ns;
		replace(rw, mb, num, fmt_us(num, v) - num);
	} else if (key_is(mb, "pid") && (ev->has & TE_PID)) {
		replace_u64(rw, mb, rw->pid);
	} else if (key_is(mb, "tid") && (ev->has & TE_TID)) {
		replace_u64(rw, mb, rw->tid);
	} else if (key_is(mb, "bind_id") && plain_u64(mb, &v) &&
		   v <= (UINT64_MAX - m->index) / m->ntraces) {
		replace_u64(rw, mb, v * m->ntraces + m->index);
	} else if (key_is(mb, "args") && mb->value_len && mb->value[0] == '{') {
		/* inside the event's text: the scratch sized for the event holds its keys */
		return trace_object_members(mb->value, mb->value_len, m->scratch, arg_member, rw);
	}
	return 0;
}

static void write_line(struct trace_merge *m, const char *text, size_t n)
{
	char *p = sink_space(m->sink, n + 2);

	p[0] = '\n';
	p[1] = ',';
	memcpy(p + 2, text, n);
	sink_advance(m->sink, n + 2);
	m->events++;
}

void merge_keep_summary(struct merge_input_summary *s, const struct ev_trace_end *end)
{
	s->seen = true;
	s->truncated = end->truncated;
	s->events = end->events;
	s->lost_events = end->lost_events;
	s->lost_bytes = end->lost_bytes;
	s->duration_ns = end->duration_ns;
	s->end_wall_ns = end->end_wall_ns;
	if (end->lost)
		for (unsigned k = 0; k < DL_LOST_KINDS; k++)
			s->lost.by_kind[k] += end->lost->by_kind[k];
}

static void keep_summary(struct trace_merge *m, const struct trace_event *ev)
{
	struct event_parse p;
	struct event e;

	chrome_event_of(ev, &p, &e);
	if (e.type == EV_TRACE_END)
		merge_keep_summary(&m->summary, &e.end);
}

void trace_merge_event(void *merge, const struct trace_event *ev)
{
	struct trace_merge *m = merge;
	struct rewrite rw = {m, ev, ev->raw.s, 0, 0, 0, NULL};
	char suffix[48];

	if (ev->type == TEV_HEADER)
		return;
	if (ev->type == TEV_SUMMARY) {
		keep_summary(m, ev);
		return;
	}
	if (ev->has & TE_PID) {
		bool named = ev->type == TEV_PROCESS_NAME;

		rw.pid = merge_ids_map(&m->ids, ev->pid,
				       MERGE_ID_PROCESS | (named ? MERGE_ID_NAMED : 0));
		if (named) {
			suffix[0] = '\0';
			/* a real pid that had to change: say which it was */
			if (rw.pid != ev->pid && ev->pid < PID_ALIAS_STRIDE)
				snprintf(suffix, sizeof(suffix), " (pid %u)", ev->pid);
			rw.name_suffix = suffix;
		}
	}
	if (ev->has & TE_TID)
		rw.tid = merge_ids_map(&m->ids, ev->tid, 0);
	m->scratch = grow(m->scratch, &m->scratch_cap, TRACE_SCRATCH(ev->raw.len));
	if (trace_object_members(ev->raw.s, ev->raw.len, m->scratch, event_member, &rw)) {
		m->unmerged++;
		return;
	}
	copy_to(&rw, ev->raw.s + ev->raw.len);
	write_line(m, m->line, rw.len);
}

void trace_merge_end(struct trace_merge *m)
{
	struct merge_id e;
	uint32_t id;

	for (size_t i = 0; merge_ids_next(&m->ids, &i, &id, &e);) {
		char *p;
		size_t n;

		if (!id || !(e.flags & MERGE_ID_PROCESS) || (e.flags & MERGE_ID_NAMED))
			continue;
		/* a process whose name the trace never gave (it was cut short) */
		p = m->line = grow(m->line, &m->line_cap, m->host_len + 128);
		PUT(p, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":");
		p = fmt_u64(p, e.out);
		PUT(p, ",\"tid\":");
		p = fmt_u64(p, e.out);
		PUT(p, ",\"args\":{\"name\":\"");
		memcpy(p, m->host, m->host_len);
		p += m->host_len;
		PUT(p, "pid ");
		p = fmt_u64(p, id);
		PUT(p, "\"}}");
		n = p - m->line;
		write_line(m, m->line, n);
	}
}
