// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "view/live_stats.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf/dltrace_events.h"
#include "event/syscall_table.h"
#include "lib/hash.h"
#include "lib/id_map.h"
#include "lib/path_table.h"

#define NONE	       UINT32_MAX
#define NAME_MAX_BYTES 1024 /* longer process names are cut (paths are kept whole) */
#define THREADS_MAX    (1u << 20)

const uint64_t live_metric_bounds_ns[LIVE_METRIC_BUCKETS] = {
    1000,      2500,	  5000,	      10000,	  25000,      50000,	   100000,   250000,
    500000,    1000000,	  2500000,    5000000,	  10000000,   25000000,	   50000000, 100000000,
    250000000, 500000000, 1000000000, 2500000000, 5000000000, 10000000000,
};

/* What a syscall kind counts as (struct live_counts). */
enum { K_READ = 1, K_WRITE = 2, K_META = 4, K_SYNC = 8 };

struct row {
	uint64_t hash, serial, last_ns;
	uint32_t prev, next;  /* the table's recency list, most recent first */
	struct path_ref *ref; /* files from a live source: the interned name, held */
	char *name;	      /* owned (unless ref) */
	uint32_t name_len;
	uint32_t pid, ppid, threads;
	bool alive;
	uint32_t dir; /* files: their directory's row, valid while its serial is dir_serial */
	uint64_t dir_serial;
	struct live_counts c;
};

struct table {
	struct row *rows;
	uint32_t n, cap, max;
	uint32_t *slots; /* row index + 1; 0: empty (linear probing) */
	uint32_t mask;
	uint32_t head, tail; /* recency list */
	struct row other;    /* what rows that were replaced had counted */
	bool keep_alive;     /* processes: never replace one that is alive */
};

struct live_stats {
	struct event_consumer consumer;
	struct table t[LIVE_TABLES];
	uint64_t next_serial;
	uint8_t kind[DL_SYS_COUNT];
	uint32_t page_size;
	uint64_t events;
	struct live_counts total;
	uint64_t class_ns[LIVE_CLASSES], class_ops[LIVE_CLASSES];
	uint64_t class_lat[LIVE_CLASSES][LIVE_METRIC_BUCKETS + 1];
	struct live_layers layers;
	struct live_phases phases;
	struct live_training training;
	/* processes and threads alive */
	uint32_t procs_alive, procs_seen, untracked_alive;
	struct id_map tids;
	uint32_t threads_alive;
	/* caches of the last event's rows */
	uint32_t last_pid, last_proc, last_tid;
	uint64_t last_proc_serial;
	const struct path_ref *last_ref;
	uint32_t last_file;
	uint64_t last_file_serial;
	uint64_t uring_seq, uring_ts; /* the last io_uring submission */
	char *target, *host, *layer_names;
	int64_t start_wall_ns;
};

/* ---- latency buckets ---- */

uint64_t live_lat_value(unsigned i)
{
	unsigned m, sub;
	uint64_t width;

	if (i < 4)
		return i;
	m = i / 4 + 1;
	sub = i % 4;
	width = 1ull << (m - 2);
	return ((4ull + sub) << (m - 2)) + width / 2;
}

uint64_t live_lat_quantile(const uint32_t *lat, uint64_t n, double q)
{
	uint64_t rank, seen = 0;

	if (!n)
		return 0;
	rank = (uint64_t)(q * (double)n + 0.999999);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	for (unsigned i = 0; i < LIVE_LAT_BUCKETS; i++) {
		seen += lat[i];
		if (seen >= rank)
			return live_lat_value(i);
	}
	return live_lat_value(LIVE_LAT_BUCKETS - 1);
}

/*
 * The metric bucket of a latency from its fine bucket b (live_lat_bucket):
 * metric_of[b] is the metric bucket of b's lowest value; when a metric
 * bound falls inside b (straddle[b]), values above it go one further.
 */
static uint8_t metric_of[LIVE_LAT_BUCKETS];
static bool straddle[LIVE_LAT_BUCKETS];

