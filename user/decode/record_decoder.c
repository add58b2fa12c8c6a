// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "decode/record_decoder.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "decode/path_rebuild.h"
#include "lib/proc_scan.h"
#include "event/syscall_table.h"

#define CLOSE_RANGE_UNSHARE (1U << 1)
#define CLOSE_RANGE_CLOEXEC (1U << 2)

void decoder_init(struct record_decoder *d, struct event_consumer *out)
{
	memset(d, 0, sizeof(*d));
	process_table_init(&d->procs);
	inode_paths_init(&d->inodes);
	file_names_init(&d->files);
	span_handles_init(&d->span_names);
	span_threads_init(&d->span_threads);
	d->out = out;
	d->user_uid = -1;
	d->page_size = sysconf(_SC_PAGESIZE);
}

int decoder_python(struct record_decoder *d, const struct py_rules *rules, bool full)
{
	if (!d->py)
		d->py = py_frames_new();
	d->py_rules = rules;
	d->py_full = full;
	return d->py ? 0 : -1;
}

/* Deliver e, with the ids a trace shows for its process (a reused pid has an alias). */
static void emit(struct record_decoder *d, struct event *e)
{
	proc_trace_ids(&d->procs, &e->pid, &e->tid);
	d->emitted++;
	event_deliver(d->out, e);
}

static void emit_block(void *ctx, struct event *e)
{
	emit(ctx, e);
}

/* ns since the trace's start */
static uint64_t rel(const struct record_decoder *d, uint64_t ts)
{
	return ts > d->t0 ? ts - d->t0 : 0;
}

static struct ev_path ev_path(const struct path_ref *p)
{
	if (!p)
		return (struct ev_path){{NULL, 0}, NULL};
	return (struct ev_path){{p->raw, p->len}, p};
}

static struct ev_str ev_cstr(const char *s)
{
	return (struct ev_str){s, s ? strlen(s) : 0};
}

/* Whether the comma-separated list has word. */
static bool has_word(struct ev_str list, const char *word)
{
	size_t n = strlen(word);

	for (size_t i = 0; i + n <= list.len;) {
		const char *comma = memchr(list.s + i, ',', list.len - i);
		size_t len = comma ? (size_t)(comma - (list.s + i)) : list.len - i;

		if (len == n && !memcmp(list.s + i, word, n))
			return true;
		i += len + 1;
	}
	return false;
}

void decoder_begin(struct record_decoder *d, const struct ev_trace_begin *meta)
{
	struct event e = {.type = EV_TRACE_BEGIN, .begin = *meta};

	d->t0 = meta->start_mono_ns;
	/* library calls say what their syscalls did: keep each thread's totals */
	d->span_threads.on = has_word(meta->layers, "stdio") || has_word(meta->layers, "hdf5") ||
			     has_word(meta->layers, "mpiio");
	d->emitted++;
	event_deliver(d->out, &e);
}

/* The job's user: the first process seen that does not run as root. */
static void learn_user(struct record_decoder *d, uint32_t uid)
{
	if (d->user_uid <= 0 && uid != 0)
		d->user_uid = uid;
}

/* The same, from /proc (processes found running when tracing starts). */
static void learn_user_from_proc(struct record_decoder *d, uint32_t pid)
{
	char status[2048], *p;
	unsigned uid;

	if (d->user_uid > 0 || proc_read(pid, "status", status, sizeof(status)) <= 0)
		return;
	p = strstr(status, "\nUid:");
	if (p && sscanf(p + 5, "%u", &uid) == 1)
		learn_user(d, uid);
}

void decoder_free(struct record_decoder *d)
{
	process_table_free(&d->procs);
	inode_paths_free(&d->inodes);
	file_names_free(&d->files);
	block_tracks_free(&d->blocks);
	span_handles_free(&d->span_names);
	span_threads_free(&d->span_threads);
	aio_requests_free(&d->aio);
	py_frames_free(d->py);
	d->py = NULL;
}

/* A process's display name: its command line, else its comm. */
static const char *proc_display_name(const struct process *p)
{
	return p->cmdline && *p->cmdline ? p->cmdline : p->comm;
}

#define PROC_ENV_MAX (256 * 1024) /* bytes of /proc/PID/environ looked at */

/*
 * Learn what fd refers to from /proc: only when tracing starts, for the
 * descriptors a process had before (a call is named by the kernel's
 * cookie, never from /proc, which says what fd means when it is read).
 */
