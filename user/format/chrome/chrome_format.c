// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "format/chrome/chrome_format.h"

#include <stdio.h>

#include "lib/json_string.h"

char *fmt_u64(char *p, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = '0' + v % 10;
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

char *fmt_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return fmt_u64(p, -(uint64_t)v);
	}
	return fmt_u64(p, v);
}

char *fmt_us(char *p, uint64_t ns)
{
	uint32_t frac = ns % 1000;

	p = fmt_u64(p, ns / 1000);
	*p++ = '.';
	*p++ = '0' + frac / 100;
	*p++ = '0' + frac / 10 % 10;
	*p++ = '0' + frac % 10;
	return p;
}

char *fmt_str(char *p, const char *s, size_t len)
{
	bool lossy = false;

	*p++ = '"';
	p += json_escape(p, s, len, &lossy);
	*p++ = '"';
	return p;
}

char *put_key_u64(char *p, const char *key, uint64_t v)
{
	*p++ = ',';
	*p++ = '"';
	p = stpcpy(p, key);
	*p++ = '"';
	*p++ = ':';
	return fmt_u64(p, v);
}

char *put_key_i64(char *p, const char *key, int64_t v)
{
	*p++ = ',';
	*p++ = '"';
	p = stpcpy(p, key);
	*p++ = '"';
	*p++ = ':';
	return fmt_i64(p, v);
}

char *put_key_str(char *p, const char *key, const char *s)
{
	*p++ = ',';
	*p++ = '"';
	p = stpcpy(p, key);
	*p++ = '"';
	*p++ = ':';
	return fmt_str(p, s, strlen(s));
}
