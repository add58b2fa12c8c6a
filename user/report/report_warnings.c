// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "report/report_warnings.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lib/human_format.h"

/* The stop reasons of a tracer that ran to the job's end (trace_session.c, daemon.c, merge). */
static bool job_ended(const char *reason)
{
	return !*reason || !strcmp(reason, "target exited") || !strcmp(reason, "cgroup removed") ||
	       !strcmp(reason, "merged");
}

void report_trace_stop(const struct report_stats *st, uint32_t ti, struct trace_stop *out)
{
	const struct rs_trace *t = &st->traces[ti];
	uint64_t read_end =
	    t->end_ns > (uint64_t)t->offset_ns ? t->end_ns - (uint64_t)t->offset_ns : 0;

	memset(out, 0, sizeof(*out));
	out->reason = t->stop_reason != NONE32 ? rs_str(st, t->stop_reason) : "";
	out->write_error = t->write_error != NONE32 ? rs_str(st, t->write_error) : "";
	out->until_ns = t->events ? read_end : 0;
	if (t->has_summary) {
		out->known = true;
		out->stop_ns = t->duration_ns;
		out->stop_wall_ns = t->end_wall_ns;
		out->cut = t->truncated || t->capped_events;
		out->stopped = !job_ended(out->reason);
		/* what the writer counted and the file does not hold: after a write error */
		if (t->truncated && t->summary_events > t->events)
			out->not_written = t->summary_events - t->events;
		out->not_written += t->capped_events;
	}
	out->early = out->cut || out->stopped || trace_read_truncated(&t->status);
}

void report_wall_time(int64_t wall_ns, int digits, char *out, size_t size)
{
	time_t sec = (time_t)(wall_ns / 1000000000);
	long long frac = wall_ns % 1000000000;
	char when[32];
	struct tm tm;

	if (wall_ns < 0 || !gmtime_r(&sec, &tm)) {
		snprintf(out, size, "?");
		return;
	}
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	for (int i = digits; i < 9; i++)
		frac /= 10;
	if (digits > 0)
		snprintf(out, size, "%s.%0*lldZ", when, digits, frac);
	else
		snprintf(out, size, "%sZ", when);
}

/*
 * Said once, first: tracing stopped early, when and why, and that the
 * figures cover only the time before.  Nothing when the trace covers the
 * job to its end; a trace without summary gets the damage warning instead.
 */
static void stop_warning(const struct report_stats *st, uint32_t ti, const struct trace_stop *s,
			 char *line)
{
	const struct rs_trace *t = &st->traces[ti];
	char at[HUMAN_MAX], until[HUMAN_MAX], n[HUMAN_MAX], wall[48] = "", why[160], what[320];
	char kept[160] = "";

	human_ns(at, s->stop_ns);
	human_ns(until, s->until_ns);
	if (s->stop_wall_ns) {
		wall[0] = ',';
		wall[1] = ' ';
		report_wall_time(s->stop_wall_ns, 3, wall + 2, sizeof(wall) - 2);
	}
	if (t->truncated && *s->write_error)
		snprintf(why, sizeof(why), "%s: %s", s->stopped ? s->reason : "output write error",
			 s->write_error);
	else
		snprintf(why, sizeof(why), "%s", s->reason);
	if (s->stopped)
		snprintf(what, sizeof(what), "tracing stopped early (%s) at %s into the trace%s",
			 why, at, wall);
	else if (t->truncated && *s->write_error)
		/* the daemon: the job ran on, its file stopped taking events */
		snprintf(what, sizeof(what), "the trace file stopped taking events (%s)", why);
	else if (t->truncated)
		snprintf(what, sizeof(what),
			 "the trace was cut short (its summary says truncated)");
	else
		snprintf(what, sizeof(what), "the trace stopped taking events at its size cap");
	if (!s->stopped && *s->reason && strcmp(s->reason, "merged"))
		snprintf(what + strlen(what), sizeof(what) - strlen(what),
			 "; tracing went on to %s (%s)", at, s->reason);
	if (s->cut)
		snprintf(kept, sizeof(kept), "; its events end at %s%s%s%s", until,
			 s->not_written ? ", " : "",
			 s->not_written ? human_count(n, s->not_written) : "",
			 s->not_written ? " more were not written" : "");
	snprintf(line, WARNING_LINE, "%s: %s%s; the figures cover only the trace's first %s",
		 t->file ? t->file : "", what, kept, s->cut ? until : at);
}

int report_trace_warnings(const struct report_stats *st, uint32_t ti,
			  char lines[WARNING_MAX][WARNING_LINE])
{
	const struct rs_trace *t = &st->traces[ti];
	const struct trace_read_status *s = &t->status;
	struct trace_stop stop;
	char why[200] = "";
	int n = 0;

	report_trace_stop(st, ti, &stop);
	if (stop.known && (stop.stopped || stop.cut))
		stop_warning(st, ti, &stop, lines[n++]);
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
	if (st->run_calls && ti == 0)
		snprintf(lines[n++], WARNING_LINE,
			 "%llu calls were counted in runs (--summary-only): their latency "
			 "percentiles, timeline, bursts and phases are approximate "
			 "(--summary-only=events keeps each call's time)",
			 (unsigned long long)st->run_calls);
	return n;
}
