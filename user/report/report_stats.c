// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Accumulating the report's figures from the events of one or more traces. */
#define _GNU_SOURCE
#include "report/report_stats.h"

#include <stdlib.h>
#include <string.h>

#include <stdio.h>

#include "event/event_args.h"
#include "event/syscall_table.h"
#include "lib/fs_names.h"

const char *const rs_size_bin_names[SIZE_BINS] = {
    "0-100", "100-1K", "1K-10K",   "10K-100K", "100K-1M",
    "1M-4M", "4M-10M", "10M-100M", "100M-1G",  "1G+",
};

int rs_size_bin(uint64_t b)
{
	/* Darshan's DARSHAN_BUCKET_INC: upper bounds inclusive */
	static const uint64_t upper[SIZE_BINS - 1] = {
	    100, 1024, 10240, 102400, 1048576, 4194304, 10485760, 104857600, 1073741824,
	};

	for (int i = 0; i < SIZE_BINS - 1; i++)
		if (b <= upper[i])
			return i;
	return SIZE_BINS - 1;
}

const char *rs_class_name(int cls)
{
	return cls == CLS_DATA ? "data" : cls == CLS_SYNC ? "sync" : "metadata";
}

/* Offsets and sizes beyond this come from damaged input; sums stay in int64. */
#define VALUE_MAX ((int64_t)1 << 61)

void rs_init(struct report_stats *st)
{
	memset(st, 0, sizeof(*st));
	string_index_init(&st->strings);
	u64_index_init(&st->proc_ix);
	u64_index_init(&st->thread_ix);
	u64_index_init(&st->pair_ix);
	u64_index_init(&st->file_ix);
	u64_index_init(&st->dir_ix);
	u64_index_init(&st->mount_ix);
	u64_index_init(&st->size_ix);
	for (int s = 0; s < SCOPE_COUNT; s++)
		for (int k = 0; k < DL_SYS_COUNT; k++) {
			sketch_init(&st->sys[s][k].size);
			sketch_init(&st->sys[s][k].lat);
		}
	sketch_init(&st->layers.block_lat);
	st->layers.active = NONE32;
	st->tl_width = 1000000; /* 1 ms, doubled as needed */
	st->training_thread = NONE32;
	st->cache_thread_key = UINT64_MAX;
}

void rs_free(struct report_stats *st)
{
	for (int s = 0; s < SCOPE_COUNT; s++)
		for (int k = 0; k < DL_SYS_COUNT; k++) {
			sketch_free(&st->sys[s][k].size);
			sketch_free(&st->sys[s][k].lat);
		}
	sketch_free(&st->layers.block_lat);
	string_index_free(&st->strings);
	u64_index_free(&st->proc_ix);
	u64_index_free(&st->thread_ix);
	u64_index_free(&st->pair_ix);
	u64_index_free(&st->file_ix);
	u64_index_free(&st->dir_ix);
	u64_index_free(&st->mount_ix);
	u64_index_free(&st->size_ix);
	free(st->traces);
	free(st->procs);
	free(st->threads);
	free(st->files);
	free(st->pairs);
	free(st->dirs);
	free(st->mounts);
	free(st->file_of_string);
	free(st->sizes);
	free(st->groups);
	free(st->hosts);
	free(st->host_of_trace);
	free(st->group_members);
	memset(st, 0, sizeof(*st));
}

/* Make room for one more element; NULL (and st->oom) when out of memory. */
static void *grow(struct report_stats *st, void **arr, uint32_t *cap, uint32_t n, size_t elem)
{
	if (n == *cap) {
		uint32_t c = *cap ? *cap * 2 : 64;
		void *a;

		if (*cap >= UINT32_MAX / 2) {
			st->oom = true;
			return NULL;
		}
		a = realloc(*arr, (size_t)c * elem);
		if (!a) {
			st->oom = true;
			return NULL;
		}
		*arr = a;
		*cap = c;
	}
	return (char *)*arr + (size_t)n * elem;
}
#define GROW(st, arr, cap, n) grow((st), (void **)&(arr), &(cap), (n), sizeof(*(arr)))

void rs_set_origin(struct report_stats *st, int64_t wall_ns)
{
	st->origin_wall_ns = wall_ns;
	st->origin_set = true;
}

int rs_begin_trace(struct report_stats *st, const char *file)
{
	struct rs_trace *t;

	/* traces are few: grow exactly */
	t = realloc(st->traces, (st->ntraces + 1) * sizeof(*t));
	if (!t) {
		st->oom = true;
		return -1;
	}
	st->traces = t;
	t = &st->traces[st->ntraces];
	memset(t, 0, sizeof(*t));
	t->file = file;
	t->hostname = t->kernel = t->target = t->version = t->start_wall = t->stop_reason = NONE32;
	st->cur = st->ntraces++;
	st->cache_thread_key = UINT64_MAX;
	return 0;
}

void rs_end_trace(struct report_stats *st, const struct trace_read_status *status)
{
	if (st->ntraces)
		st->traces[st->cur].status = *status;
}

static uint32_t intern(struct report_stats *st, const struct ev_str *s)
{
	uint32_t id;

	if (!s->s)
		return NONE32;
	id = string_index_put(&st->strings, s->s, s->len);
	if (id == STRING_NONE)
		st->oom = true;
	return id;
}

