// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What every rule writes a finding with: its rule, evidence lines, metrics and
 * recommendation, and the figures they share (a leaf: it calls no rule).
 */
#include "report/report_findings_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/human_format.h"

void finding__rule(struct finding *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->rule, sizeof(f->rule), fmt, ap);
	va_end(ap);
}

void finding__evidence(struct finding *f, const char *fmt, ...)
{
	va_list ap;

	if (f->nevidence == FINDING_EVIDENCE)
		return;
	va_start(ap, fmt);
	vsnprintf(f->evidence[f->nevidence++], FINDING_LINE, fmt, ap);
	va_end(ap);
}

void finding__metric(struct finding *f, const char *key, double value)
{
	if (f->nmetrics < FINDING_METRICS)
		f->metrics[f->nmetrics++] = (struct finding_metric){key, value};
}

void finding__recommend(struct finding *f, const char *text)
{
	snprintf(f->recommendation, sizeof(f->recommendation), "%s", text);
}

double finding__ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0;
}

/* Short display of a file name. */
const char *finding__file_name(const struct report_stats *st, uint32_t name, char *buf, size_t size)
{
	return display_text(buf, size, rs_str(st, name), rs_strlen(st, name), 72);
}

void finding__top_files(const struct report_stats *st, struct finding *f, file_metric m,
			const char *what)
{
	uint32_t best[3] = {NONE32, NONE32, NONE32};
	char name[320], line[FINDING_LINE];
	size_t o = 0;

	for (uint32_t i = 0; i < st->nfiles; i++) {
		const struct rs_file *x = &st->files[i];
		uint64_t v;

		if (x->scope != SCOPE_APP || !(v = m(x)))
			continue;
		for (int k = 0; k < 3; k++) {
			if (best[k] == NONE32 || v > m(&st->files[best[k]])) {
				memmove(best + k + 1, best + k, (2 - k) * sizeof(best[0]));
				best[k] = i;
				break;
			}
		}
	}
	if (best[0] == NONE32)
		return;
	o = snprintf(line, sizeof(line), "top files by %s:", what);
	for (int k = 0; k < 3 && best[k] != NONE32 && o < sizeof(line); k++) {
		char num[HUMAN_MAX];

		o += snprintf(line + o, sizeof(line) - o, "%s %s (%s)", k ? ";" : "",
			      finding__file_name(st, st->files[best[k]].name, name, sizeof(name)),
			      human_count(num, m(&st->files[best[k]])));
	}
	finding__evidence(f, "%s", line);
}
