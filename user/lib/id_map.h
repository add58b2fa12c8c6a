/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A hash map from 32-bit ids (pids, tids) to pointers; open addressing. */
#ifndef ID_MAP_H
#define ID_MAP_H

#include <stddef.h>
#include <stdint.h>

struct id_map_slot {
	uint32_t key;
	uint32_t state; /* 0 empty, 1 used, 2 deleted */
	void *value;
};

struct id_map {
	struct id_map_slot *slots;
	size_t cap;   /* power of two */
	size_t count; /* used slots */
	size_t dirty; /* used + deleted */
};

void id_map_init(struct id_map *m);
void id_map_free(struct id_map *m);
void *id_map_get(const struct id_map *m, uint32_t key);
/* Insert or replace; returns the previous value or NULL. */
void *id_map_put(struct id_map *m, uint32_t key, void *value);
/* Remove; returns the removed value or NULL. */
void *id_map_remove(struct id_map *m, uint32_t key);

/* Iterate: for (size_t i = 0; id_map_next(m, &i, &k, &v);) */
int id_map_next(const struct id_map *m, size_t *pos, uint32_t *key, void **value);

#endif
