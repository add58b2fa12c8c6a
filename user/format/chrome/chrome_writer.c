// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "format/chrome/chrome_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/dltrace_events.h"
#include "event/event_args.h"
#include "event/syscall_table.h"
#include "format/chrome/chrome_format.h"
#include "lib/json_string.h"
#include "lib/path_table.h"

#define TAIL_MAX 4096 /* the summary line and the closing bracket */
#define HEAD_MAX 64   /* {"name":"...","cat":"...","ph":"X","ts": of a syscall */

struct chrome_writer {
	struct event_consumer consumer;
	struct output_sink *sink;
	uint64_t size_cap;
	uint64_t events; /* lines written */
	uint64_t capped;
	char tail[TAIL_MAX];
	size_t tail_len;
	/* the start of each syscall's line, made once */
	char heads[DL_SYS_COUNT][HEAD_MAX];
	uint8_t head_len[DL_SYS_COUNT];
	/* ,"pid":..,"tid":.. of the last line (most lines are of the thread before) */
	char ids[48];
	uint8_t ids_len;
	uint32_t ids_pid, ids_tid;
};

/*
 * "key": (keys are short: a loop beats a call to memcpy).  The keys
 * event_args() writes are plain ASCII; a span's may be anything a trace
 * held, and those are escaped.
 */
static inline char *put_key(char *p, struct ev_str k)
{
	*p++ = '"';
	for (uint32_t i = 0; i < k.len; i++) {
		unsigned char c = k.s[i];

		if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80) {
			p = fmt_str(p - 1, k.s, k.len);
			*p++ = ':';
			return p;
		}
		p[i] = c;
	}
	p += k.len;
	*p++ = '"';
	*p++ = ':';
	return p;
}

/*
 * "key": of a key event_args() names itself (ev_arg.key_named: plain
 * ASCII): copied with no checks, 4 to 16 bytes as two overlapping words.
 */
static inline char *put_named_key(char *p, struct ev_str k)
{
	uint64_t a, b;
	uint32_t c, d;

	*p++ = '"';
	if (k.len >= 8 && k.len <= 16) {
		memcpy(&a, k.s, 8);
		memcpy(&b, k.s + k.len - 8, 8);
		memcpy(p, &a, 8);
		memcpy(p + k.len - 8, &b, 8);
	} else if (k.len >= 4 && k.len < 8) {
		memcpy(&c, k.s, 4);
		memcpy(&d, k.s + k.len - 4, 4);
		memcpy(p, &c, 4);
		memcpy(p + k.len - 4, &d, 4);
	} else {
		for (uint32_t i = 0; i < k.len; i++)
			p[i] = k.s[i];
	}
	p += k.len;
	*p++ = '"';
	*p++ = ':';
	return p;
}

static char *put_ids(struct chrome_writer *w, char *p, uint32_t pid, uint32_t tid)
{
	if (!w->ids_len || w->ids_pid != pid || w->ids_tid != tid) {
		char *q = w->ids;

		PUT(q, ",\"pid\":");
		q = fmt_u64(q, pid);
		PUT(q, ",\"tid\":");
		q = fmt_u64(q, tid);
		w->ids_len = q - w->ids;
		w->ids_pid = pid;
		w->ids_tid = tid;
	}
	memcpy(p, w->ids, sizeof(w->ids));
	return p + w->ids_len;
}

/* Largest number of bytes one argument's value can take as JSON. */
static size_t arg_bytes(const struct ev_arg *a)
{
	switch (a->type) {
	case EV_ARG_STR:
	case EV_ARG_SYMBOL:
		return JSON_ESCAPED_MAX(a->s.len) + 2;
	case EV_ARG_PATH:
		if (a->path->ref)
			return path_json_max(a->path->ref, "path_hex") + a->key.len;
		return JSON_ESCAPED_MAX(a->path->name.len) + 2 * a->path->name.len +
		       2 * a->key.len + 16;
	case EV_ARG_LOST_KINDS:
		return DL_LOST_KINDS * 48 + 2;
	default:
		return 32;
	}
}

/* "key":"name" (and "key_hex":"..." when the name is not valid UTF-8) */
static char *put_path_arg(char *p, const struct ev_arg *a)
{
	const struct ev_path *path = a->path;
	bool lossy = false;

	if (path->ref && path->ref->len == path->name.len) {
		char key[64];

		if (a->key.len < sizeof(key)) {
			memcpy(key, a->key.s, a->key.len);
			key[a->key.len] = '\0';
			return p + path_json(path->ref, key, p);
		}
	}
	*p++ = '"';
	memcpy(p, a->key.s, a->key.len);
	p += a->key.len;
	PUT(p, "\":\"");
	p += json_escape(p, path->name.s, path->name.len, &lossy);
	*p++ = '"';
	if (lossy) {
		PUT(p, ",\"");
		memcpy(p, a->key.s, a->key.len);
		p += a->key.len;
		PUT(p, "_hex\":\"");
		p += json_hex(p, path->name.s, path->name.len);
		*p++ = '"';
	}
	return p;
}

