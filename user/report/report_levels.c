// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The levels above the syscalls: library calls (EV_SPAN of category stdio,
 * hdf5, mpiio) per function: calls, failures, time, latency quantiles, the
 * bytes asked where the arguments give them (fread/fwrite/fgets/fputs
 * size, MPI-IO count x type size), and what the calls caused below, from
 * the args the decoder added (syscalls, sys_reads, sys_read_bytes,
 * sys_writes, sys_write_bytes): the amplification between the levels.
 */
#define _GNU_SOURCE
#include "report/report_stats_internal.h"

#include <string.h>

/* The levels' names in the report (and their spans' category); markers are no level here. */
const char *const rs_level_names[DL_LEVEL_COUNT] = {
    [DL_LAYER_SYSCALL] = "syscall",
    [DL_LAYER_STDIO] = "stdio",
    [DL_LAYER_HDF5] = "hdf5",
    [DL_LAYER_MPIIO] = "mpiio",
};

static bool str_is(const struct ev_str *s, const char *lit)
{
	size_t n = strlen(lit);

	return s->len == n && !memcmp(s->s, lit, n);
}

static bool str_starts(const struct ev_str *s, const char *lit)
{
	size_t n = strlen(lit);

	return s->len >= n && !memcmp(s->s, lit, n);
}

int rs_level_of(const struct ev_str *cat)
{
	for (int l = DL_LAYER_STDIO; l < DL_LEVEL_COUNT; l++)
		if (str_is(cat, rs_level_names[l]))
			return l;
	return DL_LAYER_SYSCALL;
}

static uint8_t fn_dir(const struct ev_str *name)
{
	static const char *const reads[] = {"fread", "fgets", "H5Dread"};
	static const char *const writes[] = {"fwrite", "fputs", "H5Dwrite"};
	static const char *const flushes[] = {"fflush",	       "fclose",   "H5Fclose",
					      "H5Dclose",      "H5Fflush", "MPI_File_sync",
					      "MPI_File_close"};

	for (size_t i = 0; i < sizeof(reads) / sizeof(reads[0]); i++)
		if (str_is(name, reads[i]))
			return LV_DIR_READ;
	for (size_t i = 0; i < sizeof(writes) / sizeof(writes[0]); i++)
		if (str_is(name, writes[i]))
			return LV_DIR_WRITE;
	for (size_t i = 0; i < sizeof(flushes) / sizeof(flushes[0]); i++)
		if (str_is(name, flushes[i]))
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

/* Whether the call failed, from its ret (streams and buffers as hex: "0x0" is NULL). */
static bool failed(int level, const struct ev_str *name, const struct ev_span *s)
{
	const struct ev_arg *a = arg(s, "ret");
	int64_t v;

	if (!a)
		return false;
	if (a->type == EV_ARG_STR || a->type == EV_ARG_SYMBOL) /* fopen, fdopen: the stream */
		return !str_is(name, "fgets") && str_is(&a->s, "0x0");
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
		    (level == DL_LAYER_MPIIO && arg_num(s, "bytes", &v))) {
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

void rs_levels_free(struct report_stats *st)
{
	for (uint32_t i = 0; i < st->levels.nfn; i++)
		sketch_free(&st->levels.fn[i].lat);
}
