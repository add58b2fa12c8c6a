/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the files of the HTML page share; callers use report_output.h only.
 *
 *   report_html.c           the page's frame: head, CSS, script, the order
 *                           of the sections
 *   report_html_sections.c  the sections on the system calls: job, findings,
 *                           timeline, time, application I/O, files, balance,
 *                           environment
 *   report_html_levels.c    the levels above the system calls: library calls,
 *                           datasets, Python lines, phases and training loops
 *   report_html_charts.c    the SVG charts
 */
#ifndef REPORT_HTML_INTERNAL_H
#define REPORT_HTML_INTERNAL_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/html_text.h"
#include "report/render/report_output.h"

/* ---- escaping, cards and table cells: small, and used by every file ---- */

static inline void esc_n(FILE *f, const char *s, size_t len)
{
	html_text(f, s, len);
}

static inline void esc(FILE *f, const char *s)
{
	esc_n(f, s, strlen(s));
}

static inline void esc_id(FILE *f, const struct report_stats *st, uint32_t id)
{
	if (id != NONE32)
		esc_n(f, rs_str(st, id), rs_strlen(st, id));
}

static inline double frac(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0;
}

static inline void card(FILE *f, const char *value, const char *label)
{
	fprintf(f, "<div class=\"card\"><b>");
	esc(f, value);
	fprintf(f, "</b><span>%s</span></div>", label);
}

static inline void td_num(FILE *f, uint64_t v, const char *text)
{
	fprintf(f, "<td data-v=\"%llu\">", (unsigned long long)v);
	esc(f, text);
	fprintf(f, "</td>");
}

/* ---- report_html_charts.c ---- */

/* Grouped bars: one group per label, one bar per series. */
void html_bar_chart(FILE *f, const char *id, const char *const *labels, int ngroups,
		    const uint64_t *values, int nseries, const char *const *colors,
		    const char *const *series, const char *(*label)(char *, double));
/* application bandwidth over time, with the write bursts behind it */
void html_timeline_chart(FILE *f, const struct report_stats *st);
/* Per step (or group of steps): the wait for the batch under the rest of the iteration. */
void html_stall_chart(FILE *f, const struct report_stats *st, uint32_t oi);
/* axis and title labels */
const char *html_label_count(char *b, double v);
const char *html_label_ns(char *b, double v);

/* ---- report_html_sections.c: one <section> each ---- */

void html_summary(FILE *f, const struct report_view *v);
void html_findings(FILE *f, const struct report_view *v);
void html_timeline(FILE *f, const struct report_view *v);
void html_time_section(FILE *f, const struct report_view *v);
void html_application(FILE *f, const struct report_view *v);
void html_files(FILE *f, const struct report_view *v);
void html_balance(FILE *f, const struct report_view *v);
void html_environment(FILE *f, const struct report_view *v);

/* ---- report_html_levels.c: one <section> each, or nothing without data ---- */

void html_phases(FILE *f, const struct report_view *v);
void html_levels(FILE *f, const struct report_view *v);
void html_python_locations(FILE *f, const struct report_view *v);

#endif
