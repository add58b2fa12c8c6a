// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Syscall records: their events, the files their descriptors, cookies and
 * path records name, and the descriptor tables their calls change.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/stat.h>

#include "decode/decode_emit.h"
#include "decode/path_rebuild.h"
#include "decode/record_decoder_internal.h"
#include "event/syscall_table.h"

#define CLOSE_RANGE_UNSHARE (1U << 1)
#define CLOSE_RANGE_CLOEXEC (1U << 2)

/* How a call names its file by descriptor. */
struct fd_naming {
	const struct path_ref *path;
	uint16_t family; /* a socket's address family */
	bool unknown;	 /* the cookie's struct dl_file never came: the file cannot be known */
};

/* The file of a cookie, with no descriptor (0: none). */
static struct fd_naming cookie_file(struct record_decoder *d, uint32_t cookie)
{
	const struct file_name *n = file_names_get(&d->files, cookie);
	struct fd_naming r = {n ? n->path : NULL, n ? n->family : 0, cookie && !n};

	d->paths_unknown += r.unknown;
	return r;
}

/*
 * The file descriptor fd meant at a call at ts, by the cookie the kernel
 * recorded (0: fd had no file): the descriptor table's entry when it holds
 * that cookie, else the cookie's own file, which the table then learns
 * (a descriptor made by a call dltrace does not trace, or renamed).
 */
static struct fd_naming fd_file(struct record_decoder *d, struct process *p, int fd,
				uint32_t cookie, uint64_t ts)
{
	const struct file_name *n = file_names_get(&d->files, cookie);
	const struct fd_entry *e, *now;
	struct fd_naming r = {NULL, n ? n->family : 0, false};
	struct fd_entry learnt = {0};

	if (!cookie)
		return r;
	e = fdt_lookup_at(p->fds, fd, ts);
	if (e && e->cookie == cookie) {
		r.path = e->path;
		return r;
	}
	if (n) {
		learnt = (struct fd_entry){n->path, n->ino, n->dev, false, cookie, ts};
	} else {
		/* an open's cookie (the open's record was its file's) on another descriptor */
		const struct fd_entry *o = fdt_find_cookie(p->fds, cookie);

		if (o)
			learnt = (struct fd_entry){o->path, o->ino, o->dev, false, cookie, ts};
	}
	if (!learnt.path) {
		r.unknown = true;
		d->paths_unknown++;
		return r;
	}
	r.path = learnt.path;
	now = fdt_lookup(p->fds, fd);
	if (!now || now->since <= ts) {
		/* the same file under a new cookie (after a rename) keeps its close-on-exec */
		if (now && now->dev == learnt.dev && now->ino == learnt.ino)
			learnt.cloexec = now->cloexec;
		fdt_set(p->fds, fd, &learnt);
	}
	return r;
}

/* Rebuild path slot i of a path record; NULL when the slot is empty. */
struct path_ref *decoder__slot_path(const struct dl_path *rec, size_t size, int i, size_t *offset)
{
	const char *data = rec->data;
	size_t avail = size - sizeof(*rec);
	size_t base = rec->base_len[i], name = rec->name_len[i];
	char out[PATH_REBUILD_MAX];
	size_t len;

	if (!rec->how[i] || *offset + base + name > avail) {
		*offset = avail;
		return NULL;
	}
	len = path_rebuild(data + *offset, base, data + *offset + base, name, rec->how[i], out);
	*offset += base + name;
	if (!len)
		return NULL;
	return path_intern(out, len);
}

static void update_fds(struct process *p, const struct dl_io *io, size_t size,
		       const struct dl_path *rec, struct path_ref *opened)
{
	uint64_t arg = dl_io_arg(io, size);
	uint32_t lo = arg & 0xffffffff, hi = arg >> 32;
	uint64_t done = io->h.ts + io->dur; /* a new descriptor exists from the exit on */

	if (io->ret < 0)
		return;
	switch (io->h.kind) {
	case DL_SYS_OPEN:
	case DL_SYS_OPENAT:
	case DL_SYS_OPENAT2:
	case DL_SYS_CREAT:
		if (opened) {
			struct fd_entry e = {opened,
					     rec->ino,
					     rec->dev,
					     (lo & O_CLOEXEC) != 0,
					     io->h.flags & DL_F_FILE ? io->file : 0,
					     done};

			fdt_set(p->fds, io->ret, &e);
		}
		break;
	case DL_SYS_CLOSE:
		fdt_close(p->fds, io->h.fd, io->h.ts);
		break;
	case DL_SYS_CLOSE_RANGE:
		if (hi & CLOSE_RANGE_UNSHARE && p->fds->refs > 1) {
			struct fd_table *own = fd_table_copy(p->fds);

			fd_table_put(p->fds);
			p->fds = own;
		}
		fdt_close_range(p->fds, io->h.fd, lo, hi & CLOSE_RANGE_CLOEXEC, io->h.ts);
		break;
	case DL_SYS_DUP:
		fdt_dup(p->fds, io->h.fd, io->ret, false, done);
		break;
	case DL_SYS_DUP2:
		fdt_dup(p->fds, io->h.fd, io->ret, false, done);
		break;
	case DL_SYS_DUP3:
		fdt_dup(p->fds, io->h.fd, io->ret, hi & O_CLOEXEC, done);
		break;
	case DL_SYS_FCNTL:
		if (lo == F_DUPFD || lo == F_DUPFD_CLOEXEC)
			fdt_dup(p->fds, io->h.fd, io->ret, lo == F_DUPFD_CLOEXEC, done);
		else if (lo == F_SETFD)
			fdt_set_cloexec(p->fds, io->h.fd, hi & FD_CLOEXEC);
		break;
	default:
		break;
	}
}

