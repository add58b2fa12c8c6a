// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "report/report_warnings.h"

#include <stdio.h>
#include <string.h>

int report_trace_warnings(const struct report_stats *st, uint32_t ti,
			  char lines[WARNING_MAX][WARNING_LINE])
{
	const struct rs_trace *t = &st->traces[ti];
	const struct trace_read_status *s = &t->status;
	char why[200] = "";
	int n = 0;

	if (trace_read_truncated(s)) {
		trace_read_damage(s, why, sizeof(why));
		snprintf(lines[n++], WARNING_LINE,
			 "%s: the trace is incomplete (%s), as a crash or a full disk leaves it; "
			 "the report covers the %llu events read",
			 t->file, why, (unsigned long long)t->events);
	}
	if (s->malformed)
		snprintf(lines[n++], WARNING_LINE,
			 "%s: %llu lines are not events and were skipped "
			 "(the first, line %llu: %s)",
			 t->file, (unsigned long long)s->malformed,
			 (unsigned long long)s->first_malformed_line,
			 s->first_malformed_why ? s->first_malformed_why : "malformed");
	if (t->lost_events)
		snprintf(lines[n++], WARNING_LINE,
			 "%s: the tracer lost %llu events (ring buffer full): counts are lower "
			 "bounds",
			 t->file, (unsigned long long)t->lost_events);
	if (s->trailing_garbage)
		snprintf(lines[n++], WARNING_LINE,
			 "%s: data after the end of the trace was ignored", t->file);
	if (st->oom && ti == 0)
		snprintf(lines[n++], WARNING_LINE,
			 "out of memory: some files or processes were not counted");
	return n;
}
