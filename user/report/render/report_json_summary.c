// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `--json`, the job as a whole: traces[], job, time (per process and thread),
 * syscalls, access_sizes and pattern.
 */
#include <stdlib.h>

#include "report/render/report_json_internal.h"
#include "report/report_warnings.h"
#include "event/syscall_table.h"

void rj_traces(struct jstream *s, const struct report_stats *st)
{
	char lines[WARNING_MAX][WARNING_LINE];

	js_open(s, "traces", '[');
	for (uint32_t t = 0; t < st->ntraces; t++) {
		const struct rs_trace *tr = &st->traces[t];
		int n = report_trace_warnings(st, t, lines);
		struct json_object *o = json_object_new_object(),
				   *warnings = json_object_new_array();
		struct trace_stop stop;
		char wall[48];

		jv_add(o, "file", j_str(tr->file ? tr->file : ""));
		jv_add(o, "hostname", j_sid(st, tr->hostname));
		jv_add(o, "kernel", j_sid(st, tr->kernel));
		jv_add(o, "target", j_sid(st, tr->target));
		jv_add(o, "start_wall", j_sid(st, tr->start_wall));
		jv_add(o, "start_wall_ns", j_i64(tr->start_wall_ns));
		jv_add(o, "duration_ns",
		       j_u64(tr->duration_ns ? tr->duration_ns
					     : tr->end_ns - (uint64_t)tr->offset_ns));
		jv_add(o, "events", j_u64(tr->events));
		jv_add(o, "lost_events", j_u64(tr->lost_events));
		jv_add(o, "lost_bytes", j_u64(tr->lost_bytes));
		jv_add(o, "stop_reason", j_sid(st, tr->stop_reason));
		report_trace_stop(st, t, &stop);
		/* whole: nothing missing of the time it covers (a cut file, a cap, damage) */
		jv_add(o, "complete", j_bool(!trace_read_truncated(&tr->status) && !stop.cut));
		jv_add(o, "stopped_early", j_bool(stop.early));
		jv_add(o, "stop_ns", stop.known ? j_u64(stop.stop_ns) : NULL);
		jv_add(o, "stop_wall_ns",
		       stop.known && stop.stop_wall_ns ? j_i64(stop.stop_wall_ns) : NULL);
		report_wall_time(stop.stop_wall_ns, 9, wall, sizeof(wall));
		jv_add(o, "stop_wall", stop.known && stop.stop_wall_ns ? j_str(wall) : NULL);
		jv_add(o, "events_until_ns", j_u64(stop.until_ns));
		jv_add(o, "truncated", j_bool(tr->truncated));
		jv_add(o, "write_error", j_sid(st, tr->write_error));
		jv_add(o, "capped_events", j_u64(tr->capped_events));
		jv_add(o, "events_not_written", stop.known ? j_u64(stop.not_written) : NULL);
		for (int i = 0; i < n; i++)
			jv_push(warnings, j_str(lines[i]));
		jv_add(o, "warnings", warnings);
		js_put(s, NULL, o);
	}
	js_close(s, ']');
}

struct json_object *rj_job(const struct report_stats *st)
{
	struct json_object *o = json_object_new_object(), *commands = json_object_new_array(),
			   *hosts = json_object_new_array();
	uint64_t lost = 0, failed = 0;
	bool stopped_early = false;

