/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Record layouts shared by the BPF programs (bpf/) and user space (user/).
 *
 * Every record in the ring buffer starts with struct dl_hdr.  Syscalls are
 * reported once, at exit, as one fixed-size struct dl_io; syscalls that name
 * a file (open, stat, rename, ...) append the path bytes (struct dl_path).
 * Process life-cycle records (fork, exec, exit) use struct dl_proc.
 *
 * Keep this header free of kernel and libc includes: it is compiled both
 * with vmlinux.h (BPF) and with <linux/types.h> (user space).
 */
#ifndef DLTRACE_EVENTS_H
#define DLTRACE_EVENTS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define DL_PATH_MAX 4096 /* longest path slot sent to user space */
#define DL_NAME_MAX 255	 /* longest single path component */
#define DL_ARGS_MAX 1024 /* bytes of argv kept from an exec */
#define DL_COMM_LEN 16	 /* task->comm */
#define DL_MAX_JOBS 64	 /* job slots (daemon); slot 0 means "not traced" */
#define DL_MAX_IOV  16	 /* iovec entries summed for readv/writev */
#define DL_WALK_MAX 1024 /* path components walked (bpf_loop bound) */
#define DL_BATCH    8	 /* data records a task gathers before one ring write */

/*
 * Record kinds.  The syscall kinds are the rows of syscalls.def, in its
 * order: dltrace's own dense numbering, the same on every architecture;
 * user space maps them to names and classes.
 */
enum dl_kind {
#define DL_SYSCALL(kind, ...) DL_SYS_##kind,
#include "syscalls.def"
#undef DL_SYSCALL
	DL_SYS_COUNT, /* number of syscall kinds */

	DL_EV_FORK = 128, /* a traced task created a process or thread */
	DL_EV_EXEC,	  /* a traced process executed a new program */
	DL_EV_EXIT,	  /* a traced thread exited */
	DL_EV_FAULT,	  /* mmap layer: a page fault on a file mapping (struct dl_fault) */
	DL_EV_BLOCK,	  /* block layer: a completed block request (struct dl_block) */
	DL_EV_URING,	  /* uring layer: a completed io_uring request (struct dl_uring) */
	DL_EV_VFS,	  /* vfs layer: a VFS read/write/fsync/io check (struct dl_vfs) */
	DL_EV_VFS_OPEN,	  /* vfs layer: vfs_open of a file (struct dl_path, path walked) */
	DL_EV_CGROUP,	  /* daemon: a cgroup v2 directory was made or removed (struct dl_cgroup) */
	DL_EV_SPAN, /* a library call or a marked region, instant or counter (struct dl_span) */
	DL_EV_FILE, /* a file met through a descriptor: its identity and name (struct dl_file) */
	DL_EV_PY_STACK, /* python stacks: a new Python stack of a process (struct dl_py_stack) */
	DL_EV_PY_CODE,	/* python stacks: a code object, once per process (struct dl_py_code) */
	DL_EV_AIO,	/* native AIO: an iocb submitted, or an event reaped (struct dl_aio) */
	DL_KIND_COUNT,
};

/*
 * The columns of syscalls.def that say where a call's file is, as values
 * (the rows' words are pasted: DL_FILE_KIND_##file).
 */
enum dl_file_kind {
	DL_FILE_FD,	/* FD(n): a descriptor, its file identified at entry */
	DL_FILE_FDNUM,	/* FDNUM(n): a descriptor, named from the descriptor table */
	DL_FILE_RANGE,	/* RANGE(n): the first of a range of descriptors */
	DL_FILE_NAME,	/* NAME(n): a name relative to the working directory */
	DL_FILE_AT,	/* AT(d, n): a name relative to a descriptor */
	DL_FILE_ATFD,	/* ATFD(d, n): the same, an empty name the descriptor's file */
	DL_FILE_OPENED, /* OPENED(d, n): the file an open returned */
	DL_FILE_MAPPED, /* MAPPED(n): the file mapped at an address */
	DL_FILE_NONE,	/* NOFILE */
};
#define DL_FILE_KIND_FD(n)	  DL_FILE_FD
#define DL_FILE_KIND_FDNUM(n)	  DL_FILE_FDNUM
#define DL_FILE_KIND_RANGE(n)	  DL_FILE_RANGE
#define DL_FILE_KIND_NAME(n)	  DL_FILE_NAME
#define DL_FILE_KIND_AT(d, n)	  DL_FILE_AT
#define DL_FILE_KIND_ATFD(d, n)	  DL_FILE_ATFD
#define DL_FILE_KIND_OPENED(d, n) DL_FILE_OPENED
#define DL_FILE_KIND_MAPPED(n)	  DL_FILE_MAPPED
#define DL_FILE_KIND_NOFILE	  DL_FILE_NONE
/* the descriptor's (or the dirfd's) argument; -1: none, or AT_FDCWD */
#define DL_FILE_FD_FD(n)	n
#define DL_FILE_FD_FDNUM(n)	n
#define DL_FILE_FD_RANGE(n)	n
#define DL_FILE_FD_NAME(n)	(-1)
#define DL_FILE_FD_AT(d, n)	DL_ARG_##d
#define DL_FILE_FD_ATFD(d, n)	DL_ARG_##d
#define DL_FILE_FD_OPENED(d, n) DL_ARG_##d
#define DL_FILE_FD_MAPPED(n)	(-1)
#define DL_FILE_FD_NOFILE	(-1)
/* the name's (or the address's) argument; -1: none */
#define DL_FILE_NAME_FD(n)	  (-1)
#define DL_FILE_NAME_FDNUM(n)	  (-1)
#define DL_FILE_NAME_RANGE(n)	  (-1)
#define DL_FILE_NAME_NAME(n)	  n
#define DL_FILE_NAME_AT(d, n)	  n
#define DL_FILE_NAME_ATFD(d, n)	  n
#define DL_FILE_NAME_OPENED(d, n) n
#define DL_FILE_NAME_MAPPED(n)	  n
#define DL_FILE_NAME_NOFILE	  (-1)
#define DL_ARG_CWD		  (-1)
#define DL_ARG_0		  0
#define DL_ARG_1		  1
#define DL_ARG_2		  2
#define DL_ARG_3		  3
#define DL_ARG_4		  4
#define DL_ARG_5		  5

