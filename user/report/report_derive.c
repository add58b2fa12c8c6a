// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Completing the report's figures once every event has been read: file
 * extents and passes, the training thread, process groups for the balance,
 * mount prefixes, job totals.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "report/report_stats.h"
#include "report/report_gpu_idle.h"

uint64_t rs_thread_wall(const struct report_stats *st, const struct rs_thread *t)
{
	(void)st;
	return t->last_ns > t->first_ns ? t->last_ns - t->first_ns : 0;
}

uint64_t rs_proc_wall(const struct report_stats *st, const struct rs_proc *p)
{
	(void)st;
	return p->last_ns > p->first_ns ? p->last_ns - p->first_ns : 0;
}

uint64_t rs_thread_io(const struct rs_thread *t)
{
	return t->io_ns[CLS_DATA] + t->io_ns[CLS_META] + t->io_ns[CLS_SYNC];
}

uint64_t rs_proc_io(const struct rs_proc *p)
{
	uint64_t sum = 0;

	for (int s = 0; s < SCOPE_COUNT; s++)
		for (int c = 0; c < CLS_COUNT; c++)
			sum += p->io_ns[s][c];
	return sum;
}

double rs_cache_hit_ratio(uint64_t miss, uint64_t read_bytes)
{
	if (!read_bytes)
		return -1;
	return miss >= read_bytes ? 0 : 1 - (double)miss / (double)read_bytes;
}

struct sort_ctx {
	double (*key)(const struct report_stats *, uint32_t);
	const struct report_stats *st;
	double *keys;
};

static int by_key_desc(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *c = arg;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;

	if (c->keys[i] != c->keys[j])
		return c->keys[i] < c->keys[j] ? 1 : -1;
	return i < j ? -1 : i > j;
}

uint32_t *rs_sorted(uint32_t n, double (*key)(const struct report_stats *, uint32_t),
		    const struct report_stats *st)
{
	uint32_t *idx = malloc((n ? n : 1) * sizeof(*idx));
	double *keys = malloc((n ? n : 1) * sizeof(*keys));
	struct sort_ctx c = {key, st, keys};

	if (!idx || !keys) {
		free(idx);
		free(keys);
		return NULL;
	}
	for (uint32_t i = 0; i < n; i++) {
		idx[i] = i;
		keys[i] = key(st, i);
	}
	qsort_r(idx, n, sizeof(*idx), by_key_desc, &c);
	free(keys);
	return idx;
}

/* ---- files ---- */

struct window {
	uint64_t first, last, bytes;
};

