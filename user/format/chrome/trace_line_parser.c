// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "format/chrome/trace_line_parser.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/dltrace_events.h"
#include "event/syscall_table.h"

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

static int read_hex4(struct cursor *c, uint32_t *out)
{
	uint32_t v = 0;

	if (c->end - c->p < 4)
		return fail(c, "bad \\u escape");
	for (int i = 0; i < 4; i++) {
		int h = hex_value(c->p[i]);

		if (h < 0)
			return fail(c, "bad \\u escape");
		v = v << 4 | h;
	}
	c->p += 4;
	*out = v;
	return 0;
}

static char *put_utf8(char *o, uint32_t cp)
{
	if (cp < 0x80) {
		*o++ = cp;
	} else if (cp < 0x800) {
		*o++ = 0xc0 | cp >> 6;
		*o++ = 0x80 | (cp & 0x3f);
	} else if (cp < 0x10000) {
		*o++ = 0xe0 | cp >> 12;
		*o++ = 0x80 | (cp >> 6 & 0x3f);
		*o++ = 0x80 | (cp & 0x3f);
	} else {
		*o++ = 0xf0 | cp >> 18;
		*o++ = 0x80 | (cp >> 12 & 0x3f);
		*o++ = 0x80 | (cp >> 6 & 0x3f);
		*o++ = 0x80 | (cp & 0x3f);
	}
	return o;
}

/*
 * A string at c->p (the opening quote).  Without escapes the result points
 * into the text; with escapes it is unescaped into scratch (never longer
 * than the quoted text; see trace_parse_event for the scratch size).
 */
