// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The reader is a byte-level scanner of the top-level object: it follows
 * strings, escapes and nesting (never recursing), cuts out each member's
 * value and each element of traceEvents, and parses those alone with the
 * flat-object reader (lib/json_flat.h).  Memory: the longest element.
 */
#define _GNU_SOURCE
#include "format/kineto/kineto_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/input_stream.h"
#include "io/trace_status.h"
#include "lib/json_flat.h"
#include "lib/json_string.h"

#define READ_BYTES (1u << 20)

enum {
	ST_START,   /* before the opening brace */
	ST_MEMBER,  /* a member's key, or the closing brace */
	ST_KEY,	    /* in a member's key */
	ST_COLON,   /* after the key */
	ST_VALUE,   /* before the member's value */
	ST_CAPTURE, /* in a member's value (not traceEvents) */
	ST_ELEMENT, /* in traceEvents: an element, or its end */
	ST_EVENT,   /* in an element */
	ST_DONE,    /* after the closing brace */
};

struct kineto_reader {
	kineto_event_fn fn;
	void *ctx;
	struct input_stream in;
	int state;
	bool failed, seen_events;
	/* the member's key (cut: only known keys matter) */
	char key[40];
	size_t key_len;
	bool key_esc;
	/* the value being cut out, and the scanner's place in it */
	char *buf;
	size_t len, cap;
	bool overflow; /* longer than KINETO_EVENT_MAX: scanned, not kept */
	bool scalar, in_str, esc;
	uint32_t depth;
	char *scratch; /* unescaped strings of an element */
	size_t scratch_cap;
	struct kineto_event ev;
	struct kineto_header h;
	struct kineto_status st;
};

static int fail(struct kineto_reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int fail(struct kineto_reader *r, const char *fmt, ...)
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

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool is(struct ev_str s, const char *lit)
{
	size_t n = strlen(lit);

	return s.len == n && !memcmp(s.s, lit, n);
}

/* ---- numbers ---- */

bool kineto_us_to_ns(const char *s, size_t len, int64_t *ns)
{
	const char *p = s, *end = s + len;
	uint64_t whole = 0, frac = 0;
	bool neg = false;
	int digits = 0;

	if (p < end && *p == '-') {
		neg = true;
		p++;
	}
	if (p >= end || *p < '0' || *p > '9')
		return false;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (whole > (UINT64_MAX - 9) / 10)
			return false;
		whole = whole * 10 + (*p - '0');
	}
	if (p < end && *p == '.') {
		const char *f = ++p;

		/* nanoseconds: the first three digits; more are below what a trace can say */
		for (; p < end && *p >= '0' && *p <= '9'; p++)
			if (digits < 3) {
				frac = frac * 10 + (*p - '0');
				digits++;
			}
		if (p == f)
			return false;
	}
	for (; digits < 3; digits++)
		frac *= 10;
	if (p < end && (*p == 'e' || *p == 'E')) {
		char text[64];
		double v;

		if (len >= sizeof(text))
			return false;
		memcpy(text, s, len);
		text[len] = '\0';
		v = strtod(text, NULL) * 1000.0;
		if (!(v > -9.2e18 && v < 9.2e18))
			return false;
		*ns = (int64_t)(v < 0 ? v - 0.5 : v + 0.5);
		return true;
	}
	if (p != end || whole > (uint64_t)(INT64_MAX / 1000 - 1))
		return false;
	*ns = (int64_t)(whole * 1000 + frac);
	if (neg)
		*ns = -*ns;
	return true;
}

/* A decimal the trace writers keep exactly ("%.3f"): no exponent, at most 3 fraction digits. */
static bool three_decimals(const char *s, size_t len, double d)
{
	const char *dot = memchr(s, '.', len);

	if (memchr(s, 'e', len) || memchr(s, 'E', len))
		return false;
	if (dot && (size_t)(s + len - dot - 1) > 3)
		return false;
	return d > -1e15 && d < 1e15;
}

/* ---- one element of traceEvents ---- */

struct element {
	struct kineto_event *ev;
	struct ev_str args; /* the args object's text */
};

static void id_of(struct kineto_id *id, const struct json_flat_member *m)
{
	id->present = true;
	if ((m->type == JF_INT && m->i >= 0) || m->type == JF_UINT) {
		id->v = m->u;
		id->is_str = false;
	} else {
		id->s = (struct ev_str){m->text, (uint32_t)m->len};
		id->is_str = true;
	}
}

