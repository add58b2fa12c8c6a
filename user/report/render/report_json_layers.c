// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `--json`, the I/O besides the application's syscalls: environment, other,
 * the capture layers, the library levels (HDF5 datasets, read amplification)
 * and the Python locations.
 */
#include <math.h>
#include <stdlib.h>

#include "report/render/report_json_internal.h"

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

struct json_object *rj_environment(const struct report_stats *st)
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
struct json_object *rj_other(const struct report_stats *st)
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
		jv_add(o, j_scope_names[s], j_u64(v[s]));
	return o;
}

struct json_object *rj_layers(const struct report_stats *st)
{
	const struct rs_layers *l = &st->layers;
	struct json_object *o = json_object_new_object(), *ratio = json_object_new_object(),
			   *block = json_object_new_object(), *lat = json_object_new_object();

	jv_add(o, "active", j_sid(st, l->active));
	jv_add(o, "page_faults", by_scope(l->faults));
	jv_add(o, "reads_with_cache_info", j_u64(l->cache_reads));
	jv_add(o, "cache_miss_bytes", by_scope(l->cache_miss));
	for (int s = 0; s < SCOPE_COUNT; s++)
		jv_add(ratio, j_scope_names[s],
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

struct json_object *rj_python(const struct report_view *v)
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

struct json_object *rj_levels(const struct report_view *v)
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
			jv_add(x, "latency_ns", j_latency(&f->lat));
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
