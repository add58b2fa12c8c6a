// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "merge/merge_ids.h"

/* An entry lives in the map's pointer: a presence bit, the flags, the output id. */
_Static_assert(sizeof(void *) >= 8, "merge_ids packs an entry into a pointer");
#define PRESENT (1ull << 48)

static void *pack(struct merge_id e)
{
	return (void *)(uintptr_t)(PRESENT | (uint64_t)e.flags << 32 | e.out);
}

static struct merge_id unpack(const void *v)
{
	uint64_t x = (uintptr_t)v;

	return (struct merge_id){(uint32_t)x, (uint32_t)(x >> 32) & 0xffff};
}

void merge_ids_init(struct merge_ids *m)
{
	id_map_init(&m->used);
	id_map_init(&m->trace);
	m->next_fresh = MERGE_IDS_FRESH;
}

void merge_ids_free(struct merge_ids *m)
{
	id_map_free(&m->trace);
	id_map_free(&m->used);
}

void merge_ids_next_trace(struct merge_ids *m)
{
	id_map_free(&m->trace);
	id_map_init(&m->trace);
}

uint32_t merge_ids_map(struct merge_ids *m, uint32_t id, uint32_t flags)
{
	void *v = id_map_get(&m->trace, id);
	struct merge_id e;

	if (v) {
		e = unpack(v);
		if ((e.flags | flags) != e.flags) {
			e.flags |= flags;
			id_map_put(&m->trace, id, pack(e));
		}
		return e.out;
	}
	e = (struct merge_id){id, flags};
	/* 0 is every input's own metadata "process", never a task */
	if (id && id_map_get(&m->used, id)) {
		while (id_map_get(&m->used, m->next_fresh))
			m->next_fresh++;
		e.out = m->next_fresh++;
	}
	id_map_put(&m->used, e.out, pack((struct merge_id){e.out, 0}));
	id_map_put(&m->trace, id, pack(e));
	return e.out;
}

bool merge_ids_find(const struct merge_ids *m, uint32_t id, struct merge_id *e)
{
	void *v = id_map_get(&m->trace, id);

	if (!v)
		return false;
	*e = unpack(v);
	return true;
}

uint32_t merge_ids_take(struct merge_ids *m, uint32_t from)
{
	uint32_t id = from;

	while (id_map_get(&m->used, id))
		id++;
	id_map_put(&m->used, id, pack((struct merge_id){id, 0}));
	return id;
}

bool merge_ids_next(const struct merge_ids *m, size_t *pos, uint32_t *id, struct merge_id *e)
{
	void *v;

	if (!id_map_next(&m->trace, pos, id, &v))
		return false;
	*e = unpack(v);
	return true;
}