	for (uint32_t t = 0; t < st->ntraces; t++) {
		struct trace_stop stop;

		report_trace_stop(st, t, &stop);
		stopped_early |= stop.early;
	}
	for (uint32_t t = 0; t < st->ntraces; t++) {
		bool dup = false;

		for (uint32_t u = 0; u < t; u++)
			if (st->traces[u].target == st->traces[t].target)
				dup = true;
		if (!dup && st->traces[t].target != NONE32)
			jv_push(commands, j_sid(st, st->traces[t].target));
	}
	jv_add(o, "commands", commands);
	for (uint32_t t = 0; t < st->ntraces; t++) {
		bool dup = false;

		for (uint32_t u = 0; u < t; u++)
			if (st->traces[u].hostname == st->traces[t].hostname)
				dup = true;
		if (!dup)
			jv_push(hosts, j_sid(st, st->traces[t].hostname));
	}
	jv_add(o, "hosts", hosts);
	for (uint32_t t = 0; t < st->ntraces; t++)
		lost += st->traces[t].lost_events;
	for (int s = 0; s < SCOPE_COUNT; s++)
		failed += st->tot[s].failed;
	jv_add(o, "start_ns", j_u64(st->job_start_ns));
	jv_add(o, "wall_ns", j_u64(st->wall_ns));
	jv_add(o, "stopped_early", j_bool(stopped_early));
	jv_add(o, "processes", j_u64(st->nprocs_active));
	jv_add(o, "threads", j_u64(st->nthreads));
	jv_add(o, "events", j_u64(st->events));
	jv_add(o, "lost_events", j_u64(lost));
	jv_add(o, "syscalls", j_u64(st->syscalls));
	jv_add(o, "failed_syscalls", j_u64(failed));
	jv_add(o, "calls_in_runs", j_u64(st->run_calls));
	return o;
}

static struct json_object *proc_time(const struct report_stats *st, uint32_t i)
{
	const struct rs_proc *p = &st->procs[i];
	uint64_t cls[CLS_COUNT] = {0}, io = rs_proc_io(p), wall = rs_proc_wall(st, p);
	struct json_object *o = json_object_new_object();

	for (int s = 0; s < SCOPE_COUNT; s++)
		for (int c = 0; c < CLS_COUNT; c++)
			cls[c] += p->io_ns[s][c];
	jv_add(o, "pid", j_u64(p->pid));
	jv_add(o, "ppid", j_u64(p->ppid));
	jv_add(o, "host", j_sid(st, st->traces[p->trace].hostname));
	jv_add(o, "command", j_sid(st, p->name));
	jv_add(o, "rank", j_rank(p->rank));
	jv_add(o, "rank_from", j_sid(st, p->rank_from));
	jv_add(o, "local_rank", j_rank(p->local_rank));
	jv_add(o, "world_size", j_rank(p->world_size));
	jv_add(o, "threads", j_u64(p->threads));
	jv_add(o, "wall_ns", j_u64(wall));
	jv_add(o, "io_ns", j_u64(io));
	jv_add(o, "data_ns", j_u64(cls[CLS_DATA]));
	jv_add(o, "metadata_ns", j_u64(cls[CLS_META]));
	jv_add(o, "sync_ns", j_u64(cls[CLS_SYNC]));
	jv_add(o, "io_share", j_num(wall ? (double)io / wall : 0));
	jv_add(o, "app_io_ns",
	       j_u64(p->io_ns[SCOPE_APP][CLS_DATA] + p->io_ns[SCOPE_APP][CLS_META] +
		     p->io_ns[SCOPE_APP][CLS_SYNC]));
	jv_add(o, "env_io_ns",
	       j_u64(p->io_ns[SCOPE_ENV][CLS_DATA] + p->io_ns[SCOPE_ENV][CLS_META] +
		     p->io_ns[SCOPE_ENV][CLS_SYNC]));
	jv_add(o, "calls", j_u64(p->calls));
	jv_add(o, "failed", j_u64(p->failed));
	jv_add(o, "app_bytes_read", j_u64(p->app_bytes_read));
	jv_add(o, "app_bytes_written", j_u64(p->app_bytes_written));
	jv_add(o, "origins", j_origin_list(p->origins));
	return o;
}

/* A thread's pid .. io_share, as a new object. */
static struct json_object *thread_fields(const struct report_stats *st, const struct rs_thread *t)
{
	uint64_t wall = rs_thread_wall(st, t), io = rs_thread_io(t);
	struct json_object *o = json_object_new_object();

	jv_add(o, "pid", j_u64(st->procs[t->proc].pid));
	jv_add(o, "tid", j_u64(t->tid));
	jv_add(o, "name", j_sid(st, t->comm));
	jv_add(o, "wall_ns", j_u64(wall));
	jv_add(o, "io_ns", j_u64(io));
	jv_add(o, "data_ns", j_u64(t->io_ns[CLS_DATA]));
	jv_add(o, "metadata_ns", j_u64(t->io_ns[CLS_META]));
	jv_add(o, "sync_ns", j_u64(t->io_ns[CLS_SYNC]));
	jv_add(o, "io_share", j_num(wall ? (double)io / wall : 0));
	return o;
}

