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

#endif
