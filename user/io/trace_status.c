// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "io/trace_status.h"

#include <stdio.h>
#include <string.h>

bool trace_read_truncated(const struct trace_read_status *st)
{
	return !st->closed || st->cut_event || st->gzip_unfinished || !st->summary;
}

void trace_read_damage(const struct trace_read_status *st, char *out, size_t size)
{
	const char *parts[4];
	size_t o = 0;
	int n = 0;

	if (st->gzip_unfinished)
		parts[n++] = "the gzip stream ends early";
	if (st->cut_event)
		parts[n++] = "the last event is cut";
	if (!st->closed)
		parts[n++] = "no closing ']'";
	if (!st->summary)
		parts[n++] = "no dltrace_summary event";
	if (size)
		out[0] = '\0';
	for (int i = 0; i < n && o < size; i++)
		o += snprintf(out + o, size - o, "%s%s", i ? "; " : "", parts[i]);
}

void trace_read_quote(const char *s, size_t len, size_t max, char *out, size_t size)
{
	size_t o = 0;

	if (!size)
		return;
	for (size_t i = 0; i < len && i < max && o + 5 <= size; i++) {
		unsigned char c = s[i];

		if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\')
			out[o++] = c;
		else
			o += snprintf(out + o, size - o, "\\x%02x", c);
	}
	if (len > max && o + 4 <= size) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
}
