// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "decode/span_records.h"

#include <stdlib.h>
#include <string.h>

int span_view(const void *rec, size_t size, struct span_view *v)
{
	const struct dl_span *e = rec;

	if (size < sizeof(*e) || e->h.kind != DL_EV_SPAN ||
	    sizeof(*e) + (size_t)e->str_len + e->str2_len > size)
		return -1;
	v->rec = e;
	v->str = e->data;
	v->str_len = e->str_len;
	v->str2 = e->data + e->str_len;
	v->str2_len = e->str2_len;
	return 0;
}

static const char *const func_names[DL_FN_COUNT] = {
    [DL_FN_REGION] = "region",
    [DL_FN_INSTANT] = "instant",
    [DL_FN_COUNTER] = "counter",
    [DL_FN_FOPEN] = "fopen",
    [DL_FN_FOPEN64] = "fopen64",
    [DL_FN_FDOPEN] = "fdopen",
    [DL_FN_FREAD] = "fread",
    [DL_FN_FWRITE] = "fwrite",
    [DL_FN_FSEEK] = "fseek",
    [DL_FN_FSEEKO] = "fseeko",
    [DL_FN_FTELL] = "ftell",
    [DL_FN_FTELLO] = "ftello",
    [DL_FN_FFLUSH] = "fflush",
    [DL_FN_FCLOSE] = "fclose",
    [DL_FN_FGETS] = "fgets",
    [DL_FN_FPUTS] = "fputs",
    [DL_FN_H5FCREATE] = "H5Fcreate",
    [DL_FN_H5FOPEN] = "H5Fopen",
    [DL_FN_H5FCLOSE] = "H5Fclose",
    [DL_FN_H5DCREATE2] = "H5Dcreate2",
    [DL_FN_H5DOPEN2] = "H5Dopen2",
    [DL_FN_H5DREAD] = "H5Dread",
    [DL_FN_H5DWRITE] = "H5Dwrite",
    [DL_FN_H5DCLOSE] = "H5Dclose",
    [DL_FN_H5GOPEN2] = "H5Gopen2",
    [DL_FN_H5GCLOSE] = "H5Gclose",
    [DL_FN_H5OOPEN] = "H5Oopen",
    [DL_FN_H5OCLOSE] = "H5Oclose",
    [DL_FN_MPI_FILE_OPEN] = "MPI_File_open",
    [DL_FN_MPI_FILE_CLOSE] = "MPI_File_close",
    [DL_FN_MPI_FILE_READ] = "MPI_File_read",
    [DL_FN_MPI_FILE_READ_AT] = "MPI_File_read_at",
    [DL_FN_MPI_FILE_READ_ALL] = "MPI_File_read_all",
    [DL_FN_MPI_FILE_READ_AT_ALL] = "MPI_File_read_at_all",
    [DL_FN_MPI_FILE_WRITE] = "MPI_File_write",
    [DL_FN_MPI_FILE_WRITE_AT] = "MPI_File_write_at",
    [DL_FN_MPI_FILE_WRITE_ALL] = "MPI_File_write_all",
    [DL_FN_MPI_FILE_WRITE_AT_ALL] = "MPI_File_write_at_all",
    [DL_FN_MPI_FILE_SYNC] = "MPI_File_sync",
    [DL_FN_MPI_FILE_SET_VIEW] = "MPI_File_set_view",
};

const char *span_func_name(unsigned func)
{
	return func < DL_FN_COUNT && func_names[func] ? func_names[func] : "?";
}

const char *span_level_name(unsigned level)
{
	switch (level) {
	case DL_LAYER_MARKERS:
		return "marker";
	case DL_LAYER_STDIO:
		return "stdio";
	case DL_LAYER_HDF5:
		return "hdf5";
	case DL_LAYER_MPIIO:
		return "mpiio";
	default:
		return "?";
	}
}

char span_phase(unsigned func)
{
	return func == DL_FN_INSTANT ? 'i' : func == DL_FN_COUNTER ? 'C' : 'X';
}

