// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The levels above the syscalls: library calls (EV_SPAN of category stdio,
 * hdf5, mpiio) per function: calls, failures, time, latency quantiles, the
 * bytes asked where the arguments give them (fread/fwrite/fgets/fputs
 * size, MPI-IO count x type size), and what the calls caused below, from
 * the args the decoder added (syscalls, sys_reads, sys_read_bytes,
 * sys_writes, sys_write_bytes): the amplification between the levels.
 *
 * The same join per object (struct rs_level_obj): per HDF5 dataset (the
 * span's "object") and per file (its "path"), the bytes asked (fread's
 * size, MPI-IO's and H5Dread's bytes), the bytes the enclosed syscalls
 * moved, what the page cache brought in for them (sys_cache_miss_bytes),
 * the opens, the selection kinds and the sizes asked.
 */
#define _GNU_SOURCE
#include "report/report_stats_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The levels' names in the report (and their spans' category); markers are no level here. */
const char *const rs_level_names[DL_LEVEL_COUNT] = {
    [DL_LAYER_SYSCALL] = "syscall",
    [DL_LAYER_STDIO] = "stdio",
    [DL_LAYER_HDF5] = "hdf5",
    [DL_LAYER_MPIIO] = "mpiio",
};
const char *const rs_sel_names[LV_SEL_COUNT] = {"none", "points", "hyperslab", "all"};

static bool str_starts(const struct ev_str *s, const char *lit)
{
	size_t n = strlen(lit);

	return s->len >= n && !memcmp(s->s, lit, n);
}

int rs_level_of(const struct ev_str *cat)
{
	for (int l = DL_LAYER_STDIO; l < DL_LEVEL_COUNT; l++)
		if (ev_str_is(cat, rs_level_names[l]))
			return l;
	return DL_LAYER_SYSCALL;
}

/* The calls that open what later calls name (their "object", or their "path"). */
static bool span_name_opens(const struct ev_str *name)
{
	static const char *const opens[] = {"fopen",	"fopen64",    "fdopen",
					    "H5Fopen",	"H5Fcreate",  "H5Oopen",
					    "H5Dopen2", "H5Dcreate2", "MPI_File_open"};

	for (size_t i = 0; i < sizeof(opens) / sizeof(opens[0]); i++)
		if (ev_str_is(name, opens[i]))
			return true;
	return false;
}

static uint8_t fn_dir(const struct ev_str *name)
{
	static const char *const reads[] = {"fread", "fgets", "H5Dread"};
	static const char *const writes[] = {"fwrite", "fputs", "H5Dwrite"};
	static const char *const flushes[] = {"fflush",	       "fclose",   "H5Fclose",
					      "H5Dclose",      "H5Fflush", "MPI_File_sync",
					      "MPI_File_close"};

	for (size_t i = 0; i < sizeof(reads) / sizeof(reads[0]); i++)
		if (ev_str_is(name, reads[i]))
			return LV_DIR_READ;
	for (size_t i = 0; i < sizeof(writes) / sizeof(writes[0]); i++)
		if (ev_str_is(name, writes[i]))
			return LV_DIR_WRITE;
	for (size_t i = 0; i < sizeof(flushes) / sizeof(flushes[0]); i++)
		if (ev_str_is(name, flushes[i]))
			return LV_DIR_FLUSH;
	if (str_starts(name, "MPI_File_read"))
		return LV_DIR_READ;
	if (str_starts(name, "MPI_File_write"))
		return LV_DIR_WRITE;
	return LV_DIR_OTHER;
}

static struct rs_level_fn *fn_get(struct report_stats *st, int level, const struct ev_str *name)
{
	struct rs_levels *lv = &st->levels;
	uint32_t id = rs_intern(st, name);
	struct rs_level_fn *f;

