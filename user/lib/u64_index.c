// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "lib/u64_index.h"

#include <stdlib.h>
#include <string.h>

static size_t slot_of(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return key & (cap - 1);
}

void u64_index_init(struct u64_index *m)
{
	memset(m, 0, sizeof(*m));
}

void u64_index_free(struct u64_index *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

uint32_t u64_index_get(const struct u64_index *m, uint64_t key)
{
	if (!m->cap)
		return U64_NONE;
	for (size_t i = slot_of(key, m->cap); m->slots[i].value != U64_NONE;
	     i = (i + 1) & (m->cap - 1)) {
		if (m->slots[i].key == key)
			return m->slots[i].value;
	}
	return U64_NONE;
}

static void place(struct u64_index_slot *slots, size_t cap, uint64_t key, uint32_t value)
{
	size_t i = slot_of(key, cap);

	while (slots[i].value != U64_NONE)
		i = (i + 1) & (cap - 1);
	slots[i].key = key;
	slots[i].value = value;
}

int u64_index_put(struct u64_index *m, uint64_t key, uint32_t value)
{
	if ((m->count + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		struct u64_index_slot *slots = malloc(cap * sizeof(*slots));

		if (!slots)
			return -1;
		for (size_t i = 0; i < cap; i++)
			slots[i].value = U64_NONE;
		for (size_t i = 0; i < m->cap; i++) {
			if (m->slots[i].value != U64_NONE)
				place(slots, cap, m->slots[i].key, m->slots[i].value);
		}
		free(m->slots);
		m->slots = slots;
		m->cap = cap;
	}
	place(m->slots, m->cap, key, value);
	m->count++;
	return 0;
}
