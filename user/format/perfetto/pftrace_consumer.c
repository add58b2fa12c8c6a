// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "format/perfetto/pftrace_consumer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event/event_args.h"
#include "format/perfetto/pftrace_writer.h"

#define TAIL_MAX 8192 /* the summary packet */

struct pftrace_consumer {
	struct event_consumer consumer;
	struct output_sink *sink;
	uint64_t size_cap;
	struct pftrace_writer w;
	bool started;	      /* the writer is initialized */
	uint32_t max_strings; /* tests: a smaller string table (0: the default) */
	uint64_t events;      /* events written */
	uint64_t capped;
	uint8_t tail[TAIL_MAX];
	size_t tail_len;
	/* an event's args as the writer takes them */
	struct pft_arg args[EV_ARGS_MAX];
	struct pft_arg lost[DL_LOST_KINDS];
};

static struct pft_str pstr(struct ev_str s)
{
	return (struct pft_str){s.s, s.len};
}

/* The double the JSON's "%.3f" reads back as. */
static double json_double(double d)
{
	char text[64];

	if (!isfinite(d) || fabs(d) >= 1e15)
		return d;
	snprintf(text, sizeof(text), "%.3f", d);
	return strtod(text, NULL);
}

/* The event's args (event_args()) as the writer's. */
static uint32_t convert_args(struct pftrace_consumer *c, const struct ev_arg *in, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		const struct ev_arg *a = &in[i];
		struct pft_arg *o = &c->args[i];

		o->key = pstr(a->key);
		o->key_static = a->key_named; /* event_args()'s names: literals and table entries */
		switch (a->type) {
		case EV_ARG_U64:
			o->type = PFT_ARG_U64;
			o->u = a->u;
			break;
		case EV_ARG_I64:
			o->type = PFT_ARG_I64;
			o->i = a->i;
			break;
		case EV_ARG_STR:
		case EV_ARG_SYMBOL:
			o->type = PFT_ARG_STR;
			o->s = pstr(a->s);
			break;
		case EV_ARG_PATH:
			/* the decoder's names are stable: the string table finds them by address */
			o->type = PFT_ARG_PATH;
			o->s = pstr(a->path->name);
			break;
		case EV_ARG_BOOL:
			o->type = PFT_ARG_BOOL;
			o->b = a->b;
			break;
		case EV_ARG_DOUBLE:
			/* as the JSON shows it (3 decimals), so both formats hold the same value */
			o->type = PFT_ARG_DOUBLE;
			o->d = json_double(a->d);
			break;
		case EV_ARG_US:
			o->type = PFT_ARG_US;
			o->u = a->u;
			break;
		case EV_ARG_HEX:
			o->type = PFT_ARG_HEX;
			o->u = a->u;
			break;
		case EV_ARG_LOST_KINDS: {
			uint32_t k = 0;
			const char *name;
			uint64_t count;

			for (unsigned j = 0; lost_counts_next(a->lost, &j, &name, &count);)
				c->lost[k++] = (struct pft_arg){
				    .key = {name, strlen(name)}, .type = PFT_ARG_U64, .u = count};
			o->type = PFT_ARG_DICT;
			o->dict.args = c->lost;
			o->dict.n = k;
			break;
		}
		default:
			o->type = PFT_ARG_STR;
			o->s = (struct pft_str){"", 0};
			break;
		}
	}
	return n;
}

static void start(struct pftrace_consumer *c, uint64_t start_mono_ns, int64_t start_wall_ns)
{
	if (c->started || pftrace_writer_init(&c->w, c->sink, start_mono_ns, start_wall_ns))
		return;
	if (c->max_strings)
		c->w.intern.max_strings = c->max_strings;
	c->started = true;
}

static bool over_cap(struct pftrace_consumer *c, const struct event *e)
{
	if (!c->size_cap || c->sink->bytes_in < c->size_cap)
		return false;
	/* the names of processes and threads still label the events written */
	if (e->type == EV_PROCESS_NAME || e->type == EV_THREAD_NAME)
		return false;
	/* the end of a request whose begin was written */
	if ((e->type == EV_BLOCK && e->block.phase == EV_PH_END) ||
	    (e->type == EV_URING && e->uring.phase == EV_PH_END) ||
	    (e->type == EV_AIO && e->aio.phase == EV_PH_END))
		return false;
	c->capped++;
	return true;
}