	if (id == NONE32)
		return NULL;
	for (uint32_t i = 0; i < lv->nfn; i++)
		if (lv->fn[i].name == id && lv->fn[i].level == level)
			return &lv->fn[i];
	if (lv->nfn == LEVEL_FN_MAX)
		return NULL;
	f = &lv->fn[lv->nfn++];
	memset(f, 0, sizeof(*f));
	f->level = level;
	f->name = id;
	f->dir = fn_dir(name);
	sketch_init(&f->lat);
	return f;
}

static const struct ev_arg *arg(const struct ev_span *s, const char *key)
{
	size_t n = strlen(key);

	for (uint32_t i = 0; i < s->nargs; i++)
		if (s->args[i].key.len == n && !memcmp(s->args[i].key.s, key, n))
			return &s->args[i];
	return NULL;
}

/* A numeric arg; false when absent or not a number. */
static bool arg_num(const struct ev_span *s, const char *key, int64_t *v)
{
	const struct ev_arg *a = arg(s, key);

	if (!a)
		return false;
	if (a->type == EV_ARG_I64)
		*v = a->i;
	else if (a->type == EV_ARG_U64)
		*v = a->u > INT64_MAX ? INT64_MAX : (int64_t)a->u;
	else
		return false;
	return true;
}

static uint64_t arg_u64(const struct ev_span *s, const char *key)
{
	int64_t v;

	return arg_num(s, key, &v) && v > 0 ? (uint64_t)v : 0;
}

/* A string arg's id (NONE32: absent); a "path" is its file name. */
static uint32_t arg_sid(struct report_stats *st, const struct ev_span *s, const char *key)
{
	const struct ev_arg *a = arg(s, key);

	if (!a)
		return NONE32;
	if (a->type == EV_ARG_PATH)
		return a->path && a->path->name.len ? rs_intern(st, &a->path->name) : NONE32;
	if (a->type == EV_ARG_STR || a->type == EV_ARG_SYMBOL)
		return a->s.len ? rs_intern(st, &a->s) : NONE32;
	return NONE32;
}

_Static_assert(DL_LEVEL_COUNT <= 8, "a level takes 3 bits of the objects' key");

static struct rs_level_obj *obj_get(struct report_stats *st, int level, uint32_t file,
				    uint32_t object)
{
	struct rs_levels *lv = &st->levels;
	/* a level (enum dl_layer, below DL_LEVEL_COUNT) takes 3 bits: MPI-IO is 4 */
	uint64_t key = (uint64_t)file << 35 | (uint64_t)level << 32 | object;
	uint32_t i = u64_index_get(&lv->obj_ix, key);
	struct rs_level_obj *o;

	if (i != U64_NONE)
		return &lv->objs[i];
	if (!GROW(st, lv->objs, lv->cap_objs, lv->nobjs) ||
	    u64_index_put(&lv->obj_ix, key, lv->nobjs)) {
		st->oom = true;
		return NULL;
	}
	o = &lv->objs[lv->nobjs++];
	memset(o, 0, sizeof(*o));
	o->level = level;
	o->file = file;
	o->object = object;
	return o;
}

/* What one call did to an object's figures. */
struct obj_call {
	uint8_t dir;	/* LV_DIR_* */
	bool opens;	/* it opened the object */
	bool asked;	/* its bytes asked are known */
	uint64_t bytes; /* then these */
	int sel;	/* LV_SEL_*, or -1 */
	uint64_t dur, syscalls, sys_reads, sys_read_bytes, sys_writes, sys_write_bytes;
	bool cache;
	uint64_t cache_miss;
};

