// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "decode/span_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event/syscall_table.h"
#include "lib/decimal.h"
#include "lib/json_flat.h"

struct out {
	struct ev_arg *a;
	unsigned n;
	char *scratch, *end;
};

static struct ev_arg *add(struct out *o, const char *key, size_t key_len, uint8_t type)
{
	struct ev_arg *a;

	if (o->n == EV_ARGS_MAX)
		return NULL;
	a = &o->a[o->n++];
	a->key = (struct ev_str){key, key_len};
	a->type = type;
	return a;
}

#define KEY(lit) (lit), sizeof(lit) - 1

static void add_i64(struct out *o, const char *key, size_t len, int64_t v)
{
	struct ev_arg *a = add(o, key, len, EV_ARG_I64);

	if (a)
		a->i = v;
}
#define I64(o, k, v) add_i64((o), KEY(k), (v))

static void add_u64(struct out *o, const char *key, size_t len, uint64_t v)
{
	struct ev_arg *a = add(o, key, len, EV_ARG_U64);

	if (a)
		a->u = v;
}
#define U64(o, k, v) add_u64((o), KEY(k), (v))

static void add_str(struct out *o, const char *key, size_t len, uint8_t type, const char *s,
		    size_t slen)
{
	struct ev_arg *a = add(o, key, len, type);

	if (a)
		a->s = (struct ev_str){s, slen};
}
#define STR(o, k, s, n) add_str((o), KEY(k), EV_ARG_STR, (s), (n))
#define SYM(o, k, s)	add_str((o), KEY(k), EV_ARG_SYMBOL, (s), strlen(s))

static void add_bool(struct out *o, const char *key, size_t len, bool v)
{
	struct ev_arg *a = add(o, key, len, EV_ARG_BOOL);

	if (a)
		a->b = v;
}

/* A symbol written into scratch. */
static void made(struct out *o, const char *key, size_t len, const char *text)
{
	size_t n = strlen(text);

	if (o->end - o->scratch < (ptrdiff_t)n)
		return;
	memcpy(o->scratch, text, n);
	add_str(o, key, len, EV_ARG_SYMBOL, o->scratch, n);
	o->scratch += n;
}

static void hex(struct out *o, const char *key, size_t len, uint64_t v)
{
	char buf[24] = "0x";

	*hex_u64(buf + 2, v) = '\0';
	made(o, key, len, buf);
}

static void path(struct out *o, const struct span_context *c)
{
	struct ev_arg *a;

	if (c->path && c->path->name.len && (a = add(o, KEY("path"), EV_ARG_PATH)))
		a->path = c->path;
}

/* Names of the bits set in v, joined by '|' ("0" when none is). */
struct bit_name {
	uint32_t bit;
	const char *name;
};

static void bits(struct out *o, const char *key, size_t len, uint32_t v,
		 const struct bit_name *names, size_t count, const char *none)
{
	char buf[256];
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < count; i++) {
		if (!(v & names[i].bit))
			continue;
		n += snprintf(buf + n, sizeof(buf) - n, "%s%s", n ? "|" : "", names[i].name);
		v &= ~names[i].bit;
		if (n >= sizeof(buf))
			return;
	}
	if (v)
		n += snprintf(buf + n, sizeof(buf) - n, "%s0x%x", n ? "|" : "", v);
	made(o, key, len, n ? buf : none);
}

/* ------------------------------------------------------------------ stdio */

static void stdio_args(struct out *o, const struct span_view *v, const struct span_context *c)
{
	const struct dl_span *e = v->rec;
	char whence[32];

	switch (e->func) {
	case DL_FN_FOPEN:
	case DL_FN_FOPEN64:
		path(o, c);
		STR(o, "mode", v->str2, v->str2_len);
		if (e->flags & DL_SPAN_FD)
			I64(o, "fd", e->h.fd);
		hex(o, KEY("ret"), (uint64_t)e->ret);
		return;
	case DL_FN_FDOPEN:
		I64(o, "fd", e->h.fd);
		path(o, c);
		STR(o, "mode", v->str2, v->str2_len);
		hex(o, KEY("ret"), (uint64_t)e->ret);
		return;
	default:
		break;
	}
	path(o, c);
	if (e->flags & DL_SPAN_FD)
		I64(o, "fd", e->h.fd);
	switch (e->func) {
	case DL_FN_FREAD:
	case DL_FN_FWRITE:
		U64(o, "item_size", e->arg);
		U64(o, "items", e->count);
		U64(o, "size", e->size);
		U64(o, "ret", (uint64_t)e->ret);
		break;
	case DL_FN_FSEEK:
	case DL_FN_FSEEKO:
		I64(o, "offset", (int64_t)e->offset);
		made(o, KEY("whence"), whence_name(e->arg, whence, sizeof(whence)));
		I64(o, "ret", (int32_t)e->ret);
		break;
	case DL_FN_FTELL:
	case DL_FN_FTELLO:
		I64(o, "ret", e->ret);
		break;
	case DL_FN_FGETS:
		if (e->flags & DL_SPAN_SIZE)
			U64(o, "size", e->size);
		hex(o, KEY("ret"), (uint64_t)e->ret);
		break;
	case DL_FN_FPUTS:
		if (e->flags & DL_SPAN_SIZE)
			U64(o, "size", e->size);
		I64(o, "ret", (int32_t)e->ret);
		break;
	default: /* fflush, fclose */
		I64(o, "ret", (int32_t)e->ret);
		break;
	}
}