static const struct fd_entry *fd_from_proc(struct process *p, int fd)
{
	char buf[DL_PATH_MAX + 1];
	struct fd_entry e = {0};
	ssize_t n;

	if (fd < 0 || !p->live)
		return NULL;
	n = proc_fd_path(p->pid, fd, buf, sizeof(buf));
	if (n <= 0)
		return NULL;
	e.path = path_intern(buf, n);
	fdt_set(p->fds, fd, &e);
	path_put(e.path);
	return fdt_lookup(p->fds, fd);
}

/* The file fd meant at time ts by the descriptor table (records may arrive late). */
static const struct path_ref *fd_path(struct process *p, int fd, uint64_t ts)
{
	const struct fd_entry *e = fdt_lookup_at(p->fds, fd, ts);

	return e ? e->path : NULL;
}

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
static struct path_ref *slot_path(const struct dl_path *rec, size_t size, int i, size_t *offset)
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

static void seed_process(struct record_decoder *d, uint32_t pid, bool fds);

static struct process *proc_for(struct record_decoder *d, const struct dl_hdr *h)
{
	struct process *p;

	/* most records come from the thread of the one before */
	if (d->last_proc && d->last_tid == h->tid && d->last_proc->pid == h->tgid)
		return d->last_proc;
	p = proc_find(&d->procs, h->tgid);

