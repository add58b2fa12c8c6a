// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "format/chrome/trace_line_parser.h"
#include "lib/json_string.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 32 /* nesting accepted inside an event (dltrace writes 2) */

struct cursor {
	const char *p, *end;
	char *scratch; /* next free byte for unescaped strings */
	const char *why;
};

static int fail(struct cursor *c, const char *why)
{
	if (!c->why)
		c->why = why;
	return -1;
}

static void skip_ws(struct cursor *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r' || *c->p == '\n'))
		c->p++;
}

static int expect(struct cursor *c, char ch)
{
	skip_ws(c);
	if (c->p >= c->end || *c->p != ch)
		return fail(c, ch == ':' ? "expected ':'" : "unexpected character");
	c->p++;
	return 0;
}

static int hex_value(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/*
 * A string at c->p (the opening quote).  Without escapes the result points
 * into the text; with escapes it is unescaped into scratch (never longer
 * than the quoted text; see trace_parse_event for the scratch size).
 */
static int parse_string(struct cursor *c, struct trace_str *out)
{
	enum json_unescape_status st;
	const char *start, *q;
	char *o;

	skip_ws(c);
	if (c->p >= c->end || *c->p != '"')
		return fail(c, "expected a string");
	start = ++c->p;
	for (q = start; q < c->end && *q != '"' && *q != '\\'; q++) {
		if ((unsigned char)*q < 0x20)
			return fail(c, "control character in a string");
	}
	if (q >= c->end)
		return fail(c, "unterminated string");
	if (*q == '"') {
		out->s = start;
		out->len = q - start;
		c->p = q + 1;
		return 0;
	}
	/* escapes: unescape into scratch */
	o = c->scratch;
	memcpy(o, start, q - start);
	o += q - start;
	c->p = q;
	st = json_unescape(&c->p, c->end, &o);
	if (st != JSON_UNESCAPE_OK)
		return fail(c, json_unescape_error(st));
	c->p++; /* closing quote */
	out->s = c->scratch;
	out->len = o - c->scratch;
	c->scratch = o;
	return 0;
}

/* A JSON number: its integer part (clamped) and, in ns, its value as microseconds. */
struct number {
	int64_t i;	/* integer part, clamped to int64 */
	uint64_t u;	/* magnitude of the integer part, clamped */
	bool neg;	/* negative */
	bool integer;	/* no fraction or exponent */
	uint64_t us_ns; /* value * 1000 for non-negative microsecond values, truncated */
};

static int parse_number(struct cursor *c, struct number *n)
{
	const char *p, *digits;
	uint64_t mag = 0, frac_ns = 0;
	bool overflow = false;
	int frac_digits = 0;

	skip_ws(c);
	p = c->p;
	memset(n, 0, sizeof(*n));
	if (p < c->end && *p == '-') {
		n->neg = true;
		p++;
	}
	digits = p;
	while (p < c->end && *p >= '0' && *p <= '9') {
		unsigned d = *p - '0';

		if (mag > (UINT64_MAX - d) / 10)
			overflow = true;
		else
			mag = mag * 10 + d;
		p++;
	}
	if (p == digits)
		return fail(c, "expected a value");
	if (overflow)
		mag = UINT64_MAX;
	n->integer = true;
	if (p < c->end && *p == '.') {
		const char *f = ++p;

		n->integer = false;
		while (p < c->end && *p >= '0' && *p <= '9') {
			if (frac_digits < 3) {
				frac_ns = frac_ns * 10 + (*p - '0');
				frac_digits++;
			}
			p++;
		}
		if (p == f)
			return fail(c, "bad number");
		while (frac_digits < 3) {
			frac_ns *= 10;
			frac_digits++;
		}
	}
	if (p < c->end && (*p == 'e' || *p == 'E')) {
		char buf[64];
		size_t len;
		double v;
		n->integer = false;
		p++;
		if (p < c->end && (*p == '+' || *p == '-'))
			p++;
		if (p >= c->end || *p < '0' || *p > '9')
			return fail(c, "bad number");
		while (p < c->end && *p >= '0' && *p <= '9')
			p++;
		len = p - c->p;
		if (len >= sizeof(buf))
			return fail(c, "number too long");
		memcpy(buf, c->p, len);
		buf[len] = 0;
		v = strtod(buf, NULL);
		if (!(v == v))
			v = 0;
		if (v < 0)
			v = -v;
		mag = v >= 1.8e19 ? UINT64_MAX : (uint64_t)v;
		frac_ns = v >= 1.8e16 ? 0 : (uint64_t)((v - (double)mag) * 1000.0);
	}
	c->p = p;
	n->u = mag;
	if (n->neg)
		n->i = mag > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)mag;
	else
		n->i = mag > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)mag;
	if (!n->neg)
		n->us_ns = mag > UINT64_MAX / 1000 ? UINT64_MAX : mag * 1000 + frac_ns;
	return 0;
}

