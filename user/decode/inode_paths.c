// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "decode/inode_paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hash.h"

struct inode_slot {
	uint64_t ino;
	uint32_t dev;
	uint32_t used;
	struct path_ref *path; /* NULL: looked up in /proc without success */
};

#define MAX_ENTRIES (1u << 22)

void inode_paths_init(struct inode_paths *m)
{
	m->cap = 1024;
	m->count = 0;
	m->slots = calloc(m->cap, sizeof(*m->slots));
	if (!m->slots)
		abort();
}

void inode_paths_free(struct inode_paths *m)
{
	for (uint32_t i = 0; i < m->cap; i++)
		path_put(m->slots[i].path);
	free(m->slots);
	m->slots = NULL;
	m->cap = m->count = 0;
}

static uint32_t slot_of(const struct inode_paths *m, uint32_t dev, uint64_t ino)
{
	uint64_t h = fib_hash(ino) ^ ((uint64_t)dev * 0xc2b2ae3d27d4eb4full);

	return (uint32_t)(h >> 32) & (m->cap - 1);
}

static struct inode_slot *find(struct inode_paths *m, uint32_t dev, uint64_t ino, int insert)
{
	for (uint32_t i = slot_of(m, dev, ino);; i = (i + 1) & (m->cap - 1)) {
		struct inode_slot *s = &m->slots[i];

		if (s->used && s->dev == dev && s->ino == ino)
			return s;
		if (!s->used)
			return insert ? s : NULL;
	}
}

static void grow(struct inode_paths *m)
{
	struct inode_slot *old = m->slots;
	uint32_t old_cap = m->cap;

	m->cap *= 2;
	m->slots = calloc(m->cap, sizeof(*m->slots));
	if (!m->slots)
		abort();
	for (uint32_t i = 0; i < old_cap; i++)
		if (old[i].used)
			*find(m, old[i].dev, old[i].ino, 1) = old[i];
	free(old);
}

static void put_slot(struct inode_paths *m, uint32_t dev, uint64_t ino, struct path_ref *path)
{
	struct inode_slot *s;

	if ((m->count + 1) * 4 > m->cap * 3) {
		if (m->count >= MAX_ENTRIES)
			return; /* bounded: forget nothing, learn no more */
		grow(m);
	}
	s = find(m, dev, ino, 1);
	if (!s->used) {
		s->used = 1;
		s->dev = dev;
		s->ino = ino;
		m->count++;
	}
	path_put(s->path);
	s->path = path_get(path);
}

void inode_paths_set(struct inode_paths *m, uint32_t dev, uint64_t ino, struct path_ref *path)
{
	if (path && (dev || ino))
		put_slot(m, dev, ino, path);
}

/* /proc/PID/maps: "start-end perms offset MAJ:MIN inode   path" (hex device numbers) */
static struct path_ref *from_maps(pid_t pid, uint32_t dev, uint64_t ino)
{
	char file[64], line[4352];
	struct path_ref *found = NULL;
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%d/maps", (int)pid);
	f = fopen(file, "re");
	if (!f)
		return NULL;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned maj, min;
		unsigned long long inode;
		int path_at = 0;

		if (sscanf(line, "%*s %*s %*s %x:%x %llu %n", &maj, &min, &inode, &path_at) != 3 ||
		    !path_at || inode != ino || ((maj << 20) | min) != dev || line[path_at] != '/')
			continue;
		line[strcspn(line, "\n")] = '\0';
		found = path_intern(line + path_at, strlen(line + path_at));
	}
	fclose(f);
	return found;
}

struct path_ref *inode_paths_get(struct inode_paths *m, uint32_t dev, uint64_t ino, pid_t pid)
{
	struct inode_slot *s = find(m, dev, ino, 0);
	struct path_ref *p;

	if (s)
		return s->path;
	if (pid <= 0)
		return NULL;
	p = from_maps(pid, dev, ino);
	put_slot(m, dev, ino, p); /* remember misses too: one look per file */
	path_put(p);
	s = find(m, dev, ino, 0);
	return s ? s->path : NULL;
}
