// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The report as a consumer of the event stream: rs_event hands each event to
 * the handler of its kind, which updates the tables (report_tables.c), the
 * access counters (report_access.c), the timeline and bursts
 * (report_timeline.c).
 */
#define _GNU_SOURCE
#include "report/report_stats_internal.h"

#include "lib/path_table.h"

#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "event/event_args.h"
#include "event/syscall_table.h"
#include "report/report_gpu_idle.h"

const char *rs_class_name(int cls)
{
	return cls == CLS_DATA ? "data" : cls == CLS_SYNC ? "sync" : "metadata";
}

/* Offsets and sizes beyond this come from damaged input; sums stay in int64. */
#define VALUE_MAX ((int64_t)1 << 61)

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
	return syscall_info(k)->stats;
}

/* A call that makes a new descriptor from another (fcntl: F_DUPFD, F_DUPFD_CLOEXEC). */
static bool is_dup_call(const struct ev_syscall *s)
{
	if (s->sys == DL_SYS_FCNTL)
		return s->arg_lo == F_DUPFD || s->arg_lo == F_DUPFD_CLOEXEC;
	return syscall_info(s->sys)->dups;
}

/*
 * A name directly in /dev/shm that no runtime's naming claims: a staged
 * file or a segment, by how the job first uses it.  A segment is opened
 * the way shm_open(3) opens (glibc and musl add O_NOFOLLOW | O_CLOEXEC;
 * cat, cp, fopen and Python's open() do not), sized with ftruncate or
 * fallocate, or mapped shared and writable; a file is opened to be read or
 * written with read/pread/write.  The first call decides for good: the
 * report is one pass, and a segment's open must not count as a file's
 * while its ftruncate, mmap and unlink do not.  use: NULL for the other
 * layers' events (a page fault, an io_uring request), which show no use.
 */
static uint8_t shm_entry_scope(struct report_stats *st, const struct ev_str *path,
			       const struct ev_syscall *use)
{
	uint32_t id = string_index_put(&st->strings, path->s, path->len), known;
	int k = use ? use->sys : -1;
	bool segment = false;

	if (id == STRING_NONE) {
		st->oom = true;
		return SCOPE_APP;
	}
	known = u64_index_get(&st->shm_ix, id);
	if (known != U64_NONE)
		return (uint8_t)known;
	if (DL_SYS_OPEN <= k && k <= DL_SYS_CREAT)
		segment = (use->arg_lo & (O_NOFOLLOW | O_CLOEXEC)) == (O_NOFOLLOW | O_CLOEXEC);
	else if (k == DL_SYS_FTRUNCATE || k == DL_SYS_FALLOCATE)
		segment = true;
	else if (k == DL_SYS_MMAP)
		segment = (use->arg_hi & MAP_SHARED) && (use->arg_lo & PROT_WRITE);
	if (u64_index_put(&st->shm_ix, id, segment ? SCOPE_OTHER : SCOPE_APP))
		st->oom = true;
	return segment ? SCOPE_OTHER : SCOPE_APP;
}

/*
 * A process's command: its name without the rank the tracer put at its end
 * (" (rank 3)", " (rank 3 of 8)"), so that ranks of one command are peers.
 */
static struct ev_str command_of(const struct ev_name *n)
{
	char tail[64];
	int k;

	if (!(n->ranks & EV_RANK))
		return n->name;
	for (int w = 0; w < 2; w++) {
		if (w)
			k = (n->ranks & EV_WORLD_SIZE)
				? snprintf(tail, sizeof(tail), " (rank %u of %u)", n->rank,
					   n->world_size)
				: -1;
		else
			k = snprintf(tail, sizeof(tail), " (rank %u)", n->rank);
		if (k > 0 && (uint32_t)k < n->name.len &&
		    !memcmp(n->name.s + n->name.len - k, tail, (size_t)k))
			return (struct ev_str){n->name.s, n->name.len - (uint32_t)k};
	}
	return n->name;
}

/* path_scope() of a path, remembered for the last one: most events repeat their file. */
static uint8_t scope_of_name(struct report_stats *st, const struct ev_str *path, enum env_kind *env,
			     const struct ev_syscall *use)
{
	uint8_t scope;

	if (path->len && path->len == st->scope_len &&
	    !memcmp(path->s, st->scope_path, path->len)) {
		*env = st->scope_env;
		return st->scope;
	}
	scope = path_scope(path->s, path->len, env);
	if (scope == SCOPE_APP && path_shm_entry(path->s, path->len))
		scope = shm_entry_scope(st, path, use);
	if (path->len && path->len <= sizeof(st->scope_path)) {
		memcpy(st->scope_path, path->s, path->len);
		st->scope_len = path->len;
		st->scope = scope;
		st->scope_env = *env;
	}
	return scope;
}

