// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The replay's planner (see replay_plan.h for the picture), second half.
 *
 * Events arrive in no particular order, so they are first kept as compact
 * records (struct rec, replay_collect.c); finish sorts them by time and
 * walks them once, following each process's descriptors and mappings as
 * the job had them, appending each call to its thread's op list and noting
 * the deps between threads; then it drops the threads that do nothing,
 * lays the ops out thread by thread, and works out each op's think time.
 */
#define _GNU_SOURCE
#include "replay/replay_plan_state.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "event/syscall_table.h"
#include "lib/u64_index.h"

/* ---- the walk: processes, threads, descriptors, mappings ---- */

static int rec_cmp(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static uint32_t file_of(struct rp_plan_state *st, uint32_t name)
{
	struct replay_plan *p = st->plan;
	uint32_t i;

	if (name == RP_NONE)
		return RP_NONE;
	i = u64_index_get(&st->file_index, name);
	if (i != U64_NONE)
		return i;
	if (!GROW(st, p->files, st->cap_files, p->nfiles + 1))
		return RP_NONE;
	i = p->nfiles++;
	memset(&p->files[i], 0, sizeof(p->files[i]));
	p->files[i].name = name;
	p->files[i].replay = p->files[i].source = RP_NONE;
	if (u64_index_put(&st->file_index, name, i)) {
		st->oom = true;
		return RP_NONE;
	}
	return i;
}

static uint32_t proc_get(struct rp_plan_state *st, uint32_t pid);

static uint32_t thread_new(struct rp_plan_state *st, uint32_t tid, uint32_t proc)
{
	struct ps_thread *t;
	struct ps_proc *pr;
	uint32_t i;

	if (!GROW(st, st->threads, st->cap_threads, st->nthreads + 1))
		return RP_NONE;
	i = st->nthreads;
	if (u64_index_put(&st->thread_index, tid, i)) {
		st->oom = true;
		return RP_NONE;
	}
	st->nthreads++;
	t = &st->threads[i];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->proc = proc;
	t->spawned_by_thread = t->spawned_by_op = RP_NONE;
	pr = &st->procs[proc];
	if (GROW(st, pr->threads, pr->cap_threads, pr->nthreads + 1))
		pr->threads[pr->nthreads++] = i;
	return i;
}

static uint32_t proc_get(struct rp_plan_state *st, uint32_t pid)
{
	uint32_t i = u64_index_get(&st->pid_index, pid);

	if (i != U64_NONE)
		return i;
	if (!GROW(st, st->procs, st->cap_procs, st->nprocs + 1))
		return RP_NONE;
	i = st->nprocs;
	if (u64_index_put(&st->pid_index, pid, i)) {
		st->oom = true;
		return RP_NONE;
	}
	st->nprocs++;
	memset(&st->procs[i], 0, sizeof(st->procs[i]));
	return i;
}

/* The planning thread of a tid, made (with its process) on first sight. */
static uint32_t thread_get(struct rp_plan_state *st, uint32_t pid, uint32_t tid, uint64_t ts)
{
	uint32_t i = u64_index_get(&st->thread_index, tid);
	uint32_t pr;

	if (i != U64_NONE)
		return i;
	pr = proc_get(st, pid);
	if (pr == RP_NONE)
		return RP_NONE;
	i = thread_new(st, tid, pr);
	if (i != RP_NONE)
		st->threads[i].start_ts = ts;
	return i;
}

static struct rp_op *op_add(struct rp_plan_state *st, uint32_t thread, uint8_t type,
			    const struct rec *r)
{
	struct ps_thread *t = &st->threads[thread];
	struct rp_op *o;

	if (!GROW(st, t->ops, t->cap, t->nops + 1))
		return NULL;
	o = &t->ops[t->nops++];
	memset(o, 0, sizeof(*o));
	o->type = type;
	o->ts = r->ts;
	o->dur = r->dur;
	o->ret = r->ret;
	o->fd = r->fd;
	o->fd2 = -1;
	o->file = o->file2 = o->text = o->map = o->target = o->times = RP_NONE;
	return o;
}

static void dep_add(struct rp_plan_state *st, uint32_t thread, uint32_t op, uint32_t dthread,
		    uint32_t dop)
{
	if (dthread == RP_NONE || dthread == thread)
		return;
	{
		size_t cap = st->cap_pdeps;
		struct pend_dep *q = rp_grow(st->pdeps, &cap, st->npdeps + 1, sizeof(*q), &st->oom);

		if (!q)
			return;
		st->pdeps = q;
		st->cap_pdeps = cap;
	}
	st->pdeps[st->npdeps++] = (struct pend_dep){thread, op, dthread, dop};
}

static void owner_reset(struct owner *o)
{
	o->def_thread = o->def_op = RP_NONE;
	o->nusers = o->next_user = 0;
}

/* thread's op uses what o owns: after its definition */
static void owner_use(struct rp_plan_state *st, struct owner *o, uint32_t thread, uint32_t op)
{
	uint8_t k;

	dep_add(st, thread, op, o->def_thread, o->def_op);
	for (k = 0; k < o->nusers && o->user_thread[k] != thread; k++)
		;
	if (k == o->nusers) {
		if (o->nusers < USERS_KEPT)
			o->nusers++;
		else
			k = o->next_user++ % USERS_KEPT;
	}
	o->user_thread[k] = thread;
	o->user_op[k] = op;
}

/* thread's op ends what o owns (close, munmap) or defines it anew: after every use */
static void owner_end(struct rp_plan_state *st, struct owner *o, uint32_t thread, uint32_t op)
{
	dep_add(st, thread, op, o->def_thread, o->def_op);
	for (uint8_t k = 0; k < o->nusers; k++)
		dep_add(st, thread, op, o->user_thread[k], o->user_op[k]);
	o->def_thread = thread;
	o->def_op = op;
	o->nusers = o->next_user = 0;
}

static struct ps_fd *fd_slot(struct rp_plan_state *st, uint32_t proc, int64_t fd, bool make)
{
	struct ps_proc *pr = &st->procs[proc];

	if (fd < 0 || fd >= FD_LIMIT)
		return NULL;
	if ((uint32_t)fd >= pr->nfds) {
		uint32_t n = pr->nfds ? pr->nfds : 16;
		struct ps_fd *q;

		if (!make)
			return NULL;
		while (n <= (uint32_t)fd)
			n *= 2;
		q = realloc(pr->fds, n * sizeof(*q));
		if (!q) {
			st->oom = true;
			return NULL;
		}
		for (uint32_t i = pr->nfds; i < n; i++) {
			q[i].file = RP_NONE;
			q[i].cloexec = false;
			owner_reset(&q[i].own);
		}
		pr->fds = q;
		pr->nfds = n;
	}
	if ((uint32_t)fd + 1 > st->plan->max_fd)
		st->plan->max_fd = (uint32_t)fd + 1;
	return &pr->fds[fd];
}

/* The mapping of a process that holds addr (or, without an address, file's offset). */
static struct ps_map *map_find(struct ps_proc *pr, uint64_t addr, uint32_t file, uint64_t off)
{
	for (uint32_t i = pr->nmaps; i-- > 0;) {
		struct ps_map *m = &pr->maps[i];

		if (addr ? (addr >= m->addr && addr - m->addr < m->len)
			 : (m->file == file && off >= m->off && off - m->off < m->len))
			return m;
	}
	return NULL;
}

static void map_remove(struct ps_proc *pr, struct ps_map *m)
{
	*m = pr->maps[--pr->nmaps];
}

/* ---- what a call says of its file ---- */

static bool modifies_meta(unsigned k)
{
	switch (k) {
	case DL_SYS_CHMOD:
	case DL_SYS_FCHMOD:
	case DL_SYS_FCHMODAT:
	case DL_SYS_FCHMODAT2:
	case DL_SYS_CHOWN:
	case DL_SYS_FCHOWN:
	case DL_SYS_LCHOWN:
	case DL_SYS_FCHOWNAT:
	case DL_SYS_UTIME:
	case DL_SYS_UTIMES:
	case DL_SYS_FUTIMESAT:
	case DL_SYS_UTIMENSAT:
	case DL_SYS_SETXATTR:
	case DL_SYS_LSETXATTR:
	case DL_SYS_FSETXATTR:
	case DL_SYS_REMOVEXATTR:
	case DL_SYS_LREMOVEXATTR:
	case DL_SYS_FREMOVEXATTR:
	case DL_SYS_TRUNCATE:
	case DL_SYS_FTRUNCATE:
	case DL_SYS_FALLOCATE:
	case DL_SYS_UNLINK:
	case DL_SYS_UNLINKAT:
	case DL_SYS_RMDIR:
	case DL_SYS_RENAME:
	case DL_SYS_RENAMEAT:
	case DL_SYS_RENAMEAT2:
	case DL_SYS_MKDIR:
	case DL_SYS_MKDIRAT:
	case DL_SYS_MKNOD:
	case DL_SYS_MKNODAT:
	case DL_SYS_SYMLINK:
	case DL_SYS_SYMLINKAT:
	case DL_SYS_LINK:
	case DL_SYS_LINKAT:
		return true;
	default:
		return false;
	}
}

static bool opens_kind(unsigned k)
{
	return k == DL_SYS_OPEN || k == DL_SYS_OPENAT || k == DL_SYS_OPENAT2 || k == DL_SYS_CREAT;
}

/* creat() is open(O_CREAT | O_WRONLY | O_TRUNC) */
static uint32_t open_flags(const struct rec *r)
{
	return r->sys == DL_SYS_CREAT ? (O_CREAT | O_WRONLY | O_TRUNC) : r->arg_lo;
}

/* The first call on a file says whether it existed when the job began. */
static void first_touch(struct rp_file *f, const struct rec *r, bool second_path)
{
	unsigned k = r->sys;

	if (f->flags & (RPF_EXISTED | RPF_ABSENT))
		return;
	if (r->ret < 0) {
		if (r->ret == -ENOENT)
			f->flags |= RPF_ABSENT;
		else if (r->ret == -EEXIST)
			f->flags |= RPF_EXISTED;
		return;
	}
	if (second_path) { /* rename's and link's new name: made by the call */
		f->flags |= RPF_ABSENT;
		return;
	}
	switch (k) {
	case DL_SYS_MKDIR:
	case DL_SYS_MKDIRAT:
	case DL_SYS_MKNOD:
	case DL_SYS_MKNODAT:
	case DL_SYS_SYMLINK:
	case DL_SYS_SYMLINKAT:
		f->flags |= RPF_ABSENT;
		return;
	default:
		break;
	}
	if (opens_kind(k) && (open_flags(r) & O_CREAT)) {
		uint32_t fl = open_flags(r);

		if (!(fl & O_EXCL) && !(fl & O_TRUNC) && r->file_size > 0)
			f->flags |= RPF_EXISTED;
		else
			f->flags |= RPF_ABSENT;
		return;
	}
	f->flags |= RPF_EXISTED;
}

/* ---- the walk ---- */

struct walk {
	struct rp_plan_state *st;
	struct replay_plan *p;
};

static uint32_t op_index_last(struct rp_plan_state *st, uint32_t thread)
{
	return st->threads[thread].nops - 1;
}

static void note_read(struct rp_file *f, uint64_t off, uint64_t n)
{
	f->flags |= RPF_READ;
	f->bytes_read += n;
	if (off + n > f->read_end && off + n >= off)
		f->read_end = off + n;
}

static bool reads_kind(unsigned k)
{
	const struct syscall_info *si = syscall_info(k);

	return si && si->reads;
}

static bool writes_kind(unsigned k)
{
	const struct syscall_info *si = syscall_info(k);

	return si && si->writes;
}

/* Kinds whose buffer the replay must provide: the size a thread's buffer needs. */
static uint64_t buffer_need(const struct rp_op *o)
{
	switch (o->sys) {
	case DL_SYS_READ:
	case DL_SYS_PREAD64:
	case DL_SYS_READV:
	case DL_SYS_PREADV:
	case DL_SYS_PREADV2:
	case DL_SYS_GETDENTS64:
	case DL_SYS_READLINK:
	case DL_SYS_READLINKAT:
	case DL_SYS_GETXATTR:
	case DL_SYS_LGETXATTR:
	case DL_SYS_FGETXATTR:
	case DL_SYS_LISTXATTR:
	case DL_SYS_LLISTXATTR:
	case DL_SYS_FLISTXATTR:
		return o->size;
	default:
		return 0;
	}
}

static bool fd_kind(const struct rec *r)
{
	switch (r->sys) {
	case DL_SYS_CLOSE:
	case DL_SYS_READ:
	case DL_SYS_PREAD64:
	case DL_SYS_READV:
	case DL_SYS_PREADV:
	case DL_SYS_PREADV2:
	case DL_SYS_WRITE:
	case DL_SYS_PWRITE64:
	case DL_SYS_WRITEV:
	case DL_SYS_PWRITEV:
	case DL_SYS_PWRITEV2:
	case DL_SYS_LSEEK:
	case DL_SYS_FSYNC:
	case DL_SYS_FDATASYNC:
	case DL_SYS_SYNC_FILE_RANGE:
	case DL_SYS_MMAP:
	case DL_SYS_FSTAT:
	case DL_SYS_GETDENTS64:
	case DL_SYS_FTRUNCATE:
	case DL_SYS_FALLOCATE:
	case DL_SYS_DUP:
	case DL_SYS_DUP2:
	case DL_SYS_DUP3:
	case DL_SYS_FCNTL:
	case DL_SYS_SENDFILE:
	case DL_SYS_COPY_FILE_RANGE:
	case DL_SYS_FCHMOD:
	case DL_SYS_FCHOWN:
	case DL_SYS_FSETXATTR:
	case DL_SYS_FGETXATTR:
	case DL_SYS_FLISTXATTR:
	case DL_SYS_FREMOVEXATTR:
	case DL_SYS_FSTATFS:
	case DL_SYS_FCHDIR:
	case DL_SYS_FLOCK:
	case DL_SYS_FADVISE64:
	case DL_SYS_READAHEAD:
	case DL_SYS_SYNCFS:
		return true;
	case DL_SYS_NEWFSTATAT:
	case DL_SYS_STATX:
	case DL_SYS_FACCESSAT2:
	case DL_SYS_FCHMODAT2:
	case DL_SYS_FCHOWNAT:
	case DL_SYS_LINKAT:
		return (r->at_flags & AT_EMPTY_PATH) != 0;
	default:
		return false;
	}
}

static bool addr_kind(unsigned k)
{
	return k == DL_SYS_MUNMAP || k == DL_SYS_MADVISE || k == DL_SYS_MSYNC;
}

/* A descriptor made by a call (open, dup, F_DUPFD): defined anew in its process. */
static void fd_define(struct walk *w, uint32_t thread, uint32_t op, int64_t fd, uint32_t file,
		      bool cloexec)
{
	struct ps_fd *s = fd_slot(w->st, w->st->threads[thread].proc, fd, true);

	if (!s)
		return;
	owner_end(w->st, &s->own, thread, op);
	s->file = file;
	s->cloexec = cloexec;
}

static void sys_rec(struct walk *w, const struct rec *r, uint32_t thread)
{
	struct rp_plan_state *st = w->st;
	struct replay_plan *p = w->p;
	uint32_t proc = st->threads[thread].proc;
	unsigned k = r->sys;
	struct ps_fd *slot = NULL;
	struct ps_map *m = NULL;
	uint32_t file = file_of(st, r->path), file2 = RP_NONE, opi;
	uint8_t flags = 0;
	struct rp_op *o;
	struct rp_file *f;

	if (st->oom)
		return;
	if (fd_kind(r)) {
		slot = fd_slot(st, proc, r->fd, false);
		if (!slot || slot->file == RP_NONE) {
			p->skipped[RP_SKIP_NO_OPEN][k]++;
			return;
		}
		if (file == RP_NONE)
			file = slot->file;
		if (k == DL_SYS_NEWFSTATAT || k == DL_SYS_STATX || k == DL_SYS_FACCESSAT2 ||
		    k == DL_SYS_FCHMODAT2 || k == DL_SYS_FCHOWNAT || k == DL_SYS_LINKAT)
			flags |= RPO_BY_FD;
	} else if (k == DL_SYS_UTIMENSAT && r->fd >= 0) {
		/* futimens: utimensat(fd, NULL, ...) names the descriptor's own file */
		slot = fd_slot(st, proc, r->fd, false);
		if (slot && slot->file != RP_NONE && slot->file == file)
			flags |= RPO_BY_FD;
		else
			slot = NULL;
	} else if (addr_kind(k)) {
		m = map_find(&st->procs[proc], r->addr, RP_NONE, 0);
		if (!m) {
			p->skipped[RP_SKIP_NO_MAPPING][k]++;
			return;
		}
	}
	if (file == RP_NONE) {
		p->skipped[RP_SKIP_PATH_UNKNOWN][k]++;
		return;
	}
	if (k == DL_SYS_SENDFILE || k == DL_SYS_COPY_FILE_RANGE) {
		struct ps_fd *out = fd_slot(st, proc, (int32_t)r->arg_lo, false);

		if (!out || out->file == RP_NONE) {
			p->skipped[RP_SKIP_NO_OPEN][k]++;
			return;
		}
		file2 = out->file;
	} else if (r->path2 != RP_NONE) {
		file2 = file_of(st, r->path2);
	}
	o = op_add(st, thread, RP_OP_SYS, r);
	if (!o)
		return;
	opi = op_index_last(st, thread);
	o->sys = k;
	o->flags = flags;
	o->offset = r->offset;
	o->size = r->size;
	o->addr = r->addr;
	o->arg_lo = r->arg_lo;
	o->arg_hi = r->arg_hi;
	o->at_flags = r->at_flags;
	o->file = file;
	o->file2 = file2;
	o->text = r->text;
	o->times = r->times;
	if ((r->flags & EVS_IOV_TRUNC) || o->size > BUF_LIMIT)
		o->flags |= RPO_PARTIAL;
	if (k == DL_SYS_SENDFILE || k == DL_SYS_COPY_FILE_RANGE)
		o->fd2 = (int32_t)r->arg_lo;
	else if (k == DL_SYS_DUP2 || k == DL_SYS_DUP3)
		o->fd2 = (int32_t)r->arg_lo;

	f = &p->files[file];
	f->calls++;
	first_touch(f, r, false);
	if (file2 != RP_NONE && k != DL_SYS_SENDFILE && k != DL_SYS_COPY_FILE_RANGE)
		first_touch(&p->files[file2], r, true);

	/* descriptors and mappings: who must come first */
	if (slot && k != DL_SYS_CLOSE)
		owner_use(st, &slot->own, thread, opi);
	if ((k == DL_SYS_SENDFILE || k == DL_SYS_COPY_FILE_RANGE)) {
		struct ps_fd *out = fd_slot(st, proc, (int32_t)r->arg_lo, false);

		if (out)
			owner_use(st, &out->own, thread, opi);
	}
	if (m) {
		o->map = m->slot;
		if (k == DL_SYS_MUNMAP) {
			owner_end(st, &m->own, thread, opi);
			if (r->addr <= m->addr && r->addr + r->size >= m->addr + m->len) {
				map_remove(&st->procs[proc], m);
			} else if (r->addr <= m->addr) { /* the head unmapped */
				uint64_t cut = r->addr + r->size - m->addr;

				m->addr += cut;
				m->off += cut;
				m->len -= cut;
			} else if (r->addr + r->size >= m->addr + m->len) { /* the tail */
				m->len = r->addr - m->addr;
			}
		} else {
			owner_use(st, &m->own, thread, opi);
		}
	}

	if (r->ret < 0) {
		/* a failed O_CREAT or O_TRUNC would have changed it: scratch all the same */
		if (opens_kind(k) && (open_flags(r) & (O_CREAT | O_TRUNC | O_WRONLY | O_RDWR)))
			f->flags |= RPF_WRITTEN;
		if (modifies_meta(k)) {
			f->flags |= RPF_WRITTEN;
			if (file2 != RP_NONE)
				p->files[file2].flags |= RPF_WRITTEN;
		}
		if (k == DL_SYS_CLOSE && slot) { /* EBADF and such: the slot is gone anyway */
			owner_end(st, &slot->own, thread, opi);
			slot->file = RP_NONE;
		}
		return;
	}

	/* what the call did to its file, and to the descriptor table */
	if (opens_kind(k)) {
		uint32_t fl = open_flags(r);

		f->flags |= RPF_OPENED;
		if (fl & O_DIRECTORY)
			f->flags |= RPF_DIR;
		if ((fl & (O_CREAT | O_TRUNC)) || (fl & O_ACCMODE) != O_RDONLY)
			f->flags |= RPF_WRITTEN;
		if (r->file_size > f->size_seen)
			f->size_seen = r->file_size;
		fd_define(w, thread, opi, r->ret, file, (fl & O_CLOEXEC) != 0);
		return;
	}
	if (modifies_meta(k)) {
		f->flags |= RPF_WRITTEN;
		if (file2 != RP_NONE)
			p->files[file2].flags |= RPF_WRITTEN;
		if (k == DL_SYS_MKDIR || k == DL_SYS_MKDIRAT || k == DL_SYS_RMDIR ||
		    ((k == DL_SYS_UNLINKAT) && (r->at_flags & AT_REMOVEDIR)))
			f->flags |= RPF_DIR;
		if (k == DL_SYS_SYMLINK || k == DL_SYS_SYMLINKAT)
			f->flags |= RPF_SYMLINK;
	} else if (k != DL_SYS_CLOSE) {
		f->flags |= RPF_OPENED;
	}
	switch (k) {
	case DL_SYS_CLOSE:
		owner_end(st, &slot->own, thread, opi);
		slot->file = RP_NONE;
		break;
	case DL_SYS_DUP:
	case DL_SYS_DUP2:
	case DL_SYS_DUP3:
		fd_define(w, thread, opi, r->ret, slot->file, k == DL_SYS_DUP3 && r->arg_hi != 0);
		break;
	case DL_SYS_FCNTL:
		if (r->arg_lo == F_DUPFD || r->arg_lo == F_DUPFD_CLOEXEC)
			fd_define(w, thread, opi, r->ret, slot->file, r->arg_lo == F_DUPFD_CLOEXEC);
		else if (r->arg_lo == F_SETFD)
			slot->cloexec = (r->arg_hi & FD_CLOEXEC) != 0;
		break;
	case DL_SYS_GETDENTS64:
		f->flags |= RPF_DIR | RPF_READ;
		break;
	case DL_SYS_READLINK:
	case DL_SYS_READLINKAT:
		f->flags |= RPF_SYMLINK;
		break;
	case DL_SYS_MMAP: {
		struct ps_proc *pr = &st->procs[proc];
		uint32_t prot = r->arg_lo, mflags = r->arg_hi;

		f->flags |= RPF_MAPPED;
		if ((prot & PROT_WRITE) && (mflags & MAP_TYPE) == MAP_SHARED)
			f->flags |= RPF_WRITTEN;
		if ((uint64_t)r->ret >= (1ull << 63) || !r->size)
			break;
		if (!GROW(st, pr->maps, pr->cap_maps, pr->nmaps + 1))
			break;
		m = &pr->maps[pr->nmaps++];
		m->addr = (uint64_t)r->ret;
		m->len = r->size;
		m->off = r->offset;
		m->file = file;
		if (!(p->nmaps & (p->nmaps - 1))) { /* capacity doubles at powers of two */
			struct rp_mapping *q =
			    realloc(p->maps, (p->nmaps ? 2 * p->nmaps : 1) * sizeof(*q));

			if (!q) {
				st->oom = true;
				pr->nmaps--;
				break;
			}
			p->maps = q;
		}
		p->maps[p->nmaps] = (struct rp_mapping){(uint64_t)r->ret, r->offset, r->size};
		m->slot = p->nmaps++;
		owner_reset(&m->own);
		m->own.def_thread = thread;
		m->own.def_op = opi;
		o->map = m->slot;
		break;
	}
	default:
		break;
	}
	if (reads_kind(k) && r->ret > 0 && k != DL_SYS_SENDFILE && k != DL_SYS_COPY_FILE_RANGE)
		note_read(f, r->offset, (uint64_t)r->ret);
	if (k == DL_SYS_SENDFILE || k == DL_SYS_COPY_FILE_RANGE) {
		note_read(f, r->offset, (uint64_t)r->ret);
		p->files[file2].flags |= RPF_WRITTEN;
		p->files[file2].bytes_written += (uint64_t)r->ret;
	} else if (writes_kind(k)) {
		f->flags |= RPF_WRITTEN;
		f->bytes_written += (uint64_t)r->ret;
		if (o->size > p->max_write && o->size <= BUF_LIMIT)
			p->max_write = o->size;
	}
	if ((k == DL_SYS_SETXATTR || k == DL_SYS_LSETXATTR || k == DL_SYS_FSETXATTR) &&
	    o->size > p->max_write && o->size <= BUF_LIMIT)
		p->max_write = o->size;
}

static void fault_rec(struct walk *w, const struct rec *r, uint32_t thread)
{
	struct rp_plan_state *st = w->st;
	struct replay_plan *p = w->p;
	struct ps_proc *pr = &st->procs[st->threads[thread].proc];
	uint32_t file = file_of(st, r->path);
	struct ps_map *m;
	struct rp_op *o;

	if (file == RP_NONE) {
		p->skipped[RP_SKIP_PATH_UNKNOWN][RP_FAULT_KIND]++;
		return;
	}
	m = map_find(pr, r->addr, file, r->offset);
	if (!m || m->file != file || r->offset < m->off || r->offset - m->off >= m->len) {
		p->skipped[RP_SKIP_NO_MAPPING][RP_FAULT_KIND]++;
		return;
	}
	o = op_add(st, thread, RP_OP_FAULT, r);
	if (!o)
		return;
	o->offset = r->offset;
	o->size = r->size;
	o->addr = r->addr;
	o->file = file;
	o->map = m->slot;
	o->flags = r->sub & RPO_WRITE;
	p->files[file].calls++;
	note_read(&p->files[file], r->offset, r->size);
	owner_use(st, &m->own, thread, op_index_last(st, thread));
}

static uint32_t pipe_get(struct rp_plan_state *st, uint32_t name)
{
	uint32_t i = u64_index_get(&st->pipe_index, name);

	if (i != U64_NONE)
		return i;
	if (!GROW(st, st->pipes, st->cap_pipes, st->npipes + 1))
		return RP_NONE;
	i = st->npipes;
	if (u64_index_put(&st->pipe_index, name, i)) {
		st->oom = true;
		return RP_NONE;
	}
	st->npipes++;
	memset(&st->pipes[i], 0, sizeof(st->pipes[i]));
	return i;
}

static void pipe_rec(struct walk *w, const struct rec *r, uint32_t thread)
{
	struct rp_plan_state *st = w->st;
	struct ps_thread *t = &st->threads[thread];
	uint32_t pi = pipe_get(st, r->path);
	bool writes = write_pipe_kind(r->sys);
	struct ps_pipe *pp;
	struct pipe_io io;
	uint64_t prev_end;
	struct rp_op *o;
	uint32_t opi;

	if (pi == RP_NONE)
		return;
	prev_end = t->nops ? t->ops[t->nops - 1].ts + t->ops[t->nops - 1].dur : t->start_ts;
	o = op_add(st, thread, writes ? RP_OP_PIPE_WRITE : RP_OP_PIPE_READ, r);
	if (!o)
		return;
	o->target = pi;
	o->size = (uint64_t)r->ret;
	opi = op_index_last(st, thread);
	pp = &st->pipes[pi];
	io = (struct pipe_io){thread, opi, 0, r->ts, r->ts + r->dur};
	if (writes) {
		struct ps_proc *pr = &st->procs[t->proc];

		pp->wsum += (uint64_t)r->ret;
		io.cum = pp->wsum;
		if (GROW(st, pp->w, pp->capw, pp->nw + 1))
			pp->w[pp->nw++] = io;
		/*
		 * What a process sends depends on what it did before: the write
		 * waits for the last call each of its other threads ended before it
		 * (a DataLoader worker's feeder thread sends the batch its main
		 * thread read).
		 */
		for (uint32_t i = 0; i < pr->nthreads; i++) {
			struct ps_thread *u = &st->threads[pr->threads[i]];

			if (pr->threads[i] == thread)
				continue;
			for (uint32_t j = u->nops; j-- > 0;) {
				uint64_t end = u->ops[j].ts + u->ops[j].dur;

				if (end <= r->ts) {
					if (end > prev_end)
						dep_add(st, thread, opi, pr->threads[i], j);
					break;
				}
				if (u->nops - j > 4)
					break;
			}
		}
	} else {
		pp->rsum += (uint64_t)r->ret;
		io.cum = pp->rsum;
		if (GROW(st, pp->r, pp->capr, pp->nr + 1))
			pp->r[pp->nr++] = io;
	}
}

static void mark_rec(struct walk *w, const struct rec *r, uint32_t thread)
{
	struct rp_plan_state *st = w->st;
	struct replay_plan *p = w->p;
	struct rp_op *o;
	uint32_t mi;

	if (r->type == REC_MARK_BEGIN) {
		uint32_t cap = st->cap_marks;

		if (!GROW(st, st->marks, cap, p->nmarks + 1))
			return;
		st->cap_marks = cap;
		mi = p->nmarks++;
		st->marks[mi] =
		    (struct rp_mark){r->sub, r->number, thread, RP_NONE, RP_NONE, r->ts, r->dur};
	} else {
		/* its begin: the latest open mark of the thread with the same start */
		for (mi = p->nmarks; mi-- > 0;)
			if (st->marks[mi].thread == thread && st->marks[mi].end == RP_NONE &&
			    st->marks[mi].kind == r->sub &&
			    st->marks[mi].ts + st->marks[mi].dur == r->ts &&
			    st->marks[mi].begin != RP_NONE)
				break;
		if (mi == RP_NONE)
			return;
	}
	o = op_add(st, thread, RP_OP_MARK, r);
	if (!o)
		return;
	o->dur = 0;
	o->target = mi;
	if (r->type == REC_MARK_BEGIN)
		st->marks[mi].begin = op_index_last(st, thread);
	else
		st->marks[mi].end = op_index_last(st, thread);
}

static void fork_rec(struct walk *w, const struct rec *r)
{
	struct rp_plan_state *st = w->st;
	uint32_t parent = thread_get(st, r->pid, r->tid, r->ts), child, cproc;
	struct rp_op *o;

	if (parent == RP_NONE || u64_index_get(&st->thread_index, r->arg_lo) != U64_NONE)
		return;
	if (r->sub) {
		cproc = st->threads[parent].proc;
	} else {
		struct ps_proc *pp, *cp;

		if (u64_index_get(&st->pid_index, r->arg_lo) != U64_NONE)
			return;
		cproc = proc_get(st, r->arg_lo);
		if (cproc == RP_NONE)
			return;
		/* the child's descriptors and mappings are the parent's, as they were */
		pp = &st->procs[st->threads[parent].proc];
		cp = &st->procs[cproc];
		if (pp->nfds) {
			cp->fds = malloc(pp->nfds * sizeof(*cp->fds));
			if (!cp->fds) {
				st->oom = true;
				return;
			}
			cp->nfds = pp->nfds;
			for (uint32_t i = 0; i < pp->nfds; i++) {
				cp->fds[i].file = pp->fds[i].file;
				cp->fds[i].cloexec = pp->fds[i].cloexec;
				owner_reset(&cp->fds[i].own);
			}
		}
		if (pp->nmaps) {
			cp->maps = malloc(pp->nmaps * sizeof(*cp->maps));
			if (!cp->maps) {
				st->oom = true;
				return;
			}
			cp->nmaps = cp->cap_maps = pp->nmaps;
			for (uint32_t i = 0; i < pp->nmaps; i++) {
				cp->maps[i] = pp->maps[i];
				owner_reset(&cp->maps[i].own);
			}
		}
	}
	child = thread_new(st, r->arg_lo, cproc);
	if (child == RP_NONE)
		return;
	o = op_add(st, parent, RP_OP_SPAWN, r);
	if (!o)
		return;
	o->dur = 0;
	o->target = child;
	st->threads[child].start_ts = r->ts;
	st->threads[child].started = true;
	st->threads[child].spawned_by_thread = parent;
	st->threads[child].spawned_by_op = op_index_last(st, parent);
}

static void exec_rec(struct walk *w, const struct rec *r)
{
	struct rp_plan_state *st = w->st;
	uint32_t t = thread_get(st, r->pid, r->tid, r->ts);
	struct ps_proc *pr;

	if (t == RP_NONE)
		return;
	pr = &st->procs[st->threads[t].proc];
	/* the new program: close-on-exec descriptors closed, no mappings */
	for (uint32_t i = 0; i < pr->nfds; i++)
		if (pr->fds[i].cloexec)
			pr->fds[i].file = RP_NONE;
	pr->nmaps = 0;
}

static void exit_rec(struct walk *w, const struct rec *r)
{
	struct rp_plan_state *st = w->st;
	uint32_t t = u64_index_get(&st->thread_index, r->tid);
	struct rp_op *o;

	if (t == U64_NONE || st->threads[t].exited)
		return;
	st->threads[t].exited = true;
	st->threads[t].end_ts = r->ts;
	o = op_add(st, t, RP_OP_EXIT, r);
	if (o)
		o->dur = 0;
}

static void walk(struct rp_plan_state *st)
{
	struct walk w = {st, st->plan};

	if (st->nrecs)
		qsort(st->recs, st->nrecs, sizeof(*st->recs), rec_cmp);
	for (size_t i = 0; i < st->nrecs && !st->oom; i++) {
		const struct rec *r = &st->recs[i];
		uint32_t t;

		switch (r->type) {
		case REC_FORK:
			fork_rec(&w, r);
			continue;
		case REC_START:
			continue; /* the fork made the thread */
		case REC_EXEC:
			exec_rec(&w, r);
			continue;
		case REC_EXIT:
			exit_rec(&w, r);
			continue;
		default:
			break;
		}
		t = thread_get(st, r->pid, r->tid, r->ts);
		if (t == RP_NONE || st->threads[t].exited)
			continue;
		switch (r->type) {
		case REC_SYS:
			sys_rec(&w, r, t);
			break;
		case REC_FAULT:
			fault_rec(&w, r, t);
			break;
		case REC_PIPE:
			pipe_rec(&w, r, t);
			break;
		case REC_MARK_BEGIN:
		case REC_MARK_END:
			mark_rec(&w, r, t);
			break;
		default:
			break;
		}
	}
}

/* ---- layout ---- */

static bool thread_does_something(const struct ps_thread *t, const bool *needed)
{
	for (uint32_t i = 0; i < t->nops; i++) {
		const struct rp_op *o = &t->ops[i];

		if (o->type == RP_OP_SPAWN ? needed[o->target] : o->type != RP_OP_EXIT)
			return true;
	}
	return false;
}

/* Threads with something to do, the threads that start them, and their processes' first. */
static bool *needed_threads(struct rp_plan_state *st)
{
	bool *needed = calloc(st->nthreads ? st->nthreads : 1, sizeof(*needed));
	bool changed = true;

	if (!needed)
		return NULL;
	while (changed) {
		changed = false;
		for (uint32_t i = st->nthreads; i-- > 0;) {
			struct ps_thread *t = &st->threads[i];
			struct ps_proc *pr = &st->procs[t->proc];

			if (needed[i] || !thread_does_something(t, needed))
				continue;
			needed[i] = changed = true;
			/* its process must be started: by its first thread */
			if (pr->nthreads && !needed[pr->threads[0]]) {
				needed[pr->threads[0]] = true;
			}
		}
	}
	return needed;
}

static int u32_cmp2(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

int replay_plan__finish(struct replay_plan *p)
{
	struct rp_plan_state *st = p->st;
	uint32_t *newidx = NULL, *pairs = NULL, *procmap = NULL;
	size_t npairs = 0, cap_pairs = 0;
	bool *needed;
	uint32_t nt = 0, np = 0;
	uint64_t total = 0;

	if (st->oom)
		return -1;
	walk(st);
	if (st->oom)
		return -1;
	needed = needed_threads(st);
	newidx = malloc((st->nthreads + 1) * sizeof(*newidx));
	procmap = malloc((st->nprocs + 1) * sizeof(*procmap));
	if (!needed || !newidx || !procmap)
		goto oom;

	/* the threads kept, numbered anew; their processes likewise */
	for (uint32_t i = 0; i < st->nprocs; i++)
		procmap[i] = RP_NONE;
	for (uint32_t i = 0; i < st->nthreads; i++) {
		newidx[i] = needed[i] ? nt++ : RP_NONE;
		if (needed[i] && procmap[st->threads[i].proc] == RP_NONE)
			procmap[st->threads[i].proc] = np++;
		if (needed[i])
			total += st->threads[i].nops + 1;
	}
	p->threads = calloc(nt ? nt : 1, sizeof(*p->threads));
	p->procs = calloc(np ? np : 1, sizeof(*p->procs));
	p->ops = malloc((total ? total : 1) * sizeof(*p->ops));
	if (!p->threads || !p->procs || !p->ops)
		goto oom;
	p->nthreads = nt;
	p->nprocs = np;
	for (uint32_t i = 0; i < st->nprocs; i++) {
		uint32_t pi = procmap[i];
		struct ps_proc *pr = &st->procs[i];

		if (pi == RP_NONE)
			continue;
		p->procs[pi].parent_thread = RP_NONE;
		p->procs[pi].main_thread = pr->nthreads ? newidx[pr->threads[0]] : RP_NONE;
		p->procs[pi].start_ts = UINT64_MAX;
	}
	{
		/* pids: the index maps them to procs */
		struct u64_index_slot *s = st->pid_index.slots;

		for (size_t k = 0; k < st->pid_index.cap; k++) {
			if (s[k].value == U64_NONE || procmap[s[k].value] == RP_NONE)
				continue;
			p->procs[procmap[s[k].value]].pid = (uint32_t)s[k].key;
			{
				uint32_t nm = u64_index_get(&st->pid_names, s[k].key);

				p->procs[procmap[s[k].value]].name = nm == U64_NONE ? RP_NONE : nm;
			}
		}
	}

	/* ops, thread by thread */
	p->nops = 0;
	for (uint32_t i = 0; i < st->nthreads; i++) {
		struct ps_thread *t = &st->threads[i];
		struct rp_thread *rt;
		uint32_t ti = newidx[i], fl;

		if (ti == RP_NONE)
			continue;
		rt = &p->threads[ti];
		rt->tid = t->tid;
		rt->proc = procmap[t->proc];
		rt->op = p->nops;
		rt->start_ts = t->start_ts;
		rt->spawned_by = RP_NONE;
		rt->needed = true;
		fl = u64_index_get(&st->tid_index, t->tid);
		if (!t->started && fl != U64_NONE && st->tids[fl].first < rt->start_ts)
			rt->start_ts = st->tids[fl].first;
		rt->end_ts = t->exited ? t->end_ts : rt->start_ts;
		if (!t->exited && fl != U64_NONE && st->tids[fl].last > rt->end_ts)
			rt->end_ts = st->tids[fl].last;
		{
			uint32_t nm = u64_index_get(&st->tid_names, t->tid);

			if (nm != U64_NONE)
				rp_copy_str(
				    rt->comm, sizeof(rt->comm),
				    (struct ev_str){rp_str(p, nm), string_len(&p->strings, nm)});
		}
		for (uint32_t k = 0; k < t->nops; k++) {
			struct rp_op *o = &p->ops[p->nops++];

			*o = t->ops[k];
			if (o->type == RP_OP_SPAWN) {
				uint32_t child = o->target;

				o->target = newidx[child];
				if (o->target == RP_NONE)
					o->flags |= RPO_NOOP;
			}
			if (o->ts + o->dur > rt->end_ts)
				rt->end_ts = o->ts + o->dur;
			if (o->type == RP_OP_SYS && !(o->flags & RPO_PARTIAL) &&
			    buffer_need(o) > rt->buf_size)
				rt->buf_size = buffer_need(o);
		}
		if (!t->nops || p->ops[p->nops - 1].type != RP_OP_EXIT) {
			struct rp_op *o = &p->ops[p->nops++];

			memset(o, 0, sizeof(*o));
			o->type = RP_OP_EXIT;
			o->ts = rt->end_ts;
			o->file = o->file2 = o->text = o->map = o->target = o->times = RP_NONE;
			o->fd = o->fd2 = -1;
		}
		rt->nops = p->nops - rt->op;
		if (rt->start_ts > rt->end_ts)
			rt->start_ts = rt->end_ts;
	}
	/* who starts whom */
	for (uint32_t i = 0; i < st->nthreads; i++) {
		struct ps_thread *t = &st->threads[i];
		uint32_t ti = newidx[i], by = t->spawned_by_thread;

		if (ti == RP_NONE || by == RP_NONE || newidx[by] == RP_NONE)
			continue;
		p->threads[ti].spawned_by = p->threads[newidx[by]].op + t->spawned_by_op;
		if (st->threads[by].proc != t->proc &&
		    p->procs[p->threads[ti].proc].main_thread == ti)
			p->procs[p->threads[ti].proc].parent_thread = newidx[by];
	}
	for (uint32_t i = 0; i < nt; i++) {
		struct rp_proc *pr = &p->procs[p->threads[i].proc];

		if (p->threads[i].start_ts < pr->start_ts)
			pr->start_ts = p->threads[i].start_ts;
		if (p->threads[i].end_ts > pr->end_ts)
			pr->end_ts = p->threads[i].end_ts;
	}
	/* a thread its process's start creates (it ran before the trace): the process's first */
	for (uint32_t i = 0; i < np; i++) {
		struct rp_proc *pr = &p->procs[i];

		if (pr->main_thread == RP_NONE)
			for (uint32_t k = 0; k < nt; k++)
				if (p->threads[k].proc == i) {
					pr->main_thread = k;
					break;
				}
	}

	/* marks */
	p->marks = st->marks;
	st->marks = NULL;
	{
		uint32_t n = 0;

		for (uint32_t i = 0; i < p->nmarks; i++) {
			struct rp_mark mk = p->marks[i];

			if (mk.begin == RP_NONE || mk.end == RP_NONE ||
			    newidx[mk.thread] == RP_NONE)
				continue;
			mk.thread = newidx[mk.thread];
			mk.begin += p->threads[mk.thread].op; /* local op indexes until now */
			mk.end += p->threads[mk.thread].op;
			p->ops[mk.begin].target = n;
			p->ops[mk.end].target = n;
			p->marks[n++] = mk;
		}
		/* marks whose end was never seen keep a begin op that points nowhere */
		for (uint32_t i = 0; i < p->nops; i++)
			if (p->ops[i].type == RP_OP_MARK &&
			    (p->ops[i].target >= n || (p->marks[p->ops[i].target].begin != i &&
						       p->marks[p->ops[i].target].end != i)))
				p->ops[i].target = RP_NONE;
		p->nmarks = n;
	}

	/* deps: (waiting op, op waited for), global */
#define PAIR_ADD(a, b)                                                                             \
	do {                                                                                       \
		if (npairs == cap_pairs) {                                                         \
			size_t _c = cap_pairs;                                                     \
			uint32_t *_q =                                                             \
			    rp_grow(pairs, &_c, 2 * (npairs + 1), sizeof(*pairs), &st->oom);       \
			if (!_q)                                                                   \
				goto oom;                                                          \
			pairs = _q;                                                                \
			cap_pairs = _c / 2;                                                        \
		}                                                                                  \
		pairs[2 * npairs] = (a);                                                           \
		pairs[2 * npairs + 1] = (b);                                                       \
		npairs++;                                                                          \
	} while (0)

	for (size_t i = 0; i < st->npdeps; i++) {
		struct pend_dep *d = &st->pdeps[i];

		if (newidx[d->thread] == RP_NONE || newidx[d->dthread] == RP_NONE)
			continue;
		PAIR_ADD(p->threads[newidx[d->thread]].op + d->op,
			 p->threads[newidx[d->dthread]].op + d->dop);
	}
	/* a pipe read waits for the write that completed the bytes it returned */
	for (uint32_t i = 0; i < st->npipes; i++) {
		struct ps_pipe *pp = &st->pipes[i];
		uint32_t k = 0;
		bool used = false;

		for (uint32_t j = 0; j < pp->nr; j++) {
			struct pipe_io *rd = &pp->r[j];

			while (k < pp->nw && pp->w[k].cum < rd->cum)
				k++;
			if (k == pp->nw)
				break;
			if (newidx[rd->thread] == RP_NONE || newidx[pp->w[k].thread] == RP_NONE ||
			    rd->thread == pp->w[k].thread)
				continue;
			PAIR_ADD(p->threads[newidx[rd->thread]].op + rd->op,
				 p->threads[newidx[pp->w[k].thread]].op + pp->w[k].op);
			used = true;
		}
		p->npipes += used;
	}
	/* a child's exit before its parent's next call: the parent waited for it */
	for (uint32_t i = 0; i < nt; i++) {
		struct rp_thread *t = &p->threads[i];
		uint32_t by = t->spawned_by, pt, exit_op = t->op + t->nops - 1;
		struct rp_thread *parent;

		if (by == RP_NONE)
			continue;
		pt = rp_thread_of(p, by);
		parent = &p->threads[pt];
		for (uint32_t k = by + 1; k < parent->op + parent->nops; k++) {
			struct rp_op *o = &p->ops[k], *prev = &p->ops[k - 1];

			if (o->ts < t->end_ts)
				continue;
			if (prev->ts + prev->dur < t->end_ts)
				PAIR_ADD(k, exit_op);
			break;
		}
	}
	if (npairs)
		qsort(pairs, npairs, 2 * sizeof(*pairs), u32_cmp2);
	p->deps = malloc((npairs ? npairs : 1) * sizeof(*p->deps));
	if (!p->deps)
		goto oom;
	for (size_t i = 0; i < npairs; i++) {
		struct rp_op *o = &p->ops[pairs[2 * i]];

		if (i && pairs[2 * i] == pairs[2 * i - 2] && pairs[2 * i + 1] == pairs[2 * i - 1])
			continue;
		if (pairs[2 * i] == pairs[2 * i + 1])
			continue;
		/* a dep that ended after its waiter: damage (it could make a cycle) */
		if (p->ops[pairs[2 * i + 1]].ts + p->ops[pairs[2 * i + 1]].dur > o->ts + o->dur)
			continue;
		if (!o->ndeps)
			o->dep = p->ndeps;
		o->ndeps++;
		p->deps[p->ndeps++] = pairs[2 * i + 1];
		p->ops[pairs[2 * i + 1]].flags |= RPO_WATCHED;
	}

	/* think times: from the op's anchor (its thread's last end, its deps' ends) to its start */
	p->origin = UINT64_MAX;
	p->end = 0;
	for (uint32_t i = 0; i < nt; i++) {
		struct rp_thread *t = &p->threads[i];
		uint64_t prev_end = t->start_ts;

		if (t->start_ts < p->origin && p->procs[t->proc].parent_thread == RP_NONE)
			p->origin = t->start_ts;
		for (uint32_t k = t->op; k < t->op + t->nops; k++) {
			struct rp_op *o = &p->ops[k];
			uint64_t anchor = prev_end, end = o->ts + o->dur;

			for (uint32_t d = o->dep; d < o->dep + o->ndeps; d++) {
				struct rp_op *dop = &p->ops[p->deps[d]];
				uint64_t dend = dop->ts + dop->dur;

				if (dend <= o->ts) {
					if (dend > anchor)
						anchor = dend;
				} else if (o->type == RP_OP_PIPE_READ) {
					/* the read waited for the data: what came after it */
					o->flags |= RPO_BLOCKED;
					o->tail = end > dend ? end - dend : 0;
				}
			}
			o->gap = o->ts > anchor ? o->ts - anchor : 0;
			if (end > prev_end)
				prev_end = end;
		}
		if (t->end_ts > p->end)
			p->end = t->end_ts;
	}
	if (p->origin == UINT64_MAX)
		p->origin = 0;
	free(needed);
	free(newidx);
	free(procmap);
	free(pairs);
	rp_state_free(st);
	p->st = NULL;
	return 0;
oom:
	free(needed);
	free(newidx);
	free(procmap);
	free(pairs);
	return -1;
}

uint32_t rp_thread_of(const struct replay_plan *p, uint32_t op)
{
	uint32_t lo = 0, hi = p->nthreads;

	while (lo + 1 < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (p->threads[mid].op <= op)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

void replay_plan__count(const struct replay_plan *p, uint64_t counts[DL_SYS_COUNT + 1])
{
	memset(counts, 0, (DL_SYS_COUNT + 1) * sizeof(*counts));
	for (uint32_t i = 0; i < p->nops; i++) {
		const struct rp_op *o = &p->ops[i];

		if (o->type == RP_OP_SYS && o->sys < DL_SYS_COUNT)
			counts[o->sys]++;
		else if (o->type == RP_OP_FAULT)
			counts[RP_FAULT_KIND]++;
	}
}

const char *rp_kind_name(unsigned kind)
{
	const char *n;

	if (kind == RP_FAULT_KIND)
		return "page_fault";
	n = record_kind_name(kind);
	return n ? n : "?";
}