bool span_func_opens(unsigned func)
{
	switch (func) {
	case DL_FN_FOPEN:
	case DL_FN_FOPEN64:
	case DL_FN_H5FCREATE:
	case DL_FN_H5FOPEN:
	case DL_FN_H5DCREATE2:
	case DL_FN_H5DOPEN2:
	case DL_FN_H5GOPEN2:
	case DL_FN_H5OOPEN:
	case DL_FN_MPI_FILE_OPEN:
		return true;
	default:
		return false;
	}
}

static bool span_func_closes(unsigned func)
{
	switch (func) {
	case DL_FN_FCLOSE:
	case DL_FN_H5FCLOSE:
	case DL_FN_H5DCLOSE:
	case DL_FN_H5GCLOSE:
	case DL_FN_H5OCLOSE:
	case DL_FN_MPI_FILE_CLOSE:
		return true;
	default:
		return false;
	}
}

/* ------------------------------------------------------------ handle names */

struct span_handle_slot {
	uint64_t handle;
	uint32_t tgid;
	uint16_t level;
	uint8_t state; /* 0 empty, 1 used, 2 deleted */
	bool is_file;  /* an HDF5 file: objects opened under it are named from "/" */
	struct span_name name;
};

void span_handles_init(struct span_handles *h)
{
	memset(h, 0, sizeof(*h));
}

static void name_free(struct span_name *n)
{
	free(n->name);
	free(n->file);
	n->name = n->file = NULL;
}

void span_handles_free(struct span_handles *h)
{
	for (size_t i = 0; i < h->cap; i++)
		if (h->slots[i].state == 1)
			name_free(&h->slots[i].name);
	free(h->slots);
	name_free(&h->closed);
	memset(h, 0, sizeof(*h));
}

static size_t slot_hash(uint32_t tgid, uint16_t level, uint64_t handle)
{
	uint64_t x = handle ^ ((uint64_t)tgid << 40) ^ ((uint64_t)level << 32);

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return (size_t)x;
}

static struct span_handle_slot *find(const struct span_handles *h, uint32_t tgid, uint16_t level,
				     uint64_t handle)
{
	if (!h->cap)
		return NULL;
	for (size_t i = slot_hash(tgid, level, handle) & (h->cap - 1), n = 0; n < h->cap;
	     i = (i + 1) & (h->cap - 1), n++) {
		struct span_handle_slot *s = &h->slots[i];

		if (s->state == 0)
			return NULL;
		if (s->state == 1 && s->handle == handle && s->tgid == tgid && s->level == level)
			return s;
	}
	return NULL;
}

static int grow(struct span_handles *h)
{
	size_t cap = h->cap ? h->cap * 2 : 64;
	struct span_handle_slot *old = h->slots, *slots = calloc(cap, sizeof(*slots));
	size_t oldcap = h->cap;

	if (!slots)
		return -1;
	h->slots = slots;
	h->cap = cap;
	h->count = h->dirty = 0;
	for (size_t i = 0; i < oldcap; i++) {
		struct span_handle_slot *s = &old[i];
		size_t k;

		if (s->state != 1)
			continue;
		for (k = slot_hash(s->tgid, s->level, s->handle) & (cap - 1); slots[k].state;
		     k = (k + 1) & (cap - 1))
			;
		slots[k] = *s;
		h->count++;
		h->dirty++;
	}
	free(old);
	return 0;
}

/* The slot for a new name under (tgid, level, handle); NULL when out of memory. */
static struct span_handle_slot *put(struct span_handles *h, uint32_t tgid, uint16_t level,
				    uint64_t handle)
{
	struct span_handle_slot *s = find(h, tgid, level, handle);
	size_t i;

	if (s) {
		name_free(&s->name);
		s->is_file = false;
		return s;
	}
	if ((h->dirty + 1) * 4 > h->cap * 3 && grow(h))
		return NULL;
	for (i = slot_hash(tgid, level, handle) & (h->cap - 1); h->slots[i].state == 1;
	     i = (i + 1) & (h->cap - 1))
		;
	s = &h->slots[i];
	if (s->state == 0)
		h->dirty++;
	h->count++;
	memset(s, 0, sizeof(*s));
	s->state = 1;
	s->tgid = tgid;
	s->level = level;
	s->handle = handle;
	return s;
}

