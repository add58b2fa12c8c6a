// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "decode/span_threads.h"

#include <stdlib.h>
#include <string.h>

#include "bpf/dltrace_events.h"
#include "event/syscall_table.h"

struct ring_entry {
	uint64_t ts;		  /* the syscall's start */
	struct sys_totals before; /* the thread's totals before it */
	struct path_ref *opened;  /* a successful open: its file */
};

struct span_thread {
	struct sys_totals total;
	uint32_t head, n; /* entries [head - n, head), modulo SPAN_RING */
	bool dropped;	  /* some were overwritten since the last reset */
	struct ring_entry ring[SPAN_RING];
};

void span_threads_init(struct span_threads *t)
{
	id_map_init(&t->threads);
	t->on = false;
}

static void clear(struct span_thread *th)
{
	for (uint32_t i = 0; i < SPAN_RING; i++) {
		path_put(th->ring[i].opened);
		th->ring[i].opened = NULL;
	}
	th->n = 0;
	th->dropped = false;
}

static void thread_free(struct span_thread *th)
{
	if (!th)
		return;
	clear(th);
	free(th);
}

void span_threads_free(struct span_threads *t)
{
	uint32_t key;
	void *v;

	for (size_t i = 0; id_map_next(&t->threads, &i, &key, &v);)
		thread_free(v);
	id_map_free(&t->threads);
}

void span_threads_syscall(struct span_threads *t, uint32_t tid, uint64_t ts, unsigned kind,
			  int64_t ret, struct path_ref *opened, int64_t cache_miss, uint32_t calls)
{
	const struct syscall_info *si = syscall_info(kind);
	struct span_thread *th;
	struct ring_entry *e;

	if (!t->on || !si)
		return;
	th = id_map_get(&t->threads, tid);
	if (!th) {
		th = calloc(1, sizeof(*th));
		if (!th)
			return;
		id_map_put(&t->threads, tid, th);
	}
	e = &th->ring[th->head];
	path_put(e->opened);
	e->ts = ts;
	e->before = th->total;
	e->opened = opened && ret >= 0 ? path_get(opened) : NULL;
	th->head = (th->head + 1) % SPAN_RING;
	if (th->n == SPAN_RING)
		th->dropped = true;
	else
		th->n++;
	th->total.calls += calls;
	if (si->reads) {
		th->total.reads += calls;
		th->total.read_bytes += ret > 0 ? (uint64_t)ret * calls : 0;
		if (cache_miss >= 0) {
			th->total.cache_reads += calls;
			th->total.cache_miss_bytes += cache_miss;
		}
	}
	if (si->writes) {
		th->total.writes += calls;
		th->total.write_bytes += ret > 0 ? (uint64_t)ret * calls : 0;
	}
}

/* The k-th oldest entry kept. */
static const struct ring_entry *entry(const struct span_thread *th, uint32_t k)
{
	return &th->ring[(th->head + SPAN_RING - th->n + k) % SPAN_RING];
}

/* Index of the first entry kept that began at ts or later (n: none). */
static uint32_t first_from(const struct span_thread *th, uint64_t ts)
{
	uint32_t lo = 0, hi = th->n;

	while (lo < hi) { /* a thread's syscalls arrive in the order they began */
		uint32_t mid = (lo + hi) / 2;

		if (entry(th, mid)->ts < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool span_threads_enclosed(const struct span_threads *t, uint32_t tid, uint64_t ts,
			   struct sys_totals *out)
{
	const struct span_thread *th = id_map_get(&t->threads, tid);
	const struct sys_totals *before;
	uint32_t k;

	memset(out, 0, sizeof(*out));
	if (!th || !th->n)
		return true;
	k = first_from(th, ts);
	if (k == th->n)
		return true;
	before = &entry(th, k)->before;
	out->calls = th->total.calls - before->calls;
	out->reads = th->total.reads - before->reads;
	out->read_bytes = th->total.read_bytes - before->read_bytes;
	out->writes = th->total.writes - before->writes;
	out->write_bytes = th->total.write_bytes - before->write_bytes;
	out->cache_reads = th->total.cache_reads - before->cache_reads;
	out->cache_miss_bytes = th->total.cache_miss_bytes - before->cache_miss_bytes;
	return !(k == 0 && th->dropped);
}

/* The last component of a path (all of it when it has no slash). */
static const char *base_name(const char *s, size_t len, size_t *blen)
{
	const char *slash = memrchr(s, '/', len);

	*blen = slash ? len - (size_t)(slash + 1 - s) : len;
	return slash ? slash + 1 : s;
}

const struct path_ref *span_threads_opened(const struct span_threads *t, uint32_t tid, uint64_t ts,
					   const char *name, size_t len)
{
	const struct span_thread *th = id_map_get(&t->threads, tid);
	size_t blen;
	const char *base = base_name(name, len, &blen);

	if (!th || !blen)
		return NULL;
	for (uint32_t k = first_from(th, ts); k < th->n; k++) {
		const struct path_ref *p = entry(th, k)->opened;
		size_t plen;
		const char *pbase;

		if (!p)
			continue;
		pbase = base_name(p->raw, p->len, &plen);
		if (plen == blen && !memcmp(pbase, base, blen))
			return p;
	}
	return NULL;
}

void span_threads_reset(struct span_threads *t, uint32_t tid)
{
	struct span_thread *th = id_map_get(&t->threads, tid);

	if (th)
		clear(th);
}

void span_threads_exit(struct span_threads *t, uint32_t tid)
{
	thread_free(id_map_remove(&t->threads, tid));
}
