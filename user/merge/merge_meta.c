// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "merge/merge_meta.h"

#include <stdlib.h>
#include <string.h>

#include "format/chrome/chrome_events.h"
#include "format/chrome/chrome_format.h"
#include "lib/json_string.h"
#include "event/version.h"

static struct trace_str copy_str(const struct trace_str *s)
{
	struct trace_str c = {malloc(s->len + 1), s->len};

	if (!c.s)
		abort();
	memcpy((char *)c.s, s->s, s->len);
	((char *)c.s)[s->len] = '\0';
	return c;
}

void merge_input_header(void *input, const struct trace_event *ev)
{
	struct event_parse p;
	struct event e;

	chrome_event_of(ev, &p, &e);
	if (e.type == EV_TRACE_BEGIN)
		merge_input_begin(input, &e.begin);
}

void merge_input_free(struct merge_input *in)
{
	struct trace_str *strs[] = {&in->hostname, &in->kernel, &in->target, &in->layers,
				    &in->start_wall};

	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		free((char *)strs[i]->s);
		*strs[i] = (struct trace_str){NULL, 0};
	}
}

uint32_t merge_align(struct merge_input *in, uint32_t n)
{
	uint32_t origin = 0;

	for (uint32_t i = 1; i < n; i++)
		if (in[i].start_wall_ns < in[origin].start_wall_ns)
			origin = i;
	for (uint32_t i = 0; i < n; i++)
		in[i].shift_ns = (uint64_t)in[i].start_wall_ns - (uint64_t)in[origin].start_wall_ns;
	return origin;
}

static bool same(const struct trace_str *a, const struct trace_str *b)
{
	return a->len == b->len && !memcmp(a->s, b->s, a->len);
}

/* ,"key":"text" */
static char *put_key_text(char *p, const char *key, const struct trace_str *s)
{
	*p++ = ',';
	*p++ = '"';
	p = stpcpy(p, key);
	*p++ = '"';
	*p++ = ':';
	return fmt_str(p, s->s, s->len);
}

/* The same, with "<key>_hex": its exact bytes, when the text is not valid UTF-8. */
static char *put_key_exact(char *p, const char *key, const struct trace_str *s)
{
	bool lossy = false;

	p = stpcpy(p, ",\"");
	p = stpcpy(p, key);
	p = stpcpy(p, "\":\"");
	p += json_escape(p, s->s, s->len, &lossy);
	*p++ = '"';
	if (lossy) {
		p = stpcpy(p, ",\"");
		p = stpcpy(p, key);
		p = stpcpy(p, "_hex\":\"");
		p += json_hex(p, s->s, s->len);
		*p++ = '"';
	}
	return p;
}

/* Is the comma-separated word w[0..n) in list[0..len)? */
static bool has_word(const char *list, size_t len, const char *w, size_t n)
{
	for (size_t i = 0; i < len;) {
		size_t e = i;

		while (e < len && list[e] != ',')
			e++;
		if (e - i == n && !memcmp(list + i, w, n))
			return true;
		i = e + 1;
	}
	return false;
}

/* Words of src[0..n) not yet in the list, appended to out (at *len). */
static void add_words(char *out, size_t *len, const char *src, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t e = i;

		while (e < n && src[e] != ',')
			e++;
		if (e > i && !has_word(out, *len, src + i, e - i)) {
			if (*len)
				out[(*len)++] = ',';
			memcpy(out + *len, src + i, e - i);
			*len += e - i;
		}
		i = e + 1;
	}
}

/* Hostnames, or layers, of all inputs without repeats, comma-separated. */
static struct trace_str union_of(const struct merge_input *in, uint32_t n, bool hosts)
{
	size_t cap = 1, len = 0;
	char *out;