static uint64_t slice_dur(const struct event *e)
{
	switch (e->type) {
	case EV_SYSCALL:
		return e->sys.dur;
	case EV_VFS:
		return e->vfs.dur;
	case EV_SPAN:
		return e->span.dur;
	default:
		return 0;
	}
}

/* EV_OTHER: its name on the "dltrace" track, with where it was and its text. */
static void write_other(struct pftrace_consumer *c, const struct event *e, const struct ev_head *h)
{
	char ph[1] = {e->other.phase};
	struct pft_arg a[4] = {
	    {.key = PFT_STR("pid"), .type = PFT_ARG_U64, .u = e->pid},
	    {.key = PFT_STR("tid"), .type = PFT_ARG_U64, .u = e->tid},
	    {.key = PFT_STR("ph"), .type = PFT_ARG_STR, .s = {ph, e->other.phase ? 1 : 0}},
	    {.key = PFT_STR("json"), .type = PFT_ARG_STR, .s = pstr(e->raw)},
	};

	pftrace_meta(&c->w, e->ts, pstr(h->name), pstr(e->other.cat), a, e->raw.len ? 4 : 3);
}

static void write_event(struct event_consumer *ec, const struct event *e)
{
	struct pftrace_consumer *c = container_of(ec, struct pftrace_consumer, consumer);
	struct pftrace_writer *w = &c->w;
	struct ev_arg args[EV_ARGS_MAX];
	char scratch[EV_SCRATCH], head_scratch[32];
	uint64_t dropped = w->dropped, id;
	struct ev_head h;
	uint32_t n;
	bool written = true;

	if (e->type == EV_TRACE_BEGIN)
		start(c, e->begin.start_mono_ns, e->begin.start_wall_ns);
	else
		start(c, 0, 0); /* a stream without metadata (never from dltrace's sources) */
	if (!c->started || over_cap(c, e))
		return;
	event_head(e, &h, head_scratch);
	n = convert_args(c, args, event_args(e, args, scratch));
	switch (e->type) {
	case EV_TRACE_BEGIN:
		pftrace_meta(w, 0, pstr(h.name), pstr(h.cat), c->args, n);
		break;
	case EV_PROCESS_NAME: {
		/* the ranks as process labels: "rank=3", "rank_from=RANK", ... */
		char buf[4][48];
		struct pft_str labels[4];
		uint32_t nl = 0;
		const struct ev_name *nm = &e->name;

		if (nm->ranks & EV_RANK) {
			labels[nl] = (struct pft_str){
			    buf[nl], (uint32_t)snprintf(buf[nl], 48, "rank=%u", nm->rank)};
			nl++;
			labels[nl] = (struct pft_str){
			    buf[nl], (uint32_t)snprintf(
					 buf[nl], 48, "rank_from=%.*s",
					 (int)(nm->rank_from.len < 32 ? nm->rank_from.len : 32),
					 nm->rank_from.s)};
			nl++;
		} else if (nm->ranks & EV_RANKS_READ) {
			labels[nl++] = PFT_STR("rank=unknown");
		}
		if (nm->ranks & EV_LOCAL_RANK) {
			labels[nl] = (struct pft_str){
			    buf[nl],
			    (uint32_t)snprintf(buf[nl], 48, "local_rank=%u", nm->local_rank)};
			nl++;
		}
		if (nm->ranks & EV_WORLD_SIZE && nl < 4) {
			labels[nl] = (struct pft_str){
			    buf[nl],
			    (uint32_t)snprintf(buf[nl], 48, "world_size=%u", nm->world_size)};
			nl++;
		}
		pftrace_process_name_labels(w, e->pid, pstr(e->name.name), labels, nl);
		break;
	}
	case EV_THREAD_NAME:
		pftrace_thread_name(w, e->pid, e->tid, pstr(e->name.name));
		break;
	case EV_OTHER:
		write_other(c, e, &h);
		break;
	case EV_BLOCK:
	case EV_URING:
	case EV_AIO:
		id = event_async_id(e);
		if (h.ph == EV_PH_BEGIN)
			pftrace_async_begin(w, e->pid, e->tid, e->pid, e->type != EV_BLOCK, e->ts,
					    pstr(h.name), pstr(h.cat), c->args, n, id);
		else
			written =
			    pftrace_async_end(w, e->pid, e->tid, e->pid, e->ts, c->args, n, id);
		break;
	default:
		switch (h.ph) {
		case 'X':
			pftrace_slice(w, e->pid, e->tid, e->ts, slice_dur(e), pstr(h.name),
				      pstr(h.cat), c->args, n,
				      e->type == EV_FORK ? e->fork.flow : 0,
				      e->type == EV_START ? e->fork.flow : 0);
			break;
		case 'B':
			pftrace_slice_begin(w, e->pid, e->tid, e->ts, pstr(h.name), pstr(h.cat),
					    c->args, n);
			break;
		case 'E':
			pftrace_slice_end(w, e->pid, e->tid, e->ts, pstr(h.name), pstr(h.cat),
					  c->args, n);
			break;
		case 'C':
			pftrace_counter(w, e->pid, e->tid, e->type != EV_BLOCK_RATE, e->ts,
					pstr(h.name), pstr(h.cat), c->args, n);
			break;
		case 's':
		case 'f':
			id = e->type == EV_SPAN ? e->span.flow : 0;
			pftrace_flow(w, e->pid, e->tid, e->ts, pstr(h.name), pstr(h.cat), c->args,
				     n, h.ph == 's' ? id : 0, h.ph == 'f' ? id : 0);
			break;
		default:
			pftrace_instant(w, e->pid, e->tid, e->ts, pstr(h.name), pstr(h.cat),
					c->args, n);
			break;
		}
	}
	if (!written) /* an end whose begin the cap left out */
		c->capped++;
	else if (w->dropped == dropped)
		c->events++;
	if (e->type == EV_EXIT) /* its sequence's state is not needed any more */
		pftrace_thread_release(w, e->pid, e->tid);
}