static struct json_object *training_thread(const struct report_stats *st)
{
	const struct rs_thread *t;
	struct json_object *o;

	if (st->training_thread == NONE32)
		return NULL;
	t = &st->threads[st->training_thread];
	o = thread_fields(st, t);
	jv_add(o, "app_io_ns", j_u64(t->scope_ns[SCOPE_APP]));
	jv_add(o, "env_io_ns", j_u64(t->scope_ns[SCOPE_ENV]));
	jv_add(o, "other_io_ns", j_u64(t->scope_ns[SCOPE_OTHER]));
	jv_add(o, "app_read_ns", j_u64(t->app_read_ns));
	jv_add(o, "burst_blocked_ns", j_u64(t->burst_blocked_ns));
	return o;
}

void rj_time(struct jstream *s, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	uint64_t cls[CLS_COUNT] = {0};
	struct json_object *io = json_object_new_object();
	uint32_t *order;

	for (int sc = 0; sc < SCOPE_COUNT; sc++)
		for (int c = 0; c < CLS_COUNT; c++)
			cls[c] += st->tot[sc].io_ns[c];
	js_open(s, "time", '{');
	jv_add(io, "data", j_u64(cls[CLS_DATA]));
	jv_add(io, "metadata", j_u64(cls[CLS_META]));
	jv_add(io, "sync", j_u64(cls[CLS_SYNC]));
	jv_add(io, "total", j_u64(cls[CLS_DATA] + cls[CLS_META] + cls[CLS_SYNC]));
	js_put(s, "io_ns", io);
	js_put(s, "training_thread", training_thread(st));
	js_open(s, "processes", '[');
	order = rs_sorted(st->nprocs, key_proc_io, st);
	for (uint32_t k = 0; order && k < st->nprocs && k < v->top; k++)
		js_put(s, NULL, proc_time(st, order[k]));
	free(order);
	js_close(s, ']');
	js_open(s, "threads", '[');
	order = rs_sorted(st->nthreads, key_thread_io, st);
	for (uint32_t k = 0; order && k < st->nthreads && k < v->top; k++) {
		const struct rs_thread *t = &st->threads[order[k]];
		struct json_object *o = thread_fields(st, t);

		jv_add(o, "app_bytes_read", j_u64(t->app_bytes_read));
		js_put(s, NULL, o);
	}
	free(order);
	js_close(s, ']');
	js_close(s, '}');
}

static struct json_object *syscall_entry(const struct rs_syscall *sc, int k)
{
	const struct syscall_info *si = syscall_info(k);
	struct json_object *o = json_object_new_object(), *size = json_object_new_object(),
			   *lat = json_object_new_object();

	jv_add(o, "name", j_str(si->name));
	jv_add(o, "class", j_str(io_class_name(si->io_class)));
	jv_add(o, "calls", j_u64(sc->calls));
	jv_add(o, "failed", j_u64(sc->failed));
	jv_add(o, "bytes", j_u64(sc->bytes));
	jv_add(size, "count", j_u64(sc->size.n));
	jv_add(size, "min", j_u64(sc->size.min));
	jv_add(size, "p25", j_u64(sketch_quantile(&sc->size, 0.25)));
	jv_add(size, "median", j_u64(sketch_quantile(&sc->size, 0.5)));
	jv_add(size, "mean", j_num(sc->size.n ? (double)sc->size.sum / sc->size.n : 0));
	jv_add(size, "p75", j_u64(sketch_quantile(&sc->size, 0.75)));
	jv_add(size, "max", j_u64(sc->size.max));
	jv_add(o, "size", size);
	jv_add(lat, "mean", j_num(sc->calls ? (double)sc->lat_sum / sc->calls : 0));
	jv_add(lat, "p50", j_u64(sketch_quantile(&sc->lat, 0.5)));
	jv_add(lat, "p99", j_u64(sketch_quantile(&sc->lat, 0.99)));
	jv_add(lat, "max", j_u64(sc->lat.max));
	jv_add(o, "latency_ns", lat);
	return o;
}