static int event_member(void *ctx, const struct json_flat_member *m)
{
	struct element *el = ctx;
	struct kineto_event *ev = el->ev;
	struct ev_str k = {m->key, (uint32_t)m->key_len};
	struct ev_str text = {m->text, (uint32_t)m->len};
	bool number = m->type == JF_INT || m->type == JF_UINT || m->type == JF_DOUBLE;

	if (is(k, "name") && m->type == JF_STRING) {
		ev->name = text;
	} else if (is(k, "cat") && m->type == JF_STRING) {
		ev->cat = text;
	} else if (is(k, "ph") && m->type == JF_STRING) {
		ev->ph = text;
	} else if (is(k, "ts") && number) {
		ev->has_ts = kineto_us_to_ns(m->text, m->len, &ev->ts_ns);
	} else if (is(k, "dur") && number) {
		ev->has_dur = kineto_us_to_ns(m->text, m->len, &ev->dur_ns);
	} else if (is(k, "pid")) {
		id_of(&ev->pid, m);
	} else if (is(k, "tid")) {
		id_of(&ev->tid, m);
	} else if (is(k, "id")) {
		if ((m->type == JF_INT && m->i >= 0) || m->type == JF_UINT) {
			ev->id = m->u;
			ev->has_id = true;
		} else if (m->type == JF_STRING && m->len > 2 && m->len <= 18 &&
			   m->text[0] == '0' && (m->text[1] == 'x' || m->text[1] == 'X')) {
			char hex[20], *end;

			memcpy(hex, m->text, m->len);
			hex[m->len] = '\0';
			ev->id = strtoull(hex, &end, 16);
			ev->has_id = !*end;
		}
	} else if (is(k, "bp") && m->type == JF_STRING) {
		ev->bp = text;
	} else if (is(k, "s") && m->type == JF_STRING) {
		ev->scope = text;
	} else if (is(k, "args") && m->type == JF_RAW && m->len && m->text[0] == '{') {
		el->args = text;
	}
	return 0;
}

static int arg_member(void *ctx, const struct json_flat_member *m)
{
	struct kineto_event *ev = ctx;
	struct ev_arg *a;

	if (ev->nargs == EV_ARGS_MAX) {
		ev->args_dropped++;
		return 0;
	}
	a = &ev->args[ev->nargs++];
	memset(a, 0, sizeof(*a));
	a->key = (struct ev_str){m->key, (uint32_t)m->key_len};
	switch (m->type) {
	case JF_INT:
		a->type = EV_ARG_I64;
		a->i = m->i;
		break;
	case JF_UINT:
		a->type = EV_ARG_U64;
		a->u = m->u;
		break;
	case JF_BOOL:
		a->type = EV_ARG_BOOL;
		a->b = m->b;
		break;
	case JF_DOUBLE:
		if (three_decimals(m->text, m->len, m->d)) {
			a->type = EV_ARG_DOUBLE;
			a->d = m->d;
			break;
		}
		a->type = EV_ARG_STR; /* other numbers keep their text */
		a->s = (struct ev_str){m->text, (uint32_t)m->len};
		break;
	default: /* strings; and arrays, objects, null as their JSON text */
		a->type = EV_ARG_STR;
		a->s = (struct ev_str){m->text, (uint32_t)m->len};
		break;
	}
	return 0;
}