/* The second column: what else the call names, and its argument (-1: none). */
enum dl_second_kind {
	DL_SECOND_NONE,
	DL_SECOND_OUT,	/* OUT(n): the output descriptor, in arg's lower half */
	DL_SECOND_NEW,	/* NEW(d, n): a second name, path slot 1 */
	DL_SECOND_TEXT, /* TEXT(n, max): a string, path slot 1 (DL_PATH_TEXT) */
};
#define DL_SECOND_KIND_NONE	     DL_SECOND_NONE
#define DL_SECOND_KIND_OUT(n)	     DL_SECOND_OUT
#define DL_SECOND_KIND_NEW(d, n)     DL_SECOND_NEW
#define DL_SECOND_KIND_TEXT(n, max)  DL_SECOND_TEXT
#define DL_SECOND_ARG_NONE	     (-1)
#define DL_SECOND_ARG_OUT(n)	     n
#define DL_SECOND_ARG_NEW(d, n)	     n
#define DL_SECOND_ARG_TEXT(n, max)   n
#define DL_SECOND_DIRFD_NONE	     (-1)
#define DL_SECOND_DIRFD_OUT(n)	     (-1)
#define DL_SECOND_DIRFD_NEW(d, n)    DL_ARG_##d
#define DL_SECOND_DIRFD_TEXT(n, max) (-1)
/* bytes of a TEXT slot read (with the NUL) */
#define DL_SECOND_MAX_NONE	   0
#define DL_SECOND_MAX_OUT(n)	   0
#define DL_SECOND_MAX_NEW(d, n)	   0
#define DL_SECOND_MAX_TEXT(n, max) DL_TEXT_##max
#define DL_TEXT_XATTR_NAME	   (DL_NAME_MAX + 1)
#define DL_TEXT_STRING		   DL_PATH_MAX

/* The roles column (syscalls.def) */
#define DL_ROLE_READS	 0x01  /* moves bytes from a file */
#define DL_ROLE_WRITES	 0x02  /* moves bytes to a file */
#define DL_ROLE_OPENS	 0x04  /* returns a new descriptor for a path */
#define DL_ROLE_STATS	 0x08  /* the stat calls */
#define DL_ROLE_DUPS	 0x10  /* dup, dup2, dup3: a copy of a descriptor */
#define DL_ROLE_FLUSH	 0x20  /* sent at once: it changes what a descriptor means */
#define DL_ROLE_PY_ARG	 0x40  /* the Python stack id rides in arg's upper half */
#define DL_ROLE_PY_AFTER 0x80  /* the Python stack id follows the record (struct dl_io_py) */
#define DL_ROLE_PY_PATH	 0x100 /* a shared row's path record carries a Python stack id */

#define DL_REC_PATH_IO	    0
#define DL_REC_PATH_PATH    1
#define DL_REC_PATH_PATH_FD 1
#define DL_REC_BYFD_IO	    0
#define DL_REC_BYFD_PATH    0
#define DL_REC_BYFD_PATH_FD 1

/*
 * One function per column or question, a switch on the kind: constant
 * when the kind is (the programs of their own fold them away).  DL_ROW
 * is the value of a row.
 */
#define DL_SYSCALL(kind, name, tp, args, cls, prog, roles, rec, file, second, store, show)         \
	case DL_SYS_##kind:                                                                        \
		return DL_ROW(name, tp, args, cls, prog, roles, rec, file, second);

/* the roles column's words, for the switches below (syscall_def.h defines them for good) */
#ifndef DL_ROLE_WORDS
#define READS	 DL_ROLE_READS
#define WRITES	 DL_ROLE_WRITES
#define OPENS	 DL_ROLE_OPENS
#define STATS	 DL_ROLE_STATS
#define DUPS	 DL_ROLE_DUPS
#define FLUSH	 DL_ROLE_FLUSH
#define PY_ARG	 DL_ROLE_PY_ARG
#define PY_AFTER DL_ROLE_PY_AFTER
#define PY_PATH	 DL_ROLE_PY_PATH
#endif

/* The roles of a syscall kind (DL_ROLE_*), 0 for the others. */
static inline unsigned int dl_kind_roles(unsigned int kind)
{
#define DL_ROW(name, tp, args, cls, prog, roles, ...) (roles)
	switch (kind) {
#include "syscalls.def"
	default:
		return 0;
	}
#undef DL_ROW
}

/*
 * The roles user space asks about for each record, as switches of 0 and 1
 * (bit tests, where dl_kind_roles() is a table).
 */
static inline int dl_kind_py_arg(unsigned int kind)
{
#define DL_ROW(name, tp, args, cls, prog, roles, ...) (((roles)&DL_ROLE_PY_ARG) != 0)
	switch (kind) {
#include "syscalls.def"
	default:
		return 0;
	}
#undef DL_ROW
}

static inline int dl_kind_py_after(unsigned int kind)
{
#define DL_ROW(name, tp, args, cls, prog, roles, ...) (((roles)&DL_ROLE_PY_AFTER) != 0)
	switch (kind) {
#include "syscalls.def"
	default:
		return 0;
	}
#undef DL_ROW
}
#ifndef DL_ROLE_WORDS
#undef READS
#undef WRITES
#undef OPENS
#undef STATS
#undef DUPS
#undef FLUSH
#undef PY_ARG
#undef PY_AFTER
#undef PY_PATH
#endif

/* The syscall's argument count: the fields of its tracepoint. */
static inline int dl_kind_nargs(unsigned int kind)
{
#define DL_ROW(name, tp, args, ...) args
	switch (kind) {
#include "syscalls.def"
	default:
		return 0;
	}
#undef DL_ROW
}

/* enum dl_file_kind of a syscall kind */
static inline int dl_kind_file(unsigned int kind)
{
#define DL_ROW(name, tp, args, cls, prog, roles, rec, file, second) DL_FILE_KIND_##file
	switch (kind) {
#include "syscalls.def"
	default:
		return DL_FILE_NONE;
	}
#undef DL_ROW
}

/* The argument of its descriptor (or dirfd), -1: none or AT_FDCWD. */
static inline int dl_kind_fd_arg(unsigned int kind)
{
#define DL_ROW(name, tp, args, cls, prog, roles, rec, file, second) DL_FILE_FD_##file
	switch (kind) {
#include "syscalls.def"
	default:
		return -1;
	}
#undef DL_ROW
}

/* The argument of its name (or address), -1: none. */
static inline int dl_kind_name_arg(unsigned int kind)
{
#define DL_ROW(name, tp, args, cls, prog, roles, rec, file, second) DL_FILE_NAME_##file
	switch (kind) {
#include "syscalls.def"
	default:
		return -1;
	}
#undef DL_ROW
}

/* enum dl_second_kind of a syscall kind, and its argument */
static inline int dl_kind_second(unsigned int kind)
{
#define DL_ROW(name, tp, args, cls, prog, roles, rec, file, second) DL_SECOND_KIND_##second
	switch (kind) {
#include "syscalls.def"
	default:
		return DL_SECOND_NONE;
	}
#undef DL_ROW
}

static inline int dl_kind_second_arg(unsigned int kind)
{
#define DL_ROW(name, tp, args, cls, prog, roles, rec, file, second) DL_SECOND_ARG_##second
	switch (kind) {
#include "syscalls.def"
	default:
		return -1;
	}
#undef DL_ROW
}