/* The summary: the writer's own counts of what the file holds. */
static void write_end(struct event_consumer *ec, const struct event *e)
{
	struct pftrace_consumer *c = container_of(ec, struct pftrace_consumer, consumer);
	struct event end = *e;
	struct ev_arg args[EV_ARGS_MAX];
	char scratch[EV_SCRATCH];
	uint32_t n;

	start(c, 0, 0);
	if (!c->started)
		return;
	end.end.events = c->events + 1;
	/* a trace read back keeps what its own cap left out */
	end.end.capped_events += c->capped;
	end.end.truncated = end.end.truncated || c->sink->error;
	if (c->sink->error && !end.end.write_error.len)
		end.end.write_error = ev_str_of(strerror(c->sink->error));
	n = convert_args(c, args, event_args(&end, args, scratch));
	c->tail_len = pftrace_meta_packet(&c->w, end.end.duration_ns, PFT_STR("dltrace_summary"),
					  c->args, n, c->tail, sizeof(c->tail));
	c->events++;
}

struct pftrace_consumer *pftrace_consumer__new(struct output_sink *sink, uint64_t size_cap)
{
	struct pftrace_consumer *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->sink = sink;
	c->size_cap = size_cap;
	event_consumer_init(&c->consumer);
	c->consumer.trace_end = write_end;
	event_consumer_fill(&c->consumer, write_event);
	return c;
}

void pftrace_consumer__free(struct pftrace_consumer *c)
{
	if (!c)
		return;
	if (c->started)
		pftrace_writer_free(&c->w);
	free(c);
}

struct event_consumer *pftrace_consumer__consumer(struct pftrace_consumer *c)
{
	return &c->consumer;
}

const char *pftrace_consumer__tail(const struct pftrace_consumer *c, size_t *len)
{
	*len = c->tail_len;
	return (const char *)c->tail;
}

uint64_t pftrace_consumer__events(const struct pftrace_consumer *c)
{
	return c->events;
}

uint64_t pftrace_consumer__capped(const struct pftrace_consumer *c)
{
	return c->capped;
}

void pftrace_consumer__limit_strings(struct pftrace_consumer *c, uint32_t n)
{
	c->max_strings = n;
	if (c->started)
		c->w.intern.max_strings = n;
}
