// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "lib/btf_names.h"

#include <linux/btf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct name_entry {
	uint32_t name_off;
	uint32_t id : 24;
	uint32_t kind : 8;
};

struct btf_names {
	const char *strs;
	uint32_t strs_len;
	unsigned types, indexed;
	struct name_entry *entries; /* the FUNC and TYPEDEF types, in id order */
	size_t cap;
};

/* Bytes after struct btf_type for a kind; -1 for a kind not known here. */
static long trailer(unsigned kind, unsigned vlen)
{
	switch (kind) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return (long)vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return (long)vlen * sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO:
		return (long)vlen * sizeof(struct btf_param);
	case BTF_KIND_DATASEC:
		return (long)vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_ENUM64:
		return (long)vlen * sizeof(struct btf_enum64);
	default:
		return -1;
	}
}

static int add(struct btf_names *n, uint32_t name_off, unsigned id, unsigned kind)
{
	if (n->indexed == n->cap) {
		size_t cap = n->cap ? n->cap * 2 : 65536;
		struct name_entry *e = realloc(n->entries, cap * sizeof(*e));

		if (!e)
			return -1;
		n->entries = e;
		n->cap = cap;
	}
	n->entries[n->indexed++] = (struct name_entry){name_off, id, kind};
	return 0;
}

/* Walk the type section: count the types, keep the FUNC and TYPEDEF ones. */
static int walk(struct btf_names *n, const uint8_t *p, const uint8_t *end)
{
	unsigned id = 0;

	while (p < end) {
		struct btf_type t;
		unsigned kind;
		long more;

		if ((size_t)(end - p) < sizeof(t))
			return -1;
		memcpy(&t, p, sizeof(t));
		kind = BTF_INFO_KIND(t.info);
		more = trailer(kind, BTF_INFO_VLEN(t.info));
		if (more < 0 || (size_t)(end - p) < sizeof(t) + (size_t)more ||
		    t.name_off >= n->strs_len || ++id >= 1u << 24)
			return -1;
		p += sizeof(t) + more;
		if (t.name_off && (kind == BTF_KIND_FUNC || kind == BTF_KIND_TYPEDEF) &&
		    add(n, t.name_off, id, kind))
			return -1;
	}
	n->types = id;
	return 0;
}

struct btf_names *btf_names__parse(const void *data, size_t size)
{
	const uint8_t *base = data, *types;
	struct btf_header h;
	struct btf_names *n;

	if (!data || size < sizeof(h))
		return NULL;
	memcpy(&h, base, sizeof(h));
	/* native byte order only: the running kernel's */
	if (h.magic != BTF_MAGIC || h.version != BTF_VERSION || h.hdr_len < sizeof(h) ||
	    h.hdr_len > size || h.type_off > size - h.hdr_len ||
	    h.type_len > size - h.hdr_len - h.type_off || h.str_off > size - h.hdr_len ||
	    h.str_len > size - h.hdr_len - h.str_off || !h.str_len ||
	    base[h.hdr_len + h.str_off + h.str_len - 1] != '\0')
		return NULL;
	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	n->strs = (const char *)base + h.hdr_len + h.str_off;
	n->strs_len = h.str_len;
	types = base + h.hdr_len + h.type_off;
	if (walk(n, types, types + h.type_len)) {
		btf_names__free(n);
		return NULL;
	}
	return n;
}

int btf_names__find(const struct btf_names *n, const char *name, int kind)
{
	if (!n || !name || !*name)
		return -1;
	/* a few questions at start-up: a scan is cheaper than indexing 60,000 names */
	for (unsigned i = 0; i < n->indexed; i++) {
		const struct name_entry *e = &n->entries[i];
		const char *s = n->strs + e->name_off;

		if (s[0] == name[0] && (int)e->kind == kind && !strcmp(s, name))
			return (int)e->id;
	}
	return -1;
}

unsigned btf_names__types(const struct btf_names *n)
{
	return n ? n->types : 0;
}

unsigned btf_names__indexed(const struct btf_names *n)
{
	return n ? n->indexed : 0;
}

void btf_names__free(struct btf_names *n)
{
	if (!n)
		return;
	free(n->entries);
	free(n);
}
