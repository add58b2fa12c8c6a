/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * JSON string escaping that Perfetto accepts: output is valid UTF-8,
 * '"', '\\' and control characters are escaped, nothing is written as a
 * \uD8xx surrogate escape.  Bytes that are not UTF-8 become U+FFFD in the
 * escaped text; callers keep such names lossless by also writing the raw
 * bytes in hex (json_hex).
 */
#ifndef JSON_STRING_H
#define JSON_STRING_H

#include <stdbool.h>
#include <stddef.h>

/* Worst-case escaped size of n input bytes (each byte -> "\u00XX"). */
#define JSON_ESCAPED_MAX(n) ((n)*6 + 1)

/*
 * Escape s[0..len) into out (no surrounding quotes); out must hold
 * JSON_ESCAPED_MAX(len) bytes.  Returns bytes written; *lossy is set when
 * some bytes were not valid UTF-8.
 */
size_t json_escape(char *out, const char *s, size_t len, bool *lossy);

/* Lower-case hex of s[0..len) into out (2 * len bytes). Returns 2 * len. */
size_t json_hex(char *out, const char *s, size_t len);

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid. */
size_t utf8_sequence_length(const unsigned char *s, size_t avail);

/* Whether s[0..len) is valid UTF-8 (NUL bytes are). */
bool utf8_valid(const char *s, size_t len);

/* Worst-case size of utf8_repair's output for n input bytes (each -> U+FFFD). */
#define UTF8_REPAIRED_MAX(n) ((n)*3)

/*
 * s[0..len) as valid UTF-8, the way json_escape writes it unescaped: every
 * byte that does not start a valid sequence becomes U+FFFD.  out holds
 * UTF8_REPAIRED_MAX(len) bytes (not NUL-terminated); returns bytes written.
 */
size_t utf8_repair(char *out, const char *s, size_t len);

/* Why json_unescape stopped (JSON_UNESCAPE_OK: on the closing quote). */
enum json_unescape_status {
	JSON_UNESCAPE_OK = 0,
	JSON_UNESCAPE_UNTERMINATED, /* no closing quote before the end */
	JSON_UNESCAPE_CONTROL,	    /* a control character not escaped */
	JSON_UNESCAPE_BAD_ESCAPE,   /* '\\' followed by a letter JSON does not know */
	JSON_UNESCAPE_BAD_HEX,	    /* "\\u" not followed by 4 hex digits */
};

/*
 * The body of a JSON string, from *p (just past the opening quote) up to
 * its closing quote, unescaped into *o: \\uXXXX as UTF-8, a surrogate pair
 * as one code point, a lone surrogate as U+FFFD.  Output is never longer
 * than the input it came from.  *p is left on the closing quote (or where
 * the text went wrong) and *o after the last byte written.  Used by the
 * flat-object reader (lib/json_flat.c) and the trace line parser
 * (format/chrome/trace_line_parser.c).
 */
enum json_unescape_status json_unescape(const char **p, const char *end, char **o);

/* A short message for a status ("bad escape"). */
const char *json_unescape_error(enum json_unescape_status status);

#endif
