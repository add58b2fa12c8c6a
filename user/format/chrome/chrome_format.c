// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "format/chrome/chrome_format.h"

#include <stdio.h>

#include "lib/json_string.h"

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
