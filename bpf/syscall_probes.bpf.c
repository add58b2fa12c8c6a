// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Syscall capture: one program on each sys_enter_* / sys_exit_* tracepoint
 * of the 43 file syscalls dltrace has reported from the start (the others:
 * meta_syscall_probes.bpf.c).  Entry saves the arguments and the
 * time in the task's storage; exit emits one record.  Every program starts
 * with the membership check so untraced tasks pay one storage lookup.
 * A call on a descriptor records which file it was, at entry
 * (file_identity.bpf.h); the rename programs count every rename of the
 * machine first, traced or not.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "dltrace_events.h"
#include "task_filter.bpf.h"
#include "ring_output.bpf.h"
#include "path_walk.bpf.h"
#include "iovec.bpf.h"
#include "file_identity.bpf.h"
#include "python_stack.bpf.h"

#define AT_FDCWD	-100
#define MAP_ANONYMOUS	0x20
#define F_DUPFD		0
#define F_DUPFD_CLOEXEC 1030
#define F_GETLK		5
#define F_SETLK		6
#define F_SETLKW	7
#define F_OFD_GETLK	36
#define F_OFD_SETLK	37
#define F_OFD_SETLKW	38
#define O_CREAT		0100
#define O_WRONLY	01
#define O_TRUNC		01000

/* What an entry needs to remember beyond its raw arguments. */
static __always_inline int dl_kind_reads_pos(enum dl_kind kind)
{
	switch (kind) {
	case DL_SYS_READ:
	case DL_SYS_READV:
	case DL_SYS_WRITE:
	case DL_SYS_WRITEV:
		return 1;
	default:
		return 0;
	}
}

/* The argument that is the call's descriptor, or -1 (opens: the new one, at exit). */
static __always_inline int dl_kind_fd_arg(enum dl_kind kind)
{
	switch (kind) {
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
	case DL_SYS_FSTAT:
	case DL_SYS_GETDENTS64:
	case DL_SYS_FTRUNCATE:
	case DL_SYS_FALLOCATE:
	case DL_SYS_CLOSE:
	case DL_SYS_DUP:
	case DL_SYS_DUP2:
	case DL_SYS_DUP3:
	case DL_SYS_FCNTL:
	case DL_SYS_COPY_FILE_RANGE: /* copy_file_range(in, *off_in, out, ...) */
		return 0;
	case DL_SYS_SENDFILE: /* sendfile(out, in, ...) */
		return 1;
	case DL_SYS_MMAP: /* mmap(addr, len, prot, flags, fd, off) */
		return 4;
	default:
		return -1;
	}
}

/* struct flock (UAPI), without vmlinux.h's CO-RE relocations: the layout is fixed */
struct dl_flock {
	short l_type;
	short l_whence;
	long long l_start;
	long long l_len;
	int l_pid;
};

/* fcntl commands whose argument is a struct flock */
static __always_inline int dl_fcntl_is_lock(__u64 cmd)
{
	return cmd == F_GETLK || cmd == F_SETLK || cmd == F_SETLKW || cmd == F_OFD_GETLK ||
	       cmd == F_OFD_SETLK || cmd == F_OFD_SETLKW;
}

/*
 * Arguments of each syscall.  A program may only read the context up to
 * its tracepoint's last field, or the kernel refuses to attach it.
 */