static char *put_lost_kinds(char *p, const struct lost_counts *c)
{
	bool first = true;
	const char *name;
	uint64_t count;

	*p++ = '{';
	for (unsigned i = 0; lost_counts_next(c, &i, &name, &count);) {
		if (!first)
			*p++ = ',';
		first = false;
		p = fmt_str(p, name, strlen(name));
		*p++ = ':';
		p = fmt_u64(p, count);
	}
	*p++ = '}';
	return p;
}

/* ,"args":{...} */
static char *put_args(char *p, const struct ev_arg *args, unsigned n)
{
	PUT(p, ",\"args\":{");
	for (unsigned i = 0; i < n; i++) {
		const struct ev_arg *a = &args[i];

		if (i)
			*p++ = ',';
		if (a->type == EV_ARG_PATH) {
			p = put_path_arg(p, a);
			continue;
		}
		p = a->key_named ? put_named_key(p, a->key) : put_key(p, a->key);
		switch (a->type) {
		case EV_ARG_U64:
			p = fmt_u64(p, a->u);
			break;
		case EV_ARG_I64:
			p = fmt_i64(p, a->i);
			break;
		case EV_ARG_STR:
			p = fmt_str(p, a->s.s, a->s.len);
			break;
		case EV_ARG_SYMBOL:
			*p++ = '"';
			memcpy(p, a->s.s, a->s.len);
			p += a->s.len;
			*p++ = '"';
			break;
		case EV_ARG_BOOL:
			if (a->b)
				PUT(p, "true");
			else
				PUT(p, "false");
			break;
		case EV_ARG_DOUBLE:
			p += sprintf(p, "%.3f", a->d);
			break;
		case EV_ARG_US:
			p = fmt_us(p, a->u);
			break;
		case EV_ARG_LOST_KINDS:
			p = put_lost_kinds(p, a->lost);
			break;
		case EV_ARG_HEX:
			PUT(p, "\"0x");
			p = hex_u64(p, a->u);
			*p++ = '"';
			break;
		}
	}
	PUT(p, "}}");
	return p;
}

/* {"name":..,"cat":..,"ph":..,"ts": */
static char *put_head(char *p, const struct ev_head *h)
{
	PUT(p, "{\"name\":");
	p = fmt_str(p, h->name.s, h->name.len);
	if (h->cat.len) {
		PUT(p, ",\"cat\":");
		p = fmt_str(p, h->cat.s, h->cat.len);
	}
	PUT(p, ",\"ph\":\"");
	*p++ = h->ph;
	*p++ = '"';
	if (h->ph == 'M')
		return p;
	PUT(p, ",\"ts\":");
	return p;
}

static char *put_syscall_head(struct chrome_writer *w, char *p, unsigned sys)
{
	if (!w->head_len[sys]) {
		const struct syscall_info *si = syscall_info(sys);

		w->head_len[sys] = snprintf(w->heads[sys], HEAD_MAX,
					    "{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":",
					    si->name, io_class_name(si->io_class));
	}
	memcpy(p, w->heads[sys], w->head_len[sys]);
	return p + w->head_len[sys];
}

/* The fields between the ids and the args, by kind of line. */
static char *put_phase_fields(char *p, const struct event *e, char ph)
{
	switch (ph) {
	case 'X':
		PUT(p, ",\"dur\":");
		switch (e->type) {
		case EV_SYSCALL:
			return fmt_us(p, e->sys.dur);
		case EV_VFS:
			return fmt_us(p, e->vfs.dur);
		case EV_SPAN:
			return fmt_us(p, e->span.dur);
		case EV_FORK:
		case EV_START:
			PUT(p, "0.000,\"bind_id\":");
			p = fmt_u64(p, e->fork.flow);
			if (e->type == EV_FORK)
				PUT(p, ",\"flow_out\":true");
			else
				PUT(p, ",\"flow_in\":true");
			return p;
		default:
			PUT(p, "0.000");
			return p;
		}
	case 'i':
		PUT(p, ",\"s\":\"t\"");
		return p;
	case 's': /* a profiler trace's arrow: it binds to the slice around it */
	case 'f':
		PUT(p, ",\"id\":");
		p = fmt_u64(p, e->type == EV_SPAN ? e->span.flow : 0);
		if (ph == 'f')
			PUT(p, ",\"bp\":\"e\"");
		return p;
	case 'b':
	case 'e':
		PUT(p, ",\"id2\":{\"local\":\"0x");
		p += sprintf(p, "%llx", (unsigned long long)event_async_id(e));
		PUT(p, "\"}");
		return p;
	default:
		return p;
	}
}