static int skip_value(struct cursor *c, int depth);

static int skip_container(struct cursor *c, char close, int depth)
{
	struct trace_str s;

	if (depth >= MAX_DEPTH)
		return fail(c, "nested too deeply");
	c->p++; /* the opening bracket */
	skip_ws(c);
	if (c->p < c->end && *c->p == close) {
		c->p++;
		return 0;
	}
	for (;;) {
		if (close == '}') {
			char *save = c->scratch;

			if (parse_string(c, &s) || expect(c, ':'))
				return -1;
			c->scratch = save;
		}
		if (skip_value(c, depth + 1))
			return -1;
		skip_ws(c);
		if (c->p < c->end && *c->p == ',') {
			c->p++;
			continue;
		}
		if (c->p < c->end && *c->p == close) {
			c->p++;
			return 0;
		}
		return fail(c, "expected ',' or a closing bracket");
	}
}

static int skip_literal(struct cursor *c, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, lit, n))
		return fail(c, "expected a value");
	c->p += n;
	return 0;
}

static int skip_value(struct cursor *c, int depth)
{
	struct trace_str s;
	struct number num;
	char *save;

	skip_ws(c);
	if (c->p >= c->end)
		return fail(c, "expected a value");
	switch (*c->p) {
	case '"':
		save = c->scratch;
		if (parse_string(c, &s))
			return -1;
		c->scratch = save;
		return 0;
	case '{':
		return skip_container(c, '}', depth);
	case '[':
		return skip_container(c, ']', depth);
	case 't':
		return skip_literal(c, "true");
	case 'f':
		return skip_literal(c, "false");
	case 'n':
		return skip_literal(c, "null");
	default:
		return parse_number(c, &num);
	}
}

static bool key_is(const struct trace_str *k, const char *lit, size_t n)
{
	return k->len == n && !memcmp(k->s, lit, n);
}
#define KEY(k, lit) key_is((k), (lit), sizeof(lit) - 1)

/* Typed numeric member: parse and store when it is a number, else skip. */
static int num_value(struct cursor *c, struct number *n, bool *is_num)
{
	skip_ws(c);
	*is_num = c->p < c->end && (*c->p == '-' || (*c->p >= '0' && *c->p <= '9'));
	if (!*is_num)
		return skip_value(c, 1);
	return parse_number(c, n);
}

static int str_value(struct cursor *c, struct trace_str *out)
{
	skip_ws(c);
	if (c->p < c->end && *c->p == '"')
		return parse_string(c, out);
	return skip_value(c, 1);
}

/* ---- args ---- */

