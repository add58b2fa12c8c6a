// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Metadata, hint and sync syscalls: access, chmod, chown, utimensat,
 * truncate, link, symlink, readlink, mknod, the xattr calls, statfs,
 * chdir, flock, fadvise64, readahead, madvise, msync, munmap, sync,
 * syncfs and their variants (the kinds from DL_SYS_ACCESS on).
 *
 * Two programs serve them all: dl_enter_shared is attached to the
 * sys_enter_* tracepoint of each of these syscalls and dl_exit_shared to
 * its sys_exit_*, and each attachment carries the syscall's kind as its
 * BPF cookie (user/probe/probe_loader.c).  Loading a program costs the
 * kernel about 10 ms here (verification and JIT), attaching one to a
 * tracepoint well under 1 ms: two programs instead of 104 keep dltrace's
 * start-up where it was, and unlike raw_syscalls these programs run only
 * for the syscalls they report (docs/performance.md "Results").  bench/ builds the
 * two alternatives from this file for that comparison (DL_HOOKS_*).
 *
 * A program attached to several tracepoints may read from its context only
 * what every one of them has: the syscall number (offset 8) and, at exit,
 * the return value.  The arguments are copied with bpf_probe_read_kernel:
 * the kernel hands BPF a struct with room for six (perf_call_bpf_enter),
 * of which the kind's own are used.
 *
 * Records: the kinds that name a file (or carry a string, or name the file
 * of a mapping) are a struct dl_path sent at once; the others are data
 * records gathered in the task's batch (ring_output.bpf.h).  A call whose
 * file is a descriptor (fchmod, fsetxattr, utimensat(fd, NULL), fchownat
 * with AT_EMPTY_PATH, ...) records which file it was, at entry
 * (file_identity.bpf.h).
 *
 * The kinds from DL_SYS_SPLICE on are pipe transfers (splice, vmsplice,
 * tee: fd, the other fd, the file side's offset, length, ret), native AIO
 * (io_submit and io_getevents also send each iocb and each event reaped:
 * aio_records.bpf.h) and io_uring's own calls.  They are rare enough for
 * the shared programs: no program to load, a cookie per attachment.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "dltrace_events.h"
#include "task_filter.bpf.h"
#include "ring_output.bpf.h"
#include "path_walk.bpf.h"
#include "iovec.bpf.h"
#include "aio_records.bpf.h"
#include "file_identity.bpf.h"

/* the DL_HOOKS_NONE variant (bench/) has no program: the helpers go unused */
#ifdef DL_HOOKS_NONE
#define DL_META_HELPER static __always_inline __attribute__((unused))
#else
#define DL_META_HELPER static __always_inline
#endif

#define AT_FDCWD   -100
#define PAGE_SHIFT 12
#define UTIME_NOW  ((1l << 30) - 1l)
#define S_IFMT	   0170000
#define S_IFREG	   0100000
#define S_IFBLK	   0060000

/*
 * setxattrat/getxattrat's argument (UAPI, linux/xattr.h, 6.13).  Not the
 * vmlinux.h type: its field reads would be CO-RE relocations, which fail on
 * kernels older than the struct (6.1 refused the whole program).
 */
struct dl_xattr_args {
	__u64 value;
	__u32 size;
	__u32 flags;
};

/* madvise, msync, munmap: the file mapped at an address */
struct dl_map_lookup {
	__u64 addr;
	__u64 file;   /* struct file *, 0: anonymous or nothing mapped */
	__u64 offset; /* file offset of addr */
};

static long dl_map_vma(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	struct dl_map_lookup *m = data;
	/* read, not loaded: a pointer loaded from a trusted one costs the verifier a BTF search */
	struct file *file = BPF_CORE_READ(vma, vm_file);

	(void)task;
	if (file) {
		m->file = (__u64)file;
		m->offset = (m->addr - vma->vm_start) + (vma->vm_pgoff << PAGE_SHIFT);
	}
	return 0;
}

/* A file whose offset a splice reports: a regular file or a block device (not a pipe or socket). */
static __always_inline int dl_has_offset(struct file *f)
{
	__u16 mode = BPF_CORE_READ(f, f_inode, i_mode) & S_IFMT;

	return mode == S_IFREG || mode == S_IFBLK;
}

/*
 * splice(fd_in, off_in, fd_out, off_out, len, flags): the offset of its
 * file side (*off when given, else the file position), the input's when
 * it is a file, else the output's (DL_F_OUT_OFFSET).
 */
static __always_inline void splice_offset(struct dl_task *t)
{
	__u64 *a = t->a;

	for (int side = 0; side < 2; side++) {
		struct file *f = dl_fd_file((int)a[2 * side]);
		void *off = (void *)a[2 * side + 1];

		if (!f || !dl_has_offset(f))
			continue;
		if (off ? bpf_probe_read_user(&t->pos, sizeof(t->pos), off)
			: dl_fd_pos((int)a[2 * side], &t->pos))
			return;
		t->flags |= DL_F_OFFSET;
		return;
	}
}

/* The descriptor whose file the call works on, or -1 (a name, an address, none). */
DL_META_HELPER int meta_fd(__u32 kind, const __u64 *a)
{
	char first = 0;

	switch (kind) {
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
		return (int)a[0];
	case DL_SYS_FACCESSAT:
	case DL_SYS_FACCESSAT2:
	case DL_SYS_FCHMODAT:
	case DL_SYS_FCHMODAT2:
	case DL_SYS_FCHOWNAT:
	case DL_SYS_FUTIMESAT:
	case DL_SYS_UTIMENSAT:
	case DL_SYS_LINKAT:
	case DL_SYS_READLINKAT:
	case DL_SYS_SETXATTRAT:
	case DL_SYS_GETXATTRAT:
	case DL_SYS_LISTXATTRAT:
	case DL_SYS_REMOVEXATTRAT:
		/* (dirfd, name): an empty or NULL name is the descriptor's own file */
		if ((int)a[0] < 0 ||
		    (a[1] && (bpf_probe_read_user(&first, 1, (void *)a[1]) || first)))
			return -1;
		return (int)a[0];
	default:
		return -1;
	}
}

DL_META_HELPER int meta_enter(void *ctx, struct dl_task *t, __u32 kind)
{
	__u64 ts;
	int fd;

	if (bpf_probe_read_kernel(t->a, sizeof(t->a), (char *)ctx + 16))
		return 0;
	t->flags = 0;
	t->file = 0;
	t->file2 = 0;
	fd = meta_fd(kind, t->a);
	if (fd >= 0) {
		t->file = dl_fd_cookie(t, fd);
		t->flags = DL_F_FILE;
	}
	if (kind == DL_SYS_SPLICE)
		splice_offset(t);
	if (dl_kind_maps(kind)) {
		/*
		 * Mappings of files only (anonymous memory is no file I/O).  The
		 * file is looked up now: munmap removes the mapping.  Its struct
		 * file outlives the syscall's exit even when munmap drops the last
		 * reference (the kernel releases it on the return to user space).
		 */
		struct dl_map_lookup m = {.addr = t->a[0]};

		if (bpf_find_vma(bpf_get_current_task_btf(), t->a[0], dl_map_vma, &m, 0) || !m.file)
			return 0;
		t->a[3] = m.file;
		t->pos = m.offset;
		t->flags |= DL_F_OFFSET | DL_F_FILE;
		/* named by its walk; a file with no place in a tree (memfd) by its cookie */
		t->file = dl_file_cookie(t, (struct file *)m.file, -1);
	}
	t->cache_pages = 0;
	t->sys = kind + 1;
	ts = bpf_ktime_get_ns();
	t->ts = ts;
	if (kind == DL_SYS_IO_SUBMIT) /* stamped with the call's entry, as its own record */
		dl_aio_submitted(t, ts);
	return 0;
}

/* utime, utimes, futimesat, utimensat: the two times as seconds and nanoseconds. */
static __always_inline void meta_times(struct dl_io *io, __u32 kind, const void *times)
{
	__s64 v[4] = {};
	__u64 ns0 = UTIME_NOW, ns1 = UTIME_NOW;
	__s64 s0 = 0, s1 = 0;

	/* utime: struct utimbuf {actime, modtime}; utimes: timeval[2]; utimensat: timespec[2] */
	if (times && !bpf_probe_read_user(v, kind == DL_SYS_UTIME ? 16 : 32, times)) {
		if (kind == DL_SYS_UTIME) {
			s0 = v[0];
			s1 = v[1];
			ns0 = ns1 = 0;
		} else {
			s0 = v[0];
			s1 = v[2];
			ns0 = kind == DL_SYS_UTIMENSAT ? v[1] : v[1] * 1000;
			ns1 = kind == DL_SYS_UTIMENSAT ? v[3] : v[3] * 1000;
		}
	}
	io->offset = s0;
	io->size = s1;
	io->arg = (ns0 & 0xffffffff) | (ns1 << 32);
}

/* Slot 1 as text: an xattr name (at most 255 bytes) or a symlink's target. */
static __always_inline __u32 meta_text_slot(struct dl_path *p, char *data, __u32 off,
					    const char *user, int xattr)
{
	long n;

	if (!user)
		return 0;
	if (xattr)
		n = bpf_probe_read_user_str(data + (off & DL_SCRATCH_MASK), DL_NAME_MAX + 1, user);
	else
		n = bpf_probe_read_user_str(data + (off & DL_SCRATCH_MASK), DL_PATH_MAX, user);
	n = n > 0 ? n - 1 : 0;
	p->how[1] = DL_PATH_TEXT;
	p->name_len[1] = n;
	return n;
}

static __always_inline int meta_exit_path(struct trace_event_raw_sys_exit *ctx, struct dl_task *t,
					  __u32 kind, __u64 now)
{
	__u32 zero = 0, used = 0;
	struct dl_scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	struct dl_path *p;
	__u64 *a = t->a;
	char *data;
	int dirfd = AT_FDCWD;
	const char *name;

	if (!s)
		return 0;
	p = (void *)s->buf;
	data = s->buf + sizeof(struct dl_path);
	dl_fill_hdr(&p->io.h, t->ts, kind, t->slot);
	p->io.h.flags = t->flags;
	p->io.dur = now - t->ts;
	p->io.ret = ctx->ret;
	p->io.offset = 0;
	p->io.size = 0;
	p->io.arg = 0;
	p->io.file = t->file;
	p->io.file2 = 0;
	p->ino = 0;
	p->addr = 0;
	p->dev = 0;
	p->fs_magic = 0;
	p->flags = 0;
	p->base_len[0] = p->base_len[1] = 0;
	p->name_len[0] = p->name_len[1] = 0;
	p->how[0] = p->how[1] = 0;
	p->pad[0] = p->pad[1] = 0;
	p->py_stack = 0; /* no Python stacks at these kinds (python_stack.bpf.h) */
	p->pad2 = 0;

	/* the file: (dirfd, name) or the name alone, relative to the cwd */
	switch (kind) {
	case DL_SYS_FACCESSAT:
	case DL_SYS_FACCESSAT2:
	case DL_SYS_FCHMODAT:
	case DL_SYS_FCHMODAT2:
	case DL_SYS_FCHOWNAT:
	case DL_SYS_FUTIMESAT:
	case DL_SYS_UTIMENSAT:
	case DL_SYS_LINKAT:
	case DL_SYS_READLINKAT:
	case DL_SYS_MKNODAT:
	case DL_SYS_SETXATTRAT:
	case DL_SYS_GETXATTRAT:
	case DL_SYS_LISTXATTRAT:
	case DL_SYS_REMOVEXATTRAT:
		dirfd = (int)a[0];
		name = (void *)a[1];
		break;
	case DL_SYS_SYMLINK: /* symlink(target, linkpath) */
		name = (void *)a[1];
		break;
	case DL_SYS_SYMLINKAT: /* symlinkat(target, newdirfd, linkpath) */
		dirfd = (int)a[1];
		name = (void *)a[2];
		break;
	default:
		name = (void *)a[0];
		break;
	}
	if (dl_kind_maps(kind)) {
		/* madvise(addr, len, advice), msync(addr, len, flags), munmap(addr, len) */
		p->addr = a[0];
		p->io.size = a[1];
		p->io.offset = t->pos;
		if (kind != DL_SYS_MUNMAP)
			p->io.arg = a[2] & 0xffffffff;
		used = dl_walk_file((struct file *)a[3], 0, &p->how[0]);
		p->how[0] |= DL_PATH_WALK;
		p->base_len[0] = used;
	} else if (!dl_kind_names_fd(kind)) {
		p->io.h.fd = dirfd;
		used = dl_name_slot(p, data, 0, 0, dirfd, name);
	} else {
		p->io.h.fd = (int)a[0];
	}

	switch (kind) {
	case DL_SYS_ACCESS: /* access(path, mode), chmod(path, mode) */
	case DL_SYS_CHMOD:
		p->io.arg = a[1] & 0xffffffff;
		break;
	case DL_SYS_FACCESSAT: /* faccessat(dfd, path, mode[, flags]), fchmodat likewise */
	case DL_SYS_FACCESSAT2:
	case DL_SYS_FCHMODAT:
	case DL_SYS_FCHMODAT2:
		p->io.arg = a[2] & 0xffffffff;
		if (kind == DL_SYS_FACCESSAT2 || kind == DL_SYS_FCHMODAT2)
			p->flags = a[3];
		break;
	case DL_SYS_CHOWN: /* chown(path, uid, gid) */
	case DL_SYS_LCHOWN:
		p->io.arg = (a[1] & 0xffffffff) | (a[2] << 32);
		break;
	case DL_SYS_FCHOWNAT: /* fchownat(dfd, path, uid, gid, flags) */
		p->io.arg = (a[2] & 0xffffffff) | (a[3] << 32);
		p->flags = a[4];
		break;
	case DL_SYS_UTIME: /* utime(path, times), utimes(path, times) */
	case DL_SYS_UTIMES:
		meta_times(&p->io, kind, (void *)a[1]);
		break;
	case DL_SYS_FUTIMESAT: /* futimesat(dfd, path, times), utimensat(dfd, path, times, flags) */
	case DL_SYS_UTIMENSAT:
		meta_times(&p->io, kind, (void *)a[2]);
		if (kind == DL_SYS_UTIMENSAT)
			p->flags = a[3];
		break;
	case DL_SYS_TRUNCATE: /* truncate(path, length) */
		p->io.offset = a[1];
		p->io.h.flags |= DL_F_OFFSET;
		break;
	case DL_SYS_LINK: /* link(old, new) */
		used += dl_name_slot(p, data, used, 1, AT_FDCWD, (void *)a[1]);
		break;
	case DL_SYS_LINKAT: /* linkat(olddfd, old, newdfd, new, flags) */
		p->flags = a[4];
		used += dl_name_slot(p, data, used, 1, (int)a[2], (void *)a[3]);
		break;
	case DL_SYS_SYMLINK:
	case DL_SYS_SYMLINKAT:
		used += meta_text_slot(p, data, used, (void *)a[0], 0);
		break;
	case DL_SYS_READLINK: /* readlink(path, buf, size) */
		p->io.size = a[2];
		break;
	case DL_SYS_READLINKAT: /* readlinkat(dfd, path, buf, size) */
		p->io.size = a[3];
		break;
	case DL_SYS_MKNOD: /* mknod(path, mode, dev) */
		p->io.arg = (a[2] & 0xffffffff) | (a[1] << 32);
		break;
	case DL_SYS_MKNODAT: /* mknodat(dfd, path, mode, dev) */
		p->io.arg = (a[3] & 0xffffffff) | (a[2] << 32);
		break;
	case DL_SYS_SETXATTR: /* setxattr(path|fd, name, value, size, flags) */
	case DL_SYS_LSETXATTR:
	case DL_SYS_FSETXATTR:
		p->io.size = a[3];
		p->io.arg = a[4] & 0xffffffff;
		used += meta_text_slot(p, data, used, (void *)a[1], 1);
		break;
	case DL_SYS_GETXATTR: /* getxattr(path|fd, name, value, size) */
	case DL_SYS_LGETXATTR:
	case DL_SYS_FGETXATTR:
		p->io.size = a[3];
		used += meta_text_slot(p, data, used, (void *)a[1], 1);
		break;
	case DL_SYS_LISTXATTR: /* listxattr(path, list, size) */
	case DL_SYS_LLISTXATTR:
		p->io.size = a[2];
		break;
	case DL_SYS_REMOVEXATTR: /* removexattr(path|fd, name) */
	case DL_SYS_LREMOVEXATTR:
	case DL_SYS_FREMOVEXATTR:
		used += meta_text_slot(p, data, used, (void *)a[1], 1);
		break;
	case DL_SYS_SETXATTRAT: /* setxattrat(dfd, path, at_flags, name, uargs, usize) */
	case DL_SYS_GETXATTRAT: {
		struct dl_xattr_args args = {};

		p->flags = a[2];
		bpf_probe_read_user(&args, sizeof(args), (void *)a[4]);
		p->io.size = args.size;
		if (kind == DL_SYS_SETXATTRAT)
			p->io.arg = args.flags;
		used += meta_text_slot(p, data, used, (void *)a[3], 1);
		break;
	}
	case DL_SYS_LISTXATTRAT: /* listxattrat(dfd, path, at_flags, list, size) */
		p->flags = a[2];
		p->io.size = a[4];
		break;
	case DL_SYS_REMOVEXATTRAT: /* removexattrat(dfd, path, at_flags, name) */
		p->flags = a[2];
		used += meta_text_slot(p, data, used, (void *)a[3], 1);
		break;
	default: /* statfs(path, buf), chdir(path), the mapping kinds */
		break;
	}
	DL_OPAQUE(used);
	used &= DL_SCRATCH_MASK;
	dl_output(p, sizeof(*p) + used, t->slot);
	return 0;
}

/* The kinds without a path: fchmod, fchown, flistxattr, fstatfs, fchdir, flock, ... */
static __always_inline void meta_fill_io(struct dl_io *e, struct dl_task *t, __u32 kind)
{
	__u64 *a = t->a;

	e->h.fd = (int)a[0];
	e->offset = 0;
	e->size = 0;
	e->arg = 0;
	e->file = t->file;
	e->file2 = 0;
	switch (kind) {
	case DL_SYS_FCHMOD: /* fchmod(fd, mode), flock(fd, operation) */
	case DL_SYS_FLOCK:
		e->arg = a[1] & 0xffffffff;
		break;
	case DL_SYS_FCHOWN: /* fchown(fd, uid, gid) */
		e->arg = (a[1] & 0xffffffff) | (a[2] << 32);
		break;
	case DL_SYS_FLISTXATTR: /* flistxattr(fd, list, size) */
		e->size = a[2];
		break;
	case DL_SYS_FADVISE64: /* fadvise64(fd, offset, len, advice) */
		e->offset = a[1];
		e->size = a[2];
		e->arg = a[3] & 0xffffffff;
		e->h.flags |= DL_F_OFFSET;
		break;
	case DL_SYS_READAHEAD: /* readahead(fd, offset, count) */
		e->offset = a[1];
		e->size = a[2];
		e->h.flags |= DL_F_OFFSET;
		break;
	case DL_SYS_SYNC: /* sync(): no descriptor */
		e->h.fd = -1;
		break;
	case DL_SYS_SPLICE: /* splice(fd_in, off_in, fd_out, off_out, len, flags) */
		e->offset = t->pos;
		e->size = a[4];
		e->arg = (a[2] & 0xffffffff) | ((a[5] & 0x7fffffff) << 32);
		if (t->flags &
		    DL_F_OFFSET) { /* the offset is the output's when the input is a pipe */
			struct file *in = dl_fd_file((int)a[0]);

			if (!in || !dl_has_offset(in))
				e->arg |= DL_SPLICE_OUT_OFFSET;
		}
		break;
	case DL_SYS_VMSPLICE: /* vmsplice(fd, iov, nr_segs, flags) */
		e->size = dl_iov_bytes((void *)a[1], a[2], &e->h.flags);
		e->arg = a[3] & 0xffffffff;
		break;
	case DL_SYS_TEE: /* tee(fd_in, fd_out, len, flags) */
		e->size = a[2];
		e->arg = (a[1] & 0xffffffff) | (a[3] << 32);
		break;
	case DL_SYS_IO_SETUP: { /* io_setup(nr_events, ctxp): the context it made */
		__u64 ctx_id = 0;

		e->h.fd = -1;
		e->size = a[0];
		bpf_probe_read_user(&ctx_id, sizeof(ctx_id), (void *)a[1]);
		e->arg = ctx_id;
		break;
	}
	case DL_SYS_IO_SUBMIT:	/* io_submit(ctx, nr, iocbpp) */
	case DL_SYS_IO_DESTROY: /* io_destroy(ctx) */
		e->h.fd = -1;
		e->arg = a[0];
		if (kind == DL_SYS_IO_SUBMIT)
			e->size = a[1];
		break;
	case DL_SYS_IO_GETEVENTS: /* io_[p]getevents(ctx, min_nr, nr, events, timeout[, sig]) */
	case DL_SYS_IO_PGETEVENTS:
		e->h.fd = -1;
		e->arg = a[0];
		e->offset = a[1];
		e->size = a[2];
		break;
	case DL_SYS_IO_CANCEL: /* io_cancel(ctx, iocb, result) */
		e->h.fd = -1;
		e->arg = a[0];
		e->offset = a[1];
		break;
	case DL_SYS_IO_URING_SETUP: { /* io_uring_setup(entries, params): its flags */
		__u32 flags = 0;

		e->h.fd = -1;
		e->size = a[0];
		bpf_probe_read_user(&flags, sizeof(flags), (char *)a[1] + 8);
		e->arg = flags;
		break;
	}
	case DL_SYS_IO_URING_ENTER: /* io_uring_enter(fd, to_submit, min_complete, flags, ...) */
		e->size = a[1];
		e->offset = a[2];
		e->arg = a[3] & 0xffffffff;
		break;
	case DL_SYS_IO_URING_REGISTER: /* io_uring_register(fd, opcode, arg, nr_args) */
		e->arg = a[1] & 0xffffffff;
		e->size = a[3] & 0xffffffff;
		break;
	default: /* fstatfs(fd, buf), fchdir(fd), syncfs(fd) */
		break;
	}
}

DL_META_HELPER int meta_exit(struct trace_event_raw_sys_exit *ctx, struct dl_task *t, __u32 kind)
{
	struct dl_io *e;
	__u32 i;
	__u64 now;

	if (t->sys != kind + 1)
		return 0;
	t->sys = 0;
	now = bpf_ktime_get_ns();
	if (dl_kind_has_path(kind)) {
		/* the data records before it go first: user space sees them in order */
		dl_flush(t);
		return meta_exit_path(ctx, t, kind, now);
	}
	if (kind == DL_SYS_IO_GETEVENTS || kind == DL_SYS_IO_PGETEVENTS)
		dl_aio_reaped(t, ctx->ret, now); /* the events it returned, before its own record */
	i = t->nbatch;
	if (i >= DL_BATCH) {
		dl_flush(t);
		i = 0;
	}
	e = &t->batch[i & (DL_BATCH - 1)];
	e->h.ts = t->ts;
	e->h.tgid = t->tgid;
	e->h.tid = t->tid;
	e->h.kind = kind;
	e->h.job = t->slot;
	e->h.flags = t->flags | DL_F_BATCH;
	e->dur = now - t->ts;
	e->ret = ctx->ret;
	meta_fill_io(e, t, kind);
	t->nbatch = i + 1;
	if (i + 1 == DL_BATCH || now - t->batch[0].h.ts > DL_BATCH_AGE_NS)
		dl_flush(t);
	return 0;
}

/*
 * The kinds of this file and their tracepoints, for the bench's variants
 * (the default build takes them from user/event/syscall_table.c).
 */
#define DL_META_SYSCALLS(X)                                                                        \
	X(access, DL_SYS_ACCESS)                                                                   \
	X(faccessat, DL_SYS_FACCESSAT)                                                             \
	X(faccessat2, DL_SYS_FACCESSAT2)                                                           \
	X(chmod, DL_SYS_CHMOD)                                                                     \
	X(fchmod, DL_SYS_FCHMOD)                                                                   \
	X(fchmodat, DL_SYS_FCHMODAT)                                                               \
	X(fchmodat2, DL_SYS_FCHMODAT2)                                                             \
	X(chown, DL_SYS_CHOWN)                                                                     \
	X(fchown, DL_SYS_FCHOWN)                                                                   \
	X(lchown, DL_SYS_LCHOWN)                                                                   \
	X(fchownat, DL_SYS_FCHOWNAT)                                                               \
	X(utime, DL_SYS_UTIME)                                                                     \
	X(utimes, DL_SYS_UTIMES)                                                                   \
	X(futimesat, DL_SYS_FUTIMESAT)                                                             \
	X(utimensat, DL_SYS_UTIMENSAT)                                                             \
	X(truncate, DL_SYS_TRUNCATE)                                                               \
	X(link, DL_SYS_LINK)                                                                       \
	X(linkat, DL_SYS_LINKAT)                                                                   \
	X(symlink, DL_SYS_SYMLINK)                                                                 \
	X(symlinkat, DL_SYS_SYMLINKAT)                                                             \
	X(readlink, DL_SYS_READLINK)                                                               \
	X(readlinkat, DL_SYS_READLINKAT)                                                           \
	X(mknod, DL_SYS_MKNOD)                                                                     \
	X(mknodat, DL_SYS_MKNODAT)                                                                 \
	X(setxattr, DL_SYS_SETXATTR)                                                               \
	X(lsetxattr, DL_SYS_LSETXATTR)                                                             \
	X(fsetxattr, DL_SYS_FSETXATTR)                                                             \
	X(getxattr, DL_SYS_GETXATTR)                                                               \
	X(lgetxattr, DL_SYS_LGETXATTR)                                                             \
	X(fgetxattr, DL_SYS_FGETXATTR)                                                             \
	X(listxattr, DL_SYS_LISTXATTR)                                                             \
	X(llistxattr, DL_SYS_LLISTXATTR)                                                           \
	X(flistxattr, DL_SYS_FLISTXATTR)                                                           \
	X(removexattr, DL_SYS_REMOVEXATTR)                                                         \
	X(lremovexattr, DL_SYS_LREMOVEXATTR)                                                       \
	X(fremovexattr, DL_SYS_FREMOVEXATTR)                                                       \
	X(setxattrat, DL_SYS_SETXATTRAT)                                                           \
	X(getxattrat, DL_SYS_GETXATTRAT)                                                           \
	X(listxattrat, DL_SYS_LISTXATTRAT)                                                         \
	X(removexattrat, DL_SYS_REMOVEXATTRAT)                                                     \
	X(statfs, DL_SYS_STATFS)                                                                   \
	X(fstatfs, DL_SYS_FSTATFS)                                                                 \
	X(chdir, DL_SYS_CHDIR)                                                                     \
	X(fchdir, DL_SYS_FCHDIR)                                                                   \
	X(flock, DL_SYS_FLOCK)                                                                     \
	X(fadvise64, DL_SYS_FADVISE64)                                                             \
	X(readahead, DL_SYS_READAHEAD)                                                             \
	X(madvise, DL_SYS_MADVISE)                                                                 \
	X(msync, DL_SYS_MSYNC)                                                                     \
	X(munmap, DL_SYS_MUNMAP)                                                                   \
	X(sync, DL_SYS_SYNC)                                                                       \
	X(syncfs, DL_SYS_SYNCFS)                                                                   \
	X(splice, DL_SYS_SPLICE)                                                                   \
	X(vmsplice, DL_SYS_VMSPLICE)                                                               \
	X(tee, DL_SYS_TEE)                                                                         \
	X(io_setup, DL_SYS_IO_SETUP)                                                               \
	X(io_submit, DL_SYS_IO_SUBMIT)                                                             \
	X(io_getevents, DL_SYS_IO_GETEVENTS)                                                       \
	X(io_pgetevents, DL_SYS_IO_PGETEVENTS)                                                     \
	X(io_cancel, DL_SYS_IO_CANCEL)                                                             \
	X(io_destroy, DL_SYS_IO_DESTROY)                                                           \
	X(io_uring_setup, DL_SYS_IO_URING_SETUP)                                                   \
	X(io_uring_enter, DL_SYS_IO_URING_ENTER)                                                   \
	X(io_uring_register, DL_SYS_IO_URING_REGISTER)

#if defined(DL_HOOKS_PER_PROGRAM)
/* bench variant: one program pair per tracepoint, as syscall_probes.bpf.c does */
#define DL_META_PAIR(tp, kind)                                                                     \
	SEC("tracepoint/syscalls/sys_enter_" #tp)                                                  \
	int dl_enter_##tp(void *ctx)                                                               \
	{                                                                                          \
		struct dl_task *t = dl_traced_task();                                              \
		return t ? meta_enter(ctx, t, kind) : 0;                                           \
	}                                                                                          \
	SEC("tracepoint/syscalls/sys_exit_" #tp)                                                   \
	int dl_exit_##tp(struct trace_event_raw_sys_exit *ctx)                                     \
	{                                                                                          \
		struct dl_task *t = dl_traced_task();                                              \
		return t ? meta_exit(ctx, t, kind) : 0;                                            \
	}
DL_META_SYSCALLS(DL_META_PAIR)

#elif defined(DL_HOOKS_RAW_SYSCALLS)
/*
 * bench variant: raw_syscalls sys_enter/sys_exit, dispatching on the
 * syscall number (x86_64 numbers from build/bench/syscall_nrs.h); it runs
 * on every syscall of the node.  The number is checked before the filter,
 * the cheapest order for the syscalls it does not report.  (Compat
 * syscalls of 32-bit tasks would be misread: a measurement only.)
 */
#include "syscall_nrs.h"
/* x86_64 numbers newer than the build machine's headers may be */
#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452
#endif
#ifndef __NR_setxattrat
#define __NR_setxattrat	   463
#define __NR_getxattrat	   464
#define __NR_listxattrat   465
#define __NR_removexattrat 466
#endif

#define DL_META_CASE(tp, kind)                                                                     \
	case __NR_##tp:                                                                            \
		return kind + 1;

static __always_inline __u32 meta_nr_kind(long nr)
{
	switch (nr) {
		DL_META_SYSCALLS(DL_META_CASE)
	default:
		return 0;
	}
}

SEC("tracepoint/raw_syscalls/sys_enter")
int dl_enter_raw(struct trace_event_raw_sys_enter *ctx)
{
	__u32 kind = meta_nr_kind(ctx->id);
	struct dl_task *t;

	if (!kind)
		return 0;
	t = dl_traced_task();
	return t ? meta_enter(ctx, t, kind - 1) : 0;
}

SEC("tracepoint/raw_syscalls/sys_exit")
int dl_exit_raw(struct trace_event_raw_sys_exit *ctx)
{
	__u32 kind = meta_nr_kind(ctx->id);
	struct dl_task *t;

	if (!kind)
		return 0;
	t = dl_traced_task();
	return t ? meta_exit(ctx, t, kind - 1) : 0;
}

#elif !defined(DL_HOOKS_NONE)
/* The default: one pair for all, the kind in each attachment's cookie. */
SEC("tracepoint")
int dl_enter_shared(void *ctx)
{
	struct dl_task *t = dl_traced_task();
	__u64 kind;

	if (!t)
		return 0;
	kind = bpf_get_attach_cookie(ctx);
	if (kind < DL_SYS_ACCESS || kind >= DL_SYS_COUNT)
		return 0;
	return meta_enter(ctx, t, kind);
}

SEC("tracepoint")
int dl_exit_shared(struct trace_event_raw_sys_exit *ctx)
{
	struct dl_task *t = dl_traced_task();
	__u64 kind;

	if (!t)
		return 0;
	kind = bpf_get_attach_cookie(ctx);
	if (kind < DL_SYS_ACCESS || kind >= DL_SYS_COUNT)
		return 0;
	return meta_exit(ctx, t, kind);
}
#endif

char LICENSE[] SEC("license") = "Dual BSD/GPL";
