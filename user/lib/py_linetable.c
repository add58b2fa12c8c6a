// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "lib/py_linetable.h"

/*
 * 3.10: each pair (bytes, delta) covers `bytes` bytes of bytecode from the
 * end of the previous one; delta moves the current line, -128 meaning the
 * range has none.  Pairs of 0 bytes only move the line (a line change of
 * more than 127, or a range longer than 254 bytes, takes several pairs).
 */
static int line_310(const uint8_t *t, size_t len, int firstlineno, int lasti)
{
	long addr = (long)lasti * 2, start = 0;
	int line = firstlineno, range_line = 0;

	if (lasti < 0)
		return firstlineno;
	for (size_t i = 0; i + 1 < len; i += 2) {
		long end = start + t[i];
		int8_t delta = (int8_t)t[i + 1];

		if (delta == -128) {
			range_line = 0;
		} else {
			line += delta;
			range_line = line;
		}
		if (addr >= start && addr < end)
			return range_line;
		start = end;
	}
	return 0;
}

/* Location table varints: 6 bits a byte, low bits first, 0x40 = more follow. */
static int varint(const uint8_t *t, size_t len, size_t *i, unsigned *out)
{
	unsigned v = 0, shift = 0;

	while (*i < len) {
		uint8_t b = t[(*i)++];

		v |= (unsigned)(b & 0x3f) << shift;
		shift += 6;
		if (!(b & 0x40)) {
			*out = v;
			return 0;
		}
		if (shift > 30)
			return -1;
	}
	return -1;
}

static int svarint(const uint8_t *t, size_t len, size_t *i, int *out)
{
	unsigned v;

	if (varint(t, len, i, &v))
		return -1;
	*out = v & 1 ? -(int)(v >> 1) : (int)(v >> 1);
	return 0;
}

/*
 * 3.11+: an entry starts with a byte 1CCCCLLL: code C, and L + 1 code
 * units covered.  Codes 0-9 (short form, one byte of columns) and 10-12
 * (one-line form, two bytes of columns) stay on the line, resp. move it by
 * C - 10; 13 (no columns) moves it by a signed varint; 14 (long form) by a
 * signed varint, followed by three varints (end line, columns); 15 has no
 * location.  The line starts at firstlineno.
 */
static int line_311(const uint8_t *t, size_t len, int firstlineno, int lasti)
{
	size_t i = 0;
	long unit = 0;
	int line = firstlineno;

	if (lasti < 0)
		return firstlineno;
	while (i < len) {
		uint8_t first = t[i++];
		int code = (first >> 3) & 15, units = (first & 7) + 1, has_line = 1, delta = 0;
		unsigned skip;

		if (!(first & 0x80))
			return 0; /* not at an entry: a damaged table */
		if (code <= 9) {
			i += 1;
		} else if (code <= 12) {
			delta = code - 10;
			i += 2;
		} else if (code == 13) {
			if (svarint(t, len, &i, &delta))
				return 0;
		} else if (code == 14) {
			if (svarint(t, len, &i, &delta) || varint(t, len, &i, &skip) ||
			    varint(t, len, &i, &skip) || varint(t, len, &i, &skip))
				return 0;
		} else {
			has_line = 0;
		}
		line += delta;
		if (lasti >= unit && lasti < unit + units)
			return has_line ? line : 0;
		unit += units;
	}
	return 0;
}

int py_line_of(const uint8_t *table, size_t len, int minor, int firstlineno, int lasti)
{
	if (minor == 10)
		return line_310(table, len, firstlineno, lasti);
	if (minor >= 11 && minor <= 13)
		return line_311(table, len, firstlineno, lasti);
	return -1;
}
