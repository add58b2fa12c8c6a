// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "format/perfetto/pftrace_events.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event/event_parse.h"
#include "format/perfetto/pftrace_fields.h"
#include "format/perfetto/pftrace_intern.h"
#include "format/perfetto/pftrace_writer.h"
#include "io/input_stream.h"
#include "lib/id_map.h"
#include "lib/pb_reader.h"
#include "lib/string_index.h"
#include "lib/u64_index.h"

#define PACKET_MAX (64u << 20) /* larger packets are not dltrace's */

/* InternedData fields by kind (enum pft_intern_kind) */
static const uint8_t interned_field[PFT_INTERN_KINDS] = {
    [PFT_INTERN_CATEGORY] = PF_INTERNED_CATEGORIES,
    [PFT_INTERN_EVENT_NAME] = PF_INTERNED_EVENT_NAMES,
    [PFT_INTERN_ARG_NAME] = PF_INTERNED_ARG_NAMES,
    [PFT_INTERN_ARG_STRING] = PF_INTERNED_ARG_STRINGS,
};

/* A packet sequence's incremental state. */
struct seq {
	uint64_t track; /* default track */
	uint64_t ts;	/* the incremental clock's value: ns since the trace's start */
	uint32_t *iid[PFT_INTERN_KINDS]; /* iid -> string id + 1 (0: not known) */
	uint32_t niid[PFT_INTERN_KINDS];
};

enum track_kind { T_META, T_PROCESS, T_THREAD, T_LANE, T_COUNTER };

struct track {
	uint8_t kind;
	uint32_t pid, tid;
	uint64_t open_id;	      /* lanes: the id of the request begun on it, */
	uint32_t open_name, open_cat; /* its name and category (string ids) */
};

/* A thread's SLICE_BEGIN, kept until the next packet says what it is. */
struct pending {
	bool set;
	struct seq *seq;
	uint64_t track, ts, flow_out, flow_in;
	uint32_t pid, tid;
	struct ev_str name, cat;
	struct ev_arg args[EV_ARGS_MAX];
	unsigned nargs;
	char *arena; /* copies of strings that are not in the string store */
	size_t arena_len, arena_cap;
};

/* A TrackEvent, decoded. */
struct te {
	uint32_t type;
	bool has_track, has_name;
	uint64_t track, flow_out, flow_in, correlation;
	struct ev_str name, cat;
	unsigned nargs;
};

struct pftrace_events {
	struct event_consumer *out;
	struct input_stream in;
	struct trace_read_status st;
	bool failed, stopped;
	uint8_t *buf; /* bytes of a packet not complete yet */
	size_t len, cap;
	struct string_index strings; /* every interned string, once */
	struct id_map seqs;	     /* sequence id -> struct seq */
	struct seq *last_seq;
	uint32_t last_seq_id;
	struct u64_index track_at; /* uuid -> tracks[] */
	struct track *tracks;
	uint32_t ntracks, tracks_cap;
	uint64_t start_mono;
	struct pending pending;
	struct event_parse parse;
	struct ev_arg args[EV_ARGS_MAX];
	struct lost_counts lost;
};

