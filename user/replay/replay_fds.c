// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A file call or page fault on the walk: the op it makes, what it says of
 * its file, and what it does to its process's descriptor table and mappings
 * (who must come first: the deps of descriptors and mappings).
 */
#define _GNU_SOURCE
#include "replay/replay_walk_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "event/syscall_table.h"

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
			deps_owner_reset(&q[i].own);
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
	deps_owner_end(w->st, &s->own, thread, op);
	s->file = file;
	s->cloexec = cloexec;
}

void fds_sys_rec(struct walk *w, const struct rec *r, uint32_t thread)
{
	struct rp_plan_state *st = w->st;
	struct replay_plan *p = w->p;
	uint32_t proc = st->threads[thread].proc;
	unsigned k = r->sys;
	struct ps_fd *slot = NULL;
	struct ps_map *m = NULL;
	uint32_t file = ps_file_of(st, r->path), file2 = RP_NONE, opi;
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
		file2 = ps_file_of(st, r->path2);
	}
	o = ps_op_add(st, thread, RP_OP_SYS, r);
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
		deps_owner_use(st, &slot->own, thread, opi);
	if ((k == DL_SYS_SENDFILE || k == DL_SYS_COPY_FILE_RANGE)) {
		struct ps_fd *out = fd_slot(st, proc, (int32_t)r->arg_lo, false);

		if (out)
			deps_owner_use(st, &out->own, thread, opi);
	}
	if (m) {
		o->map = m->slot;
		if (k == DL_SYS_MUNMAP) {
			deps_owner_end(st, &m->own, thread, opi);
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
			deps_owner_use(st, &m->own, thread, opi);
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
			deps_owner_end(st, &slot->own, thread, opi);
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
		deps_owner_end(st, &slot->own, thread, opi);
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
		deps_owner_reset(&m->own);
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

void fds_fault_rec(struct walk *w, const struct rec *r, uint32_t thread)
{
	struct rp_plan_state *st = w->st;
	struct replay_plan *p = w->p;
	struct ps_proc *pr = &st->procs[st->threads[thread].proc];
	uint32_t file = ps_file_of(st, r->path);
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
	o = ps_op_add(st, thread, RP_OP_FAULT, r);
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
	deps_owner_use(st, &m->own, thread, op_index_last(st, thread));
}
