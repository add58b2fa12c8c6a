// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "lib/string_index.h"

#include <stdlib.h>
#include <string.h>

#include "lib/hash.h"

#ifndef STRING_BLOCK_BYTES
#define STRING_BLOCK_BYTES (1u << 20) /* smaller in the fuzz target */
#endif
#define BLOCK_BYTES STRING_BLOCK_BYTES

static uint32_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = fnv1a_64(s, len);

	return (uint32_t)(h ^ h >> 32);
}

void string_index_init(struct string_index *si)
{
	memset(si, 0, sizeof(*si));
}

void string_index_free(struct string_index *si)
{
	for (size_t i = 0; i < si->nblocks; i++)
		free(si->blocks[i]);
	free(si->blocks);
	free(si->slots);
	free(si->hashes);
	free(si->str);
	free(si->len);
	memset(si, 0, sizeof(*si));
}

static int grow_table(struct string_index *si)
{
	size_t cap = si->cap ? si->cap * 2 : 1024;
	uint32_t *slots = calloc(cap, sizeof(*slots));
	uint32_t *hashes = calloc(cap, sizeof(*hashes));

	if (!slots || !hashes) {
		free(slots);
		free(hashes);
		return -1;
	}
	for (size_t i = 0; i < si->cap; i++) {
		size_t j;

		if (!si->slots[i])
			continue;
		for (j = si->hashes[i] & (cap - 1); slots[j]; j = (j + 1) & (cap - 1))
			;
		slots[j] = si->slots[i];
		hashes[j] = si->hashes[i];
	}
	free(si->slots);
	free(si->hashes);
	si->slots = slots;
	si->hashes = hashes;
	si->cap = cap;
	return 0;
}

static char *store(struct string_index *si, const char *s, size_t len)
{
	char *p;

	if (len + 1 > BLOCK_BYTES / 4) {
		/* a long string gets a block of its own */
		char **b = realloc(si->blocks, (si->nblocks + 1) * sizeof(*b));

		if (!b)
			return NULL;
		si->blocks = b;
		p = malloc(len + 1);
		if (!p)
			return NULL;
		si->blocks[si->nblocks++] = p;
	} else {
		if (!si->block || si->block_used + len + 1 > si->block_size) {
			char **b = realloc(si->blocks, (si->nblocks + 1) * sizeof(*b));

			if (!b)
				return NULL;
			si->blocks = b;
			si->block = malloc(BLOCK_BYTES);
			if (!si->block)
				return NULL;
			si->blocks[si->nblocks++] = si->block;
			si->block_size = BLOCK_BYTES;
			si->block_used = 0;
		}
		p = si->block + si->block_used;
		si->block_used += len + 1;
	}
	memcpy(p, s, len);
	p[len] = 0;
	return p;
}

uint32_t string_index_find(const struct string_index *si, const char *s, size_t len)
{
	uint32_t h = hash_bytes(s, len);

	if (!si->cap)
		return STRING_NONE;
	for (size_t j = h & (si->cap - 1); si->slots[j]; j = (j + 1) & (si->cap - 1)) {
		uint32_t id = si->slots[j] - 1;

		if (si->hashes[j] == h && si->len[id] == len && !memcmp(si->str[id], s, len))
			return id;
	}
	return STRING_NONE;
}

uint32_t string_index_put(struct string_index *si, const char *s, size_t len)
{
	uint32_t h = hash_bytes(s, len), id;
	size_t j;

	if (len > UINT32_MAX - 1)
		return STRING_NONE;
	if ((si->count + 1) * 2 > si->cap && grow_table(si))
		return STRING_NONE;
	for (j = h & (si->cap - 1); si->slots[j]; j = (j + 1) & (si->cap - 1)) {
		id = si->slots[j] - 1;
		if (si->hashes[j] == h && si->len[id] == len && !memcmp(si->str[id], s, len))
			return id;
	}
	if (si->count == UINT32_MAX - 1)
		return STRING_NONE;
	if (si->count == si->str_cap) {
		uint32_t cap = si->str_cap ? si->str_cap * 2 : 1024;
		char **str = realloc(si->str, cap * sizeof(*str));
		uint32_t *lens;

		if (!str)
			return STRING_NONE;
		si->str = str;
		lens = realloc(si->len, cap * sizeof(*lens));
		if (!lens)
			return STRING_NONE;
		si->len = lens;
		si->str_cap = cap;
	}
	id = si->count;
	si->str[id] = store(si, s, len);
	if (!si->str[id])
		return STRING_NONE;
	si->len[id] = len;
	si->count++;
	si->slots[j] = id + 1;
	si->hashes[j] = h;
	return id;
}
