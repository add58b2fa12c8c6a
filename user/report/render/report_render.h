/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A report session in each rendering, after report_session__finish. */
#ifndef REPORT_RENDER_H
#define REPORT_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/report_session.h"

#define REPORT_DEFAULT_TOP 100

void report_session__terminal(const struct report_session *s, FILE *out, unsigned top, bool color);
void report_session__json(const struct report_session *s, FILE *out, unsigned top);
void report_session__html(const struct report_session *s, FILE *out, unsigned top);
/* The JSON as malloc'd text of *len bytes, NULL when out of memory. */
char *report_session__json_text(const struct report_session *s, size_t *len);

#endif