static __always_inline int dl_nargs(enum dl_kind kind)
{
	switch (kind) {
	case DL_SYS_CLOSE:
	case DL_SYS_FSYNC:
	case DL_SYS_FDATASYNC:
	case DL_SYS_UNLINK:
	case DL_SYS_RMDIR:
	case DL_SYS_DUP:
		return 1;
	case DL_SYS_CREAT:
	case DL_SYS_STAT:
	case DL_SYS_LSTAT:
	case DL_SYS_FSTAT:
	case DL_SYS_RENAME:
	case DL_SYS_MKDIR:
	case DL_SYS_FTRUNCATE:
	case DL_SYS_DUP2:
		return 2;
	case DL_SYS_OPEN:
	case DL_SYS_CLOSE_RANGE:
	case DL_SYS_READ:
	case DL_SYS_READV:
	case DL_SYS_WRITE:
	case DL_SYS_WRITEV:
	case DL_SYS_LSEEK:
	case DL_SYS_GETDENTS64:
	case DL_SYS_UNLINKAT:
	case DL_SYS_MKDIRAT:
	case DL_SYS_DUP3:
	case DL_SYS_FCNTL:
		return 3;
	case DL_SYS_OPENAT:
	case DL_SYS_OPENAT2:
	case DL_SYS_PREAD64:
	case DL_SYS_PWRITE64:
	case DL_SYS_SYNC_FILE_RANGE:
	case DL_SYS_NEWFSTATAT:
	case DL_SYS_RENAMEAT:
	case DL_SYS_FALLOCATE:
	case DL_SYS_SENDFILE:
		return 4;
	case DL_SYS_PREADV:
	case DL_SYS_PWRITEV:
	case DL_SYS_STATX:
	case DL_SYS_RENAMEAT2:
		return 5;
	default: /* preadv2, pwritev2, mmap, copy_file_range */
		return 6;
	}
}

static __always_inline int sys_enter(struct trace_event_raw_sys_enter *ctx, enum dl_kind kind)
{
	struct dl_task *t = dl_traced_task();

	if (!t)
		return 0;
	/* Only file-backed mappings are I/O. */
	if (kind == DL_SYS_MMAP && ((ctx->args[3] & MAP_ANONYMOUS) || (int)ctx->args[4] < 0))
		return 0;

	t->flags = 0;
	/* constant offsets only: the verifier refuses a moved context pointer */
	t->a[0] = ctx->args[0];
	if (dl_nargs(kind) > 1)
		t->a[1] = ctx->args[1];
	if (dl_nargs(kind) > 2)
		t->a[2] = ctx->args[2];
	if (dl_nargs(kind) > 3)
		t->a[3] = ctx->args[3];
	if (dl_nargs(kind) > 4)
		t->a[4] = ctx->args[4];
	if (dl_nargs(kind) > 5)
		t->a[5] = ctx->args[5];

	if (kind == DL_SYS_FCNTL && dl_fcntl_is_lock(ctx->args[1])) {
		/* the lock as the program asked for it: l_type, l_whence, l_start, l_len */
		struct dl_flock fl = {};

		bpf_probe_read_user(&fl, sizeof(fl), (void *)ctx->args[2]);
		t->a[3] = (__u16)fl.l_type | (__u32)(__u16)fl.l_whence << 16;
		t->a[4] = fl.l_start;
		t->a[5] = fl.l_len;
	}
	t->file = 0;
	t->file2 = 0;
	if (dl_kind_fd_arg(kind) >= 0) {
		/* the file the descriptor refers to now: its position, its identity */
		int fd = (int)t->a[dl_kind_fd_arg(kind) & 7];
		struct file *f = dl_fd_file(fd);

		if (f && dl_kind_reads_pos(kind)) {
			t->pos = BPF_CORE_READ(f, f_pos);
			t->flags = DL_F_OFFSET;
		}
		t->file = dl_file_cookie(t, f, fd);
		t->flags |= DL_F_FILE;
		if (kind == DL_SYS_SENDFILE || kind == DL_SYS_COPY_FILE_RANGE)
			t->file2 =
			    dl_fd_cookie(t, (int)(kind == DL_SYS_SENDFILE ? t->a[0] : t->a[2]));
	}
	if (kind == DL_SYS_PREADV2 || kind == DL_SYS_PWRITEV2) {
		/* offset -1 means "at the file position" */
		if ((long)ctx->args[3] == -1) {
			if (!dl_fd_pos((int)ctx->args[0], &t->pos))
				t->flags |= DL_F_OFFSET;
		} else {
			t->pos = ctx->args[3];
			t->flags |= DL_F_OFFSET;
		}
	} else if (kind == DL_SYS_SENDFILE || kind == DL_SYS_COPY_FILE_RANGE) {
		/* the input offset: *off when given, else the input file's position */
		int in_fd = kind == DL_SYS_SENDFILE ? (int)ctx->args[1] : (int)ctx->args[0];
		void *offp = (void *)(kind == DL_SYS_SENDFILE ? ctx->args[2] : ctx->args[1]);

		if (offp) {
			if (!bpf_probe_read_user(&t->pos, sizeof(t->pos), offp))
				t->flags |= DL_F_OFFSET;
		} else if (!dl_fd_pos(in_fd, &t->pos)) {
			t->flags |= DL_F_OFFSET;
		}
	}
	t->cache_pages = 0;
	t->sys = kind + 1;
	t->ts = bpf_ktime_get_ns();
	return 0;
}

