// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Levels above the syscalls: library calls (stdio, HDF5, MPI-IO) through
 * uprobes on the libraries' functions, and the job's marked phases through
 * the USDT probes of libdltrace_markers.so.  user/probe/library_probes.c
 * attaches them; the BPF cookie of each attachment is the function
 * (enum dl_func).
 *
 * A call's entry pushes a frame (time, raw arguments) on the thread's stack
 * of open calls; its return pops it and sends one struct dl_span.  A
 * region's begin pushes a frame (time, name, arguments: read at once, the
 * caller's strings may not outlive the call) on the thread's stack of open
 * regions; its end pops it and sends one record.  Both go through the task
 * filter first, so untraced tasks that reach a probe pay one storage lookup.
 * A thread's batched syscall records are sent before its span records, so
 * that on each thread records stay in completion order.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>
#include "dltrace_events.h"
/* uprobe and USDT programs: the kernel allows them no kfuncs (6.18) */
#define DL_FILTER_NO_KFUNCS
#include "task_filter.bpf.h"
#include "ring_output.bpf.h"

/*
 * The cookie of a library probe: the function (enum dl_func) in bits 0-15,
 * what the library's layout needs in bits 32-63 (DL_COOKIE_* in
 * dltrace_events.h): stdio, the offset of a FILE's descriptor; mpiio, how
 * to read a datatype's size.
 */
/* The sixth argument (libbpf 1.1's bpf_tracing.h stops at five) */
#ifndef PT_REGS_PARM6
#if defined(bpf_target_x86)
#define PT_REGS_PARM6(x) (((const struct pt_regs *)(x))->r9)
#elif defined(bpf_target_arm64)
#define PT_REGS_PARM6(x) (((const struct user_pt_regs *)(x))->regs[5])
#else
#define PT_REGS_PARM6(x) 0
#endif
#endif

#define COOKIE_FUNC(c)	((__u32)(c)&0xffff)
#define COOKIE_PARAM(c) ((__u32)((c) >> 32))

struct dl_call_frame {
	__u64 ts;
	__u64 a[6];
	__u64 extra;  /* read at entry: what the return can no longer read */
	__u64 cookie; /* of the entry probe */
	__u64 points; /* H5Dread/H5Dwrite: points selected (hdf5_select) */
	__u32 sel;    /* and DL_H5_SEL_KNOWN | kind | type size, as dl_span.arg */
	__u32 pad;
};

struct dl_mark_frame {
	__u64 ts;
	__u32 hash; /* of the name, to match its end */
	__u16 name_len;
	__u16 args_len;
	char name[DL_MARK_NAME_MAX];
	char args[DL_MARK_ARGS_MAX];
};

/* A traced thread's open library calls and regions. */
struct dl_level_task {
	__u32 ncalls;	/* frames in calls[] */
	__u32 skipped;	/* calls entered beyond DL_LEVEL_DEPTH, not recorded */
	__u32 nmarks;	/* frames in marks[] */
	__u32 mskipped; /* regions begun beyond DL_LEVEL_DEPTH */
	struct dl_call_frame calls[DL_LEVEL_DEPTH];
	struct dl_mark_frame marks[DL_LEVEL_DEPTH];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct dl_level_task);
} level_tasks SEC(".maps");

/* Scratch for a region's name at its end (one per CPU). */
struct dl_name_buf {
	char name[DL_MARK_NAME_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dl_name_buf);
} level_names SEC(".maps");