static int fail(struct pftrace_events *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int fail(struct pftrace_events *r, const char *fmt, ...)
{
	va_list ap;

	if (!r->failed) {
		va_start(ap, fmt);
		vsnprintf(r->st.error, sizeof(r->st.error), fmt, ap);
		va_end(ap);
		r->failed = true;
	}
	return -1;
}

static void malformed(struct pftrace_events *r, const char *why)
{
	if (!r->st.malformed) {
		r->st.first_malformed_line = r->st.lines;
		r->st.first_malformed_why = why;
	}
	r->st.malformed++;
}

/* ---- strings, sequences, tracks ---- */

static struct ev_str stored(const struct pftrace_events *r, uint32_t id)
{
	return (struct ev_str){string_at(&r->strings, id), string_len(&r->strings, id)};
}

/* The interned string kind/iid of seq; false when the sequence never named it. */
static bool interned(const struct pftrace_events *r, const struct seq *s, int kind, uint64_t iid,
		     struct ev_str *out)
{
	if (iid >= s->niid[kind] || !s->iid[kind][iid])
		return false;
	*out = stored(r, s->iid[kind][iid] - 1);
	return true;
}

static int intern_entry(struct pftrace_events *r, struct seq *s, int kind, const uint8_t *data,
			size_t len)
{
	struct pb_reader pb;
	struct pb_field f;
	uint64_t iid = 0;
	const uint8_t *str = (const uint8_t *)"";
	size_t slen = 0;
	uint32_t id;

	pb_reader__init(&pb, data, len);
	while (pb_reader__next(&pb, &f)) {
		if (f.number == PF_INTERNED_IID && f.wire_type == 0)
			iid = f.v;
		else if (f.number == PF_INTERNED_STR && f.wire_type == 2) {
			str = f.data;
			slen = f.len;
		}
	}
	if (pb.bad || !iid || iid > (1u << 24))
		return -1;
	if (iid >= s->niid[kind]) {
		uint32_t n = s->niid[kind] ? s->niid[kind] : 64;
		uint32_t *a;

		while (n <= iid)
			n *= 2;
		a = realloc(s->iid[kind], n * sizeof(*a));
		if (!a)
			return fail(r, "out of memory");
		memset(a + s->niid[kind], 0, (n - s->niid[kind]) * sizeof(*a));
		s->iid[kind] = a;
		s->niid[kind] = n;
	}
	id = string_index_put(&r->strings, (const char *)str, slen);
	if (id == STRING_NONE)
		return fail(r, "out of memory");
	s->iid[kind][iid] = id + 1;
	return 0;
}

static int interned_data(struct pftrace_events *r, struct seq *s, const uint8_t *data, size_t len)
{
	struct pb_reader pb;
	struct pb_field f;

	pb_reader__init(&pb, data, len);
	while (pb_reader__next(&pb, &f)) {
		if (f.wire_type != 2)
			continue;
		for (int k = 0; k < PFT_INTERN_KINDS; k++)
			if (f.number == interned_field[k] && intern_entry(r, s, k, f.data, f.len))
				return -1;
	}
	return pb.bad ? -1 : 0;
}

static struct seq *seq_get(struct pftrace_events *r, uint32_t id)
{
	struct seq *s;

	if (r->last_seq && r->last_seq_id == id)
		return r->last_seq;
	s = id_map_get(&r->seqs, id);
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return NULL;
		id_map_put(&r->seqs, id, s);
	}
	r->last_seq = s;
	r->last_seq_id = id;
	return s;
}

static void seq_clear(struct seq *s)
{
	for (int k = 0; k < PFT_INTERN_KINDS; k++)
		if (s->iid[k])
			memset(s->iid[k], 0, s->niid[k] * sizeof(*s->iid[k]));
}

static struct track *track_find(struct pftrace_events *r, uint64_t uuid)
{
	uint32_t at = u64_index_get(&r->track_at, uuid);

	return at == U64_NONE ? NULL : &r->tracks[at];
}

static struct track *track_add(struct pftrace_events *r, uint64_t uuid)
{
	struct track *t = track_find(r, uuid);

	if (t)
		return t;
	if (r->ntracks == r->tracks_cap) {
		uint32_t n = r->tracks_cap ? 2 * r->tracks_cap : 64;
		struct track *a = realloc(r->tracks, n * sizeof(*a));

		if (!a)
			return NULL;
		r->tracks = a;
		r->tracks_cap = n;
	}
	if (u64_index_put(&r->track_at, uuid, r->ntracks))
		return NULL;
	t = &r->tracks[r->ntracks++];
	memset(t, 0, sizeof(*t));
	t->open_name = t->open_cat = STRING_NONE;
	return t;
}

/* ---- delivering ---- */

static void deliver(struct pftrace_events *r, struct event *e)
{
	if (e->type == EV_TRACE_END)
		r->st.summary = true;
	r->st.events++;
	event_deliver(r->out, e);
}

/* An event from its head and args. */
static void emit(struct pftrace_events *r, uint64_t ts, uint32_t pid, uint32_t tid, char ph,
		 struct ev_str name, struct ev_str cat, uint64_t dur, uint64_t id,
		 const struct ev_arg *args, unsigned n)
{
	struct event e = {.ts = ts, .pid = pid, .tid = tid};
	struct ev_head h = {name, cat, ph};

	event_parse(&r->parse, &e, &h, dur, id, args, n);
	deliver(r, &e);
}

static void flush_pending(struct pftrace_events *r)
{
	struct pending *p = &r->pending;

	if (!p->set)
		return;
	p->set = false;
	emit(r, p->ts, p->pid, p->tid, 'B', p->name, p->cat, 0, 0, p->args, p->nargs);
}

