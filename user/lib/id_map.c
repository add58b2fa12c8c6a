// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "lib/id_map.h"

#include <stdlib.h>

#include "lib/hash.h"

enum { EMPTY, USED, DELETED };

static size_t hash_id(uint32_t key, size_t cap)
{
	return (size_t)(fib_hash(key) >> 32) & (cap - 1);
}

void id_map_init(struct id_map *m)
{
	m->cap = 64;
	m->count = m->dirty = 0;
	m->slots = calloc(m->cap, sizeof(*m->slots));
	if (!m->slots)
		abort();
}

void id_map_free(struct id_map *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->count = m->dirty = 0;
}

static struct id_map_slot *find(const struct id_map *m, uint32_t key)
{
	for (size_t i = hash_id(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		struct id_map_slot *s = &m->slots[i];

		if (s->state == EMPTY)
			return NULL;
		if (s->state == USED && s->key == key)
			return s;
	}
}

void *id_map_get(const struct id_map *m, uint32_t key)
{
	struct id_map_slot *s = find(m, key);

	return s ? s->value : NULL;
}

static void rehash(struct id_map *m, size_t cap)
{
	struct id_map_slot *old = m->slots;
	size_t old_cap = m->cap;

	m->slots = calloc(cap, sizeof(*m->slots));
	if (!m->slots)
		abort();
	m->cap = cap;
	m->count = m->dirty = 0;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].state == USED)
			id_map_put(m, old[i].key, old[i].value);
	free(old);
}

void *id_map_put(struct id_map *m, uint32_t key, void *value)
{
	struct id_map_slot *s = find(m, key);
	size_t i;

	if (s) {
		void *prev = s->value;

		s->value = value;
		return prev;
	}
	if ((m->dirty + 1) * 4 > m->cap * 3)
		rehash(m, m->count * 2 >= m->cap / 2 ? m->cap * 2 : m->cap);
	for (i = hash_id(key, m->cap); m->slots[i].state == USED; i = (i + 1) & (m->cap - 1))
		;
	if (m->slots[i].state == EMPTY)
		m->dirty++;
	m->slots[i] = (struct id_map_slot){key, USED, value};
	m->count++;
	return NULL;
}

void *id_map_remove(struct id_map *m, uint32_t key)
{
	struct id_map_slot *s = find(m, key);
	void *prev;

	if (!s)
		return NULL;
	prev = s->value;
	s->state = DELETED;
	s->value = NULL;
	m->count--;
	return prev;
}

int id_map_next(const struct id_map *m, size_t *pos, uint32_t *key, void **value)
{
	for (; *pos < m->cap; (*pos)++) {
		struct id_map_slot *s = &m->slots[*pos];

		if (s->state == USED) {
			*key = s->key;
			*value = s->value;
			(*pos)++;
			return 1;
		}
	}
	return 0;
}