static void obj_add(struct rs_level_obj *o, const struct obj_call *c)
{
	struct rs_level_side *sd = c->dir == LV_DIR_READ ? &o->rd : &o->wr;

	if (c->opens) {
		o->opens++;
		o->open_read_bytes += c->sys_read_bytes;
		return;
	}
	if (c->dir == LV_DIR_OTHER)
		return;
	/* writes: the write calls, and the flushes that write what they buffered */
	sd->syscalls += c->dir == LV_DIR_READ ? c->sys_reads : c->sys_writes;
	sd->sys_bytes += c->dir == LV_DIR_READ ? c->sys_read_bytes : c->sys_write_bytes;
	if (c->dir == LV_DIR_READ && c->cache) {
		sd->cache_reads += c->sys_reads;
		sd->cache_miss += c->cache_miss;
	}
	if (c->dir == LV_DIR_FLUSH)
		return;
	sd->calls++;
	sd->time_ns += c->dur;
	if (!c->asked)
		return;
	sd->asked_calls++;
	sd->asked += c->bytes;
	if (c->sel >= 0) {
		sd->sel_calls[c->sel]++;
		sd->sel_bytes[c->sel] += c->bytes;
	}
	for (uint32_t i = 0; i < sd->nsizes; i++)
		if (sd->sizes[i].key == c->bytes) {
			sd->sizes[i].count++;
			return;
		}
	if (sd->nsizes == LEVEL_SIZES) {
		sd->sizes_other++;
		return;
	}
	sd->sizes[sd->nsizes++] = (struct rs_size){c->bytes, 1};
}

/* The call's share of the per-object join: its dataset's and its file's rows. */
static void obj_span(struct report_stats *st, int level, const struct rs_level_fn *f,
		     const struct ev_span *s)
{
	struct obj_call c = {.dir = f->dir, .sel = -1, .dur = s->dur};
	uint32_t file = arg_sid(st, s, "path"), object = NONE32;
	const struct ev_arg *sel = arg(s, "selection");
	struct rs_level_obj *o;
	int64_t v;

	c.opens = span_name_opens(&s->name);
	if (level == DL_LAYER_HDF5)
		object = arg_sid(st, s, "object");
	if (c.dir == LV_DIR_OTHER && !c.opens)
		return;
	if ((level == DL_LAYER_STDIO && (c.dir == LV_DIR_READ || c.dir == LV_DIR_WRITE) &&
	     arg_num(s, "size", &v)) ||
	    ((level == DL_LAYER_MPIIO || level == DL_LAYER_HDF5) && arg_num(s, "bytes", &v))) {
		c.asked = true;
		c.bytes = v > 0 ? (uint64_t)v : 0;
	}
	if (sel && (sel->type == EV_ARG_SYMBOL || sel->type == EV_ARG_STR))
		for (int k = 0; k < LV_SEL_COUNT; k++)
			if (ev_str_is(&sel->s, rs_sel_names[k]))
				c.sel = k;
	c.syscalls = arg_u64(s, "syscalls");
	c.sys_reads = arg_u64(s, "sys_reads");
	c.sys_read_bytes = arg_u64(s, "sys_read_bytes");
	c.sys_writes = arg_u64(s, "sys_writes");
	c.sys_write_bytes = arg_u64(s, "sys_write_bytes");
	c.cache = arg(s, "sys_cache_miss_bytes") != NULL;
	c.cache_miss = arg_u64(s, "sys_cache_miss_bytes");
	/* a dataset's opens are its own; the file's row has the file's opens */
	if (object != NONE32 && (o = obj_get(st, level, file, object)))
		obj_add(o, &c);
	if ((!c.opens || object == NONE32) && (o = obj_get(st, level, file, NONE32)))
		obj_add(o, &c);
}

/* Whether the call failed, from its ret (streams and buffers as hex: "0x0" is NULL). */
static bool failed(int level, const struct ev_str *name, const struct ev_span *s)
{
	const struct ev_arg *a = arg(s, "ret");
	int64_t v;

	if (!a)
		return false;
	if (a->type == EV_ARG_STR || a->type == EV_ARG_SYMBOL) /* fopen, fdopen: the stream */
		return !ev_str_is(name, "fgets") && ev_str_is(&a->s, "0x0");
	if (!arg_num(s, "ret", &v))
		return false;
	return level == DL_LAYER_MPIIO ? v != 0 : v < 0;
}