static bool utime_special(uint32_t nsec)
{
	return nsec == UTIME_NOW || nsec == UTIME_OMIT;
}

/* The syscall event of a record; rec: its path record, if it has one. */
static void emit_syscall(struct record_decoder *d, const struct dl_io *io, size_t size,
			 const struct dl_path *rec, const struct fd_naming *path,
			 const struct fd_naming *path2, struct ev_str text, uint32_t py)
{
	uint64_t arg = dl_io_arg(io, size); /* without the Python stack id */
	struct event e = {
	    .type = EV_SYSCALL, .ts = rel(d, io->h.ts), .pid = io->h.tgid, .tid = io->h.tid};
	struct ev_syscall *s = &e.sys;

	s->sys = io->h.kind;
	s->dur = io->dur;
	if (d->run.calls) {
		s->calls = d->run.calls;
		s->span = d->run.span;
		s->longest = d->run.longest;
		s->stride = d->run.stride;
	}
	s->ret = io->ret;
	s->fd = io->h.fd;
	s->offset = io->offset;
	s->size = io->size;
	if (io->h.flags & DL_F_OFFSET)
		s->flags |= EVS_OFFSET;
	if (io->h.flags & DL_F_IOV_TRUNC)
		s->flags |= EVS_IOV_TRUNC;
	if (io->h.kind == DL_SYS_SPLICE && (io->arg & DL_SPLICE_OUT_OFFSET))
		s->flags |= EVS_OUT_OFFSET;
	if (io->h.flags & DL_F_CACHE) {
		s->flags |= EVS_CACHE;
		s->cache_miss_bytes = arg * d->page_size;
	} else {
		s->arg_lo = arg & 0xffffffff;
		s->arg_hi = (arg & ~DL_SPLICE_OUT_OFFSET) >> 32;
	}
	if (dl_kind_by_fd(io->h.kind, size)) { /* a stat of a descriptor: arg is the *at flags */
		s->at_flags = arg;
		s->arg_lo = s->arg_hi = 0;
	}
	if (rec) {
		s->at_flags = rec->flags;
		if (rec->dev || rec->ino) {
			s->flags |= EVS_IDENTITY;
			s->ino = rec->ino;
			s->dev = rec->dev;
			s->fs_magic = rec->fs_magic;
			s->file_size = rec->file_size;
		}
	}
	if (rec && syscall_info(s->sys)->times) {
		/* utime* (path records): offset (atime's seconds), size (mtime's), arg (their ns)
		 */
		/* UTIME_NOW and UTIME_OMIT ignore the seconds: 0, as a trace shows them */
		s->times.sec[0] = utime_special(s->arg_lo) ? 0 : (int64_t)io->offset;
		s->times.sec[1] = utime_special(s->arg_hi) ? 0 : (int64_t)io->size;
		s->times.nsec[0] = s->arg_lo;
		s->times.nsec[1] = s->arg_hi;
		s->offset = s->size = 0;
		s->arg_lo = s->arg_hi = 0;
	}
	if (rec && dl_kind_maps(s->sys))
		s->addr = rec->addr;
	s->path = ev_path(path->path);
	s->path2 = ev_path(path2->path);
	s->sock_family = path->family;
	if (path->unknown)
		s->flags |= EVS_PATH_UNKNOWN;
	if (path2->unknown)
		s->flags |= EVS_PATH2_UNKNOWN;
	s->text = text;
	if (py && d->py) {
		size_t len;
		const char *t = py_frames_text(d->py, d->py_rules, io->h.tgid, py, false, &len);

		s->py = (struct ev_str){t, len};
		if (d->py_full) {
			t = py_frames_text(d->py, d->py_rules, io->h.tgid, py, true, &len);
			s->py_stack = (struct ev_str){t, len};
		}
	}
	emit(d, &e);
}