/* A copy of s in the pending begin's arena when it is not in the string store. */
static struct ev_str keep(struct pftrace_events *r, struct ev_str s, const uint8_t *from,
			  const uint8_t *to)
{
	struct pending *p = &r->pending;

	if ((const uint8_t *)s.s < from || (const uint8_t *)s.s >= to)
		return s;
	if (p->arena_len + s.len > p->arena_cap) /* reserved in full by hold_begin */
		return (struct ev_str){"", 0};
	memcpy(p->arena + p->arena_len, s.s, s.len);
	s.s = p->arena + p->arena_len;
	p->arena_len += s.len;
	return s;
}

static int hold_begin(struct pftrace_events *r, struct seq *s, const struct te *t, uint32_t pid,
		      uint32_t tid, const uint8_t *pkt, size_t pkt_len)
{
	struct pending *p = &r->pending;
	const uint8_t *end = pkt + pkt_len;

	if (pkt_len > p->arena_cap) {
		char *a = realloc(p->arena, pkt_len);

		if (!a)
			return fail(r, "out of memory");
		p->arena = a;
		p->arena_cap = pkt_len;
	}
	p->arena_len = 0;
	p->set = true;
	p->seq = s;
	p->track = t->track;
	p->ts = s->ts;
	p->pid = pid;
	p->tid = tid;
	p->flow_out = t->flow_out;
	p->flow_in = t->flow_in;
	p->name = keep(r, t->name, pkt, end);
	p->cat = keep(r, t->cat, pkt, end);
	p->nargs = t->nargs;
	for (unsigned i = 0; i < t->nargs; i++) {
		p->args[i] = r->args[i];
		p->args[i].key = keep(r, r->args[i].key, pkt, end);
		if (p->args[i].type == EV_ARG_STR)
			p->args[i].s = keep(r, r->args[i].s, pkt, end);
	}
	return 0;
}

/* ---- track events ---- */

/* One debug annotation into r->args[*n]. */
static void annotation(struct pftrace_events *r, struct seq *s, const uint8_t *data, size_t len,
		       unsigned *n)
{
	struct ev_arg *a = &r->args[*n];
	struct pb_reader pb;
	struct pb_field f;
	bool named = false, valued = false;

	if (*n == EV_ARGS_MAX)
		return;
	memset(a, 0, sizeof(*a));
	pb_reader__init(&pb, data, len);
	while (pb_reader__next(&pb, &f)) {
		switch (f.number) {
		case PF_DA_NAME_IID:
			named = interned(r, s, PFT_INTERN_ARG_NAME, f.v, &a->key);
			break;
		case PF_DA_NAME:
			a->key = (struct ev_str){(const char *)f.data, f.len};
			named = true;
			break;
		case PF_DA_BOOL:
			a->type = EV_ARG_BOOL;
			a->b = f.v != 0;
			valued = true;
			break;
		case PF_DA_UINT:
			a->type = EV_ARG_U64;
			a->u = f.v;
			valued = true;
			break;
		case PF_DA_INT:
			a->type = EV_ARG_I64;
			a->i = (int64_t)f.v;
			valued = true;
			break;
		case PF_DA_DOUBLE:
			a->type = EV_ARG_DOUBLE;
			a->d = pb__double(&f);
			valued = true;
			break;
		case PF_DA_STRING:
			a->type = EV_ARG_STR;
			a->s = (struct ev_str){(const char *)f.data, f.len};
			valued = true;
			break;
		case PF_DA_POINTER:
			a->type = EV_ARG_HEX;
			a->u = f.v;
			valued = true;
			break;
		case PF_DA_STRING_IID:
			a->type = EV_ARG_STR;
			valued = interned(r, s, PFT_INTERN_ARG_STRING, f.v, &a->s);
			break;
		case PF_DA_DICT_ENTRIES: {
			/* lost_by_kind: {"pread64": 12, ...} */
			struct pb_reader e;
			struct pb_field g;
			struct ev_str k = {"", 0};
			uint64_t count = 0;

			if (!valued)
				memset(&r->lost, 0, sizeof(r->lost));
			pb_reader__init(&e, f.data, f.len);
			while (pb_reader__next(&e, &g)) {
				if (g.number == PF_DA_NAME_IID)
					interned(r, s, PFT_INTERN_ARG_NAME, g.v, &k);
				else if (g.number == PF_DA_NAME)
					k = (struct ev_str){(const char *)g.data, g.len};
				else if (g.number == PF_DA_UINT || g.number == PF_DA_INT)
					count = g.v;
			}
			lost_counts_add_named(&r->lost, k.s, k.len, count);
			a->type = EV_ARG_LOST_KINDS;
			a->lost = &r->lost;
			valued = true;
			break;
		}
		default:
			break;
		}
	}
	if (named && valued && !pb.bad)
		++*n;
}