/* ------------------------------------------------------------------- hdf5 */

static const struct bit_name h5f_acc[] = {
    {0x0001, "H5F_ACC_RDWR"},  {0x0002, "H5F_ACC_TRUNC"},      {0x0004, "H5F_ACC_EXCL"},
    {0x0010, "H5F_ACC_CREAT"}, {0x0020, "H5F_ACC_SWMR_WRITE"}, {0x0040, "H5F_ACC_SWMR_READ"},
};

static void hdf5_args(struct out *o, const struct span_view *v, const struct span_context *c)
{
	const struct dl_span *e = v->rec;

	path(o, c);
	switch (e->func) {
	case DL_FN_H5FCREATE:
	case DL_FN_H5FOPEN:
		bits(o, KEY("flags"), e->arg, h5f_acc, sizeof(h5f_acc) / sizeof(h5f_acc[0]),
		     "H5F_ACC_RDONLY");
		I64(o, "ret", e->ret);
		return;
	case DL_FN_H5DCREATE2:
	case DL_FN_H5DOPEN2:
	case DL_FN_H5GOPEN2:
	case DL_FN_H5OOPEN:
		if (c->object)
			STR(o, "object", c->object, strlen(c->object));
		else
			STR(o, "object", v->str, v->str_len);
		I64(o, "loc", (int64_t)e->handle);
		I64(o, "ret", e->ret);
		return;
	default:
		break;
	}
	if (c->object && e->func != DL_FN_H5FCLOSE)
		STR(o, "object", c->object, strlen(c->object));
	I64(o, "hid", (int64_t)e->handle);
	if (e->func == DL_FN_H5DREAD || e->func == DL_FN_H5DWRITE) {
		static const char *const kinds[] = {"none", "points", "hyperslab", "all"};

		SYM(o, "file_space", e->arg & DL_H5_FILE_ALL ? "all" : "selection");
		SYM(o, "mem_space", e->arg & DL_H5_MEM_ALL ? "all" : "selection");
		if (e->arg & DL_H5_SEL_KNOWN) { /* else the bytes asked are unknown: no keys */
			SYM(o, "selection", kinds[(e->arg >> DL_H5_SEL_SHIFT) & DL_H5_SEL_MASK]);
			U64(o, "points", e->count);
			U64(o, "type_size", e->arg >> DL_H5_TSIZE_SHIFT);
			U64(o, "bytes", e->size);
		}
	}
	I64(o, "ret", (int32_t)e->ret); /* herr_t */
}

/* ------------------------------------------------------------------ mpiio */

static const struct bit_name mpi_amode[] = {
    {1, "MPI_MODE_CREATE"}, {2, "MPI_MODE_RDONLY"},	      {4, "MPI_MODE_WRONLY"},
    {8, "MPI_MODE_RDWR"},   {16, "MPI_MODE_DELETE_ON_CLOSE"}, {32, "MPI_MODE_UNIQUE_OPEN"},
    {64, "MPI_MODE_EXCL"},  {128, "MPI_MODE_APPEND"},	      {256, "MPI_MODE_SEQUENTIAL"},
};

static void mpiio_args(struct out *o, const struct span_view *v, const struct span_context *c)
{
	const struct dl_span *e = v->rec;

	path(o, c);
	switch (e->func) {
	case DL_FN_MPI_FILE_OPEN:
		bits(o, KEY("amode"), e->arg, mpi_amode, sizeof(mpi_amode) / sizeof(mpi_amode[0]),
		     "0");
		break;
	case DL_FN_MPI_FILE_SET_VIEW:
		I64(o, "disp", (int64_t)e->offset);
		if (e->flags & DL_SPAN_ARG)
			U64(o, "etype_size", e->arg);
		if (v->str2_len)
			STR(o, "datarep", v->str2, v->str2_len);
		break;
	default:
		if (e->flags & DL_SPAN_OFFSET)
			I64(o, "offset", (int64_t)e->offset);
		if (e->flags & DL_SPAN_COUNT)
			I64(o, "count", (int32_t)e->count);
		if (e->flags & DL_SPAN_SIZE)
			I64(o, "bytes", (int64_t)e->size);
		break;
	}
	I64(o, "ret", (int32_t)e->ret);
}

