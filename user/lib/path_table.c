// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "lib/path_table.h"

#include <stdlib.h>
#include <string.h>

#include "lib/hash.h"
#include "lib/json_string.h"

static struct path_ref **buckets;
static size_t nbuckets, npaths;

static void grow(void)
{
	size_t n = nbuckets ? nbuckets * 2 : 1024;
	struct path_ref **b = calloc(n, sizeof(*b));

	if (!b)
		abort();
	for (size_t i = 0; i < nbuckets; i++) {
		for (struct path_ref *p = buckets[i], *next; p; p = next) {
			next = p->next;
			p->next = b[p->hash & (n - 1)];
			b[p->hash & (n - 1)] = p;
		}
	}
	free(buckets);
	buckets = b;
	nbuckets = n;
}

struct path_ref *path_intern(const char *name, size_t len)
{
	uint64_t h = fnv1a_64(name, len);
	struct path_ref *p;
	char *esc;

	if (nbuckets)
		for (p = buckets[h & (nbuckets - 1)]; p; p = p->next)
			if (p->hash == h && p->len == len && !memcmp(p->raw, name, len))
				return path_get(p);
	if (npaths >= nbuckets)
		grow();
	p = malloc(sizeof(*p) + len + 1);
	esc = malloc(JSON_ESCAPED_MAX(len));
	if (!p || !esc)
		abort();
	memcpy(p->raw, name, len);
	p->raw[len] = '\0';
	p->len = len;
	p->hash = h;
	p->refs = 1;
	p->lossy = false;
	p->json_len = json_escape(esc, name, len, &p->lossy);
	p->escaped = realloc(esc, p->json_len + 1);
	if (!p->escaped)
		p->escaped = esc;
	p->next = buckets[h & (nbuckets - 1)];
	buckets[h & (nbuckets - 1)] = p;
	npaths++;
	return p;
}

struct path_ref *path_get(struct path_ref *p)
{
	if (p)
		p->refs++;
	return p;
}

void path_put(struct path_ref *p)
{
	struct path_ref **pp;

	if (!p || --p->refs)
		return;
	for (pp = &buckets[p->hash & (nbuckets - 1)]; *pp != p; pp = &(*pp)->next)
		;
	*pp = p->next;
	npaths--;
	free(p->escaped);
	free(p);
}

size_t path_count(void)
{
	return npaths;
}

size_t path_json_max(const struct path_ref *p, const char *key)
{
	size_t k = strlen(key);

	return 2 * k + p->json_len + 2 * p->len + 16;
}

size_t path_json(const struct path_ref *p, const char *key, char *out)
{
	size_t k = strlen(key);
	char *o = out;

	*o++ = '"';
	memcpy(o, key, k);
	o += k;
	memcpy(o, "\":\"", 3);
	o += 3;
	memcpy(o, p->escaped, p->json_len);
	o += p->json_len;
	*o++ = '"';
	if (p->lossy) {
		memcpy(o, ",\"", 2);
		o += 2;
		memcpy(o, key, k);
		o += k;
		memcpy(o, "_hex\":\"", 7);
		o += 7;
		o += json_hex(o, p->raw, p->len);
		*o++ = '"';
	}
	return o - out;
}