/*
 * The report's entry for a live decoder's interned path, made at its first
 * event; NULL for a trace reader's path (no ref) or out of memory.  A path's
 * scope never changes once decided (shm_entry_scope: the first use decides).
 */
static struct rs_ref *ref_of(struct report_stats *st, const struct ev_path *path,
			     const struct ev_syscall *use)
{
	uint64_t key = (uintptr_t)path->ref;
	uint32_t i;
	struct rs_ref *r;
	enum env_kind env = ENV_NONE;

	if (!path->ref || path->name.s != path->ref->raw)
		return NULL;
	i = u64_index_get(&st->ref_ix, key);
	if (i != U64_NONE)
		return &st->refs[i];
	r = GROW(st, st->refs, st->cap_refs, st->nrefs);
	if (!r)
		return NULL;
	r->scope = scope_of_name(st, &path->name, &env, use);
	r->env = env;
	r->file = NONE32;
	if (u64_index_put(&st->ref_ix, key, st->nrefs)) {
		st->oom = true;
		return NULL;
	}
	r->ref = path_get((struct path_ref *)path->ref);
	st->nrefs++;
	return r;
}

/* path_scope() of an event's path; *ref: its entry's index in refs (NONE32: none), for file_of().
 */
static uint8_t scope_of(struct report_stats *st, const struct ev_path *path, enum env_kind *env,
			const struct ev_syscall *use, uint32_t *ref)
{
	struct rs_ref *r = ref_of(st, path, use);

	*ref = r ? (uint32_t)(r - st->refs) : NONE32;
	if (!r)
		return scope_of_name(st, &path->name, env, use);
	*env = r->env;
	return r->scope;
}

/* rs_file_get() of an event's path, by the entry scope_of() found when it has one. */
static uint32_t file_of(struct report_stats *st, uint32_t ref, const struct ev_path *path,
			uint8_t scope, uint8_t env, uint64_t now)
{
	struct rs_ref *r = ref != NONE32 ? &st->refs[ref] : NULL;

	if (!r)
		return rs_file_get(st, &path->name, scope, env, now);
	if (r->file == NONE32)
		r->file = rs_file_get(st, &path->name, scope, env, now);
	return r->file;
}

/* The output side of sendfile/copy_file_range: a write of unknown offset. */
static void second_path_write(struct report_stats *st, uint32_t ti, const struct ev_syscall *s,
			      uint64_t start, uint64_t end)
{
	enum env_kind env;
	uint32_t ref;
	uint8_t scope = scope_of(st, &s->path2, &env, NULL, &ref);
	struct rs_access a = {ti,	   NONE32, NONE32, false, 0, (uint64_t)s->ret, start, end,
			      ORG_SYSCALL, false,  0,	   0,	  0};

	if (scope == SCOPE_OTHER) {
		st->tot[SCOPE_OTHER].bytes_written += a.bytes;
		return;
	}
	a.file = file_of(st, ref, &s->path2, scope, env, start);
	if (a.file == NONE32)
		return;
	if (scope == SCOPE_ENV) {
		st->files[a.file].bytes_written += a.bytes;
		st->tot[SCOPE_ENV].bytes_written += a.bytes;
		st->env[env].bytes_written += a.bytes;
		return;
	}
	a.pair = rs_pair_get(st, st->threads[ti].proc, a.file);
	rs_app_write(st, &a);
}

static int class_of(unsigned sys)
{
	enum io_class c = syscall_info(sys)->io_class;

	return c == IO_DATA ? CLS_DATA : c == IO_SYNC ? CLS_SYNC : CLS_META;
}

void rs_finish_input(struct report_stats *st)
{
	rs_phases_finish(st);
	for (uint32_t i = 0; i < st->nthreads; i++)
		rs_burst_close(st, i);
	for (uint32_t i = 0; i < st->npairs; i++)
		rs_session_end(st, &st->pairs[i]);
}

