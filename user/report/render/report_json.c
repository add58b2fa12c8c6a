// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `dltrace report --json`: the report as one JSON object with stable keys
 * (schema "dltrace-report-1"; keys are only ever added).  Times are in ns,
 * sizes in bytes, shares in [0, 1]; "*_ns" instants are ns since the
 * earliest trace start.  Lists hold at most --top entries (default 100),
 * largest first.
 *
 *   schema, generator
 *   traces[]     file, hostname, kernel, target, start_wall, start_wall_ns,
 *                duration_ns, events, lost_events, lost_bytes, stop_reason,
 *                complete (false: damaged, or its file lacks events of the
 *                time it covers: a write error, the size cap),
 *                stopped_early (it does not cover the job to its end: tracing
 *                stopped on a signal, --duration, an error, ...; a cut or
 *                damaged file), stop_ns (when tracing stopped, ns since the
 *                trace's start; null: no summary), stop_wall_ns, stop_wall
 *                (the same on the wall clock, ISO 8601), events_until_ns (the
 *                end of its last event read, ns since its start: the figures
 *                cover up to there), truncated (its file stopped taking events
 *                on a write error), write_error (that error, or null),
 *                capped_events, events_not_written (the tracer had them, the
 *                file does not hold them; null: no summary), warnings[]
 *   job          commands[], hosts[], start_ns, wall_ns (first to last event of
 *                the job's processes), stopped_early (a trace did), processes,
 *                threads, events, lost_events, syscalls, failed_syscalls
 *   time         io_ns{data,metadata,sync,total} (all files),
 *                training_thread{pid,tid,name,wall_ns,io_ns,data_ns,metadata_ns,
 *                sync_ns,io_share,app_io_ns,env_io_ns,other_io_ns,app_read_ns,
 *                burst_blocked_ns} (or null; other: pipes, sockets),
 *                processes[]{pid,ppid,host,command,rank,rank_from,local_rank,
 *                world_size (null: unknown),threads,wall_ns,io_ns,data_ns,
 *                metadata_ns,sync_ns,io_share,app_io_ns,env_io_ns,calls,failed,
 *                app_bytes_read,app_bytes_written,origins[]},
 *                threads[]{pid,tid,name,wall_ns,io_ns,data_ns,metadata_ns,sync_ns,
 *                io_share,app_bytes_read}
 *   syscalls     {application,environment,other}[]{name,class,calls,failed,bytes,
 *                size{count,min,p25,median,mean,p75,max},
 *                latency_ns{mean,p50,p99,max}}
 *   access_sizes bins[], read[10], write[10] (Darshan's bins, application),
 *                common[]{size,count} (4 most common, reads and writes),
 *                common_read[], common_write[], exact
 *   pattern      reads, writes, bytes_read, bytes_written, seq_reads,
 *                consec_reads, seq_writes, consec_writes, random_reads,
 *                random_writes, small_reads, small_writes, seeks, rw_switches,
 *                opens, stats, metadata_calls, syncs, mmaps, no_offset, hints,
 *                by_origin{syscall,io_uring,aio,mmap}{reads,writes,syncs,
 *                bytes_read,bytes_written} (each request counted once, by the
 *                layer that issued it; the figures above add them all up)
 *   files        count, read, written, read_once, reread, redundant_bytes,
 *                reread_within_open_bytes, concurrent_duplicate_bytes,
 *                dataset_bytes, size_bins[10], list[]{path,path_hex?,bytes_read,
 *                bytes_written,reads,writes,opens,stats,seeks,syncs,origins[],hints,seq_reads,
 *                consec_reads,seq_writes,consec_writes,random_reads,random_writes,
 *                rw_switches,processes,readers,first_ns,last_ns,max_byte_read,
 *                max_byte_written,size,extent,passes,reread_within_open,
 *                concurrent_duplicate_bytes,page_faults,cache_miss_bytes,
 *                cache_hit_ratio (null: no read with cache information),read_ns,
 *                write_ns,metadata_ns,sync_ns,
 *                dev,fs}
 *   directories[] path, files, bytes_read, bytes_written, reads, writes,
 *                metadata_calls, failed, io_ns
 *   filesystems[] dev, fs, mount_prefix, files, bytes_read, bytes_written, io_ns
 *   balance      groups[]{parent_pid,command,members,bytes_min,bytes_max,
 *                bytes_imbalance,io_ns_min,io_ns_max,time_imbalance,most_pid,
 *                least_pid,slowest_pid,fastest_pid,ranks[],most_rank,least_rank,
 *                slowest_rank,fastest_rank}, hosts[]{hostname,ranks[],bytes,io_ns,
 *                processes,traces,threads,bytes_read,bytes_written,calls,failed,
 *                start_ns,wall_ns,events,lost_events} (one per hostname),
 *                across_hosts{hosts,bytes_min,bytes_max,bytes_imbalance,io_ns_min,
 *                io_ns_max,time_imbalance,most,least,slowest,fastest}
 *   timeline     start_ns, bin_ns, read_bytes[], write_bytes[], metadata_calls[]
 *                (bins of bin_ns from start_ns, covering the job)
 *   bursts       count, bytes, blocked_ns, list[]{pid,tid,start_ns,end_ns,bytes,
 *                blocked_ns,ops,path,training_thread}
 *   environment  calls, failed, bytes_read, bytes_written, io_ns, files,
 *                kinds[]{kind,calls,failed,bytes_read,bytes_written,io_ns,files}
 *   other        calls, failed, bytes_read, bytes_written, io_ns (pipes, sockets,
 *                unnamed, shared memory), shared_memory{calls,failed,bytes_read,
 *                bytes_written,io_ns} (of them: segments in /dev/shm named by a
 *                runtime or used as one, SysV, memfd; never application I/O)
 *   layers       active, page_faults{application,environment,other},
 *                reads_with_cache_info, cache_miss_bytes{application,environment,
 *                other}, cache_hit_ratio{application,environment,other} (share of
 *                the bytes read served by the page cache, or null),
 *                block{reads,writes,other,read_bytes,write_bytes,
 *                latency_ns{p50,p99,max}}, uring_requests, aio_requests, vfs_events (what the
 *                other capture layers saw; zeros without them)
 *   levels       {stdio,hdf5,mpiio}{calls,time_ns,functions[]{name,calls,failed,
 *                time_ns,latency_ns{p50,p99,max},bytes_requested (null: not known for
 *                every call),syscalls,sys_reads,
 *                sys_read_bytes,sys_writes,sys_write_bytes,partial},read{calls,time_ns,
 *                bytes_requested,syscalls,syscall_bytes,syscalls_per_call,bytes_ratio},
 *                write{...}}, unknown_calls, objects[]{level,file,object (null: the
 *                file's row),opens,open_read_bytes,read{calls,time_ns,bytes_requested,
 *                syscalls,syscall_bytes,bytes_ratio,excess_bytes,reads_with_cache_info,
 *                cache_miss_bytes,selections{none,points,hyperslab,all}{calls,bytes},
 *                sizes[]{bytes,calls},sizes_other_calls},write{...}} (per HDF5 dataset
 *                and per file, by the bytes read beyond those asked), layers_off[]{layer,
 *                library,processes,files,reads,bytes_read} (hdf5, mpiio: off while
 *                traced processes loaded their library; reads of .h5 files, or of
 *                those processes' application files)
 *   python       calls, io_ns, count, locations[]{location ("FILE:LINE FUNCTION"),
 *                calls,failed,reads,read_bytes,writes,write_bytes,io_ns} (syscalls
 *                per innermost application frame, --python-stacks; by io_ns)
 *   phases       regions[]{name,count,time_ns,dur_ns{p50,p99,max}}, other_regions,
 *                instants, counters, loops[]{pid,tid,host,name,steps,epochs,
 *                stall_from,nested_steps,iteration_ns{median,p99,max,total},step_ns{},
 *                stall_ns{...,total},stall_share,stall_share_per_step{},
 *                bytes_read_per_step{},bytes_read,bytes_written,worst_step{},
 *                epoch_list[],step_list[] (first --top),slowest[]{...,files[]},
 *                stall_chart{steps_per_bar,iteration_ns[],stall_ns[]},outside_steps{}},
 *                unowned{} (see docs/report.md "JSON keys")
 *   gpu_idle     with a PyTorch profiler trace (merged, or --kineto; else null):
 *                steps_from, cache_layer, block_layer, devices[]{pid,device,steps,
 *                window_ns,busy_ns,idle_ns,explained_ns,unexplained_ns,
 *                explained_share,batch_wait_ns,batch_from,file_read_ns,cache_miss_ns,
 *                block_io_ns}, steps[]{step,index,pid,tid,device,start_ns,end_ns,
 *                busy_ns,idle_ns,batch_wait_ns,file_read_ns,cache_miss_ns,block_io_ns,
 *                explained_ns,unexplained_ns}, most_unexplained[], most_explained[],
 *                files[]{path,path_hex?,idle_ns}, waits_dropped, warnings[]
 *   errors[]     errno, count, application, environment, other
 *   findings[]   id, level, title, rule, evidence[], metrics{}, recommendation,
 *                with --python-stacks python_by and python_locations[]{location, calls,
 *                bytes, io_ns} (the top 3 Python locations behind it)
 *
 * json-c builds and escapes every value.  The lists can be long (--top up to
 * a million files), so the report is never one tree in memory: each small
 * section, and each entry of a long list, is a json-c object that is written
 * out and freed before the next is built; struct jstream writes the frame
 * around them (the top-level object and the sections that hold long lists).
 * Strings go to json-c as valid UTF-8: bytes that are not become U+FFFD, as
 * in the traces, and file names keep their exact bytes in path_hex.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json_string.h"
#include "lib/json_value.h"
#include "report/render/report_output.h"
#include "report/report_warnings.h"
#include "event/syscall_table.h"

#define JS_DEPTH 4

/* ---- values: json-c objects (NULL is null) ---- */

static struct json_object *j_u64(uint64_t v)
{
	return json_object_new_uint64(v);
}

static struct json_object *j_i64(int64_t v)
{
	return json_object_new_int64(v);
}

/* A number: integral values without a fraction, the others with 17 digits. */
static struct json_object *j_num(double v)
{
	char text[32];

	if (!isfinite(v))
		v = 0;
	if (v == floor(v) && fabs(v) < 9e15)
		snprintf(text, sizeof(text), "%.0f", v);
	else
		snprintf(text, sizeof(text), "%.17g", v);
	return json_object_new_double_s(v, text);
}

/* a ratio in [0, 1], or null when it is negative (not known) */
static struct json_object *j_ratio(double v)
{
	return v < 0 ? NULL : j_num(v);
}

static struct json_object *j_bool(bool v)
{
	return json_object_new_boolean(v);
}

static struct json_object *j_str(const char *s)
{
	return jv_string(s, strlen(s));
}

/* an interned string, or null */
/* A rank, or null when unknown. */
static struct json_object *j_rank(int64_t r)
{
	return r >= 0 ? j_u64((uint64_t)r) : NULL;
}

static struct json_object *j_sid(const struct report_stats *st, uint32_t id)
{
	return id == NONE32 ? NULL : jv_string(rs_str(st, id), rs_strlen(st, id));
}

/* ---- the frame: written as it goes ---- */

struct jstream {
	FILE *f;
	int depth;
	bool first[JS_DEPTH];
};

/* The comma and "key": of the next member (key NULL: an array element). */
static void js_key(struct jstream *s, const char *key)
{
	if (!s->first[s->depth])
		fputc(',', s->f);
	s->first[s->depth] = false;
	if (key)
		fprintf(s->f, "\"%s\":", key); /* this file's own keys: plain ASCII */
}

/* Write v as the next member and free it. */
static void js_put(struct jstream *s, const char *key, struct json_object *v)
{
	size_t len = 0;
	const char *text = json_object_to_json_string_length(v, JV_TO_STRING, &len);

	js_key(s, key);
	if (text)
		fwrite(text, 1, len, s->f);
	else
		fputs("null", s->f); /* out of memory */
	json_object_put(v);
}

/* Open an object ('{') or array ('[') whose members follow one by one. */
static void js_open(struct jstream *s, const char *key, char brace)
{
	js_key(s, key);
	fputc(brace, s->f);
	if (s->depth < JS_DEPTH - 1)
		s->depth++;
	s->first[s->depth] = true;
}

static void js_close(struct jstream *s, char brace)
{
	fputc(brace, s->f);
	if (s->depth)
		s->depth--;
}

static void traces(struct jstream *s, const struct report_stats *st)
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

static struct json_object *job(const struct report_stats *st)
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
	return o;
}

static const char *const origin_names[ORG_COUNT] = {"syscall", "io_uring", "aio", "mmap"};

/* The layers a file's or a process's I/O came from: ["syscall", "io_uring", ...] */
static struct json_object *origin_list(uint8_t origins)
{
	struct json_object *a = json_object_new_array();

	for (int i = 0; i < ORG_COUNT; i++)
		if (origins & (1u << i))
			json_object_array_add(a, json_object_new_string(origin_names[i]));
	return a;
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
	jv_add(o, "origins", origin_list(p->origins));
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

static void time_section(struct jstream *s, const struct report_view *v)
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

static const char *const scope_names[SCOPE_COUNT] = {"application", "environment", "other"};

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

static struct json_object *syscalls(const struct report_stats *st)
{
	struct json_object *o = json_object_new_object();

	for (int s = 0; s < SCOPE_COUNT; s++) {
		struct json_object *list = json_object_new_array();

		for (int k = 0; k < DL_SYS_COUNT; k++)
			if (st->sys[s][k].calls)
				jv_push(list, syscall_entry(&st->sys[s][k], k));
		jv_add(o, scope_names[s], list);
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

static struct json_object *u64_array(const uint64_t *v, uint32_t n)
{
	struct json_object *a = json_object_new_array_ext(n ? (int)n : 1);

	for (uint32_t i = 0; i < n; i++)
		jv_push(a, j_u64(v[i]));
	return a;
}

static struct json_object *access_sizes(const struct report_stats *st)
{
	struct json_object *o = json_object_new_object(), *bins = json_object_new_array();

	for (int b = 0; b < SIZE_BINS; b++)
		jv_push(bins, j_str(rs_size_bin_names[b]));
	jv_add(o, "bins", bins);
	jv_add(o, "read", u64_array(st->hist[IO_DIR_READ], SIZE_BINS));
	jv_add(o, "write", u64_array(st->hist[IO_DIR_WRITE], SIZE_BINS));
	jv_add(o, "common", size_list(st, -1));
	jv_add(o, "common_read", size_list(st, IO_DIR_READ));
	jv_add(o, "common_write", size_list(st, IO_DIR_WRITE));
	jv_add(o, "exact", j_bool(!st->sizes_uncounted));
	return o;
}

static struct json_object *pattern(const struct report_stats *st)
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
			jv_add(by, origin_names[i], x);
		}
		jv_add(o, "by_origin", by);
	}
	return o;
}

static struct json_object *file_entry(const struct report_stats *st, const struct rs_file *f)
{
	const char *name = rs_str(st, f->name);
	uint32_t len = rs_strlen(st, f->name);
	uint32_t dev = NONE32, fs = NONE32;
	struct json_object *o = json_object_new_object();

	jv_add(o, "path", jv_string(name, len));
	if (!utf8_valid(name, len)) {
		char *hex = malloc(2 * (size_t)len + 1);

		if (hex) {
			jv_add(o, "path_hex", jv_string(hex, json_hex(hex, name, len)));
			free(hex);
		}
	}
	jv_add(o, "bytes_read", j_u64(f->bytes_read));
	jv_add(o, "bytes_written", j_u64(f->bytes_written));
	jv_add(o, "reads", j_u64(f->reads));
	jv_add(o, "writes", j_u64(f->writes));
	jv_add(o, "opens", j_u64(f->opens));
	jv_add(o, "stats", j_u64(f->stats));
	jv_add(o, "seeks", j_u64(f->seeks));
	jv_add(o, "syncs", j_u64(f->syncs));
	jv_add(o, "origins", origin_list(f->origins));
	jv_add(o, "hints", j_u64(f->hints));
	jv_add(o, "seq_reads", j_u64(f->seq_reads));
	jv_add(o, "consec_reads", j_u64(f->consec_reads));
	jv_add(o, "seq_writes", j_u64(f->seq_writes));
	jv_add(o, "consec_writes", j_u64(f->consec_writes));
	jv_add(o, "random_reads", j_u64(f->random_reads));
	jv_add(o, "random_writes", j_u64(f->random_writes));
	jv_add(o, "rw_switches", j_u64(f->rw_switches));
	jv_add(o, "processes", j_u64(f->procs));
	jv_add(o, "readers", j_u64(f->readers));
	jv_add(o, "first_ns", j_u64(f->first_ns));
	jv_add(o, "last_ns", j_u64(f->last_ns));
	jv_add(o, "max_byte_read", j_i64(f->max_byte_read));
	jv_add(o, "max_byte_written", j_i64(f->max_byte_written));
	jv_add(o, "size", j_u64(f->file_size));
	jv_add(o, "extent", j_u64(f->extent));
	jv_add(o, "passes", j_num(f->passes));
	jv_add(o, "reread_within_open", j_u64(f->reread_within_open));
	jv_add(o, "concurrent_duplicate_bytes", j_u64(f->concurrent_dup_bytes));
	jv_add(o, "page_faults", j_u64(f->faults));
	jv_add(o, "cache_miss_bytes", j_u64(f->cache_miss));
	jv_add(o, "cache_hit_ratio",
	       j_ratio(rs_cache_hit_ratio(f->cache_miss, f->cache_read_bytes)));
	jv_add(o, "read_ns", j_u64(f->read_ns));
	jv_add(o, "write_ns", j_u64(f->write_ns));
	jv_add(o, "metadata_ns", j_u64(f->io_ns[CLS_META]));
	jv_add(o, "sync_ns", j_u64(f->io_ns[CLS_SYNC]));
	if (f->mount != NONE32) {
		dev = st->mounts[f->mount].dev;
		fs = st->mounts[f->mount].fs;
	}
	jv_add(o, "dev", j_sid(st, dev));
	jv_add(o, "fs", j_sid(st, fs));
	return o;
}

static void files(struct jstream *s, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	uint32_t *order = rs_sorted(st->nfiles, key_file_bytes, st), count = 0;
	struct json_object *bins;

	for (uint32_t i = 0; i < st->nfiles; i++)
		if (st->files[i].scope == SCOPE_APP)
			count++;
	js_open(s, "files", '{');
	js_put(s, "count", j_u64(count));
	js_put(s, "read", j_u64(st->files_read));
	js_put(s, "written", j_u64(st->files_written));
	js_put(s, "read_once", j_u64(st->files_read_once));
	js_put(s, "reread", j_u64(st->files_reread));
	js_put(s, "redundant_bytes", j_u64(st->redundant_in_open + st->concurrent_dup));
	js_put(s, "reread_within_open_bytes", j_u64(st->redundant_in_open));
	js_put(s, "concurrent_duplicate_bytes", j_u64(st->concurrent_dup));
	js_put(s, "dataset_bytes", j_u64(st->dataset_bytes));
	bins = json_object_new_array_ext(SIZE_BINS);
	for (int b = 0; b < SIZE_BINS; b++)
		jv_push(bins, j_u64(st->size_bins_files[b]));
	js_put(s, "size_bins", bins);
	js_open(s, "list", '[');
	for (uint32_t k = 0, shown = 0; order && k < st->nfiles && shown < v->top; k++) {
		if (st->files[order[k]].scope != SCOPE_APP)
			break;
		js_put(s, NULL, file_entry(st, &st->files[order[k]]));
		shown++;
	}
	js_close(s, ']');
	js_close(s, '}');
	free(order);
}

static void directories(struct jstream *s, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	uint32_t *order = rs_sorted(st->ndirs, key_dir_bytes, st);

	js_open(s, "directories", '[');
	for (uint32_t k = 0; order && k < st->ndirs && k < v->top; k++) {
		const struct rs_dir *d = &st->dirs[order[k]];
		struct json_object *o;

		if (d->scope != SCOPE_APP)
			break;
		o = json_object_new_object();
		jv_add(o, "path", j_sid(st, d->name));
		jv_add(o, "files", j_u64(d->files));
		jv_add(o, "bytes_read", j_u64(d->bytes_read));
		jv_add(o, "bytes_written", j_u64(d->bytes_written));
		jv_add(o, "reads", j_u64(d->reads));
		jv_add(o, "writes", j_u64(d->writes));
		jv_add(o, "metadata_calls", j_u64(d->meta_ops));
		jv_add(o, "failed", j_u64(d->failed));
		jv_add(o, "io_ns", j_u64(d->io_ns));
		js_put(s, NULL, o);
	}
	js_close(s, ']');
	free(order);
}

static void filesystems(struct jstream *s, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	uint32_t *order = rs_sorted(st->nmounts, key_mount_bytes, st);

	js_open(s, "filesystems", '[');
	for (uint32_t k = 0; order && k < st->nmounts && k < v->top; k++) {
		const struct rs_mount *m = &st->mounts[order[k]];
		struct json_object *o = json_object_new_object();

		jv_add(o, "dev", j_sid(st, m->dev));
		jv_add(o, "fs", j_sid(st, m->fs));
		jv_add(o, "mount_prefix", j_sid(st, m->prefix));
		jv_add(o, "files", j_u64(m->files));
		jv_add(o, "bytes_read", j_u64(m->bytes_read));
		jv_add(o, "bytes_written", j_u64(m->bytes_written));
		jv_add(o, "io_ns", j_u64(m->io_ns));
		js_put(s, NULL, o);
	}
	js_close(s, ']');
	free(order);
}

/* bytes_min .. time_imbalance of a group of peers */
static void add_spread(struct json_object *o, const struct rs_spread *s)
{
	jv_add(o, "bytes_min", j_u64(s->bytes_min));
	jv_add(o, "bytes_max", j_u64(s->bytes_max));
	jv_add(o, "bytes_imbalance", j_num(s->bytes_imbalance));
	jv_add(o, "io_ns_min", j_u64(s->io_min));
	jv_add(o, "io_ns_max", j_u64(s->io_max));
	jv_add(o, "time_imbalance", j_num(s->time_imbalance));
}

/* The known ranks of n processes, in order. */
static struct json_object *j_ranks(const struct report_stats *st, const uint32_t *procs, uint32_t n)
{
	struct json_object *a = json_object_new_array();
	int64_t last = -1;

	/* each rank once, smallest first: n is small (peers, or a node's processes) */
	for (;;) {
		int64_t next = -1;

		for (uint32_t i = 0; i < n; i++) {
			int64_t r = st->procs[procs[i]].rank;

			if (r > last && (next < 0 || r < next))
				next = r;
		}
		if (next < 0)
			break;
		jv_push(a, j_u64((uint64_t)next));
		last = next;
	}
	return a;
}

static struct json_object *group_entry(const struct report_stats *st, const struct rs_group *x)
{
	struct json_object *o = json_object_new_object();

	jv_add(o, "parent_pid", j_u64(x->parent != NONE32 ? st->procs[x->parent].pid : 0));
	jv_add(o, "command", j_sid(st, x->name));
	jv_add(o, "members", j_u64(x->members));
	add_spread(o, &x->spread);
	jv_add(o, "most_pid", j_u64(st->procs[x->spread.most].pid));
	jv_add(o, "least_pid", j_u64(st->procs[x->spread.least].pid));
	jv_add(o, "slowest_pid", j_u64(st->procs[x->spread.slowest].pid));
	jv_add(o, "fastest_pid", j_u64(st->procs[x->spread.fastest].pid));
	jv_add(o, "ranks", j_ranks(st, st->group_members + x->first, x->members));
	jv_add(o, "most_rank", j_rank(st->procs[x->spread.most].rank));
	jv_add(o, "least_rank", j_rank(st->procs[x->spread.least].rank));
	jv_add(o, "slowest_rank", j_rank(st->procs[x->spread.slowest].rank));
	jv_add(o, "fastest_rank", j_rank(st->procs[x->spread.fastest].rank));
	return o;
}

static struct json_object *host_entry(const struct report_stats *st, const struct rs_host *x)
{
	struct json_object *o = json_object_new_object();
	uint32_t *procs = malloc((st->nprocs ? st->nprocs : 1) * sizeof(*procs)), n = 0;
	uint32_t h = (uint32_t)(x - st->hosts);

	for (uint32_t i = 0; procs && i < st->nprocs; i++)
		if (st->host_of_trace[st->procs[i].trace] == h && st->procs[i].threads)
			procs[n++] = i;
	jv_add(o, "ranks", procs ? j_ranks(st, procs, n) : json_object_new_array());
	free(procs);

	jv_add(o, "hostname", j_sid(st, x->hostname));
	jv_add(o, "bytes", j_u64(x->bytes_read + x->bytes_written));
	jv_add(o, "io_ns", j_u64(x->io_ns));
	jv_add(o, "processes", j_u64(x->procs));
	jv_add(o, "traces", j_u64(x->traces));
	jv_add(o, "threads", j_u64(x->threads));
	jv_add(o, "bytes_read", j_u64(x->bytes_read));
	jv_add(o, "bytes_written", j_u64(x->bytes_written));
	jv_add(o, "calls", j_u64(x->calls));
	jv_add(o, "failed", j_u64(x->failed));
	jv_add(o, "start_ns", j_u64(x->first_ns));
	jv_add(o, "wall_ns", j_u64(x->last_ns - x->first_ns));
	jv_add(o, "events", j_u64(x->events));
	jv_add(o, "lost_events", j_u64(x->lost_events));
	return o;
}

static struct json_object *across_hosts(const struct report_stats *st)
{
	const struct rs_spread *s = &st->host_spread;
	struct json_object *o = json_object_new_object();

	jv_add(o, "hosts", j_u64(st->nhosts));
	add_spread(o, s);
	if (st->nhosts) {
		jv_add(o, "most", j_sid(st, st->hosts[s->most].hostname));
		jv_add(o, "least", j_sid(st, st->hosts[s->least].hostname));
		jv_add(o, "slowest", j_sid(st, st->hosts[s->slowest].hostname));
		jv_add(o, "fastest", j_sid(st, st->hosts[s->fastest].hostname));
	}
	return o;
}

static void balance(struct jstream *s, const struct report_view *v)
{
	const struct report_stats *st = v->st;

	js_open(s, "balance", '{');
	js_open(s, "groups", '[');
	for (uint32_t g = 0; g < st->ngroups && g < v->top; g++)
		js_put(s, NULL, group_entry(st, &st->groups[g]));
	js_close(s, ']');
	js_open(s, "hosts", '[');
	for (uint32_t h = 0; h < st->nhosts; h++)
		js_put(s, NULL, host_entry(st, &st->hosts[h]));
	js_close(s, ']');
	js_put(s, "across_hosts", across_hosts(st));
	js_close(s, '}');
}

static struct json_object *timeline(const struct report_stats *st)
{
	struct json_object *o = json_object_new_object();
	uint32_t first, n;

	rs_timeline_range(st, &first, &n);
	jv_add(o, "start_ns", j_u64((uint64_t)first * st->tl_width));
	jv_add(o, "bin_ns", j_u64(st->tl_width));
	jv_add(o, "read_bytes", u64_array(st->tl_read + first, n));
	jv_add(o, "write_bytes", u64_array(st->tl_write + first, n));
	jv_add(o, "metadata_calls", u64_array(st->tl_meta + first, n));
	return o;
}

static struct json_object *bursts(const struct report_stats *st)
{
	struct json_object *o = json_object_new_object(), *list = json_object_new_array();

	jv_add(o, "count", j_u64(st->bursts));
	jv_add(o, "bytes", j_u64(st->burst_bytes));
	jv_add(o, "blocked_ns", j_u64(st->burst_blocked_ns));
	for (uint32_t k = 0; k < st->nbursts_kept; k++) {
		const struct rs_burst *b = &st->top_bursts[k];
		const struct rs_thread *t = &st->threads[b->thread];
		struct json_object *e = json_object_new_object();

		jv_add(e, "pid", j_u64(st->procs[t->proc].pid));
		jv_add(e, "tid", j_u64(t->tid));
		jv_add(e, "start_ns", j_u64(b->start_ns));
		jv_add(e, "end_ns", j_u64(b->end_ns));
		jv_add(e, "bytes", j_u64(b->bytes));
		jv_add(e, "blocked_ns", j_u64(b->blocked_ns));
		jv_add(e, "ops", j_u64(b->ops));
		jv_add(e, "path", j_sid(st, b->file != NONE32 ? st->files[b->file].name : NONE32));
		jv_add(e, "training_thread", j_bool(b->thread == st->training_thread));
		jv_push(list, e);
	}
	jv_add(o, "list", list);
	return o;
}

/* calls .. io_ns of one scope, as a new object */
static struct json_object *scope_totals(const struct rs_totals *t)
{
	struct json_object *o = json_object_new_object();

	jv_add(o, "calls", j_u64(t->calls));
	jv_add(o, "failed", j_u64(t->failed));
	jv_add(o, "bytes_read", j_u64(t->bytes_read));
	jv_add(o, "bytes_written", j_u64(t->bytes_written));
	jv_add(o, "io_ns", j_u64(t->io_ns[CLS_DATA] + t->io_ns[CLS_META] + t->io_ns[CLS_SYNC]));
	return o;
}

static struct json_object *environment(const struct report_stats *st)
{
	struct json_object *o = scope_totals(&st->tot[SCOPE_ENV]), *kinds = json_object_new_array();
	uint32_t files = 0;

	for (int k = 1; k < ENV_COUNT; k++)
		files += st->env[k].files;
	jv_add(o, "files", j_u64(files));
	for (int k = 1; k < ENV_COUNT; k++) {
		const struct rs_env_kind *e = &st->env[k];
		struct json_object *x;

		if (!e->calls)
			continue;
		x = json_object_new_object();
		jv_add(x, "kind", j_str(env_kind_name(k)));
		jv_add(x, "calls", j_u64(e->calls));
		jv_add(x, "failed", j_u64(e->failed));
		jv_add(x, "bytes_read", j_u64(e->bytes_read));
		jv_add(x, "bytes_written", j_u64(e->bytes_written));
		jv_add(x, "io_ns", j_u64(e->io_ns));
		jv_add(x, "files", j_u64(e->files));
		jv_push(kinds, x);
	}
	jv_add(o, "kinds", kinds);
	return o;
}

/* Pipes, sockets, unnamed and shared memory; the latter also on its own. */
static struct json_object *other(const struct report_stats *st)
{
	struct json_object *o = scope_totals(&st->tot[SCOPE_OTHER]),
			   *shm = json_object_new_object();

	jv_add(shm, "calls", j_u64(st->shm.calls));
	jv_add(shm, "failed", j_u64(st->shm.failed));
	jv_add(shm, "bytes_read", j_u64(st->shm.bytes_read));
	jv_add(shm, "bytes_written", j_u64(st->shm.bytes_written));
	jv_add(shm, "io_ns", j_u64(st->shm.io_ns));
	jv_add(o, "shared_memory", shm);
	return o;
}

/* {application, environment, other} of per-scope counts */
static struct json_object *by_scope(const uint64_t v[SCOPE_COUNT])
{
	struct json_object *o = json_object_new_object();

	for (int s = 0; s < SCOPE_COUNT; s++)
		jv_add(o, scope_names[s], j_u64(v[s]));
	return o;
}

static struct json_object *layers(const struct report_stats *st)
{
	const struct rs_layers *l = &st->layers;
	struct json_object *o = json_object_new_object(), *ratio = json_object_new_object(),
			   *block = json_object_new_object(), *lat = json_object_new_object();

	jv_add(o, "active", j_sid(st, l->active));
	jv_add(o, "page_faults", by_scope(l->faults));
	jv_add(o, "reads_with_cache_info", j_u64(l->cache_reads));
	jv_add(o, "cache_miss_bytes", by_scope(l->cache_miss));
	for (int s = 0; s < SCOPE_COUNT; s++)
		jv_add(ratio, scope_names[s],
		       j_ratio(rs_cache_hit_ratio(l->cache_miss[s], l->cache_read_bytes[s])));
	jv_add(o, "cache_hit_ratio", ratio);
	jv_add(block, "reads", j_u64(l->block_requests[0]));
	jv_add(block, "writes", j_u64(l->block_requests[1]));
	jv_add(block, "other", j_u64(l->block_requests[2]));
	jv_add(block, "read_bytes", j_u64(l->block_bytes[0]));
	jv_add(block, "write_bytes", j_u64(l->block_bytes[1]));
	jv_add(lat, "p50", j_u64(sketch_quantile(&l->block_lat, 0.5)));
	jv_add(lat, "p99", j_u64(sketch_quantile(&l->block_lat, 0.99)));
	jv_add(lat, "max", j_u64(l->block_lat.max));
	jv_add(block, "latency_ns", lat);
	jv_add(o, "block", block);
	jv_add(o, "uring_requests", j_u64(l->uring_requests));
	jv_add(o, "aio_requests", j_u64(l->aio_requests));
	jv_add(o, "vfs_events", j_u64(l->vfs_events));
	return o;
}

/* ---- levels and phases ---- */

static struct json_object *latency(const struct quantile_sketch *q)
{
	struct json_object *o = json_object_new_object();

	jv_add(o, "p50", j_u64(sketch_quantile(q, 0.5)));
	jv_add(o, "p99", j_u64(sketch_quantile(q, 0.99)));
	jv_add(o, "max", j_u64(q->max));
	return o;
}

static struct json_object *level_dir(const struct rs_level_dir *d)
{
	struct json_object *o = json_object_new_object();
	bool known = d->calls && d->requested_calls == d->calls;

	jv_add(o, "calls", j_u64(d->calls));
	jv_add(o, "time_ns", j_u64(d->time_ns));
	jv_add(o, "bytes_requested", known ? j_u64(d->requested) : NULL);
	jv_add(o, "syscalls", j_u64(d->syscalls));
	jv_add(o, "syscall_bytes", j_u64(d->sys_bytes));
	jv_add(o, "syscalls_per_call", d->calls ? j_num((double)d->syscalls / d->calls) : NULL);
	jv_add(o, "bytes_ratio",
	       known && d->requested ? j_num((double)d->sys_bytes / d->requested) : NULL);
	return o;
}

static struct json_object *python(const struct report_view *v)
{
	const struct report_stats *st = v->st;
	const struct rs_python *py = &st->python;
	struct json_object *o = json_object_new_object(), *list = json_object_new_array();
	uint32_t *order = rs_sorted(py->n, key_py_loc, st);

	jv_add(o, "calls", j_u64(py->calls));
	jv_add(o, "io_ns", j_u64(py->io_ns));
	jv_add(o, "count", j_u64(py->n));
	for (uint32_t k = 0; order && k < py->n && k < v->top; k++) {
		const struct rs_py_loc *l = &py->locs[order[k]];
		struct json_object *x = json_object_new_object();

		jv_add(x, "location", j_sid(st, l->loc));
		jv_add(x, "calls", j_u64(l->calls));
		jv_add(x, "failed", j_u64(l->failed));
		jv_add(x, "reads", j_u64(l->reads));
		jv_add(x, "read_bytes", j_u64(l->read_bytes));
		jv_add(x, "writes", j_u64(l->writes));
		jv_add(x, "write_bytes", j_u64(l->write_bytes));
		jv_add(x, "io_ns", j_u64(l->io_ns));
		jv_push(list, x);
	}
	free(order);
	jv_add(o, "locations", list);
	return o;
}

/* One side (reads or writes) of a dataset's or file's join. */
static struct json_object *level_side(const struct rs_level_side *sd, bool reads)
{
	struct json_object *o = json_object_new_object(), *sel = json_object_new_object(),
			   *sizes = json_object_new_array();
	bool known = sd->asked_calls == sd->calls;
	double r = rs_level_ratio(sd);
	uint32_t top[LEVEL_SIZES], n = rs_level_top_sizes(sd, top, LEVEL_SIZES);

	jv_add(o, "calls", j_u64(sd->calls));
	jv_add(o, "time_ns", j_u64(sd->time_ns));
	jv_add(o, "bytes_requested", known ? j_u64(sd->asked) : NULL);
	jv_add(o, "syscalls", j_u64(sd->syscalls));
	jv_add(o, "syscall_bytes", j_u64(sd->sys_bytes));
	jv_add(o, "bytes_ratio", r >= 0 && isfinite(r) ? j_num(r) : NULL);
	jv_add(o, "excess_bytes", known ? j_u64(rs_level_excess(sd)) : NULL);
	if (reads) {
		jv_add(o, "reads_with_cache_info", j_u64(sd->cache_reads));
		jv_add(o, "cache_miss_bytes", sd->cache_reads ? j_u64(sd->cache_miss) : NULL);
	}
	for (int k = 0; k < LV_SEL_COUNT; k++) {
		struct json_object *x = json_object_new_object();

		jv_add(x, "calls", j_u64(sd->sel_calls[k]));
		jv_add(x, "bytes", j_u64(sd->sel_bytes[k]));
		jv_add(sel, rs_sel_names[k], x);
	}
	jv_add(o, "selections", sel);
	for (uint32_t k = 0; k < n; k++) {
		struct json_object *x = json_object_new_object();

		jv_add(x, "bytes", j_u64(sd->sizes[top[k]].key));
		jv_add(x, "calls", j_u64(sd->sizes[top[k]].count));
		jv_push(sizes, x);
	}
	jv_add(o, "sizes", sizes);
	jv_add(o, "sizes_other_calls", j_u64(sd->sizes_other));
	return o;
}

/* Per HDF5 dataset and per file: bytes asked joined with the syscalls (report_levels.c). */
static struct json_object *level_objects(const struct report_view *v)
{
	const struct report_stats *st = v->st;
	struct json_object *list = json_object_new_array();
	uint32_t *order = rs_sorted(st->levels.nobjs, key_level_obj, st);

	for (uint32_t k = 0; order && k < st->levels.nobjs && k < v->top; k++) {
		const struct rs_level_obj *o = &st->levels.objs[order[k]];
		struct json_object *x = json_object_new_object();

		jv_add(x, "level", json_object_new_string(rs_level_names[o->level]));
		jv_add(x, "file", j_sid(st, o->file));
		jv_add(x, "object", j_sid(st, o->object));
		jv_add(x, "opens", j_u64(o->opens));
		jv_add(x, "open_read_bytes", j_u64(o->open_read_bytes));
		jv_add(x, "read", level_side(&o->rd, true));
		jv_add(x, "write", level_side(&o->wr, false));
		jv_push(list, x);
	}
	free(order);
	return list;
}

static struct json_object *levels(const struct report_view *v)
{
	const struct report_stats *st = v->st;
	struct json_object *o = json_object_new_object(), *hints = NULL;

	for (int l = DL_LAYER_STDIO; l < DL_LEVEL_COUNT; l++) {
		struct json_object *lv = json_object_new_object(), *fns = json_object_new_array();
		struct rs_level_dir rd, wr;

		jv_add(lv, "calls", j_u64(st->levels.calls[l]));
		jv_add(lv, "time_ns", j_u64(st->levels.time_ns[l]));
		for (uint32_t i = 0; i < st->levels.nfn; i++) {
			const struct rs_level_fn *f = &st->levels.fn[i];
			struct json_object *x;

			if (f->level != l)
				continue;
			x = json_object_new_object();
			jv_add(x, "name", j_sid(st, f->name));
			jv_add(x, "calls", j_u64(f->calls));
			jv_add(x, "failed", j_u64(f->failed));
			jv_add(x, "time_ns", j_u64(f->time_ns));
			jv_add(x, "latency_ns", latency(&f->lat));
			jv_add(x, "bytes_requested",
			       f->requested_calls && f->requested_calls == f->calls
				   ? j_u64(f->bytes_requested)
				   : NULL);
			jv_add(x, "syscalls", j_u64(f->syscalls));
			jv_add(x, "sys_reads", j_u64(f->sys_reads));
			jv_add(x, "sys_read_bytes", j_u64(f->sys_read_bytes));
			jv_add(x, "sys_writes", j_u64(f->sys_writes));
			jv_add(x, "sys_write_bytes", j_u64(f->sys_write_bytes));
			jv_add(x, "partial", j_u64(f->partial));
			jv_push(fns, x);
		}
		jv_add(lv, "functions", fns);
		rs_level_dirs(st, l, &rd, &wr);
		jv_add(lv, "read", level_dir(&rd));
		jv_add(lv, "write", level_dir(&wr));
		jv_add(o, rs_level_names[l], lv);
	}
	jv_add(o, "unknown_calls", j_u64(st->levels.unknown));
	jv_add(o, "objects", level_objects(v));
	for (int l = DL_LAYER_HDF5; l <= DL_LAYER_MPIIO; l++) {
		struct rs_layer_hint h;
		struct json_object *x;

		if (!rs_layer_hint(st, l, &h))
			continue;
		x = json_object_new_object();
		jv_add(x, "layer", json_object_new_string(h.layer));
		jv_add(x, "library", j_sid(st, h.library));
		jv_add(x, "processes", j_u64(h.procs));
		jv_add(x, "files", l == DL_LAYER_HDF5 ? j_u64(h.files) : NULL);
		jv_add(x, "reads", j_u64(h.reads));
		jv_add(x, "bytes_read", j_u64(h.bytes));
		if (!hints)
			hints = json_object_new_array();
		jv_push(hints, x);
	}
	jv_add(o, "layers_off", hints ? hints : json_object_new_array());
	return o;
}

static struct json_object *levels_ns(const uint64_t v[DL_LEVEL_COUNT])
{
	struct json_object *o = json_object_new_object();

	for (int l = 0; l < DL_LEVEL_COUNT; l++)
		if (rs_is_level(l))
			jv_add(o, rs_level_names[l], j_u64(v[l]));
	return o;
}

static struct json_object *phase_io(const struct rs_phase_io *io)
{
	struct json_object *o = json_object_new_object();

	jv_add(o, "bytes_read", j_u64(io->bytes_read));
	jv_add(o, "bytes_written", j_u64(io->bytes_written));
	jv_add(o, "calls", j_u64(io->calls));
	jv_add(o, "io_ns", j_u64(io->io_ns));
	jv_add(o, "levels_ns", levels_ns(io->level_ns));
	return o;
}

static struct json_object *epoch_of(const struct report_stats *st, const struct rs_step *s)
{
	return s->epoch == NONE32 ? NULL : j_i64(st->phases.epochs[s->epoch].index);
}

/* A step: its epoch and index, times, stall, and the I/O of its iteration. */
static struct json_object *step_entry(const struct report_stats *st, const struct rs_step *s)
{
	struct json_object *o = json_object_new_object();

	jv_add(o, "epoch", epoch_of(st, s));
	jv_add(o, "step", s->index >= 0 ? j_i64(s->index) : NULL);
	jv_add(o, "start_ns", j_u64(s->istart));
	jv_add(o, "iteration_ns", j_u64(rs_step_iter_ns(s)));
	jv_add(o, "step_ns", j_u64(s->end - s->start));
	jv_add(o, "stall_ns", j_u64(s->stall_ns));
	jv_add(o, "stall_share", j_num(rs_step_stall_share(s)));
	jv_add(o, "bytes_read", j_u64(s->io.bytes_read));
	jv_add(o, "bytes_written", j_u64(s->io.bytes_written));
	jv_add(o, "calls", j_u64(s->io.calls));
	jv_add(o, "io_ns", j_u64(s->io.io_ns));
	jv_add(o, "levels_ns", levels_ns(s->io.level_ns));
	return o;
}

static struct json_object *quantiles3(uint64_t p50, uint64_t p99, uint64_t max)
{
	struct json_object *o = json_object_new_object();

	jv_add(o, "median", j_u64(p50));
	jv_add(o, "p99", j_u64(p99));
	jv_add(o, "max", j_u64(max));
	return o;
}

#define STALL_BARS 200

static struct json_object *loop_entry(const struct report_stats *st, uint32_t oi, unsigned top)
{
	const struct rs_phases *ph = &st->phases;
	const struct rs_owner *w = &ph->owners[oi];
	const struct rs_thread *t = &st->threads[w->thread];
	struct json_object *o = json_object_new_object(), *x, *list, *a, *b;
	struct rs_stall_bar bars[STALL_BARS];
	uint32_t nbars, shown = 0;

	jv_add(o, "pid", j_u64(st->procs[t->proc].pid));
	jv_add(o, "tid", j_u64(t->tid));
	jv_add(o, "host", j_sid(st, st->traces[st->procs[t->proc].trace].hostname));
	jv_add(o, "name", j_sid(st, t->comm));
	jv_add(o, "steps", j_u64(w->steps));
	jv_add(o, "epochs", j_u64(w->epochs));
	jv_add(o, "stall_from", j_str(w->fetch_seen ? "fetch" : "pipe_reads"));
	jv_add(o, "nested_steps", j_u64(w->nested));
	x = quantiles3(w->sum.iter_p50, w->sum.iter_p99, w->sum.iter_max);
	jv_add(x, "total", j_u64(w->sum.iter_ns));
	jv_add(o, "iteration_ns", x);
	jv_add(o, "step_ns", quantiles3(w->sum.step_p50, w->sum.step_p99, w->sum.step_max));
	x = quantiles3(w->sum.stall_p50, w->sum.stall_p99, w->sum.stall_max);
	jv_add(x, "total", j_u64(w->sum.stall_ns));
	jv_add(o, "stall_ns", x);
	jv_add(o, "stall_share",
	       j_num(w->sum.iter_ns ? (double)w->sum.stall_ns / w->sum.iter_ns : 0));
	x = json_object_new_object();
	jv_add(x, "median", j_num(w->sum.share_p50));
	jv_add(x, "p99", j_num(w->sum.share_p99));
	jv_add(x, "max", j_num(w->sum.share_max));
	jv_add(o, "stall_share_per_step", x);
	jv_add(o, "bytes_read_per_step",
	       quantiles3(w->sum.read_p50, w->sum.read_p99, w->sum.read_max));
	jv_add(o, "bytes_read", j_u64(w->sum.bytes_read));
	jv_add(o, "bytes_written", j_u64(w->sum.bytes_written));
	jv_add(o, "worst_step",
	       w->sum.worst == NONE32 ? NULL : step_entry(st, &ph->steps[w->sum.worst]));
	list = json_object_new_array();
	for (uint32_t e = 0; e < ph->nepochs; e++) {
		const struct rs_epoch *ep = &ph->epochs[e];

		if (ep->owner != oi)
			continue;
		x = phase_io(&ep->io);
		jv_add(x, "epoch", j_i64(ep->index));
		jv_add(x, "start_ns", j_u64(ep->start));
		jv_add(x, "dur_ns", j_u64(ep->end - ep->start));
		jv_add(x, "steps", j_u64(ep->steps));
		jv_add(x, "iteration_ns", j_u64(ep->iter_ns));
		jv_add(x, "stall_ns", j_u64(ep->stall_ns));
		jv_add(x, "stall_share",
		       j_num(ep->iter_ns ? (double)ep->stall_ns / ep->iter_ns : 0));
		jv_add(x, "step_max_ns", j_u64(ep->step_max_ns));
		jv_push(list, x);
	}
	jv_add(o, "epoch_list", list);
	list = json_object_new_array();
	for (uint32_t k = 0; k < w->nmarks && shown < top; k++)
		if (!w->marks[k].epoch) {
			jv_push(list, step_entry(st, &ph->steps[w->marks[k].index]));
			shown++;
		}
	jv_add(o, "step_list", list);
	list = json_object_new_array();
	{
		uint32_t order[SLOW_KEEP], n = rs_slow_order(st, w, order);

		for (uint32_t k = 0; k < n; k++) {
			const struct rs_slow *sl = &w->slow[order[k]];
			struct json_object *files = json_object_new_array();

			x = step_entry(st, &ph->steps[sl->step]);
			for (uint32_t f = 0; f < sl->nfiles; f++) {
				struct json_object *y = json_object_new_object();
				const struct rs_file *file = &st->files[sl->files[f].file];

				jv_add(y, "path", j_sid(st, file->name));
				jv_add(y, "bytes", j_u64(sl->files[f].bytes));
				jv_add(y, "io_ns", j_u64(sl->files[f].io_ns));
				jv_push(files, y);
			}
			jv_add(x, "files", files);
			jv_push(list, x);
		}
	}
	jv_add(o, "slowest", list);
	nbars = rs_stall_bars(st, oi, bars, STALL_BARS);
	x = json_object_new_object();
	a = json_object_new_array();
	b = json_object_new_array();
	for (uint32_t k = 0; k < nbars; k++) {
		jv_push(a, j_u64(bars[k].iter_ns));
		jv_push(b, j_u64(bars[k].stall_ns));
	}
	jv_add(x, "steps_per_bar", j_u64(nbars ? bars[0].steps : 0));
	jv_add(x, "iteration_ns", a);
	jv_add(x, "stall_ns", b);
	jv_add(o, "stall_chart", x);
	x = json_object_new_object();
	jv_add(x, "before_first_step", phase_io(&w->before));
	jv_add(x, "between_epochs", phase_io(&w->between));
	jv_add(x, "after_last_step", phase_io(&w->after));
	jv_add(x, "dropped_calls", j_u64(w->dropped));
	jv_add(o, "outside_steps", x);
	return o;
}

static void phases(struct jstream *s, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	const struct rs_phases *ph = &st->phases;
	struct json_object *list = json_object_new_array();
	uint32_t n, *order = rs_phase_owners(st, &n);

	js_open(s, "phases", '{');
	for (uint32_t k = 0; k < ph->nregions; k++) {
		const struct rs_region *r = &ph->regions[k];
		struct json_object *o = json_object_new_object();

		jv_add(o, "name", j_sid(st, r->name));
		jv_add(o, "count", j_u64(r->count));
		jv_add(o, "time_ns", j_u64(r->time_ns));
		jv_add(o, "dur_ns", latency(&r->dur));
		jv_push(list, o);
	}
	js_put(s, "regions", list);
	js_put(s, "other_regions", j_u64(ph->other_regions));
	js_put(s, "instants", j_u64(ph->instants));
	js_put(s, "counters", j_u64(ph->counters));
	js_open(s, "loops", '[');
	for (uint32_t k = 0; order && k < n && k < v->top; k++)
		js_put(s, NULL, loop_entry(st, order[k], v->top));
	js_close(s, ']');
	js_put(s, "unowned", phase_io(&ph->unowned));
	js_close(s, '}');
	free(order);
}

static struct json_object *errors(const struct report_stats *st)
{
	struct json_object *list = json_object_new_array();

	for (uint32_t i = 0; i < st->nerrnos; i++) {
		const struct rs_errno *e = &st->errnos[i];
		struct json_object *o = json_object_new_object();

		jv_add(o, "errno", j_str(e->name));
		jv_add(o, "count", j_u64(e->count[0] + e->count[1] + e->count[2]));
		jv_add(o, "application", j_u64(e->count[SCOPE_APP]));
		jv_add(o, "environment", j_u64(e->count[SCOPE_ENV]));
		jv_add(o, "other", j_u64(e->count[SCOPE_OTHER]));
		jv_push(list, o);
	}
	return list;
}

static struct json_object *findings(const struct findings *fi)
{
	struct json_object *list = json_object_new_array();

	for (int i = 0; i < fi->n; i++) {
		const struct finding *f = &fi->items[i];
		struct json_object *o = json_object_new_object(),
				   *evidence = json_object_new_array(),
				   *metrics = json_object_new_object();

		jv_add(o, "id", j_str(f->id));
		jv_add(o, "level", j_str(finding_severity_name(f->severity)));
		jv_add(o, "title", j_str(f->title));
		jv_add(o, "rule", j_str(f->rule));
		for (int k = 0; k < f->nevidence; k++)
			jv_push(evidence, j_str(f->evidence[k]));
		jv_add(o, "evidence", evidence);
		for (int k = 0; k < f->nmetrics; k++)
			jv_add(metrics, f->metrics[k].key, j_num(f->metrics[k].value));
		jv_add(o, "metrics", metrics);
		jv_add(o, "recommendation", j_str(f->recommendation));
		if (f->npy) {
			struct json_object *pl = json_object_new_array();

			for (int k = 0; k < f->npy; k++) {
				struct json_object *x = json_object_new_object();

				jv_add(x, "location", j_str(f->py[k].location));
				jv_add(x, "calls", j_u64(f->py[k].calls));
				jv_add(x, "bytes", j_u64(f->py[k].bytes));
				jv_add(x, "io_ns", j_u64(f->py[k].io_ns));
				jv_push(pl, x);
			}
			jv_add(o, "python_by", j_str(f->py_what));
			jv_add(o, "python_locations", pl);
		}
		jv_push(list, o);
	}
	return list;
}

void report_json(FILE *out, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	struct jstream s = {.f = out, .first = {true}};

	js_open(&s, NULL, '{');
	js_put(&s, "schema", j_str("dltrace-report-1"));
	js_put(&s, "generator", j_str(v->generator));
	traces(&s, st);
	js_put(&s, "job", job(st));
	time_section(&s, v);
	js_put(&s, "syscalls", syscalls(st));
	js_put(&s, "access_sizes", access_sizes(st));
	js_put(&s, "pattern", pattern(st));
	files(&s, v);
	directories(&s, v);
	filesystems(&s, v);
	balance(&s, v);
	js_put(&s, "timeline", timeline(st));
	js_put(&s, "bursts", bursts(st));
	js_put(&s, "environment", environment(st));
	js_put(&s, "other", other(st));
	js_put(&s, "layers", layers(st));
	js_put(&s, "levels", levels(v));
	js_put(&s, "python", python(v));
	phases(&s, v);
	js_put(&s, "gpu_idle", report_gpu_json(st, v->top)); /* null without a profiler trace */
	js_put(&s, "errors", errors(st));
	js_put(&s, "findings", findings(v->fi));
	js_close(&s, '}');
	fputc('\n', out);
}