static __always_inline struct dl_level_task *level_task(int create)
{
	return bpf_task_storage_get(&level_tasks, bpf_get_current_task_btf(), 0,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

/* ---------------------------------------------------------------- records */

#define STR_MASK  (DL_SPAN_STR_MAX * 2 - 1)
#define STR2_MASK (DL_SPAN_STR2_MAX * 2 - 1)

/* The record being built, in the per-CPU scratch area. */
static __always_inline struct dl_span *span_start(__u64 ts, __u32 level, __u32 func, __u32 slot)
{
	__u32 zero = 0;
	struct dl_scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	struct dl_span *e;

	if (!s)
		return NULL;
	e = (void *)s->buf;
	dl_fill_hdr(&e->h, ts, DL_EV_SPAN, slot);
	e->dur = 0;
	e->ret = 0;
	e->handle = 0;
	e->offset = 0;
	e->size = 0;
	e->count = 0;
	e->arg = 0;
	e->level = level;
	e->func = func;
	e->flags = 0;
	e->depth = 0;
	e->str_len = 0;
	e->str2_len = 0;
	return e;
}

/* str from a user string (at most DL_SPAN_STR_MAX bytes); call before span_str2_user. */
static __always_inline void span_str_user(struct dl_span *e, const void *p)
{
	long n;

	if (!p)
		return;
	n = bpf_probe_read_user_str(e->data, DL_SPAN_STR_MAX, p);
	if (n <= 0) {
		e->flags |= DL_SPAN_STR_FAULT;
		return;
	}
	e->str_len = n - 1;
	if (n == DL_SPAN_STR_MAX)
		e->flags |= DL_SPAN_STR_TRUNC;
}

static __always_inline void span_str2_user(struct dl_span *e, const void *p)
{
	__u32 off = e->str_len;
	long n;

	if (!p)
		return;
	DL_OPAQUE(off);
	off &= STR_MASK;
	n = bpf_probe_read_user_str(e->data + off, DL_SPAN_STR2_MAX, p);
	if (n <= 0)
		return;
	e->str2_len = n - 1;
	if (n == DL_SPAN_STR2_MAX)
		e->flags |= DL_SPAN_STR2_TRUNC;
}

/* Send the record (the thread's batched syscall records first). */
static __always_inline void span_send(struct dl_task *t, struct dl_span *e)
{
	__u64 size = sizeof(*e) + (e->str_len & STR_MASK) + (e->str2_len & STR2_MASK);

	dl_flush(t);
	DL_OPAQUE(size); /* keep the bound where the verifier sees it */
	size &= 0x3fff;
	dl_output(e, size, t->slot);
}

/* ---------------------------------------------------------- library calls */

/* The descriptor of FILE *fp; param: DL_COOKIE_FILENO_OFF */
static __always_inline int stream_fd(__u64 fp, __u32 param)
{
	__u32 off = param & DL_COOKIE_FILENO_MASK;
	int fd = -1;

	if (!fp || !off || bpf_probe_read_user(&fd, sizeof(fd), (void *)(fp + off)))
		return -1;
	return fd;
}

/* Bytes of count items of MPI datatype dt, when readable; param: DL_COOKIE_MPI_* */
static __always_inline int mpi_bytes(__u64 dt, __u64 count, __u32 param, __u64 *bytes)
{
	__u32 abi = param >> DL_COOKIE_MPI_ABI_SHIFT;
	__u64 size = 0;

	if (abi == DL_MPI_ABI_OMPI) {
		if (!dt || bpf_probe_read_user(&size, sizeof(size),
					       (void *)(dt + (param & DL_COOKIE_MPI_OFF_MASK))))
			return -1;
	} else if (abi == DL_MPI_ABI_MPICH) {
		if ((dt & 0xc0000000) != 0x40000000) /* not a builtin handle */
			return -1;
		size = (dt >> 8) & 0xff;
	} else {
		return -1;
	}
	*bytes = size * count;
	return 0;
}

static __always_inline int call_entry(struct pt_regs *ctx)
{
	struct dl_task *t = dl_traced_task();
	struct dl_level_task *l;
	struct dl_call_frame *f;
	__u64 cookie;
	__u32 n, func;

	if (!t)
		return 0;
	t->run_from = t->nbatch; /* counting mode: nor from before a library call */
	l = level_task(1);
	if (!l)
		return 0;
	n = l->ncalls;
	if (n >= DL_LEVEL_DEPTH) {
		l->skipped++;
		return 0;
	}
	cookie = bpf_get_attach_cookie(ctx);
	func = COOKIE_FUNC(cookie);
	f = &l->calls[n & (DL_LEVEL_DEPTH - 1)];
	f->cookie = cookie;
	f->a[0] = PT_REGS_PARM1(ctx);
	f->a[1] = PT_REGS_PARM2(ctx);
	f->a[2] = PT_REGS_PARM3(ctx);
	f->a[3] = PT_REGS_PARM4(ctx);
	f->a[4] = PT_REGS_PARM5(ctx);
	f->a[5] = PT_REGS_PARM6(ctx);
	f->extra = 0;
	f->sel = 0;
	if (func == DL_FN_FCLOSE) /* the stream is freed by the call */
		f->extra = (__u64)(__s64)stream_fd(f->a[0], COOKIE_PARAM(cookie));
	else if (func == DL_FN_MPI_FILE_CLOSE && f->a[0]) /* close(MPI_File *fh) sets *fh */
		bpf_probe_read_user(&f->extra, sizeof(f->extra), (void *)f->a[0]);
	l->ncalls = n + 1;
	f->ts = bpf_ktime_get_ns();
	return 0;
}

static __always_inline void fill_stdio(struct dl_span *e, const struct dl_call_frame *f, __u32 func)
{
	const __u64 *a = f->a;
	__u32 param = COOKIE_PARAM(f->cookie);
	__u64 fp = 0;

	switch (func) {
	case DL_FN_FOPEN:
	case DL_FN_FOPEN64:
		span_str_user(e, (void *)a[0]);
		span_str2_user(e, (void *)a[1]);
		fp = e->ret;
		break;
	case DL_FN_FDOPEN:
		span_str2_user(e, (void *)a[1]);
		e->h.fd = (int)a[0];
		e->flags |= DL_SPAN_FD;
		return;
	case DL_FN_FREAD:
	case DL_FN_FWRITE:
		fp = a[3];
		e->arg = a[1];
		e->count = a[2];
		e->size = a[1] * a[2];
		e->flags |= DL_SPAN_ARG | DL_SPAN_COUNT | DL_SPAN_SIZE;
		break;
	case DL_FN_FSEEK:
	case DL_FN_FSEEKO:
		fp = a[0];
		e->offset = a[1];
		e->arg = a[2];
		e->flags |= DL_SPAN_OFFSET | DL_SPAN_ARG;
		break;
	case DL_FN_FCLOSE:
		e->handle = a[0];
		e->flags |= DL_SPAN_HANDLE;
		if ((__s64)f->extra >= 0) {
			e->h.fd = (int)f->extra;
			e->flags |= DL_SPAN_FD;
		}
		return;
	case DL_FN_FGETS:
		fp = a[2];
		e->size = (int)a[1];
		e->flags |= DL_SPAN_SIZE;
		break;
	case DL_FN_FPUTS: {
		__u32 zero = 0;
		struct dl_name_buf *b = bpf_map_lookup_elem(&level_names, &zero);
		long n;

		fp = a[1];
		/* the string's length, up to the buffer's size */
		if (b) {
			n = bpf_probe_read_user_str(b->name, sizeof(b->name), (void *)a[0]);
			if (n > 0 && n < (long)sizeof(b->name)) {
				e->size = n - 1;
				e->flags |= DL_SPAN_SIZE;
			}
		}
		break;
	}
	default: /* ftell, ftello, fflush */
		fp = a[0];
		break;
	}
	if (func != DL_FN_FOPEN && func != DL_FN_FOPEN64) {
		e->handle = fp;
		e->flags |= DL_SPAN_HANDLE;
	}
	if (fp) {
		int fd = stream_fd(fp, param);

		if (fd >= 0) {
			e->h.fd = fd;
			e->flags |= DL_SPAN_FD;
		}
	}
}

static __always_inline void fill_hdf5(struct dl_span *e, const struct dl_call_frame *f, __u32 func)
{
	const __u64 *a = f->a;

	switch (func) {
	case DL_FN_H5FCREATE:
	case DL_FN_H5FOPEN:
		span_str_user(e, (void *)a[0]);
		e->arg = a[1];
		e->flags |= DL_SPAN_ARG;
		return;
	case DL_FN_H5DCREATE2:
	case DL_FN_H5DOPEN2:
	case DL_FN_H5GOPEN2:
	case DL_FN_H5OOPEN:
		span_str_user(e, (void *)a[1]);
		break;
	case DL_FN_H5DREAD:
	case DL_FN_H5DWRITE:
		e->arg = (a[3] == 0 ? DL_H5_FILE_ALL : 0) | (a[2] == 0 ? DL_H5_MEM_ALL : 0);
		e->flags |= DL_SPAN_ARG;
		if (f->sel & DL_H5_SEL_KNOWN) {
			e->arg |= f->sel;
			e->count = f->points;
			e->size = f->points * (f->sel >> DL_H5_TSIZE_SHIFT);
			e->flags |= DL_SPAN_COUNT | DL_SPAN_SIZE;
		}
		break;
	default: /* the closes */
		break;
	}
	e->handle = a[0];
	e->flags |= DL_SPAN_HANDLE;
}

static __always_inline void fill_mpiio(struct dl_span *e, const struct dl_call_frame *f, __u32 func)
{
	const __u64 *a = f->a;
	__u32 param = COOKIE_PARAM(f->cookie);
	__u64 count = 0, type = 0;

	e->handle = a[0];
	e->flags |= DL_SPAN_HANDLE;
	switch (func) {
	case DL_FN_MPI_FILE_OPEN:
		/* (comm, filename, amode, info, MPI_File *fh) */
		span_str_user(e, (void *)a[1]);
		e->arg = a[2];
		e->flags |= DL_SPAN_ARG;
		e->handle = 0;
		if (!e->ret && a[4] &&
		    bpf_probe_read_user(&e->handle, sizeof(e->handle), (void *)a[4]))
			e->handle = 0;
		return;
	case DL_FN_MPI_FILE_CLOSE:
		e->handle = f->extra;
		return;
	case DL_FN_MPI_FILE_READ:
	case DL_FN_MPI_FILE_READ_ALL:
	case DL_FN_MPI_FILE_WRITE:
	case DL_FN_MPI_FILE_WRITE_ALL:
		/* (fh, buf, count, datatype, status) */
		count = (int)a[2];
		type = a[3];
		break;
	case DL_FN_MPI_FILE_READ_AT:
	case DL_FN_MPI_FILE_READ_AT_ALL:
	case DL_FN_MPI_FILE_WRITE_AT:
	case DL_FN_MPI_FILE_WRITE_AT_ALL:
		/* (fh, offset, buf, count, datatype, status) */
		e->offset = a[1];
		e->flags |= DL_SPAN_OFFSET;
		count = (int)a[3];
		type = a[4];
		break;
	case DL_FN_MPI_FILE_SET_VIEW: {
		/* (fh, disp, etype, filetype, datarep, info) */
		__u64 size = 0;

		e->offset = a[1];
		e->flags |= DL_SPAN_OFFSET;
		if (!mpi_bytes(a[2], 1, param, &size)) {
			e->arg = size;
			e->flags |= DL_SPAN_ARG;
		}
		span_str2_user(e, (void *)a[4]);
		return;
	}
	default: /* sync */
		return;
	}
	e->count = count;
	e->flags |= DL_SPAN_COUNT;
	if (!mpi_bytes(type, count, param, &e->size))
		e->flags |= DL_SPAN_SIZE;
}

static __always_inline int call_return(struct pt_regs *ctx, __u32 level)
{
	struct dl_task *t = dl_traced_task();
	struct dl_level_task *l;
	struct dl_call_frame *f = NULL;
	struct dl_span *e;
	__u32 func, n, depth = 0;
	__u64 now;

	if (!t)
		return 0;
	now = bpf_ktime_get_ns();
	l = level_task(0);
	if (!l)
		return 0;
	if (l->skipped) {
		l->skipped--;
		return 0;
	}
	func = COOKIE_FUNC(bpf_get_attach_cookie(ctx));
	n = l->ncalls;
	/* the innermost open call of this function; frames above it were abandoned (longjmp) */
	for (__u32 i = 0; i < DL_LEVEL_DEPTH; i++) {
		__u32 d = n - 1 - i;

		if (i >= n)
			break;
		if (COOKIE_FUNC(l->calls[d & (DL_LEVEL_DEPTH - 1)].cookie) == func) {
			f = &l->calls[d & (DL_LEVEL_DEPTH - 1)];
			depth = d;
			break;
		}
	}
	if (!f)
		return 0; /* entered before the probes were attached */
	l->ncalls = depth;
	e = span_start(f->ts, level, func, t->slot);
	if (!e)
		return 0;
	e->dur = now - f->ts;
	e->ret = PT_REGS_RC(ctx);
	e->depth = depth;
	if (level == DL_LAYER_STDIO)
		fill_stdio(e, f, func);
	else if (level == DL_LAYER_HDF5)
		fill_hdf5(e, f, func);
	else
		fill_mpiio(e, f, func);
	span_send(t, e);
	return 0;
}

SEC("uprobe")
int stdio_entry(struct pt_regs *ctx)
{
	return call_entry(ctx);
}

SEC("uretprobe")
int stdio_return(struct pt_regs *ctx)
{
	return call_return(ctx, DL_LAYER_STDIO);
}

SEC("uprobe")
int hdf5_entry(struct pt_regs *ctx)
{
	return call_entry(ctx);
}

SEC("uretprobe")
int hdf5_return(struct pt_regs *ctx)
{
	return call_return(ctx, DL_LAYER_HDF5);
}

/* A pointer-sized field of a library's structure; 0 when unreadable. */
static __always_inline __u64 user_u64(__u64 base, __u32 off)
{
	__u64 v = 0;

	if (!base || bpf_probe_read_user(&v, sizeof(v), (void *)(base + off)))
		return 0;
	return v;
}

/*
 * H5D__read/H5D__write(H5D_t *dset, hid_t mem_type, const H5S_t *mem_space,
 * const H5S_t *file_space, ...), called by the H5Dread/H5Dwrite on top of
 * the thread's open calls: what it asks for, as Darshan counts it (the
 * points of the file selection times the dataset's type size), into that
 * call's frame.  A NULL file space is H5S_ALL: the dataset's own space.
 * Values that cannot be right (a kind beyond HDF5's four, more points
 * than the extent, no type size) leave the call's bytes unknown.
 */
SEC("uprobe")
int hdf5_select(struct pt_regs *ctx)
{
	struct dl_task *t = dl_traced_task();
	struct dl_level_task *l;
	struct dl_call_frame *f;
	__u64 cookie, dset, shared, space, tsize, points, nelem;
	__s32 kind = DL_H5_SEL_ALL;
	__u32 n, func;

	if (!t)
		return 0;
	l = level_task(0);
	if (!l)
		return 0;
	n = l->ncalls;
	if (!n || n > DL_LEVEL_DEPTH || l->skipped)
		return 0;
	f = &l->calls[(n - 1) & (DL_LEVEL_DEPTH - 1)];
	func = COOKIE_FUNC(f->cookie);
	if ((func != DL_FN_H5DREAD && func != DL_FN_H5DWRITE) || f->sel)
		return 0; /* not under an H5Dread/H5Dwrite, or its first H5D__read is past */
	cookie = bpf_get_attach_cookie(ctx);
	dset = PT_REGS_PARM1(ctx);
	shared = user_u64(dset, DL_H5_OFF(cookie, DL_H5_OFF_DSET_SHARED));
	space = PT_REGS_PARM4(ctx);
	if (space) {
		__u64 cls = user_u64(space, DL_H5_OFF(cookie, DL_H5_OFF_SPACE_SEL));

		if (!cls || bpf_probe_read_user(&kind, sizeof(kind), (void *)cls))
			return 0;
	} else {
		space = user_u64(shared, DL_H5_OFF(cookie, DL_H5_OFF_SHARED_SPACE));
	}
	tsize = user_u64(user_u64(user_u64(shared, DL_H5_OFF(cookie, DL_H5_OFF_SHARED_TYPE)),
				  DL_H5_OFF(cookie, DL_H5_OFF_TYPE_SHARED)),
			 DL_H5_OFF(cookie, DL_H5_OFF_TSHARED_SIZE));
	points = user_u64(space, DL_H5_OFF(cookie, DL_H5_OFF_SPACE_NPOINTS));
	nelem = user_u64(space, DL_H5_OFF(cookie, DL_H5_OFF_SPACE_NELEM));
	if (!space || kind < 0 || kind > DL_H5_SEL_ALL || points > nelem || !tsize ||
	    tsize > DL_H5_TSIZE_MAX)
		return 0;
	f->points = points;
	f->sel =
	    DL_H5_SEL_KNOWN | (__u32)kind << DL_H5_SEL_SHIFT | (__u32)tsize << DL_H5_TSIZE_SHIFT;
	return 0;
}

SEC("uprobe")
int mpiio_entry(struct pt_regs *ctx)
{
	return call_entry(ctx);
}

SEC("uretprobe")
int mpiio_return(struct pt_regs *ctx)
{
	return call_return(ctx, DL_LAYER_MPIIO);
}

/* ---------------------------------------------------------------- markers */

/* FNV-1a of a NUL-terminated name of at most DL_MARK_NAME_MAX bytes. */
static __always_inline __u32 name_hash(const char *s)
{
	__u32 h = 2166136261u;

	for (int i = 0; i < DL_MARK_NAME_MAX; i++) {
		if (!s[i])
			break;
		h = (h ^ (__u8)s[i]) * 16777619u;
	}
	return h;
}

/* A region, instant or counter record from a frame's strings. */
static __always_inline void mark_strings(struct dl_span *e, const char *name, __u32 name_len,
					 const char *args, __u32 args_len)
{
	name_len &= DL_MARK_NAME_MAX - 1;
	args_len &= DL_MARK_ARGS_MAX - 1;
	if (name_len && !bpf_probe_read_kernel(e->data, name_len, name))
		e->str_len = name_len;
	if (args_len &&
	    !bpf_probe_read_kernel(e->data + (e->str_len & (DL_MARK_NAME_MAX - 1)), args_len, args))
		e->str2_len = args_len;
}

SEC("usdt")
int BPF_USDT(markers_region_begin, void *name, void *args)
{
	struct dl_task *t = dl_traced_task();
	struct dl_level_task *l;
	struct dl_mark_frame *f;
	__u32 n;
	long len;

	if (!t)
		return 0;
	t->run_from = t->nbatch; /* counting mode: no run holds calls from before a region */
	l = level_task(1);
	if (!l)
		return 0;
	n = l->nmarks;
	if (n >= DL_LEVEL_DEPTH) {
		l->mskipped++;
		return 0;
	}
	f = &l->marks[n & (DL_LEVEL_DEPTH - 1)];
	len = bpf_probe_read_user_str(f->name, sizeof(f->name), name);
	f->name_len = len > 0 ? len - 1 : 0;
	if (len <= 0)
		f->name[0] = '\0';
	len = args ? bpf_probe_read_user_str(f->args, sizeof(f->args), args) : 0;
	f->args_len = len > 0 ? len - 1 : 0;
	f->hash = name_hash(f->name);
	l->nmarks = n + 1;
	f->ts = bpf_ktime_get_ns();
	return 0;
}

SEC("usdt")
int BPF_USDT(markers_region_end, void *name)
{
	struct dl_task *t = dl_traced_task();
	struct dl_level_task *l;
	struct dl_mark_frame *f = NULL;
	struct dl_name_buf *b;
	struct dl_span *e;
	__u32 zero = 0, n, hash, depth = 0;
	__u64 now;

	if (!t)
		return 0;
	now = bpf_ktime_get_ns();
	l = level_task(0);
	b = bpf_map_lookup_elem(&level_names, &zero);
	if (!l || !b)
		return 0;
	if (l->mskipped) {
		l->mskipped--;
		return 0;
	}
	if (bpf_probe_read_user_str(b->name, sizeof(b->name), name) <= 0)
		b->name[0] = '\0';
	hash = name_hash(b->name);
	n = l->nmarks;
	for (__u32 i = 0; i < DL_LEVEL_DEPTH; i++) {
		__u32 d = n - 1 - i;

		if (i >= n)
			break;
		if (l->marks[d & (DL_LEVEL_DEPTH - 1)].hash == hash) {
			f = &l->marks[d & (DL_LEVEL_DEPTH - 1)];
			depth = d;
			break;
		}
	}
	if (!f)
		return 0; /* an end with no begin: begun before tracing, or mismatched */
	e = span_start(f->ts, DL_LAYER_MARKERS, DL_FN_REGION, t->slot);
	if (!e)
		return 0;
	e->dur = now - f->ts;
	e->depth = depth;
	e->flags = DL_SPAN_NO_RET | (depth + 1 < n ? DL_SPAN_UNBALANCED : 0);
	mark_strings(e, f->name, f->name_len, f->args, f->args_len);
	l->nmarks = depth;
	span_send(t, e);
	return 0;
}

SEC("usdt")
int BPF_USDT(markers_instant, void *name, void *args)
{
	struct dl_task *t = dl_traced_task();
	struct dl_level_task *l;
	struct dl_span *e;

	if (!t)
		return 0;
	e = span_start(bpf_ktime_get_ns(), DL_LAYER_MARKERS, DL_FN_INSTANT, t->slot);
	if (!e)
		return 0;
	l = level_task(0);
	e->depth = l ? l->nmarks : 0;
	e->flags = DL_SPAN_NO_RET;
	span_str_user(e, name);
	if (e->str_len >= DL_MARK_NAME_MAX) {
		e->str_len = DL_MARK_NAME_MAX - 1;
		e->flags |= DL_SPAN_STR_TRUNC;
	}
	span_str2_user(e, args);
	span_send(t, e);
	return 0;
}

SEC("usdt")
int BPF_USDT(markers_counter, void *name, long long value)
{
	struct dl_task *t = dl_traced_task();
	struct dl_span *e;

	if (!t)
		return 0;
	e = span_start(bpf_ktime_get_ns(), DL_LAYER_MARKERS, DL_FN_COUNTER, t->slot);
	if (!e)
		return 0;
	e->ret = value;
	span_str_user(e, name);
	if (e->str_len >= DL_MARK_NAME_MAX) {
		e->str_len = DL_MARK_NAME_MAX - 1;
		e->flags |= DL_SPAN_STR_TRUNC;
	}
	span_send(t, e);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