static void element_done(struct kineto_reader *r)
{
	struct kineto_event *ev = &r->ev;
	struct element el = {ev, {NULL, 0}};
	const char *text = r->buf;
	size_t len = r->len, need = 2 * len + 16;

	memset(ev, 0, offsetof(struct kineto_event, args));
	ev->nargs = 0;
	/* strings never NULL: an event may lack any of them */
	ev->name = ev->cat = ev->ph = ev->bp = ev->scope = (struct ev_str){"", 0};
	ev->raw = (struct ev_str){text, (uint32_t)len};
	r->st.elements++;
	if (r->overflow) {
		ev->raw.len = 0;
		ev->malformed = "an event longer than 16 MiB";
	} else if (!len || text[0] != '{') {
		ev->malformed = "an element of traceEvents that is not an object";
	} else {
		if (need > r->scratch_cap) {
			char *s = realloc(r->scratch, need);

			if (!s) {
				fail(r, "out of memory");
				return;
			}
			r->scratch = s;
			r->scratch_cap = need;
		}
		if (json_flat_parse(text, len, r->scratch, event_member, &el) < 0) {
			ev->malformed = "an event that is not a JSON object";
		} else if (el.args.len && json_flat_parse(el.args.s, el.args.len, r->scratch + len,
							  arg_member, ev) < 0) {
			ev->malformed = "an event whose args are not a JSON object";
		} else if (!ev->ph.len) {
			ev->malformed = "an event without a phase (ph)";
		}
	}
	if (ev->malformed) {
		if (!r->st.malformed++) {
			r->st.first_malformed_why = ev->malformed;
			r->st.first_malformed = r->st.elements - 1;
		}
	}
	if (r->fn)
		r->fn(r->ctx, ev);
}

/* ---- the trace's other members ---- */

static bool key_is(const struct kineto_reader *r, const char *lit)
{
	return !r->key_esc && r->key_len == strlen(lit) && !memcmp(r->key, lit, r->key_len);
}

static bool integer_text(const char *s, size_t len, int64_t *v)
{
	char text[32], *end;

	if (!len || len >= sizeof(text))
		return false;
	memcpy(text, s, len);
	text[len] = '\0';
	errno = 0;
	*v = strtoll(text, &end, 10);
	return !errno && !*end && end != text;
}

static int dist_member(void *ctx, const struct json_flat_member *m)
{
	struct kineto_header *h = ctx;

	if (m->key_len == 4 && !memcmp(m->key, "rank", 4) && m->type == JF_INT) {
		h->rank = m->i;
		h->has_rank = true;
	} else if (m->key_len == 10 && !memcmp(m->key, "world_size", 10) && m->type == JF_INT) {
		h->world_size = m->i;
	}
	return 0;
}

/* Objects at the array's top level (deviceProperties: one per device). */
static uint32_t count_objects(const char *s, size_t len)
{
	uint32_t n = 0, depth = 0;
	bool str = false, esc = false;

	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (str) {
			if (esc)
				esc = false;
			else if (c == '\\')
				esc = true;
			else if (c == '"')
				str = false;
		} else if (c == '"') {
			str = true;
		} else if (c == '{' || c == '[') {
			if (++depth == 2 && c == '{')
				n++;
		} else if ((c == '}' || c == ']') && depth) {
			depth--;
		}
	}
	return n;
}

static void member_done(struct kineto_reader *r)
{
	const char *s = r->buf;
	size_t len = r->len;
	int64_t v;

	if (r->overflow)
		return;
	if (key_is(r, "baseTimeNanoseconds")) {
		if (integer_text(s, len, &v)) {
			r->h.base_ns = v;
			r->h.has_base = true;
		}
	} else if (key_is(r, "schemaVersion")) {
		if (integer_text(s, len, &v))
			r->h.schema_version = v;
	} else if (key_is(r, "distributedInfo")) {
		char *buf = malloc(len + 1);

		if (buf) {
			json_flat_parse(s, len, buf, dist_member, &r->h);
			free(buf);
		}
	} else if (key_is(r, "deviceProperties")) {
		r->h.devices = count_objects(s, len);
	} else if (key_is(r, "traceName") && len >= 2 && s[0] == '"') {
		const char *p = s + 1;
		char *buf = malloc(len), *o = buf;

		if (buf && json_unescape(&p, s + len, &o) == JSON_UNESCAPE_OK) {
			size_t n = o - buf < (ptrdiff_t)sizeof(r->h.trace_name) - 1
				       ? (size_t)(o - buf)
				       : sizeof(r->h.trace_name) - 1;

			memcpy(r->h.trace_name, buf, n);
			r->h.trace_name[n] = '\0';
		}
		free(buf);
	}
}

/* ---- the scanner ---- */

static void capture_begin(struct kineto_reader *r, char first)
{
	r->len = 0;
	r->overflow = false;
	r->in_str = r->esc = false;
	r->depth = 0;
	r->scalar = first != '"' && first != '{' && first != '[';
}