static void syscall_event(struct report_stats *st, const struct event *ev)
{
	const struct rs_trace *tr = &st->traces[st->cur];
	const struct ev_syscall *s = &ev->sys;
	struct ev_syscall out_side;
	/* a run (counting mode) is s->calls calls alike, over s->span */
	uint64_t n = ev_calls(s);
	uint64_t start = (uint64_t)tr->offset_ns + ev->ts,
		 end = start + (s->calls ? s->span : s->dur);
	int k = s->sys, cls = class_of(k);
	bool rd = is_read_kind(k), wr = is_write_kind(k);
	bool failed = s->ret < 0 && s->ret >= -ERRNO_UNKNOWN;
	enum env_kind env = ENV_NONE;

	/*
	 * splice reads its input file into a pipe, or writes a pipe into its
	 * output file (its offset is then the output's): one file side.
	 */
	if (k == DL_SYS_SPLICE && (s->flags & EVS_OUT_OFFSET)) {
		out_side = *s;
		out_side.path = s->path2;
		out_side.path2 = s->path;
		s = &out_side;
		rd = false;
	} else if (k == DL_SYS_SPLICE) {
		wr = false;
	}

	uint32_t ref;
	uint8_t scope = scope_of(st, &s->path, &env, s, &ref);
	/* the other scope's named files are shared memory (path_scope.c) */
	bool shm = scope == SCOPE_OTHER && s->path.name.len && s->path.name.s[0] == '/';
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
		moved = VALUE_MAX;	 /* damaged input: keep offset arithmetic in range */
	if (n > 1 && (failed || !moved)) /* damaged input: a run moves bytes */
		n = 1;
	st->syscalls += n;
	st->python.cur =
	    s->py.len ? rs_python_syscall(st, s, failed, moved, is_read_kind(k), is_write_kind(k))
		      : NONE32;
	ti = rs_thread_get(st, ev->pid, ev->tid, start);
	if (ti == NONE32)
		return;
	seen(st, ti, start, end);
	th = &st->threads[ti];
	pr = &st->procs[th->proc];
	th->io_ns[cls] += dur;
	th->calls += n;
	pr->io_ns[scope][cls] += dur;
	pr->calls += n;
	th->scope_ns[scope] += dur;

	sc = &st->sys[scope][k];
	sc->calls += n;
	sc->lat_sum += dur;
	if (n > 1) {
		/* a run's latencies: its longest call exact, the others at their mean */
		uint64_t longest = ev_run_longest(s);

		sketch_add(&sc->lat, longest);
		sketch_add_n(&sc->lat, (dur - longest) / (n - 1), n - 1);
		st->run_calls += n;
	} else {
		sketch_add(&sc->lat, dur);
	}
	tot->calls += n;
	tot->io_ns[cls] += dur;
	if (scope == SCOPE_ENV) {
		st->env[env].calls += n;
		st->env[env].io_ns += dur;
	}
	if (shm) {
		st->shm.calls += n;
		st->shm.io_ns += dur;
		st->shm.failed += failed;
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
			uint32_t d = rs_dir_get(st, s->path.name.s, s->path.name.len, scope);

			if (d != NONE32) {
				st->dirs[d].failed++;
				st->dirs[d].io_ns += dur;
			}
		}
		if (scope == SCOPE_APP && (wr || cls == CLS_SYNC))
			rs_burst_add(st, ti, NONE32, start, end, 0);
		return;
	}

	/* bytes and sizes */
	if (rd || wr) {
		sc->bytes += moved * n;
		sketch_add_n(&sc->size, moved, n);
	} else if (k == DL_SYS_MMAP) {
		sketch_add(&sc->size, s->size);
	}
	if (cls == CLS_META && scope == SCOPE_APP)
		rs_timeline_add(st, st->tl_meta, start, end, 1);

	if (scope == SCOPE_OTHER) {
		if (rd && !shm) {
			/* a pipe or socket read: a training loop's wait for its batch */
			struct rs_item it = {start,    dur,	   0,	   0,
					     th->proc, ti,	   NONE32, DL_LAYER_SYSCALL,
					     true,     (uint32_t)n};

			rs_phase_call(st, &it);
			rs_gpu_wait(st, GW_PIPE, ti, NONE32, start, end);
		}
		if (rd) {
			tot->reads += n;
			tot->bytes_read += moved * n;
			if (shm)
				st->shm.bytes_read += moved * n;
		} else if (wr) {
			tot->writes += n;
			tot->bytes_written += moved * n;
			if (shm)
				st->shm.bytes_written += moved * n;
		}
		return;
	}

	fi = file_of(st, ref, &s->path, scope, env, start);
	if (fi == NONE32)
		return;
	f = &st->files[fi];
	f->calls += n;
	f->io_ns[cls] += dur;
	if (s->flags & EVS_CACHE) {
		uint64_t miss = s->cache_miss_bytes > VALUE_MAX ? VALUE_MAX : s->cache_miss_bytes;

		f->cache_miss += miss;
		f->cache_read_bytes += moved * n;
		st->layers.cache_miss[scope] += miss;
		st->layers.cache_read_bytes[scope] += moved * n;
		st->layers.cache_reads += n;
	}
	if (start < f->first_ns)
		f->first_ns = start;
	if (end > f->last_ns)
		f->last_ns = end;
	if (f->dir != NONE32)
		st->dirs[f->dir].io_ns += dur;
	if (syscall_info(k)->opens) {
		f->opens++;
		tot->opens++;
		if (scope == SCOPE_ENV && env == ENV_LIBRARY)
			rs_level_library(st, th->proc, &s->path.name);
		if ((s->flags & EVS_IDENTITY) && s->file_size > f->file_size)
			f->file_size = s->file_size;
		if (scope == SCOPE_APP)
			rs_mount_set(st, f, s);
	}
	if (f->mount != NONE32)
		st->mounts[f->mount].io_ns += dur;
	if (cls == CLS_META) {
		f->meta_ops++;
		tot->meta_ops++;
		if (scope == SCOPE_APP)
			rs_python_what(st, PYW_META, 0, dur);
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
		if (scope == SCOPE_APP) {
			st->origin[ORG_SYSCALL].syncs++;
			f->origins |= 1u << ORG_SYSCALL;
			pr->origins |= 1u << ORG_SYSCALL;
			rs_python_what(st, PYW_SYNCS, 0, dur);
		}
	} else if (k == DL_SYS_MMAP) {
		f->mmaps++;
		tot->mmaps++;
	} else if (syscall_info(k)->io_class == IO_HINT) {
		f->hints++;
		tot->hints++;
	}

	if (scope == SCOPE_ENV) {
		if (rd) {
			f->reads += n;
			f->bytes_read += moved * n;
			tot->reads += n;
			tot->bytes_read += moved * n;
			st->env[env].bytes_read += moved * n;
		} else if (wr) {
			f->writes += n;
			f->bytes_written += moved * n;
			tot->writes += n;
			tot->bytes_written += moved * n;
			st->env[env].bytes_written += moved * n;
		}
		if (syscall_info(k)->out_fd && rd && /* sendfile, copy_file_range, splice */
		    s->path2.name.len)
			second_path_write(st, ti, s, start, end);
		return;
	}

	/* application file: per-process state */
	uint32_t pi = rs_pair_get(st, th->proc, fi);
	struct rs_pair *p = pi != NONE32 ? &st->pairs[pi] : NULL;
	struct rs_access a = {ti,	   fi,	      pi,  has_offset,	(int64_t)s->offset,
			      moved,	   start,     end, ORG_SYSCALL, false,
			      (uint32_t)n, s->stride, dur};
	struct rs_item it = {start,
			     dur,
			     rd ? moved * n : 0,
			     wr ? moved * n : 0,
			     th->proc,
			     ti,
			     fi,
			     DL_LAYER_SYSCALL,
			     false,
			     (uint32_t)n};

	rs_phase_call(st, &it);
	if (rd) { /* what the GPU may wait for (report_gpu_idle.c) */
		rs_gpu_wait(st, GW_READ, ti, fi, start, end);
		if ((s->flags & EVS_CACHE) && s->cache_miss_bytes)
			rs_gpu_wait(st, GW_MISS, ti, fi, start, end);
	}

	f = &st->files[fi];
	if (p && syscall_info(k)->opens) {
		p->open_depth++;
	} else if (p && is_dup_call(s)) {
		p->open_depth++;
	} else if (p && k == DL_SYS_CLOSE) {
		if (p->open_depth > 0)
			p->open_depth--;
		if (!p->open_depth)
			rs_session_end(st, p);
	}
	if (rd) {
		rs_app_read(st, &a);
		if (st->dirs && f->dir != NONE32) {
			st->dirs[f->dir].reads += n;
			st->dirs[f->dir].bytes_read += moved * n;
		}
		if (f->mount != NONE32)
			st->mounts[f->mount].bytes_read += moved * n;
		if (syscall_info(k)->out_fd && rd && /* sendfile, copy_file_range, splice */
		    s->path2.name.len)
			second_path_write(st, ti, s, start, end);
	} else if (wr) {
		rs_app_write(st, &a);
		if (f->dir != NONE32) {
			st->dirs[f->dir].writes += n;
			st->dirs[f->dir].bytes_written += moved * n;
		}
		if (f->mount != NONE32)
			st->mounts[f->mount].bytes_written += moved * n;
		rs_burst_add(st, ti, fi, start, end, moved * n);
	} else if (cls == CLS_SYNC || (th->b_on && start <= th->b_end + BURST_GAP_NS)) {
		/* syncs, and the opens, renames and closes around the writes of a burst */
		rs_burst_add(st, ti, fi, start, end, 0);
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
			ti = rs_thread_get(st, ev->pid, ev->fork.child, now);
			if (ti != NONE32) {
				st->threads[ti].started = true;
				st->threads[ti].first_ns = now;
			}
			return;
		}
		ci = rs_proc_get(st, ev->fork.child, now);
		if (ci == NONE32)
			return;
		st->procs[ci].ppid = ev->pid;
		st->procs[ci].started = true;
		if (now < st->procs[ci].first_ns)
			st->procs[ci].first_ns = now;
		return;
	case EV_START:
		ti = rs_thread_get(st, ev->pid, ev->tid, now);
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
		ti = rs_thread_get(st, ev->pid, ev->tid, now);
		if (ti == NONE32)
			return;
		seen(st, ti, now, now);
		if (ev->exec.cmdline.len)
			st->procs[st->threads[ti].proc].name = rs_intern(st, &ev->exec.cmdline);
		return;
	case EV_EXIT:
		ti = rs_thread_get(st, ev->pid, ev->tid, now);
		if (ti == NONE32)
			return;
		seen(st, ti, now, now);
		st->threads[ti].exited = true;
		st->threads[ti].last_ns = now;
		rs_burst_close(st, ti);
		if (ev->exit.group_dead) {
			st->procs[st->threads[ti].proc].exited = true;
			st->procs[st->threads[ti].proc].last_ns = now;
		}
		return;
	default:
		return;
	}
}