static void repeated_u64(const struct pb_field *f, uint64_t *out)
{
	if (f->wire_type != 2) {
		*out = f->v;
		return;
	}
	/* packed: the first value is the one dltrace writes */
	if (f->len >= 8)
		for (int i = 0; i < 8; i++)
			*out |= (uint64_t)f->data[i] << (8 * i);
}

static int track_event(struct pftrace_events *r, struct seq *s, struct te *t, const uint8_t *data,
		       size_t len)
{
	struct pb_reader pb;
	struct pb_field f;
	bool cat_set = false;

	memset(t, 0, sizeof(*t));
	t->track = s->track;
	t->name = t->cat = (struct ev_str){"", 0};
	pb_reader__init(&pb, data, len);
	while (pb_reader__next(&pb, &f)) {
		switch (f.number) {
		case PF_TE_TYPE:
			t->type = f.v;
			break;
		case PF_TE_TRACK_UUID:
			t->track = f.v;
			t->has_track = true;
			break;
		case PF_TE_CATEGORY_IIDS:
			if (!cat_set && f.wire_type == 0)
				cat_set = interned(r, s, PFT_INTERN_CATEGORY, f.v, &t->cat);
			break;
		case PF_TE_CATEGORIES:
			if (!cat_set) {
				t->cat = (struct ev_str){(const char *)f.data, f.len};
				cat_set = true;
			}
			break;
		case PF_TE_NAME_IID:
			t->has_name = interned(r, s, PFT_INTERN_EVENT_NAME, f.v, &t->name);
			break;
		case PF_TE_NAME:
			t->name = (struct ev_str){(const char *)f.data, f.len};
			t->has_name = true;
			break;
		case PF_TE_DEBUG_ANNOTATIONS:
			annotation(r, s, f.data, f.len, &t->nargs);
			break;
		case PF_TE_FLOW_IDS:
			repeated_u64(&f, &t->flow_out);
			break;
		case PF_TE_TERMINATING_FLOW_IDS:
			repeated_u64(&f, &t->flow_in);
			break;
		case PF_TE_CORRELATION_ID:
			t->correlation = f.v;
			break;
		default:
			break;
		}
	}
	return pb.bad ? -1 : 0;
}

/* An instant on the "dltrace" track: metadata, summary, or an event of no known kind. */
static int meta_event(struct pftrace_events *r, uint64_t ts, const struct te *t)
{
	static const struct ev_str none = {"", 0};
	bool begin = t->name.len == 7 && !memcmp(t->name.s, "dltrace", 7);
	struct event e = {.ts = ts};

	if (!r->st.header && !begin)
		return fail(r, "not a dltrace trace: a Perfetto trace without dltrace's metadata");
	if (begin || (t->name.len == 15 && !memcmp(t->name.s, "dltrace_summary", 15))) {
		if (begin && r->st.header) {
			malformed(r, "a second metadata event");
			return 0;
		}
		if (begin) {
			for (unsigned i = 0; i < t->nargs; i++) {
				const struct ev_arg *a = &r->args[i];

				if (a->key.len == 6 && !memcmp(a->key.s, "format", 6) &&
				    a->type == EV_ARG_STR &&
				    (a->s.len != 16 || memcmp(a->s.s, "dltrace-chrome-1", 16))) {
					char quoted[4 * 40 + 4];

					trace_read_quote(a->s.s, a->s.len, 40, quoted,
							 sizeof(quoted));
					return fail(r,
						    "unsupported trace format '%s' (this dltrace "
						    "reads dltrace-chrome-1)",
						    quoted);
				}
			}
			r->st.header = true;
		}
		emit(r, ts, 0, 0, 'M', t->name, none, 0, 0, r->args, t->nargs);
		return 0;
	}
	e.type = EV_OTHER;
	e.other.name = t->name;
	e.other.cat = t->cat;
	for (unsigned i = 0; i < t->nargs; i++) {
		const struct ev_arg *a = &r->args[i];

		if (a->key.len == 3 && !memcmp(a->key.s, "pid", 3))
			e.pid = a->u;
		else if (a->key.len == 3 && !memcmp(a->key.s, "tid", 3))
			e.tid = a->u;
		else if (a->key.len == 2 && !memcmp(a->key.s, "ph", 2) && a->s.len)
			e.other.phase = a->s.s[0];
		else if (a->key.len == 4 && !memcmp(a->key.s, "json", 4))
			e.raw = a->s;
	}
	deliver(r, &e);
	return 0;
}