	if (!p) {
		/* first sight of a process (e.g. traced by cgroup): name it from /proc */
		if (!d->offline)
			seed_process(d, h->tgid, false);
		p = proc_ensure(&d->procs, h->tgid);
	}
	p->job = h->job;
	if (!thread_find(&d->procs, h->tid)) {
		struct thread *t = thread_ensure(&d->procs, h->tid, h->tgid);
		char file[64];

		snprintf(file, sizeof(file), "task/%u/comm", h->tid);
		if (!d->offline && proc_read(h->tgid, file, t->comm, sizeof(t->comm)) > 0)
			t->comm[strcspn(t->comm, "\n")] = '\0';
		p->threads++;
	}
	d->last_proc = p;
	d->last_tid = h->tid;
	return p;
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

/* An AIO request's begin: the iocb as submitted. */
static void aio_begin(struct record_decoder *d, const struct aio_req *r)
{
	struct event e = {.type = EV_AIO, .ts = rel(d, r->ts), .pid = r->tgid, .tid = r->tid};

	e.aio.phase = EV_PH_BEGIN;
	e.aio.opcode = r->opcode;
	e.aio.seq = r->seq;
	e.aio.fd = r->fd;
	e.aio.size_partial = r->flags & DL_AIO_IOV_TRUNC;
	e.aio.offset = r->offset;
	e.aio.len = r->nbytes;
	e.aio.data = r->data;
	e.aio.iocb = r->iocb;
	e.aio.ctx = r->ctx;
	e.aio.path = ev_path(r->path);
	emit(d, &e);
}

/* Its end: the event reaped (ev), or none (the request ends unreaped at ts). */
static void aio_end(struct record_decoder *d, const struct aio_req *r, const struct dl_aio *ev,
		    uint64_t ts)
{
	struct event e = {.type = EV_AIO, .ts = rel(d, ts), .pid = r->tgid, .tid = r->tid};

	if (ev) {
		e.pid = ev->h.tgid;
		e.tid = ev->h.tid;
		e.aio.reaped = true;
		e.aio.res = ev->res;
		e.aio.res2 = ev->res2;
	}
	e.aio.phase = EV_PH_END;
	e.aio.opcode = r->opcode;
	e.aio.seq = r->seq;
	emit(d, &e);
}

/*
 * A native AIO record: an iocb at io_submit's entry (held until the call's
 * return says whether the kernel took it), or an event io_getevents
 * returned, which ends its request.  An event of a request submitted
 * before tracing begins and ends where it was reaped.
 */
static void handle_aio(struct record_decoder *d, const struct dl_aio *a)
{
	struct process *p = proc_for(d, &a->h);
	struct aio_req *r;

	if (a->flags & DL_AIO_SUBMIT) {
		r = aio_requests_add(&d->aio);
		if (!r)
			return;
		r->tgid = a->h.tgid;
		r->tid = a->h.tid;
		r->ctx = a->ctx;
		r->iocb = a->iocb;
		r->data = a->data;
		r->ts = a->h.ts;
		r->offset = a->offset;
		r->nbytes = a->nbytes;
		r->index = a->index;
		r->fd = a->h.fd;
		r->opcode = a->opcode;
		r->flags = a->flags;
		r->path = path_get((struct path_ref *)fd_path(p, a->h.fd, a->h.ts));
		return;
	}
	r = aio_requests_find(&d->aio, a->h.tgid, a->ctx, a->iocb);
	if (r && !r->seq) {
		/*
		 * Reaped (by another thread) before its io_submit's own record came
		 * (a thread's records may wait in its batch): the kernel took it.
		 */
		r->seq = ++d->uring_requests;
		aio_begin(d, r);
	}
	if (r) {
		aio_end(d, r, a, a->h.ts);
		aio_requests_remove(&d->aio, r);
		return;
	}
	{
		struct aio_req u = {.tgid = a->h.tgid,
				    .tid = a->h.tid,
				    .ctx = a->ctx,
				    .iocb = a->iocb,
				    .data = a->data,
				    .ts = a->h.ts,
				    .seq = ++d->uring_requests,
				    .fd = -1,
				    .opcode = AIO_OP_UNKNOWN};
		struct event e = {
		    .type = EV_AIO, .ts = rel(d, a->h.ts), .pid = a->h.tgid, .tid = a->h.tid};

		e.aio.phase = EV_PH_BEGIN;
		e.aio.opcode = AIO_OP_UNKNOWN;
		e.aio.seq = u.seq;
		e.aio.fd = -1;
		e.aio.submission_unknown = true;
		e.aio.data = a->data;
		e.aio.iocb = a->iocb;
		e.aio.ctx = a->ctx;
		emit(d, &e);
		aio_end(d, &u, a, a->h.ts);
	}
}

/*
 * io_submit returned: its first ret iocbs are requests from its entry on,
 * the others were not taken.  io_destroy ends its context's requests,
 * unreaped; so does the process's exit (ctx 0: all of the process's).
 */
static void aio_submitted(struct record_decoder *d, const struct dl_io *io)
{
	for (size_t i = 0; i < d->aio.n;) {
		struct aio_req *r = &d->aio.v[i];

		if (r->seq || r->tid != io->h.tid) {
			i++;
			continue;
		}
		if (io->ret > 0 && r->index < (uint64_t)io->ret && r->ctx == io->arg) {
			r->seq = ++d->uring_requests;
			aio_begin(d, r);
			i++;
		} else {
			aio_requests_remove(&d->aio, r);
		}
	}
}

static void aio_forget(struct record_decoder *d, uint32_t tgid, uint64_t ctx, uint64_t ts)
{
	for (size_t i = 0; i < d->aio.n;) {
		struct aio_req *r = &d->aio.v[i];

		if (r->tgid != tgid || (ctx && r->ctx != ctx)) {
			i++;
			continue;
		}
		if (r->seq)
			aio_end(d, r, NULL, ts);
		aio_requests_remove(&d->aio, r);
	}
}

static void handle_syscall(struct record_decoder *d, const void *data, size_t size)
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
	p = proc_for(d, &io->h);
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
			p1 = slot_path(rec, size, 0, &off);
		if (rec->how[1] & DL_PATH_TEXT) {
			/* an xattr name, a symlink's target: the bytes as passed */
			if (off + rec->name_len[1] <= size - sizeof(*rec))
				text = (struct ev_str){rec->data + off, rec->name_len[1]};
			else
				d->malformed++;
		} else {
			p2 = slot_path(rec, size, 1, &off);
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
		aio_submitted(d, io);
	else if (io->h.kind == DL_SYS_IO_DESTROY && io->ret == 0 && io->arg)
		aio_forget(d, io->h.tgid, io->arg, io->h.ts + io->dur);
	if (rec && p1 && (rec->ino || rec->dev) && io->ret >= 0)
		inode_paths_set(&d->inodes, rec->dev, rec->ino, p1);
	update_fds(p, io, size, rec, p1);
	span_threads_syscall(
	    &d->span_threads, io->h.tid, io->h.ts, io->h.kind, io->ret, p1,
	    io->h.flags & DL_F_CACHE ? (int64_t)(dl_io_arg(io, size) * d->page_size) : -1);
	path_put(p1);
	path_put(p2);
}

/* A file the kernel met through a descriptor: what its cookie stands for. */
static void handle_file(struct record_decoder *d, const struct dl_file *rec, size_t size)
{
	const struct file_name *n = file_names_add(&d->files, rec, size);

	if (!n) {
		d->malformed++;
		return;
	}
	if (n->path && (n->dev || n->ino)) /* page faults and VFS calls name files by inode */
		inode_paths_set(&d->inodes, n->dev, n->ino, n->path);
}

static void name_process(struct record_decoder *d, const struct process *p);

static void handle_fork(struct record_decoder *d, const struct dl_proc *e)
{
	struct process *parent =
	    proc_for(d, &(struct dl_hdr){.tgid = e->ppid, .tid = e->ptid, .job = e->h.job});
	bool thread = e->h.flags & DL_F_THREAD;
	struct thread *t;

	if (thread) {
		t = thread_ensure(&d->procs, e->h.tid, e->h.tgid);
		t->live = true;
		memcpy(t->comm, e->comm, sizeof(t->comm));
		t->comm[sizeof(t->comm) - 1] = '\0';
		parent->threads++;
	} else {
		struct process *old = proc_find(&d->procs, e->h.tgid), *c;

		d->last_proc = NULL;
		if (old) { /* pid reused, or its exit was lost */
			name_process(d, old);
			proc_forget(&d->procs, e->h.tgid);
		}
		c = proc_ensure(&d->procs, e->h.tgid);
		c->ppid = e->ppid;
		c->job = e->h.job;
		memcpy(c->comm, e->comm, sizeof(c->comm));
		c->comm[sizeof(c->comm) - 1] = '\0';
		if (parent->cmdline)
			c->cmdline = strdup(parent->cmdline);
		memcpy(c->ranks, parent->ranks, sizeof(c->ranks));
		c->ranks_read = parent->ranks_read;
		fd_table_put(c->fds);
		c->fds = e->h.flags & DL_F_SHARE_FILES ? fd_table_get_ref(parent->fds)
						       : fd_table_copy(parent->fds);
		t = thread_ensure(&d->procs, e->h.tid, e->h.tgid);
		t->live = true;
		memcpy(t->comm, c->comm, sizeof(t->comm));
		c->threads = 1;
	}
	{
		uint32_t child = thread ? e->h.tid : e->h.tgid;
		struct event ev = {
		    .type = EV_FORK, .ts = rel(d, e->h.ts), .pid = e->ppid, .tid = e->ptid};

		ev.fork.thread = thread;
		ev.fork.child = child;
		ev.fork.parent_pid = e->ppid;
		ev.fork.parent_tid = e->ptid;
		ev.fork.flow = ++d->next_flow;
		emit(d, &ev);
		ev.type = EV_START;
		ev.pid = thread ? e->ppid : child;
		ev.tid = child;
		emit(d, &ev);
	}
}

static void handle_exec(struct record_decoder *d, const struct dl_proc *e, size_t size)
{
	struct process *p = proc_for(d, &e->h);
	size_t file_len = e->file_len, args_len = e->args_len;

	if (sizeof(*e) + file_len + args_len > size) {
		d->malformed++;
		return;
	}
	if (e->env_len >= sizeof(struct dl_ranks) &&
	    sizeof(*e) + file_len + args_len + sizeof(struct dl_ranks) <= size) {
		struct dl_ranks r;

		memcpy(&r, e->data + file_len + args_len, sizeof(r));
		memcpy(p->ranks, r.v, sizeof(p->ranks));
		p->ranks_read = true;
	}
	/* a non-leader thread that execs takes over the leader's id */
	if (e->ppid != e->h.tid) {
		struct thread *old = thread_find(&d->procs, e->ppid);

		if (old)
			old->live = false;
	}
	memcpy(p->comm, e->comm, sizeof(p->comm));
	p->comm[sizeof(p->comm) - 1] = '\0';
	if (args_len)
		proc_set_cmdline(p, e->data + file_len, args_len);
	p->exec_seen = true;
	learn_user(d, e->uid);
	if (p->fds->refs > 1) {
		struct fd_table *own = fd_table_copy(p->fds);

		fd_table_put(p->fds);
		p->fds = own;
	}
	fdt_exec(p->fds, e->h.ts);
	{
		struct event ev = {
		    .type = EV_EXEC, .ts = rel(d, e->h.ts), .pid = e->h.tgid, .tid = e->h.tid};

		ev.exec.file = (struct ev_str){e->data, file_len};
		ev.exec.cmdline = ev_cstr(p->cmdline);
		emit(d, &ev);
	}
}

/* A process's or thread's name (none when it is empty). */
static void emit_name(struct record_decoder *d, enum event_type type, uint32_t pid, uint32_t tid,
		      const char *name)
{
	struct event e = {.type = type, .pid = pid, .tid = tid};

	e.name.name = ev_cstr(name);
	if (e.name.name.len)
		emit(d, &e);
}

/*
 * A process's track name, with its rank when it has one ("python3
 * train.py (rank 3 of 8)"); its ranks go in the name event's args.
 */
static void name_process(struct record_decoder *d, const struct process *p)
{
	char name[DL_ARGS_MAX + 128], rank[64] = "";
	const char *from = "";
	int32_t r = proc_rank(p, &from);
	struct event e = {.type = EV_PROCESS_NAME, .pid = p->pid, .tid = p->pid};

	if (r >= 0 && p->ranks[DL_RANK_WORLD_SIZE] >= 0)
		snprintf(rank, sizeof(rank), " (rank %d of %d)", r, p->ranks[DL_RANK_WORLD_SIZE]);
	else if (r >= 0)
		snprintf(rank, sizeof(rank), " (rank %d)", r);
	/* the rank last: a reader strips it to compare commands */
	if (p->out_pid == p->pid)
		snprintf(name, sizeof(name), "%s%s", proc_display_name(p), rank);
	else /* a reused pid: its trace pid is an alias, say which real pid it was */
		snprintf(name, sizeof(name), "%s (pid %u reused)%s", proc_display_name(p), p->pid,
			 rank);
	e.name.name = ev_cstr(name);
	if (!e.name.name.len)
		return;
	e.name.ranks = p->ranks_read ? EV_RANKS_READ : 0;
	if (r >= 0) {
		e.name.ranks |= EV_RANK;
		e.name.rank = r;
		e.name.rank_from = ev_cstr(from);
	}
	if (p->ranks[DL_RANK_LOCAL_RANK] >= 0) {
		e.name.ranks |= EV_LOCAL_RANK;
		e.name.local_rank = p->ranks[DL_RANK_LOCAL_RANK];
	}
	if (p->ranks[DL_RANK_WORLD_SIZE] >= 0) {
		e.name.ranks |= EV_WORLD_SIZE;
		e.name.world_size = p->ranks[DL_RANK_WORLD_SIZE];
	}
	emit(d, &e);
}

static void handle_exit(struct record_decoder *d, const struct dl_proc *e)
{
	struct process *p = proc_for(d, &e->h);
	struct thread *t = thread_find(&d->procs, e->h.tid);
	bool group_dead = e->h.flags & DL_F_GROUP_DEAD;
	char comm[DL_COMM_LEN];

	memcpy(comm, e->comm, sizeof(comm));
	comm[sizeof(comm) - 1] = '\0';
	d->last_proc = NULL;
	{
		struct event ev = {
		    .type = EV_EXIT, .ts = rel(d, e->h.ts), .pid = e->h.tgid, .tid = e->h.tid};

		ev.exit.group_dead = group_dead;
		ev.exit.signaled = (e->exit_code & 0x7f) != 0;
		ev.exit.code = ev.exit.signaled ? e->exit_code & 0x7f : (e->exit_code >> 8) & 0xff;
		emit(d, &ev);
	}
	emit_name(d, EV_THREAD_NAME, e->h.tgid, e->h.tid, comm);
	if (t) {
		t->live = false;
		free(id_map_remove(&d->procs.threads, e->h.tid));
	}
	span_threads_exit(&d->span_threads, e->h.tid);
	if (p->threads)
		p->threads--;
	if (group_dead) {
		aio_forget(d, e->h.tgid, 0, e->h.ts);
		span_handles_forget_process(&d->span_names, e->h.tgid);
		name_process(d, p);
		proc_mark_exited(&d->procs, p, e->exit_code);
		proc_forget(&d->procs, p->pid);
		if (d->py)
			py_frames_forget(d->py, e->h.tgid);
	}
}

static void handle_fault(struct record_decoder *d, const struct dl_fault *f)
{
	struct event e = {
	    .type = EV_FAULT, .ts = rel(d, f->h.ts), .pid = f->h.tgid, .tid = f->h.tid};

	proc_for(d, &f->h);
	e.fault.write = f->flags & DL_FAULT_WRITE;
	e.fault.exec = f->flags & DL_FAULT_EXEC;
	e.fault.cow = f->flags & DL_FAULT_COW;
	e.fault.size = d->page_size;
	e.fault.offset = f->offset;
	e.fault.address = f->address;
	e.fault.ino = f->ino;
	e.fault.dev = f->dev;
	e.fault.path =
	    ev_path(inode_paths_get(&d->inodes, f->dev, f->ino, d->offline ? 0 : f->h.tgid));
	emit(d, &e);
}

/*
 * An io_uring request: its submission and its completion.  Its file is the
 * one the request used (its inode, named by a DL_EV_FILE record), else the
 * descriptor's at submission; a registered file's index is no descriptor,
 * so without its inode's name the path is unknown, and said so.
 */
static void handle_uring(struct record_decoder *d, const struct dl_uring *u)
{
	struct process *p = proc_for(d, &u->h);
	struct event e = {
	    .type = EV_URING, .ts = rel(d, u->h.ts), .pid = u->h.tgid, .tid = u->h.tid};
	const struct path_ref *path = NULL;
	bool fixed = u->flags & DL_URING_FIXED;

	e.uring.phase = EV_PH_BEGIN;
	e.uring.opcode = u->opcode;
	e.uring.seq = ++d->uring_requests;
	e.uring.fd = u->h.fd;
	e.uring.fixed = fixed;
	e.uring.len = u->len;
	e.uring.offset = u->offset;
	e.uring.user_data = u->user_data;
	if (u->flags & DL_URING_FILE) {
		path = inode_paths_get(&d->inodes, u->dev, u->ino, 0);
		e.uring.has_file = true;
		e.uring.ino = u->ino;
		e.uring.dev = u->dev;
	}
	if (!path && !fixed && u->h.fd >= 0)
		path = fd_path(p, u->h.fd, u->h.ts);
	/* a request on a file whose name is not known (a request without a file has none) */
	e.uring.path_unknown = !path && (fixed || (u->flags & DL_URING_FILE));
	e.uring.path = ev_path(path);
	emit(d, &e);
	e.ts = rel(d, u->h.ts + u->dur);
	e.uring.phase = EV_PH_END;
	e.uring.res = u->res;
	emit(d, &e);
}

static void handle_vfs(struct record_decoder *d, const struct dl_vfs *v)
{
	struct event e = {.type = EV_VFS, .ts = rel(d, v->h.ts), .pid = v->h.tgid, .tid = v->h.tid};

	proc_for(d, &v->h);
	e.vfs.op = v->op;
	e.vfs.write = v->write;
	e.vfs.dur = v->dur;
	e.vfs.ret = v->ret;
	e.vfs.offset = v->offset;
	e.vfs.size = v->size;
	e.vfs.ino = v->ino;
	e.vfs.dev = v->dev;
	e.vfs.fs_magic = v->fs_magic;
	e.vfs.path =
	    ev_path(inode_paths_get(&d->inodes, v->dev, v->ino, d->offline ? 0 : v->h.tgid));
	emit(d, &e);
}

static void handle_vfs_open(struct record_decoder *d, const struct dl_path *rec, size_t size)
{
	size_t off = 0;
	struct path_ref *path;

	proc_for(d, &rec->io.h);
	path = slot_path(rec, size, 0, &off);
	if (path && rec->io.ret >= 0)
		inode_paths_set(&d->inodes, rec->dev, rec->ino, path);
	{
		struct event e = {.type = EV_VFS_OPEN,
				  .ts = rel(d, rec->io.h.ts),
				  .pid = rec->io.h.tgid,
				  .tid = rec->io.h.tid};

		e.vfs_open.ret = rec->io.ret;
		e.vfs_open.ino = rec->ino;
		e.vfs_open.file_size = rec->file_size;
		e.vfs_open.dev = rec->dev;
		e.vfs_open.fs_magic = rec->fs_magic;
		e.vfs_open.path = ev_path(path);
		emit(d, &e);
	}
	path_put(path);
}

static bool opens_file(unsigned func)
{
	return func == DL_FN_FOPEN || func == DL_FN_FOPEN64 || func == DL_FN_FDOPEN ||
	       func == DL_FN_H5FCREATE || func == DL_FN_H5FOPEN || func == DL_FN_MPI_FILE_OPEN;
}

/*
 * A library call, or a marked region, instant or counter: one EV_SPAN.  A
 * call is named after the objects it works on (the handle table), and its
 * file is made absolute: a stream's from its descriptor, a relative HDF5 or
 * MPI-IO file name from the open the call made.
 */
static void handle_span(struct record_decoder *d, const void *rec, size_t size)
{
	struct span_view v, named;
	const struct dl_span *s;
	struct process *p;
	const struct path_ref *file = NULL;
	const struct span_name *n;
	struct sys_totals enclosed;
	struct span_context c = {0};
	struct ev_path path = {{NULL, 0}, NULL};
	struct event e = {.type = EV_SPAN};
	bool library, ok;

	if (span_view(rec, size, &v)) {
		d->malformed++;
		return;
	}
	s = v.rec;
	p = proc_for(d, &s->h);
	library = s->level != DL_LAYER_MARKERS;
	named = v;
	if (library) {
		c.enclosed = &enclosed;
		c.enclosed_partial =
		    !span_threads_enclosed(&d->span_threads, s->h.tid, s->h.ts, &enclosed);
		ok = s->level == DL_LAYER_STDIO ? s->ret != 0 : (int64_t)s->ret >= 0;
		if (s->flags & DL_SPAN_FD) /* a descriptor opened by the call exists at its end */
			file =
			    fd_path(p, s->h.fd, opens_file(s->func) ? s->h.ts + s->dur : s->h.ts);
		else if (opens_file(s->func) && ok && v.str_len && v.str[0] != '/')
			file = span_threads_opened(&d->span_threads, s->h.tid, s->h.ts, v.str,
						   v.str_len);
		if (file && opens_file(s->func)) { /* the handle table keeps the absolute name */
			named.str = file->raw;
			named.str_len = file->len;
		}
	}
	n = span_handles_apply(&d->span_names, &named);
	if (file) {
		path = ev_path(file);
	} else if (library && opens_file(s->func)) {
		path.name = (struct ev_str){v.str, v.str_len};
	} else if (n) {
		const char *f = s->level == DL_LAYER_HDF5 ? n->file : n->name;

		path.name = ev_cstr(f);
	}
	c.path = &path;
	if (n && s->level == DL_LAYER_HDF5 && !opens_file(s->func))
		c.object = n->name;
	e.ts = rel(d, s->h.ts);
	e.pid = s->h.tgid;
	e.tid = s->h.tid;
	span_event(&v, &c, &e.span, d->span_args, d->span_scratch);
	emit(d, &e);
	if (library && s->depth == 0)
		span_threads_reset(&d->span_threads, s->h.tid);
}

/* Smallest record of each kind beyond the syscalls. */
static size_t min_size(unsigned kind)
{
	switch (kind) {
	case DL_EV_FAULT:
		return sizeof(struct dl_fault);
	case DL_EV_BLOCK:
		return sizeof(struct dl_block);
	case DL_EV_URING:
		return sizeof(struct dl_uring);
	case DL_EV_VFS:
		return sizeof(struct dl_vfs);
	case DL_EV_VFS_OPEN:
		return sizeof(struct dl_path);
	case DL_EV_CGROUP:
		return sizeof(struct dl_cgroup);
	case DL_EV_SPAN:
		return sizeof(struct dl_span);
	case DL_EV_FILE:
		return sizeof(struct dl_file);
	case DL_EV_AIO:
		return sizeof(struct dl_aio);
	default:
		return sizeof(struct dl_proc);
	}
}

void decoder_handle(struct record_decoder *d, const void *rec, size_t size)
{
	const struct dl_hdr *h = rec;

	if (size < sizeof(*h) || h->kind >= DL_KIND_COUNT) {
		d->malformed++;
		return;
	}
	if (h->kind < DL_SYS_COUNT && (h->flags & DL_F_BATCH) && size > sizeof(struct dl_io)) {
		/* a task's batch of data records */
		for (size_t off = 0; off + sizeof(struct dl_io) <= size;
		     off += sizeof(struct dl_io))
			decoder_handle(d, (const char *)rec + off, sizeof(struct dl_io));
		return;
	}
	d->records++;
	d->by_kind[h->kind]++;
	if (h->ts > d->last_ts)
		d->last_ts = h->ts;
	if (h->kind < DL_SYS_COUNT) {
		handle_syscall(d, rec, size);
		return;
	}
	if (h->kind == DL_EV_PY_STACK || h->kind == DL_EV_PY_CODE) {
		/* sent before the first syscall record that uses them */
		if (d->py && py_frames_record(d->py, rec, size))
			d->malformed++;
		return;
	}
	if (size < min_size(h->kind)) {
		d->malformed++;
		return;
	}
	switch (h->kind) {
	case DL_EV_FAULT:
		handle_fault(d, rec);
		break;
	case DL_EV_BLOCK:
		block_tracks_add(&d->blocks, rec, d->t0, emit_block, d);
		break;
	case DL_EV_URING:
		handle_uring(d, rec);
		break;
	case DL_EV_VFS:
		handle_vfs(d, rec);
		break;
	case DL_EV_VFS_OPEN:
		handle_vfs_open(d, rec, size);
		break;
	case DL_EV_CGROUP: /* the daemon's business */
		break;
	case DL_EV_SPAN:
		handle_span(d, rec, size);
		break;
	case DL_EV_FILE:
		handle_file(d, rec, size);
		break;
	case DL_EV_AIO:
		handle_aio(d, rec);
		break;
	case DL_EV_FORK:
		handle_fork(d, rec);
		break;
	case DL_EV_EXEC:
		handle_exec(d, rec, size);
		break;
	case DL_EV_EXIT:
		handle_exit(d, rec);
		break;
	default:
		d->malformed++;
	}
}

static void seed_fd(pid_t fd, void *ctx)
{
	fd_from_proc(ctx, fd);
}

struct seed_ctx {
	struct record_decoder *d;
	struct process *p;
};

static void seed_thread(pid_t tid, void *ctx)
{
	struct seed_ctx *s = ctx;
	struct thread *t = thread_ensure(&s->d->procs, tid, s->p->pid);
	char file[64];

	snprintf(file, sizeof(file), "task/%d/comm", (int)tid);
	if (proc_read(s->p->pid, file, t->comm, sizeof(t->comm)) > 0)
		t->comm[strcspn(t->comm, "\n")] = '\0';
	s->p->threads++;
}

/* A process first seen: its names from /proc, and with fds its descriptors (at attach only). */
static void seed_process(struct record_decoder *d, uint32_t pid, bool fds)
{
	struct process *p;
	char buf[DL_ARGS_MAX + 1];
	ssize_t n;

	if (proc_find(&d->procs, pid))
		return;
	p = proc_ensure(&d->procs, pid);
	p->ppid = proc_ppid(pid);
	learn_user_from_proc(d, pid);
	n = proc_read(pid, "cmdline", buf, sizeof(buf));
	if (n > 0)
		proc_set_cmdline(p, buf, n);
	if (proc_read(pid, "comm", p->comm, sizeof(p->comm)) > 0)
		p->comm[strcspn(p->comm, "\n")] = '\0';
	{
		/* a process there before the trace: its ranks from the environment it began with */
		char *env = malloc(PROC_ENV_MAX);

		n = env ? proc_read(pid, "environ", env, PROC_ENV_MAX) : -1;
		if (n >= 0)
			proc_ranks_from_env(p, env, (size_t)n);
		free(env);
	}
	if (fds)
		proc_for_each_fd(pid, seed_fd, p);
	proc_for_each_thread(pid, seed_thread, &(struct seed_ctx){d, p});
}

void decoder_seed_process(struct record_decoder *d, uint32_t pid)
{
	seed_process(d, pid, true);
}

void decoder_finish(struct record_decoder *d, struct ev_trace_end *end)
{
	struct event e = {.type = EV_TRACE_END};
	uint32_t key;
	void *v;

	block_tracks_finish(&d->blocks, d->t0, emit_block, d);
	while (d->aio.n) { /* requests still in flight: unreaped at the trace's end */
		struct aio_req *r = &d->aio.v[d->aio.n - 1];

		if (r->seq)
			aio_end(d, r, NULL, d->last_ts > r->ts ? d->last_ts : r->ts);
		aio_requests_remove(&d->aio, r);
	}
	for (size_t i = 0; id_map_next(&d->procs.procs, &i, &key, &v);)
		name_process(d, v);
	for (size_t i = 0; id_map_next(&d->procs.threads, &i, &key, &v);) {
		struct thread *t = v;

		emit_name(d, EV_THREAD_NAME, t->pid, t->tid, t->comm);
	}
	end->events = ++d->emitted;
	end->paths_unknown = d->paths_unknown;
	e.end = *end;
	event_deliver(d->out, &e);
}