/* ---- processes and threads ---- */

static uint32_t proc_get(struct report_stats *st, uint32_t pid, uint64_t now)
{
	uint64_t key = (uint64_t)st->cur << 32 | pid;
	uint32_t i = u64_index_get(&st->proc_ix, key);
	struct rs_proc *p;

	if (i != U64_NONE)
		return i;
	p = GROW(st, st->procs, st->cap_procs, st->nprocs);
	if (!p)
		return NONE32;
	memset(p, 0, sizeof(*p));
	p->trace = st->cur;
	p->pid = pid;
	p->name = NONE32;
	p->parent = NONE32;
	p->first_ns = now;
	p->last_ns = now;
	if (u64_index_put(&st->proc_ix, key, st->nprocs)) {
		st->oom = true;
		return NONE32;
	}
	return st->nprocs++;
}

static uint32_t thread_get(struct report_stats *st, uint32_t pid, uint32_t tid, uint64_t now)
{
	uint64_t key = (uint64_t)st->cur << 32 | tid;
	uint32_t i, p;
	struct rs_thread *t;

	if (key == st->cache_thread_key)
		return st->cache_thread;
	i = u64_index_get(&st->thread_ix, key);
	if (i == U64_NONE) {
		p = proc_get(st, pid, now);
		if (p == NONE32)
			return NONE32;
		t = GROW(st, st->threads, st->cap_threads, st->nthreads);
		if (!t)
			return NONE32;
		memset(t, 0, sizeof(*t));
		t->proc = p;
		t->tid = tid;
		t->comm = NONE32;
		t->first_ns = t->last_ns = now;
		st->procs[p].threads++;
		if (u64_index_put(&st->thread_ix, key, st->nthreads)) {
			st->oom = true;
			return NONE32;
		}
		i = st->nthreads++;
	}
	st->cache_thread_key = key;
	st->cache_thread = i;
	return i;
}

static void seen(struct report_stats *st, uint32_t ti, uint64_t start, uint64_t end)
{
	struct rs_thread *t = &st->threads[ti];
	struct rs_proc *p = &st->procs[t->proc];

	if (start < t->first_ns)
		t->first_ns = start;
	if (end > t->last_ns)
		t->last_ns = end;
	if (start < p->first_ns)
		p->first_ns = start;
	if (end > p->last_ns)
		p->last_ns = end;
	if (end > st->last_ns)
		st->last_ns = end;
	if (end > st->traces[st->cur].end_ns)
		st->traces[st->cur].end_ns = end;
}

/* ---- files, pairs, directories, mounts ---- */

static uint32_t dir_get(struct report_stats *st, const char *path, uint32_t len, uint8_t scope)
{
	uint32_t n = len, name, i;
	struct rs_dir *d;

	while (n > 1 && path[n - 1] != '/')
		n--;
	if (n > 1)
		n--; /* drop the slash, keep "/" for the root */
	name = string_index_put(&st->strings, path, n);
	if (name == STRING_NONE) {
		st->oom = true;
		return NONE32;
	}
	i = u64_index_get(&st->dir_ix, name);
	if (i != U64_NONE)
		return i;
	d = GROW(st, st->dirs, st->cap_dirs, st->ndirs);
	if (!d)
		return NONE32;
	memset(d, 0, sizeof(*d));
	d->name = name;
	d->scope = scope;
	if (u64_index_put(&st->dir_ix, name, st->ndirs)) {
		st->oom = true;
		return NONE32;
	}
	return st->ndirs++;
}

static uint32_t file_get(struct report_stats *st, const struct ev_str *path, uint8_t scope,
			 uint8_t env, uint64_t now)
{
	uint32_t name = string_index_put(&st->strings, path->s, path->len), i;
	struct rs_file *f;

	if (name == STRING_NONE) {
		st->oom = true;
		return NONE32;
	}
	i = u64_index_get(&st->file_ix, name);
	if (i != U64_NONE)
		return i;
	f = GROW(st, st->files, st->cap_files, st->nfiles);
	if (!f)
		return NONE32;
	memset(f, 0, sizeof(*f));
	f->name = name;
	f->scope = scope;
	f->env = env;
	f->mount = NONE32;
	f->first_pair = NONE32;
	f->max_byte_read = f->max_byte_written = -1;
	f->first_ns = f->last_ns = now;
	f->dir = dir_get(st, path->s, path->len, scope);
	if (f->dir != NONE32)
		st->dirs[f->dir].files++;
	if (env < ENV_COUNT)
		st->env[env].files++;
	if (u64_index_put(&st->file_ix, name, st->nfiles)) {
		st->oom = true;
		return NONE32;
	}
	return st->nfiles++;
}

static uint32_t pair_get(struct report_stats *st, uint32_t proc, uint32_t file)
{
	uint64_t key = (uint64_t)proc << 32 | file;
	uint32_t i = u64_index_get(&st->pair_ix, key);
	struct rs_pair *p;

	if (i != U64_NONE)
		return i;
	p = GROW(st, st->pairs, st->cap_pairs, st->npairs);
	if (!p)
		return NONE32;
	memset(p, 0, sizeof(*p));
	p->proc = proc;
	p->file = file;
	p->next = st->files[file].first_pair;
	st->files[file].first_pair = st->npairs;
	st->files[file].procs++;
	if (u64_index_put(&st->pair_ix, key, st->npairs)) {
		st->oom = true;
		return NONE32;
	}
	return st->npairs++;
}