/* OUT(n): arg's lower half is a second descriptor, the output (sendfile, splice, ...). */
static inline int dl_kind_out_fd(unsigned int kind)
{
#define DL_ROW(name, tp, args, cls, prog, roles, rec, file, second)                                \
	(DL_SECOND_KIND_##second == DL_SECOND_OUT)
	switch (kind) {
#include "syscalls.def"
	default:
		return 0;
	}
#undef DL_ROW
}

/* NEW(d, n): the argument of the second name's dirfd, -1: AT_FDCWD. */
static inline int dl_kind_second_dirfd(unsigned int kind)
{
#define DL_ROW(name, tp, args, cls, prog, roles, rec, file, second) DL_SECOND_DIRFD_##second
	switch (kind) {
#include "syscalls.def"
	default:
		return -1;
	}
#undef DL_ROW
}

/*
 * Syscall kinds whose record is a struct dl_path: they name a file, or
 * carry a string (an xattr name, a symlink's target), or name the file of a
 * mapping.
 */
static inline int dl_kind_has_path(unsigned int kind)
{
#define DL_ROW(name, tp, args, cls, prog, roles, rec, ...) DL_REC_PATH_##rec
	switch (kind) {
#include "syscalls.def"
	default:
		return 0;
	}
#undef DL_ROW
}

/*
 * Path records whose file is a descriptor (fsetxattr, fgetxattr,
 * fremovexattr): slot 0 is empty, slot 1 holds the attribute's name.
 */
#define DL_FILE_IS_FD_FD(n)	   1
#define DL_FILE_IS_FD_FDNUM(n)	   0
#define DL_FILE_IS_FD_RANGE(n)	   0
#define DL_FILE_IS_FD_NAME(n)	   0
#define DL_FILE_IS_FD_AT(d, n)	   0
#define DL_FILE_IS_FD_ATFD(d, n)   0
#define DL_FILE_IS_FD_OPENED(d, n) 0
#define DL_FILE_IS_FD_MAPPED(n)	   0
#define DL_FILE_IS_FD_NOFILE	   0
static inline int dl_kind_names_fd(unsigned int kind)
{
#define DL_ROW(name, tp, args, cls, prog, roles, rec, file, second)                                \
	(DL_REC_PATH_##rec && DL_FILE_IS_FD_##file)
	switch (kind) {
#include "syscalls.def"
	default:
		return 0;
	}
#undef DL_ROW
}

/* Mapping kinds: the record names the file mapped at the address (struct dl_path.addr). */
static inline int dl_kind_maps(unsigned int kind)
{
#define DL_ROW(name, tp, args, cls, prog, roles, rec, file, second)                                \
	(DL_FILE_KIND_##file == DL_FILE_MAPPED)
	switch (kind) {
#include "syscalls.def"
	default:
		return 0;
	}
#undef DL_ROW
}

/* Path kinds whose record is a plain struct dl_io when the name is empty (PATH_FD) */
static inline int dl_kind_stats_at(unsigned int kind)
{
#define DL_ROW(name, tp, args, cls, prog, roles, rec, ...) DL_REC_BYFD_##rec
	switch (kind) {
#include "syscalls.def"
	default:
		return 0;
	}
#undef DL_ROW
}
#undef DL_SYSCALL

/* seed_tgids value flag: the process joins its job at its next exec (-- COMMAND) */
#define DL_SEED_AT_EXEC 0x100

/* dl_hdr.flags */
#define DL_F_OFFSET	 0x01 /* dl_io.offset holds a file offset */
#define DL_F_IOV_TRUNC	 0x02 /* more than DL_MAX_IOV iovecs: size is partial */
#define DL_F_THREAD	 0x04 /* fork: the child is a thread (CLONE_THREAD) */
#define DL_F_GROUP_DEAD	 0x08 /* exit: the last thread of the process */
#define DL_F_SHARE_FILES 0x10 /* fork: child shares the fd table */
#define DL_F_CACHE	 0x20 /* read kinds: dl_io.arg = page-cache pages added (misses) */
#define DL_F_BATCH	 0x40 /* sent in a batch: the ring record holds several dl_io */
#define DL_F_FILE	 0x80 /* dl_io: file (and file2) name the descriptor's file at the call */

struct dl_hdr {
	__u64 ts;   /* CLOCK_MONOTONIC ns: syscall entry, or the event time */
	__u32 tgid; /* process id */
	__u32 tid;  /* thread id */
	__u16 kind; /* enum dl_kind */
	__u8 job;   /* job slot the task belongs to (1..DL_MAX_JOBS-1) */
	__u8 flags; /* DL_F_* */
	__s32 fd;   /* dl_io: the fd argument; dl_proc: unused (-1) */
};

/*
 * A completed syscall, 72 bytes:
 *
 *  byte 0            8        12       16      18    19    20       24
 *       +------------+--------+--------+-------+-----+-----+--------+
 *       | ts (entry) | tgid   | tid    | kind  | job |flags| fd     |  struct dl_hdr
 *       +------------+--------+--------+-------+-----+-----+--------+
 *    24 | dur                 | ret                 |
 *    40 | offset              | size                |
 *    56 | arg                 | file    | file2     |
 *
 * Field use by kind: each row of syscalls.def says it (its file, second
 * and store columns); in general:
 *   h.fd    the file descriptor argument (open: the dirfd; dup: the old fd;
 *           -1 for a call that names none: sync, the AIO calls' context)
 *   ret     return value, or -errno
 *   offset  explicit offset (p*), file position at entry (read/write/...),
 *           lseek: the requested offset; mmap: the file offset
 *   size    requested bytes (count, iovec sum, length)
 *   arg     the call's other arguments (a flag word, or two 32-bit halves);
 *           read kinds with DL_F_CACHE: pages the read added to the page cache;
 *           utime*: atime's ns | mtime's ns << 32, their seconds in offset
 *           and size (no times: both UTIME_NOW)
 *   file    with DL_F_FILE: the file h.fd referred to when the call began,
 *           as a cookie (bpf/file_identity.bpf.h): 0 when h.fd had no file,
 *           else the cookie of a struct dl_file record sent before (or, for
 *           opens, of the opened file, described by the record itself);
 *           without DL_F_FILE the kind names no file by descriptor
 *   file2   sendfile/copy_file_range: the output descriptor's, likewise
 */
#define DL_SPLICE_OUT_OFFSET (1ull << 63) /* splice's dl_io.arg: the offset is the output's */
struct dl_io {
	struct dl_hdr h;
	__u64 dur; /* ns from entry to exit */
	__s64 ret;
	__u64 offset;
	__u64 size;
	__u64 arg;
	__u32 file;  /* DL_F_FILE: cookie of h.fd's file (0: none) */
	__u32 file2; /* DL_F_FILE: sendfile/copy_file_range, the output's */
};

/*
 * Counting mode (--summary-only=counts): calls alike of one thread travel
 * as one record, a run.  Its calls are of one kind, on one descriptor and
 * file; none failed and each moved all the `size` bytes it asked for.
 * Their offsets are offset, offset + size, ... (each call where the one
 * before ended), or all offset (DL_KIND_RUN_SAME: a pipe, a device, the
 * same block again), or none (no DL_F_OFFSET).  A run is a batched struct
 * dl_io whose kind has DL_KIND_RUN set; four fields mean something else:
 *
 *  byte 0            8        12       16               18    19    20       24
 *       | ts: 1st entry | tgid | tid   | kind|DL_KIND_RUN | job |flags| fd     |
 *    24 | dur: the calls' durations summed | ret: the bytes of each call   |
 *    40 | offset: the first call's         | size: last exit - ts (span)   |
 *    56 | arg: cache pages (low 32 bits),  | file    | file2: the calls     |
 *       |      longest call ns (high 32)   |         |                      |
 *
 * The longest call saturates at 2^32 - 1 ns.  A run ends where a library
 * call or a marker region begins (their calls are told apart).
 */
#define DL_KIND_RUN	   0x8000
#define DL_KIND_RUN_SAME   0x4000
#define DL_RUN_LONGEST_MAX 0xffffffffull

/* How a path slot was obtained (dl_path.how[]) */
#define DL_PATH_NONE	 0    /* slot unused */
#define DL_PATH_WALK	 1    /* dentry walk of the file (components leaf first) */
#define DL_PATH_USER	 2    /* user string, with a base walk when relative */
#define DL_PATH_TEXT	 4    /* a user string that is no path (xattr name, symlink target) */
#define DL_PATH_TRUNC	 0x10 /* walk stopped early: path is partial */
#define DL_PATH_DETACHED 0x20 /* walk ended outside the task's root */
#define DL_PATH_ROOTED	 0x40 /* walk reached the task's root: base is absolute */

/*
 * A syscall that names a file: struct dl_io followed by up to two path
 * slots (rename has two).  Each slot is `base_len` bytes of reversed dentry
 * walk ("leaf/parent/.../top", components separated by '/'), followed by
 * `name_len` bytes of the string the program passed.  User space rebuilds:
 * name if it is absolute, else reverse(base) + "/" + name.
 * For a successful open, the slot holds the walk of the opened file, and
 * ino/dev/fs_magic/file_size describe it; io.file is its cookie (the
 * record is its struct dl_file).  A call whose file is a descriptor
 * (fsetxattr, ...) has it in io.file; fstatat(fd, "", AT_EMPTY_PATH) and
 * statx alike send no path record at all (dl_kind_by_fd()).  A DL_PATH_TEXT slot holds
 * only `name_len` bytes of a string that is no path (slot 1 of the xattr calls: the attribute's
 * name; of symlink: the target).
 *
 *   0        struct dl_io (72 bytes: header, dur, ret, offset, size, arg, file, file2)
 *   72       ino                     opens: the opened file's inode
 *   80       file_size | addr        opens: i_size; madvise/msync/munmap: the address
 *   88       dev, fs_magic
 *   96       flags                   *at flags (AT_SYMLINK_NOFOLLOW, ...)
 *   100      base_len[2], name_len[2], how[2], pad[2]
 *   112      py_stack, pad2          the Python stack id (0: none)
 *   120      data: | slot 0 base | slot 0 name | slot 1 base | slot 1 name |
 *                    <-base_len[0]-><-name_len[0]-><-base_len[1]-><-name_len[1]->
 *
 *   slot 0   the file: DL_PATH_USER (the name passed, relative to a walked
 *            base), DL_PATH_WALK (opens, mappings: the file's own walk),
 *            or empty (fsetxattr/fgetxattr/fremovexattr: the fd names it)
 *   slot 1   rename*, link*: the new name (DL_PATH_USER); xattr calls,
 *            symlink*: DL_PATH_TEXT
 */
struct dl_path {
	struct dl_io io;
	__u64 ino;
	union {
		__u64 file_size; /* opens */
		__u64 addr;	 /* madvise, msync, munmap: the address passed */
	};
	__u32 dev;	/* st_dev encoding: major << 20 | minor (kernel) */
	__u32 fs_magic; /* superblock magic (statfs f_type) */
	__u32 flags;	/* *at flags: renameat2/statx/unlinkat/newfstatat, faccessat2, ... */
	__u16 base_len[2];
	__u16 name_len[2];
	__u8 how[2];
	__u8 pad[2];
	__u32 py_stack; /* the Python stack id (--python-stacks), else 0 */
	__u32 pad2;
	char data[]; /* slot 0 base, slot 0 name, slot 1 base, slot 1 name */
};

/*
 * newfstatat and statx of a descriptor (an empty name: AT_EMPTY_PATH) name
 * no path: their record is a plain struct dl_io in the task's batch, the
 * descriptor's file in io.file, the *at flags in arg's lower half and the
 * Python stack id in its upper half.  Every other record of a path kind is
 * longer (a struct dl_path): the size tells them apart.
 * (dl_kind_stats_at(): the rows of record PATH_FD).
 */

static inline int dl_kind_by_fd(unsigned int kind, __u32 size)
{
	return dl_kind_stats_at(kind) && size == sizeof(struct dl_io);
}

/*
 * A file met through a descriptor (h.kind DL_EV_FILE), sent by the call
 * that first meets its struct file (bpf/file_identity.bpf.h), before that
 * call's own record, and again when a rename anywhere may have changed its
 * name; the records of calls on it carry its cookie (struct dl_io.file).
 * h.ts is when it was met, h.fd the descriptor it was met on.
 *
 *  byte 0            8        12       16      18    19    20       24
 *       +------------+--------+--------+-------+-----+-----+--------+
 *       | ts         | tgid   | tid    | kind  | job |flags| fd     |  struct dl_hdr
 *       +------------+--------+--------+-------+-----+-----+--------+
 *    24 | ino                 | dev     | fs_magic |
 *    40 | cookie   | mode | family | base_len | name_len | how | pad[3] |
 *    56 | data: | walk (base_len bytes, leaf first) | name (name_len bytes) |
 *
 * walk: the file's path as a DL_PATH_WALK slot (struct dl_path); name: the
 * file's own dentry name when the walk found no component (a pseudo file
 * with no place in a mount tree: "[eventfd]" of an anonymous inode,
 * "memfd:NAME"; empty for sockets and pipes, which are named by inode).
 */
struct dl_file {
	struct dl_hdr h;
	__u64 ino;
	__u32 dev;	/* st_dev encoding: major << 20 | minor (kernel) */
	__u32 fs_magic; /* superblock magic: sockfs, pipefs, anon_inodefs, ... */
	__u32 cookie;	/* what records of calls on this file carry (never 0) */
	__u16 mode;	/* i_mode: S_IFSOCK, S_IFIFO, S_IFREG, ... (0: anonymous inode) */
	__u16 family;	/* sockets: the address family (AF_UNIX = 1, AF_INET = 2, ...) */
	__u16 base_len;
	__u16 name_len;
	__u8 how; /* DL_PATH_WALK and the walk's DL_PATH_* flags */
	__u8 pad[3];
	char data[];
};

/* fork / exec / exit */
struct dl_proc {
	struct dl_hdr h;
	__u32 ppid;	 /* fork: parent tgid; exec: old tid */
	__u32 ptid;	 /* fork: parent thread */
	__s32 exit_code; /* exit: task->exit_code (wait status encoding) */
	__u16 file_len;	 /* exec: bytes of the program path in data */
	__u16 args_len;	 /* exec: bytes of argv after it (NUL separated) */
	__u32 uid;	 /* fork, exec: the task's uid */
	__u32 env_len;	 /* exec: bytes of struct dl_ranks after argv (0: none) */
	char comm[DL_COMM_LEN];
	char data[]; /* exec: program path, argv, then struct dl_ranks */
};

/*
 * exec: the job's ranks, from the variables launchers set in each rank's
 * environment (torchrun, Slurm, Open MPI, MPICH/PMI); -1: not set, or
 * not a number of up to 9 digits.  Read from the environment the program
 * starts with; a forked child keeps its parent's.
 *
 *   exec record data:  | program path | argv (NUL separated) | dl_ranks |
 *                        file_len       args_len               env_len
 */
enum dl_rank_var {
	DL_RANK_RANK,	    /* RANK (torchrun) */
	DL_RANK_LOCAL_RANK, /* LOCAL_RANK (torchrun) */
	DL_RANK_WORLD_SIZE, /* WORLD_SIZE (torchrun) */
	DL_RANK_SLURM,	    /* SLURM_PROCID */
	DL_RANK_OMPI,	    /* OMPI_COMM_WORLD_RANK */
	DL_RANK_PMI,	    /* PMI_RANK */
	DL_RANK_COUNT,
};
#define DL_ENV_SCAN 256 /* environment variables looked at */

struct dl_ranks {
	__s32 v[DL_RANK_COUNT];
};

/*
 * mmap layer: a user page fault on a file-backed mapping.  h.ts is the fault
 * time; offset is the file offset of the faulting page.
 */
#define DL_FAULT_WRITE 0x01 /* write access */
#define DL_FAULT_EXEC  0x02 /* code (an executable mapping) or the program's own file */
#define DL_FAULT_COW   0x04 /* a write to a private mapping: a copy, the file is not written */
struct dl_fault {
	struct dl_hdr h;
	__u64 address; /* faulting user address */
	__u64 offset;  /* file offset of the page */
	__u64 ino;
	__u32 dev;
	__u32 flags; /* DL_FAULT_* */
};

/*
 * block layer: one request, reported at completion.  h.ts is the issue
 * time, h.tgid/h.tid the task that issued it (often a kernel worker); the
 * job slot is 0: block I/O belongs to the device, not to one job.
 */
struct dl_block {
	struct dl_hdr h;
	__u64 dur;    /* issue to completion, ns */
	__u64 sector; /* 512-byte sectors */
	__u32 bytes;
	__u32 dev;   /* st_dev encoding of the disk */
	__s32 error; /* blk_status_t, 0 = ok */
	__u32 op;    /* REQ_OP_*: 0 read, 1 write, 2 flush, 3 discard, ... */
};

/*
 * uring layer: one io_uring request of a traced task, reported at
 * completion.  h.ts is the submission time, h.tgid/h.tid the submitter
 * (an SQPOLL thread for such rings), h.fd the request's fd, or its index
 * in the registered files (DL_URING_FIXED).  ino and dev name the file the
 * request used (DL_URING_FILE), read from the request at completion; its
 * path came before in a DL_EV_FILE record (file_identity.bpf.h).
 *
 *   0   struct dl_hdr (24)
 *   24  dur          32  user_data     40  res (s64)     48  offset
 *   56  len (u32)    60  opcode (u8), flags (u8), pad[2]
 *   64  ino          72  dev (u32), pad2 (u32)           80
 */
#define DL_URING_FIXED 0x01 /* h.fd is an index in the ring's registered files */
#define DL_URING_FILE  0x02 /* ino, dev: the request's file */
struct dl_uring {
	struct dl_hdr h;
	__u64 dur;
	__u64 user_data;
	__s64 res;    /* the completion's result: bytes or -errno */
	__u64 offset; /* read/write: the file offset asked for */
	__u32 len;    /* read/write: bytes asked for (iovec count for *V ops) */
	__u8 opcode;  /* IORING_OP_* */
	__u8 flags;   /* DL_URING_* */
	__u8 pad[2];
	__u64 ino;
	__u32 dev;
	__u32 pad2;
};

/*
 * Native AIO: one iocb of an io_submit (DL_AIO_SUBMIT, sent at the call's
 * entry, before the kernel may complete it: h.ts is the entry), or one
 * io_event that io_getevents/io_pgetevents returned (sent at its exit: h.ts
 * is the return, the earliest time the application could know of the
 * completion).  User space pairs them by (process, ctx, iocb) and learns
 * from the io_submit's own record how many of its iocbs the kernel took.
 *
 *   0   struct dl_hdr (24; h.fd: the iocb's aio_fildes, -1 for events)
 *   24  ctx      32  iocb (user address: io_event.obj)   40  data (aio_data)
 *   48  offset   56  nbytes (*V: the iovec sum)
 *   64  res      72  res2
 *   80  index (u32: position in io_submit's array)  84  opcode (u16)  86  flags (u16)
 */
#define DL_AIO_SUBMIT	 0x01 /* an iocb submitted; else an event reaped */
#define DL_AIO_IOV_TRUNC 0x02 /* more than DL_MAX_IOV iovecs: nbytes is partial */
#define DL_AIO_MAX	 256  /* iocbs recorded per io_submit, events per io_getevents */
struct dl_aio {
	struct dl_hdr h;
	__u64 ctx;
	__u64 iocb;
	__u64 data;
	__u64 offset;
	__u64 nbytes;
	__s64 res;
	__s64 res2;
	__u32 index;
	__u16 opcode; /* IOCB_CMD_* */
	__u16 flags;  /* DL_AIO_* */
};

/* vfs layer: which VFS function (dl_vfs.op) */
enum dl_vfs_op {
	DL_VFS_READ,	   /* vfs_read */
	DL_VFS_WRITE,	   /* vfs_write */
	DL_VFS_ITER_READ,  /* vfs_iter_read */
	DL_VFS_ITER_WRITE, /* vfs_iter_write */
	DL_VFS_FSYNC,	   /* vfs_fsync_range */
	DL_VFS_RW_CHECK,   /* rw_verify_area: any read/write request, io_uring and splice too */
	DL_VFS_OP_COUNT,
};

/* vfs layer: a VFS call on a traced task, with the file's identity. */
struct dl_vfs {
	struct dl_hdr h;
	__u64 dur;
	__s64 ret;
	__u64 offset;
	__u64 size;
	__u64 ino;
	__u32 dev;
	__u32 fs_magic;
	__u32 op;    /* enum dl_vfs_op */
	__u32 write; /* DL_VFS_RW_CHECK: 1 for a write */
};

/* daemon: cgroup v2 directories appearing and going (job start and end). */
#define DL_CGROUP_MKDIR 1
#define DL_CGROUP_RMDIR 2
struct dl_cgroup {
	struct dl_hdr h;
	__u64 id;	/* cgroup id (the directory's inode number) */
	__u32 level;	/* depth below the root */
	__u16 op;	/* DL_CGROUP_* */
	__u16 path_len; /* bytes of path (below the cgroup v2 mount, starting with '/') */
	char path[];
};

/*
 * The capture layers: the groups of probes --layers chooses (their names,
 * defaults and what each attaches: user/probe/probe_layers.c).
 *
 * The levels are the layers above the syscalls: library calls (stdio, HDF5,
 * MPI-IO), seen by uprobes on the libraries, and the job's own marked
 * phases (regions, instants, counters of the dltrace USDT markers).  They
 * come first, after the syscalls, because a span record's level is one of
 * them (saved records keep their values).  A call is one record, sent when
 * it returns, stamped with its entry time; a region is one record sent at
 * its end, stamped with its beginning.  So on a thread, a call's record
 * follows the records of the syscalls it made, and its slice [ts, ts + dur]
 * encloses theirs.
 */
enum dl_layer {
	DL_LAYER_SYSCALL, /* syscall tracepoints; as a level: not a library call */
	DL_LAYER_MARKERS, /* libdltrace_markers.so USDT probes */
	DL_LAYER_STDIO,	  /* libc's buffered streams */
	DL_LAYER_HDF5,	  /* libhdf5 */
	DL_LAYER_MPIIO,	  /* MPI-IO of libmpi */
	DL_LAYER_VFS,
	DL_LAYER_MMAP,
	DL_LAYER_CACHE,
	DL_LAYER_BLOCK,
	DL_LAYER_URING,
	DL_LAYER_COUNT,
};
/* A span's level is below this: the syscalls and the library layers. */
#define DL_LEVEL_COUNT (DL_LAYER_MPIIO + 1)

/*
 * Functions (dl_span.func).  The fields each one fills besides h, dur,
 * level, func, depth (S: str, S2: str2; handle is the object the call works
 * on; ret is the function's return value, but for regions and instants,
 * which have none: DL_SPAN_NO_RET):
 *   REGION   S name, S2 args (flat JSON object); dur: begin to end
 *   INSTANT  S name, S2 args; dur 0
 *   COUNTER  S name; ret: the value; dur 0
 *   fopen/fopen64   S path, S2 mode; ret FILE *; h.fd its descriptor
 *   fdopen   S2 mode; h.fd the descriptor; ret FILE *
 *   fread/fwrite    handle FILE *, arg item size, count items asked,
 *                   size bytes asked (arg * count); ret items done; h.fd
 *   fseek/fseeko    handle, offset, arg whence; h.fd
 *   ftell/ftello, fflush, fclose   handle; h.fd (fflush(NULL): none)
 *   fgets    handle, size: the buffer's length; ret: the buffer or 0; h.fd
 *   fputs    handle, size: the string's length; h.fd
 *   H5Fcreate/H5Fopen   S path, arg flags; ret hid
 *   H5Dcreate2/H5Dopen2/H5Gopen2/H5Oopen   handle loc_id, S name; ret hid
 *   H5Dread/H5Dwrite   handle dataset hid, arg DL_H5_*; when the library's
 *                      layout is known (DL_H5_SEL_KNOWN): count the points
 *                      selected in the file, size the bytes asked (points x
 *                      the dataset's type size, as Darshan counts them)
 *   H5Fclose/H5Dclose/H5Gclose/H5Oclose   handle
 *   MPI_File_open     S path, arg amode, handle: the MPI_File opened; ret
 *   MPI_File_close    handle (*fh at entry)
 *   MPI_File_read/write[_all]    handle, count, size = count x type size
 *   MPI_File_read/write_at[_all]  also offset (in etypes of the view)
 *   MPI_File_set_view  handle, offset: disp (bytes), arg: etype size,
 *                      S2: datarep
 *   MPI_File_sync      handle
 * Sizes depend on a datatype's size: DL_SPAN_SIZE says whether it was
 * readable (Open MPI: the type's size field; MPICH: builtin type handles).
 */
enum dl_func {
	DL_FN_REGION,
	DL_FN_INSTANT,
	DL_FN_COUNTER,
	DL_FN_FOPEN,
	DL_FN_FOPEN64,
	DL_FN_FDOPEN,
	DL_FN_FREAD,
	DL_FN_FWRITE,
	DL_FN_FSEEK,
	DL_FN_FSEEKO,
	DL_FN_FTELL,
	DL_FN_FTELLO,
	DL_FN_FFLUSH,
	DL_FN_FCLOSE,
	DL_FN_FGETS,
	DL_FN_FPUTS,
	DL_FN_H5FCREATE,
	DL_FN_H5FOPEN,
	DL_FN_H5FCLOSE,
	DL_FN_H5DCREATE2,
	DL_FN_H5DOPEN2,
	DL_FN_H5DREAD,
	DL_FN_H5DWRITE,
	DL_FN_H5DCLOSE,
	DL_FN_H5GOPEN2,
	DL_FN_H5GCLOSE,
	DL_FN_H5OOPEN,
	DL_FN_H5OCLOSE,
	DL_FN_MPI_FILE_OPEN,
	DL_FN_MPI_FILE_CLOSE,
	DL_FN_MPI_FILE_READ,
	DL_FN_MPI_FILE_READ_AT,
	DL_FN_MPI_FILE_READ_ALL,
	DL_FN_MPI_FILE_READ_AT_ALL,
	DL_FN_MPI_FILE_WRITE,
	DL_FN_MPI_FILE_WRITE_AT,
	DL_FN_MPI_FILE_WRITE_ALL,
	DL_FN_MPI_FILE_WRITE_AT_ALL,
	DL_FN_MPI_FILE_SYNC,
	DL_FN_MPI_FILE_SET_VIEW,
	DL_FN_COUNT,
};

/* dl_span.flags: which optional fields hold a value */
#define DL_SPAN_HANDLE	   0x0001
#define DL_SPAN_OFFSET	   0x0002
#define DL_SPAN_SIZE	   0x0004
#define DL_SPAN_COUNT	   0x0008
#define DL_SPAN_ARG	   0x0010
#define DL_SPAN_FD	   0x0020 /* h.fd is the stream's descriptor */
#define DL_SPAN_STR_TRUNC  0x0040 /* str was cut at its slot's size */
#define DL_SPAN_STR_FAULT  0x0080 /* str could not be read */
#define DL_SPAN_STR2_TRUNC 0x0100
#define DL_SPAN_UNBALANCED 0x0200 /* regions opened inside this one were never ended */
#define DL_SPAN_NO_RET	   0x0400 /* ret holds nothing (regions, instants) */

/*
 * H5Dread/H5Dwrite dl_span.arg:
 *
 *   bit 0      1       2       4-5         8-31
 *       +------+-------+-------+-----------+----------------------------+
 *       | FILE | MEM   | SEL   | selection | the dataset's type size    |
 *       | _ALL | _ALL  | KNOWN | kind      | (bytes, when SEL_KNOWN)    |
 *       +------+-------+-------+-----------+----------------------------+
 *
 * The kind is HDF5's own H5S_sel_type of the file selection (H5S_ALL: all).
 */
#define DL_H5_FILE_ALL	  0x1 /* file_space_id H5S_ALL: the whole dataset */
#define DL_H5_MEM_ALL	  0x2 /* mem_space_id H5S_ALL */
#define DL_H5_SEL_KNOWN	  0x4 /* count, size and the bits below hold the selection */
#define DL_H5_SEL_SHIFT	  4
#define DL_H5_SEL_MASK	  0x3
#define DL_H5_SEL_NONE	  0
#define DL_H5_SEL_POINTS  1
#define DL_H5_SEL_HYPER	  2
#define DL_H5_SEL_ALL	  3
#define DL_H5_TSIZE_SHIFT 8
#define DL_H5_TSIZE_MAX	  0xffffff

/*
 * hdf5: the cookie of the probe on H5D__read and H5D__write (the internal
 * functions H5Dread and H5Dwrite call with the dataset, the memory type
 * and both dataspaces as pointers) holds where the library keeps what a
 * call asks for, per its version (library_probes.c): eight offsets in
 * 8-byte words, 6 bits each, from bit 16.
 */
enum dl_h5_off {
	DL_H5_OFF_DSET_SHARED,	 /* H5D_t.shared */
	DL_H5_OFF_SHARED_TYPE,	 /* H5D_shared_t.type */
	DL_H5_OFF_SHARED_SPACE,	 /* H5D_shared_t.space */
	DL_H5_OFF_TYPE_SHARED,	 /* H5T_t.shared */
	DL_H5_OFF_TSHARED_SIZE,	 /* H5T_shared_t.size */
	DL_H5_OFF_SPACE_NELEM,	 /* H5S_t.extent.nelem: points in the extent */
	DL_H5_OFF_SPACE_SEL,	 /* H5S_t.select.type: its class, whose first field is the kind */
	DL_H5_OFF_SPACE_NPOINTS, /* H5S_t.select.num_elem: points selected */
	DL_H5_OFF_COUNT,
};
#define DL_H5_OFF_SHIFT(i)   (16 + 6 * (i))
#define DL_H5_OFF(cookie, i) ((((cookie) >> DL_H5_OFF_SHIFT(i)) & 0x3f) * 8)

/*
 * BPF cookie of a library probe: func | (__u64)param << 32, param by layer:
 * stdio, the offset of the descriptor in a FILE (0: unknown); mpiio, how
 * to read an MPI_Datatype's size (ABI << 16 | offset of the size field).
 */
#define DL_COOKIE_FILENO_MASK	0xffff
#define DL_COOKIE_MPI_ABI_SHIFT 16
#define DL_COOKIE_MPI_OFF_MASK	0xffff
#define DL_MPI_ABI_NONE		0 /* sizes unknown */
#define DL_MPI_ABI_OMPI		1 /* Open MPI: a datatype points to a struct with its size */
#define DL_MPI_ABI_MPICH	2 /* MPICH: builtin handles hold their size in bits 8-15 */

#define DL_SPAN_STR_MAX	 1024 /* bytes of str kept (paths) */
#define DL_SPAN_STR2_MAX 256  /* bytes of str2 kept (region arguments, modes) */
#define DL_MARK_NAME_MAX 64   /* bytes of a region name kept while it is open */
#define DL_MARK_ARGS_MAX 256  /* bytes of its arguments */
#define DL_LEVEL_DEPTH	 8    /* library calls, and regions, open at once per thread */

/*
 * One library call, region, instant or counter (h.kind DL_EV_SPAN):
 *
 *  byte 0            8        12       16      18    19    20       24
 *       +------------+--------+--------+-------+-----+-----+--------+
 *       | ts (entry) | tgid   | tid    | kind  | job |flags| fd     |  struct dl_hdr
 *       +------------+--------+--------+-------+-----+-----+--------+
 *    24 | dur                 | ret                 |
 *    40 | handle              | offset              |
 *    56 | size                | count               |
 *    72 | arg   | level | func | flags | depth | str_len | str2_len |
 *       | u32   | u16   | u16  | u16   | u16   | u16     | u16      |
 *    88 | str: str_len bytes | str2: str2_len bytes | (not NUL-terminated)
 *
 * depth: library calls (or, for regions, regions) already open on the
 * thread when this one began; 0 for the outermost.
 */
struct dl_span {
	struct dl_hdr h;
	__u64 dur;
	__s64 ret;
	__u64 handle;
	__u64 offset;
	__u64 size;
	__u64 count;
	__u32 arg;
	__u16 level; /* enum dl_layer, below DL_LEVEL_COUNT */
	__u16 func;  /* enum dl_func */
	__u16 flags; /* DL_SPAN_* */
	__u16 depth;
	__u16 str_len;
	__u16 str2_len;
	char data[];
};

/*
 * Per-CPU counters in the `dl_stats` map, one group per job slot:
 * key = job * DL_STAT_COUNT + stat.
 */
enum dl_stat {
	DL_STAT_LOST,	    /* records dropped: ring buffer full */
	DL_STAT_LOST_BYTES, /* bytes of those records */
	DL_STAT_LOST_KIND,  /* first of DL_LOST_KINDS: records dropped, by kind */
	DL_STAT_COUNT = DL_STAT_LOST_KIND + 128,
};

/*
 * The lost-record counters by kind: syscall kinds keep their number, the
 * other kinds follow them.
 */
#define DL_LOST_KINDS (DL_STAT_COUNT - DL_STAT_LOST_KIND)

static inline unsigned int dl_lost_index(unsigned int kind)
{
	return (kind < DL_EV_FORK ? kind : kind - DL_EV_FORK + DL_SYS_COUNT) & (DL_LOST_KINDS - 1);
}

static inline unsigned int dl_lost_kind(unsigned int index)
{
	return index < DL_SYS_COUNT ? index : index - DL_SYS_COUNT + DL_EV_FORK;
}

/*
 * Python stacks (--python-stacks).  A syscall of a CPython thread carries
 * a stack id (0: none), a number per process image; the stack itself
 * is sent once, before the first record that uses it, as a list of (code
 * object, instruction) pairs, and each code object once per process, with
 * what user space needs to name it and turn an instruction into a line.
 *
 * Where the id is (dl_py_stack_of(); no flag: dl_hdr.flags has no bit
 * left): the kinds of dl_py_in_arg() have the upper 32 bits of a dl_io's
 * arg free, so the id rides there at no cost to the batched records; a
 * path record has its own field (dl_path.py_stack, 0 in every path record
 * without one), a stat of a descriptor (dl_kind_by_fd()) arg's upper half; an mmap with a stack is
 * sent alone as a struct dl_io_py (its arg holds prot and flags), longer than a dl_io.  Other kinds
 * never carry one (dl_py_kind_ok()).
 */
#define DL_PY_FRAMES	16   /* frames walked; a deeper stack is cut (DL_PYS_TRUNCATED) */
#define DL_PY_FILE_MAX	512  /* bytes of a code object's file name sent */
#define DL_PY_NAME_MAX	256  /* bytes of its qualified name */
#define DL_PY_TABLE_MAX 4096 /* bytes of its line table */

/*
 * An mmap, sendfile or copy_file_range record with a Python stack (never
 * batched: the only dl_io records longer than struct dl_io).  These kinds
 * use all of arg (mmap: prot | flags<<32; the copies: the output
 * descriptor and its offset flag), so the stack id goes after the record.
 *
 *    0                                      72         76     80
 *    +--------------------------------------+----------+------+
 *    | struct dl_io                         | py_stack | pad  |
 *    +--------------------------------------+----------+------+
 */
struct dl_io_py {
	struct dl_io io;
	__u32 py_stack;
	__u32 pad;
};

/* dl_py_stack.flags */
#define DL_PYS_TRUNCATED 0x01 /* the chain goes on beyond DL_PY_FRAMES frames */
#define DL_PYS_BROKEN	 0x02 /* a read failed: the chain ends early */

/*
 * A Python stack, sent once per (process image, stack id), innermost frame
 * first.  h: the thread that met it first, at its syscall's exit.
 *
 *    0          24     28     32     34      35      36     40
 *    +----------+------+------+------+-------+-------+------+
 *    | dl_hdr   | gen  | id   | n    | flags | minor | pad  |
 *    +----------+------+------+------+-------+-------+------+
 *    | frames[0]: code (8)  lasti (4)  pad (4)              |  16 bytes each,
 *    | ...                                    frames[n - 1] |  n of them sent
 *    +------------------------------------------------------+
 *
 * gen tells process images apart (an exec, or pid reuse, gets a new one);
 * code is the code object's address in the process, lasti the instruction
 * in code units (2 bytes) from its first (-1: not started yet).
 */
struct dl_py_frame {
	__u64 code;
	__s32 lasti;
	__u32 pad;
};

struct dl_py_stack {
	struct dl_hdr h;
	__u32 gen;
	__u32 id;
	__u16 n;    /* frames that follow */
	__u8 flags; /* DL_PYS_* */
	__u8 minor; /* CPython 3.<minor> */
	__u32 pad;
	struct dl_py_frame frames[DL_PY_FRAMES];
};

/* dl_py_code.flags */
#define DL_PYC_FILE_TRUNC  0x01 /* the file name was longer than DL_PY_FILE_MAX bytes */
#define DL_PYC_NAME_TRUNC  0x02
#define DL_PYC_TABLE_TRUNC 0x04 /* the line table was cut: late instructions have no line */
#define DL_PYC_UNREADABLE  0x08 /* a field could not be read: names may be empty */

/*
 * A code object, sent once per (process image, address), before the first
 * stack that holds it; sent again when the address holds another code
 * object (one freed, another made there) or the kernel's table forgot it:
 * the last one sent for an address is the one that holds.
 *
 *    0          24     28            32                40
 *    +----------+------+-------------+-----------------+
 *    | dl_hdr   | gen  | firstlineno | code            |
 *    +----------+------+-------------+-----------------+
 *    40           42           44            46          47          48      49      50    56
 *    +------------+------------+-------------+-----------+-----------+-------+-------+-----+
 *    | file_len   | name_len   | table_len   | file_kind | name_kind | minor | flags | pad |
 *    +------------+------------+-------------+-----------+-----------+-------+-------+-----+
 *    56: data: file (file_len bytes), name (name_len), line table (table_len)
 *
 * file is co_filename, name co_qualname (co_name on 3.10), as PyUnicode
 * stores them: kind 1 is one byte per character (ASCII or Latin-1), 2 and 4
 * are UCS-2 and UCS-4 (little endian).  The line table is co_linetable in
 * the format of 3.<minor>.
 */
struct dl_py_code {
	struct dl_hdr h;
	__u32 gen;
	__s32 firstlineno;
	__u64 code;
	__u16 file_len;
	__u16 name_len;
	__u16 table_len;
	__u8 file_kind;
	__u8 name_kind;
	__u8 minor;
	__u8 flags; /* DL_PYC_* */
	__u8 pad[6];
	char data[];
};

/* The Python stack id of a syscall record of `size` bytes, 0 when none. */
/* Kinds whose arg has its upper half free for the stack id (and only those). */
static inline int dl_py_in_arg(unsigned int kind)
{
	return dl_kind_py_arg(kind);
}

/* Kinds whose stack id goes after the record (struct dl_io_py). */
static inline int dl_py_after_io(unsigned int kind)
{
	return dl_kind_py_after(kind);
}

/* Kinds that may carry a stack id. */
static inline int dl_py_kind_ok(unsigned int kind)
{
	return dl_py_in_arg(kind) || dl_kind_has_path(kind) || dl_py_after_io(kind);
}

static inline __u32 dl_py_stack_of(const struct dl_io *io, __u32 size)
{
	if (dl_kind_by_fd(io->h.kind, size))
		return io->arg >> 32;
	if (dl_kind_has_path(io->h.kind))
		return size >= sizeof(struct dl_path) ? ((const struct dl_path *)io)->py_stack : 0;
	if (dl_py_after_io(io->h.kind))
		return size >= sizeof(struct dl_io_py) ? ((const struct dl_io_py *)io)->py_stack
						       : 0;
	return dl_py_in_arg(io->h.kind) ? io->arg >> 32 : 0;
}

/* The arg of a syscall record of `size` bytes without the Python stack id. */
static inline __u64 dl_io_arg(const struct dl_io *io, __u32 size)
{
	return dl_py_in_arg(io->h.kind) || dl_kind_by_fd(io->h.kind, size) ? io->arg & 0xffffffff
									   : io->arg;
}

#endif /* DLTRACE_EVENTS_H */
