// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Where the replay finds each file (replay_plan__map).  Pure string work:
 * the files themselves are checked, staged and copied by replay_prepare.
 *
 *   recorded path --(changed by the job?)--yes--> SCRATCH + recorded path
 *                          | no
 *                          +--(--stage and it existed)--> STAGE + path below
 *                          |                              the staged files'
 *                          |                              common directory
 *                          +--> the longest --map prefix replaced, or as it was
 *
 * A file the job changed is replayed in the scratch directory with its
 * content, when it had one, copied from where --map says it is now.
 */
#define _GNU_SOURCE
#include "replay/replay_plan.h"

#include "lib/u64_index.h"

#include <stdlib.h>
#include <string.h>

/* Does path have prefix as whole components ("/data" holds "/data/x", not "/database")? */
static bool has_dir_prefix(const char *path, size_t len, const char *prefix, size_t plen)
{
	while (plen > 1 && prefix[plen - 1] == '/')
		plen--;
	if (plen == 1 && prefix[0] == '/')
		return len >= 1 && path[0] == '/';
	return len >= plen && !memcmp(path, prefix, plen) && (len == plen || path[plen] == '/');
}

static uint32_t put_joined(struct replay_plan *p, const char *a, size_t alen, const char *b,
			   size_t blen)
{
	char *s = malloc(alen + blen + 2);
	uint32_t id;

	if (!s)
		return RP_NONE;
	memcpy(s, a, alen);
	if (alen && a[alen - 1] == '/' && blen && b[0] == '/')
		alen--; /* "dir/" + "/x": one slash */
	else if (alen && a[alen - 1] != '/' && blen && b[0] != '/')
		s[alen++] = '/';
	memcpy(s + (alen), b, blen);
	id = string_index_put(&p->strings, s, alen + blen);
	free(s);
	return id == STRING_NONE ? RP_NONE : id;
}

/* path through the rules (the longest prefix wins); the id of the result */
static uint32_t map_path(struct replay_plan *p, uint32_t name, const struct replay_map_rule *rules,
			 unsigned nrules)
{
	const char *s = rp_str(p, name);
	size_t len = string_len(&p->strings, name), best = 0;
	const struct replay_map_rule *r = NULL;

	for (unsigned i = 0; i < nrules; i++) {
		size_t flen = strlen(rules[i].from);

		while (flen > 1 && rules[i].from[flen - 1] == '/')
			flen--;
		if (has_dir_prefix(s, len, rules[i].from, flen) && flen >= best) {
			best = flen;
			r = &rules[i];
		}
	}
	if (!r)
		return name;
	if (best == 1 && r->from[0] == '/') /* "/" maps every path: keep its own slash */
		return put_joined(p, r->to, strlen(r->to), s, len);
	return put_joined(p, r->to, strlen(r->to), s + best, len - best);
}

/* Files below a directory the job changed (renamed, removed, made) are changed too. */
static int mark_under_changed_dirs(struct replay_plan *p)
{
	struct u64_index by_name;

	u64_index_init(&by_name);
	for (uint32_t i = 0; i < p->nfiles; i++)
		if (u64_index_put(&by_name, p->files[i].name, i)) {
			u64_index_free(&by_name);
			return -1;
		}
	for (uint32_t i = 0; i < p->nfiles; i++) {
		struct rp_file *f = &p->files[i];
		const char *s = rp_str(p, f->name);
		size_t len = string_len(&p->strings, f->name);

		for (size_t k = len; k-- > 1 && !(f->flags & RPF_WRITTEN);) {
			uint32_t id, j;

			if (s[k] != '/')
				continue;
			id = string_index_find(&p->strings, s, k);
			j = id == STRING_NONE ? U64_NONE : u64_index_get(&by_name, id);
			if (j != U64_NONE && (p->files[j].flags & (RPF_WRITTEN | RPF_DIR)) ==
						 (RPF_WRITTEN | RPF_DIR))
				f->flags |= RPF_WRITTEN | RPF_UNDER_DIR;
		}
	}
	u64_index_free(&by_name);
	return 0;
}

/*
 * A directory the job lists, whose entries are all the job's own files (it
 * made, removed or changed each): its listing is the job's doing, so it is
 * replayed in the scratch directory, where the job's calls make the same
 * entries.  A directory that also holds files the job only read stays.
 */