static void mount_set(struct report_stats *st, struct rs_file *f, const struct ev_syscall *s)
{
	const char *fs_known = fs_name(s->fs_magic);
	char dev_text[32], fs_text[16];
	struct ev_str dev_s, fs_s;
	uint32_t dev, fs, i;
	struct rs_mount *m;

	if (!(s->flags & EVS_IDENTITY))
		return;
	dev_s.len = snprintf(dev_text, sizeof(dev_text), "%u:%u", s->dev >> 20, s->dev & 0xfffff);
	dev_s.s = dev_text;
	if (fs_known) {
		fs_s = (struct ev_str){fs_known, strlen(fs_known)};
	} else {
		fs_s.len = snprintf(fs_text, sizeof(fs_text), "0x%x", s->fs_magic);
		fs_s.s = fs_text;
	}
	dev = intern(st, &dev_s);
	fs = intern(st, &fs_s);
	if (dev == NONE32)
		return;
	i = u64_index_get(&st->mount_ix, (uint64_t)dev << 32 | fs);
	if (i == U64_NONE) {
		m = GROW(st, st->mounts, st->cap_mounts, st->nmounts);
		if (!m)
			return;
		memset(m, 0, sizeof(*m));
		m->dev = dev;
		m->fs = fs;
		m->prefix = NONE32;
		if (u64_index_put(&st->mount_ix, (uint64_t)dev << 32 | fs, st->nmounts)) {
			st->oom = true;
			return;
		}
		i = st->nmounts++;
	}
	if (f->mount == i)
		return;
	if (f->mount == NONE32)
		st->mounts[i].files++;
	f->mount = i;
}

/* ---- distributions ---- */

static void count_size(struct report_stats *st, int dir, uint64_t bytes)
{
	uint64_t key = (uint64_t)dir << 63 | (bytes & ~(1ull << 63));
	uint32_t i = u64_index_get(&st->size_ix, key);

	if (i == U64_NONE) {
		if (st->nsizes >= SIZE_KEYS_MAX) {
			st->sizes_uncounted++;
			return;
		}
		if (!GROW(st, st->sizes, st->cap_sizes, st->nsizes))
			return;
		if (u64_index_put(&st->size_ix, key, st->nsizes)) {
			st->oom = true;
			return;
		}
		i = st->nsizes++;
		st->sizes[i].key = key;
		st->sizes[i].count = 0;
	}
	st->sizes[i].count++;
}

static void timeline_fold(struct report_stats *st)
{
	for (int i = 0; i < TIMELINE_BINS / 2; i++) {
		st->tl_read[i] = st->tl_read[2 * i] + st->tl_read[2 * i + 1];
		st->tl_write[i] = st->tl_write[2 * i] + st->tl_write[2 * i + 1];
		st->tl_meta[i] = st->tl_meta[2 * i] + st->tl_meta[2 * i + 1];
	}
	memset(st->tl_read + TIMELINE_BINS / 2, 0, sizeof(st->tl_read) / 2);
	memset(st->tl_write + TIMELINE_BINS / 2, 0, sizeof(st->tl_write) / 2);
	memset(st->tl_meta + TIMELINE_BINS / 2, 0, sizeof(st->tl_meta) / 2);
	st->tl_width *= 2;
}

/* Spread bytes over [start, end) of report time. */
static void timeline_add(struct report_stats *st, uint64_t *bins, uint64_t start, uint64_t end,
			 uint64_t bytes)
{
	uint64_t first, last;

	if (end < start)
		end = start;
	while (end / st->tl_width >= TIMELINE_BINS && st->tl_width < (UINT64_MAX >> 10))
		timeline_fold(st);
	first = start / st->tl_width;
	last = end / st->tl_width;
	if (last >= TIMELINE_BINS)
		last = TIMELINE_BINS - 1;
	if (first > last)
		first = last;
	if (first == last || !bytes) {
		bins[last] += bytes;
		return;
	}
	uint64_t span = end - start, given = 0;

	for (uint64_t b = first; b <= last; b++) {
		uint64_t lo = b * st->tl_width, hi = lo + st->tl_width;
		uint64_t part;

		if (lo < start)
			lo = start;
		if (hi > end)
			hi = end;
		part = b == last ? bytes - given
				 : (uint64_t)((double)bytes * (double)(hi - lo) / (double)span);
		if (part > bytes - given)
			part = bytes - given;
		bins[b] += part;
		given += part;
	}
}

static void errno_count(struct report_stats *st, const struct ev_str *err, int scope)
{
	uint32_t i;

	for (i = 0; i < st->nerrnos; i++) {
		if (strlen(st->errnos[i].name) == err->len &&
		    !memcmp(st->errnos[i].name, err->s, err->len))
			break;
	}
	if (i == st->nerrnos) {
		if (i == ERRNO_KEEP || err->len >= sizeof(st->errnos[0].name)) {
			st->errnos_other++;
			return;
		}
		memcpy(st->errnos[i].name, err->s, err->len);
		st->errnos[i].name[err->len] = 0;
		st->nerrnos++;
	}
	st->errnos[i].count[scope]++;
}

