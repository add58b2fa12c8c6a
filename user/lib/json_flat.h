/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The members of a flat JSON object, {"key": value, ...}, one at a time,
 * with their values typed: what a marker's arguments (a JSON text a job
 * wrote) become as typed arguments.  Keys and string values are unescaped
 * (\uXXXX to UTF-8, surrogate pairs joined, lone surrogates as U+FFFD);
 * nested objects and arrays, and tokens JSON does not have (NaN,
 * Infinity), are given as their raw text.
 */
#ifndef JSON_FLAT_H
#define JSON_FLAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum json_flat_type {
	JF_STRING, /* text: the unescaped string */
	JF_INT,	   /* i: an integer in int64 range */
	JF_UINT,   /* u: an integer above INT64_MAX */
	JF_DOUBLE, /* d: any other number; text: as written */
	JF_BOOL,   /* b */
	JF_NULL,
	JF_RAW, /* text: the value as written (an object, an array, a bare word) */
};

struct json_flat_member {
	const char *key;
	size_t key_len;
	enum json_flat_type type;
	const char *text;
	size_t len;
	int64_t i;
	uint64_t u;
	double d;
	bool b;
};

/*
 * Call fn for each member of the object s[0..len), in order; unescaped keys
 * and strings go to buf, which must hold len bytes.  Returns 0, -1 when s is
 * not one JSON object (members before the error were delivered), or what fn
 * returned when it was not 0 (which stops the walk).
 */
int json_flat_parse(const char *s, size_t len, char *buf,
		    int (*fn)(void *ctx, const struct json_flat_member *m), void *ctx);

#endif