void decoder__handle_syscall(struct record_decoder *d, const void *data, size_t size)
{
	const struct dl_io *io = data;
	const struct dl_path *rec = NULL;
	struct fd_naming path = {0}, path2 = {0};
	struct path_ref *p1 = NULL, *p2 = NULL;
	struct ev_str text = {NULL, 0};
	struct process *p;
	bool cookies;

	if (size < sizeof(*io)) {
		d->malformed++;
		return;
	}
	p = decoder__proc_for(d, &io->h);
	/* the kernel says which file each descriptor meant (not the table) */
	cookies = io->h.flags & DL_F_FILE;
	if (dl_kind_has_path(io->h.kind) && !dl_kind_by_fd(io->h.kind, size)) {
		size_t off = 0;

		if (size < sizeof(*rec)) {
			d->malformed++;
			return;
		}
		rec = data;
		if (rec->how[0]) /* empty when a descriptor names the file (fsetxattr, ...) */
			p1 = decoder__slot_path(rec, size, 0, &off);
		if (rec->how[1] & DL_PATH_TEXT) {
			/* an xattr name, a symlink's target: the bytes as passed */
			if (off + rec->name_len[1] <= size - sizeof(*rec))
				text = (struct ev_str){rec->data + off, rec->name_len[1]};
			else
				d->malformed++;
		} else {
			p2 = decoder__slot_path(rec, size, 1, &off);
		}
		path.path = p1;
		path2.path = p2;
		/*
		 * fstatat(fd, "", AT_EMPTY_PATH), futimens, fsetxattr, fgetxattr,
		 * fremovexattr: the file is the descriptor's (an open's cookie is the
		 * opened file's: its dirfd is no file of the call)
		 */
		if (!p1 && io->h.fd >= 0 &&
		    ((rec->how[0] && !rec->name_len[0] && !rec->base_len[0]) ||
		     dl_kind_names_fd(io->h.kind))) {
			if (cookies)
				path = fd_file(d, p, io->h.fd, io->file, io->h.ts);
			else
				path.path = fd_path(p, io->h.fd, io->h.ts);
		}
		/* a mapping of a file the walk cannot name (memfd): by its cookie */
		if (!p1 && cookies && dl_kind_maps(io->h.kind))
			path = cookie_file(d, io->file);
	} else if (io->h.kind != DL_SYS_CLOSE_RANGE) {
		int out_fd = (int)(io->arg & 0xffffffff);
		bool pair = dl_kind_out_fd(io->h.kind); /* sendfile, splice, ... */

		if (cookies) {
			path = fd_file(d, p, io->h.fd, io->file, io->h.ts);
			if (pair && io->file2)
				path2 = fd_file(d, p, out_fd, io->file2, io->h.ts);
			else if (pair) /* the shared programs' kinds carry no second cookie */
				path2.path = fd_path(p, out_fd, io->h.ts);
		} else {
			path.path = fd_path(p, io->h.fd, io->h.ts);
			if (pair)
				path2.path = fd_path(p, out_fd, io->h.ts);
		}
	}
	emit_syscall(d, io, size, rec, &path, &path2, text, dl_py_stack_of(io, size));
	if (io->h.kind == DL_SYS_IO_SUBMIT)
		decoder__aio_submitted(d, io);
	else if (io->h.kind == DL_SYS_IO_DESTROY && io->ret == 0 && io->arg)
		decoder__aio_forget(d, io->h.tgid, io->arg, io->h.ts + io->dur);
	if (rec && p1 && (rec->ino || rec->dev) && io->ret >= 0)
		inode_paths_set(&d->inodes, rec->dev, rec->ino, p1);
	update_fds(p, io, size, rec, p1);
	if (d->span_threads.on) { /* only library calls need the bytes a read missed */
		int64_t miss =
		    io->h.flags & DL_F_CACHE ? (int64_t)(dl_io_arg(io, size) * d->page_size) : -1;

		span_threads_syscall(&d->span_threads, io->h.tid, io->h.ts, io->h.kind, io->ret, p1,
				     miss, d->run.calls ? d->run.calls : 1);
	}
	path_put(p1);
	path_put(p2);
}

/* A run of calls alike (dltrace_events.h: DL_KIND_RUN): one event, its calls counted. */
void decoder__handle_run(struct record_decoder *d, const struct dl_io *rec, size_t size)
{
	struct dl_io io;

	if (size != sizeof(io) || !rec->file2 || rec->ret <= 0) {
		d->malformed++;
		return;
	}
	io = *rec;
	io.h.kind &= ~(DL_KIND_RUN | DL_KIND_RUN_SAME);
	io.size = (uint64_t)rec->ret;
	io.arg = rec->arg & 0xffffffff;
	d->run.calls = rec->file2;
	d->run.span = rec->size;
	d->run.longest = rec->arg >> 32;
	d->run.stride = rec->h.kind & DL_KIND_RUN_SAME ? 0 : (uint64_t)rec->ret;
	d->runs++;
	d->run_calls += rec->file2;
	decoder__handle_syscall(d, &io, sizeof(io));
	d->run.calls = 0;
}

/* A file the kernel met through a descriptor: what its cookie stands for. */
void decoder__handle_file(struct record_decoder *d, const struct dl_file *rec, size_t size)
{
	const struct file_name *n = file_names_add(&d->files, rec, size);

	if (!n) {
		d->malformed++;
		return;
	}
	if (n->path && (n->dev || n->ino)) /* page faults and VFS calls name files by inode */
		inode_paths_set(&d->inodes, n->dev, n->ino, n->path);
}