	for (uint32_t i = 0; i < n; i++)
		cap += (hosts ? in[i].hostname.len : in[i].layers.len) + 1;
	out = malloc(cap);
	if (!out)
		abort();
	for (uint32_t i = 0; i < n; i++) {
		const struct trace_str *h = &in[i].hostname;
		bool seen = false;

		if (!hosts) {
			add_words(out, &len, in[i].layers.s, in[i].layers.len);
			continue;
		}
		for (uint32_t k = 0; k < i && !seen; k++)
			seen = same(&in[k].hostname, h);
		if (seen)
			continue;
		if (len)
			out[len++] = ',';
		memcpy(out + len, h->s, h->len);
		len += h->len;
	}
	return (struct trace_str){out, len};
}

void merge_write_header(struct output_sink *s, const struct merge_input *in, uint32_t n,
			uint32_t origin)
{
	struct trace_str hosts = union_of(in, n, true), layers = union_of(in, n, false);
	size_t bound = 1024 + JSON_ESCAPED_MAX(hosts.len) + JSON_ESCAPED_MAX(layers.len) +
		       JSON_ESCAPED_MAX(in[origin].start_wall.len);
	char *p, *start;

	for (uint32_t i = 0; i < n; i++)
		bound += 512 + JSON_ESCAPED_MAX(strlen(in[i].path)) +
			 JSON_ESCAPED_MAX(in[i].hostname.len) + JSON_ESCAPED_MAX(in[i].kernel.len) +
			 JSON_ESCAPED_MAX(in[i].target.len) + 2 * in[i].target.len +
			 JSON_ESCAPED_MAX(in[i].start_wall.len);
	start = p = sink_space(s, bound);
	PUT(p, "[{\"name\":\"dltrace\",\"ph\":\"M\",\"pid\":0,\"tid\":0,\"args\":{\"format\":"
	       "\"dltrace-chrome-1\"");
	p = put_key_str(p, "version", DLTRACE_VERSION);
	p = put_key_text(p, "hostname", &hosts);
	PUT(p, ",\"target\":\"merge of ");
	p = fmt_u64(p, n);
	p = stpcpy(p, n == 1 ? " trace\"" : " traces\"");
	p = put_key_text(p, "layers", &layers);
	/* every input's monotonic times, moved onto the earliest wall-clock start */
	p = put_key_str(p, "clock", "CLOCK_REALTIME");
	p = put_key_i64(p, "start_wall_ns", in[origin].start_wall_ns);
	p = put_key_text(p, "start_wall", &in[origin].start_wall);
	PUT(p, ",\"traces\":[");
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			*p++ = ',';
		PUT(p, "{\"file\":");
		p = fmt_str(p, in[i].path, strlen(in[i].path));
		p = put_key_text(p, "hostname", &in[i].hostname);
		p = put_key_text(p, "kernel", &in[i].kernel);
		p = put_key_exact(p, "target", &in[i].target);
		p = put_key_text(p, "start_wall", &in[i].start_wall);
		p = put_key_i64(p, "start_wall_ns", in[i].start_wall_ns);
		p = put_key_u64(p, "shift_ns", in[i].shift_ns);
		*p++ = '}';
	}
	PUT(p, "]}}");
	sink_advance(s, p - start);
	free((char *)hosts.s);
	free((char *)layers.s);
}

void merge_totals(const struct merge_input *in, uint32_t n, bool output_error,
		  struct merge_totals *t)
{
	memset(t, 0, sizeof(*t));
	t->truncated = output_error;
	for (uint32_t i = 0; i < n; i++) {
		const struct merge_input_summary *s = &in[i].summary;

		t->input_events += in[i].status.events;
		t->truncated_inputs += trace_read_truncated(&in[i].status);
		if (!s->seen)
			continue;
		t->lost.events += s->lost_events;
		t->lost.bytes += s->lost_bytes;
		for (unsigned k = 0; k < DL_LOST_KINDS; k++)
			t->lost.by_kind[k] += s->lost.by_kind[k];
		t->truncated |= s->truncated;
		if (in[i].shift_ns + s->duration_ns > t->duration_ns)
			t->duration_ns = in[i].shift_ns + s->duration_ns;
		if (s->end_wall_ns > t->end_wall_ns)
			t->end_wall_ns = s->end_wall_ns;
	}
}

