// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What the report's renderings share: orderings, rank lists, and text as
 * HTML (for the page and its GPU section, so that neither file calls into
 * the other).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/render/report_output.h"

double key_file_bytes(const struct report_stats *st, uint32_t i)
{
	const struct rs_file *f = &st->files[i];

	if (f->scope != SCOPE_APP)
		return -1;
	/* bytes first, then calls (metadata-only files) */
	return (double)(f->bytes_read + f->bytes_written) + (double)f->calls / 1e6;
}

double key_file_cache_miss(const struct report_stats *st, uint32_t i)
{
	const struct rs_file *f = &st->files[i];

	if (f->scope != SCOPE_APP || !f->cache_miss)
		return -1;
	return (double)f->cache_miss + (double)f->cache_read_bytes / 1e15;
}

double key_dir_bytes(const struct report_stats *st, uint32_t i)
{
	const struct rs_dir *d = &st->dirs[i];

	if (d->scope != SCOPE_APP)
		return -1;
	return (double)(d->bytes_read + d->bytes_written) + (double)d->io_ns / 1e12;
}

double key_mount_bytes(const struct report_stats *st, uint32_t i)
{
	const struct rs_mount *m = &st->mounts[i];

	return (double)(m->bytes_read + m->bytes_written) + (double)m->io_ns / 1e12;
}

double key_proc_io(const struct report_stats *st, uint32_t i)
{
	return (double)rs_proc_io(&st->procs[i]);
}

double key_thread_io(const struct report_stats *st, uint32_t i)
{
	return (double)rs_thread_io(&st->threads[i]);
}

int common_sizes(const struct report_stats *st, int dir, uint64_t size[4], uint64_t count[4])
{
	int n = 0;

	for (uint32_t i = 0; i < st->nsizes; i++) {
		const struct rs_size *s = &st->sizes[i];
		uint64_t sz = s->key & ~(1ull << 63), c = s->count;
		int d = (int)(s->key >> 63), k;

		if (dir >= 0 && d != dir)
			continue;
		if (dir < 0) {
			/* reads and writes of one size count together, under the read entry */
			uint32_t other = u64_index_get(&st->size_ix, d ? sz : (1ull << 63) | sz);

			if (d && other != U64_NONE)
				continue;
			if (!d && other != U64_NONE)
				c += st->sizes[other].count;
		}
		k = n;
		while (k > 0 && (c > count[k - 1] || (c == count[k - 1] && sz < size[k - 1])))
			k--;
		if (k >= 4)
			continue;
		for (int j = n < 4 ? n : 3; j > k; j--) {
			size[j] = size[j - 1];
			count[j] = count[j - 1];
		}
		size[k] = sz;
		count[k] = c;
		if (n < 4)
			n++;
	}
	return n;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

char *rank_set(const struct report_stats *st, const uint32_t *procs, uint32_t n, char *buf,
	       size_t size)
{
	int64_t *r = malloc((n ? n : 1) * sizeof(*r));
	uint32_t known = 0;
	size_t o = 0;

	buf[0] = '\0';
	if (!r)
		return buf;
	for (uint32_t i = 0; i < n; i++)
		if (st->procs[procs[i]].rank >= 0)
			r[known++] = st->procs[procs[i]].rank;
	if (known) {
		qsort(r, known, sizeof(*r), cmp_i64);
		o = snprintf(buf, size, "rank%s ", known > 1 ? "s" : "");
		for (uint32_t i = 0; i < known && o < size;) {
			uint32_t j = i;

			while (j + 1 < known && r[j + 1] <= r[j] + 1)
				j++;
			o += snprintf(buf + o, size - o, "%s%lld", i ? ", " : "", (long long)r[i]);
			if (r[j] != r[i] && o < size)
				o += snprintf(buf + o, size - o, "-%lld", (long long)r[j]);
			i = j + 1;
		}
		if (known < n && o < size)
			snprintf(buf + o, size - o, ", %u unknown", n - known);
	}
	free(r);
	return buf;
}

char *proc_who(const struct report_stats *st, uint32_t pi, bool ranks, char *buf, size_t size)
{
	const struct rs_proc *p = &st->procs[pi];

	if (!ranks)
		snprintf(buf, size, "pid %u", p->pid);
	else if (p->rank >= 0)
		snprintf(buf, size, "rank %lld (pid %u)", (long long)p->rank, p->pid);
	else
		snprintf(buf, size, "rank unknown (pid %u)", p->pid);
	return buf;
}