static int parse_string(struct cursor *c, struct trace_str *out)
{
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
	while (c->p < c->end && *c->p != '"') {
		char ch = *c->p++;
		uint32_t cp, lo;

		if ((unsigned char)ch < 0x20)
			return fail(c, "control character in a string");
		if (ch != '\\') {
			*o++ = ch;
			continue;
		}
		if (c->p >= c->end)
			break;
		ch = *c->p++;
		switch (ch) {
		case '"':
		case '\\':
		case '/':
			*o++ = ch;
			break;
		case 'b':
			*o++ = '\b';
			break;
		case 'f':
			*o++ = '\f';
			break;
		case 'n':
			*o++ = '\n';
			break;
		case 'r':
			*o++ = '\r';
			break;
		case 't':
			*o++ = '\t';
			break;
		case 'u':
			if (read_hex4(c, &cp))
				return -1;
			if (cp >= 0xd800 && cp < 0xdc00 && c->end - c->p >= 6 && c->p[0] == '\\' &&
			    c->p[1] == 'u') {
				const char *save = c->p;

				c->p += 2;
				if (read_hex4(c, &lo))
					return -1;
				if (lo >= 0xdc00 && lo < 0xe000)
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				else
					c->p = save;
			}
			if (cp >= 0xd800 && cp < 0xe000)
				cp = 0xfffd; /* lone surrogate */
			/* "\uXXXX" is 6 bytes, its UTF-8 at most 3 (4 for a 12-byte pair) */
			o = put_utf8(o, cp);
			break;
		default:
			return fail(c, "bad escape");
		}
	}
	if (c->p >= c->end)
		return fail(c, "unterminated string");
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

static int parse_bool(struct cursor *c, bool *out)
{
	skip_ws(c);
	if (c->p < c->end && *c->p == 't') {
		*out = true;
		return skip_literal(c, "true");
	}
	*out = false;
	return skip_value(c, MAX_DEPTH - 1);
}

/* Decode lower/upper-case hex into scratch; invalid hex leaves *out unchanged. */
static void decode_hex(struct cursor *c, const struct trace_str *hex, struct trace_str *out)
{
	char *o = c->scratch;

	if (hex->len % 2)
		return;
	for (uint32_t i = 0; i < hex->len; i += 2) {
		int hi = hex_value(hex->s[i]), lo = hex_value(hex->s[i + 1]);

		if (hi < 0 || lo < 0)
			return;
		*o++ = hi << 4 | lo;
	}
	out->s = c->scratch;
	out->len = o - c->scratch;
	c->scratch = o;
}

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

/* An arg the tokenizer does not interpret: keep its key and raw value (for chrome_events.c). */
static int extra_value(struct cursor *c, const struct trace_str *k, struct trace_event *ev)
{
	const char *start;

	skip_ws(c);
	start = c->p;
	if (skip_value(c, 1))
		return -1;
	if (ev->nextra < TRACE_EXTRA_MAX) {
		ev->extra[ev->nextra].key = *k;
		ev->extra[ev->nextra].value = (struct trace_str){start, c->p - start};
		ev->nextra++;
	}
	return 0;
}

struct hex_fields {
	struct trace_str path, path2;		/* path_hex, new_path_hex / out_path_hex */
	struct trace_str cmdline, name, target; /* the exact bytes of texts that are not UTF-8 */
};

/* One member of "args"; k is its key (non-empty). */
static int parse_arg(struct cursor *c, const struct trace_str *k, struct trace_event *ev,
		     struct hex_fields *hx)
{
	struct number n;
	bool isnum;

#define NUM(flag, field, conv)                                                                     \
	do {                                                                                       \
		if (num_value(c, &n, &isnum))                                                      \
			return -1;                                                                 \
		if (isnum) {                                                                       \
			ev->field = (conv);                                                        \
			ev->has |= (flag);                                                         \
		}                                                                                  \
		return 0;                                                                          \
	} while (0)

	switch (k->s[0]) {
	case 'b':
		if (KEY(k, "bytes"))
			NUM(TE_BYTES, bytes, n.neg ? 0 : n.u);
		break;
	case 'c':
		if (KEY(k, "cache_miss_bytes"))
			NUM(TE_CACHE_MISS, cache_miss, n.neg ? 0 : n.u);
		if (KEY(k, "child_pid") || KEY(k, "child_tid"))
			NUM(TE_CHILD, child, n.i);
		if (KEY(k, "creator_tid"))
			NUM(TE_PARENT, parent, n.i);
		if (KEY(k, "cmdline"))
			return str_value(c, &ev->cmdline);
		if (KEY(k, "cmdline_hex"))
			return str_value(c, &hx->cmdline);
		break;
	case 'd':
		if (KEY(k, "dev"))
			return str_value(c, &ev->dev);
		if (KEY(k, "duration_ns"))
			NUM(TE_DURATION, duration_ns, n.u);
		break;
	case 'e':
		if (KEY(k, "errno"))
			return str_value(c, &ev->err);
		if (KEY(k, "exit_code"))
			NUM(TE_EXIT_CODE, exit_code, n.i);
		if (KEY(k, "events"))
			NUM(TE_EVENTS, events, n.u);
		if (KEY(k, "end_wall_ns"))
			NUM(TE_END_WALL, end_wall_ns, n.i);
		break;
	case 'f':
		if (KEY(k, "fd"))
			NUM(TE_FD, fd, n.i);
		if (KEY(k, "flags")) {
			skip_ws(c);
			if (c->p < c->end && *c->p == '"')
				return parse_string(c, &ev->flags);
			return extra_value(c, k, ev);
		}
		if (KEY(k, "fs"))
			return str_value(c, &ev->fs);
		if (KEY(k, "file_size"))
			NUM(TE_FILE_SIZE, file_size, n.u);
		if (KEY(k, "format"))
			return str_value(c, &ev->format);
		break;
	case 'h':
		if (KEY(k, "hostname"))
			return str_value(c, &ev->hostname);
		break;
	case 'k':
		if (KEY(k, "kernel"))
			return str_value(c, &ev->kernel);
		break;
	case 'l':
		if (KEY(k, "latency_us"))
			NUM(TE_LATENCY, latency_ns, n.us_ns);
		if (KEY(k, "layers"))
			return str_value(c, &ev->layers);
		if (KEY(k, "length"))
			NUM(TE_LENGTH, offset, n.i);
		if (KEY(k, "lost_events"))
			NUM(TE_LOST, lost_events, n.u);
		if (KEY(k, "lost_bytes"))
			NUM(TE_LOST_BYTES, lost_bytes, n.u);
		break;
	case 'n':
		if (KEY(k, "name"))
			return str_value(c, &ev->name);
		if (KEY(k, "name_hex"))
			return str_value(c, &hx->name);
		if (KEY(k, "new_path"))
			return str_value(c, &ev->path2);
		if (KEY(k, "new_path_hex"))
			return str_value(c, &hx->path2);
		break;
	case 'o':
		if (KEY(k, "offset"))
			NUM(TE_OFFSET, offset, n.i);
		if (KEY(k, "out_path"))
			return str_value(c, &ev->path2);
		if (KEY(k, "out_path_hex"))
			return str_value(c, &hx->path2);
		break;
	case 'p':
		if (KEY(k, "path"))
			return str_value(c, &ev->path);
		if (KEY(k, "path_hex"))
			return str_value(c, &hx->path);
		if (KEY(k, "parent_pid"))
			NUM(TE_PARENT, parent, n.i);
		break;
	case 'r':
		if (KEY(k, "ret"))
			NUM(TE_RET, ret, n.i);
		break;
	case 's':
		if (KEY(k, "size"))
			NUM(TE_SIZE, size, n.neg ? 0 : n.u);
		if (KEY(k, "signal"))
			NUM(TE_SIGNAL, signal, n.i);
		if (KEY(k, "start_wall_ns"))
			NUM(TE_START_WALL, start_wall_ns, n.i);
		if (KEY(k, "start_mono_ns"))
			NUM(TE_START_MONO, start_mono_ns, n.u);
		if (KEY(k, "start_wall"))
			return str_value(c, &ev->start_wall);
		if (KEY(k, "stop_reason"))
			return str_value(c, &ev->stop_reason);
		break;
	case 't':
		if (KEY(k, "target"))
			return str_value(c, &ev->target);
		if (KEY(k, "target_hex"))
			return str_value(c, &hx->target);
		if (KEY(k, "truncated")) {
			ev->has |= TE_TRUNCATED;
			return parse_bool(c, &ev->truncated);
		}
		break;
	case 'v':
		if (KEY(k, "version"))
			return str_value(c, &ev->version);
		break;
	case 'w':
		if (KEY(k, "whence"))
			return str_value(c, &ev->whence);
		break;
	}
#undef NUM
	return extra_value(c, k, ev);
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

static int parse_args(struct cursor *c, struct trace_event *ev, struct hex_fields *hx)
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
		if (parse_string(c, &k) || expect(c, ':'))
			return -1;
		if (k.len ? parse_arg(c, &k, ev, hx) : skip_value(c, 1))
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

/* Name → kind, by a small open-addressing table built on first use. */
static enum trace_event_type classify(const struct trace_str *nm, char cat, char ph)
{
	if (ph == 'M') {
		if (KEY(nm, "dltrace"))
			return TEV_HEADER;
		if (KEY(nm, "dltrace_summary"))
			return TEV_SUMMARY;
		if (KEY(nm, "process_name"))
			return TEV_PROCESS_NAME;
		if (KEY(nm, "thread_name"))
			return TEV_THREAD_NAME;
		return TEV_OTHER;
	}
	if (cat == 'd' || cat == 'm' || cat == 's' || cat == 'h')
		return ph == 'X' ? TEV_SYSCALL : TEV_OTHER;
	if (cat && cat != 'p')
		return TEV_LAYER;
	if (cat != 'p')
		return TEV_OTHER;
	if (KEY(nm, "fork"))
		return TEV_FORK;
	if (KEY(nm, "thread_create"))
		return TEV_THREAD_CREATE;
	if (KEY(nm, "process_start"))
		return TEV_PROCESS_START;
	if (KEY(nm, "thread_start"))
		return TEV_THREAD_START;
	if (KEY(nm, "exec"))
		return TEV_EXEC;
	if (KEY(nm, "process_exit"))
		return TEV_PROCESS_EXIT;
	if (KEY(nm, "thread_exit"))
		return TEV_THREAD_EXIT;
	return TEV_OTHER;
}

static char category(const struct trace_str *cat)
{
	if (KEY(cat, "data"))
		return 'd';
	if (KEY(cat, "metadata"))
		return 'm';
	if (KEY(cat, "sync"))
		return 's';
	if (KEY(cat, "hint"))
		return 'h';
	if (KEY(cat, "process"))
		return 'p';
	if (KEY(cat, "mmap"))
		return 'f';
	if (KEY(cat, "cache"))
		return 'c';
	if (KEY(cat, "block"))
		return 'b';
	if (KEY(cat, "uring"))
		return 'u';
	if (KEY(cat, "aio"))
		return 'a';
	if (KEY(cat, "vfs"))
		return 'v';
	return 0;
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
	struct hex_fields hx = {{NULL, 0}, {NULL, 0}, {NULL, 0}, {NULL, 0}, {NULL, 0}};
	struct number n;
	bool isnum, have_name = false;

	memset(ev, 0, sizeof(*ev));
	ev->sys = -1;
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
			if (parse_args(&c, ev, &hx))
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
	if (hx.path.len)
		decode_hex(&c, &hx.path, &ev->path);
	if (hx.path2.len)
		decode_hex(&c, &hx.path2, &ev->path2);
	if (hx.cmdline.len)
		decode_hex(&c, &hx.cmdline, &ev->cmdline);
	if (hx.name.len)
		decode_hex(&c, &hx.name, &ev->name);
	if (hx.target.len)
		decode_hex(&c, &hx.target, &ev->target);
	ev->cat = category(&cat);
	ev->category = cat;
	ev->ph = ph.len == 1 ? ph.s[0] : 0;
	ev->type = classify(&name, ev->cat, ev->ph);
	ev->event_name = name;
	if (ev->type == TEV_SYSCALL)
		ev->sys = syscall_kind(name.s, name.len);
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

/* ---- values kept raw (trace_event.extra) ---- */

int trace_json_number(const struct trace_str *v, int64_t *i, uint64_t *u, bool *neg)
{
	struct cursor c = {v->s, v->s + v->len, NULL, NULL};
	struct number n;

	if (!v->len || parse_number(&c, &n) || (skip_ws(&c), c.p != c.end) || !n.integer)
		return -1;
	if (i)
		*i = n.i;
	if (u)
		*u = n.u;
	if (neg)
		*neg = n.neg;
	return 0;
}

int trace_json_double(const struct trace_str *v, double *out)
{
	char buf[64];
	char *end;

	if (!v->len || v->len >= sizeof(buf))
		return -1;
	memcpy(buf, v->s, v->len);
	buf[v->len] = '\0';
	*out = strtod(buf, &end);
	return *end || end == buf ? -1 : 0;
}

int trace_json_string(const struct trace_str *v, char *scratch, struct trace_str *out)
{
	struct cursor c = {v->s, v->s + v->len, scratch, NULL};

	return parse_string(&c, out);
}

bool trace_json_true(const struct trace_str *v)
{
	return v->len == 4 && !memcmp(v->s, "true", 4);
}
