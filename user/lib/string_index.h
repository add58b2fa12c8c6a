/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Interned byte strings numbered 0, 1, 2, ... in order of first sight (file
 * paths, directories, command lines of a report).  Strings live in large
 * blocks and are never freed one by one; lookups hash the bytes.
 */
#ifndef STRING_INDEX_H
#define STRING_INDEX_H

#include <stddef.h>
#include <stdint.h>

#define STRING_NONE UINT32_MAX

struct string_index {
	uint32_t *slots; /* id + 1, 0 = empty */
	uint32_t *hashes;
	size_t cap;    /* power of two */
	char **str;    /* id -> bytes (NUL-terminated copy) */
	uint32_t *len; /* id -> length */
	uint32_t count, str_cap;
	char *block; /* current storage block */
	size_t block_used, block_size;
	char **blocks;
	size_t nblocks;
};

void string_index_init(struct string_index *si);
void string_index_free(struct string_index *si);
/* The id of s[0..len), added when new; STRING_NONE when out of memory. */
uint32_t string_index_put(struct string_index *si, const char *s, size_t len);
/* The id, or STRING_NONE when absent. */
uint32_t string_index_find(const struct string_index *si, const char *s, size_t len);

static inline const char *string_at(const struct string_index *si, uint32_t id)
{
	return si->str[id];
}

static inline uint32_t string_len(const struct string_index *si, uint32_t id)
{
	return si->len[id];
}

#endif