/* ---------------------------------------------------------------- markers */

/* A double that "%.3f" writes back exactly; others keep their text. */
static bool three_decimals(double d)
{
	char buf[64];

	if (!(d > -1e15 && d < 1e15))
		return false;
	snprintf(buf, sizeof(buf), "%.3f", d);
	return strtod(buf, NULL) == d;
}

/*
 * A key as the writers write it: they copy keys as they are, so bytes a
 * JSON key cannot hold raw (quotes, backslashes, control characters, and
 * non-ASCII bytes, which may not be UTF-8) become '_'.
 */
static const char *safe_key(struct out *o, const char *key, size_t len)
{
	bool safe = true;
	char *k;

	for (size_t i = 0; i < len && safe; i++)
		safe = (unsigned char)key[i] >= 0x20 && (unsigned char)key[i] < 0x7f &&
		       key[i] != '"' && key[i] != '\\';
	if (safe)
		return key;
	if (o->end - o->scratch < (ptrdiff_t)len)
		return NULL;
	k = o->scratch;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = key[i];

		k[i] = ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\' ? ch : '_';
	}
	o->scratch += len;
	return k;
}

static int marker_member(void *ctx, const struct json_flat_member *m)
{
	struct out *o = ctx;
	const char *key = safe_key(o, m->key, m->key_len);
	struct ev_arg *a = key ? add(o, key, m->key_len, EV_ARG_STR) : NULL;

	if (!a)
		return 1;
	switch (m->type) {
	case JF_STRING:
		a->s = (struct ev_str){m->text, m->len};
		break;
	case JF_INT:
		a->type = EV_ARG_I64;
		a->i = m->i;
		break;
	case JF_UINT:
		a->type = EV_ARG_U64;
		a->u = m->u;
		break;
	case JF_DOUBLE:
		if (three_decimals(m->d)) {
			a->type = EV_ARG_DOUBLE;
			a->d = m->d;
			break;
		}
		a->s = (struct ev_str){m->text, m->len};
		break;
	case JF_BOOL:
		a->type = EV_ARG_BOOL;
		a->b = m->b;
		break;
	default: /* null, nested values, bare words: their text */
		a->s = (struct ev_str){m->text, m->len};
		break;
	}
	return 0;
}

static void marker_args(struct out *o, const struct span_view *v)
{
	const struct dl_span *e = v->rec;

	if (e->func == DL_FN_COUNTER) {
		I64(o, "value", e->ret);
		return;
	}
	if (v->str2_len && (size_t)(o->end - o->scratch) >= 2 * (size_t)v->str2_len) {
		unsigned n = o->n;
		char *buf = o->scratch;
		int rc;

		o->scratch += v->str2_len; /* the unescaped text; sanitized keys after it */
		rc = json_flat_parse(v->str2, v->str2_len, buf, marker_member, o);
		if (rc < 0) { /* not a JSON object: the text as it is */
			o->n = n;
			STR(o, "args", v->str2, v->str2_len);
		}
	}
	if (e->flags & DL_SPAN_UNBALANCED)
		add_bool(o, KEY("unbalanced"), true);
}

void span_event(const struct span_view *v, const struct span_context *c, struct ev_span *out,
		struct ev_arg *args, char *scratch)
{
	const struct dl_span *e = v->rec;
	struct out o = {args, 0, scratch, scratch + SPAN_SCRATCH};
	const char *fn = span_func_name(e->func), *cat = span_level_name(e->level);

	out->phase = span_phase(e->func);
	out->cat = (struct ev_str){cat, strlen(cat)};
	out->dur = out->phase == EV_PH_COMPLETE ? e->dur : 0;
	if (e->level == DL_LAYER_MARKERS && v->str_len)
		out->name = (struct ev_str){v->str, v->str_len};
	else
		out->name = (struct ev_str){fn, strlen(fn)};
	switch (e->level) {
	case DL_LAYER_STDIO:
		stdio_args(&o, v, c);
		break;
	case DL_LAYER_HDF5:
		hdf5_args(&o, v, c);
		break;
	case DL_LAYER_MPIIO:
		mpiio_args(&o, v, c);
		break;
	default:
		marker_args(&o, v);
		break;
	}
	if (c->enclosed && c->enclosed->calls) {
		U64(&o, "syscalls", c->enclosed->calls);
		U64(&o, "sys_reads", c->enclosed->reads);
		U64(&o, "sys_read_bytes", c->enclosed->read_bytes);
		U64(&o, "sys_writes", c->enclosed->writes);
		U64(&o, "sys_write_bytes", c->enclosed->write_bytes);
		if (c->enclosed->cache_reads)
			U64(&o, "sys_cache_miss_bytes", c->enclosed->cache_miss_bytes);
		if (c->enclosed_partial)
			add_bool(&o, KEY("syscalls_partial"), true);
	}
	out->args = args;
	out->nargs = o.n;
}