/* ---- io_uring and native AIO requests, mmap page faults: I/O of other origins ---- */

/* 0 read, 1 write, 2 sync, 3 other (not counted in the figures) */
static uint8_t uring_dir(unsigned op)
{
	switch (op) {
	case 1:	 /* READV */
	case 4:	 /* READ_FIXED */
	case 22: /* READ */
		return 0;
	case 2:	 /* WRITEV */
	case 5:	 /* WRITE_FIXED */
	case 23: /* WRITE */
		return 1;
	case 3: /* FSYNC */
	case 8: /* SYNC_FILE_RANGE */
		return 2;
	default:
		return 3;
	}
}

static uint8_t aio_dir(unsigned op)
{
	switch (op) {
	case 0: /* PREAD */
	case 7: /* PREADV */
		return 0;
	case 1: /* PWRITE */
	case 8: /* PWRITEV */
		return 1;
	case 2: /* FSYNC */
	case 3: /* FDSYNC */
		return 2;
	default:
		return 3;
	}
}

/*
 * A read, write or sync of another origin than a syscall, counted where a
 * syscall's would be: bytes, counts, sizes, offsets (sequential or random),
 * per file, per process and thread.  The thread did not wait in it (it
 * waits in io_uring_enter or io_getevents, counted as those calls), so it
 * adds no time of the thread's.
 */