static bool over_cap(struct chrome_writer *w, const struct event *e)
{
	if (!w->size_cap || w->sink->bytes_in < w->size_cap)
		return false;
	/* the names of processes and threads still label the events written */
	if (e->type == EV_PROCESS_NAME || e->type == EV_THREAD_NAME)
		return false;
	w->capped++;
	return true;
}

static void write_event(struct event_consumer *c, const struct event *e)
{
	struct chrome_writer *w = container_of(c, struct chrome_writer, consumer);
	struct ev_arg args[EV_ARGS_MAX];
	char scratch[EV_SCRATCH], name[32];
	struct ev_head h;
	size_t need = 512;
	char *start, *p;
	unsigned n;

	if (over_cap(w, e))
		return;
	if (e->type == EV_OTHER && e->raw.len) {
		/* a line of no known kind, read from a trace: as it was */
		start = p = sink_space(w->sink, e->raw.len + 2);
		if (w->events)
			PUT(p, "\n,");
		else
			*p++ = '[';
		memcpy(p, e->raw.s, e->raw.len);
		sink_advance(w->sink, p + e->raw.len - start);
		w->events++;
		return;
	}
	n = event_args(e, args, scratch);
	for (unsigned i = 0; i < n; i++)
		need += JSON_ESCAPED_MAX(args[i].key.len) + arg_bytes(&args[i]);
	if (e->type == EV_SYSCALL) {
		h.ph = 'X';
	} else {
		event_head(e, &h, name);
		need += JSON_ESCAPED_MAX(h.name.len) + JSON_ESCAPED_MAX(h.cat.len);
	}
	start = p = sink_space(w->sink, need);
	if (w->events)
		PUT(p, "\n,");
	else
		*p++ = '[';
	if (e->type == EV_SYSCALL)
		p = put_syscall_head(w, p, e->sys.sys);
	else
		p = put_head(p, &h);
	if (h.ph != 'M')
		p = fmt_us(p, e->ts);
	p = put_ids(w, p, e->pid, e->tid);
	p = put_phase_fields(p, e, h.ph);
	p = put_args(p, args, n);
	sink_advance(w->sink, p - start);
	w->events++;
}

/* The summary: the writer's own counts of what the file holds. */
static void write_end(struct event_consumer *c, const struct event *e)
{
	struct chrome_writer *w = container_of(c, struct chrome_writer, consumer);
	struct event end = *e;
	struct ev_arg args[EV_ARGS_MAX];
	char scratch[EV_SCRATCH];
	char *p = w->tail;
	unsigned n;

	end.end.events = w->events + 1;
	/* a trace read back keeps what its own cap left out */
	end.end.capped_events += w->capped;
	end.end.truncated = end.end.truncated || w->sink->error;
	if (w->sink->error && !end.end.write_error.len)
		end.end.write_error = ev_str_of(strerror(w->sink->error));
	n = event_args(&end, args, scratch);
	PUT(p, "\n,{\"name\":\"dltrace_summary\",\"ph\":\"M\",\"pid\":0,\"tid\":0");
	p = put_args(p, args, n);
	PUT(p, "\n]\n");
	w->tail_len = p - w->tail;
	w->events++;
}

struct chrome_writer *chrome_writer__new(struct output_sink *sink, uint64_t size_cap)
{
	struct chrome_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->sink = sink;
	w->size_cap = size_cap;
	event_consumer_init(&w->consumer);
	w->consumer.trace_end = write_end;
	event_consumer_fill(&w->consumer, write_event);
	return w;
}

void chrome_writer__free(struct chrome_writer *w)
{
	free(w);
}

struct event_consumer *chrome_writer__consumer(struct chrome_writer *w)
{
	return &w->consumer;
}

const char *chrome_writer__tail(const struct chrome_writer *w, size_t *len)
{
	*len = w->tail_len;
	return w->tail;
}

uint64_t chrome_writer__events(const struct chrome_writer *w)
{
	return w->events;
}

uint64_t chrome_writer__capped(const struct chrome_writer *w)
{
	return w->capped;
}
