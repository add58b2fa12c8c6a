// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Syscall capture: one program on each sys_enter_* / sys_exit_* tracepoint
 * of the hot file syscalls, the rows of program OWN in syscalls.def (the
 * others: meta_syscall_probes.bpf.c).  Entry saves the arguments and the
 * time in the task's storage; exit emits one record, as the row's columns
 * say: each program has a constant kind, so the switches on it fold away.
 * Every program starts with the membership check so untraced tasks pay one
 * storage lookup.
 * A call on a descriptor records which file it was, at entry
 * (file_identity.bpf.h).  The programs on the renames' exits (their
 * records are the shared pair's) count every rename of the machine,
 * traced or not.
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
#define DL_PY_EXTERN /* the walk: python_stack.bpf.c */
#include "python_stack.bpf.h"
#include "syscall_store.bpf.h"

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

/* The rows of program OWN only (the shared rows' words are the other file's). */
#define DL_OWN_OWN(...) __VA_ARGS__
#define DL_OWN_SHARED(...)

/* Kinds whose offset is the descriptor's position at entry (POS in their store). */
#define DL_POS_ARG(s)	  | DL_IS_POS(s)
#define DL_POS_LO(s)	  | DL_IS_POS(s)
#define DL_POS_HI(s)	  | DL_IS_POS(s)
#define DL_POS_SIZE(s)	  | DL_IS_POS(s)
#define DL_POS_OFFSET(s)  | DL_IS_POS(s)
#define DL_POS_ATFLAGS(s) | DL_IS_POS(s)
#define DL_POS_FILE_OFFSET
#define DL_POS_TIMES(n, layout)
#define DL_POS_FCNTL_ARGS

static __always_inline int dl_kind_reads_pos(enum dl_kind kind)
{
	switch (kind) {
#define DL_ITEMS DL_POS
#define DL_SYSCALL(k, name_, tp_, args_, cls_, prog_, roles_, rec_, file_, second_, store_, show_) \
	DL_OWN_##prog_(case DL_SYS_##k : return 0 store_;)
#include "syscalls.def"
#undef DL_SYSCALL
#undef DL_ITEMS
	default:
		return 0;
	}
}