static int append(struct kineto_reader *r, const char *p, size_t n)
{
	if (r->overflow || !n)
		return 0;
	if (r->len + n > KINETO_EVENT_MAX) {
		r->overflow = true;
		return 0;
	}
	if (r->len + n > r->cap) {
		size_t cap = r->cap ? r->cap : 65536;
		char *b;

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
	return 0;
}

/* The bytes of p[0..n) that belong to the value being cut out; *done when it ends there. */
static size_t scan(struct kineto_reader *r, const char *p, size_t n, bool *done)
{
	size_t i = 0;

	*done = false;
	if (r->scalar) {
		/* at least one byte: a value that starts with a delimiter is that byte */
		for (; i < n; i++)
			if ((i || r->len) &&
			    (p[i] == ',' || p[i] == '}' || p[i] == ']' || blank(p[i]))) {
				*done = true;
				return i;
			}
		return n;
	}
	for (; i < n; i++) {
		char c = p[i];

		if (r->in_str) {
			if (r->esc) {
				r->esc = false;
			} else if (c == '\\') {
				r->esc = true;
			} else if (c == '"') {
				r->in_str = false;
				if (!r->depth) {
					*done = true;
					return i + 1;
				}
			}
			continue;
		}
		if (c == '"') {
			r->in_str = true;
		} else if (c == '{' || c == '[') {
			r->depth++;
		} else if (c == '}' || c == ']') {
			if (r->depth)
				r->depth--;
			if (!r->depth) {
				*done = true;
				return i + 1;
			}
		}
	}
	return n;
}

static int text(void *ctx, const char *p, size_t n)
{
	struct kineto_reader *r = ctx;
	const char *end = p + n;
	size_t used;
	bool done;

	r->st.gzip = r->in.gzip;
	r->st.bytes += n;
	while (p < end && !r->failed) {
		if (r->state != ST_KEY && r->state != ST_CAPTURE && r->state != ST_EVENT &&
		    blank(*p)) {
			p++;
			continue;
		}
		switch (r->state) {
		case ST_START:
			if (*p == '[')
				return fail(r,
					    "not a PyTorch profiler trace: a JSON array (a dltrace "
					    "or Chrome trace is given as a trace, not as a "
					    "profiler trace)");
			if (*p != '{')
				return fail(r, "not a PyTorch profiler (Kineto) trace: it does not "
					       "start with '{'");
			r->state = ST_MEMBER;
			p++;
			break;
		case ST_MEMBER:
			if (*p == ',') {
				p++;
			} else if (*p == '}') {
				r->state = ST_DONE;
				p++;
			} else if (*p == '"') {
				r->key_len = 0;
				r->key_esc = false;
				r->esc = false;
				r->state = ST_KEY;
				p++;
			} else {
				return fail(r, "not a PyTorch profiler trace: its object holds "
					       "something other than members");
			}
			break;
		case ST_KEY:
			for (; p < end; p++) {
				if (r->esc) {
					r->esc = false;
				} else if (*p == '\\') {
					r->esc = r->key_esc = true;
				} else if (*p == '"') {
					r->state = ST_COLON;
					p++;
					break;
				}
				if (r->key_len < sizeof(r->key))
					r->key[r->key_len] = *p;
				r->key_len++;
			}
			break;
		case ST_COLON:
			if (*p != ':')
				return fail(
				    r, "not a PyTorch profiler trace: a member without a value");
			r->state = ST_VALUE;
			p++;
			break;
		case ST_VALUE:
			if (key_is(r, "traceEvents")) {
				if (*p != '[')
					return fail(r,
						    "not a PyTorch profiler trace: its traceEvents "
						    "is not an array");
				r->seen_events = true;
				r->state = ST_ELEMENT;
				p++;
				break;
			}
			capture_begin(r, *p);
			r->state = ST_CAPTURE;
			break;
		case ST_CAPTURE:
		case ST_EVENT:
			used = scan(r, p, end - p, &done);
			if (append(r, p, used))
				return -1;
			p += used;
			if (!done)
				break;
			if (r->state == ST_CAPTURE) {
				member_done(r);
				r->state = ST_MEMBER;
			} else {
				element_done(r);
				r->state = ST_ELEMENT;
			}
			break;
		case ST_ELEMENT:
			if (*p == ',') {
				p++;
			} else if (*p == ']') {
				r->state = ST_MEMBER;
				p++;
			} else {
				capture_begin(r, *p);
				r->state = ST_EVENT;
			}
			break;
		default: /* ST_DONE */
			r->st.trailing_garbage = true;
			return 0;
		}
	}
	return r->failed ? -1 : 0;
}

struct kineto_reader *kineto_reader__new(kineto_event_fn fn, void *ctx)
{
	struct kineto_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->fn = fn;
	r->ctx = ctx;
	r->h.schema_version = -1;
	r->h.world_size = -1;
	input_stream_init(&r->in, text, r);
	return r;
}

void kineto_reader__free(struct kineto_reader *r)
{
	if (!r)
		return;
	input_stream_free(&r->in);
	free(r->buf);
	free(r->scratch);
	free(r);
}

int kineto_reader__feed(struct kineto_reader *r, const void *data, size_t len)
{
	if (r->failed)
		return -1;
	if (input_stream_feed(&r->in, data, len)) {
		if (!r->failed) /* the gzip data */
			fail(r, "%s", r->in.error);
		return -1;
	}
	return 0;
}

int kineto_reader__finish(struct kineto_reader *r)
{
	if (r->failed)
		return -1;
	if (input_stream_finish(&r->in))
		return -1;
	if (r->state == ST_CAPTURE && r->scalar) {
		/* a number at the very end, with nothing after it */
		member_done(r);
		r->state = ST_MEMBER;
	}
	if (r->in.mode == 0 || r->state == ST_START)
		return fail(r, r->in.gzip && r->in.gzip_unfinished
				   ? "truncated gzip file: no data could be read"
				   : "empty file (no PyTorch profiler trace in it)");
	if (r->state != ST_DONE) {
		const char *where = r->state == ST_ELEMENT || r->state == ST_EVENT
					? "inside traceEvents"
					: "before its closing '}'";

		return fail(r,
			    "truncated PyTorch profiler trace: %sit ends %s, after %llu events%s",
			    r->in.gzip_unfinished ? "the gzip stream ends early; " : "", where,
			    (unsigned long long)r->st.elements,
			    r->h.has_base ? "" : " and before baseTimeNanoseconds");
	}
	if (!r->seen_events)
		return fail(r, "not a PyTorch profiler trace: a JSON object without traceEvents");
	if (!r->h.has_base)
		return fail(r, "no baseTimeNanoseconds: the profiler trace does not say the wall "
			       "clock its times count from, so they cannot be placed");
	r->st.trailing_garbage |= r->in.trailing_garbage;
	return 0;
}

const struct kineto_header *kineto_reader__header(const struct kineto_reader *r)
{
	return &r->h;
}

const struct kineto_status *kineto_reader__status(const struct kineto_reader *r)
{
	return &r->st;
}

int kineto_file_read(const char *path, kineto_event_fn fn, void *ctx, struct kineto_header *h,
		     struct kineto_status *st)
{
	struct kineto_reader *r;
	char *buf;
	int fd, rc = 0;

	memset(st, 0, sizeof(*st));
	memset(h, 0, sizeof(*h));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(st->error, sizeof(st->error), "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	buf = malloc(READ_BYTES);
	r = kineto_reader__new(fn, ctx);
	if (!buf || !r) {
		snprintf(st->error, sizeof(st->error), "out of memory");
		free(buf);
		kineto_reader__free(r);
		close(fd);
		return -1;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	for (;;) {
		ssize_t n = read(fd, buf, READ_BYTES);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fail(r, "cannot read %s: %s", path, strerror(errno));
			rc = -1;
			break;
		}
		if (n == 0) {
			rc = kineto_reader__finish(r);
			break;
		}
		if (kineto_reader__feed(r, buf, n)) {
			rc = -1;
			break;
		}
	}
	*st = r->st;
	*h = r->h;
	kineto_reader__free(r);
	free(buf);
	close(fd);
	return rc;
}

bool kineto_file_is(const char *path)
{
	char raw[4096], plain[64];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	size_t k;

	if (fd < 0)
		return false;
	do
		n = read(fd, raw, sizeof(raw));
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n <= 0)
		return false;
	k = input_stream_peek(raw, n, plain, sizeof(plain));
	for (size_t i = 0; i < k; i++)
		if (!blank(plain[i]))
			return plain[i] == '{';
	return false;
}