/* ---- write bursts (checkpoints) ---- */

static void burst_close(struct report_stats *st, uint32_t ti)
{
	struct rs_thread *t = &st->threads[ti];
	struct rs_burst b;
	uint32_t k;

	if (!t->b_on)
		return;
	t->b_on = false;
	if (t->b_bytes < BURST_MIN)
		return;
	t->bursts++;
	t->burst_bytes += t->b_bytes;
	t->burst_blocked_ns += t->b_blocked;
	st->bursts++;
	st->burst_bytes += t->b_bytes;
	st->burst_blocked_ns += t->b_blocked;
	b = (struct rs_burst){ti,	t->b_file,  t->b_ops,	 t->b_start,
			      t->b_end, t->b_bytes, t->b_blocked};
	/* keep the BURST_KEEP that blocked longest, in order */
	if (st->nbursts_kept < BURST_KEEP) {
		k = st->nbursts_kept++;
	} else {
		if (st->top_bursts[BURST_KEEP - 1].blocked_ns >= b.blocked_ns)
			return;
		k = BURST_KEEP - 1;
	}
	while (k > 0 && st->top_bursts[k - 1].blocked_ns < b.blocked_ns) {
		st->top_bursts[k] = st->top_bursts[k - 1];
		k--;
	}
	st->top_bursts[k] = b;
}

static void burst_add(struct report_stats *st, uint32_t ti, uint32_t file, uint64_t start,
		      uint64_t end, uint64_t bytes)
{
	struct rs_thread *t = &st->threads[ti];

	if (t->b_on && start > t->b_end + BURST_GAP_NS)
		burst_close(st, ti);
	if (!t->b_on) {
		t->b_on = true;
		t->b_start = start;
		t->b_end = end;
		t->b_file = file;
		t->b_bytes = t->b_blocked = 0;
		t->b_ops = 0;
	}
	if (end > t->b_end)
		t->b_end = end;
	t->b_bytes += bytes;
	t->b_blocked += end - start;
	t->b_ops++;
}

/* ---- data accesses (application files) ---- */

struct access {
	uint32_t ti, file, pair;
	bool has_offset;
	int64_t offset;
	uint64_t bytes, start, end;
};

static void session_add(struct rs_pair *p, int64_t off, uint64_t bytes)
{
	int64_t end = off + (int64_t)bytes;

	if (!p->sess_on) {
		p->sess_on = true;
		p->sess_min = off;
		p->sess_end = end;
		p->sess_bytes = 0;
	}
	if (off < p->sess_min)
		p->sess_min = off;
	if (end > p->sess_end)
		p->sess_end = end;
	p->sess_bytes += bytes;
}

void rs_session_end(struct report_stats *st, struct rs_pair *p)
{
	uint64_t span;

	if (!p->sess_on)
		return;
	p->sess_on = false;
	span = p->sess_end > p->sess_min ? (uint64_t)(p->sess_end - p->sess_min) : 0;
	if (p->sess_bytes > span) {
		st->files[p->file].reread_within_open += p->sess_bytes - span;
		p->reread += p->sess_bytes - span;
	}
}

static void app_read(struct report_stats *st, const struct access *a)
{
	struct rs_file *f = &st->files[a->file];
	struct rs_pair *p = a->pair != NONE32 ? &st->pairs[a->pair] : NULL;
	struct rs_totals *t = &st->tot[SCOPE_APP];
	struct rs_thread *th = &st->threads[a->ti];
	struct rs_proc *pr = &st->procs[th->proc];
	uint64_t dur = a->end - a->start;

	f->reads++;
	f->bytes_read += a->bytes;
	f->read_ns += dur;
	t->reads++;
	t->bytes_read += a->bytes;
	t->read_ns += dur;
	st->hist[IO_DIR_READ][rs_size_bin(a->bytes)]++;
	count_size(st, IO_DIR_READ, a->bytes);
	if (a->bytes < SMALL_IO) {
		f->small_reads++;
		t->small_reads++;
	}
	th->app_read_ns += dur;
	th->app_bytes_read += a->bytes;
	th->app_reads++;
	pr->app_bytes_read += a->bytes;
	pr->app_reads++;
	pr->app_read_ns += dur;
	timeline_add(st, st->tl_read, a->start, a->end, a->bytes);
	if (!p)
		return;
	if (!p->has_read) {
		f->readers++;
		p->first_read_ns = a->start;
	}
	p->last_read_ns = a->end;
	p->bytes_read += a->bytes;
	if (p->last_io == 2) {
		f->rw_switches++;
		t->rw_switches++;
	}
	p->last_io = 1;
	if (!a->has_offset) {
		t->no_offset++;
	} else {
		bool seq = a->offset > p->last_byte_read;

		if (seq) {
			f->seq_reads++;
			t->seq_reads++;
		}
		if (a->offset == p->last_byte_read + 1) {
			f->consec_reads++;
			t->consec_reads++;
		}
		if (!seq && !(!p->has_read && a->offset == 0)) {
			f->random_reads++;
			t->random_reads++;
		}
		p->last_byte_read = a->offset + (int64_t)a->bytes - 1;
		if (a->bytes && p->last_byte_read > f->max_byte_read)
			f->max_byte_read = p->last_byte_read;
		session_add(p, a->offset, a->bytes);
	}
	p->has_read = true;
}