void rs_level_span(struct report_stats *st, uint32_t ti, const struct event *ev, uint64_t start)
{
	const struct ev_span *s = &ev->span;
	int level = rs_level_of(&s->cat);
	struct rs_level_fn *f;
	struct rs_item it = {0};
	int64_t v;

	if (level == DL_LAYER_SYSCALL || s->phase != EV_PH_COMPLETE)
		return;
	st->levels.calls[level]++;
	st->levels.time_ns[level] += s->dur;
	f = fn_get(st, level, &s->name);
	if (!f) {
		st->levels.unknown++;
	} else {
		f->calls++;
		f->time_ns += s->dur;
		sketch_add(&f->lat, s->dur);
		if (failed(level, &s->name, s))
			f->failed++;
		if ((level == DL_LAYER_STDIO && (f->dir == LV_DIR_READ || f->dir == LV_DIR_WRITE) &&
		     arg_num(s, "size", &v)) ||
		    ((level == DL_LAYER_MPIIO || level == DL_LAYER_HDF5) &&
		     arg_num(s, "bytes", &v))) {
			f->bytes_requested += v > 0 ? (uint64_t)v : 0;
			f->requested_calls++;
		}
		f->syscalls += arg_u64(s, "syscalls");
		f->sys_reads += arg_u64(s, "sys_reads");
		f->sys_read_bytes += arg_u64(s, "sys_read_bytes");
		f->sys_writes += arg_u64(s, "sys_writes");
		f->sys_write_bytes += arg_u64(s, "sys_write_bytes");
		if (arg(s, "syscalls_partial"))
			f->partial++;
		if (!failed(level, &s->name, s))
			obj_span(st, level, f, s);
	}
	it.start = start;
	it.dur = s->dur;
	it.proc = st->threads[ti].proc;
	it.thread = ti;
	it.file = NONE32;
	it.level = level;
	rs_phase_call(st, &it);
}

void rs_level_dirs(const struct report_stats *st, int level, struct rs_level_dir *read,
		   struct rs_level_dir *write)
{
	memset(read, 0, sizeof(*read));
	memset(write, 0, sizeof(*write));
	for (uint32_t i = 0; i < st->levels.nfn; i++) {
		const struct rs_level_fn *f = &st->levels.fn[i];
		struct rs_level_dir *d = f->dir == LV_DIR_READ ? read : write;

		if (f->level != level || f->dir == LV_DIR_OTHER)
			continue;
		d->syscalls += f->dir == LV_DIR_READ ? f->sys_reads : f->sys_writes;
		d->sys_bytes += f->dir == LV_DIR_READ ? f->sys_read_bytes : f->sys_write_bytes;
		if (f->dir == LV_DIR_FLUSH)
			continue;
		d->calls += f->calls;
		d->time_ns += f->time_ns;
		d->requested += f->bytes_requested;
		d->requested_calls += f->requested_calls;
	}
}

void rs_levels_init(struct report_stats *st)
{
	for (int l = 0; l < DL_LEVEL_COUNT; l++)
		st->levels.lib_path[l] = NONE32;
}

void rs_levels_free(struct report_stats *st)
{
	for (uint32_t i = 0; i < st->levels.nfn; i++)
		sketch_free(&st->levels.fn[i].lat);
	free(st->levels.objs);
	u64_index_free(&st->levels.obj_ix);
}

double rs_level_ratio(const struct rs_level_side *s)
{
	if (!s->calls || s->asked_calls != s->calls)
		return -1;
	if (!s->asked) /* nothing asked: any byte moved is beyond it */
		return s->sys_bytes ? INFINITY : -1;
	return (double)s->sys_bytes / (double)s->asked;
}

uint64_t rs_level_excess(const struct rs_level_side *s)
{
	if (!s->calls || s->asked_calls != s->calls || s->sys_bytes <= s->asked)
		return 0;
	return s->sys_bytes - s->asked;
}