/* Fill the kind-specific fields of a completed syscall. */
static __always_inline void dl_fill_io(struct dl_io *e, struct dl_task *t, enum dl_kind kind)
{
	__u64 *a = t->a;

	e->h.fd = (int)a[0];
	e->offset = 0;
	e->size = 0;
	e->arg = 0;
	e->file = t->file;
	e->file2 = t->file2;
	switch (kind) {
	case DL_SYS_READ:
	case DL_SYS_WRITE:
		e->size = a[2];
		e->offset = t->pos;
		break;
	case DL_SYS_GETDENTS64:
		e->size = a[2];
		break;
	case DL_SYS_PREAD64:
	case DL_SYS_PWRITE64:
		e->size = a[2];
		e->offset = a[3];
		e->h.flags |= DL_F_OFFSET;
		break;
	case DL_SYS_READV:
	case DL_SYS_WRITEV:
	case DL_SYS_PREADV2:
	case DL_SYS_PWRITEV2:
		e->size = dl_iov_bytes((void *)a[1], a[2], &e->h.flags);
		e->offset = t->pos;
		break;
	case DL_SYS_PREADV:
	case DL_SYS_PWRITEV:
		e->size = dl_iov_bytes((void *)a[1], a[2], &e->h.flags);
		e->offset = a[3];
		e->h.flags |= DL_F_OFFSET;
		break;
	case DL_SYS_LSEEK:
		e->offset = a[1];
		e->arg = a[2];
		break;
	case DL_SYS_SYNC_FILE_RANGE:
	case DL_SYS_FALLOCATE:
		/* sync_file_range(fd, off, n, flags), fallocate(fd, mode, off, len) */
		e->offset = kind == DL_SYS_FALLOCATE ? a[2] : a[1];
		e->size = kind == DL_SYS_FALLOCATE ? a[3] : a[2];
		e->arg = kind == DL_SYS_FALLOCATE ? a[1] : a[3];
		e->h.flags |= DL_F_OFFSET;
		break;
	case DL_SYS_FTRUNCATE:
		e->offset = a[1];
		e->h.flags |= DL_F_OFFSET;
		break;
	case DL_SYS_MMAP:
		e->h.fd = (int)a[4];
		e->size = a[1];
		e->offset = a[5];
		e->arg = (a[2] & 0xffffffff) | (a[3] << 32);
		e->h.flags |= DL_F_OFFSET;
		break;
	case DL_SYS_CLOSE_RANGE:
		e->arg = (a[1] & 0xffffffff) | (a[2] << 32);
		break;
	case DL_SYS_DUP2:
		e->arg = a[1] & 0xffffffff;
		break;
	case DL_SYS_DUP3:
		e->arg = (a[1] & 0xffffffff) | (a[2] << 32);
		break;
	case DL_SYS_FCNTL:
		if (dl_fcntl_is_lock(a[1])) {
			/* cmd | (l_type | l_whence << 16) << 32, l_start, l_len */
			e->arg = (a[1] & 0xffffffff) | (a[3] << 32);
			e->offset = a[4];
			e->size = a[5];
		} else {
			e->arg = (a[1] & 0xffffffff) | (a[2] << 32);
		}
		break;
	case DL_SYS_SENDFILE:
		/* sendfile(out, in, *off, count): report the input side */
		e->h.fd = (int)a[1];
		e->arg = a[0] & 0xffffffff;
		e->size = a[3];
		e->offset = t->pos;
		break;
	case DL_SYS_COPY_FILE_RANGE:
		/* copy_file_range(in, *off_in, out, *off_out, len, flags) */
		e->arg = a[2] & 0xffffffff;
		e->size = a[4];
		e->offset = t->pos;
		break;
	default:
		break;
	}
}