static void app_write(struct report_stats *st, const struct access *a)
{
	struct rs_file *f = &st->files[a->file];
	struct rs_pair *p = a->pair != NONE32 ? &st->pairs[a->pair] : NULL;
	struct rs_totals *t = &st->tot[SCOPE_APP];
	struct rs_thread *th = &st->threads[a->ti];
	struct rs_proc *pr = &st->procs[th->proc];
	uint64_t dur = a->end - a->start;

	f->writes++;
	f->bytes_written += a->bytes;
	f->write_ns += dur;
	t->writes++;
	t->bytes_written += a->bytes;
	t->write_ns += dur;
	st->hist[IO_DIR_WRITE][rs_size_bin(a->bytes)]++;
	count_size(st, IO_DIR_WRITE, a->bytes);
	if (a->bytes < SMALL_IO) {
		f->small_writes++;
		t->small_writes++;
	}
	pr->app_bytes_written += a->bytes;
	pr->app_writes++;
	pr->app_write_ns += dur;
	timeline_add(st, st->tl_write, a->start, a->end, a->bytes);
	if (!p)
		return;
	if (p->last_io == 1) {
		f->rw_switches++;
		t->rw_switches++;
	}
	p->last_io = 2;
	if (!a->has_offset) {
		t->no_offset++;
		return;
	}
	if (a->offset > p->last_byte_written) {
		f->seq_writes++;
		t->seq_writes++;
	} else if (!(!p->has_written && a->offset == 0)) {
		f->random_writes++;
		t->random_writes++;
	}
	if (a->offset == p->last_byte_written + 1) {
		f->consec_writes++;
		t->consec_writes++;
	}
	p->last_byte_written = a->offset + (int64_t)a->bytes - 1;
	if (a->bytes && p->last_byte_written > f->max_byte_written)
		f->max_byte_written = p->last_byte_written;
	p->has_written = true;
}

static bool is_read_kind(int k)
{
	const struct syscall_info *si = syscall_info(k);

	return si && si->reads;
}

static bool is_write_kind(int k)
{
	const struct syscall_info *si = syscall_info(k);

	return si && si->writes;
}

static bool is_stat_kind(int k)
{
	return k == DL_SYS_STAT || k == DL_SYS_LSTAT || k == DL_SYS_FSTAT ||
	       k == DL_SYS_NEWFSTATAT || k == DL_SYS_STATX;
}

/* A call that makes a new descriptor from another (fcntl: F_DUPFD, F_DUPFD_CLOEXEC). */
static bool is_dup_call(const struct ev_syscall *s)
{
	if (s->sys == DL_SYS_FCNTL)
		return s->arg_lo == 0 /* F_DUPFD */ || s->arg_lo == 1030 /* F_DUPFD_CLOEXEC */;
	return s->sys == DL_SYS_DUP || s->sys == DL_SYS_DUP2 || s->sys == DL_SYS_DUP3;
}

/* The output side of sendfile/copy_file_range: a write of unknown offset. */
static void second_path_write(struct report_stats *st, uint32_t ti, const struct ev_syscall *s,
			      uint64_t start, uint64_t end)
{
	enum env_kind env;
	uint8_t scope = path_scope(s->path2.name.s, s->path2.name.len, &env);
	struct access a = {ti, NONE32, NONE32, false, 0, (uint64_t)s->ret, start, end};

	if (scope == SCOPE_OTHER) {
		st->tot[SCOPE_OTHER].bytes_written += a.bytes;
		return;
	}
	a.file = file_get(st, &s->path2.name, scope, env, start);
	if (a.file == NONE32)
		return;
	if (scope == SCOPE_ENV) {
		st->files[a.file].bytes_written += a.bytes;
		st->tot[SCOPE_ENV].bytes_written += a.bytes;
		st->env[env].bytes_written += a.bytes;
		return;
	}
	a.pair = pair_get(st, st->threads[ti].proc, a.file);
	app_write(st, &a);
}

static int class_of(unsigned sys)
{
	enum io_class c = syscall_info(sys)->io_class;

	return c == IO_DATA ? CLS_DATA : c == IO_SYNC ? CLS_SYNC : CLS_META;
}

void rs_finish_input(struct report_stats *st)
{
	for (uint32_t i = 0; i < st->nthreads; i++)
		burst_close(st, i);
	for (uint32_t i = 0; i < st->npairs; i++)
		rs_session_end(st, &st->pairs[i]);
}

