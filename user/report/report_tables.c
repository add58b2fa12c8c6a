// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The report's tables: traces, processes, threads, files, (process, file)
 * pairs, directories and mounts, each found by a u64_index, and the
 * interned strings they name (report_intern.c).
 */
#define _GNU_SOURCE
#include "report/report_stats_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fs_names.h"
#include "lib/path_table.h"

void rs_tables_init(struct report_stats *st)
{
	string_index_init(&st->strings);
	u64_index_init(&st->proc_ix);
	u64_index_init(&st->thread_ix);
	u64_index_init(&st->pair_ix);
	u64_index_init(&st->file_ix);
	u64_index_init(&st->dir_ix);
	u64_index_init(&st->mount_ix);
	u64_index_init(&st->device_ix);
	u64_index_init(&st->shm_ix);
	u64_index_init(&st->size_ix);
	u64_index_init(&st->ref_ix);
	st->cache_thread_key = UINT64_MAX;
}

void rs_tables_free(struct report_stats *st)
{
	string_index_free(&st->strings);
	u64_index_free(&st->device_ix);
	u64_index_free(&st->shm_ix);
	u64_index_free(&st->proc_ix);
	u64_index_free(&st->thread_ix);
	u64_index_free(&st->pair_ix);
	u64_index_free(&st->file_ix);
	u64_index_free(&st->dir_ix);
	u64_index_free(&st->mount_ix);
	u64_index_free(&st->size_ix);
	u64_index_free(&st->ref_ix);
	for (uint32_t i = 0; i < st->nrefs; i++)
		path_put(st->refs[i].ref);
	free(st->refs);
	free(st->traces);
	free(st->procs);
	free(st->threads);
	free(st->files);
	free(st->pairs);
	free(st->async);
	free(st->dirs);
	free(st->mounts);
	free(st->file_of_string);
	free(st->sizes);
	free(st->groups);
	free(st->hosts);
	free(st->host_of_trace);
	free(st->group_members);
}

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
	t->write_error = NONE32;
	st->cur = st->ntraces++;
	st->cache_thread_key = UINT64_MAX;
	return 0;
}

void rs_end_trace(struct report_stats *st, const struct trace_read_status *status)
{
	if (st->ntraces)
		st->traces[st->cur].status = *status;
}

/* ---- processes and threads ---- */

uint32_t rs_proc_get(struct report_stats *st, uint32_t pid, uint64_t now)
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
	p->rank = p->local_rank = p->world_size = -1;
	p->rank_from = NONE32;
	p->first_ns = now;
	p->last_ns = now;
	if (u64_index_put(&st->proc_ix, key, st->nprocs)) {
		st->oom = true;
		return NONE32;
	}
	return st->nprocs++;
}

uint32_t rs_thread_get(struct report_stats *st, uint32_t pid, uint32_t tid, uint64_t now)
{
	uint64_t key = (uint64_t)st->cur << 32 | tid;
	uint32_t i, p;
	struct rs_thread *t;

	if (key == st->cache_thread_key)
		return st->cache_thread;
	i = u64_index_get(&st->thread_ix, key);
	if (i == U64_NONE) {
		p = rs_proc_get(st, pid, now);
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

/* ---- files, pairs, directories, mounts ---- */

uint32_t rs_dir_get(struct report_stats *st, const char *path, uint32_t len, uint8_t scope)
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

uint32_t rs_file_get(struct report_stats *st, const struct ev_str *path, uint8_t scope, uint8_t env,
		     uint64_t now)
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
	f->dir = rs_dir_get(st, path->s, path->len, scope);
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

uint32_t rs_pair_get(struct report_stats *st, uint32_t proc, uint32_t file)
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

void rs_mount_set(struct report_stats *st, struct rs_file *f, const struct ev_syscall *s)
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
	dev = rs_intern(st, &dev_s);
	fs = rs_intern(st, &fs_s);
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