/* Describe the file an open returned: its walked path, identity and cookie. */
static __always_inline void dl_opened_file(struct dl_path *p, int fd, struct dl_opened *o)
{
	struct file *f = dl_fd_file(fd);
	struct inode *inode;
	struct super_block *sb;

	if (!f)
		return;
	p->base_len[0] = dl_walk_file(f, 0, &p->how[0]);
	p->how[0] |= DL_PATH_WALK;
	inode = BPF_CORE_READ(f, f_inode);
	sb = BPF_CORE_READ(inode, i_sb);
	p->ino = BPF_CORE_READ(inode, i_ino);
	p->file_size = BPF_CORE_READ(inode, i_size);
	p->dev = BPF_CORE_READ(sb, s_dev);
	p->fs_magic = BPF_CORE_READ(sb, s_magic);
	p->io.file = dl_file_open_cookie(o, f);
	p->io.h.flags |= DL_F_FILE;
}

/* A name argument that is empty or NULL: the call's file is its dirfd (AT_EMPTY_PATH). */
static __always_inline int dl_empty_name(const char *user)
{
	char first = 0;

	return !user || (!bpf_probe_read_user(&first, 1, user) && !first);
}

/* fstatat(fd, "", AT_EMPTY_PATH) or statx alike: no path record (dl_kind_by_fd()). */
static __always_inline int dl_stat_of_fd(struct dl_task *t, enum dl_kind kind)
{
	return dl_kind_stats_at(kind) && (int)t->a[0] >= 0 && dl_empty_name((void *)t->a[1]);
}

/*
 * The *at flags: newfstatat(dfd, name, buf, flags), statx(dfd, name,
 * flags, mask, buf), unlinkat(dfd, name, flags).
 */
static __always_inline __u32 dl_at_flags(enum dl_kind kind, const __u64 *a)
{
	return kind == DL_SYS_NEWFSTATAT ? a[3] : a[2];
}

static __always_inline int sys_exit_path(struct trace_event_raw_sys_exit *ctx, struct dl_task *t,
					 enum dl_kind kind, __u64 now, __u32 py)
{
	__u32 zero = 0, used = 0;
	struct dl_opened opened = {};
	struct dl_scratch *s;
	struct dl_path *p;
	__u64 *a = t->a;
	char *data;