static void syscall_event(struct report_stats *st, const struct event *ev)
{
	const struct rs_trace *tr = &st->traces[st->cur];
	const struct ev_syscall *s = &ev->sys;
	uint64_t start = (uint64_t)tr->offset_ns + ev->ts, end = start + s->dur;
	int k = s->sys, cls = class_of(k);
	bool failed = s->ret < 0 && s->ret >= -ERRNO_UNKNOWN;
	enum env_kind env = ENV_NONE;
	uint8_t scope = path_scope(s->path.name.s, s->path.name.len, &env);
	struct rs_syscall *sc;
	struct rs_thread *th;
	struct rs_proc *pr;
	struct rs_file *f = NULL;
	struct rs_totals *tot = &st->tot[scope];
	uint32_t ti, fi = NONE32;
	uint64_t dur = s->dur;
	uint64_t moved = !failed && s->ret > 0 ? (uint64_t)s->ret : 0;
	bool has_offset = (s->flags & EVS_OFFSET) && s->offset <= VALUE_MAX;

	if (moved > VALUE_MAX)
		moved = VALUE_MAX; /* damaged input: keep offset arithmetic in range */
	st->syscalls++;
	ti = thread_get(st, ev->pid, ev->tid, start);
	if (ti == NONE32)
		return;
	seen(st, ti, start, end);
	th = &st->threads[ti];
	pr = &st->procs[th->proc];
	th->io_ns[cls] += dur;
	th->calls++;
	pr->io_ns[scope][cls] += dur;
	pr->calls++;
	th->scope_ns[scope] += dur;

	sc = &st->sys[scope][k];
	sc->calls++;
	sc->lat_sum += dur;
	sketch_add(&sc->lat, dur);
	tot->calls++;
	tot->io_ns[cls] += dur;
	if (scope == SCOPE_ENV) {
		st->env[env].calls++;
		st->env[env].io_ns += dur;
	}
	if (failed) {
		char buf[16];
		const char *name = errno_name(-s->ret, buf, sizeof(buf));
		struct ev_str e = {name, strlen(name)};

		sc->failed++;
		tot->failed++;
		pr->failed++;
		if (scope == SCOPE_ENV)
			st->env[env].failed++;
		errno_count(st, &e, scope);
		if (scope != SCOPE_OTHER) {
			uint32_t d = dir_get(st, s->path.name.s, s->path.name.len, scope);

			if (d != NONE32) {
				st->dirs[d].failed++;
				st->dirs[d].io_ns += dur;
			}
		}
		if (scope == SCOPE_APP && (is_write_kind(k) || cls == CLS_SYNC))
			burst_add(st, ti, NONE32, start, end, 0);
		return;
	}

	/* bytes and sizes */
	if (is_read_kind(k) || is_write_kind(k)) {
		sc->bytes += moved;
		sketch_add(&sc->size, moved);
	} else if (k == DL_SYS_MMAP) {
		sketch_add(&sc->size, s->size);
	}
	if (cls == CLS_META && scope == SCOPE_APP)
		timeline_add(st, st->tl_meta, start, end, 1);

	if (scope == SCOPE_OTHER) {
		if (is_read_kind(k)) {
			tot->reads++;
			tot->bytes_read += moved;
		} else if (is_write_kind(k)) {
			tot->writes++;
			tot->bytes_written += moved;
		}
		return;
	}

	fi = file_get(st, &s->path.name, scope, env, start);
	if (fi == NONE32)
		return;
	f = &st->files[fi];
	f->calls++;
	f->io_ns[cls] += dur;
	if (s->flags & EVS_CACHE) {
		uint64_t miss = s->cache_miss_bytes > VALUE_MAX ? VALUE_MAX : s->cache_miss_bytes;

		f->cache_miss += miss;
		f->cache_read_bytes += moved;
		st->layers.cache_miss[scope] += miss;
		st->layers.cache_read_bytes[scope] += moved;
		st->layers.cache_reads++;
	}
	if (start < f->first_ns)
		f->first_ns = start;
	if (end > f->last_ns)
		f->last_ns = end;
	if (f->dir != NONE32)
		st->dirs[f->dir].io_ns += dur;
	if (DL_SYS_OPEN <= k && k <= DL_SYS_CREAT) {
		f->opens++;
		tot->opens++;
		if ((s->flags & EVS_IDENTITY) && s->file_size > f->file_size)
			f->file_size = s->file_size;
		if (scope == SCOPE_APP)
			mount_set(st, f, s);
	}
	if (f->mount != NONE32)
		st->mounts[f->mount].io_ns += dur;
	if (cls == CLS_META) {
		f->meta_ops++;
		tot->meta_ops++;
		if (f->dir != NONE32)
			st->dirs[f->dir].meta_ops++;
	}
	if (is_stat_kind(k)) {
		f->stats++;
		tot->stats++;
	} else if (k == DL_SYS_LSEEK) {
		f->seeks++;
		tot->seeks++;
	} else if (cls == CLS_SYNC) {
		f->syncs++;
		tot->syncs++;
	} else if (k == DL_SYS_MMAP) {
		f->mmaps++;
		tot->mmaps++;
	} else if (syscall_info(k)->io_class == IO_HINT) {
		f->hints++;
		tot->hints++;
	}

	if (scope == SCOPE_ENV) {
		if (is_read_kind(k)) {
			f->reads++;
			f->bytes_read += moved;
			tot->reads++;
			tot->bytes_read += moved;
			st->env[env].bytes_read += moved;
		} else if (is_write_kind(k)) {
			f->writes++;
			f->bytes_written += moved;
			tot->writes++;
			tot->bytes_written += moved;
			st->env[env].bytes_written += moved;
		}
		if ((k == DL_SYS_SENDFILE || k == DL_SYS_COPY_FILE_RANGE) && s->path2.name.len)
			second_path_write(st, ti, s, start, end);
		return;
	}

	/* application file: per-process state */
	uint32_t pi = pair_get(st, th->proc, fi);
	struct rs_pair *p = pi != NONE32 ? &st->pairs[pi] : NULL;
	struct access a = {ti, fi, pi, has_offset, (int64_t)s->offset, moved, start, end};

	f = &st->files[fi];
	if (p && DL_SYS_OPEN <= k && k <= DL_SYS_CREAT) {
		p->open_depth++;
	} else if (p && is_dup_call(s)) {
		p->open_depth++;
	} else if (p && k == DL_SYS_CLOSE) {
		if (p->open_depth > 0)
			p->open_depth--;
		if (!p->open_depth)
			rs_session_end(st, p);
	}
	if (is_read_kind(k)) {
		app_read(st, &a);
		if (st->dirs && f->dir != NONE32) {
			st->dirs[f->dir].reads++;
			st->dirs[f->dir].bytes_read += moved;
		}
		if (f->mount != NONE32)
			st->mounts[f->mount].bytes_read += moved;
		if ((k == DL_SYS_SENDFILE || k == DL_SYS_COPY_FILE_RANGE) && s->path2.name.len)
			second_path_write(st, ti, s, start, end);
	} else if (is_write_kind(k)) {
		app_write(st, &a);
		if (f->dir != NONE32) {
			st->dirs[f->dir].writes++;
			st->dirs[f->dir].bytes_written += moved;
		}
		if (f->mount != NONE32)
			st->mounts[f->mount].bytes_written += moved;
		burst_add(st, ti, fi, start, end, moved);
	} else if (cls == CLS_SYNC || (th->b_on && start <= th->b_end + BURST_GAP_NS)) {
		/* syncs, and the opens, renames and closes around the writes of a burst */
		burst_add(st, ti, fi, start, end, 0);
	}
}

