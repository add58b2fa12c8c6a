// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `--json`, where and when the application's I/O went: files, directories,
 * filesystems, balance (process groups and hosts), timeline and bursts.
 */
#include <stdlib.h>

#include "lib/json_string.h"
#include "report/render/report_json_internal.h"

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
	jv_add(o, "origins", j_origin_list(f->origins));
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

void rj_files(struct jstream *s, const struct report_view *v)
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

void rj_directories(struct jstream *s, const struct report_view *v)
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

void rj_filesystems(struct jstream *s, const struct report_view *v)
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

void rj_balance(struct jstream *s, const struct report_view *v)
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

struct json_object *rj_timeline(const struct report_stats *st)
{
	struct json_object *o = json_object_new_object();
	uint32_t first, n;

	rs_timeline_range(st, &first, &n);
	jv_add(o, "start_ns", j_u64((uint64_t)first * st->tl_width));
	jv_add(o, "bin_ns", j_u64(st->tl_width));
	jv_add(o, "read_bytes", j_u64_array(st->tl_read + first, n));
	jv_add(o, "write_bytes", j_u64_array(st->tl_write + first, n));
	jv_add(o, "metadata_calls", j_u64_array(st->tl_meta + first, n));
	return o;
}

struct json_object *rj_bursts(const struct report_stats *st)
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
