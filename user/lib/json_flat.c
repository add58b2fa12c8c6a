// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "lib/json_flat.h"
#include "lib/json_string.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct cur {
	const char *p, *end;
	char *out; /* where the next unescaped string goes */
};

static void skip_ws(struct cur *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
		c->p++;
}

/* A string at c->p (its opening quote), unescaped to c->out: never longer than its text. */
static int string(struct cur *c, const char **text, size_t *len)
{
	char *o = c->out;

	if (c->p >= c->end || *c->p != '"')
		return -1;
	c->p++;
	*text = o;
	if (json_unescape(&c->p, c->end, &o) != JSON_UNESCAPE_OK)
		return -1;
	c->p++;
	*len = o - *text;
	c->out = o;
	return 0;
}

/* Skip one value (any JSON, or a bare word); the value's text is [start, c->p). */
static int skip_value(struct cur *c)
{
	int depth = 0;

	do {
		skip_ws(c);
		if (c->p >= c->end)
			return -1;
		if (*c->p == '"') {
			for (c->p++; c->p < c->end && *c->p != '"'; c->p++)
				if (*c->p == '\\')
					c->p++;
			if (c->p >= c->end)
				return -1;
			c->p++;
		} else if (*c->p == '{' || *c->p == '[') {
			depth++;
			c->p++;
			continue;
		} else if (*c->p == '}' || *c->p == ']') {
			if (!depth)
				return -1;
			depth--;
			c->p++;
		} else if (*c->p == ',' || *c->p == ':') {
			if (!depth)
				return -1;
			c->p++;
			continue;
		} else {
			const char *start = c->p;

			while (c->p < c->end && !strchr(",:{}[]\" \t\r\n", *c->p))
				c->p++;
			if (c->p == start)
				return -1;
		}
	} while (depth);
	return 0;
}

/* A number in JSON's grammar spanning exactly [s, s + n). */
static bool json_number(const char *s, size_t n, bool *integer)
{
	size_t i = 0;

	*integer = true;
	if (i < n && s[i] == '-')
		i++;
	if (i >= n || s[i] < '0' || s[i] > '9')
		return false;
	if (s[i] == '0')
		i++;
	else
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
	if (i < n && s[i] == '.') {
		*integer = false;
		if (++i >= n || s[i] < '0' || s[i] > '9')
			return false;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		*integer = false;
		if (++i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		if (i >= n || s[i] < '0' || s[i] > '9')
			return false;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
	}
	return i == n;
}

static void scalar(struct json_flat_member *m, const char *s, size_t n)
{
	char num[64];
	bool integer;

	m->text = s;
	m->len = n;
	m->type = JF_RAW;
	if (n == 4 && !memcmp(s, "true", 4)) {
		m->type = JF_BOOL;
		m->b = true;
	} else if (n == 5 && !memcmp(s, "false", 5)) {
		m->type = JF_BOOL;
		m->b = false;
	} else if (n == 4 && !memcmp(s, "null", 4)) {
		m->type = JF_NULL;
	} else if (n < sizeof(num) && json_number(s, n, &integer)) {
		memcpy(num, s, n);
		num[n] = '\0';
		errno = 0;
		if (integer && s[0] != '-') {
			unsigned long long u = strtoull(num, NULL, 10);

			if (!errno) {
				m->type = u > INT64_MAX ? JF_UINT : JF_INT;
				m->u = u;
				m->i = (int64_t)u;
				return;
			}
		} else if (integer) {
			long long v = strtoll(num, NULL, 10);

			if (!errno) {
				m->type = JF_INT;
				m->i = v;
				return;
			}
		}
		m->type = JF_DOUBLE;
		m->d = strtod(num, NULL);
	}
}

int json_flat_parse(const char *s, size_t len, char *buf,
		    int (*fn)(void *ctx, const struct json_flat_member *m), void *ctx)
{
	struct cur c = {s, s + len, buf};

	skip_ws(&c);
	if (c.p >= c.end || *c.p != '{')
		return -1;
	c.p++;
	skip_ws(&c);
	if (c.p < c.end && *c.p == '}') {
		c.p++;
		goto done;
	}
	for (;;) {
		struct json_flat_member m = {0};
		const char *start;
		int rc;

		skip_ws(&c);
		if (string(&c, &m.key, &m.key_len))
			return -1;
		skip_ws(&c);
		if (c.p >= c.end || *c.p++ != ':')
			return -1;
		skip_ws(&c);
		if (c.p < c.end && *c.p == '"') {
			if (string(&c, &m.text, &m.len))
				return -1;
			m.type = JF_STRING;
		} else {
			start = c.p;
			if (skip_value(&c))
				return -1;
			scalar(&m, start, c.p - start);
		}
		rc = fn(ctx, &m);
		if (rc)
			return rc;
		skip_ws(&c);
		if (c.p < c.end && *c.p == ',') {
			c.p++;
			continue;
		}
		if (c.p < c.end && *c.p == '}') {
			c.p++;
			break;
		}
		return -1;
	}
done:
	skip_ws(&c);
	return c.p == c.end ? 0 : -1;
}