static void process_event(struct report_stats *st, const struct event *ev)
{
	const struct rs_trace *tr = &st->traces[st->cur];
	uint64_t now = (uint64_t)tr->offset_ns + ev->ts;
	uint32_t ti, ci;

	st->process_events++;
	switch (ev->type) {
	case EV_FORK:
		if (!ev->fork.child)
			return;
		if (ev->fork.thread) {
			ti = thread_get(st, ev->pid, ev->fork.child, now);
			if (ti != NONE32) {
				st->threads[ti].started = true;
				st->threads[ti].first_ns = now;
			}
			return;
		}
		ci = proc_get(st, ev->fork.child, now);
		if (ci == NONE32)
			return;
		st->procs[ci].ppid = ev->pid;
		st->procs[ci].started = true;
		if (now < st->procs[ci].first_ns)
			st->procs[ci].first_ns = now;
		return;
	case EV_START:
		ti = thread_get(st, ev->pid, ev->tid, now);
		if (ti == NONE32)
			return;
		seen(st, ti, now, now);
		st->threads[ti].started = true;
		st->threads[ti].first_ns = now;
		if (!ev->fork.thread) {
			struct rs_proc *p = &st->procs[st->threads[ti].proc];

			p->started = true;
			p->first_ns = now;
			if (ev->fork.parent_pid && ev->fork.parent_pid != ev->pid)
				p->ppid = ev->fork.parent_pid;
		}
		return;
	case EV_EXEC:
		ti = thread_get(st, ev->pid, ev->tid, now);
		if (ti == NONE32)
			return;
		seen(st, ti, now, now);
		if (ev->exec.cmdline.len)
			st->procs[st->threads[ti].proc].name = intern(st, &ev->exec.cmdline);
		return;
	case EV_EXIT:
		ti = thread_get(st, ev->pid, ev->tid, now);
		if (ti == NONE32)
			return;
		seen(st, ti, now, now);
		st->threads[ti].exited = true;
		st->threads[ti].last_ns = now;
		burst_close(st, ti);
		if (ev->exit.group_dead) {
			st->procs[st->threads[ti].proc].exited = true;
			st->procs[st->threads[ti].proc].last_ns = now;
		}
		return;
	default:
		return;
	}
}

/* Events of the other capture layers: counted, page faults per file. */
static void layer_event(struct report_stats *st, const struct event *ev)
{
	struct rs_layers *l = &st->layers;
	enum env_kind env;
	uint8_t scope;

	switch (ev->type) {
	case EV_FAULT:
		scope = path_scope(ev->fault.path.name.s, ev->fault.path.name.len, &env);
		l->faults[scope]++;
		if (scope != SCOPE_OTHER) {
			uint32_t fi = file_get(st, &ev->fault.path.name, scope, env,
					       (uint64_t)st->traces[st->cur].offset_ns + ev->ts);

			if (fi != NONE32)
				st->files[fi].faults++;
		}
		return;
	case EV_BLOCK:
		if (ev->block.phase == EV_PH_BEGIN) {
			int op = ev->block.op < 2 ? (int)ev->block.op : 2;

			l->block_requests[op]++;
			if (op < 2)
				l->block_bytes[op] += ev->block.bytes;
		} else {
			sketch_add(&l->block_lat,
				   ev->block.latency_ns >> 60 ? 1ull << 60 : ev->block.latency_ns);
		}
		return;
	case EV_URING:
		if (ev->uring.phase == EV_PH_BEGIN)
			l->uring_requests++;
		return;
	case EV_VFS:
	case EV_VFS_OPEN:
		l->vfs_events++;
		return;
	default:
		return;
	}
}

