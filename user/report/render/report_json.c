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
 *                complete, warnings[]
 *   job          commands[], hosts[], start_ns, wall_ns (first to last event of
 *                the job's processes), processes, threads, events,
 *                lost_events, syscalls, failed_syscalls
 *   time         io_ns{data,metadata,sync,total} (all files),
 *                training_thread{pid,tid,name,wall_ns,io_ns,data_ns,metadata_ns,
 *                sync_ns,io_share,app_io_ns,env_io_ns,other_io_ns,app_read_ns,
 *                burst_blocked_ns} (or null; other: pipes, sockets),
 *                processes[]{pid,ppid,host,command,threads,wall_ns,io_ns,data_ns,
 *                metadata_ns,sync_ns,io_share,app_io_ns,env_io_ns,calls,failed,
 *                app_bytes_read,app_bytes_written},
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
 *                opens, stats, metadata_calls, syncs, mmaps, no_offset, hints
 *   files        count, read, written, read_once, reread, redundant_bytes,
 *                reread_within_open_bytes, concurrent_duplicate_bytes,
 *                dataset_bytes, size_bins[10], list[]{path,path_hex?,bytes_read,
 *                bytes_written,reads,writes,opens,stats,seeks,syncs,hints,seq_reads,
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
 *                least_pid,slowest_pid,fastest_pid}, hosts[]{hostname,bytes,io_ns,
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
 *   other        calls, failed, bytes_read, bytes_written, io_ns
 *   layers       active, page_faults{application,environment,other},
 *                reads_with_cache_info, cache_miss_bytes{application,environment,
 *                other}, cache_hit_ratio{application,environment,other} (share of
 *                the bytes read served by the page cache, or null),
 * block{reads,writes,other,read_bytes,write_bytes, latency_ns{p50,p99,max}}, uring_requests,
 * vfs_events (what the other capture layers saw; zeros without them) errors[]     errno, count,
 * application, environment, other findings[]   id, level, title, rule, evidence[], metrics{},
 * recommendation
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json_string.h"
#include "report/render/report_output.h"
#include "report/report_warnings.h"
#include "event/syscall_table.h"

struct jw {
	FILE *f;
	int depth;
	bool first[32];
	char *buf;
	size_t cap;
};

static void sep(struct jw *w)
{
	if (!w->first[w->depth])
		fputc(',', w->f);
	w->first[w->depth] = false;
}

static void put_string(struct jw *w, const char *s, size_t len)
{
	size_t need = JSON_ESCAPED_MAX(len) + 2;
	bool lossy = false;
	size_t n;

	if (need > w->cap) {
		char *b = realloc(w->buf, need);

		if (!b) {
			fputs("\"\"", w->f);
			return;
		}
		w->buf = b;
		w->cap = need;
	}
	n = json_escape(w->buf, s, len, &lossy);
	fputc('"', w->f);
	fwrite(w->buf, 1, n, w->f);
	fputc('"', w->f);
}

static void key(struct jw *w, const char *k)
{
	sep(w);
	if (k)
		fprintf(w->f, "\"%s\":", k);
}

static void open_(struct jw *w, const char *k, char ch)
{
	key(w, k);
	fputc(ch, w->f);
	if (w->depth < 31)
		w->depth++;
	w->first[w->depth] = true;
}
#define OBJ(w, k) open_((w), (k), '{')
#define ARR(w, k) open_((w), (k), '[')

static void close_(struct jw *w, char ch)
{
	fputc(ch, w->f);
	if (w->depth)
		w->depth--;
}
#define END_OBJ(w) close_((w), '}')
#define END_ARR(w) close_((w), ']')

static void u64(struct jw *w, const char *k, uint64_t v)
{
	key(w, k);
	fprintf(w->f, "%llu", (unsigned long long)v);
}

static void i64(struct jw *w, const char *k, int64_t v)
{
	key(w, k);
	fprintf(w->f, "%lld", (long long)v);
}

static void num(struct jw *w, const char *k, double v)
{
	key(w, k);
	if (!isfinite(v))
		v = 0;
	if (v == floor(v) && fabs(v) < 9e15)
		fprintf(w->f, "%.0f", v);
	else
		fprintf(w->f, "%.17g", v);
}

/* a ratio in [0, 1], or null when it is negative (not known) */
static void ratio_or_null(struct jw *w, const char *k, double v)
{
	if (v < 0) {
		key(w, k);
		fputs("null", w->f);
		return;
	}
	num(w, k, v);
}

static void str(struct jw *w, const char *k, const char *s, size_t len)
{
	key(w, k);
	put_string(w, s, len);
}
#define STR(w, k, s) str((w), (k), (s), strlen(s))

static void sid(struct jw *w, const char *k, const struct report_stats *st, uint32_t id)
{
	if (id == NONE32) {
		key(w, k);
		fputs("null", w->f);
		return;
	}
	str(w, k, rs_str(st, id), rs_strlen(st, id));
}

static void boolean(struct jw *w, const char *k, bool v)
{
	key(w, k);
	fputs(v ? "true" : "false", w->f);
}

static bool valid_utf8(const char *s, size_t len)
{
	for (size_t i = 0; i < len;) {
		size_t n = utf8_sequence_length((const unsigned char *)s + i, len - i);

		if (!n)
			return false;
		i += n;
	}
	return true;
}

static void traces(struct jw *w, const struct report_stats *st)
{
	char lines[WARNING_MAX][WARNING_LINE];

	ARR(w, "traces");
	for (uint32_t t = 0; t < st->ntraces; t++) {
		const struct rs_trace *tr = &st->traces[t];
		int n = report_trace_warnings(st, t, lines);

		OBJ(w, NULL);
		STR(w, "file", tr->file ? tr->file : "");
		sid(w, "hostname", st, tr->hostname);
		sid(w, "kernel", st, tr->kernel);
		sid(w, "target", st, tr->target);
		sid(w, "start_wall", st, tr->start_wall);
		i64(w, "start_wall_ns", tr->start_wall_ns);
		u64(w, "duration_ns",
		    tr->duration_ns ? tr->duration_ns : tr->end_ns - (uint64_t)tr->offset_ns);
		u64(w, "events", tr->events);
		u64(w, "lost_events", tr->lost_events);
		u64(w, "lost_bytes", tr->lost_bytes);
		sid(w, "stop_reason", st, tr->stop_reason);
		boolean(w, "complete", !trace_read_truncated(&tr->status));
		ARR(w, "warnings");
		for (int i = 0; i < n; i++)
			STR(w, NULL, lines[i]);
		END_ARR(w);
		END_OBJ(w);
	}
	END_ARR(w);
}

static void job(struct jw *w, const struct report_stats *st)
{
	uint64_t lost = 0, failed = 0;

	OBJ(w, "job");
	ARR(w, "commands");
	for (uint32_t t = 0; t < st->ntraces; t++) {
		bool dup = false;

		for (uint32_t u = 0; u < t; u++)
			if (st->traces[u].target == st->traces[t].target)
				dup = true;
		if (!dup && st->traces[t].target != NONE32)
			sid(w, NULL, st, st->traces[t].target);
	}
	END_ARR(w);
	ARR(w, "hosts");
	for (uint32_t t = 0; t < st->ntraces; t++) {
		bool dup = false;

		for (uint32_t u = 0; u < t; u++)
			if (st->traces[u].hostname == st->traces[t].hostname)
				dup = true;
		if (!dup)
			sid(w, NULL, st, st->traces[t].hostname);
	}
	END_ARR(w);
	for (uint32_t t = 0; t < st->ntraces; t++)
		lost += st->traces[t].lost_events;
	for (int s = 0; s < SCOPE_COUNT; s++)
		failed += st->tot[s].failed;
	u64(w, "start_ns", st->job_start_ns);
	u64(w, "wall_ns", st->wall_ns);
	u64(w, "processes", st->nprocs_active);
	u64(w, "threads", st->nthreads);
	u64(w, "events", st->events);
	u64(w, "lost_events", lost);
	u64(w, "syscalls", st->syscalls);
	u64(w, "failed_syscalls", failed);
	END_OBJ(w);
}

static void proc_time(struct jw *w, const struct report_stats *st, uint32_t i)
{
	const struct rs_proc *p = &st->procs[i];
	uint64_t cls[CLS_COUNT] = {0}, io = rs_proc_io(p), wall = rs_proc_wall(st, p);

	for (int s = 0; s < SCOPE_COUNT; s++)
		for (int c = 0; c < CLS_COUNT; c++)
			cls[c] += p->io_ns[s][c];
	OBJ(w, NULL);
	u64(w, "pid", p->pid);
	u64(w, "ppid", p->ppid);
	sid(w, "host", st, st->traces[p->trace].hostname);
	sid(w, "command", st, p->name);
	u64(w, "threads", p->threads);
	u64(w, "wall_ns", wall);
	u64(w, "io_ns", io);
	u64(w, "data_ns", cls[CLS_DATA]);
	u64(w, "metadata_ns", cls[CLS_META]);
	u64(w, "sync_ns", cls[CLS_SYNC]);
	num(w, "io_share", wall ? (double)io / wall : 0);
	u64(w, "app_io_ns",
	    p->io_ns[SCOPE_APP][CLS_DATA] + p->io_ns[SCOPE_APP][CLS_META] +
		p->io_ns[SCOPE_APP][CLS_SYNC]);
	u64(w, "env_io_ns",
	    p->io_ns[SCOPE_ENV][CLS_DATA] + p->io_ns[SCOPE_ENV][CLS_META] +
		p->io_ns[SCOPE_ENV][CLS_SYNC]);
	u64(w, "calls", p->calls);
	u64(w, "failed", p->failed);
	u64(w, "app_bytes_read", p->app_bytes_read);
	u64(w, "app_bytes_written", p->app_bytes_written);
	END_OBJ(w);
}

static void thread_fields(struct jw *w, const struct report_stats *st, const struct rs_thread *t)
{
	uint64_t wall = rs_thread_wall(st, t), io = rs_thread_io(t);

	u64(w, "pid", st->procs[t->proc].pid);
	u64(w, "tid", t->tid);
	sid(w, "name", st, t->comm);
	u64(w, "wall_ns", wall);
	u64(w, "io_ns", io);
	u64(w, "data_ns", t->io_ns[CLS_DATA]);
	u64(w, "metadata_ns", t->io_ns[CLS_META]);
	u64(w, "sync_ns", t->io_ns[CLS_SYNC]);
	num(w, "io_share", wall ? (double)io / wall : 0);
}

static void time_section(struct jw *w, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	uint64_t cls[CLS_COUNT] = {0};
	uint32_t *order;

	for (int s = 0; s < SCOPE_COUNT; s++)
		for (int c = 0; c < CLS_COUNT; c++)
			cls[c] += st->tot[s].io_ns[c];
	OBJ(w, "time");
	OBJ(w, "io_ns");
	u64(w, "data", cls[CLS_DATA]);
	u64(w, "metadata", cls[CLS_META]);
	u64(w, "sync", cls[CLS_SYNC]);
	u64(w, "total", cls[CLS_DATA] + cls[CLS_META] + cls[CLS_SYNC]);
	END_OBJ(w);
	if (st->training_thread == NONE32) {
		key(w, "training_thread");
		fputs("null", w->f);
	} else {
		const struct rs_thread *t = &st->threads[st->training_thread];

		OBJ(w, "training_thread");
		thread_fields(w, st, t);
		u64(w, "app_io_ns", t->scope_ns[SCOPE_APP]);
		u64(w, "env_io_ns", t->scope_ns[SCOPE_ENV]);
		u64(w, "other_io_ns", t->scope_ns[SCOPE_OTHER]);
		u64(w, "app_read_ns", t->app_read_ns);
		u64(w, "burst_blocked_ns", t->burst_blocked_ns);
		END_OBJ(w);
	}
	ARR(w, "processes");
	order = rs_sorted(st->nprocs, key_proc_io, st);
	for (uint32_t k = 0; order && k < st->nprocs && k < v->top; k++)
		proc_time(w, st, order[k]);
	free(order);
	END_ARR(w);
	ARR(w, "threads");
	order = rs_sorted(st->nthreads, key_thread_io, st);
	for (uint32_t k = 0; order && k < st->nthreads && k < v->top; k++) {
		OBJ(w, NULL);
		thread_fields(w, st, &st->threads[order[k]]);
		u64(w, "app_bytes_read", st->threads[order[k]].app_bytes_read);
		END_OBJ(w);
	}
	free(order);
	END_ARR(w);
	END_OBJ(w);
}

static void syscalls(struct jw *w, const struct report_stats *st)
{
	static const char *const names[SCOPE_COUNT] = {"application", "environment", "other"};

	OBJ(w, "syscalls");
	for (int s = 0; s < SCOPE_COUNT; s++) {
		ARR(w, names[s]);
		for (int k = 0; k < DL_SYS_COUNT; k++) {
			const struct rs_syscall *sc = &st->sys[s][k];
			const struct syscall_info *si = syscall_info(k);

			if (!sc->calls)
				continue;
			OBJ(w, NULL);
			STR(w, "name", si->name);
			STR(w, "class", io_class_name(si->io_class));
			u64(w, "calls", sc->calls);
			u64(w, "failed", sc->failed);
			u64(w, "bytes", sc->bytes);
			OBJ(w, "size");
			u64(w, "count", sc->size.n);
			u64(w, "min", sc->size.min);
			u64(w, "p25", sketch_quantile(&sc->size, 0.25));
			u64(w, "median", sketch_quantile(&sc->size, 0.5));
			num(w, "mean", sc->size.n ? (double)sc->size.sum / sc->size.n : 0);
			u64(w, "p75", sketch_quantile(&sc->size, 0.75));
			u64(w, "max", sc->size.max);
			END_OBJ(w);
			OBJ(w, "latency_ns");
			num(w, "mean", sc->calls ? (double)sc->lat_sum / sc->calls : 0);
			u64(w, "p50", sketch_quantile(&sc->lat, 0.5));
			u64(w, "p99", sketch_quantile(&sc->lat, 0.99));
			u64(w, "max", sc->lat.max);
			END_OBJ(w);
			END_OBJ(w);
		}
		END_ARR(w);
	}
	END_OBJ(w);
}

static void size_list(struct jw *w, const char *k, const struct report_stats *st, int dir)
{
	uint64_t size[4], count[4];
	int n = common_sizes(st, dir, size, count);

	ARR(w, k);
	for (int i = 0; i < n; i++) {
		OBJ(w, NULL);
		u64(w, "size", size[i]);
		u64(w, "count", count[i]);
		END_OBJ(w);
	}
	END_ARR(w);
}

static void access_sizes(struct jw *w, const struct report_stats *st)
{
	OBJ(w, "access_sizes");
	ARR(w, "bins");
	for (int b = 0; b < SIZE_BINS; b++)
		STR(w, NULL, rs_size_bin_names[b]);
	END_ARR(w);
	for (int d = 0; d < 2; d++) {
		ARR(w, d ? "write" : "read");
		for (int b = 0; b < SIZE_BINS; b++)
			u64(w, NULL, st->hist[d][b]);
		END_ARR(w);
	}
	size_list(w, "common", st, -1);
	size_list(w, "common_read", st, IO_DIR_READ);
	size_list(w, "common_write", st, IO_DIR_WRITE);
	boolean(w, "exact", !st->sizes_uncounted);
	END_OBJ(w);
}

static void pattern(struct jw *w, const struct report_stats *st)
{
	const struct rs_totals *t = &st->tot[SCOPE_APP];

	OBJ(w, "pattern");
	u64(w, "reads", t->reads);
	u64(w, "writes", t->writes);
	u64(w, "bytes_read", t->bytes_read);
	u64(w, "bytes_written", t->bytes_written);
	u64(w, "seq_reads", t->seq_reads);
	u64(w, "consec_reads", t->consec_reads);
	u64(w, "seq_writes", t->seq_writes);
	u64(w, "consec_writes", t->consec_writes);
	u64(w, "random_reads", t->random_reads);
	u64(w, "random_writes", t->random_writes);
	u64(w, "small_reads", t->small_reads);
	u64(w, "small_writes", t->small_writes);
	u64(w, "seeks", t->seeks);
	u64(w, "rw_switches", t->rw_switches);
	u64(w, "opens", t->opens);
	u64(w, "stats", t->stats);
	u64(w, "metadata_calls", t->meta_ops);
	u64(w, "syncs", t->syncs);
	u64(w, "mmaps", t->mmaps);
	u64(w, "no_offset", t->no_offset);
	u64(w, "hints", t->hints);
	END_OBJ(w);
}

static void file_entry(struct jw *w, const struct report_stats *st, const struct rs_file *f)
{
	const char *name = rs_str(st, f->name);
	uint32_t len = rs_strlen(st, f->name);

	OBJ(w, NULL);
	str(w, "path", name, len);
	if (!valid_utf8(name, len)) {
		char *hex = malloc(2 * (size_t)len + 1);

		if (hex) {
			json_hex(hex, name, len);
			str(w, "path_hex", hex, 2 * (size_t)len);
			free(hex);
		}
	}
	u64(w, "bytes_read", f->bytes_read);
	u64(w, "bytes_written", f->bytes_written);
	u64(w, "reads", f->reads);
	u64(w, "writes", f->writes);
	u64(w, "opens", f->opens);
	u64(w, "stats", f->stats);
	u64(w, "seeks", f->seeks);
	u64(w, "syncs", f->syncs);
	u64(w, "hints", f->hints);
	u64(w, "seq_reads", f->seq_reads);
	u64(w, "consec_reads", f->consec_reads);
	u64(w, "seq_writes", f->seq_writes);
	u64(w, "consec_writes", f->consec_writes);
	u64(w, "random_reads", f->random_reads);
	u64(w, "random_writes", f->random_writes);
	u64(w, "rw_switches", f->rw_switches);
	u64(w, "processes", f->procs);
	u64(w, "readers", f->readers);
	u64(w, "first_ns", f->first_ns);
	u64(w, "last_ns", f->last_ns);
	i64(w, "max_byte_read", f->max_byte_read);
	i64(w, "max_byte_written", f->max_byte_written);
	u64(w, "size", f->file_size);
	u64(w, "extent", f->extent);
	num(w, "passes", f->passes);
	u64(w, "reread_within_open", f->reread_within_open);
	u64(w, "concurrent_duplicate_bytes", f->concurrent_dup_bytes);
	u64(w, "page_faults", f->faults);
	u64(w, "cache_miss_bytes", f->cache_miss);
	ratio_or_null(w, "cache_hit_ratio", rs_cache_hit_ratio(f->cache_miss, f->cache_read_bytes));
	u64(w, "read_ns", f->read_ns);
	u64(w, "write_ns", f->write_ns);
	u64(w, "metadata_ns", f->io_ns[CLS_META]);
	u64(w, "sync_ns", f->io_ns[CLS_SYNC]);
	if (f->mount != NONE32) {
		sid(w, "dev", st, st->mounts[f->mount].dev);
		sid(w, "fs", st, st->mounts[f->mount].fs);
	} else {
		sid(w, "dev", st, NONE32);
		sid(w, "fs", st, NONE32);
	}
	END_OBJ(w);
}

static void files(struct jw *w, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	uint32_t *order = rs_sorted(st->nfiles, key_file_bytes, st), count = 0;

	for (uint32_t i = 0; i < st->nfiles; i++)
		if (st->files[i].scope == SCOPE_APP)
			count++;
	OBJ(w, "files");
	u64(w, "count", count);
	u64(w, "read", st->files_read);
	u64(w, "written", st->files_written);
	u64(w, "read_once", st->files_read_once);
	u64(w, "reread", st->files_reread);
	u64(w, "redundant_bytes", st->redundant_in_open + st->concurrent_dup);
	u64(w, "reread_within_open_bytes", st->redundant_in_open);
	u64(w, "concurrent_duplicate_bytes", st->concurrent_dup);
	u64(w, "dataset_bytes", st->dataset_bytes);
	ARR(w, "size_bins");
	for (int b = 0; b < SIZE_BINS; b++)
		u64(w, NULL, st->size_bins_files[b]);
	END_ARR(w);
	ARR(w, "list");
	for (uint32_t k = 0, shown = 0; order && k < st->nfiles && shown < v->top; k++) {
		if (st->files[order[k]].scope != SCOPE_APP)
			break;
		file_entry(w, st, &st->files[order[k]]);
		shown++;
	}
	END_ARR(w);
	END_OBJ(w);
	free(order);
}

static void directories(struct jw *w, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	uint32_t *order = rs_sorted(st->ndirs, key_dir_bytes, st);

	ARR(w, "directories");
	for (uint32_t k = 0; order && k < st->ndirs && k < v->top; k++) {
		const struct rs_dir *d = &st->dirs[order[k]];

		if (d->scope != SCOPE_APP)
			break;
		OBJ(w, NULL);
		sid(w, "path", st, d->name);
		u64(w, "files", d->files);
		u64(w, "bytes_read", d->bytes_read);
		u64(w, "bytes_written", d->bytes_written);
		u64(w, "reads", d->reads);
		u64(w, "writes", d->writes);
		u64(w, "metadata_calls", d->meta_ops);
		u64(w, "failed", d->failed);
		u64(w, "io_ns", d->io_ns);
		END_OBJ(w);
	}
	END_ARR(w);
	free(order);
}

static void filesystems(struct jw *w, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	uint32_t *order = rs_sorted(st->nmounts, key_mount_bytes, st);

	ARR(w, "filesystems");
	for (uint32_t k = 0; order && k < st->nmounts && k < v->top; k++) {
		const struct rs_mount *m = &st->mounts[order[k]];

		OBJ(w, NULL);
		sid(w, "dev", st, m->dev);
		sid(w, "fs", st, m->fs);
		sid(w, "mount_prefix", st, m->prefix);
		u64(w, "files", m->files);
		u64(w, "bytes_read", m->bytes_read);
		u64(w, "bytes_written", m->bytes_written);
		u64(w, "io_ns", m->io_ns);
		END_OBJ(w);
	}
	END_ARR(w);
	free(order);
}

/* bytes_min .. time_imbalance of a group of peers */
static void spread(struct jw *w, const struct rs_spread *s)
{
	u64(w, "bytes_min", s->bytes_min);
	u64(w, "bytes_max", s->bytes_max);
	num(w, "bytes_imbalance", s->bytes_imbalance);
	u64(w, "io_ns_min", s->io_min);
	u64(w, "io_ns_max", s->io_max);
	num(w, "time_imbalance", s->time_imbalance);
}

static void across_hosts(struct jw *w, const struct report_stats *st)
{
	const struct rs_spread *s = &st->host_spread;

	OBJ(w, "across_hosts");
	u64(w, "hosts", st->nhosts);
	spread(w, s);
	if (st->nhosts) {
		sid(w, "most", st, st->hosts[s->most].hostname);
		sid(w, "least", st, st->hosts[s->least].hostname);
		sid(w, "slowest", st, st->hosts[s->slowest].hostname);
		sid(w, "fastest", st, st->hosts[s->fastest].hostname);
	}
	END_OBJ(w);
}

static void balance(struct jw *w, const struct report_view *v)
{
	const struct report_stats *st = v->st;

	OBJ(w, "balance");
	ARR(w, "groups");
	for (uint32_t g = 0; g < st->ngroups && g < v->top; g++) {
		const struct rs_group *x = &st->groups[g];

		OBJ(w, NULL);
		u64(w, "parent_pid", x->parent != NONE32 ? st->procs[x->parent].pid : 0);
		sid(w, "command", st, x->name);
		u64(w, "members", x->members);
		spread(w, &x->spread);
		u64(w, "most_pid", st->procs[x->spread.most].pid);
		u64(w, "least_pid", st->procs[x->spread.least].pid);
		u64(w, "slowest_pid", st->procs[x->spread.slowest].pid);
		u64(w, "fastest_pid", st->procs[x->spread.fastest].pid);
		END_OBJ(w);
	}
	END_ARR(w);
	ARR(w, "hosts");
	for (uint32_t h = 0; h < st->nhosts; h++) {
		const struct rs_host *x = &st->hosts[h];

		OBJ(w, NULL);
		sid(w, "hostname", st, x->hostname);
		u64(w, "bytes", x->bytes_read + x->bytes_written);
		u64(w, "io_ns", x->io_ns);
		u64(w, "processes", x->procs);
		u64(w, "traces", x->traces);
		u64(w, "threads", x->threads);
		u64(w, "bytes_read", x->bytes_read);
		u64(w, "bytes_written", x->bytes_written);
		u64(w, "calls", x->calls);
		u64(w, "failed", x->failed);
		u64(w, "start_ns", x->first_ns);
		u64(w, "wall_ns", x->last_ns - x->first_ns);
		u64(w, "events", x->events);
		u64(w, "lost_events", x->lost_events);
		END_OBJ(w);
	}
	END_ARR(w);
	across_hosts(w, st);
	END_OBJ(w);
}

static void timeline(struct jw *w, const struct report_stats *st)
{
	uint32_t first, n;

	rs_timeline_range(st, &first, &n);
	OBJ(w, "timeline");
	u64(w, "start_ns", (uint64_t)first * st->tl_width);
	u64(w, "bin_ns", st->tl_width);
	ARR(w, "read_bytes");
	for (uint32_t i = first; i < first + n; i++)
		u64(w, NULL, st->tl_read[i]);
	END_ARR(w);
	ARR(w, "write_bytes");
	for (uint32_t i = first; i < first + n; i++)
		u64(w, NULL, st->tl_write[i]);
	END_ARR(w);
	ARR(w, "metadata_calls");
	for (uint32_t i = first; i < first + n; i++)
		u64(w, NULL, st->tl_meta[i]);
	END_ARR(w);
	END_OBJ(w);
}

static void bursts(struct jw *w, const struct report_stats *st)
{
	OBJ(w, "bursts");
	u64(w, "count", st->bursts);
	u64(w, "bytes", st->burst_bytes);
	u64(w, "blocked_ns", st->burst_blocked_ns);
	ARR(w, "list");
	for (uint32_t k = 0; k < st->nbursts_kept; k++) {
		const struct rs_burst *b = &st->top_bursts[k];
		const struct rs_thread *t = &st->threads[b->thread];

		OBJ(w, NULL);
		u64(w, "pid", st->procs[t->proc].pid);
		u64(w, "tid", t->tid);
		u64(w, "start_ns", b->start_ns);
		u64(w, "end_ns", b->end_ns);
		u64(w, "bytes", b->bytes);
		u64(w, "blocked_ns", b->blocked_ns);
		u64(w, "ops", b->ops);
		sid(w, "path", st, b->file != NONE32 ? st->files[b->file].name : NONE32);
		boolean(w, "training_thread", b->thread == st->training_thread);
		END_OBJ(w);
	}
	END_ARR(w);
	END_OBJ(w);
}

static void scope_totals(struct jw *w, const struct rs_totals *t)
{
	u64(w, "calls", t->calls);
	u64(w, "failed", t->failed);
	u64(w, "bytes_read", t->bytes_read);
	u64(w, "bytes_written", t->bytes_written);
	u64(w, "io_ns", t->io_ns[CLS_DATA] + t->io_ns[CLS_META] + t->io_ns[CLS_SYNC]);
}

static void environment(struct jw *w, const struct report_stats *st)
{
	uint32_t files = 0;

	for (int k = 1; k < ENV_COUNT; k++)
		files += st->env[k].files;
	OBJ(w, "environment");
	scope_totals(w, &st->tot[SCOPE_ENV]);
	u64(w, "files", files);
	ARR(w, "kinds");
	for (int k = 1; k < ENV_COUNT; k++) {
		const struct rs_env_kind *e = &st->env[k];

		if (!e->calls)
			continue;
		OBJ(w, NULL);
		STR(w, "kind", env_kind_name(k));
		u64(w, "calls", e->calls);
		u64(w, "failed", e->failed);
		u64(w, "bytes_read", e->bytes_read);
		u64(w, "bytes_written", e->bytes_written);
		u64(w, "io_ns", e->io_ns);
		u64(w, "files", e->files);
		END_OBJ(w);
	}
	END_ARR(w);
	END_OBJ(w);
	OBJ(w, "other");
	scope_totals(w, &st->tot[SCOPE_OTHER]);
	END_OBJ(w);
}

static void layers(struct jw *w, const struct report_stats *st)
{
	static const char *const scopes[SCOPE_COUNT] = {"application", "environment", "other"};
	const struct rs_layers *l = &st->layers;

	OBJ(w, "layers");
	sid(w, "active", st, l->active);
	OBJ(w, "page_faults");
	for (int s = 0; s < SCOPE_COUNT; s++)
		u64(w, scopes[s], l->faults[s]);
	END_OBJ(w);
	u64(w, "reads_with_cache_info", l->cache_reads);
	OBJ(w, "cache_miss_bytes");
	for (int s = 0; s < SCOPE_COUNT; s++)
		u64(w, scopes[s], l->cache_miss[s]);
	END_OBJ(w);
	OBJ(w, "cache_hit_ratio");
	for (int s = 0; s < SCOPE_COUNT; s++)
		ratio_or_null(w, scopes[s],
			      rs_cache_hit_ratio(l->cache_miss[s], l->cache_read_bytes[s]));
	END_OBJ(w);
	OBJ(w, "block");
	u64(w, "reads", l->block_requests[0]);
	u64(w, "writes", l->block_requests[1]);
	u64(w, "other", l->block_requests[2]);
	u64(w, "read_bytes", l->block_bytes[0]);
	u64(w, "write_bytes", l->block_bytes[1]);
	OBJ(w, "latency_ns");
	u64(w, "p50", sketch_quantile(&l->block_lat, 0.5));
	u64(w, "p99", sketch_quantile(&l->block_lat, 0.99));
	u64(w, "max", l->block_lat.max);
	END_OBJ(w);
	END_OBJ(w);
	u64(w, "uring_requests", l->uring_requests);
	u64(w, "vfs_events", l->vfs_events);
	END_OBJ(w);
}

static void errors(struct jw *w, const struct report_stats *st)
{
	ARR(w, "errors");
	for (uint32_t i = 0; i < st->nerrnos; i++) {
		const struct rs_errno *e = &st->errnos[i];

		OBJ(w, NULL);
		STR(w, "errno", e->name);
		u64(w, "count", e->count[0] + e->count[1] + e->count[2]);
		u64(w, "application", e->count[SCOPE_APP]);
		u64(w, "environment", e->count[SCOPE_ENV]);
		u64(w, "other", e->count[SCOPE_OTHER]);
		END_OBJ(w);
	}
	END_ARR(w);
}

static void findings(struct jw *w, const struct findings *fi)
{
	ARR(w, "findings");
	for (int i = 0; i < fi->n; i++) {
		const struct finding *f = &fi->items[i];

		OBJ(w, NULL);
		STR(w, "id", f->id);
		STR(w, "level", finding_level_name(f->level));
		STR(w, "title", f->title);
		STR(w, "rule", f->rule);
		ARR(w, "evidence");
		for (int k = 0; k < f->nevidence; k++)
			STR(w, NULL, f->evidence[k]);
		END_ARR(w);
		OBJ(w, "metrics");
		for (int k = 0; k < f->nmetrics; k++)
			num(w, f->metrics[k].key, f->metrics[k].value);
		END_OBJ(w);
		STR(w, "recommendation", f->recommendation);
		END_OBJ(w);
	}
	END_ARR(w);
}

void report_json(FILE *out, const struct report_view *v)
{
	struct jw w = {.f = out, .depth = 0};

	w.first[0] = true;
	OBJ(&w, NULL);
	STR(&w, "schema", "dltrace-report-1");
	STR(&w, "generator", v->generator);
	traces(&w, v->st);
	job(&w, v->st);
	time_section(&w, v);
	syscalls(&w, v->st);
	access_sizes(&w, v->st);
	pattern(&w, v->st);
	files(&w, v);
	directories(&w, v);
	filesystems(&w, v);
	balance(&w, v);
	timeline(&w, v->st);
	bursts(&w, v->st);
	environment(&w, v->st);
	layers(&w, v->st);
	errors(&w, v->st);
	findings(&w, v->fi);
	END_OBJ(&w);
	fputc('\n', out);
	free(w.buf);
}