/* Where an event on track tr, written on sequence s, happened: pid and tid. */
static void place(struct pftrace_events *r, const struct seq *s, const struct track *tr,
		  uint32_t *pid, uint32_t *tid)
{
	const struct track *own = track_find(r, s->track);

	*pid = tr->pid;
	*tid = tr->kind == T_THREAD ? tr->tid : tr->pid;
	/* lanes and counters: the thread of the sequence, unless it has no track (a device) */
	if ((tr->kind == T_LANE || tr->kind == T_COUNTER) && own && own->kind == T_THREAD)
		*tid = own->tid;
}

static int dispatch(struct pftrace_events *r, struct seq *s, uint64_t ts, struct te *t,
		    const uint8_t *pkt, size_t pkt_len)
{
	struct pending *p = &r->pending;
	struct track *tr = track_find(r, t->track);
	uint32_t pid, tid;

	/* a SLICE_END right after its thread's SLICE_BEGIN: one complete slice */
	if (p->set && t->type == PF_TYPE_SLICE_END && p->seq == s && p->track == t->track &&
	    !t->has_name) {
		unsigned n = p->nargs;

		for (unsigned i = 0; i < t->nargs && n < EV_ARGS_MAX; i++)
			p->args[n++] = r->args[i];
		p->set = false;
		emit(r, p->ts, p->pid, p->tid, 'X', p->name, p->cat, ts - p->ts,
		     p->flow_out ? p->flow_out : p->flow_in, p->args, n);
		return 0;
	}
	flush_pending(r);
	if (!tr) {
		malformed(r, "an event on a track never described");
		return 0;
	}
	if (tr->kind == T_META) {
		if (t->type == PF_TYPE_INSTANT)
			return meta_event(r, ts, t);
		malformed(r, "a slice on the dltrace track");
		return 0;
	}
	if (!r->st.header)
		return fail(r, "not a dltrace trace: events before dltrace's metadata");
	place(r, s, tr, &pid, &tid);
	switch (t->type) {
	case PF_TYPE_SLICE_BEGIN:
		if (tr->kind == T_LANE) {
			tr->open_id = t->correlation;
			tr->open_name = string_index_put(&r->strings, t->name.s, t->name.len);
			tr->open_cat = string_index_put(&r->strings, t->cat.s, t->cat.len);
			if (tr->open_name == STRING_NONE || tr->open_cat == STRING_NONE)
				return fail(r, "out of memory");
			emit(r, ts, pid, tid, 'b', t->name, t->cat, 0, t->correlation, r->args,
			     t->nargs);
			return 0;
		}
		return hold_begin(r, s, t, pid, tid, pkt, pkt_len);
	case PF_TYPE_SLICE_END:
		if (tr->kind == T_LANE && tr->open_name == STRING_NONE)
			malformed(r, "the end of a request that never began");
		else if (tr->kind == T_LANE) /* the end of the request begun on the lane */
			emit(r, ts, pid, tid, 'e', stored(r, tr->open_name),
			     stored(r, tr->open_cat), 0, tr->open_id, r->args, t->nargs);
		else
			emit(r, ts, pid, tid, 'E', t->name, t->cat, 0, 0, r->args, t->nargs);
		return 0;
	case PF_TYPE_INSTANT:
		/* with flow ids: a profiler trace's arrow end (pftrace_flow) */
		if (t->flow_out || t->flow_in)
			emit(r, ts, pid, tid, t->flow_out ? 's' : 'f', t->name, t->cat, 0,
			     t->flow_out ? t->flow_out : t->flow_in, r->args, t->nargs);
		else
			emit(r, ts, pid, tid, 'i', t->name, t->cat, 0, 0, r->args, t->nargs);
		return 0;
	case PF_TYPE_COUNTER:
		emit(r, ts, pid, tid, 'C', t->name, t->cat, 0, 0, r->args, t->nargs);
		return 0;
	default:
		malformed(r, "a track event of an unknown type");
		return 0;
	}
}