size_t merge_summary_tail(char *tail, size_t cap, const struct merge_input *in, uint32_t n,
			  uint64_t events, bool output_error)
{
	struct merge_totals t;
	const char *kind;
	uint64_t count;
	char *p = tail;
	bool first = true;

	if (cap < MERGE_TAIL_MAX)
		return 0;
	merge_totals(in, n, output_error, &t);
	PUT(p, "\n,{\"name\":\"dltrace_summary\",\"ph\":\"M\",\"pid\":0,\"tid\":0,\"args\":{");
	PUT(p, "\"events\":");
	p = fmt_u64(p, events);
	p = put_key_u64(p, "lost_events", t.lost.events);
	p = put_key_u64(p, "lost_bytes", t.lost.bytes);
	/* the inputs' lost records by kind, added up (as a trace's own summary shows them) */
	for (unsigned k = 0; t.lost.events && lost_counts_next(&t.lost, &k, &kind, &count);) {
		if (first)
			PUT(p, ",\"lost_by_kind\":{");
		else
			*p++ = ',';
		first = false;
		p = fmt_str(p, kind, strlen(kind));
		*p++ = ':';
		p = fmt_u64(p, count);
	}
	if (!first)
		*p++ = '}';
	p = put_key_u64(p, "duration_ns", t.duration_ns);
	p = put_key_i64(p, "end_wall_ns", t.end_wall_ns);
	p = put_key_str(p, "stop_reason", "merged");
	p = put_key_u64(p, "inputs", n);
	p = put_key_u64(p, "input_events", t.input_events);
	p = put_key_u64(p, "truncated_inputs", t.truncated_inputs);
	if (t.truncated)
		PUT(p, ",\"truncated\":true");
	PUT(p, "}}\n]\n");
	return p - tail;
}

struct trace_str merge_hosts(const struct merge_input *in, uint32_t n)
{
	return union_of(in, n, true);
}

struct trace_str merge_layers(const struct merge_input *in, uint32_t n)
{
	return union_of(in, n, false);
}

static struct trace_str copy_ev(struct ev_str s)
{
	return copy_str(&(struct trace_str){s.s, s.len});
}

void merge_input_begin(struct merge_input *in, const struct ev_trace_begin *b)
{
	in->hostname = copy_ev(b->hostname);
	in->kernel = copy_ev(b->kernel);
	in->target = copy_ev(b->target);
	in->layers = copy_ev(b->layers);
	in->start_wall = copy_ev(b->start_wall);
	in->start_wall_ns = b->start_wall_ns;
}

size_t merge_input_line_max(const struct merge_input *in)
{
	return 512 + JSON_ESCAPED_MAX(strlen(in->path)) + JSON_ESCAPED_MAX(in->hostname.len) +
	       JSON_ESCAPED_MAX(in->kernel.len) + JSON_ESCAPED_MAX(in->target.len) +
	       JSON_ESCAPED_MAX(in->start_wall.len);
}

size_t merge_input_line(char *out, const struct merge_input *in)
{
	char *p = out;

	PUT(p, "{\"name\":\"dltrace_input\",\"ph\":\"M\",\"pid\":0,\"tid\":0,\"args\":{\"file\":");
	p = fmt_str(p, in->path, strlen(in->path));
	p = put_key_text(p, "hostname", &in->hostname);
	p = put_key_text(p, "kernel", &in->kernel);
	p = put_key_text(p, "target", &in->target);
	p = put_key_text(p, "start_wall", &in->start_wall);
	p = put_key_i64(p, "start_wall_ns", in->start_wall_ns);
	p = put_key_u64(p, "shift_ns", in->shift_ns);
	p = put_key_u64(p, "events", in->status.events);
	if (trace_read_truncated(&in->status))
		PUT(p, ",\"truncated\":true");
	PUT(p, "}}");
	return p - out;
}