static int by_first(const void *a, const void *b)
{
	const struct window *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

/*
 * Bytes read by several processes at the same time: the readers that read
 * at least half of the file (not counting what they re-read within an
 * open, counted apart), whose first-to-last read windows overlap an earlier
 * reader's; each such reader adds what it read (at most the file).
 */
static uint64_t concurrent_duplicates(struct report_stats *st, struct rs_file *f,
				      struct window **buf, uint32_t *cap)
{
	uint32_t n = 0;
	uint64_t dup = 0, reach = 0;

	if (f->readers < 2 || !f->extent)
		return 0;
	for (uint32_t pi = f->first_pair; pi != NONE32; pi = st->pairs[pi].next) {
		const struct rs_pair *p = &st->pairs[pi];
		uint64_t net =
		    p->bytes_read - (p->reread < p->bytes_read ? p->reread : p->bytes_read);

		if (!p->has_read || net * 2 < f->extent)
			continue;
		if (n == *cap) {
			uint32_t c = *cap ? *cap * 2 : 16;
			struct window *w = realloc(*buf, c * sizeof(*w));

			if (!w)
				return dup;
			*buf = w;
			*cap = c;
		}
		(*buf)[n++] = (struct window){p->first_read_ns, p->last_read_ns, net};
	}
	if (n < 2)
		return 0;
	qsort(*buf, n, sizeof(**buf), by_first);
	for (uint32_t i = 0; i < n; i++) {
		const struct window *w = &(*buf)[i];

		if (i && w->first < reach)
			dup += w->bytes < f->extent ? w->bytes : f->extent;
		if (w->last > reach)
			reach = w->last;
	}
	return dup;
}

static void derive_files(struct report_stats *st)
{
	struct window *buf = NULL;
	uint32_t cap = 0;

	for (uint32_t i = 0; i < st->nfiles; i++) {
		struct rs_file *f = &st->files[i];
		uint64_t e = f->file_size;

		if (f->max_byte_read >= 0 && (uint64_t)f->max_byte_read + 1 > e)
			e = f->max_byte_read + 1;
		if (f->max_byte_written >= 0 && (uint64_t)f->max_byte_written + 1 > e)
			e = f->max_byte_written + 1;
		f->extent = e;
		if (f->scope != SCOPE_APP)
			continue;
		st->redundant_in_open += f->reread_within_open;
		f->concurrent_dup_bytes = concurrent_duplicates(st, f, &buf, &cap);
		st->concurrent_dup += f->concurrent_dup_bytes;
		if (f->bytes_read) {
			/* passes: what was read, less what was read twice within one open
			 * or by several processes at the same time */
			uint64_t red = f->reread_within_open + f->concurrent_dup_bytes;
			uint64_t net = f->bytes_read > red ? f->bytes_read - red : 0;

			f->passes = e ? (double)net / (double)e : 0;
			st->files_read++;
			st->dataset_bytes += e;
			if (f->passes >= 1.5)
				st->files_reread++;
			else
				st->files_read_once++;
		}
		if (f->bytes_written || f->writes)
			st->files_written++;
		if (f->reads || f->writes || f->opens)
			st->size_bins_files[rs_size_bin(e)]++;
	}
	free(buf);
}

/* ---- processes: parents, the training thread, groups ---- */

static void derive_parents(struct report_stats *st)
{
	for (uint32_t i = 0; i < st->nprocs; i++) {
		struct rs_proc *p = &st->procs[i];
		uint32_t j;

		p->parent = NONE32;
		if (!p->ppid)
			continue;
		j = u64_index_get(&st->proc_ix, (uint64_t)p->trace << 32 | p->ppid);
		if (j != U64_NONE && j != i)
			p->parent = j;
	}
}

static bool app_active(const struct rs_proc *p)
{
	return p->app_reads || p->app_writes || p->io_ns[SCOPE_APP][CLS_META] ||
	       p->io_ns[SCOPE_APP][CLS_SYNC];
}

/*
 * The training thread: the main thread of the traced command; when that
 * process is only a launcher (no application I/O, and it started other
 * programs), the main thread of the first program it started, recursively.
 */
static void derive_training_thread(struct report_stats *st)
{
	uint32_t root = NONE32, depth = 0;

	for (uint32_t i = 0; i < st->nprocs; i++) {
		const struct rs_proc *p = &st->procs[i];

		if (p->trace != 0 || p->parent != NONE32 || !p->threads)
			continue;
		if (root == NONE32 || p->first_ns < st->procs[root].first_ns)
			root = i;
	}
	while (root != NONE32 && depth++ < 64 && !app_active(&st->procs[root])) {
		uint32_t next = NONE32;

		for (uint32_t i = 0; i < st->nprocs; i++) {
			const struct rs_proc *c = &st->procs[i];

			if (c->parent != root || !c->threads || c->name == st->procs[root].name)
				continue;
			if (next == NONE32 || c->first_ns < st->procs[next].first_ns)
				next = i;
		}
		if (next == NONE32)
			break;
		root = next;
	}
	if (root == NONE32)
		return;
	for (uint32_t i = 0; i < st->nthreads; i++) {
		const struct rs_thread *t = &st->threads[i];

		if (t->proc != root)
			continue;
		if (t->tid == st->procs[root].pid) {
			st->training_thread = i;
			return;
		}
		if (st->training_thread == NONE32 ||
		    rs_thread_io(t) > rs_thread_io(&st->threads[st->training_thread]))
			st->training_thread = i;
	}
}

static int by_family(const void *a, const void *b, void *arg)
{
	const struct report_stats *st = arg;
	const struct rs_proc *x = &st->procs[*(const uint32_t *)a];
	const struct rs_proc *y = &st->procs[*(const uint32_t *)b];

	if (x->trace != y->trace)
		return x->trace < y->trace ? -1 : 1;
	if (x->ppid != y->ppid)
		return x->ppid < y->ppid ? -1 : 1;
	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static uint64_t proc_app_bytes(const struct rs_proc *p)
{
	return p->app_bytes_read + p->app_bytes_written;
}

static uint64_t proc_app_io(const struct rs_proc *p)
{
	return p->io_ns[SCOPE_APP][CLS_DATA] + p->io_ns[SCOPE_APP][CLS_META] +
	       p->io_ns[SCOPE_APP][CLS_SYNC];
}

/* Peer `index` moved `bytes` in `io` ns: widen the spread (first: the first peer). */
static void spread_add(struct rs_spread *s, bool first, uint32_t index, uint64_t bytes, uint64_t io)
{
	if (first || bytes < s->bytes_min) {
		s->bytes_min = bytes;
		s->least = index;
	}
	if (first || bytes > s->bytes_max) {
		s->bytes_max = bytes;
		s->most = index;
	}
	if (first || io < s->io_min) {
		s->io_min = io;
		s->fastest = index;
	}
	if (first || io > s->io_max) {
		s->io_max = io;
		s->slowest = index;
	}
	s->bytes_imbalance =
	    s->bytes_max ? (double)(s->bytes_max - s->bytes_min) / s->bytes_max : 0;
	s->time_imbalance = s->io_max ? (double)(s->io_max - s->io_min) / s->io_max : 0;
}

/*
 * Peers for the balance: processes of the same parent running the same
 * command line (DataLoader workers, MPI ranks, torchrun ranks), when the
 * group moved application bytes.
 */
static void derive_groups(struct report_stats *st)
{
	uint32_t *order, n = 0;

	order = malloc((st->nprocs ? st->nprocs : 1) * sizeof(*order));
	st->group_members = malloc((st->nprocs ? st->nprocs : 1) * sizeof(*st->group_members));
	st->groups = malloc((st->nprocs ? st->nprocs : 1) * sizeof(*st->groups));
	if (!order || !st->group_members || !st->groups) {
		free(order);
		st->oom = true;
		return;
	}
	for (uint32_t i = 0; i < st->nprocs; i++)
		if (st->procs[i].ppid && st->procs[i].threads)
			order[n++] = i;
	qsort_r(order, n, sizeof(*order), by_family, st);
	for (uint32_t a = 0; a < n;) {
		const struct rs_proc *first = &st->procs[order[a]];
		uint32_t b = a + 1;
		uint64_t total = 0;

		while (b < n && st->procs[order[b]].trace == first->trace &&
		       st->procs[order[b]].ppid == first->ppid &&
		       st->procs[order[b]].name == first->name)
			b++;
		for (uint32_t i = a; i < b; i++)
			total += proc_app_bytes(&st->procs[order[i]]);
		if (b - a >= 2 && total) {
			struct rs_group *g = &st->groups[st->ngroups++];
			uint32_t base = 0;

			for (uint32_t k = 0; k + 1 < st->ngroups; k++)
				base += st->groups[k].members;
			memset(g, 0, sizeof(*g));
			g->first = base;
			g->members = b - a;
			g->parent =
			    u64_index_get(&st->proc_ix, (uint64_t)first->trace << 32 | first->ppid);
			if (g->parent == U64_NONE)
				g->parent = NONE32;
			g->name = first->name;
			for (uint32_t i = a; i < b; i++) {
				uint32_t pi = order[i];
				const struct rs_proc *p = &st->procs[pi];

				st->group_members[base + i - a] = pi;
				spread_add(&g->spread, i == a, pi, proc_app_bytes(p),
					   proc_app_io(p));
			}
		}
		a = b;
	}
	free(order);
}

/* ---- mounts, job ---- */

static void derive_mounts(struct report_stats *st)
{
	char **prefix = calloc(st->nmounts ? st->nmounts : 1, sizeof(*prefix));
	uint32_t *plen = calloc(st->nmounts ? st->nmounts : 1, sizeof(*plen));

	if (!prefix || !plen) {
		free(prefix);
		free(plen);
		return;
	}
	for (uint32_t i = 0; i < st->nfiles; i++) {
		const struct rs_file *f = &st->files[i];
		const char *name;
		uint32_t len, m = f->mount, k = 0;

		if (m == NONE32)
			continue;
		name = rs_str(st, f->name);
		len = rs_strlen(st, f->name);
		if (!prefix[m]) {
			prefix[m] = (char *)name;
			plen[m] = len;
			continue;
		}
		while (k < plen[m] && k < len && prefix[m][k] == name[k])
			k++;
		plen[m] = k;
	}
	for (uint32_t m = 0; m < st->nmounts; m++) {
		uint32_t n = plen[m];

		if (!prefix[m])
			continue;
		if (st->mounts[m].files > 1) {
			/* cut back to a whole directory name */
			while (n > 0 && prefix[m][n] != '/' && prefix[m][n] != 0)
				n--;
			if (n == 0)
				n = 1; /* "/" */
		} else {
			while (n > 1 && prefix[m][n - 1] != '/')
				n--;
			if (n > 1)
				n--;
		}
		st->mounts[m].prefix = string_index_put(&st->strings, prefix[m], n);
		if (st->mounts[m].prefix == STRING_NONE)
			st->mounts[m].prefix = NONE32;
	}
	free(prefix);
	free(plen);
}

/* The nodes: traces grouped by hostname, with their processes' figures. */
static void derive_hosts(struct report_stats *st)
{
	uint32_t n = st->ntraces ? st->ntraces : 1;

	st->hosts = calloc(n, sizeof(*st->hosts));
	st->host_of_trace = calloc(n, sizeof(*st->host_of_trace));
	if (!st->hosts || !st->host_of_trace) {
		st->oom = true;
		return;
	}
	for (uint32_t t = 0; t < st->ntraces; t++) {
		const struct rs_trace *tr = &st->traces[t];
		uint32_t h = 0;

		while (h < st->nhosts && st->hosts[h].hostname != tr->hostname)
			h++;
		if (h == st->nhosts) {
			st->hosts[h].hostname = tr->hostname;
			st->hosts[h].first_ns = UINT64_MAX;
			st->nhosts++;
		}
		st->host_of_trace[t] = h;
		st->hosts[h].traces++;
		st->hosts[h].events += tr->events;
		st->hosts[h].lost_events += tr->lost_events;
	}
	for (uint32_t i = 0; i < st->nprocs; i++) {
		const struct rs_proc *p = &st->procs[i];
		struct rs_host *h;

		if (p->trace >= st->ntraces || !p->threads)
			continue;
		h = &st->hosts[st->host_of_trace[p->trace]];
		h->procs++;
		h->threads += p->threads;
		h->bytes_read += p->app_bytes_read;
		h->bytes_written += p->app_bytes_written;
		h->io_ns += proc_app_io(p);
		h->calls += p->calls;
		h->failed += p->failed;
		if (p->first_ns < h->first_ns)
			h->first_ns = p->first_ns;
		if (p->last_ns > h->last_ns)
			h->last_ns = p->last_ns;
	}
	for (uint32_t h = 0; h < st->nhosts; h++) {
		struct rs_host *x = &st->hosts[h];

		if (x->first_ns == UINT64_MAX)
			x->first_ns = 0;
		spread_add(&st->host_spread, h == 0, h, x->bytes_read + x->bytes_written, x->io_ns);
	}
}

static void derive_job(struct report_stats *st)
{
	for (uint32_t t = 0; t < st->ntraces; t++) {
		const struct rs_trace *tr = &st->traces[t];
		uint64_t end = (uint64_t)tr->offset_ns + tr->duration_ns;

		if (tr->end_ns > end)
			end = tr->end_ns;
		if (end > st->traces_end_ns)
			st->traces_end_ns = end;
	}
	/* the job's wall time: from its first to its last event */
	if (st->nprocs) {
		uint64_t first = UINT64_MAX, last = 0;

		for (uint32_t i = 0; i < st->nprocs; i++) {
			if (!st->procs[i].threads)
				continue;
			if (st->procs[i].first_ns < first)
				first = st->procs[i].first_ns;
			if (st->procs[i].last_ns > last)
				last = st->procs[i].last_ns;
		}
		if (last > first) {
			st->job_start_ns = first;
			st->wall_ns = last - first;
		}
	}
	if (!st->wall_ns)
		st->wall_ns = st->traces_end_ns;
	for (uint32_t i = 0; i < st->nprocs; i++)
		if (st->procs[i].threads)
			st->nprocs_active++;
	derive_hosts(st);
}

void rs_derive(struct report_stats *st)
{
	if (st->derived)
		return;
	st->derived = true;
	rs_finish_input(st);
	derive_files(st);
	derive_parents(st);
	derive_training_thread(st);
	derive_groups(st);
	derive_mounts(st);
	derive_job(st);
	rs_phases_derive(st);
	rs_gpu_derive(st); /* after the phases: their steps when the profiler gave none */
}

void rs_timeline_range(const struct report_stats *st, uint32_t *first, uint32_t *n)
{
	uint64_t a = st->job_start_ns / st->tl_width,
		 b = (st->job_start_ns + st->wall_ns) / st->tl_width;

	if (b >= TIMELINE_BINS)
		b = TIMELINE_BINS - 1;
	if (a > b)
		a = b;
	*first = a;
	*n = b - a + 1;
}