/* ---- track descriptors ---- */

/* A unsigned decimal label value; false when it is not one. */
static bool label_number(const char *s, size_t len, uint32_t *v)
{
	uint64_t n = 0;

	if (!len || len > 10)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		n = n * 10 + (uint64_t)(s[i] - '0');
	}
	*v = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
	return true;
}

/* A process label dltrace writes for the ranks ("rank=3", "rank_from=RANK", ...). */
static void label_rank(struct ev_name *n, const char *s, size_t len)
{
	static const struct {
		const char *key;
		uint8_t bit;
	} keys[] = {
	    {"rank=", EV_RANK}, {"local_rank=", EV_LOCAL_RANK}, {"world_size=", EV_WORLD_SIZE}};
	uint32_t v;

	if (len > 10 && !memcmp(s, "rank_from=", 10)) {
		n->rank_from = (struct ev_str){s + 10, (uint32_t)(len - 10)};
		return;
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		size_t k = strlen(keys[i].key);

		if (len < k || memcmp(s, keys[i].key, k))
			continue;
		if (keys[i].bit == EV_RANK)
			n->ranks |= EV_RANKS_READ;
		if (!label_number(s + k, len - k, &v))
			return;
		n->ranks |= keys[i].bit;
		if (keys[i].bit == EV_RANK)
			n->rank = v;
		else if (keys[i].bit == EV_LOCAL_RANK)
			n->local_rank = v;
		else
			n->world_size = v;
		return;
	}
}

static int descriptor(struct pftrace_events *r, const uint8_t *data, size_t len)
{
	struct pb_reader pb, sub;
	struct pb_field f, g;
	uint64_t uuid = 0, parent = 0;
	bool has_parent = false, counter = false, has_name = false;
	int kind = T_META;
	uint32_t pid = 0, tid = 0;
	struct ev_str name = {"", 0};
	struct event e = {0};
	struct track *t;

	pb_reader__init(&pb, data, len);
	while (pb_reader__next(&pb, &f)) {
		switch (f.number) {
		case PF_TD_UUID:
			uuid = f.v;
			break;
		case PF_TD_PARENT_UUID:
			parent = f.v;
			has_parent = true;
			break;
		case PF_TD_COUNTER:
			counter = true;
			break;
		case PF_TD_PROCESS:
		case PF_TD_THREAD:
			kind = f.number == PF_TD_PROCESS ? T_PROCESS : T_THREAD;
			pb_reader__init(&sub, f.data, f.len);
			while (pb_reader__next(&sub, &g)) {
				if (g.number == PF_PROCESS_PID) /* = PF_THREAD_PID */
					pid = g.v;
				else if (g.number == PF_THREAD_TID && kind == T_THREAD)
					tid = g.v;
				else if ((kind == T_PROCESS && g.number == PF_PROCESS_NAME) ||
					 (kind == T_THREAD && g.number == PF_THREAD_NAME)) {
					name = (struct ev_str){(const char *)g.data, g.len};
					has_name = true;
				} else if (kind == T_PROCESS && g.number == PF_PROCESS_LABELS) {
					label_rank(&e.name, (const char *)g.data, g.len);
				}
			}
			if (sub.bad)
				return -1;
			break;
		default:
			break;
		}
	}
	if (pb.bad)
		return -1;
	if (kind == T_META && has_parent) {
		const struct track *up = track_find(r, parent);

		kind = counter ? T_COUNTER : T_LANE;
		pid = up ? up->pid : 0;
	}
	t = track_add(r, uuid);
	if (!t)
		return fail(r, "out of memory");
	t->kind = kind;
	t->pid = pid;
	t->tid = kind == T_THREAD ? tid : pid;
	if (!has_name)
		return 0;
	if (!r->st.header)
		return fail(r, "not a dltrace trace: names before dltrace's metadata");
	e.type = kind == T_PROCESS ? EV_PROCESS_NAME : EV_THREAD_NAME;
	e.pid = pid;
	e.tid = t->tid;
	e.name.name = name;
	deliver(r, &e);
	return 0;
}

/* ---- packets ---- */

