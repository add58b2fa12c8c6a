// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "report/render/report_render.h"

#include <stdlib.h>

#include "report/render/report_output.h"

static struct report_view view(const struct report_session *s, unsigned top, bool color)
{
	return (struct report_view){report_session__stats(s), report_session__findings(s), top,
				    color, report_session__generator(s)};
}

void report_session__terminal(const struct report_session *s, FILE *out, unsigned top, bool color)
{
	struct report_view v = view(s, top, color);

	report_terminal(out, &v);
}

void report_session__json(const struct report_session *s, FILE *out, unsigned top)
{
	struct report_view v = view(s, top, false);

	report_json(out, &v);
}

void report_session__html(const struct report_session *s, FILE *out, unsigned top)
{
	struct report_view v = view(s, top, false);

	report_html(out, &v);
}

char *report_session__json_text(const struct report_session *s, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	if (!f)
		return NULL;
	report_session__json(s, f, REPORT_DEFAULT_TOP);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}