static void forget(struct span_handles *h, struct span_handle_slot *s)
{
	name_free(&h->closed);
	h->closed = s->name;
	memset(&s->name, 0, sizeof(s->name));
	s->state = 2;
	h->count--;
}

void span_handles_forget_process(struct span_handles *h, uint32_t tgid)
{
	for (size_t i = 0; i < h->cap; i++) {
		struct span_handle_slot *s = &h->slots[i];

		if (s->state == 1 && s->tgid == tgid) {
			name_free(&s->name);
			s->state = 2;
			h->count--;
		}
	}
}

/* An HDF5 object's full name: name under the location loc (a file or an object). */
static char *h5_join(const struct span_handle_slot *loc, const char *name, size_t len)
{
	const char *base = loc && !loc->is_file ? loc->name.name : "";
	size_t blen = base ? strlen(base) : 0;
	char *out;

	if (!loc) /* opened before tracing: relative to what, we do not know */
		return strndup(name, len);
	if (len && name[0] == '/') /* absolute within the file */
		blen = 0;
	out = malloc(blen + len + 2);
	if (!out)
		return NULL;
	memcpy(out, base, blen);
	if (!(len && name[0] == '/') && !(blen && base[blen - 1] == '/'))
		out[blen++] = '/';
	memcpy(out + blen, name, len);
	out[blen + len] = '\0';
	return out;
}

const struct span_name *span_handles_apply(struct span_handles *h, const struct span_view *v)
{
	const struct dl_span *e = v->rec;
	uint32_t tgid = e->h.tgid;
	struct span_handle_slot *s, *loc;

	if (e->level == DL_LAYER_MARKERS)
		return NULL;
	if (span_func_opens(e->func)) {
		bool ok = e->level == DL_LAYER_STDIO ? e->ret != 0 : e->ret >= 0;
		uint64_t handle = e->func == DL_FN_MPI_FILE_OPEN ? e->handle : (uint64_t)e->ret;

		if (!ok || (e->func == DL_FN_MPI_FILE_OPEN && !handle) || !v->str_len)
			return NULL;
		switch (e->func) {
		case DL_FN_H5DCREATE2:
		case DL_FN_H5DOPEN2:
		case DL_FN_H5GOPEN2:
		case DL_FN_H5OOPEN: {
			char *name;

			loc = find(h, tgid, e->level, e->handle);
			name = h5_join(loc, v->str, v->str_len);
			if (!name)
				return NULL;
			s = put(h, tgid, e->level, handle);
			if (!s) {
				free(name);
				return NULL;
			}
			s->name.name = name;
			/* loc may have moved if the table grew: look it up again */
			loc = find(h, tgid, e->level, e->handle);
			s->name.file = loc && loc->name.file ? strdup(loc->name.file) : NULL;
			return &s->name;
		}
		default:
			s = put(h, tgid, e->level, handle);
			if (!s)
				return NULL;
			s->name.name = strndup(v->str, v->str_len);
			s->is_file = true;
			if (e->level == DL_LAYER_HDF5)
				s->name.file = strndup(v->str, v->str_len);
			return &s->name;
		}
	}
	if (!(e->flags & DL_SPAN_HANDLE))
		return NULL;
	s = find(h, tgid, e->level, e->handle);
	if (!s)
		return NULL;
	/* the closes return herr_t (an int): the upper half of ret is not theirs */
	if (span_func_closes(e->func) &&
	    (e->level == DL_LAYER_STDIO || e->level == DL_LAYER_MPIIO || (int32_t)e->ret >= 0)) {
		forget(h, s);
		return &h->closed;
	}
	return &s->name;
}