const char *rs_level_obj_name(const struct report_stats *st, const struct rs_level_obj *o,
			      char *buf, size_t size)
{
	const char *file = o->file == NONE32 ? "(file unknown)" : rs_str(st, o->file);

	if (o->object == NONE32)
		snprintf(buf, size, "%s", file);
	else
		snprintf(buf, size, "%s:%s", file, rs_str(st, o->object));
	return buf;
}

double key_level_obj(const struct report_stats *st, uint32_t i)
{
	const struct rs_level_obj *o = &st->levels.objs[i];

	return (double)rs_level_excess(&o->rd) + (double)(o->rd.sys_bytes + o->wr.sys_bytes) / 1e15;
}

uint32_t rs_level_top_sizes(const struct rs_level_side *o, uint32_t *idx, uint32_t n)
{
	uint32_t all[LEVEL_SIZES], k = o->nsizes;

	for (uint32_t i = 0; i < k; i++)
		all[i] = i;
	/* by calls, then by size: the same order every run */
	for (uint32_t i = 1; i < k; i++)
		for (uint32_t j = i; j > 0; j--) {
			const struct rs_size *a = &o->sizes[all[j - 1]], *b = &o->sizes[all[j]];
			uint32_t t;

			if (a->count > b->count || (a->count == b->count && a->key < b->key))
				break;
			t = all[j - 1];
			all[j - 1] = all[j];
			all[j] = t;
		}
	if (k > n)
		k = n;
	memcpy(idx, all, k * sizeof(*idx));
	return k;
}

void rs_level_library(struct report_stats *st, uint32_t proc, const struct ev_str *path)
{
	const char *slash = memrchr(path->s, '/', path->len);
	struct ev_str base =
	    slash ? (struct ev_str){slash + 1, path->len - (slash + 1 - path->s)} : *path;
	int level = str_starts(&base, "libhdf5")  ? DL_LAYER_HDF5
		    : str_starts(&base, "libmpi") ? DL_LAYER_MPIIO
						  : DL_LAYER_SYSCALL;
	struct rs_proc *p = &st->procs[proc];

	if (level == DL_LAYER_SYSCALL || (p->libs & 1u << level))
		return;
	p->libs |= 1u << level;
	st->levels.lib_procs[level]++;
	if (st->levels.lib_path[level] == NONE32)
		st->levels.lib_path[level] = rs_intern(st, path);
}

/* Whether the comma-separated list holds word. */
static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, word, n) && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

/* HDF5's file name extensions (netCDF-4 files are HDF5 files too). */
static bool h5_file(const char *name, size_t len)
{
	static const char *const ext[] = {".h5", ".hdf5", ".he5", ".nc4"};

	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		size_t n = strlen(ext[i]);

		if (len > n && !strcmp(name + len - n, ext[i]))
			return true;
	}
	return false;
}

bool rs_layer_hint(const struct report_stats *st, int level, struct rs_layer_hint *h)
{
	memset(h, 0, sizeof(*h));
	if ((level != DL_LAYER_HDF5 && level != DL_LAYER_MPIIO) || !st->levels.lib_procs[level] ||
	    st->layers.active == NONE32 ||
	    has_word(rs_str(st, st->layers.active), rs_level_names[level]))
		return false;
	h->layer = rs_level_names[level];
	h->library = st->levels.lib_path[level];
	h->procs = st->levels.lib_procs[level];
	if (level == DL_LAYER_HDF5) {
		for (uint32_t i = 0; i < st->nfiles; i++) {
			const struct rs_file *f = &st->files[i];

			if (f->scope == SCOPE_APP && f->reads &&
			    h5_file(rs_str(st, f->name), rs_strlen(st, f->name))) {
				h->files++;
				h->reads += f->reads;
				h->bytes += f->bytes_read;
			}
		}
	} else {
		for (uint32_t i = 0; i < st->nprocs; i++)
			if (st->procs[i].libs & 1u << DL_LAYER_MPIIO) {
				h->reads += st->procs[i].app_reads;
				h->bytes += st->procs[i].app_bytes_read;
			}
	}
	return true;
}