static void origin_io(struct report_stats *st, const struct rs_async *r, uint64_t bytes,
		      uint64_t end)
{
	struct rs_totals *tot = &st->tot[r->scope];
	struct rs_file *f;
	struct rs_access a = {r->ti, r->file,  NONE32, r->has_offset, (int64_t)r->offset,
			      bytes, r->start, end,    r->origin,     true,
			      0,     0,	       0};

	if (bytes > VALUE_MAX)
		return; /* damaged input */
	seen(st, r->ti, r->start, end);
	if (r->scope == SCOPE_OTHER || r->file == NONE32) {
		if (r->dir == 0) {
			tot->reads++;
			tot->bytes_read += bytes;
		} else if (r->dir == 1) {
			tot->writes++;
			tot->bytes_written += bytes;
		}
		return;
	}
	f = &st->files[r->file];
	if (r->start < f->first_ns)
		f->first_ns = r->start;
	if (end > f->last_ns)
		f->last_ns = end;
	f->origins |= 1u << r->origin;
	if (r->dir == 2) {
		f->syncs++;
		tot->syncs++;
		if (r->scope == SCOPE_APP) {
			st->origin[r->origin].syncs++;
			st->procs[st->threads[r->ti].proc].origins |= 1u << r->origin;
		}
		return;
	}
	if (r->scope == SCOPE_ENV) {
		if (r->dir == 0) {
			f->reads++;
			f->bytes_read += bytes;
			tot->reads++;
			tot->bytes_read += bytes;
			st->env[r->env].bytes_read += bytes;
		} else {
			f->writes++;
			f->bytes_written += bytes;
			tot->writes++;
			tot->bytes_written += bytes;
			st->env[r->env].bytes_written += bytes;
		}
		return;
	}
	a.pair = rs_pair_get(st, st->threads[r->ti].proc, r->file);
	f = &st->files[r->file];
	if (r->dir == 0) {
		rs_app_read(st, &a);
		if (st->dirs && f->dir != NONE32) {
			st->dirs[f->dir].reads++;
			st->dirs[f->dir].bytes_read += bytes;
		}
		if (f->mount != NONE32)
			st->mounts[f->mount].bytes_read += bytes;
	} else {
		rs_app_write(st, &a);
		if (st->dirs && f->dir != NONE32) {
			st->dirs[f->dir].writes++;
			st->dirs[f->dir].bytes_written += bytes;
		}
		if (f->mount != NONE32)
			st->mounts[f->mount].bytes_written += bytes;
	}
}

