/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Small formatters of JSON text for the Chrome trace format: each writes at
 * p and returns the end.  The caller reserves the space (JSON_ESCAPED_MAX
 * for strings).  Used by the writer and by merge's text rewriting.
 */
#ifndef CHROME_FORMAT_H
#define CHROME_FORMAT_H

#include <stdint.h>
#include <string.h>

#include "lib/decimal.h"

/* Append a string literal. */
#define PUT(p, lit)                                                                                \
	do {                                                                                       \
		_Static_assert(__builtin_constant_p(lit), "PUT takes a string literal");           \
		memcpy((p), (lit), sizeof(lit) - 1);                                               \
		(p) += sizeof(lit) - 1;                                                            \
	} while (0)

static inline char *fmt_u64(char *p, uint64_t v)
{
	return dec_u64(p, v);
}

static inline char *fmt_i64(char *p, int64_t v)
{
	return dec_i64(p, v);
}
/* ns as microseconds with three decimals: 1234567 -> 1234.567 */
char *fmt_us(char *p, uint64_t ns);
/* A quoted, escaped JSON string (invalid UTF-8 becomes U+FFFD). */
char *fmt_str(char *p, const char *s, size_t len);

/* ,"key":value */
char *put_key_u64(char *p, const char *key, uint64_t v);
char *put_key_i64(char *p, const char *key, int64_t v);
char *put_key_str(char *p, const char *key, const char *s);

#endif
