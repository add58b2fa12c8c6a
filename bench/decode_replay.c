// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The benchmark's decode replay: ring-buffer records saved by `dltrace
 * --save-records` go through the decoder and one consumer, with no kernel
 * involved, so that user-space cost per event can be counted exactly
 * (valgrind --tool=callgrind counts the instructions of
 * decode_replay_records()).  "Decode": `dltrace replay` is to replay a job's I/O.
 *
 * Usage: decode_replay MODE RECORDS [MAX_RECORDS]
 * MODE: json|gz|pftrace|pftrace.gz|report|summary|live|live-only.
 * The trace goes to /dev/null, or to $DECODE_REPLAY_OUT when it is set; the
 * report to /dev/null as text, or to $DECODE_REPLAY_REPORT as JSON (to compare builds).
 *   json        decode, write the Chrome JSON trace (to /dev/null)
 *   gz          the same, gzip-compressed (level 1, dltrace's default)
 *   pftrace     decode, write the .pftrace
 *   pftrace.gz  the same, gzip-compressed (level 5, dltrace's default for it)
 *   report      decode and feed the report (the `--report` path: JSON to /dev/null too)
 *   summary     decode and feed the report, no trace (the `--summary-only` path)
 *   live        decode, the JSON trace and the live view's statistics (`--live`); a
 *               snapshot and a screen (to /dev/null) every LIVE_EVERY events
 *               ($DECODE_REPLAY_LIVE_EVERY); prints the CPU time a screen took
 *   live-only   decode and the live view, no trace file (`dltrace top` without -o)
 * Prints: records, events, seconds, ns per event.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io/record_file.h"
#include "live/job_trace.h"
#include "report/report_session.h"
#include "report/render/report_render.h"
#include "view/live_stats.h"
#include "view/top_view.h"

/* About one screen a second at the rates the live view is meant for (events). */
#define LIVE_EVERY 131072

/* The live view's side: its statistics, and the screens it would draw. */
struct live_side {
	struct live_stats *stats;
	struct top_view *view;
	FILE *null;
	uint64_t next;	  /* events at the next screen */
	uint64_t every;	  /* LIVE_EVERY, or $DECODE_REPLAY_LIVE_EVERY */
	unsigned screens; /* taken, and the time they took */
	double screen_s;
};

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void live_screen(struct live_side *l, uint64_t events)
{
	struct live_snapshot s;
	double t = cpu_now();

	if (!l->stats || live_stats__snapshot(l->stats, events, &s))
		return;
	top_view__push(l->view, &s);
	top_view__screen(l->view, l->null, 160, 50);
	l->screens++;
	l->screen_s += cpu_now() - t;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The measured part: every record through the decoder, then the trace's end. */
__attribute__((noinline)) void decode_replay_records(struct job_trace *jt, const char *buf,
						     size_t len, uint64_t max, uint64_t *records,
						     struct live_side *live)
{
	struct trace_summary sum = {.stop_reason = "decode replay"};

	size_t off = 0;

	*records = 0;
	while (off + 4 <= len && *records < max) {
		uint32_t n;

		memcpy(&n, buf + off, 4);
		if (off + 4 + n > len)
			break;
		job_trace_record(jt, buf + off + 4, n);
		off += 4 + n;
		++*records;
		if (live->stats && jt->tee.events >= live->next) {
			live->next += live->every;
			live_screen(live, jt->tee.events);
		}
	}
	job_trace_finish(jt, &sum);
}

int main(int argc, char **argv)
{
	struct trace_meta m = {.version = "decode replay",
			       .kernel = "decode replay",
			       .hostname = "decode replay",
			       .target = "decode replay",
			       .layers = "syscall"};
	struct report_session *rs = NULL;
	struct live_side live = {0};
	bool live_mode;
	struct job_trace jt;
	uint64_t max = argc > 3 ? strtoull(argv[3], NULL, 10) : UINT64_MAX, records;
	char *buf, err[512];
	size_t len;
	double t;
	int fd;

	static const char *const modes[] = {"json",   "gz",	 "pftrace", "pftrace.gz",
					    "report", "summary", "live",    "live-only"};
	struct job_output out = {.fd = -1};
	bool known = false;

	for (size_t i = 0; argc >= 3 && i < sizeof(modes) / sizeof(modes[0]); i++)
		known |= !strcmp(argv[1], modes[i]);
	if (!known) {
		fprintf(stderr,
			"usage: decode_replay json|gz|pftrace|pftrace.gz|report|summary|live|"
			"live-only RECORDS [MAX_RECORDS]\n");
		return 2;
	}
	live_mode = !strncmp(argv[1], "live", 4);
	if (record_file_load(argv[2], &buf, &len, err, sizeof(err))) {
		fprintf(stderr, "decode_replay: %s\n", err);
		return 1;
	}
	if (len >= 4 + 8) /* the trace starts at the first record's time */
		memcpy(&m.start_mono_ns, buf + 4, 8);
	if (strcmp(argv[1], "summary") && strcmp(argv[1], "live-only")) {
		fd = open(getenv("DECODE_REPLAY_OUT") ? getenv("DECODE_REPLAY_OUT") : "/dev/null",
			  O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		out.fd = fd;
		out.format =
		    strncmp(argv[1], "pftrace", 7) ? TRACE_FORMAT_JSON : TRACE_FORMAT_PFTRACE;
		out.gzip = !strcmp(argv[1], "gz") || !strcmp(argv[1], "pftrace.gz");
		out.level = trace_format_gzip_level(out.format);
	}
	if (job_trace_init(&jt, &out))
		return 1;
	if (live_mode) {
		live.stats = live_stats__new(0);
		live.view = top_view__new();
		live.null = fopen("/dev/null", "we");
		if (!live.stats || !live.view || !live.null)
			return 1;
		job_trace_add_consumer(&jt, live_stats__consumer(live.stats));
		live.every = getenv("DECODE_REPLAY_LIVE_EVERY")
				 ? strtoull(getenv("DECODE_REPLAY_LIVE_EVERY"), NULL, 10)
				 : LIVE_EVERY;
		live.next = live.every;
	}
	if (!strcmp(argv[1], "report") || !strcmp(argv[1], "summary")) {
		rs = report_session__new();
		job_trace_add_consumer(&jt, report_session__begin_trace(rs, "decode replay"));
	}
	job_trace_begin(&jt, &m);
	t = now();
	decode_replay_records(&jt, buf, len, max, &records, &live);
	if (rs) {
		const char *report_out = getenv("DECODE_REPLAY_REPORT");
		FILE *null = fopen(report_out ? report_out : "/dev/null", "we");

		report_session__end_trace(rs, NULL);
		report_session__finish(rs, 0);
		if (report_out)
			report_session__json(rs, null, REPORT_DEFAULT_TOP);
		else
			report_session__terminal(rs, null, REPORT_DEFAULT_TOP, false);
		fclose(null);
		report_session__free(rs);
	}
	t = now() - t;
	printf("records %llu events %llu seconds %.3f ns_per_event %.1f\n",
	       (unsigned long long)records, (unsigned long long)job_trace_events(&jt), t,
	       t * 1e9 / (job_trace_events(&jt) ? job_trace_events(&jt) : 1));
	if (live_mode) {
		live_screen(&live, jt.tee.events); /* the tables at their fullest */
		printf("screens %u cpu_ms_per_screen %.3f\n", live.screens,
		       live.screen_s * 1e3 / (live.screens ? live.screens : 1));
		live_stats__free(live.stats);
		top_view__free(live.view);
		fclose(live.null);
	}
	free(buf);
	return 0;
}