/* Where a request's file is: its scope and file index (NONE32 for other files). */
static void request_file(struct report_stats *st, struct rs_async *r, const struct ev_path *path,
			 uint64_t start)
{
	enum env_kind env = ENV_NONE;
	uint32_t ref;

	r->scope = scope_of(st, path, &env, NULL, &ref);
	r->env = env;
	r->file = NONE32;
	if (r->scope != SCOPE_OTHER)
		r->file = file_of(st, ref, path, r->scope, env, start);
	if (r->file == NONE32)
		r->scope = SCOPE_OTHER;
}

/* An io_uring or AIO request's begin: kept until its end gives its result. */
static void async_begin(struct report_stats *st, const struct event *ev, uint8_t origin,
			uint8_t dir, const struct ev_path *path, uint64_t offset, bool has_offset)
{
	uint64_t start = (uint64_t)st->traces[st->cur].offset_ns + ev->ts;
	struct rs_async *r;
	uint32_t ti;

	if (dir > 2)
		return;
	ti = rs_thread_get(st, ev->pid, ev->tid, start);
	if (ti == NONE32)
		return;
	if (st->nasync == st->cap_async) {
		uint32_t cap = st->cap_async ? 2 * st->cap_async : 64;
		struct rs_async *v = realloc(st->async, cap * sizeof(*v));

		if (!v)
			return;
		st->async = v;
		st->cap_async = cap;
	}
	r = &st->async[st->nasync++];
	memset(r, 0, sizeof(*r));
	r->trace = st->cur;
	r->ti = ti;
	r->origin = origin;
	r->dir = dir;
	r->seq = event_async_id(ev);
	r->start = start;
	r->offset = offset;
	r->has_offset = has_offset && offset <= VALUE_MAX;
	request_file(st, r, path, start);
}

/* Its end: counted when it moved bytes (reads, writes) or succeeded (syncs). */
static void async_end(struct report_stats *st, const struct event *ev, uint8_t origin, int64_t res,
		      bool done)
{
	uint64_t end = (uint64_t)st->traces[st->cur].offset_ns + ev->ts, seq = event_async_id(ev);

	for (uint32_t i = st->nasync; i-- > 0;) {
		struct rs_async r = st->async[i];

		if (r.seq != seq || r.origin != origin || r.trace != st->cur)
			continue;
		st->async[i] = st->async[--st->nasync];
		if (!done || res < 0 || (r.dir < 2 && res == 0))
			return;
		origin_io(st, &r, r.dir < 2 ? (uint64_t)res : 0, end < r.start ? r.start : end);
		return;
	}
}

/* A page fault on an application file's mapping: a page read from it (written, for a write fault).
 */
static void fault_io(struct report_stats *st, const struct event *ev)
{
	uint64_t t = (uint64_t)st->traces[st->cur].offset_ns + ev->ts;
	struct rs_async r = {.origin = ORG_MMAP,
			     .dir = ev->fault.write && !ev->fault.cow ? 1 : 0,
			     .has_offset = ev->fault.offset <= VALUE_MAX,
			     .offset = ev->fault.offset,
			     .start = t};

	if (ev->fault.exec) /* a program's or library's code: no data read */
		return;
	r.ti = rs_thread_get(st, ev->pid, ev->tid, t);
	if (r.ti == NONE32)
		return;
	request_file(st, &r, &ev->fault.path, t);
	/*
	 * Application files only: a library's pages are loading code, shared
	 * memory (/dev/shm, SysV, memfd) is no file I/O (the faults stay counted
	 * in the mmap layer's figures)
	 */
	if (r.scope != SCOPE_APP)
		return;
	origin_io(st, &r, ev->fault.size ? ev->fault.size : 4096, t);
}