static void clock_snapshot(struct pftrace_events *r, struct seq *s, const uint8_t *data, size_t len)
{
	struct pb_reader pb, c;
	struct pb_field f, g;
	uint64_t inc = 0, mono = 0;
	bool have_inc = false, have_mono = false;

	pb_reader__init(&pb, data, len);
	while (pb_reader__next(&pb, &f)) {
		uint64_t id = 0, value = 0;

		if (f.number != PF_CLOCKS_CLOCK || f.wire_type != 2)
			continue;
		pb_reader__init(&c, f.data, f.len);
		while (pb_reader__next(&c, &g)) {
			if (g.number == PF_CLOCK_ID)
				id = g.v;
			else if (g.number == PF_CLOCK_TIMESTAMP)
				value = g.v;
		}
		if (id == PFT_CLOCK_ID) {
			inc = value;
			have_inc = true;
		} else if (id == PFT_BUILTIN_MONOTONIC) {
			mono = value;
			have_mono = true;
		}
	}
	if (have_inc)
		s->ts = inc;
	if (have_inc && have_mono)
		r->start_mono = mono - inc;
}

static void defaults(struct seq *s, const uint8_t *data, size_t len)
{
	struct pb_reader pb, d;
	struct pb_field f, g;

	pb_reader__init(&pb, data, len);
	while (pb_reader__next(&pb, &f)) {
		if (f.number != PF_DEFAULTS_TRACK_EVENT || f.wire_type != 2)
			continue;
		pb_reader__init(&d, f.data, f.len);
		while (pb_reader__next(&d, &g))
			if (g.number == PF_TE_DEFAULTS_TRACK_UUID)
				s->track = g.v;
	}
}

/* One TracePacket. */
static int packet(struct pftrace_events *r, const uint8_t *data, size_t len)
{
	struct pb_reader pb;
	struct pb_field f, ev = {0}, td = {0}, in = {0}, cs = {0}, df = {0};
	uint64_t seq_id = 0, flags = 0, timestamp = 0, clock = 0;
	bool has_ts = false;
	struct seq *s;
	struct te t;

	r->st.lines++;
	pb_reader__init(&pb, data, len);
	while (pb_reader__next(&pb, &f)) {
		switch (f.number) {
		case PF_PACKET_SEQUENCE_ID:
			seq_id = f.v;
			break;
		case PF_PACKET_SEQUENCE_FLAGS:
			flags = f.v;
			break;
		case PF_PACKET_TIMESTAMP:
			timestamp = f.v;
			has_ts = true;
			break;
		case PF_PACKET_CLOCK_ID:
			clock = f.v;
			break;
		case PF_PACKET_TRACK_EVENT:
			if (f.wire_type == 2)
				ev = f;
			break;
		case PF_PACKET_TRACK_DESCRIPTOR:
			if (f.wire_type == 2)
				td = f;
			break;
		case PF_PACKET_INTERNED_DATA:
			if (f.wire_type == 2)
				in = f;
			break;
		case PF_PACKET_CLOCK_SNAPSHOT:
			if (f.wire_type == 2)
				cs = f;
			break;
		case PF_PACKET_DEFAULTS:
			if (f.wire_type == 2)
				df = f;
			break;
		default:
			break;
		}
	}
	if (pb.bad)
		goto bad;
	s = seq_get(r, seq_id);
	if (!s)
		return fail(r, "out of memory");
	if (flags & PFT_SEQ_INCREMENTAL_STATE_CLEARED)
		seq_clear(s);
	if (df.data)
		defaults(s, df.data, df.len);
	if (cs.data)
		clock_snapshot(r, s, cs.data, cs.len);
	if (in.data && interned_data(r, s, in.data, in.len))
		goto bad;
	if (!ev.data) {
		flush_pending(r);
		if (td.data && descriptor(r, td.data, td.len))
			goto bad;
		return r->failed ? -1 : 0;
	}
	if (track_event(r, s, &t, ev.data, ev.len))
		goto bad;
	if (has_ts) {
		if (clock == PFT_BUILTIN_MONOTONIC) /* absolute: the summary */
			timestamp -= r->start_mono;
		else
			timestamp += s->ts;
		if (clock != PFT_BUILTIN_MONOTONIC)
			s->ts = timestamp;
	} else {
		timestamp = s->ts;
	}
	return dispatch(r, s, timestamp, &t, data, len);
bad:
	if (r->failed)
		return -1;
	if (!r->st.header)
		return fail(r, "not a dltrace trace (a packet that does not decode)");
	malformed(r, "a packet that does not decode");
	return 0;
}