	s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s)
		return 0;
	p = (void *)s->buf;
	data = s->buf + sizeof(struct dl_path);
	dl_fill_hdr(&p->io.h, t->ts, kind, t->slot);
	p->io.dur = now - t->ts;
	p->io.ret = ctx->ret;
	p->io.offset = 0;
	p->io.size = 0;
	p->io.arg = 0;
	p->io.file = 0;
	p->io.file2 = 0;
	p->ino = 0;
	p->file_size = 0;
	p->dev = 0;
	p->fs_magic = 0;
	p->flags = 0;
	p->base_len[0] = p->base_len[1] = 0;
	p->name_len[0] = p->name_len[1] = 0;
	p->how[0] = p->how[1] = 0;
	p->pad[0] = p->pad[1] = 0;
	p->py_stack = py;
	p->pad2 = 0;

	switch (kind) {
	case DL_SYS_OPEN:
	case DL_SYS_CREAT:
	case DL_SYS_OPENAT:
	case DL_SYS_OPENAT2: {
		int dirfd = AT_FDCWD;
		const char *name = (void *)a[0];

		if (kind == DL_SYS_OPEN) {
			p->io.arg = (a[1] & 0xffffffff) | (a[2] << 32);
		} else if (kind == DL_SYS_CREAT) {
			p->io.arg = (O_CREAT | O_WRONLY | O_TRUNC) | (a[1] << 32);
		} else {
			dirfd = (int)a[0];
			name = (void *)a[1];
			if (kind == DL_SYS_OPENAT) {
				p->io.arg = (a[2] & 0xffffffff) | (a[3] << 32);
			} else {
				struct open_how how = {};

				bpf_probe_read_user(&how, sizeof(how), (void *)a[2]);
				p->io.arg = (how.flags & 0xffffffff) | (how.mode << 32);
			}
		}
		p->io.h.fd = dirfd;
		if (ctx->ret >= 0) {
			dl_opened_file(p, (int)ctx->ret, &opened);
			used = p->base_len[0];
		} else {
			used = dl_name_slot(p, data, 0, 0, dirfd, name);
		}
		break;
	}
	case DL_SYS_STAT:
	case DL_SYS_LSTAT:
	case DL_SYS_UNLINK:
	case DL_SYS_RMDIR:
		used = dl_name_slot(p, data, 0, 0, AT_FDCWD, (void *)a[0]);
		break;
	case DL_SYS_MKDIR:
		p->io.arg = a[1] << 32;
		used = dl_name_slot(p, data, 0, 0, AT_FDCWD, (void *)a[0]);
		break;
	case DL_SYS_MKDIRAT:
		p->io.h.fd = (int)a[0];
		p->io.arg = a[2] << 32;
		used = dl_name_slot(p, data, 0, 0, (int)a[0], (void *)a[1]);
		break;
	case DL_SYS_NEWFSTATAT:
	case DL_SYS_STATX:
	case DL_SYS_UNLINKAT:
		/* newfstatat(dfd, name, buf, flags), statx(dfd, name, flags, mask, buf),
		 * unlinkat(dfd, name, flags) */
		p->io.h.fd = (int)a[0];
		p->flags = dl_at_flags(kind, a);
		used = dl_name_slot(p, data, 0, 0, (int)a[0], (void *)a[1]);
		break;
	case DL_SYS_RENAME:
		used = dl_name_slot(p, data, 0, 0, AT_FDCWD, (void *)a[0]);
		used += dl_name_slot(p, data, used, 1, AT_FDCWD, (void *)a[1]);
		break;
	case DL_SYS_RENAMEAT:
	case DL_SYS_RENAMEAT2:
		p->io.h.fd = (int)a[0];
		p->io.arg = a[2] & 0xffffffff;
		p->flags = kind == DL_SYS_RENAMEAT2 ? a[4] : 0;
		used = dl_name_slot(p, data, 0, 0, (int)a[0], (void *)a[1]);
		used += dl_name_slot(p, data, used, 1, (int)a[2], (void *)a[3]);
		break;
	default:
		break;
	}
	DL_OPAQUE(used);
	used &= DL_SCRATCH_MASK;
	/* an opened file's cookie counts once its record (its struct dl_file) went out */
	if (!dl_output(p, sizeof(*p) + used, t->slot))
		dl_file_opened(t, &opened, (int)ctx->ret);
	return 0;
}

/*
 * Data syscalls: they neither name a file nor change the descriptor table,
 * so they may wait in the task's batch (see ring_output.bpf.h).
 */
static __always_inline int dl_kind_batches(enum dl_kind kind)
{
	return !dl_kind_has_path(kind) && kind != DL_SYS_CLOSE && kind != DL_SYS_CLOSE_RANGE &&
	       kind != DL_SYS_DUP && kind != DL_SYS_DUP2 && kind != DL_SYS_DUP3 &&
	       kind != DL_SYS_FCNTL;
}