static const double pow10_exact[] = {1e0,  1e1,	 1e2,  1e3,  1e4,  1e5,	 1e6,  1e7,
				     1e8,  1e9,	 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
				     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/*
 * A number as an arg: an integer is I64 (U64 above INT64_MAX, clamped),
 * anything else a double.  Doubles of at most 15 digits and no exponent
 * (all dltrace writes) are one exact division, so correctly rounded, as
 * strtod would give them; the others go through strtod.  1: a number too
 * long to convert (left out).
 */
static int number_arg(struct cursor *c, struct ev_arg *a)
{
	const char *p = c->p, *digits;
	uint64_t mant = 0;
	unsigned frac = 0;
	bool neg = false, integer = true, exact = true;

	if (p < c->end && *p == '-') {
		neg = true;
		p++;
	}
	for (digits = p; p < c->end && *p >= '0' && *p <= '9'; p++) {
		unsigned d = *p - '0';

		if (mant > (UINT64_MAX - d) / 10) {
			mant = UINT64_MAX;
			exact = false;
		} else {
			mant = mant * 10 + d;
		}
	}
	if (p == digits)
		return fail(c, "expected a value");
	if (p < c->end && *p == '.') {
		const char *f = ++p;

		integer = false;
		for (; p < c->end && *p >= '0' && *p <= '9'; p++) {
			if (exact && mant < 100000000000000ull) { /* 10^14: 15 digits at most */
				mant = mant * 10 + (*p - '0');
				frac++;
			} else {
				exact = false;
			}
		}
		if (p == f)
			return fail(c, "bad number");
	}
	if (p < c->end && (*p == 'e' || *p == 'E')) {
		integer = exact = false;
		p++;
		if (p < c->end && (*p == '+' || *p == '-'))
			p++;
		if (p >= c->end || *p < '0' || *p > '9')
			return fail(c, "bad number");
		while (p < c->end && *p >= '0' && *p <= '9')
			p++;
	}
	if (integer) {
		if (!neg && mant > (uint64_t)INT64_MAX) {
			a->type = EV_ARG_U64;
			a->u = mant;
		} else {
			a->type = EV_ARG_I64;
			a->i = !neg			    ? (int64_t)mant
			       : mant > (uint64_t)INT64_MAX ? INT64_MIN
							    : -(int64_t)mant;
		}
	} else if (exact && mant < (1ull << 53)) {
		a->type = EV_ARG_DOUBLE;
		a->d = (double)mant / pow10_exact[frac];
		if (neg)
			a->d = -a->d;
	} else {
		char buf[64];
		size_t len = p - c->p;

		c->p = p;
		if (len >= sizeof(buf))
			return 1;
		memcpy(buf, c->p - len, len);
		buf[len] = '\0';
		a->type = EV_ARG_DOUBLE;
		a->d = strtod(buf, NULL);
		return 0;
	}
	c->p = p;
	return 0;
}

/* Lower- or upper-case hex into scratch; false (nothing written) when it is not hex. */
static bool decode_hex(struct cursor *c, const struct trace_str *hex, struct trace_str *out)
{
	char *o = c->scratch;

	if (hex->len % 2)
		return false;
	for (uint32_t i = 0; i < hex->len; i += 2) {
		int hi = hex_value(hex->s[i]), lo = hex_value(hex->s[i + 1]);

		if (hi < 0 || lo < 0)
			return false;
		*o++ = hi << 4 | lo;
	}
	out->s = c->scratch;
	out->len = o - c->scratch;
	c->scratch = o;
	return true;
}

/*
 * "K_hex": the exact bytes of the string arg "K" before it (a file name
 * that is not UTF-8).  True when it made "K" an EV_ARG_PATH.
 */
static bool hex_of_path(struct cursor *c, struct trace_event *ev, const struct trace_str *k,
			const struct trace_str *hex)
{
	uint32_t n = k->len - 4;
	struct trace_str bytes;

	for (uint32_t i = 0; i < ev->nargs; i++) {
		struct ev_arg *a = &ev->args[i];

		if (a->type != EV_ARG_STR || a->key.len != n || memcmp(a->key.s, k->s, n))
			continue;
		if (!decode_hex(c, hex, &bytes))
			return false;
		ev->paths[i] = (struct ev_path){{bytes.s, bytes.len}, NULL};
		a->type = EV_ARG_PATH;
		a->path = &ev->paths[i];
		return true;
	}
	return false;
}

/* "lost_by_kind":{"pread64":12,...} into ev->lost */
static int parse_lost(struct cursor *c, struct trace_event *ev)
{
	struct trace_str k;
	struct number n;
	bool isnum;

	memset(&ev->lost, 0, sizeof(ev->lost));
	c->p++; /* '{' */
	skip_ws(c);
	if (c->p < c->end && *c->p == '}') {
		c->p++;
		return 0;
	}
	for (;;) {
		char *save = c->scratch;

		if (parse_string(c, &k) || expect(c, ':') || num_value(c, &n, &isnum))
			return -1;
		if (isnum && n.integer && !n.neg)
			lost_counts_add_named(&ev->lost, k.s, k.len, n.u);
		c->scratch = save;
		skip_ws(c);
		if (c->p < c->end && *c->p == ',') {
			c->p++;
			continue;
		}
		if (c->p < c->end && *c->p == '}') {
			c->p++;
			return 0;
		}
		return fail(c, "expected ',' or '}'");
	}
}

/* One member of "args" (k: its key), as a typed arg. */
static int parse_arg(struct cursor *c, const struct trace_str *k, struct trace_event *ev)
{
	struct ev_arg *a = &ev->args[ev->nargs];
	struct trace_str s;

	skip_ws(c);
	if (c->p >= c->end)
		return fail(c, "expected a value");
	if (ev->nargs == EV_ARGS_MAX)
		return skip_value(c, 1);
	switch (*c->p) {
	case '"':
		if (parse_string(c, &s))
			return -1;
		if (k->len > 4 && !memcmp(k->s + k->len - 4, "_hex", 4) &&
		    hex_of_path(c, ev, k, &s))
			return 0;
		a->type = EV_ARG_STR;
		a->s = (struct ev_str){s.s, s.len};
		break;
	case 't':
	case 'f':
		a->type = EV_ARG_BOOL;
		a->b = *c->p == 't';
		if (skip_literal(c, a->b ? "true" : "false"))
			return -1;
		break;
	case '{':
		if (!KEY(k, "lost_by_kind"))
			return skip_value(c, 1);
		if (parse_lost(c, ev))
			return -1;
		a->type = EV_ARG_LOST_KINDS;
		a->lost = &ev->lost;
		break;
	case '[':
	case 'n':
		return skip_value(c, 1);
	default:
		switch (number_arg(c, a)) {
		case 0:
			break;
		case 1:
			return 0;
		default:
			return -1;
		}
		break;
	}
	a->key = (struct ev_str){k->s, k->len};
	ev->nargs++;
	return 0;
}

/* "id2":{"local":"0x.."} (async events) */
static int parse_id2(struct cursor *c, struct trace_event *ev)
{
	struct trace_str k, v;

	skip_ws(c);
	if (c->p >= c->end || *c->p != '{')
		return skip_value(c, 1);
	c->p++;
	for (;;) {
		skip_ws(c);
		if (c->p < c->end && *c->p == '}') {
			c->p++;
			return 0;
		}
		if (parse_string(c, &k) || expect(c, ':'))
			return -1;
		if (KEY(&k, "local")) {
			v.len = 0;
			if (str_value(c, &v))
				return -1;
			if (v.len > 2 && v.s[0] == '0' && v.s[1] == 'x') {
				uint64_t id = 0;
				uint32_t i;

				for (i = 2; i < v.len && i < 18 && hex_value(v.s[i]) >= 0; i++)
					id = id << 4 | hex_value(v.s[i]);
				if (i == v.len) {
					ev->id2 = id;
					ev->has |= TE_ID2;
				}
			}
		} else if (skip_value(c, 1)) {
			return -1;
		}
		skip_ws(c);
		if (c->p < c->end && *c->p == ',')
			c->p++;
		else if (c->p >= c->end || *c->p != '}')
			return fail(c, "expected ',' or '}'");
	}
}

static int parse_args(struct cursor *c, struct trace_event *ev)
{
	struct trace_str k;

	skip_ws(c);
	if (c->p >= c->end || *c->p != '{')
		return skip_value(c, 1);
	c->p++;
	skip_ws(c);
	if (c->p < c->end && *c->p == '}') {
		c->p++;
		return 0;
	}
	for (;;) {
		if (parse_string(c, &k) || expect(c, ':') || parse_arg(c, &k, ev))
			return -1;
		skip_ws(c);
		if (c->p < c->end && *c->p == ',') {
			c->p++;
			skip_ws(c);
			continue;
		}
		if (c->p < c->end && *c->p == '}') {
			c->p++;
			return 0;
		}
		return fail(c, "expected ',' or '}'");
	}
}

/* What merge and the reader need to know of an event: its metadata kind. */
static enum trace_event_type classify(const struct trace_str *nm, char ph)
{
	if (ph != 'M')
		return TEV_OTHER;
	if (KEY(nm, "dltrace"))
		return TEV_HEADER;
	if (KEY(nm, "dltrace_summary"))
		return TEV_SUMMARY;
	if (KEY(nm, "process_name"))
		return TEV_PROCESS_NAME;
	return TEV_OTHER;
}

int trace_parse_event(const char *text, size_t len, char *scratch, struct trace_event *ev,
		      const char **why)
{
	return trace_parse_first_event(text, len, scratch, ev, why, NULL);
}

int trace_parse_first_event(const char *text, size_t len, char *scratch, struct trace_event *ev,
			    const char **why, size_t *used)
{
	struct cursor c = {text, text + len, scratch, NULL};
	struct trace_str k, name = {"", 0}, cat = {"", 0}, ph = {"", 0};
	struct number n;
	bool isnum, have_name = false;

	/* the head only: args, paths and lost are written as they are found */
	memset(ev, 0, offsetof(struct trace_event, args));
	ev->nargs = 0;
	if (expect(&c, '{'))
		goto bad;
	skip_ws(&c);
	if (c.p < c.end && *c.p == '}') {
		c.p++;
		goto done;
	}
	for (;;) {
		if (parse_string(&c, &k) || expect(&c, ':'))
			goto bad;
		if (KEY(&k, "name")) {
			if (str_value(&c, &name))
				goto bad;
			have_name = true;
		} else if (KEY(&k, "cat")) {
			if (str_value(&c, &cat))
				goto bad;
		} else if (KEY(&k, "ph")) {
			if (str_value(&c, &ph))
				goto bad;
		} else if (KEY(&k, "ts") || KEY(&k, "dur")) {
			bool ts = k.len == 2;

			if (num_value(&c, &n, &isnum))
				goto bad;
			if (isnum && !n.neg) {
				if (ts)
					ev->ts_ns = n.us_ns;
				else
					ev->dur_ns = n.us_ns;
				ev->has |= ts ? TE_TS : TE_DUR;
			}
		} else if (KEY(&k, "pid") || KEY(&k, "tid")) {
			bool pid = k.s[0] == 'p';

			if (num_value(&c, &n, &isnum))
				goto bad;
			if (isnum && n.integer && !n.neg && n.u <= UINT32_MAX) {
				if (pid)
					ev->pid = n.u;
				else
					ev->tid = n.u;
				ev->has |= pid ? TE_PID : TE_TID;
			}
		} else if (KEY(&k, "args")) {
			if (parse_args(&c, ev))
				goto bad;
		} else if (KEY(&k, "bind_id")) {
			if (num_value(&c, &n, &isnum))
				goto bad;
			if (isnum && !n.neg) {
				ev->bind_id = n.u;
				ev->has |= TE_BIND_ID;
			}
		} else if (KEY(&k, "id2")) {
			if (parse_id2(&c, ev))
				goto bad;
		} else if (KEY(&k, "id")) {
			if (num_value(&c, &n, &isnum))
				goto bad;
			if (isnum && n.integer && !n.neg) {
				ev->id = n.u;
				ev->has |= TE_ID;
			}
		} else if (skip_value(&c, 1)) {
			goto bad;
		}
		skip_ws(&c);
		if (c.p < c.end && *c.p == ',') {
			c.p++;
			continue;
		}
		if (c.p < c.end && *c.p == '}') {
			c.p++;
			break;
		}
		fail(&c, "expected ',' or '}'");
		goto bad;
	}
done:
	skip_ws(&c);
	if (used) {
		*used = c.p - text;
	} else if (c.p != c.end) {
		fail(&c, "text after the event");
		goto bad;
	}
	if (!have_name) {
		fail(&c, "event without a name");
		goto bad;
	}
	ev->category = cat;
	ev->ph = ph.len == 1 ? ph.s[0] : 0;
	ev->type = classify(&name, ev->ph);
	ev->event_name = name;
	return 0;
bad:
	if (why)
		*why = c.why ? c.why : "malformed event";
	return -1;
}

int trace_object_members(const char *text, size_t len, char *scratch,
			 int (*fn)(void *ctx, const struct json_member *m), void *ctx)
{
	struct cursor c = {text, text + len, scratch, NULL};
	struct json_member m;

	if (expect(&c, '{'))
		return -1;
	skip_ws(&c);
	if (c.p < c.end && *c.p == '}')
		return 0;
	for (;;) {
		c.scratch = scratch;
		if (parse_string(&c, &m.key) || expect(&c, ':'))
			return -1;
		skip_ws(&c);
		m.value = c.p;
		if (skip_value(&c, 1))
			return -1;
		m.value_len = c.p - m.value;
		if (fn(ctx, &m))
			return -1;
		skip_ws(&c);
		if (c.p < c.end && *c.p == ',') {
			c.p++;
			continue;
		}
		if (c.p < c.end && *c.p == '}')
			return 0;
		return -1;
	}
}

const struct ev_arg *trace_event_arg(const struct trace_event *ev, const char *key)
{
	size_t n = strlen(key);

	for (uint32_t i = 0; i < ev->nargs; i++)
		if (ev->args[i].key.len == n && !memcmp(ev->args[i].key.s, key, n))
			return &ev->args[i];
	return NULL;
}
