// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Metadata, hint and sync syscalls: access, chmod, chown, utimensat,
 * truncate, link, symlink, readlink, mknod, mkdir, rmdir, unlink, rename,
 * stat, lstat, dup, close_range, ftruncate, fallocate, getdents64, the
 * xattr calls, statfs, chdir, flock, fadvise64, readahead, madvise, msync,
 * munmap, fsync, fdatasync, sync_file_range, sync, syncfs and their
 * variants: the rows of program
 * SHARED in syscalls.def, whose columns say where each call's file is and
 * what its record holds.  The records of the rows of PY_PATH and PY_ARG
 * carry a Python stack (python_stack.bpf.h), as the programs of their own
 * do.
 *
 * Two programs serve them all: dl_enter_shared is attached to the
 * sys_enter_* tracepoint of each of these syscalls and dl_exit_shared to
 * its sys_exit_*, and each attachment carries the syscall's kind as its
 * BPF cookie (user/probe/probe_loader.c).  Loading a program costs the
 * kernel about 10 ms here (verification and JIT), attaching one to a
 * tracepoint well under 1 ms: two programs instead of 170 keep dltrace's
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
 * Also shared: pipe transfers (splice, vmsplice, tee: fd, the other fd,
 * the file side's offset, length, ret), native AIO (io_submit and
 * io_getevents also send each iocb and each event reaped:
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
#include "syscall_store.bpf.h"
#define DL_PY_EXTERN /* the walk (python_stack.bpf.c), for the rows of PY_PATH and PY_ARG */
#include "python_stack.bpf.h"

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

/* The rows of program SHARED (the others' words are syscall_probes.bpf.c's). */
#define DL_SHARED_OWN(...)
#define DL_SHARED_SHARED(...) __VA_ARGS__

/*
 * One switch on the kind at entry, and one at exit, give what the call's
 * row says, packed in a number (its plan), and its store; the kind is not
 * read again after it, so the verifier follows one path per plan, not one
 * per kind.
 *
 * At entry:
 *   bits 0-3   the descriptor whose file is identified: its argument + 1 (0: none)
 *   bits 4-7   ATFD: the name's argument + 1 (an empty name is the descriptor's file)
 *   bit 8      the store asks for the descriptor's position (POS)
 *   bit 9      MAPPED: the file mapped at an address; bits 10-12 the address's argument
 *   bit 13     splice: the file side's offset (splice_offset())
 *   bit 14     io_submit: each iocb (aio_records.bpf.h)
 */
#define DL_ENTER_POS		   0x0100
#define DL_ENTER_MAPPED		   0x0200
#define DL_ENTER_SPLICE		   0x2000
#define DL_ENTER_SUBMIT		   0x4000
#define DL_ENTER_FILE_FD(n)	   ((n) + 1)
#define DL_ENTER_FILE_FDNUM(n)	   0
#define DL_ENTER_FILE_RANGE(n)	   0
#define DL_ENTER_FILE_NAME(n)	   0
#define DL_ENTER_FILE_AT(d, n)	   0
#define DL_ENTER_FILE_ATFD(d, n)   ((d) + 1 | ((n) + 1) << 4)
#define DL_ENTER_FILE_OPENED(d, n) 0
#define DL_ENTER_FILE_MAPPED(n)	   (DL_ENTER_MAPPED | (n) << 10)
#define DL_ENTER_FILE_NOFILE	   0

/* a store that asks for the descriptor's position (POS): 1 */
#define DL_POS_ARG(s)	  | DL_IS_POS(s)
#define DL_POS_LO(s)	  | DL_IS_POS(s)
#define DL_POS_HI(s)	  | DL_IS_POS(s)
#define DL_POS_SIZE(s)	  | DL_IS_POS(s)
#define DL_POS_OFFSET(s)  | DL_IS_POS(s)
#define DL_POS_ATFLAGS(s) | DL_IS_POS(s)
#define DL_POS_FILE_OFFSET
#define DL_POS_TIMES(n, layout)
#define DL_POS_SPLICE_FLAGS

DL_META_HELPER __u32 meta_enter_plan(__u32 kind)
{
	switch (kind) {
#define DL_ITEMS DL_POS
#define DL_SYSCALL(k, name_, tp_, args_, cls_, prog_, roles_, rec_, file_, second_, store_, show_) \
	DL_SHARED_##prog_(case DL_SYS_##k                                                          \
			  : return DL_ENTER_FILE_##file_ | (0 store_) << 8 |                       \
				   (DL_SYS_##k == DL_SYS_SPLICE) << 13 |                           \
				   (DL_SYS_##k == DL_SYS_IO_SUBMIT) << 14;)
#include "syscalls.def"
#undef DL_SYSCALL
#undef DL_ITEMS
	default:
		return 0;
	}
}

/*
 * At exit, besides the store, the names the path record holds (their
 * values: the verifier need not follow each kind to know where they come
 * from), and a plan:
 *   bits 0-1   the file: DL_EXIT_NAMED (a name), DL_EXIT_FD, DL_EXIT_MAPPED
 *   bits 2-3   enum dl_second_kind
 *   bit 4      TEXT of an xattr name (else as long as a path)
 *   bit 5      a struct dl_path record (else a struct dl_io, batched)
 *   bit 6      io_getevents, io_pgetevents: the events reaped (aio_records.bpf.h)
 */
struct meta_names {
	__u64 name;  /* slot 0's name, or the address mapped (MAPPED) */
	__u64 name2; /* slot 1's name or string */
	int dirfd;   /* slot 0's name relative to it (AT_FDCWD), or the descriptor (FD) */
	int dirfd2;
};

#define DL_EXIT_NAMED		   0
#define DL_EXIT_FD		   1
#define DL_EXIT_MAPPED		   2
#define DL_EXIT_XATTR		   (1 << 4)
#define DL_EXIT_PATH		   (1 << 5)
#define DL_EXIT_REAP		   (1 << 6)
#define DL_EXIT_GROUP_FD(n)	   DL_EXIT_FD
#define DL_EXIT_GROUP_FDNUM(n)	   DL_EXIT_FD
#define DL_EXIT_GROUP_RANGE(n)	   DL_EXIT_FD
#define DL_EXIT_GROUP_NAME(n)	   DL_EXIT_NAMED
#define DL_EXIT_GROUP_AT(d, n)	   DL_EXIT_NAMED
#define DL_EXIT_GROUP_ATFD(d, n)   DL_EXIT_NAMED
#define DL_EXIT_GROUP_OPENED(d, n) DL_EXIT_NAMED
#define DL_EXIT_GROUP_MAPPED(n)	   DL_EXIT_MAPPED
#define DL_EXIT_GROUP_NOFILE	   DL_EXIT_FD
#define DL_EXIT_PLAN(file, second)                                                                 \
	(DL_EXIT_GROUP_##file | DL_SECOND_KIND_##second << 2 |                                     \
	 (DL_SECOND_MAX_##second == DL_TEXT_XATTR_NAME ? DL_EXIT_XATTR : 0) | DL_EXIT_PATH)
/* the descriptor argument d as a dirfd: AT_FDCWD for none */
#define DL_EXIT_DIRFD(d) ((d) >= 0 ? (int)a[(d)&7] : AT_FDCWD)
#define DL_EXIT_NAME2_NONE
#define DL_EXIT_NAME2_OUT(n)
#define DL_EXIT_NAME2_NEW(d, n)                                                                    \
	nm->name2 = a[(n)&7];                                                                      \
	nm->dirfd2 = DL_EXIT_DIRFD(DL_ARG_##d);
#define DL_EXIT_NAME2_TEXT(n, max) nm->name2 = a[(n)&7];
/* a path record's names and plan; a struct dl_io's descriptor */
#define DL_EXIT_ROW_PATH(file, second)                                                             \
	nm->name = a[DL_FILE_NAME_##file & 7];                                                     \
	nm->dirfd = DL_EXIT_DIRFD(DL_FILE_FD_##file);                                              \
	DL_EXIT_NAME2_##second plan = DL_EXIT_PLAN(file, second);
#define DL_EXIT_ROW_PATH_FD(file, second) DL_EXIT_ROW_PATH(file, second)
#define DL_EXIT_ROW_IO(file, second)                                                               \
	*fd = DL_FILE_FD_##file >= 0 ? (int)a[DL_FILE_FD_##file & 7] : -1;

/* SPLICE_FLAGS: the flags in arg's upper half, and whether the offset is the output's */
#define DL_STORE_SPLICE_FLAGS meta_splice_flags(st, t, a);

static __always_inline void meta_splice_flags(struct dl_store *st, struct dl_task *t,
					      const __u64 *a)
{
	/* splice(fd_in, off_in, fd_out, off_out, len, flags) */
	st->arg |= (a[5] & 0x7fffffff) << 32;
	if (t->flags & DL_F_OFFSET) { /* the offset is the output's when the input is a pipe */
		struct file *in = dl_fd_file((int)a[0]);

		if (!in || !dl_has_offset(in))
			st->arg |= DL_SPLICE_OUT_OFFSET;
	}
}

/*
 * The store column of a shared kind into st, and its plan; its names (a
 * path record) or its descriptor (a struct dl_io).
 */
DL_META_HELPER __u32 meta_exit_plan(struct dl_store *st, struct meta_names *nm, struct dl_task *t,
				    __u32 kind, int *fd)
{
	__u64 *a = t->a;
	__u32 plan = 0;

	switch (kind) {
#define DL_ITEMS DL_STORE
#define DL_EXIT_REAPS(kind)                                                                        \
	((kind) == DL_SYS_IO_GETEVENTS || (kind) == DL_SYS_IO_PGETEVENTS ? DL_EXIT_REAP : 0)
#define DL_SYSCALL(k, name_, tp_, args_, cls_, prog_, roles_, rec_, file_, second_, store_, show_) \
	DL_SHARED_##prog_(case DL_SYS_##k                                                          \
			  : DL_STORE_SECOND_##second_ store_ DL_EXIT_ROW_##rec_(file_, second_)    \
				plan |= DL_EXIT_REAPS(DL_SYS_##k);                                 \
			  break;)
#include "syscalls.def"
#undef DL_SYSCALL
#undef DL_ITEMS
	default:
		break;
	}
	return plan;
}

/* The descriptor whose file the call works on, or -1 (a name, an address, none). */
DL_META_HELPER int meta_fd(__u32 plan, const __u64 *a)
{
	int fd = plan & 15 ? (int)a[((plan & 15) - 1) & 7] : -1;
	__u32 name_arg = (plan >> 4) & 15;
	char first = 0;
	__u64 name;

	if (!name_arg)
		return fd;
	/* (dirfd, name): an empty or NULL name is the descriptor's own file */
	name = a[(name_arg - 1) & 7];
	if (fd < 0 || (name && (bpf_probe_read_user(&first, 1, (void *)name) || first)))
		return -1;
	return fd;
}

DL_META_HELPER int meta_enter(void *ctx, struct dl_task *t, __u32 kind)
{
	__u32 plan;
	__u64 ts;
	int fd;

	if (bpf_probe_read_kernel(t->a, sizeof(t->a), (char *)ctx + 16))
		return 0;
	t->flags = 0;
	t->file = 0;
	t->file2 = 0;
	t->sys = kind + 1;
	plan = meta_enter_plan(kind);
	fd = meta_fd(plan, t->a);
	if (fd >= 0) {
		t->file = dl_fd_cookie(t, fd);
		t->flags = DL_F_FILE;
		if ((plan & DL_ENTER_POS) && !dl_fd_pos(fd, &t->pos))
			t->flags |= DL_F_OFFSET;
	}
	if (plan & DL_ENTER_SPLICE)
		splice_offset(t);
	if (plan & DL_ENTER_MAPPED) {
		/*
		 * Mappings of files only (anonymous memory is no file I/O).  The
		 * file is looked up now: munmap removes the mapping.  Its struct
		 * file outlives the syscall's exit even when munmap drops the last
		 * reference (the kernel releases it on the return to user space).
		 */
		__u64 addr = t->a[(plan >> 10) & 7];
		struct dl_map_lookup m = {.addr = addr};

		if (bpf_find_vma(bpf_get_current_task_btf(), addr, dl_map_vma, &m, 0) || !m.file) {
			t->sys = 0;
			return 0;
		}
		t->a[3] = m.file;
		t->pos = m.offset;
		t->flags |= DL_F_OFFSET | DL_F_FILE;
		/* named by its walk; a file with no place in a tree (memfd) by its cookie */
		t->file = dl_file_cookie(t, (struct file *)m.file, -1);
	}
	t->cache_pages = 0;
	ts = bpf_ktime_get_ns();
	t->ts = ts;
	if (plan & DL_ENTER_SUBMIT) /* stamped with the call's entry, as its own record */
		dl_aio_submitted(t, ts);
	return 0;
}

/* TIMES: utime's two times as seconds and nanoseconds (offset, size, arg). */
static __always_inline void meta_times(struct dl_store *st, int layout, const void *times)
{
	__s64 v[4] = {};
	__u64 ns0 = UTIME_NOW, ns1 = UTIME_NOW;
	__s64 s0 = 0, s1 = 0;

	/* utime: struct utimbuf {actime, modtime}; utimes: timeval[2]; utimensat: timespec[2] */
	if (times && !bpf_probe_read_user(v, layout == DL_TIMES_UTIMBUF ? 16 : 32, times)) {
		if (layout == DL_TIMES_UTIMBUF) {
			s0 = v[0];
			s1 = v[1];
			ns0 = ns1 = 0;
		} else {
			s0 = v[0];
			s1 = v[2];
			ns0 = layout == DL_TIMES_TIMESPEC ? v[1] : v[1] * 1000;
			ns1 = layout == DL_TIMES_TIMESPEC ? v[3] : v[3] * 1000;
		}
	}
	st->offset = s0;
	st->size = s1;
	st->arg = (ns0 & 0xffffffff) | (ns1 << 32);
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
					  __u32 kind, __u64 now, __u32 plan, struct dl_store *st,
					  const struct meta_names *nm, __u32 py)
{
	__u32 zero = 0, used = 0;
	struct dl_scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	struct dl_path *p;
	char *data;

	if (!s)
		return 0;
	p = (void *)s->buf;
	data = s->buf + sizeof(struct dl_path);
	if (st->times)
		meta_times(st, st->times - 1, (void *)st->times_at);
	dl_fill_hdr(&p->io.h, t->ts, kind, t->slot);
	p->io.h.flags = t->flags | st->flags;
	p->io.dur = now - t->ts;
	p->io.ret = ctx->ret;
	p->io.offset = st->offset;
	p->io.size = st->size;
	p->io.arg = st->arg;
	p->io.file = t->file;
	p->io.file2 = 0;
	p->ino = 0;
	p->addr = 0;
	p->dev = 0;
	p->fs_magic = 0;
	p->flags = st->at_flags;
	p->base_len[0] = p->base_len[1] = 0;
	p->name_len[0] = p->name_len[1] = 0;
	p->how[0] = p->how[1] = 0;
	p->pad[0] = p->pad[1] = 0;
	p->py_stack = py;
	p->pad2 = 0;

	/* the file: (dirfd, name) or the name alone, relative to the cwd */
	if ((plan & 3) == DL_EXIT_MAPPED) {
		/* madvise(addr, len, advice), msync(addr, len, flags), munmap(addr, len) */
		p->addr = nm->name;
		used = dl_walk_file((struct file *)t->a[3], 0, &p->how[0]);
		p->how[0] |= DL_PATH_WALK;
		p->base_len[0] = used;
	} else if ((plan & 3) == DL_EXIT_NAMED) {
		p->io.h.fd = nm->dirfd;
		used = dl_name_slot(p, data, 0, 0, nm->dirfd, (void *)nm->name);
	} else { /* fsetxattr, ...: the descriptor's file (its cookie) */
		p->io.h.fd = nm->dirfd;
	}
	/* slot 1: a second name (link), or a string (an xattr's name, a symlink's target) */
	if (((plan >> 2) & 3) == DL_SECOND_NEW)
		used += dl_name_slot(p, data, used, 1, nm->dirfd2, (void *)nm->name2);
	else if (((plan >> 2) & 3) == DL_SECOND_TEXT)
		used += meta_text_slot(p, data, used, (void *)nm->name2, plan & DL_EXIT_XATTR);
	DL_OPAQUE(used);
	used &= DL_SCRATCH_MASK;
	dl_output(p, sizeof(*p) + used, t->slot);
	return 0;
}

DL_META_HELPER int meta_exit(struct trace_event_raw_sys_exit *ctx, struct dl_task *t, __u32 kind)
{
	struct dl_store st = {};
	struct meta_names nm = {};
	struct dl_io *e;
	__u32 i, plan, py;
	__u64 now;
	int fd = -1;

	if (t->sys != kind + 1)
		return 0;
	now = bpf_ktime_get_ns();
	plan = meta_exit_plan(&st, &nm, t, kind, &fd);
	/*
	 * The kind read back (volatile: not the register): the verifier knows no
	 * more of it than of any value in the task's storage, so the paths of
	 * the kinds of one plan are one path from here on.
	 */
	kind = *(volatile __u16 *)&t->sys - 1;
	t->sys = 0;
	/* rows of PY_PATH or PY_ARG only (py_kinds, python_probe.c) */
	py = dl_py_stack_id(t, kind, now);
	if (plan & DL_EXIT_PATH) {
		/* the data records before it go first: user space sees them in order */
		dl_flush(t);
		return meta_exit_path(ctx, t, kind, now, plan, &st, &nm, py);
	}
	if (plan & DL_EXIT_REAP)
		dl_aio_reaped(t, ctx->ret, now); /* the events it returned, before its own record */
	i = t->nbatch;
	if (i >= DL_BATCH) {
		dl_flush(t);
		i = 0;
	}
	DL_OPAQUE(i); /* the mask stays: 6.1 loses the bound of a spilled copy of i */
	e = &t->batch[i & (DL_BATCH - 1)];
	e->h.ts = t->ts;
	e->h.tgid = t->tgid;
	e->h.tid = t->tid;
	e->h.kind = kind;
	e->h.job = t->slot;
	e->h.flags = t->flags | st.flags | DL_F_BATCH;
	e->h.fd = fd;
	e->dur = now - t->ts;
	e->ret = ctx->ret;
	e->offset = st.offset;
	e->size = st.size;
	e->arg = st.arg | (__u64)py << 32; /* PY_ARG: the upper half is free */
	e->file = t->file;
	e->file2 = 0;
	t->nbatch = i + 1;
	/* FLUSH (dup, close_range): sent at once, it changes what a descriptor means */
	if ((dl_kind_roles(kind) & DL_ROLE_FLUSH) || i + 1 == DL_BATCH ||
	    now - t->batch[0].h.ts > DL_BATCH_AGE_NS)
		dl_flush(t);
	return 0;
}

/*
 * The bench's variants (bench/hook_options.py) attach these kinds in other
 * ways; the default build attaches the shared pair to each kind's
 * tracepoint, from user/event/syscall_table.c.
 */
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
#define DL_SYSCALL(k, name, tp, args, cls, prog, ...) DL_SHARED_##prog(DL_META_PAIR(tp, DL_SYS_##k))
#include "syscalls.def"
#undef DL_SYSCALL

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
/* the others the headers lack: a number no syscall has (not dispatched) */
#include "syscall_nrs_missing.h"

static __always_inline __u32 meta_nr_kind(long nr)
{
	switch (nr) {
#define DL_SYSCALL(k, name, tp, args, cls, prog, ...)                                              \
	DL_SHARED_##prog(case __NR_##tp : return DL_SYS_##k + 1;)
#include "syscalls.def"
#undef DL_SYSCALL
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
	if (kind >= DL_SYS_COUNT)
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
	if (kind >= DL_SYS_COUNT)
		return 0;
	return meta_exit(ctx, t, kind);
}
#endif

char LICENSE[] SEC("license") = "Dual BSD/GPL";