/* The fields every syscall record has, from the task's saved entry. */
static __always_inline void dl_fill_exit(struct dl_io *e, struct dl_task *t, long ret,
					 enum dl_kind kind, __u64 now)
{
	e->h.ts = t->ts;
	e->h.tgid = t->tgid;
	e->h.tid = t->tid;
	e->h.kind = kind;
	e->h.job = t->slot;
	e->h.flags = t->flags;
	e->dur = now - t->ts;
	e->ret = ret;
	dl_fill_io(e, t, kind);
	if (cache_layer && (kind == DL_SYS_READ || kind == DL_SYS_PREAD64 || kind == DL_SYS_READV ||
			    kind == DL_SYS_PREADV || kind == DL_SYS_PREADV2)) {
		e->arg = t->cache_pages;
		e->h.flags |= DL_F_CACHE;
	}
}

/* An mmap or a copy with a Python stack: alone, with the stack id after the record. */
static __always_inline int sys_exit_io_py(struct trace_event_raw_sys_exit *ctx, struct dl_task *t,
					  enum dl_kind kind, __u64 now, __u32 py)
{
	struct dl_io_py *m;

	dl_flush(t);
	m = dl_reserve(sizeof(*m), t->slot, kind);
	if (!m)
		return 0;
	dl_fill_exit(&m->io, t, ctx->ret, kind, now);
	m->py_stack = py;
	m->pad = 0;
	dl_submit(m);
	return 0;
}

static __always_inline int sys_exit(struct trace_event_raw_sys_exit *ctx, enum dl_kind kind)
{
	struct dl_task *t = dl_traced_task();
	struct dl_io *e;
	__u32 i, py;
	__u64 now;
	int by_fd;

	if ((kind == DL_SYS_RENAME || kind == DL_SYS_RENAMEAT || kind == DL_SYS_RENAMEAT2) &&
	    !ctx->ret)
		__sync_fetch_and_add(&dl_names_gen, 1); /* anyone's: a name sent may be stale */
	if (!t || t->sys != kind + 1)
		return 0;
	t->sys = 0;
	if (kind == DL_SYS_MMAP) /* a file is mapped now: see mmap_probes.bpf.c */
		__sync_fetch_and_add(&dl_map_gen, 1);
	now = bpf_ktime_get_ns();
	/* python stacks: a libpython being mapped, then the calling thread's stack */
	if (py_stacks && kind == DL_SYS_MMAP && ctx->ret >= 0)
		dl_py_mapped(t, ctx->ret);
	py = dl_py_stack_id(t, kind, now);
	if (py && dl_py_after_io(kind))
		return sys_exit_io_py(ctx, t, kind, now, py);
	by_fd = dl_stat_of_fd(t, kind);
	if (dl_kind_has_path(kind) && !by_fd) {
		/* the data records before it go first: user space sees them in order */
		dl_flush(t);
		return sys_exit_path(ctx, t, kind, now, py);
	}
	/*
	 * Every other record joins the task's batch; one that must not wait
	 * (close, dup, fcntl: they change what a descriptor means) sends the
	 * batch at once, itself last: one ring write, not two.
	 */
	i = t->nbatch;
	if (i >= DL_BATCH) {
		dl_flush(t);
		i = 0;
	}
	e = &t->batch[i & (DL_BATCH - 1)];
	dl_fill_exit(e, t, ctx->ret, kind, now);
	if (by_fd) { /* see dl_kind_by_fd(): the descriptor's file, the *at flags in arg */
		e->file = dl_fd_cookie(t, (int)t->a[0]);
		e->h.flags |= DL_F_FILE;
		e->arg = dl_at_flags(kind, t->a);
	}
	if (py) /* a kind of dl_py_in_arg() or a stat of a descriptor: arg's upper half is free */
		e->arg |= (__u64)py << 32;
	e->h.flags |= DL_F_BATCH;
	t->nbatch = i + 1;
	if (!dl_kind_batches(kind) || i + 1 == DL_BATCH || now - t->batch[0].h.ts > DL_BATCH_AGE_NS)
		dl_flush(t);
	return 0;
}

