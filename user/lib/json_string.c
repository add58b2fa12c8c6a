// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "lib/json_string.h"

#include <string.h>

size_t utf8_sequence_length(const unsigned char *s, size_t avail)
{
	unsigned char c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return avail >= 2 && (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if (avail < 3 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		if (c == 0xe0 && s[1] < 0xa0)
			return 0; /* overlong */
		if (c == 0xed && s[1] >= 0xa0)
			return 0; /* UTF-16 surrogate */
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if (avail < 4 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 ||
		    (s[3] & 0xc0) != 0x80)
			return 0;
		if (c == 0xf0 && s[1] < 0x90)
			return 0; /* overlong */
		if (c == 0xf4 && s[1] >= 0x90)
			return 0; /* above U+10FFFF */
		return 4;
	}
	return 0;
}

bool utf8_valid(const char *s, size_t len)
{
	for (size_t i = 0; i < len;) {
		size_t n = utf8_sequence_length((const unsigned char *)s + i, len - i);

		if (!n)
			return false;
		i += n;
	}
	return true;
}

/*
 * Copy the UTF-8 sequence at p to *o, or U+FFFD for its first byte when it
 * is not valid (and set *lossy); *o moves past what was written.  Returns
 * the input bytes used.
 */
static inline size_t put_utf8(char **o, const unsigned char *p, size_t avail, bool *lossy)
{
	size_t n = utf8_sequence_length(p, avail);

	if (n) {
		memcpy(*o, p, n);
		*o += n;
		return n;
	}
	memcpy(*o, "\xef\xbf\xbd", 3); /* U+FFFD REPLACEMENT CHARACTER */
	*o += 3;
	*lossy = true;
	return 1;
}

size_t utf8_repair(char *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	bool lossy = false;
	char *o = out;

	for (size_t i = 0; i < len;)
		i += put_utf8(&o, p + i, len - i, &lossy);
	return o - out;
}

static const char hex_digits[] = "0123456789abcdef";

size_t json_escape(char *out, const char *s, size_t len, bool *lossy)
{
	const unsigned char *p = (const unsigned char *)s;
	char *o = out;
	size_t i = 0;

	while (i < len) {
		unsigned char c = p[i];

		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			*o++ = c;
			i++;
			continue;
		}
		if (c < 0x80) {
			*o++ = '\\';
			switch (c) {
			case '"':
				*o++ = '"';
				break;
			case '\\':
				*o++ = '\\';
				break;
			case '\n':
				*o++ = 'n';
				break;
			case '\t':
				*o++ = 't';
				break;
			case '\r':
				*o++ = 'r';
				break;
			default:
				*o++ = 'u';
				*o++ = '0';
				*o++ = '0';
				*o++ = hex_digits[c >> 4];
				*o++ = hex_digits[c & 15];
			}
			i++;
			continue;
		}
		i += put_utf8(&o, p + i, len - i, lossy);
	}
	*o = '\0';
	return o - out;
}

size_t json_hex(char *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < len; i++) {
		out[2 * i] = hex_digits[p[i] >> 4];
		out[2 * i + 1] = hex_digits[p[i] & 15];
	}
	out[2 * len] = '\0';
	return 2 * len;
}

static int hex4(const char *p, const char *end, unsigned *v)
{
	if (end - p < 4)
		return -1;
	*v = 0;
	for (int i = 0; i < 4; i++) {
		char h = p[i];

		*v <<= 4;
		if (h >= '0' && h <= '9')
			*v |= h - '0';
		else if (h >= 'a' && h <= 'f')
			*v |= h - 'a' + 10;
		else if (h >= 'A' && h <= 'F')
			*v |= h - 'A' + 10;
		else
			return -1;
	}
	return 0;
}

static char *put_code_point(char *o, unsigned cp)
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
 * One escape, *p past its backslash.  "\\uXXXX" is 6 bytes and its UTF-8 at
 * most 3 (4 for a 12-byte pair): the output never outgrows the input.
 */
static enum json_unescape_status unescape_one(const char **p, const char *end, char **o)
{
	char ch = *(*p)++;
	unsigned cp, lo;

	switch (ch) {
	case '"':
	case '\\':
	case '/':
		*(*o)++ = ch;
		return JSON_UNESCAPE_OK;
	case 'b':
		*(*o)++ = '\b';
		return JSON_UNESCAPE_OK;
	case 'f':
		*(*o)++ = '\f';
		return JSON_UNESCAPE_OK;
	case 'n':
		*(*o)++ = '\n';
		return JSON_UNESCAPE_OK;
	case 'r':
		*(*o)++ = '\r';
		return JSON_UNESCAPE_OK;
	case 't':
		*(*o)++ = '\t';
		return JSON_UNESCAPE_OK;
	case 'u':
		if (hex4(*p, end, &cp))
			return JSON_UNESCAPE_BAD_HEX;
		*p += 4;
		if (cp >= 0xd800 && cp < 0xdc00 && end - *p >= 6 && (*p)[0] == '\\' &&
		    (*p)[1] == 'u') {
			if (hex4(*p + 2, end, &lo))
				return JSON_UNESCAPE_BAD_HEX;
			if (lo >= 0xdc00 && lo < 0xe000) {
				*p += 6;
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			}
		}
		if (cp >= 0xd800 && cp < 0xe000)
			cp = 0xfffd; /* a lone surrogate */
		*o = put_code_point(*o, cp);
		return JSON_UNESCAPE_OK;
	default:
		return JSON_UNESCAPE_BAD_ESCAPE;
	}
}

enum json_unescape_status json_unescape(const char **p, const char *end, char **o)
{
	enum json_unescape_status st;

	while (*p < end && **p != '"') {
		char ch = **p;

		if ((unsigned char)ch < 0x20)
			return JSON_UNESCAPE_CONTROL;
		(*p)++;
		if (ch != '\\') {
			*(*o)++ = ch;
			continue;
		}
		if (*p >= end)
			return JSON_UNESCAPE_UNTERMINATED;
		st = unescape_one(p, end, o);
		if (st != JSON_UNESCAPE_OK)
			return st;
	}
	return *p < end ? JSON_UNESCAPE_OK : JSON_UNESCAPE_UNTERMINATED;
}

const char *json_unescape_error(enum json_unescape_status status)
{
	switch (status) {
	case JSON_UNESCAPE_OK:
		return "no error";
	case JSON_UNESCAPE_UNTERMINATED:
		return "unterminated string";
	case JSON_UNESCAPE_CONTROL:
		return "control character in a string";
	case JSON_UNESCAPE_BAD_ESCAPE:
		return "bad escape";
	case JSON_UNESCAPE_BAD_HEX:
		return "bad \\u escape";
	}
	return "bad string";
}
