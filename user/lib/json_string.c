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