static unsigned metric_bucket_search(uint64_t ns)
{
	unsigned lo = 0, hi = LIVE_METRIC_BUCKETS;

	while (lo < hi) { /* the first bound >= ns */
		unsigned mid = (lo + hi) / 2;

		if (live_metric_bounds_ns[mid] < ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static uint64_t lat_lower(unsigned i)
{
	return i < 4 ? i : (4ull + i % 4) << (i / 4 - 1);
}

static void metric_table(void)
{
	for (unsigned b = 0; b < LIVE_LAT_BUCKETS; b++) {
		uint64_t lo = lat_lower(b);
		uint64_t hi = b + 1 < LIVE_LAT_BUCKETS ? lat_lower(b + 1) - 1 : UINT64_MAX;

		metric_of[b] = (uint8_t)metric_bucket_search(lo);
		straddle[b] = metric_bucket_search(hi) != metric_of[b];
	}
}

static inline unsigned metric_bucket(uint64_t ns, unsigned b)
{
	unsigned m = metric_of[b];

	/* a bucket holds at most one bound: the buckets are far narrower than the bounds' steps */
	if (straddle[b] && ns > live_metric_bounds_ns[m])
		m++;
	return m;
}

/* ---- tables ---- */

static uint64_t pid_hash(uint32_t pid)
{
	return fib_hash(pid + 1);
}

static int table_init(struct table *t, uint32_t max, bool keep_alive)
{
	uint32_t n = 16;

	memset(t, 0, sizeof(*t));
	while (n < 2 * max)
		n *= 2;
	t->slots = calloc(n, sizeof(*t->slots));
	if (!t->slots)
		return -1;
	t->mask = n - 1;
	t->max = max;
	t->head = t->tail = NONE;
	t->keep_alive = keep_alive;
	return 0;
}

static void row_release(struct row *r)
{
	if (r->ref)
		path_put(r->ref);
	else
		free(r->name);
	r->ref = NULL;
	r->name = NULL;
	r->name_len = 0;
}

static void table_free(struct table *t)
{
	for (uint32_t i = 0; i < t->n; i++)
		row_release(&t->rows[i]);
	free(t->rows);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

static void list_unlink(struct table *t, uint32_t i)
{
	struct row *r = &t->rows[i];

	if (r->prev != NONE)
		t->rows[r->prev].next = r->next;
	else
		t->head = r->next;
	if (r->next != NONE)
		t->rows[r->next].prev = r->prev;
	else
		t->tail = r->prev;
}

static void list_push(struct table *t, uint32_t i)
{
	struct row *r = &t->rows[i];

	r->prev = NONE;
	r->next = t->head;
	if (t->head != NONE)
		t->rows[t->head].prev = i;
	t->head = i;
	if (t->tail == NONE)
		t->tail = i;
}

/* A row was active at ts: it moves to the front of the recency list. */
static inline __attribute__((always_inline)) void touch(struct table *t, uint32_t i, uint64_t ts)
{
	if (ts > t->rows[i].last_ns)
		t->rows[i].last_ns = ts;
	if (t->head != i) {
		list_unlink(t, i);
		list_push(t, i);
	}
}

static void slot_insert(struct table *t, uint32_t i)
{
	uint32_t s = (uint32_t)t->rows[i].hash & t->mask;

	while (t->slots[s])
		s = (s + 1) & t->mask;
	t->slots[s] = i + 1;
}

/* Remove row i's slot (backward-shift deletion: no tombstones). */
static void slot_remove(struct table *t, uint32_t i)
{
	uint32_t s = (uint32_t)t->rows[i].hash & t->mask, j;

	while (t->slots[s] != i + 1)
		s = (s + 1) & t->mask;
	for (j = s;;) {
		uint32_t home;

		j = (j + 1) & t->mask;
		if (!t->slots[j])
			break;
		home = (uint32_t)t->rows[t->slots[j] - 1].hash & t->mask;
		/* the entry at j may move to s unless its home lies cyclically in (s, j] */
		if (s <= j ? (s < home && home <= j) : (s < home || home <= j))
			continue;
		t->slots[s] = t->slots[j];
		s = j;
	}
	t->slots[s] = 0;
}

static void counts_add(struct live_counts *dst, const struct live_counts *src)
{
	dst->ops += src->ops;
	dst->rd_ops += src->rd_ops;
	dst->wr_ops += src->wr_ops;
	dst->meta_ops += src->meta_ops;
	dst->sync_ops += src->sync_ops;
	dst->failed += src->failed;
	dst->rd_bytes += src->rd_bytes;
	dst->wr_bytes += src->wr_bytes;
	dst->io_ns += src->io_ns;
	for (unsigned b = 0; b < LIVE_LAT_BUCKETS; b++)
		dst->lat[b] += src->lat[b];
}

/* The row to replace: the least recently active (of the processes, one that exited). */
static uint32_t victim(const struct table *t)
{
	for (uint32_t i = t->tail; i != NONE; i = t->rows[i].prev)
		if (!t->keep_alive || !t->rows[i].alive)
			return i;
	return NONE;
}

/* A new row for hash; NONE when the table is full of rows it must keep, or out of memory. */
static uint32_t table_add(struct live_stats *ls, struct table *t, uint64_t hash, uint64_t ts)
{
	uint32_t i;
	struct row *r;

	if (t->n < t->max) {
		if (t->n == t->cap) {
			uint32_t cap = t->cap ? t->cap * 2 : 64;
			struct row *rows;

			if (cap > t->max)
				cap = t->max;
			rows = realloc(t->rows, cap * sizeof(*rows));
			if (!rows)
				return NONE;
			t->rows = rows;
			t->cap = cap;
		}
		i = t->n++;
	} else {
		i = victim(t);
		if (i == NONE)
			return NONE;
		r = &t->rows[i];
		counts_add(&t->other.c, &r->c);
		if (r->last_ns > t->other.last_ns)
			t->other.last_ns = r->last_ns;
		slot_remove(t, i);
		list_unlink(t, i);
		row_release(r);
	}
	r = &t->rows[i];
	memset(r, 0, sizeof(*r));
	r->hash = hash;
	r->serial = ++ls->next_serial;
	r->last_ns = ts;
	r->dir = NONE;
	slot_insert(t, i);
	list_push(t, i);
	return i;
}

/* ---- processes and threads ---- */

static uint32_t proc_find(const struct table *t, uint32_t pid)
{
	uint64_t h = pid_hash(pid);

	for (uint32_t s = (uint32_t)h & t->mask; t->slots[s]; s = (s + 1) & t->mask) {
		const struct row *r = &t->rows[t->slots[s] - 1];

		if (r->hash == h && r->pid == pid)
			return t->slots[s] - 1;
	}
	return NONE;
}

static void set_name(struct row *r, const char *s, size_t len)
{
	char *copy;

	if (len > NAME_MAX_BYTES)
		len = NAME_MAX_BYTES;
	copy = malloc(len + 1);
	if (!copy)
		return;
	memcpy(copy, s, len);
	copy[len] = '\0';
	free(r->name);
	r->name = copy;
	r->name_len = len;
}

static uint32_t proc_row_slow(struct live_stats *ls, uint32_t pid, uint64_t ts);

/* The process row of pid, made when new (NONE: not kept, counted in "other"). */
static inline __attribute__((always_inline)) uint32_t proc_row(struct live_stats *ls, uint32_t pid,
							       uint64_t ts)
{
	struct table *t = &ls->t[LIVE_PROCS];

	if (pid == ls->last_pid && ls->last_proc != NONE &&
	    t->rows[ls->last_proc].serial == ls->last_proc_serial) {
		touch(t, ls->last_proc, ts);
		return ls->last_proc;
	}
	return proc_row_slow(ls, pid, ts);
}

static uint32_t proc_row_slow(struct live_stats *ls, uint32_t pid, uint64_t ts)
{
	struct table *t = &ls->t[LIVE_PROCS];
	uint32_t i;

	i = proc_find(t, pid);
	if (i == NONE) {
		bool first = !ls->procs_seen;

		ls->procs_seen++;
		ls->procs_alive++;
		if (first) { /* the job's first process: its main thread trains */
			ls->training.pid = pid;
			ls->training.tid = pid;
		}
		i = table_add(ls, t, pid_hash(pid), ts);
		if (i == NONE) {
			ls->untracked_alive++;
			ls->last_pid = 0;
			return NONE;
		}
		t->rows[i].pid = pid;
		t->rows[i].alive = true;
	} else {
		touch(t, i, ts);
	}
	ls->last_pid = pid;
	ls->last_proc = i;
	ls->last_proc_serial = t->rows[i].serial;
	return i;
}

static void thread_new(struct live_stats *ls, uint32_t tid, uint32_t pi);

/* The thread tid of process row pi is alive (a new one is counted). */
static inline __attribute__((always_inline)) void thread_seen(struct live_stats *ls, uint32_t tid,
							      uint32_t pi)
{
	if (tid != ls->last_tid)
		thread_new(ls, tid, pi);
}

static void thread_new(struct live_stats *ls, uint32_t tid, uint32_t pi)
{
	ls->last_tid = tid;
	if (id_map_get(&ls->tids, tid) || ls->tids.count >= THREADS_MAX)
		return;
	if (!id_map_put(&ls->tids, tid, (void *)1) && !id_map_get(&ls->tids, tid))
		return; /* out of memory */
	ls->threads_alive++;
	if (pi != NONE)
		ls->t[LIVE_PROCS].rows[pi].threads++;
}

/* An event of a traced task: its process and thread are alive. */
static inline __attribute__((always_inline)) uint32_t task_event(struct live_stats *ls,
								 const struct event *e)
{
	uint32_t pi = proc_row(ls, e->pid, e->ts);

	thread_seen(ls, e->tid, pi);
	return pi;
}

/* ---- files and directories ---- */

static uint32_t name_find(const struct table *t, uint64_t h, const struct path_ref *ref,
			  const char *s, uint32_t len)
{
	for (uint32_t x = (uint32_t)h & t->mask; t->slots[x]; x = (x + 1) & t->mask) {
		const struct row *r = &t->rows[t->slots[x] - 1];

		if (r->hash != h || (!r->ref && !r->name))
			continue;
		if ((ref && r->ref == ref) ||
		    (r->name_len == len && !memcmp(r->ref ? r->ref->raw : r->name, s, len)))
			return t->slots[x] - 1;
	}
	return NONE;
}

static uint32_t name_row(struct live_stats *ls, struct table *t, uint64_t h,
			 const struct path_ref *ref, const char *s, uint32_t len, uint64_t ts)
{
	uint32_t i = name_find(t, h, ref, s, len);
	struct row *r;

	if (i != NONE) {
		touch(t, i, ts);
		return i;
	}
	i = table_add(ls, t, h, ts);
	if (i == NONE)
		return NONE;
	r = &t->rows[i];
	if (ref) { /* held: the name stays interned, and its pointer names it */
		r->ref = path_get((struct path_ref *)ref);
		r->name_len = len;
	} else {
		r->name = malloc(len + 1);
		if (r->name) { /* out of memory: a row without a name, never found again */
			memcpy(r->name, s, len);
			r->name[len] = '\0';
			r->name_len = len;
		}
	}
	return i;
}

static uint32_t dir_of_slow(struct live_stats *ls, struct row *f, uint64_t ts);

static inline __attribute__((always_inline)) uint32_t dir_of(struct live_stats *ls, struct row *f,
							     uint64_t ts)
{
	struct table *d = &ls->t[LIVE_DIRS];

	if (f->dir != NONE && d->rows[f->dir].serial == f->dir_serial) {
		touch(d, f->dir, ts);
		return f->dir;
	}
	return dir_of_slow(ls, f, ts);
}

static uint32_t dir_of_slow(struct live_stats *ls, struct row *f, uint64_t ts)
{
	struct table *d = &ls->t[LIVE_DIRS];
	const char *s, *slash;
	uint32_t len;

	s = f->ref ? f->ref->raw : f->name;
	slash = s ? memrchr(s, '/', f->name_len) : NULL;
	if (!slash)
		return NONE;
	len = slash == s ? 1 : (uint32_t)(slash - s); /* "/x": "/" */
	f->dir = name_row(ls, d, fnv1a_64(s, len), NULL, s, len, ts);
	f->dir_serial = f->dir != NONE ? d->rows[f->dir].serial : 0;
	return f->dir;
}

static uint32_t file_row_slow(struct live_stats *ls, const struct ev_path *p, uint64_t ts);

/* The file row of a path (NONE: no name). */
static inline __attribute__((always_inline)) uint32_t file_row(struct live_stats *ls,
							       const struct ev_path *p, uint64_t ts)
{
	struct table *t = &ls->t[LIVE_FILES];
	const struct path_ref *ref = p->ref;

	if (ref && ref == ls->last_ref && t->rows[ls->last_file].serial == ls->last_file_serial) {
		touch(t, ls->last_file, ts);
		return ls->last_file;
	}
	return p->name.len ? file_row_slow(ls, p, ts) : NONE;
}

static uint32_t file_row_slow(struct live_stats *ls, const struct ev_path *p, uint64_t ts)
{
	struct table *t = &ls->t[LIVE_FILES];
	const struct path_ref *ref = p->ref;
	uint32_t i;

	/* the path table's hash of a path is its fnv1a_64 too (lib/path_table.c) */
	i = name_row(ls, t, ref ? ref->hash : fnv1a_64(p->name.s, p->name.len), ref, p->name.s,
		     p->name.len, ts);
	if (i != NONE && ref) {
		ls->last_ref = ref;
		ls->last_file = i;
		ls->last_file_serial = t->rows[i].serial;
	}
	return i;
}

/* ---- events ---- */

/*
 * Calls of one latency: one call, or some of a run (counting mode: its
 * longest call, and the others at their mean).
 */
struct calls {
	uint64_t n, dur; /* how many, their time in all */
	unsigned b;	 /* live_lat_bucket() of one of them */
};

static inline __attribute__((always_inline)) void
count(struct live_counts *c, uint8_t kind, uint64_t moved, const struct calls *k, bool failed)
{
	c->ops += k->n;
	c->io_ns += k->dur;
	c->lat[k->b] += k->n;
	c->failed += failed ? k->n : 0;
	if (kind & K_READ) {
		c->rd_ops += k->n;
		c->rd_bytes += moved * k->n;
	} else if (kind & K_WRITE) {
		c->wr_ops += k->n;
		c->wr_bytes += moved * k->n;
	} else if (kind & K_META) {
		c->meta_ops += k->n;
	} else if (kind & K_SYNC) {
		c->sync_ops += k->n;
	}
}

static void on_syscall(struct event_consumer *c, const struct event *e)
{
	struct live_stats *ls = container_of(c, struct live_stats, consumer);
	const struct ev_syscall *s = &e->sys;
	uint8_t kind = s->sys < DL_SYS_COUNT ? ls->kind[s->sys] : 0;
	bool failed = s->ret < 0;
	uint64_t moved = !failed && (kind & (K_READ | K_WRITE)) ? (uint64_t)s->ret : 0;
	unsigned cls = kind & K_META ? LIVE_METADATA : kind & K_SYNC ? LIVE_SYNC : LIVE_DATA;
	struct calls part[2] = {{1, s->dur, 0}};
	unsigned nparts = 1;
	uint32_t pi, fi;

	if (s->calls > 1 && !failed) {
		/* a run: its longest call, then the others at their mean */
		uint64_t longest = ev_run_longest(s);

		part[0].dur = longest;
		part[1].n = s->calls - 1;
		part[1].dur = s->dur - longest;
		part[1].b = live_lat_bucket(part[1].dur / part[1].n);
		nparts = 2;
	}
	part[0].b = live_lat_bucket(part[0].dur);
	ls->events++;
	pi = task_event(ls, e);
	fi = file_row(ls, &s->path, e->ts);
	for (unsigned i = 0; i < nparts; i++) {
		const struct calls *k = &part[i];

		count(&ls->total, kind, moved, k, failed);
		ls->class_ns[cls] += k->dur;
		ls->class_ops[cls] += k->n;
		ls->class_lat[cls][metric_bucket(k->dur / k->n, k->b)] += k->n;
		if (pi != NONE)
			count(&ls->t[LIVE_PROCS].rows[pi].c, kind, moved, k, failed);
		else
			count(&ls->t[LIVE_PROCS].other.c, kind, moved, k, failed);
		if (e->tid == ls->training.tid) {
			ls->training.ops += k->n;
			ls->training.io_ns += k->dur;
		}
		if (fi != NONE) {
			struct row *f = &ls->t[LIVE_FILES].rows[fi];
			uint32_t di;

			count(&f->c, kind, moved, k, failed);
			di = dir_of(ls, f, e->ts);
			if (di != NONE)
				count(&ls->t[LIVE_DIRS].rows[di].c, kind, moved, k, failed);
		}
	}
	if (s->flags & EVS_CACHE) {
		uint64_t n = part[0].n + (nparts > 1 ? part[1].n : 0);

		ls->layers.cache_reads += n;
		ls->layers.cache_read_bytes += moved * n;
		ls->layers.cache_miss_bytes += s->cache_miss_bytes;
	}
	/* sendfile, copy_file_range: the bytes also went to the second file */
	if ((kind & K_READ) && (kind & K_WRITE) && moved && s->path2.name.len) {
		ls->total.wr_bytes += moved;
		fi = file_row(ls, &s->path2, e->ts);
		if (fi != NONE) {
			struct row *f = &ls->t[LIVE_FILES].rows[fi];
			uint32_t di = dir_of(ls, f, e->ts);

			f->c.wr_bytes += moved;
			if (di != NONE)
				ls->t[LIVE_DIRS].rows[di].c.wr_bytes += moved;
		}
		if (pi != NONE)
			ls->t[LIVE_PROCS].rows[pi].c.wr_bytes += moved;
	}
}

static char *dup_str(const struct ev_str *s)
{
	return strndup(s->s ? s->s : "", s->len);
}

static void on_begin(struct event_consumer *c, const struct event *e)
{
	struct live_stats *ls = container_of(c, struct live_stats, consumer);

	ls->events++;
	free(ls->target);
	free(ls->host);
	free(ls->layer_names);
	ls->target = dup_str(&e->begin.target);
	ls->host = dup_str(&e->begin.hostname);
	ls->layer_names = dup_str(&e->begin.layers);
	ls->start_wall_ns = e->begin.start_wall_ns;
}

static void on_start(struct event_consumer *c, const struct event *e)
{
	struct live_stats *ls = container_of(c, struct live_stats, consumer);
	struct table *t = &ls->t[LIVE_PROCS];
	uint32_t pi, parent;

	ls->events++;
	pi = task_event(ls, e);
	if (e->fork.thread || pi == NONE)
		return;
	t->rows[pi].ppid = e->fork.parent_pid;
	parent = proc_find(t, e->fork.parent_pid);
	if (parent != NONE && t->rows[parent].name && !t->rows[pi].name)
		set_name(&t->rows[pi], t->rows[parent].name, t->rows[parent].name_len);
}

static void on_task(struct event_consumer *c, const struct event *e)
{
	struct live_stats *ls = container_of(c, struct live_stats, consumer);

	ls->events++;
	task_event(ls, e);
}

static void on_exec(struct event_consumer *c, const struct event *e)
{
	struct live_stats *ls = container_of(c, struct live_stats, consumer);
	uint32_t pi;

	ls->events++;
	pi = task_event(ls, e);
	if (pi == NONE)
		return;
	if (e->exec.cmdline.len)
		set_name(&ls->t[LIVE_PROCS].rows[pi], e->exec.cmdline.s, e->exec.cmdline.len);
	else if (e->exec.file.len)
		set_name(&ls->t[LIVE_PROCS].rows[pi], e->exec.file.s, e->exec.file.len);
}

static void on_task_exit(struct event_consumer *c, const struct event *e)
{
	struct live_stats *ls = container_of(c, struct live_stats, consumer);
	struct table *t = &ls->t[LIVE_PROCS];
	uint32_t pi = proc_find(t, e->pid);

	ls->events++;
	if (id_map_remove(&ls->tids, e->tid)) {
		if (ls->threads_alive)
			ls->threads_alive--;
		if (pi != NONE && t->rows[pi].threads)
			t->rows[pi].threads--;
	}
	if (ls->last_tid == e->tid)
		ls->last_tid = 0;
	if (!e->exit.group_dead)
		return;
	if (pi != NONE) {
		if (t->rows[pi].alive) {
			t->rows[pi].alive = false;
			t->rows[pi].threads = 0;
			if (ls->procs_alive)
				ls->procs_alive--;
		}
	} else if (ls->untracked_alive) {
		ls->untracked_alive--;
		if (ls->procs_alive)
			ls->procs_alive--;
	}
}

static void on_name(struct event_consumer *c, const struct event *e)
{
	struct live_stats *ls = container_of(c, struct live_stats, consumer);
	struct table *t = &ls->t[LIVE_PROCS];
	uint32_t pi = proc_find(t, e->pid);

	ls->events++;
	if (pi == NONE || !e->name.name.len)
		return;
	/* a process's name; a main thread's comm names a process that has none */
	if (e->type == EV_PROCESS_NAME || (e->tid == e->pid && !t->rows[pi].name))
		set_name(&t->rows[pi], e->name.name.s, e->name.name.len);
}

static void on_fault(struct event_consumer *c, const struct event *e)
{
	struct live_stats *ls = container_of(c, struct live_stats, consumer);

	ls->events++;
	task_event(ls, e);
	ls->layers.faults++;
	ls->layers.fault_bytes += ls->page_size;
	ls->layers.write_faults += e->fault.write;
}

static void on_block(struct event_consumer *c, const struct event *e)
{
	struct live_stats *ls = container_of(c, struct live_stats, consumer);
	const struct ev_block *b = &e->block;

	ls->events++;
	if (b->phase == EV_PH_BEGIN) {
		ls->layers.block_reqs++;
		if (b->op == 0)
			ls->layers.block_rd_bytes += b->bytes;
		else if (b->op == 1)
			ls->layers.block_wr_bytes += b->bytes;
	} else {
		ls->layers.block_done++;
		ls->layers.block_ns += b->latency_ns;
		ls->layers.block_lat[live_lat_bucket(b->latency_ns)]++;
	}
}

static bool uring_reads(uint8_t op)
{
	return op == 1 || op == 4 || op == 22; /* IORING_OP_READV, _READ_FIXED, _READ */
}

static bool uring_writes(uint8_t op)
{
	return op == 2 || op == 5 || op == 23; /* IORING_OP_WRITEV, _WRITE_FIXED, _WRITE */
}

static void on_uring(struct event_consumer *c, const struct event *e)
{
	struct live_stats *ls = container_of(c, struct live_stats, consumer);
	const struct ev_uring *u = &e->uring;

	ls->events++;
	task_event(ls, e);
	if (u->phase == EV_PH_BEGIN) {
		ls->uring_seq = u->seq;
		ls->uring_ts = e->ts;
		return;
	}
	ls->layers.uring_reqs++;
	if (u->res > 0 && uring_reads(u->opcode))
		ls->layers.uring_rd_bytes += (uint64_t)u->res;
	else if (u->res > 0 && uring_writes(u->opcode))
		ls->layers.uring_wr_bytes += (uint64_t)u->res;
	if (u->seq == ls->uring_seq && e->ts >= ls->uring_ts) {
		ls->layers.uring_ns += e->ts - ls->uring_ts;
		ls->layers.uring_lat[live_lat_bucket(e->ts - ls->uring_ts)]++;
	}
}

static void on_vfs(struct event_consumer *c, const struct event *e)
{
	struct live_stats *ls = container_of(c, struct live_stats, consumer);

	ls->events++;
	task_event(ls, e);
	if (e->vfs.op == DL_VFS_RW_CHECK)
		return;
	ls->layers.vfs_calls++;
	ls->layers.vfs_ns += e->vfs.dur;
}

static void on_span(struct event_consumer *c, const struct event *e)
{
	struct live_stats *ls = container_of(c, struct live_stats, consumer);
	const struct ev_span *sp = &e->span;
	int lib = -1;

	ls->events++;
	task_event(ls, e);
	if (sp->phase != EV_PH_COMPLETE)
		return;
	if (ev_str_is(&sp->cat, "marker")) {
		ls->layers.marker_regions++;
		if (ev_str_is(&sp->name, "fetch")) {
			ls->phases.fetches++;
			ls->phases.fetch_ns += sp->dur;
		} else if (ev_str_is(&sp->name, "step")) {
			ls->phases.steps++;
			ls->phases.step_ns += sp->dur;
		}
		return;
	}
	if (ev_str_is(&sp->cat, "stdio"))
		lib = 0;
	else if (ev_str_is(&sp->cat, "hdf5"))
		lib = 1;
	else if (ev_str_is(&sp->cat, "mpiio"))
		lib = 2;
	if (lib >= 0) {
		ls->layers.lib_calls[lib]++;
		ls->layers.lib_ns[lib] += sp->dur;
	}
}

static void on_other(struct event_consumer *c, const struct event *e)
{
	(void)e;
	container_of(c, struct live_stats, consumer)->events++;
}

/* ---- the object ---- */

struct live_stats *live_stats__new(uint32_t rows)
{
	struct live_stats *ls = calloc(1, sizeof(*ls));
	uint32_t max[LIVE_TABLES] = {rows ? rows : 1024, rows ? rows : 1024, rows ? rows : 512};
	long page = sysconf(_SC_PAGESIZE);

	if (!ls)
		return NULL;
	if (!metric_of[LIVE_LAT_BUCKETS - 1])
		metric_table();
	for (int i = 0; i < LIVE_TABLES; i++) {
		if (table_init(&ls->t[i], max[i], i == LIVE_PROCS)) {
			live_stats__free(ls);
			return NULL;
		}
	}
	for (unsigned k = 0; k < DL_SYS_COUNT; k++) {
		const struct syscall_info *si = syscall_info(k);

		if (!si)
			continue;
		ls->kind[k] = (si->reads ? K_READ : 0) | (si->writes ? K_WRITE : 0) |
			      (si->io_class == IO_METADATA ? K_META : 0) |
			      (si->io_class == IO_SYNC ? K_SYNC : 0);
	}
	ls->page_size = page > 0 ? (uint32_t)page : 4096;
	ls->last_proc = ls->last_file = NONE;
	id_map_init(&ls->tids);
	event_consumer_init(&ls->consumer);
	ls->consumer.trace_begin = on_begin;
	ls->consumer.syscall = on_syscall;
	ls->consumer.fork = on_task;
	ls->consumer.start = on_start;
	ls->consumer.exec = on_exec;
	ls->consumer.exit = on_task_exit;
	ls->consumer.process_name = on_name;
	ls->consumer.thread_name = on_name;
	ls->consumer.fault = on_fault;
	ls->consumer.block = on_block;
	ls->consumer.uring = on_uring;
	ls->consumer.vfs = on_vfs;
	ls->consumer.vfs_open = on_task;
	ls->consumer.span = on_span;
	event_consumer_fill(&ls->consumer, on_other);
	return ls;
}

void live_stats__free(struct live_stats *ls)
{
	if (!ls)
		return;
	for (int i = 0; i < LIVE_TABLES; i++)
		table_free(&ls->t[i]);
	id_map_free(&ls->tids);
	free(ls->target);
	free(ls->host);
	free(ls->layer_names);
	free(ls);
}

struct event_consumer *live_stats__consumer(struct live_stats *ls)
{
	return &ls->consumer;
}

void live_stats__totals(const struct live_stats *ls, struct live_totals *out)
{
	out->total = &ls->total;
	out->class_ns = ls->class_ns;
	out->class_lat = ls->class_lat;
	out->class_ops = ls->class_ops;
	out->layers = &ls->layers;
	out->events = ls->events;
	out->processes = ls->procs_alive;
	out->threads = ls->threads_alive;
}

void live_snapshot_free(struct live_snapshot *s)
{
	for (int i = 0; i < LIVE_TABLES; i++)
		free(s->rows[i]);
	free(s->text);
	free(s->target);
	free(s->host);
	free(s->layers);
	memset(s, 0, sizeof(*s));
}

static const char *row_name(const struct row *r)
{
	return r->ref ? r->ref->raw : r->name ? r->name : "";
}

static int snapshot(const struct live_stats *ls, uint64_t now_ns, struct live_snapshot *out,
		    bool with_rows)
{
	size_t text = 0, used = 0;

	memset(out, 0, sizeof(*out));
	out->now_ns = now_ns;
	out->start_wall_ns = ls->start_wall_ns;
	out->target = strdup(ls->target ? ls->target : "");
	out->host = strdup(ls->host ? ls->host : "");
	out->layers = strdup(ls->layer_names ? ls->layer_names : "");
	out->events = ls->events;
	out->processes = ls->procs_alive;
	out->threads = ls->threads_alive;
	out->processes_seen = ls->procs_seen;
	out->total = ls->total;
	memcpy(out->class_ns, ls->class_ns, sizeof(out->class_ns));
	out->layers_n = ls->layers;
	out->training = ls->training;
	out->phases = ls->phases;
	for (int i = 0; i < LIVE_TABLES && with_rows; i++)
		for (uint32_t k = 0; k < ls->t[i].n; k++)
			text += ls->t[i].rows[k].name_len + 1;
	out->text = malloc(text + 1);
	if (!out->target || !out->host || !out->layers || !out->text)
		goto oom;
	for (int i = 0; i < LIVE_TABLES && with_rows; i++) {
		const struct table *t = &ls->t[i];
		struct live_row *rows = malloc((t->n + 1) * sizeof(*rows));
		uint32_t n = 0;

		if (!rows)
			goto oom;
		out->rows[i] = rows;
		for (uint32_t k = 0; k < t->n; k++) {
			const struct row *r = &t->rows[k];

			if (!r->serial)
				continue;
			rows[n] =
			    (struct live_row){r->serial, r->pid,	   r->ppid,	r->threads,
					      r->alive,	 out->text + used, r->name_len, r->c};
			memcpy(out->text + used, row_name(r), r->name_len);
			used += r->name_len;
			out->text[used++] = '\0';
			n++;
		}
		rows[n] = (struct live_row){0};
		rows[n].name = "";
		rows[n].c = t->other.c;
		out->nrows[i] = n + 1;
	}
	return 0;
oom:
	live_snapshot_free(out);
	return -1;
}

int live_stats__snapshot(const struct live_stats *ls, uint64_t now_ns, struct live_snapshot *out)
{
	return snapshot(ls, now_ns, out, true);
}

int live_stats__snapshot_totals(const struct live_stats *ls, uint64_t now_ns,
				struct live_snapshot *out)
{
	return snapshot(ls, now_ns, out, false);
}
