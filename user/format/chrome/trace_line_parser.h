/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Parser of one trace event: the JSON object on one line of a dltrace trace.
 * Hand-written for speed (a trace has millions of lines), strict enough to
 * reject what is not one JSON object (then the caller reports the line as
 * malformed), and safe on any input: it never reads outside the given bytes
 * and never recurses deeper than a fixed limit.
 */
#ifndef TRACE_LINE_PARSER_H
#define TRACE_LINE_PARSER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/chrome/trace_event.h"

/*
 * Parse the object at text[0..len) (the line without its leading '[' or ','
 * and without the newline; trailing blanks allowed).  scratch must hold
 * TRACE_SCRATCH(len) bytes: the strings of *ev (and its args' keys) are
 * unescaped into it, and the file names of "*_hex" args decoded.  Returns
 * 0, or -1 with a short reason in *why.
 */
/* Unescaped strings never outgrow their text; decoded hex adds at most half. */
#define TRACE_SCRATCH(len) (2 * (len) + 16)

int trace_parse_event(const char *text, size_t len, char *scratch, struct trace_event *ev,
		      const char **why);

/* The same for the first object of text; *used: bytes up to the text after it. */
int trace_parse_first_event(const char *text, size_t len, char *scratch, struct trace_event *ev,
			    const char **why, size_t *used);

/* One member of a JSON object: its key (unescaped) and the text of its value. */
struct json_member {
	struct trace_str key;
	const char *value;
	size_t value_len;
};

/*
 * Call fn for each member of the JSON object at text[0..len), in order,
 * with the same safety as the event parser; fn returns 0 to go on.
 * scratch: TRACE_SCRATCH(len) bytes for the keys.  0, or -1 when the text
 * is not one object or fn stopped the walk.
 */
int trace_object_members(const char *text, size_t len, char *scratch,
			 int (*fn)(void *ctx, const struct json_member *m), void *ctx);

/* The first arg of ev named key (NULL: none). */
const struct ev_arg *trace_event_arg(const struct trace_event *ev, const char *key);

#endif
