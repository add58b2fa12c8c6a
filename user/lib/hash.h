/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The hashes of dltrace's tables: FNV-1a over bytes (names, paths, strings)
 * and Fibonacci hashing of integer keys (a multiply by 2^64 / the golden
 * ratio, whose high bits are well mixed).  Inline: tables hash per event.
 */
#ifndef LIB_HASH_H
#define LIB_HASH_H

#include <stddef.h>
#include <stdint.h>

#define FIB_HASH_MULT 0x9e3779b97f4a7c15ull

static inline uint64_t fib_hash(uint64_t key)
{
	return key * FIB_HASH_MULT;
}

static inline uint64_t fnv1a_64(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

static inline uint32_t fnv1a_32(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

#endif
