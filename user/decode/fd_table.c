// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "decode/fd_table.h"

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
	for (unsigned i = 0; i < FD_PAST; i++)
		path_put(t->past[i].e.path);
	free(t->slots);
	free(t);
}

struct fd_table *fd_table_copy(const struct fd_table *src)
{
	struct fd_table *t = fd_table_new();

	if (!src)
		return t;
	memcpy(t->past, src->past, sizeof(t->past));
	t->past_next = src->past_next;
	for (unsigned i = 0; i < FD_PAST; i++)
		path_get(t->past[i].e.path);
	if (!src->cap)
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

const struct fd_entry *fdt_lookup_at(const struct fd_table *t, int fd, uint64_t ts)
{
	const struct fd_entry *now = fdt_lookup(t, fd);

	if (!t || (now && now->since <= ts))
		return now;
	/* newest first: what fd meant before it was closed or replaced */
	for (unsigned n = 0; n < FD_PAST; n++) {
		const struct fd_past *p = &t->past[(t->past_next - 1 - n) % FD_PAST];

		if (p->e.path && p->fd == fd && p->since <= ts && ts < p->until)
			return &p->e;
	}
	return now;
}

const struct fd_entry *fdt_find_cookie(const struct fd_table *t, uint32_t cookie)
{
	if (!t || !cookie)
		return NULL;
	for (uint32_t fd = 0; fd < t->cap; fd++)
		if (t->slots[fd].path && t->slots[fd].cookie == cookie)
			return &t->slots[fd];
	for (unsigned n = 0; n < FD_PAST; n++)
		if (t->past[n].e.path && t->past[n].e.cookie == cookie)
			return &t->past[n].e;
	return NULL;
}

/* The slot's entry leaves at ts: remember it (the slot keeps its reference). */
static void retire(struct fd_table *t, int fd, uint64_t ts)
{
	struct fd_past *p = &t->past[t->past_next++ % FD_PAST];

	path_put(p->e.path);
	p->fd = fd;
	p->since = t->slots[fd].since;
	p->until = ts;
	p->e = t->slots[fd];
	memset(&t->slots[fd], 0, sizeof(t->slots[fd]));
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
	if (fd < 0 || !ensure(t, fd))
		return;
	path_get(e->path);
	if (t->slots[fd].path)
		retire(t, fd, e->since);
	t->slots[fd] = *e;
}

void fdt_close(struct fd_table *t, int fd, uint64_t ts)
{
	if (fd < 0 || (unsigned)fd >= t->cap || !t->slots[fd].path)
		return;
	retire(t, fd, ts);
}

void fdt_close_range(struct fd_table *t, unsigned first, unsigned last, bool cloexec_only,
		     uint64_t ts)
{
	for (unsigned fd = first; fd <= last && fd < t->cap; fd++) {
		if (cloexec_only)
			t->slots[fd].cloexec = true;
		else
			fdt_close(t, fd, ts);
	}
}

void fdt_dup(struct fd_table *t, int oldfd, int newfd, bool cloexec, uint64_t ts)
{
	const struct fd_entry *e = fdt_lookup(t, oldfd);
	struct fd_entry copy;

	if (oldfd == newfd)
		return;
	if (!e) {
		fdt_close(t, newfd, ts);
		return;
	}
	copy = *e;
	copy.cloexec = cloexec;
	copy.since = ts;
	fdt_set(t, newfd, &copy);
}

void fdt_set_cloexec(struct fd_table *t, int fd, bool cloexec)
{
	if (fd >= 0 && (uint32_t)fd < t->cap && t->slots[fd].path)
		t->slots[fd].cloexec = cloexec;
}

void fdt_exec(struct fd_table *t, uint64_t ts)
{
	for (uint32_t fd = 0; fd < t->cap; fd++)
		if (t->slots[fd].cloexec && t->slots[fd].path)
			fdt_close(t, fd, ts);
}

unsigned fdt_count(const struct fd_table *t)
{
	unsigned n = 0;

	for (uint32_t fd = 0; t && fd < t->cap; fd++)
		n += t->slots[fd].path != NULL;
	return n;
}
