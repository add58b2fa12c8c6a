/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What the report must say about a trace it read: cut short, damaged, lossy. */
#ifndef REPORT_WARNINGS_H
#define REPORT_WARNINGS_H

#include "report/report_stats.h"

#define WARNING_MAX  6
#define WARNING_LINE 400

/* Fill lines with the warnings of trace t; returns how many. */
int report_trace_warnings(const struct report_stats *st, uint32_t t,
			  char lines[WARNING_MAX][WARNING_LINE]);

#endif
