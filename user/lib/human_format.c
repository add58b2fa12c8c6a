// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "lib/human_format.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lib/json_string.h"

char *human_bytes(char *buf, uint64_t b)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	double v = b;
	unsigned u;

	if (b < 1024) {
		snprintf(buf, HUMAN_MAX, "%llu B", (unsigned long long)b);
		return buf;
	}
	u = human_scale(&v, 1024, 6);
	snprintf(buf, HUMAN_MAX, v < 10 ? "%.2f %s" : v < 100 ? "%.1f %s" : "%.0f %s", v, units[u]);
	return buf;
}

char *human_ns(char *buf, uint64_t ns)
{
	double v = ns;

	if (ns < 1000)
		snprintf(buf, HUMAN_MAX, "%llu ns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, HUMAN_MAX, "%.1f us", v / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, HUMAN_MAX, "%.1f ms", v / 1e6);
	else if (ns < 600000000000ull)
		snprintf(buf, HUMAN_MAX, "%.2f s", v / 1e9);
	else
		snprintf(buf, HUMAN_MAX, "%.1f min", v / 6e10);
	return buf;
}

char *human_count(char *buf, uint64_t n)
{
	char tmp[32];
	int len = snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)n), o = 0;

	for (int i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = 0;
	return buf;
}

char *human_pct(char *buf, double share)
{
	double p = share * 100;

	if (!(p == p))
		p = 0;
	snprintf(buf, HUMAN_MAX, p > 0 && p < 0.1 ? "<0.1%%" : p < 10 ? "%.1f%%" : "%.0f%%", p);
	return buf;
}

char *human_ratio(char *buf, double ratio)
{
	char whole[HUMAN_MAX];
	uint64_t tenths;

	if (ratio < 0 || !(ratio == ratio)) {
		snprintf(buf, HUMAN_MAX, "unknown");
		return buf;
	}
	if (ratio > 1e15) {
		snprintf(buf, HUMAN_MAX, "no bytes asked");
		return buf;
	}
	if (ratio < 100) {
		snprintf(buf, HUMAN_MAX, "%.2fx", ratio);
		return buf;
	}
	tenths = (uint64_t)(ratio * 10 + 0.5);
	snprintf(buf, HUMAN_MAX, "%s.%ux", human_count(whole, tenths / 10),
		 (unsigned)(tenths % 10));
	return buf;
}

/* Number of display characters and the byte length of one character at s. */
static size_t char_at(const unsigned char *s, size_t avail, bool *valid)
{
	size_t n = utf8_sequence_length(s, avail);

	*valid = n > 0;
	return n ? n : 1;
}

char *display_text(char *out, size_t size, const char *s, size_t len, size_t max_cols)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t chars = 0, o = 0, head, tail_start_char, i;
	bool valid;

	if (!size)
		return out;
	for (i = 0; i < len; chars++)
		i += char_at(p + i, len - i, &valid);
	head = chars <= max_cols || max_cols < 8 ? chars : (max_cols - 3) / 2;
	tail_start_char = chars <= max_cols || max_cols < 8 ? chars : chars - (max_cols - 3 - head);
	i = 0;
	for (size_t c = 0; c < chars && i < len; c++) {
		size_t n = char_at(p + i, len - i, &valid);

		if (c == head && head < tail_start_char) {
			if (o + 3 < size) {
				memcpy(out + o, "...", 3);
				o += 3;
			}
		}
		if (c < head || c >= tail_start_char) {
			if (!valid) {
				if (o + 3 < size) {
					memcpy(out + o, "\xef\xbf\xbd", 3);
					o += 3;
				}
			} else if ((n == 1 && (p[i] < 0x20 || p[i] == 0x7f)) ||
				   (n == 2 && p[i] == 0xc2 && p[i + 1] < 0xa0)) {
				/* C0 and C1 controls could drive the terminal */
				if (o + 1 < size)
					out[o++] = '?';
			} else if (o + n < size) {
				memcpy(out + o, p + i, n);
				o += n;
			}
		}
		i += n;
	}
	out[o] = 0;
	return out;
}

char *display_command(char *out, size_t size, const char *cmd, size_t len, size_t max_cols)
{
	size_t prog_end = 0, base = 0, n, cols = 0, o = 0;
	char tmp[1024];

	while (prog_end < len && cmd[prog_end] != ' ')
		prog_end++;
	for (size_t i = 0; i < prog_end; i++)
		if (cmd[i] == '/')
			base = i + 1;
	n = len - base < sizeof(tmp) - 1 ? len - base : sizeof(tmp) - 1;
	display_text(tmp, sizeof(tmp), cmd + base, n, sizeof(tmp));
	/* cut at max_cols characters (UTF-8 continuation bytes are not columns) */
	for (size_t i = 0; tmp[i] && o + 4 < size; i++) {
		if (((unsigned char)tmp[i] & 0xc0) != 0x80) {
			if (cols == max_cols - 3 && max_cols > 3) {
				size_t rest = 0;

				for (size_t j = i; tmp[j]; j++)
					rest += ((unsigned char)tmp[j] & 0xc0) != 0x80;
				if (rest > 3) {
					memcpy(out + o, "...", 3);
					o += 3;
					break;
				}
			}
			cols++;
		}
		out[o++] = tmp[i];
	}
	out[o] = 0;
	return out;
}