/* Whole packets of p[0..n); returns the bytes used (a partial packet is left). */
static size_t packets(struct pftrace_events *r, const uint8_t *p, size_t n)
{
	size_t used = 0;

	while (used < n && !r->failed && !r->stopped) {
		const uint8_t *q = p + used + 1, *end = p + n;
		uint64_t len;

		if (p[used] != 0x0a) { /* Trace.packet, length-delimited */
			if (!r->st.header)
				fail(r,
				     "not a dltrace trace (neither JSON nor a Perfetto .pftrace)");
			else
				malformed(r,
					  "bytes that are not a Perfetto packet (the rest of the "
					  "file is ignored)");
			r->stopped = true;
			break;
		}
		if (!pb__varint_get(&q, end, &len)) {
			if (end - (p + used + 1) >= 10)
				fail(r,
				     "not a dltrace trace (a packet length that does not decode)");
			break;
		}
		if (len > PACKET_MAX) {
			fail(r, "a packet of %llu bytes: not a dltrace .pftrace",
			     (unsigned long long)len);
			break;
		}
		if (len > (uint64_t)(end - q))
			break;
		if (packet(r, q, len))
			break;
		used = q + len - p;
	}
	return used;
}

static int plain_bytes(void *ctx, const char *data, size_t n)
{
	struct pftrace_events *r = ctx;
	const uint8_t *p = (const uint8_t *)data;
	size_t used;

	r->st.bytes += n;
	if (r->stopped)
		return 0;
	if (!r->len) {
		/* whole packets straight from the input; keep the rest */
		used = packets(r, p, n);
		p += used;
		n -= used;
		if (r->failed)
			return -1;
		if (!n || r->stopped)
			return 0;
	}
	if (r->len + n > r->cap) {
		size_t cap = r->cap ? r->cap : 1 << 16;
		uint8_t *b;

		while (cap < r->len + n)
			cap *= 2;
		b = realloc(r->buf, cap);
		if (!b)
			return fail(r, "out of memory");
		r->buf = b;
		r->cap = cap;
	}
	memcpy(r->buf + r->len, p, n);
	r->len += n;
	used = packets(r, r->buf, r->len);
	memmove(r->buf, r->buf + used, r->len - used);
	r->len -= used;
	return r->failed ? -1 : 0;
}

struct pftrace_events *pftrace_events__new(struct event_consumer *out)
{
	struct pftrace_events *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->out = out;
	input_stream_init(&r->in, plain_bytes, r);
	string_index_init(&r->strings);
	id_map_init(&r->seqs);
	u64_index_init(&r->track_at);
	return r;
}

void pftrace_events__free(struct pftrace_events *r)
{
	uint32_t key;
	void *v;

	if (!r)
		return;
	for (size_t i = 0; id_map_next(&r->seqs, &i, &key, &v);) {
		struct seq *s = v;

		for (int k = 0; k < PFT_INTERN_KINDS; k++)
			free(s->iid[k]);
		free(s);
	}
	id_map_free(&r->seqs);
	u64_index_free(&r->track_at);
	string_index_free(&r->strings);
	input_stream_free(&r->in);
	free(r->tracks);
	free(r->pending.arena);
	free(r->buf);
	free(r);
}

int pftrace_events__feed(struct pftrace_events *r, const void *data, size_t len)
{
	if (r->failed)
		return -1;
	if (input_stream_feed(&r->in, data, len)) {
		if (!r->failed)
			fail(r, "%s", r->in.error);
		return -1;
	}
	return 0;
}

int pftrace_events__finish(struct pftrace_events *r)
{
	if (r->failed)
		return -1;
	if (input_stream_finish(&r->in))
		return -1;
	r->st.gzip = r->in.gzip;
	r->st.gzip_unfinished = r->in.gzip_unfinished;
	r->st.trailing_garbage = r->in.trailing_garbage;
	if (r->len && !r->stopped) {
		size_t used = packets(r, r->buf, r->len);

		r->len -= used;
		if (r->failed)
			return -1;
	}
	flush_pending(r);
	if (!r->st.header) {
		if (r->in.mode == 0)
			return fail(r, "empty file");
		return fail(r, "not a dltrace trace (no dltrace metadata in it)");
	}
	if (r->len)
		r->st.cut_event = true;
	else if (!r->stopped)
		r->st.closed = true;
	return 0;
}

const struct trace_read_status *pftrace_events__status(const struct pftrace_events *r)
{
	return &r->st;
}
