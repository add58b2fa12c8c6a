// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The live view's aggregation with events made by hand, so that every
 * figure is known exactly: tests/test_live_stats.py compares the lines
 * printed here ("key value") with what they must be.
 *
 *   phases     10 iterations of a 30 ms "fetch" and a 70 ms "step" region
 *   eviction   tables of 4 rows: 10 files, 6 processes; the rows and the
 *              "other" row add up to the totals
 *   latency    bucket middles of known latencies
 *   json       a snapshot through JSON and back is the same JSON
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/dltrace_events.h"
#include "view/live_snapshot_json.h"
#include "view/live_stats.h"
#include "view/top_view.h"

static struct ev_str str(const char *s)
{
	return (struct ev_str){s, strlen(s)};
}

static void begin(struct event_consumer *c)
{
	struct event e = {.type = EV_TRACE_BEGIN};

	e.begin.target = str("command test");
	e.begin.hostname = str("host");
	e.begin.layers = str("syscall,markers");
	event_deliver(c, &e);
}

static void sys(struct event_consumer *c, uint64_t ts, uint32_t pid, uint32_t tid, unsigned kind,
		const char *path, int64_t ret, uint64_t dur)
{
	struct event e = {.type = EV_SYSCALL, .ts = ts, .pid = pid, .tid = tid};

	e.sys.sys = kind;
	e.sys.ret = ret;
	e.sys.dur = dur;
	e.sys.size = ret > 0 ? (uint64_t)ret : 0;
	if (path)
		e.sys.path.name = str(path);
	event_deliver(c, &e);
}

static void span(struct event_consumer *c, uint64_t ts, const char *name, uint64_t dur)
{
	struct event e = {.type = EV_SPAN, .ts = ts, .pid = 1, .tid = 1};

	e.span.phase = EV_PH_COMPLETE;
	e.span.name = str(name);
	e.span.cat = str("marker");
	e.span.dur = dur;
	event_deliver(c, &e);
}

static void task(struct event_consumer *c, enum event_type type, uint32_t pid, uint32_t tid,
		 uint32_t parent, bool group_dead)
{
	struct event e = {.type = type, .pid = pid, .tid = tid};

	if (type == EV_START) {
		e.fork.thread = pid != tid;
		e.fork.child = tid;
		e.fork.parent_pid = parent;
	} else {
		e.exit.group_dead = group_dead;
	}
	event_deliver(c, &e);
}

static char *line_of(struct top_view *v)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	top_view__line(v, f);
	fclose(f);
	text[strcspn(text, "\n")] = '\0';
	return text;
}

static void phases(void)
{
	struct live_stats *ls = live_stats__new(0);
	struct event_consumer *c = live_stats__consumer(ls);
	struct top_view *v = top_view__new();
	struct live_snapshot s;
	uint64_t t = 0;
	char *line;

	begin(c);
	sys(c, 0, 1, 1, DL_SYS_READ, "/data/a", 4096, 1000);
	for (int i = 0; i < 10; i++) {
		span(c, t, "fetch", 30000000);
		span(c, t + 30000000, "step", 70000000);
		t += 100000000;
	}
	live_stats__snapshot(ls, 1000000000, &s);
	printf("phases steps %llu fetches %llu fetch_ns %llu step_ns %llu\n",
	       (unsigned long long)s.phases.steps, (unsigned long long)s.phases.fetches,
	       (unsigned long long)s.phases.fetch_ns, (unsigned long long)s.phases.step_ns);
	top_view__push(v, &s);
	line = line_of(v);
	printf("phases line %s\n", strchr(line, ' ') + 1); /* without the clock time */
	free(line);
	/* the next interval: 5 iterations with 80 ms of fetch, 20 ms of step */
	for (int i = 0; i < 5; i++) {
		span(c, t, "fetch", 80000000);
		span(c, t + 80000000, "step", 20000000);
		t += 100000000;
	}
	live_stats__snapshot(ls, 1500000000, &s);
	top_view__push(v, &s);
	line = line_of(v);
	printf("phases line %s\n", strchr(line, ' ') + 1);
	free(line);
	top_view__free(v);
	live_stats__free(ls);
}