/* Events of the other capture layers: counted, page faults per file. */
static void layer_event(struct report_stats *st, const struct event *ev)
{
	struct rs_layers *l = &st->layers;
	enum env_kind env;
	uint32_t ref;
	uint8_t scope;

	switch (ev->type) {
	case EV_FAULT:
		scope = scope_of(st, &ev->fault.path, &env, NULL, &ref);
		l->faults[scope]++;
		if (scope != SCOPE_OTHER) {
			uint32_t fi = file_of(st, ref, &ev->fault.path, scope, env,
					      (uint64_t)st->traces[st->cur].offset_ns + ev->ts);

			if (fi != NONE32)
				st->files[fi].faults++;
		}
		fault_io(st, ev);
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
		if (ev->uring.phase == EV_PH_BEGIN) {
			l->uring_requests++;
			async_begin(st, ev, ORG_URING, uring_dir(ev->uring.opcode), &ev->uring.path,
				    ev->uring.offset, ev->uring.offset != UINT64_MAX);
		} else {
			async_end(st, ev, ORG_URING, ev->uring.res, true);
		}
		return;
	case EV_AIO:
		if (ev->aio.phase == EV_PH_BEGIN) {
			l->aio_requests++;
			if (!ev->aio.submission_unknown)
				async_begin(st, ev, ORG_AIO, aio_dir(ev->aio.opcode), &ev->aio.path,
					    ev->aio.offset, true);
		} else {
			async_end(st, ev, ORG_AIO, ev->aio.res, ev->aio.reaped);
		}
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

	t->hostname = rs_intern(st, &b->hostname);
	t->kernel = rs_intern(st, &b->kernel);
	t->target = rs_intern(st, &b->target);
	t->version = rs_intern(st, &b->version);
	/* the start as the trace shows it (formatted from start_wall_ns when live) */
	for (unsigned i = 0; i < n; i++)
		if (args[i].key.len == 10 && !memcmp(args[i].key.s, "start_wall", 10))
			t->start_wall = rs_intern(st, &args[i].s);
	t->start_wall_ns = b->start_wall_ns;
	if (b->profiler_traces) /* a merge that holds a profiler trace: keep the data waits */
		rs_gpu_expect(st);
	if (st->layers.active == NONE32 && b->layers.len)
		st->layers.active = rs_intern(st, &b->layers);
	if (!st->origin_set)
		rs_set_origin(st, b->start_wall_ns);
	t->offset_ns =
	    b->start_wall_ns > st->origin_wall_ns ? b->start_wall_ns - st->origin_wall_ns : 0;
	/* bound the offset so that report times cannot overflow */
	if (t->offset_ns > (int64_t)1 << 60)
		t->offset_ns = (int64_t)1 << 60;
}

/* A library call (its level's figures) or a marker (the phases). */
static void span_event(struct report_stats *st, const struct event *ev)
{
	static const struct ev_str marker = EV_STR("marker");
	uint64_t start = (uint64_t)st->traces[st->cur].offset_ns + ev->ts;
	uint64_t dur = ev->span.phase == EV_PH_COMPLETE ? ev->span.dur : 0;
	uint32_t ti = rs_thread_get(st, ev->pid, ev->tid, start);

	if (ti == NONE32)
		return;
	seen(st, ti, start, start + dur);
	if (ev->span.cat.len == marker.len && !memcmp(ev->span.cat.s, marker.s, marker.len)) {
		rs_phase_marker(st, ti, ev, start);
		if (ev->span.name.len == 5 && !memcmp(ev->span.name.s, "fetch", 5))
			rs_gpu_wait(st, GW_FETCH, ti, NONE32, start, start + dur);
	} else
		rs_level_span(st, ti, ev, start);
}

static bool is_syscall_cat(const struct ev_str *c)
{
	return (c->len == 4 && (!memcmp(c->s, "data", 4) || !memcmp(c->s, "sync", 4) ||
				!memcmp(c->s, "hint", 4))) ||
	       (c->len == 8 && !memcmp(c->s, "metadata", 8));
}

/* A block device's track (EV_BLOCK, EV_BLOCK_RATE): noted, so that its name makes no process. */
static void note_device(struct report_stats *st, uint32_t pid)
{
	uint64_t key = (uint64_t)st->cur << 32 | pid;

	if (u64_index_get(&st->device_ix, key) == U64_NONE && u64_index_put(&st->device_ix, key, 0))
		st->oom = true;
}

/*
 * Is this name a block device's?  Its track had block events, or, when
 * the trace kept none of them (cut, capped), its pid and name are the
 * decoder's: a device pid and "block ...".
 */
static bool is_device(const struct report_stats *st, uint32_t pid, const struct ev_str *name)
{
	if (u64_index_get(&st->device_ix, (uint64_t)st->cur << 32 | pid) != U64_NONE)
		return true;
	return pid >= EV_DEVICE_PID_BASE && name->len > 6 && !memcmp(name->s, "block ", 6);
}

void rs_event(struct report_stats *st, const struct event *ev)
{
	struct rs_trace *t = &st->traces[st->cur];
	struct event clipped;
	uint32_t ti;

	st->events++;
	t->events++;
	if (ev->ts >> 60 || (ev->type == EV_SYSCALL && ev->sys.dur >> 60) ||
	    (ev->type == EV_SPAN && ev->span.dur >> 60)) {
		/* absurd times (a damaged trace): clamp so that sums cannot overflow */
		clipped = *ev;
		if (clipped.ts >> 60)
			clipped.ts = 1ull << 60;
		if (clipped.type == EV_SYSCALL && clipped.sys.dur >> 60)
			clipped.sys.dur = 1ull << 60;
		if (clipped.type == EV_SPAN && clipped.span.dur >> 60)
			clipped.span.dur = 1ull << 60;
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
		t->stop_reason = rs_intern(st, &ev->end.stop_reason);
		t->truncated = ev->end.truncated;
		t->write_error =
		    ev->end.write_error.len ? rs_intern(st, &ev->end.write_error) : NONE32;
		t->capped_events = ev->end.capped_events;
		t->end_wall_ns = ev->end.end_wall_ns;
		return;
	case EV_SYSCALL:
		syscall_event(st, ev);
		st->python.cur = NONE32;
		return;
	case EV_PROCESS_NAME:
		/* block devices are tracks of the trace, not processes of the job */
		if (ev->name.name.len && ev->pid && !is_device(st, ev->pid, &ev->name.name)) {
			uint32_t p = rs_proc_get(st, ev->pid, (uint64_t)t->offset_ns);

			if (p != NONE32) {
				struct rs_proc *pr = &st->procs[p];
				struct ev_str cmd = command_of(&ev->name);

				pr->name = rs_intern(st, &cmd);
				if (ev->name.ranks & EV_RANK) {
					pr->rank = ev->name.rank;
					pr->rank_from = rs_intern(st, &ev->name.rank_from);
				}
				if (ev->name.ranks & EV_LOCAL_RANK)
					pr->local_rank = ev->name.local_rank;
				if (ev->name.ranks & EV_WORLD_SIZE)
					pr->world_size = ev->name.world_size;
			}
		}
		return;
	case EV_THREAD_NAME:
		if (rs_gpu_track_name(ev)) /* a GPU stream's track, not a thread */
			return;
		if (ev->name.name.len && ev->tid) {
			ti = rs_thread_get(st, ev->pid, ev->tid, (uint64_t)t->offset_ns);
			if (ti != NONE32)
				st->threads[ti].comm = rs_intern(st, &ev->name.name);
		}
		return;
	case EV_FORK:
	case EV_START:
	case EV_EXEC:
	case EV_EXIT:
		process_event(st, ev);
		return;
	case EV_SPAN:
		if (rs_gpu_span(st, ev)) /* a profiler trace's: the GPU's, or not the job's work */
			return;
		span_event(st, ev);
		return;
	case EV_BLOCK:
	case EV_BLOCK_RATE:
		if (ev->type == EV_BLOCK && ev->block.phase == EV_PH_END) {
			uint64_t at = (uint64_t)t->offset_ns + ev->ts,
				 lat = ev->block.latency_ns > at ? at : ev->block.latency_ns;

			rs_gpu_wait(st, GW_BLOCK, NONE32, NONE32, at - lat, at);
		}
		note_device(st, ev->pid);
		layer_event(st, ev);
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

void rs_events_init(struct report_stats *st)
{
	for (int s = 0; s < SCOPE_COUNT; s++)
		for (int k = 0; k < DL_SYS_COUNT; k++) {
			sketch_init(&st->sys[s][k].size);
			sketch_init(&st->sys[s][k].lat);
		}
	sketch_init(&st->layers.block_lat);
	st->layers.active = NONE32;
}

void rs_events_free(struct report_stats *st)
{
	for (int s = 0; s < SCOPE_COUNT; s++)
		for (int k = 0; k < DL_SYS_COUNT; k++) {
			sketch_free(&st->sys[s][k].size);
			sketch_free(&st->sys[s][k].lat);
		}
	sketch_free(&st->layers.block_lat);
}