static int mark_listed_dirs(struct replay_plan *p)
{
	struct u64_index by_name;
	uint8_t *kids = calloc(p->nfiles ? p->nfiles : 1, 1); /* 1: changed ones, 2: others */

	if (!kids)
		return -1;
	u64_index_init(&by_name);
	for (uint32_t i = 0; i < p->nfiles; i++)
		if (u64_index_put(&by_name, p->files[i].name, i))
			goto oom;
	for (uint32_t i = 0; i < p->nfiles; i++) {
		const struct rp_file *f = &p->files[i];
		const char *s = rp_str(p, f->name);
		size_t k = string_len(&p->strings, f->name);
		uint32_t id, parent;

		while (k > 1 && s[k - 1] != '/')
			k--;
		if (k > 1)
			k--;
		id = string_index_find(&p->strings, s, k);
		parent = id == STRING_NONE ? U64_NONE : u64_index_get(&by_name, id);
		if (parent == U64_NONE || parent == i)
			continue;
		kids[parent] |= (f->flags & RPF_WRITTEN) ? 1 : (f->flags & RPF_EXISTED) ? 2 : 0;
	}
	for (uint32_t i = 0; i < p->nfiles; i++) {
		struct rp_file *f = &p->files[i];

		if ((f->flags & (RPF_DIR | RPF_READ)) == (RPF_DIR | RPF_READ) &&
		    !(f->flags & RPF_WRITTEN) && kids[i] == 1)
			f->flags |= RPF_WRITTEN;
	}
	u64_index_free(&by_name);
	free(kids);
	return 0;
oom:
	u64_index_free(&by_name);
	free(kids);
	return -1;
}

/* The length of the directory a and b share, whole components ("/" at least). */
static size_t common_dir(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t n = 0;

	while (n < alen && n < blen && a[n] == b[n])
		n++;
	if ((n == alen || a[n] == '/') && (n == blen || b[n] == '/'))
		return n;
	while (n > 0 && a[n - 1] != '/')
		n--;
	return n > 1 ? n - 1 : n;
}

/* Which files --stage copies: those the job found and did not change. */
static bool staged(const struct rp_file *f)
{
	return !(f->flags & RPF_WRITTEN) && (f->flags & RPF_EXISTED) &&
	       (f->flags & (RPF_OPENED | RPF_READ | RPF_MAPPED));
}

/* The job's data: files it found and read bytes of (or faulted pages of), unchanged. */
static bool data_read(const struct rp_file *f)
{
	return staged(f) && !(f->flags & RPF_DIR) && (f->bytes_read || (f->flags & RPF_MAPPED));
}

/* Is path at or below dir (whole components; "/" holds every path)? */
static bool below(const char *path, size_t len, const char *dir, size_t dlen)
{
	if (dlen == 1 && dir[0] == '/')
		return true;
	return len >= dlen && !memcmp(path, dir, dlen) && (len == dlen || path[dlen] == '/');
}

int replay_plan__map(struct replay_plan *p, const struct replay_map_rule *rules, unsigned nrules,
		     const char *stage, const char *scratch)
{
	const char *common = NULL;
	size_t common_len = 0;

	if (mark_under_changed_dirs(p) || mark_listed_dirs(p))
		return -1;
	for (uint32_t i = 0; i < p->nfiles; i++) {
		struct rp_file *f = &p->files[i];

		f->flags &= ~RPF_STAGED;
		f->source = map_path(p, f->name, rules, nrules);
		if (f->source == RP_NONE)
			return -1;
		if (f->flags & RPF_WRITTEN) {
			f->replay = put_joined(p, scratch, strlen(scratch), rp_str(p, f->name),
					       string_len(&p->strings, f->name));
			if (f->replay == RP_NONE)
				return -1;
			continue;
		}
		f->replay = f->source;
		if (!stage || !data_read(f))
			continue;
		/* the data's common directory: what the stage stands for */
		{
			const char *src = rp_str(p, f->source);
			size_t len = string_len(&p->strings, f->source);

			while (len > 0 && src[len - 1] != '/')
				len--;
			if (len > 1)
				len--;
			if (!common) {
				common = src;
				common_len = len;
			} else {
				common_len = common_dir(common, common_len, src, len);
			}
		}
	}
	if (!common)
		return 0;
	/*
	 * Staged: the data, and what else the job found below its directory (the
	 * directories it listed, the files it opened or stat'ed); the rest stays.
	 */
	for (uint32_t i = 0; i < p->nfiles; i++) {
		struct rp_file *f = &p->files[i];
		const char *s;
		size_t len;

		if (!staged(f))
			continue;
		s = rp_str(p, f->source);
		len = string_len(&p->strings, f->source);
		if (!below(s, len, common, common_len))
			continue;
		f->flags |= RPF_STAGED;
		if (common_len <= 1) /* only "/" in common: the whole path below the stage */
			f->replay = put_joined(p, stage, strlen(stage), s, len);
		else
			f->replay =
			    put_joined(p, stage, strlen(stage), s + common_len, len - common_len);
		if (f->replay == RP_NONE)
			return -1;
	}
	return 0;
}