static void eviction(void)
{
	struct live_stats *ls = live_stats__new(4);
	struct event_consumer *c = live_stats__consumer(ls);
	const char *tables[] = {"procs", "files", "dirs"};
	struct live_snapshot s;
	uint64_t ts = 1;
	char path[64];

	begin(c);
	/* 6 processes one after the other, each reading files, then exiting */
	for (uint32_t p = 0; p < 6; p++) {
		uint32_t pid = 100 + p;

		task(c, EV_START, pid, pid, 99, false);
		for (int f = 0; f < 10; f++) {
			snprintf(path, sizeof(path), "/d%d/f%d", f % 5, f);
			for (int k = 0; k <= f; k++)
				sys(c, ts++, pid, pid, DL_SYS_PREAD64, path, 4096, 2000);
		}
		sys(c, ts++, pid, pid, DL_SYS_OPENAT, "/d0/f0", 3, 5000);
		sys(c, ts++, pid, pid, DL_SYS_FSYNC, "/d0/f0", 0, 9000);
		if (p < 5)
			task(c, EV_EXIT, pid, pid, 0, true);
	}
	/* a thread of the last process */
	task(c, EV_START, 105, 106, 105, false);
	sys(c, ts++, 105, 106, DL_SYS_WRITE, "/d4/f9", 100, 3000);
	live_stats__snapshot(ls, 1000000000, &s);
	printf("eviction total ops %llu rd %llu wr %llu meta %llu sync %llu rd_bytes %llu wr_bytes "
	       "%llu\n",
	       (unsigned long long)s.total.ops, (unsigned long long)s.total.rd_ops,
	       (unsigned long long)s.total.wr_ops, (unsigned long long)s.total.meta_ops,
	       (unsigned long long)s.total.sync_ops, (unsigned long long)s.total.rd_bytes,
	       (unsigned long long)s.total.wr_bytes);
	printf("eviction alive processes %u threads %u seen %u\n", s.processes, s.threads,
	       s.processes_seen);
	for (int t = 0; t < LIVE_TABLES; t++) {
		uint64_t ops = 0, bytes = 0;

		for (uint32_t i = 0; i < s.nrows[t]; i++) {
			const struct live_row *r = &s.rows[t][i];

			ops += r->c.ops;
			bytes += r->c.rd_bytes + r->c.wr_bytes;
			if (r->serial)
				printf("eviction %s row %.*s pid %u alive %d threads %u ops %llu\n",
				       tables[t], (int)r->name_len, r->name, r->pid, r->alive,
				       r->threads, (unsigned long long)r->c.ops);
			else
				printf("eviction %s other ops %llu\n", tables[t],
				       (unsigned long long)r->c.ops);
		}
		printf("eviction %s sum ops %llu bytes %llu\n", tables[t], (unsigned long long)ops,
		       (unsigned long long)bytes);
	}
	live_snapshot_free(&s);
	live_stats__free(ls);
}

static void latency(void)
{
	uint32_t lat[LIVE_LAT_BUCKETS] = {0};
	uint64_t values[] = {0, 3, 4, 7, 8, 1000, 4096, 1000000, 1ull << 45};

	for (unsigned i = 0; i < sizeof(values) / sizeof(values[0]); i++)
		printf("latency %llu bucket %u middle %llu\n", (unsigned long long)values[i],
		       live_lat_bucket(values[i]),
		       (unsigned long long)live_lat_value(live_lat_bucket(values[i])));
	for (int i = 0; i < 98; i++)
		lat[live_lat_bucket(1000)]++;
	lat[live_lat_bucket(1000000)] += 2;
	printf("latency p50 %llu p98 %llu p99 %llu\n",
	       (unsigned long long)live_lat_quantile(lat, 100, 0.5),
	       (unsigned long long)live_lat_quantile(lat, 100, 0.98),
	       (unsigned long long)live_lat_quantile(lat, 100, 0.99));
}

/* The /metrics buckets of latencies at and around their bounds. */
static void metric_buckets(void)
{
	static const uint64_t durs[] = {0,	 999,	     1000,	  1001,	       2500,
					2501,	 4999,	     5000,	  5001,	       1000000,
					1000001, 9999999999, 10000000000, 10000000001, 1ull << 42};

	for (unsigned i = 0; i < sizeof(durs) / sizeof(durs[0]); i++) {
		struct live_stats *ls = live_stats__new(0);
		struct event_consumer *c = live_stats__consumer(ls);
		struct live_totals t;
		int b = -1;

		sys(c, 1, 1, 1, DL_SYS_FSYNC, "/f", 0, durs[i]);
		live_stats__totals(ls, &t);
		for (int k = 0; k <= LIVE_METRIC_BUCKETS; k++)
			if (t.class_lat[LIVE_SYNC][k])
				b = k;
		if (b >= 0 && b < LIVE_METRIC_BUCKETS)
			printf("metric %llu le %llu\n", (unsigned long long)durs[i],
			       (unsigned long long)live_metric_bounds_ns[b]);
		else
			printf("metric %llu le %s\n", (unsigned long long)durs[i],
			       b < 0 ? "none" : "+Inf");
		live_stats__free(ls);
	}
}

static void json(void)
{
	struct live_stats *ls = live_stats__new(0);
	struct event_consumer *c = live_stats__consumer(ls);
	struct live_snapshot s, back;
	char *a, *b, err[128];
	size_t alen, blen;

	begin(c);
	task(c, EV_START, 7, 7, 1, false);
	sys(c, 10, 7, 7, DL_SYS_READ, "/x/\"quoted\"\\ name", 10, 123456);
	sys(c, 20, 7, 7, DL_SYS_WRITE, "/x/y", 5, 654321);
	span(c, 30, "fetch", 5);
	live_stats__snapshot(ls, 42, &s);
	s.lost = 3;
	a = live_snapshot_json(&s, &alen);
	if (live_snapshot_parse(a, alen, &back, err, sizeof(err))) {
		printf("json error %s\n", err);
		return;
	}
	b = live_snapshot_json(&back, &blen);
	printf("json same %d bytes %zu lost %llu files %u\n", alen == blen && !memcmp(a, b, alen),
	       alen, (unsigned long long)back.lost, back.nrows[LIVE_FILES]);
	free(a);
	free(b);
	live_snapshot_free(&s);
	live_snapshot_free(&back);
	live_stats__free(ls);
}

int main(void)
{
	phases();
	eviction();
	latency();
	metric_buckets();
	json();
	return 0;
}