struct json_object *rj_syscalls(const struct report_stats *st)
{
	struct json_object *o = json_object_new_object();

	for (int s = 0; s < SCOPE_COUNT; s++) {
		struct json_object *list = json_object_new_array();

		for (int k = 0; k < DL_SYS_COUNT; k++)
			if (st->sys[s][k].calls)
				jv_push(list, syscall_entry(&st->sys[s][k], k));
		jv_add(o, j_scope_names[s], list);
	}
	return o;
}

static struct json_object *size_list(const struct report_stats *st, int dir)
{
	uint64_t size[4], count[4];
	int n = common_sizes(st, dir, size, count);
	struct json_object *list = json_object_new_array();

	for (int i = 0; i < n; i++) {
		struct json_object *o = json_object_new_object();

		jv_add(o, "size", j_u64(size[i]));
		jv_add(o, "count", j_u64(count[i]));
		jv_push(list, o);
	}
	return list;
}

struct json_object *rj_access_sizes(const struct report_stats *st)
{
	struct json_object *o = json_object_new_object(), *bins = json_object_new_array();

	for (int b = 0; b < SIZE_BINS; b++)
		jv_push(bins, j_str(rs_size_bin_names[b]));
	jv_add(o, "bins", bins);
	jv_add(o, "read", j_u64_array(st->hist[IO_DIR_READ], SIZE_BINS));
	jv_add(o, "write", j_u64_array(st->hist[IO_DIR_WRITE], SIZE_BINS));
	jv_add(o, "common", size_list(st, -1));
	jv_add(o, "common_read", size_list(st, IO_DIR_READ));
	jv_add(o, "common_write", size_list(st, IO_DIR_WRITE));
	jv_add(o, "exact", j_bool(!st->sizes_uncounted));
	return o;
}

struct json_object *rj_pattern(const struct report_stats *st)
{
	const struct rs_totals *t = &st->tot[SCOPE_APP];
	struct json_object *o = json_object_new_object();

	jv_add(o, "reads", j_u64(t->reads));
	jv_add(o, "writes", j_u64(t->writes));
	jv_add(o, "bytes_read", j_u64(t->bytes_read));
	jv_add(o, "bytes_written", j_u64(t->bytes_written));
	jv_add(o, "seq_reads", j_u64(t->seq_reads));
	jv_add(o, "consec_reads", j_u64(t->consec_reads));
	jv_add(o, "seq_writes", j_u64(t->seq_writes));
	jv_add(o, "consec_writes", j_u64(t->consec_writes));
	jv_add(o, "random_reads", j_u64(t->random_reads));
	jv_add(o, "random_writes", j_u64(t->random_writes));
	jv_add(o, "small_reads", j_u64(t->small_reads));
	jv_add(o, "small_writes", j_u64(t->small_writes));
	jv_add(o, "seeks", j_u64(t->seeks));
	jv_add(o, "rw_switches", j_u64(t->rw_switches));
	jv_add(o, "opens", j_u64(t->opens));
	jv_add(o, "stats", j_u64(t->stats));
	jv_add(o, "metadata_calls", j_u64(t->meta_ops));
	jv_add(o, "syncs", j_u64(t->syncs));
	jv_add(o, "mmaps", j_u64(t->mmaps));
	jv_add(o, "no_offset", j_u64(t->no_offset));
	jv_add(o, "hints", j_u64(t->hints));
	{
		struct json_object *by = json_object_new_object();

		for (int i = 0; i < ORG_COUNT; i++) {
			const struct rs_origin *g = &st->origin[i];
			struct json_object *x = json_object_new_object();

			jv_add(x, "reads", j_u64(g->reads));
			jv_add(x, "writes", j_u64(g->writes));
			jv_add(x, "syncs", j_u64(g->syncs));
			jv_add(x, "bytes_read", j_u64(g->bytes_read));
			jv_add(x, "bytes_written", j_u64(g->bytes_written));
			jv_add(by, j_origin_names[i], x);
		}
		jv_add(o, "by_origin", by);
	}
	return o;
}
