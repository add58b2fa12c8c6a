// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "format/perfetto/pftrace_intern.h"

#include <stdlib.h>
#include <string.h>

#include "lib/hash.h"

static uint64_t hash_bytes(uint32_t kind, const char *s, size_t len)
{
	uint64_t h = (len * FIB_HASH_MULT) ^ ((uint64_t)kind << 56), v;

	while (len >= 8) {
		memcpy(&v, s, 8);
		h = (h ^ v) * FIB_HASH_MULT;
		h ^= h >> 29;
		s += 8;
		len -= 8;
	}
	v = 0;
	if (len)
		memcpy(&v, s, len);
	h = (h ^ v) * FIB_HASH_MULT;
	h ^= h >> 32;
	return h * FIB_HASH_MULT;
}

void pftrace_intern__init(struct pftrace_intern *t)
{
	memset(t, 0, sizeof(*t));
	t->max_strings = PFT_INTERN_MAX_STRINGS;
	pftrace_intern__clear(t);
}

void pftrace_intern__free(struct pftrace_intern *t)
{
	free(t->slots);
	free(t->ent);
	free(t->bytes);
	memset(t, 0, sizeof(*t));
}

void pftrace_intern__clear(struct pftrace_intern *t)
{
	if (t->slots)
		memset(t->slots, 0, t->nslots * sizeof(*t->slots));
	memset(t->recent, 0, sizeof(t->recent));
	t->count = 0;
	t->bytes_len = 0;
	for (int k = 0; k < PFT_INTERN_KINDS; k++)
		t->next_iid[k] = 1;
}

bool pftrace_intern__full(const struct pftrace_intern *t)
{
	return t->count + PFT_INTERN_PACKET_STRINGS > t->max_strings ||
	       t->bytes_len + PFT_INTERN_PACKET_BYTES > PFT_INTERN_MAX_BYTES;
}

static int grow_slots(struct pftrace_intern *t)
{
	uint32_t n = t->nslots ? 2 * t->nslots : 64;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -1;
	for (uint32_t i = 0; i < t->count; i++) {
		uint32_t at = t->ent[i].hash & (n - 1);

		while (slots[at])
			at = (at + 1) & (n - 1);
		slots[at] = i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = n;
	return 0;
}

static int room(struct pftrace_intern *t, size_t len)
{
	if (t->count == t->ent_cap) {
		uint32_t n = t->ent_cap ? 2 * t->ent_cap : 32;
		struct pft_intern_entry *e = realloc(t->ent, n * sizeof(*e));

		if (!e)
			return -1;
		t->ent = e;
		t->ent_cap = n;
	}
	if (t->bytes_cap - t->bytes_len < len) {
		size_t n = t->bytes_cap ? 2 * t->bytes_cap : 4096;
		char *b;

		while (n - t->bytes_len < len)
			n *= 2;
		b = realloc(t->bytes, n);
		if (!b)
			return -1;
		t->bytes = b;
		t->bytes_cap = n;
	}
	/* at most half full */
	if (2 * (t->count + 1) > t->nslots && grow_slots(t))
		return -1;
	return 0;
}

uint32_t pftrace_intern__get(struct pftrace_intern *t, enum pft_intern_kind kind, const char *s,
			     size_t len, bool *added)
{
	uint64_t key =
	    fib_hash((uint64_t)(uintptr_t)s ^ (uint64_t)len << 40 ^ (uint64_t)kind << 58);
	struct pft_intern_recent *r = &t->recent[key >> 56]; /* PFT_INTERN_RECENT slots */
	struct pft_intern_entry *e;
	uint32_t at;
	uint64_t h;

	*added = false;
	if (len > UINT32_MAX)
		return 0;
	/* Same address, length and kind as lately: the same string if the bytes are. */
	if (r->entry && r->s == s && r->len == len && r->kind == (uint32_t)kind) {
		e = &t->ent[r->entry - 1];
		if (!memcmp(t->bytes + e->off, s, len))
			return e->iid;
	}
	h = hash_bytes(kind, s, len);
	if (t->nslots) {
		for (at = h & (t->nslots - 1); t->slots[at]; at = (at + 1) & (t->nslots - 1)) {
			e = &t->ent[t->slots[at] - 1];
			if (e->hash == h && e->kind == (uint32_t)kind && e->len == len &&
			    !memcmp(t->bytes + e->off, s, len)) {
				*r = (struct pft_intern_recent){s, len, kind, t->slots[at]};
				return e->iid;
			}
		}
	}
	if (room(t, len))
		return 0;
	for (at = h & (t->nslots - 1); t->slots[at]; at = (at + 1) & (t->nslots - 1))
		;
	e = &t->ent[t->count];
	e->hash = h;
	e->kind = kind;
	e->off = t->bytes_len;
	e->len = len;
	e->iid = t->next_iid[kind]++;
	if (len)
		memcpy(t->bytes + t->bytes_len, s, len);
	t->bytes_len += len;
	t->slots[at] = ++t->count;
	*r = (struct pft_intern_recent){s, len, kind, t->count};
	*added = true;
	return e->iid;
}

int pftrace_seen__add(struct pftrace_seen *s, enum pft_intern_kind kind, uint32_t iid)
{
	uint64_t bit = (uint64_t)iid * PFT_INTERN_KINDS + kind;
	uint32_t word = bit / 64;

	if (word >= s->words) {
		uint32_t n = s->words ? s->words : 16;
		uint64_t *b;

		while (n <= word)
			n *= 2;
		b = realloc(s->bits, n * sizeof(*b));
		if (!b)
			return -1;
		memset(b + s->words, 0, (n - s->words) * sizeof(*b));
		s->bits = b;
		s->words = n;
	}
	if (s->bits[word] >> (bit % 64) & 1)
		return 0;
	s->bits[word] |= 1ull << (bit % 64);
	return 1;
}

void pftrace_seen__clear(struct pftrace_seen *s)
{
	if (s->bits)
		memset(s->bits, 0, s->words * sizeof(*s->bits));
}

void pftrace_seen__free(struct pftrace_seen *s)
{
	free(s->bits);
	s->bits = NULL;
	s->words = 0;
}