/* One enter and one exit program per syscall tracepoint. */
#define DL_SYSCALL(tp, kind)                                                                       \
	SEC("tracepoint/syscalls/sys_enter_" #tp)                                                  \
	int dl_enter_##tp(struct trace_event_raw_sys_enter *ctx)                                   \
	{                                                                                          \
		return sys_enter(ctx, kind);                                                       \
	}                                                                                          \
	SEC("tracepoint/syscalls/sys_exit_" #tp)                                                   \
	int dl_exit_##tp(struct trace_event_raw_sys_exit *ctx)                                     \
	{                                                                                          \
		return sys_exit(ctx, kind);                                                        \
	}

DL_SYSCALL(open, DL_SYS_OPEN)
DL_SYSCALL(openat, DL_SYS_OPENAT)
DL_SYSCALL(openat2, DL_SYS_OPENAT2)
DL_SYSCALL(creat, DL_SYS_CREAT)
DL_SYSCALL(close, DL_SYS_CLOSE)
DL_SYSCALL(close_range, DL_SYS_CLOSE_RANGE)
DL_SYSCALL(read, DL_SYS_READ)
DL_SYSCALL(pread64, DL_SYS_PREAD64)
DL_SYSCALL(readv, DL_SYS_READV)
DL_SYSCALL(preadv, DL_SYS_PREADV)
DL_SYSCALL(preadv2, DL_SYS_PREADV2)
DL_SYSCALL(write, DL_SYS_WRITE)
DL_SYSCALL(pwrite64, DL_SYS_PWRITE64)
DL_SYSCALL(writev, DL_SYS_WRITEV)
DL_SYSCALL(pwritev, DL_SYS_PWRITEV)
DL_SYSCALL(pwritev2, DL_SYS_PWRITEV2)
DL_SYSCALL(lseek, DL_SYS_LSEEK)
DL_SYSCALL(fsync, DL_SYS_FSYNC)
DL_SYSCALL(fdatasync, DL_SYS_FDATASYNC)
DL_SYSCALL(sync_file_range, DL_SYS_SYNC_FILE_RANGE)
DL_SYSCALL(mmap, DL_SYS_MMAP)
DL_SYSCALL(newstat, DL_SYS_STAT)
DL_SYSCALL(newlstat, DL_SYS_LSTAT)
DL_SYSCALL(newfstat, DL_SYS_FSTAT)
DL_SYSCALL(newfstatat, DL_SYS_NEWFSTATAT)
DL_SYSCALL(statx, DL_SYS_STATX)
DL_SYSCALL(getdents64, DL_SYS_GETDENTS64)
DL_SYSCALL(unlink, DL_SYS_UNLINK)
DL_SYSCALL(unlinkat, DL_SYS_UNLINKAT)
DL_SYSCALL(rename, DL_SYS_RENAME)
DL_SYSCALL(renameat, DL_SYS_RENAMEAT)
DL_SYSCALL(renameat2, DL_SYS_RENAMEAT2)
DL_SYSCALL(mkdir, DL_SYS_MKDIR)
DL_SYSCALL(mkdirat, DL_SYS_MKDIRAT)
DL_SYSCALL(rmdir, DL_SYS_RMDIR)
DL_SYSCALL(ftruncate, DL_SYS_FTRUNCATE)
DL_SYSCALL(fallocate, DL_SYS_FALLOCATE)
DL_SYSCALL(dup, DL_SYS_DUP)
DL_SYSCALL(dup2, DL_SYS_DUP2)
DL_SYSCALL(dup3, DL_SYS_DUP3)
DL_SYSCALL(fcntl, DL_SYS_FCNTL)
DL_SYSCALL(sendfile64, DL_SYS_SENDFILE)
DL_SYSCALL(copy_file_range, DL_SYS_COPY_FILE_RANGE)

char LICENSE[] SEC("license") = "Dual BSD/GPL";
