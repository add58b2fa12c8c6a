/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A hash map from 64-bit keys to 32-bit values (dense record numbers). */
#ifndef U64_INDEX_H
#define U64_INDEX_H

#include <stddef.h>
#include <stdint.h>

#define U64_NONE UINT32_MAX

struct u64_index_slot {
	uint64_t key;
	uint32_t value; /* U64_NONE = empty */
};

struct u64_index {
	struct u64_index_slot *slots;
	size_t cap, count;
};

void u64_index_init(struct u64_index *m);
void u64_index_free(struct u64_index *m);
uint32_t u64_index_get(const struct u64_index *m, uint64_t key);
/* Insert (the key must be absent); -1 when out of memory. */
int u64_index_put(struct u64_index *m, uint64_t key, uint32_t value);

#endif