static void header_event(struct report_stats *st, const struct ev_trace_begin *b)
{
	struct rs_trace *t = &st->traces[st->cur];
	struct ev_arg args[EV_ARGS_MAX];
	char scratch[EV_SCRATCH];
	struct event e = {.type = EV_TRACE_BEGIN, .begin = *b};
	unsigned n = event_args(&e, args, scratch);

	t->hostname = intern(st, &b->hostname);
	t->kernel = intern(st, &b->kernel);
	t->target = intern(st, &b->target);
	t->version = intern(st, &b->version);
	/* the start as the trace shows it (formatted from start_wall_ns when live) */
	for (unsigned i = 0; i < n; i++)
		if (args[i].key.len == 10 && !memcmp(args[i].key.s, "start_wall", 10))
			t->start_wall = intern(st, &args[i].s);
	t->start_wall_ns = b->start_wall_ns;
	if (st->layers.active == NONE32 && b->layers.len)
		st->layers.active = intern(st, &b->layers);
	if (!st->origin_set)
		rs_set_origin(st, b->start_wall_ns);
	t->offset_ns =
	    b->start_wall_ns > st->origin_wall_ns ? b->start_wall_ns - st->origin_wall_ns : 0;
	/* bound the offset so that report times cannot overflow */
	if (t->offset_ns > (int64_t)1 << 60)
		t->offset_ns = (int64_t)1 << 60;
}

static bool is_syscall_cat(const struct ev_str *c)
{
	return (c->len == 4 && (!memcmp(c->s, "data", 4) || !memcmp(c->s, "sync", 4) ||
				!memcmp(c->s, "hint", 4))) ||
	       (c->len == 8 && !memcmp(c->s, "metadata", 8));
}

void rs_event(struct report_stats *st, const struct event *ev)
{
	struct rs_trace *t = &st->traces[st->cur];
	struct event clipped;
	uint32_t ti;

	st->events++;
	t->events++;
	if (ev->ts >> 60 || (ev->type == EV_SYSCALL && ev->sys.dur >> 60)) {
		/* absurd times (a damaged trace): clamp so that sums cannot overflow */
		clipped = *ev;
		if (clipped.ts >> 60)
			clipped.ts = 1ull << 60;
		if (clipped.type == EV_SYSCALL && clipped.sys.dur >> 60)
			clipped.sys.dur = 1ull << 60;
		ev = &clipped;
	}
	switch (ev->type) {
	case EV_TRACE_BEGIN:
		header_event(st, &ev->begin);
		return;
	case EV_TRACE_END:
		t->has_summary = true;
		t->summary_events = ev->end.events;
		t->lost_events = ev->end.lost_events;
		t->lost_bytes = ev->end.lost_bytes;
		t->duration_ns = ev->end.duration_ns >> 60 ? 1ull << 60 : ev->end.duration_ns;
		t->stop_reason = intern(st, &ev->end.stop_reason);
		return;
	case EV_SYSCALL:
		syscall_event(st, ev);
		return;
	case EV_PROCESS_NAME:
		if (ev->name.name.len && ev->pid) {
			uint32_t p = proc_get(st, ev->pid, (uint64_t)t->offset_ns);

			if (p != NONE32)
				st->procs[p].name = intern(st, &ev->name.name);
		}
		return;
	case EV_THREAD_NAME:
		if (ev->name.name.len && ev->tid) {
			ti = thread_get(st, ev->pid, ev->tid, (uint64_t)t->offset_ns);
			if (ti != NONE32)
				st->threads[ti].comm = intern(st, &ev->name.name);
		}
		return;
	case EV_FORK:
	case EV_START:
	case EV_EXEC:
	case EV_EXIT:
		process_event(st, ev);
		return;
	case EV_OTHER:
		/* a slice of a syscall category this version does not know */
		if (ev->other.phase == 'X' && is_syscall_cat(&ev->other.cat))
			st->unknown_syscalls++;
		return;
	default:
		layer_event(st, ev);
	}
}

static void consume(struct event_consumer *c, const struct event *e)
{
	rs_event(container_of(c, struct report_stats, consumer), e);
}

struct event_consumer *rs_consumer(struct report_stats *st)
{
	event_consumer_init(&st->consumer);
	event_consumer_fill(&st->consumer, consume);
	return &st->consumer;
}

double rs_cache_hit_ratio(uint64_t miss, uint64_t read_bytes)
{
	if (!read_bytes)
		return -1;
	return miss >= read_bytes ? 0 : 1 - (double)miss / (double)read_bytes;
}
