// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "fd_table.h"

#include <stdlib.h>
#include <string.h>

/* Descriptors above this are not tracked (RLIMIT_NOFILE is rarely higher). */
#define FD_TRACK_MAX (1u << 20)

struct fd_table *fd_table_new(void)
{
	struct fd_table *t = calloc(1, sizeof(*t));

	if (!t)
		abort();
	t->refs = 1;
	return t;
}

struct fd_table *fd_table_get_ref(struct fd_table *t)
{
	t->refs++;
	return t;
}

void fd_table_put(struct fd_table *t)
{
	if (!t || --t->refs)
		return;
	for (uint32_t i = 0; i < t->cap; i++)
		path_put(t->slots[i].path);
	free(t->slots);
	free(t);
}

struct fd_table *fd_table_copy(const struct fd_table *src)
{
	struct fd_table *t = fd_table_new();

	if (!src || !src->cap)
		return t;
	t->slots = malloc(src->cap * sizeof(*t->slots));
	if (!t->slots)
		abort();
	memcpy(t->slots, src->slots, src->cap * sizeof(*t->slots));
	t->cap = src->cap;
	for (uint32_t i = 0; i < t->cap; i++)
		path_get(t->slots[i].path);
	return t;
}

const struct fd_entry *fdt_lookup(const struct fd_table *t, int fd)
{
	if (!t || fd < 0 || (unsigned)fd >= t->cap || !t->slots[fd].path)
		return NULL;
	return &t->slots[fd];
}

static bool ensure(struct fd_table *t, unsigned fd)
{
	uint32_t cap;
	struct fd_entry *s;

	if (fd < t->cap)
		return true;
	if (fd >= FD_TRACK_MAX)
		return false;
	for (cap = t->cap ? t->cap : 64; cap <= fd; cap *= 2)
		;
	s = realloc(t->slots, cap * sizeof(*s));
	if (!s)
		abort();
	memset(s + t->cap, 0, (cap - t->cap) * sizeof(*s));
	t->slots = s;
	t->cap = cap;
	return true;
}

void fdt_set(struct fd_table *t, int fd, const struct fd_entry *e)
{
	struct path_ref *old;

	if (fd < 0 || !ensure(t, fd))
		return;
	old = t->slots[fd].path;
	t->slots[fd] = *e;
	path_get(e->path);
	path_put(old);
}

void fdt_close(struct fd_table *t, int fd)
{
	if (fd < 0 || (unsigned)fd >= t->cap)
		return;
	path_put(t->slots[fd].path);
	memset(&t->slots[fd], 0, sizeof(t->slots[fd]));
}

void fdt_close_range(struct fd_table *t, unsigned first, unsigned last, bool cloexec_only)
{
	if (last >= t->cap)
		last = t->cap ? t->cap - 1 : 0;
	for (unsigned fd = first; fd <= last && fd < t->cap; fd++) {
		if (cloexec_only)
			t->slots[fd].cloexec = true;
		else
			fdt_close(t, fd);
	}
}

void fdt_dup(struct fd_table *t, int oldfd, int newfd, bool cloexec)
{
	const struct fd_entry *e = fdt_lookup(t, oldfd);
	struct fd_entry copy;

	if (oldfd == newfd)
		return;
	if (!e) {
		fdt_close(t, newfd);
		return;
	}
	copy = *e;
	copy.cloexec = cloexec;
	fdt_set(t, newfd, &copy);
}

void fdt_exec(struct fd_table *t)
{
	for (uint32_t fd = 0; fd < t->cap; fd++)
		if (t->slots[fd].cloexec)
			fdt_close(t, fd);
}

unsigned fdt_count(const struct fd_table *t)
{
	unsigned n = 0;

	for (uint32_t fd = 0; t && fd < t->cap; fd++)
		n += t->slots[fd].path != NULL;
	return n;
}