/* The argument that is the call's descriptor, its file identified at entry, or -1. */
static __always_inline int dl_kind_ident_arg(enum dl_kind kind)
{
	return dl_kind_file(kind) == DL_FILE_FD ? dl_kind_fd_arg(kind) : -1;
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

static __always_inline int sys_enter(struct trace_event_raw_sys_enter *ctx, enum dl_kind kind)
{
	struct dl_task *t = dl_traced_task();

	if (!t)
		return 0;
	/* Only file-backed mappings are I/O. */
	if (kind == DL_SYS_MMAP && ((ctx->args[3] & MAP_ANONYMOUS) || (int)ctx->args[4] < 0))
		return 0;

	t->flags = 0;
	/*
	 * Constant offsets only (the verifier refuses a moved context pointer),
	 * and up to the tracepoint's last field, the row's argument count: the
	 * kernel refuses to attach a program that reads beyond.
	 */
	t->a[0] = ctx->args[0];
	if (dl_kind_nargs(kind) > 1)
		t->a[1] = ctx->args[1];
	if (dl_kind_nargs(kind) > 2)
		t->a[2] = ctx->args[2];
	if (dl_kind_nargs(kind) > 3)
		t->a[3] = ctx->args[3];
	if (dl_kind_nargs(kind) > 4)
		t->a[4] = ctx->args[4];
	if (dl_kind_nargs(kind) > 5)
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
	if (dl_kind_ident_arg(kind) >= 0) {
		/* the file the descriptor refers to now: its position, its identity */
		int fd = (int)t->a[dl_kind_ident_arg(kind) & 7];
		struct dl_fd_facts ff;

		if (!dl_fd_facts(fd, &ff) && dl_kind_reads_pos(kind)) {
			t->pos = ff.pos;
			t->flags = DL_F_OFFSET;
		}
		t->file = dl_file_cookie_of(t, (void *)ff.file, ff.inode, ff.ino, fd);
		t->flags |= DL_F_FILE;
		if (dl_kind_second(kind) ==
		    DL_SECOND_OUT) /* sendfile, copy_file_range: the output */
			t->file2 = dl_fd_cookie(t, (int)t->a[dl_kind_second_arg(kind) & 7]);
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

/* FCNTL_ARGS: cmd | arg << 32; the locks: cmd | (l_type | l_whence << 16) << 32, l_start, l_len */
#define DL_STORE_FCNTL_ARGS dl_fcntl_store(st, a);

static __always_inline void dl_fcntl_store(struct dl_store *st, const __u64 *a)
{
	if (dl_fcntl_is_lock(a[1])) { /* a[3..5]: the struct flock, read at entry */
		st->arg = (a[1] & 0xffffffff) | (a[3] << 32);
		st->offset = a[4];
		st->size = a[5];
	} else {
		st->arg = (a[1] & 0xffffffff) | (a[2] << 32);
	}
}

/* What the record of kind holds besides its header, file and result (the store column). */
static __always_inline void dl_store(struct dl_store *st, struct dl_task *t, enum dl_kind kind)
{
	__u64 *a = t->a;

	switch (kind) {
#define DL_ITEMS DL_STORE
#define DL_SYSCALL(k, name_, tp_, args_, cls_, prog_, roles_, rec_, file_, second_, store_, show_) \
	DL_OWN_##prog_(case DL_SYS_##k : DL_STORE_SECOND_##second_ store_ break;)
#include "syscalls.def"
#undef DL_SYSCALL
#undef DL_ITEMS
	default:
		break;
	}
}

/* Fill the kind-specific fields of a completed syscall. */
static __always_inline void dl_fill_io(struct dl_io *e, struct dl_task *t, enum dl_kind kind)
{
	struct dl_store st = {};

	dl_store(&st, t, kind);
	e->h.fd = dl_kind_fd_arg(kind) >= 0 ? (int)t->a[dl_kind_fd_arg(kind) & 7] : -1;
	e->h.flags |= st.flags;
	e->offset = st.offset;
	e->size = st.size;
	e->arg = st.arg;
	e->file = t->file;
	e->file2 = t->file2;
}

/* Describe the file an open returned: its walked path, identity and cookie. */
static __always_inline void dl_opened_file(struct dl_path *p, int fd, struct dl_opened *o)
{
	__u64 f = dl_fd_file_addr(fd);
	struct dl_file_facts ff;

	if (dl_file_facts(f, &ff))
		return;
	p->base_len[0] = dl_walk_path((void *)ff.dentry, (void *)ff.mnt, 0, &p->how[0]);
	p->how[0] |= DL_PATH_WALK;
	p->ino = ff.ino;
	p->file_size = ff.size;
	p->dev = ff.dev;
	p->fs_magic = ff.magic;
	p->io.file = dl_file_open_cookie_of(o, f, ff.inode, ff.ino);
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
	return dl_kind_stats_at(kind) && (int)t->a[dl_kind_fd_arg(kind) & 7] >= 0 &&
	       dl_empty_name((void *)t->a[dl_kind_name_arg(kind) & 7]);
}

/* The *at flags of the row's store (a by-fd stat's arg). */
static __always_inline __u32 dl_at_flags(struct dl_task *t, enum dl_kind kind)
{
	struct dl_store st = {};

	dl_store(&st, t, kind);
	return st.at_flags;
}

static __always_inline int sys_exit_path(struct trace_event_raw_sys_exit *ctx, struct dl_task *t,
					 enum dl_kind kind, __u64 now, __u32 py)
{
	__u32 zero = 0, used = 0;
	struct dl_opened opened = {};
	struct dl_store st = {};
	struct dl_scratch *s;
	struct dl_path *p;
	__u64 *a = t->a;
	char *data;
	int fd_arg = dl_kind_fd_arg(kind), dirfd2 = dl_kind_second_dirfd(kind);
	int dirfd = fd_arg >= 0 ? (int)a[fd_arg & 7] : AT_FDCWD;
	const char *name = (void *)a[dl_kind_name_arg(kind) & 7];

	s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s)
		return 0;
	p = (void *)s->buf;
	data = s->buf + sizeof(struct dl_path);
	dl_fill_hdr(&p->io.h, t->ts, kind, t->slot);
	dl_store(&st, t, kind);
	p->io.dur = now - t->ts;
	p->io.ret = ctx->ret;
	p->io.offset = st.offset;
	p->io.size = st.size;
	p->io.arg = st.arg;
	p->io.h.flags |= st.flags;
	p->io.file = 0;
	p->io.file2 = 0;
	p->ino = 0;
	p->file_size = 0;
	p->dev = 0;
	p->fs_magic = 0;
	p->flags = st.at_flags;
	p->base_len[0] = p->base_len[1] = 0;
	p->name_len[0] = p->name_len[1] = 0;
	p->how[0] = p->how[1] = 0;
	p->pad[0] = p->pad[1] = 0;
	p->py_stack = py;
	p->pad2 = 0;

	if (fd_arg >= 0 || dl_kind_file(kind) == DL_FILE_OPENED) /* opens: AT_FDCWD too */
		p->io.h.fd = dirfd;
	if (dl_kind_file(kind) == DL_FILE_OPENED && ctx->ret >= 0) {
		/* the file it opened */
		dl_opened_file(p, (int)ctx->ret, &opened);
		used = p->base_len[0];
	} else {
		used = dl_name_slot(p, data, 0, 0, dirfd, name);
	}
	if (dl_kind_second(kind) == DL_SECOND_NEW) /* rename*: the new name */
		used += dl_name_slot(p, data, used, 1, dirfd2 >= 0 ? (int)a[dirfd2 & 7] : AT_FDCWD,
				     (void *)a[dl_kind_second_arg(kind) & 7]);
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
	return !dl_kind_has_path(kind) && !(dl_kind_roles(kind) & DL_ROLE_FLUSH);
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
	/* the reads whose arg is free: not sendfile, copy_file_range (the output's descriptor) */
	if (cache_layer && (dl_kind_roles(kind) & DL_ROLE_READS) &&
	    dl_kind_second(kind) != DL_SECOND_OUT) {
		e->arg = t->cache_pages;
		e->h.flags |= DL_F_CACHE;
	}
}

/* Counting mode: data calls alike travel as runs (DL_KIND_RUN in dltrace_events.h). */
static __always_inline int dl_kind_runs(enum dl_kind kind)
{
	return (dl_kind_roles(kind) & (DL_ROLE_READS | DL_ROLE_WRITES)) &&
	       dl_kind_second(kind) == DL_SECOND_NONE && !dl_kind_has_path(kind);
}

/* A run's arg: cache pages in the low half, the longest call (saturated) in the high. */
static __always_inline __u64 dl_run_arg(__u32 pages, __u64 longest)
{
	return pages | (longest < DL_RUN_LONGEST_MAX ? longest : DL_RUN_LONGEST_MAX) << 32;
}

/*
 * The call joins its file's run: the last record of the task's batch on
 * that file, when the call is the run's next one (its kind, descriptor and
 * size, moved in full, at the offset the run's calls follow).  Later
 * records in the batch are other files' calls, whose order to it the
 * report does not need.  1 when it joined.
 */
static __always_inline int dl_run_extend(struct dl_task *t, enum dl_kind kind, long ret, __u64 now)
{
	__u32 n = t->nbatch, calls, flags, k;
	struct dl_store st = {};
	struct dl_io *e = NULL;
	__u64 dur, next;

	if (!t->file || !n || n > DL_BATCH)
		return 0;
	for (__u32 j = 0; j < DL_BATCH && j < n; j++) {
		k = (n - 1 - j) & (DL_BATCH - 1);
		if (t->batch[k].file == t->file) {
			e = &t->batch[k];
			break;
		}
	}
	if (!e || k < t->run_from || (e->h.kind & ~DL_KIND_RUN_SAME) != (kind | DL_KIND_RUN))
		return 0;
	dl_store(&st, t, kind);
	flags = t->flags | st.flags;
	calls = e->file2;
	if (e->ret != ret || st.size != (__u64)ret || (flags & DL_F_IOV_TRUNC) ||
	    e->h.fd != (int)t->a[dl_kind_fd_arg(kind) & 7] ||
	    (e->h.flags & DL_F_OFFSET) != (flags & DL_F_OFFSET))
		return 0;
	if (flags & DL_F_OFFSET) {
		/* the second call says whether the offsets advance or stay */
		next = e->h.kind & DL_KIND_RUN_SAME ? e->offset : e->offset + (__u64)calls * ret;
		if (calls == 1 && st.offset == e->offset)
			e->h.kind |= DL_KIND_RUN_SAME;
		else if (st.offset != next)
			return 0;
	}
	dur = now - t->ts;
	e->file2 = calls + 1;
	e->dur += dur;
	e->size = now - e->h.ts;
	e->arg = dl_run_arg((__u32)e->arg + (cache_layer ? t->cache_pages : 0),
			    dur > e->arg >> 32 ? dur : e->arg >> 32);
	return 1;
}

/* Make the record just batched the start of a run, when its call may begin one. */
static __always_inline void dl_run_start(struct dl_task *t, struct dl_io *e, enum dl_kind kind)
{
	if (!e->file || e->ret <= 0 || e->size != (__u64)e->ret || (e->h.flags & DL_F_IOV_TRUNC))
		return;
	e->h.kind = kind | DL_KIND_RUN;
	e->file2 = 1;
	e->size = e->dur; /* the span */
	e->arg = dl_run_arg(cache_layer ? t->cache_pages : 0, e->dur);
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
	/* counting mode: the next call of the task's run only counts */
	if (dl_counting(t) && dl_kind_runs(kind) && !by_fd && !py && ctx->ret > 0 &&
	    dl_run_extend(t, kind, ctx->ret, now)) {
		if (now - t->batch[0].h.ts > DL_BATCH_AGE_NS)
			dl_flush(t);
		return 0;
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
		e->arg = dl_at_flags(t, kind);
	}
	if (py) /* a kind of dl_py_in_arg() or a stat of a descriptor: arg's upper half is free */
		e->arg |= (__u64)py << 32;
	e->h.flags |= DL_F_BATCH;
	t->nbatch = i + 1;
	if (dl_counting(t) && dl_kind_runs(kind) && !by_fd && !py)
		dl_run_start(t, e, kind);
	/* a stat of a descriptor waits like fstat: it changes no descriptor */
	if (!(dl_kind_batches(kind) || by_fd) || i + 1 == DL_BATCH ||
	    now - t->batch[0].h.ts > DL_BATCH_AGE_NS)
		dl_flush(t);
	return 0;
}

/* One enter and one exit program per syscall tracepoint. */
#define DL_PROGRAMS(tp, kind)                                                                      \
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
#define DL_SYSCALL(k, name_, tp_, args_, cls_, prog_, ...)                                         \
	DL_OWN_##prog_(DL_PROGRAMS(tp_, DL_SYS_##k))
#include "syscalls.def"
#undef DL_SYSCALL

/*
 * Every rename on the machine, anyone's, makes a name sent or cached
 * before it possibly stale (path_walk.bpf.c).  The renames' records come
 * from the shared pair; these only count them, beside it.
 */
#define DL_RENAMED(tp)                                                                             \
	SEC("tracepoint/syscalls/sys_exit_" #tp)                                                   \
	int dl_renamed_##tp(struct trace_event_raw_sys_exit *ctx)                                  \
	{                                                                                          \
		if (!ctx->ret)                                                                     \
			__sync_fetch_and_add(&dl_names_gen, 1);                                    \
		return 0;                                                                          \
	}
DL_RENAMED(rename)
DL_RENAMED(renameat)
DL_RENAMED(renameat2)

char LICENSE[] SEC("license") = "Dual BSD/GPL";
