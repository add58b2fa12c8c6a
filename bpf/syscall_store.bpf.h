/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The store column of syscalls.def at a syscall's exit: what a row's record
 * holds besides its header, its file and its result.  DL_STORE_<item> are
 * the items (syscall_def.h), written into a struct dl_store that the
 * program copies into its record; `a` (the saved arguments), `t` (the
 * task) and `st` are in scope.  Kinds of programs of their own call it with
 * a constant kind, so the switch and the struct fold away.
 */
#ifndef SYSCALL_STORE_BPF_H
#define SYSCALL_STORE_BPF_H

#include "syscall_def.h"

struct dl_store {
	__u64 arg;
	__u64 size;
	__u64 offset;
	__u32 at_flags; /* struct dl_path.flags */
	__u8 flags;	/* DL_F_OFFSET, DL_F_IOV_TRUNC */
	__u8 times;	/* TIMES: enum dl_times_layout + 1, the times at times_at */
	__u64 times_at;
};

/* TIMES(n, layout): what a[n] points to */
enum dl_times_layout {
	DL_TIMES_UTIMBUF,  /* utime: struct utimbuf {actime, modtime} */
	DL_TIMES_TIMEVAL,  /* utimes, futimesat: struct timeval[2] */
	DL_TIMES_TIMESPEC, /* utimensat: struct timespec[2] */
};

/* User memory at exit: 0 when it cannot be read. */
static __always_inline __u64 dl_user_u64(__u64 addr)
{
	__u64 v = 0;

	bpf_probe_read_user(&v, sizeof(v), (void *)addr);
	return v;
}

static __always_inline __u32 dl_user_u32(__u64 addr)
{
	__u32 v = 0;

	bpf_probe_read_user(&v, sizeof(v), (void *)addr);
	return v;
}

/* the sources */
#define DL_V(s)		 DL_V_##s
#define DL_V_A(n)	 (a[n])
#define DL_V_A32(n)	 (a[n] & 0xffffffff)
#define DL_V_U32(n, off) dl_user_u32(a[n] + (off))
#define DL_V_U64(n, off) dl_user_u64(a[n] + (off))
#define DL_V_POS	 (t->pos)
#define DL_V_ENTRY	 (t->pos)
#define DL_V_IOV(n, c)	 dl_iov_bytes((void *)a[n], a[c], &st->flags)
#define DL_V_K(v)	 ((__u64)(v))

/* the items */
#define DL_STORE_ARG(s)		  st->arg = DL_V(s);
#define DL_STORE_LO(s)		  st->arg |= DL_V(s) & 0xffffffff;
#define DL_STORE_HI(s)		  st->arg |= (__u64)DL_V(s) << 32;
#define DL_STORE_SIZE(s)	  st->size = DL_V(s);
#define DL_STORE_OFFSET(s)	  st->offset = DL_V(s);
#define DL_STORE_ATFLAGS(s)	  st->at_flags = DL_V(s);
#define DL_STORE_FILE_OFFSET	  st->flags |= DL_F_OFFSET;
#define DL_STORE_TIMES(n, layout) st->times = DL_TIMES_##layout + 1, st->times_at = a[n];
#define DL_STORE_SHOW(...)	  /* the show column is user space's */
#define DL_STORE_OFFSET_AS(key)
/* OUT(n): the output descriptor in arg's lower half */
#define DL_STORE_SECOND_NONE
#define DL_STORE_SECOND_OUT(n) st->arg |= a[n] & 0xffffffff;
#define DL_STORE_SECOND_NEW(d, n)
#define DL_STORE_SECOND_TEXT(n, max)

#endif /* SYSCALL_STORE_BPF_H */
