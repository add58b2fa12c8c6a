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
 * Record kinds.  The syscall kinds are dltrace's own dense numbering, the
 * same on every architecture; user space maps them to names and classes.
 */
enum dl_kind {
	DL_SYS_OPEN,
	DL_SYS_OPENAT,
	DL_SYS_OPENAT2,
	DL_SYS_CREAT,
	DL_SYS_CLOSE,
	DL_SYS_CLOSE_RANGE,
	DL_SYS_READ,
	DL_SYS_PREAD64,
	DL_SYS_READV,
	DL_SYS_PREADV,
	DL_SYS_PREADV2,
	DL_SYS_WRITE,
	DL_SYS_PWRITE64,
	DL_SYS_WRITEV,
	DL_SYS_PWRITEV,
	DL_SYS_PWRITEV2,
	DL_SYS_LSEEK,
	DL_SYS_FSYNC,
	DL_SYS_FDATASYNC,
	DL_SYS_SYNC_FILE_RANGE,
	DL_SYS_MMAP,
	DL_SYS_STAT,
	DL_SYS_LSTAT,
	DL_SYS_FSTAT,
	DL_SYS_NEWFSTATAT,
	DL_SYS_STATX,
	DL_SYS_GETDENTS64,
	DL_SYS_UNLINK,
	DL_SYS_UNLINKAT,
	DL_SYS_RENAME,
	DL_SYS_RENAMEAT,
	DL_SYS_RENAMEAT2,
	DL_SYS_MKDIR,
	DL_SYS_MKDIRAT,
	DL_SYS_RMDIR,
	DL_SYS_FTRUNCATE,
	DL_SYS_FALLOCATE,
	DL_SYS_DUP,
	DL_SYS_DUP2,
	DL_SYS_DUP3,
	DL_SYS_FCNTL,
	DL_SYS_SENDFILE,
	DL_SYS_COPY_FILE_RANGE,
	DL_SYS_COUNT, /* number of syscall kinds */

	DL_EV_FORK = 64, /* a traced task created a process or thread */
	DL_EV_EXEC,	 /* a traced process executed a new program */
	DL_EV_EXIT,	 /* a traced thread exited */
	DL_EV_FAULT,	 /* mmap layer: a page fault on a file mapping (struct dl_fault) */
	DL_EV_BLOCK,	 /* block layer: a completed block request (struct dl_block) */
	DL_EV_URING,	 /* uring layer: a completed io_uring request (struct dl_uring) */
	DL_EV_VFS,	 /* vfs layer: a VFS read/write/fsync/io check (struct dl_vfs) */
	DL_EV_VFS_OPEN,	 /* vfs layer: vfs_open of a file (struct dl_path, path walked) */
	DL_EV_CGROUP,	 /* daemon: a cgroup v2 directory was made or removed (struct dl_cgroup) */
	DL_EV_PY_STACK,	 /* python stacks: a new Python stack of a process (struct dl_py_stack) */
	DL_EV_PY_CODE,	 /* python stacks: a code object, once per process (struct dl_py_code) */
	DL_KIND_COUNT,
};

/* seed_tgids value flag: the process joins its job at its next exec (-- COMMAND) */
#define DL_SEED_AT_EXEC 0x100

/* Syscall kinds whose record is a struct dl_path (they name a file). */
static inline int dl_kind_has_path(unsigned int kind)
{
	switch (kind) {
	case DL_SYS_OPEN:
	case DL_SYS_OPENAT:
	case DL_SYS_OPENAT2:
	case DL_SYS_CREAT:
	case DL_SYS_STAT:
	case DL_SYS_LSTAT:
	case DL_SYS_NEWFSTATAT:
	case DL_SYS_STATX:
	case DL_SYS_UNLINK:
	case DL_SYS_UNLINKAT:
	case DL_SYS_RENAME:
	case DL_SYS_RENAMEAT:
	case DL_SYS_RENAMEAT2:
	case DL_SYS_MKDIR:
	case DL_SYS_MKDIRAT:
	case DL_SYS_RMDIR:
		return 1;
	default:
		return 0;
	}
}

/* dl_hdr.flags */
#define DL_F_OFFSET	 0x01 /* dl_io.offset holds a file offset */
#define DL_F_IOV_TRUNC	 0x02 /* more than DL_MAX_IOV iovecs: size is partial */
#define DL_F_THREAD	 0x04 /* fork: the child is a thread (CLONE_THREAD) */
#define DL_F_GROUP_DEAD	 0x08 /* exit: the last thread of the process */
#define DL_F_SHARE_FILES 0x10 /* fork: child shares the fd table */
#define DL_F_CACHE	 0x20 /* read kinds: dl_io.arg = page-cache pages added (misses) */
#define DL_F_BATCH	 0x40 /* sent in a batch: the ring record holds several dl_io */
#define DL_F_PYSTACK	 0x80 /* syscall: a Python stack id is attached, see dl_py_stack_of() */

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
 * A completed syscall.  Field use by kind (see user/syscall_table.c):
 *   h.fd    the file descriptor argument (open: the dirfd; dup: the old fd)
 *   ret     return value, or -errno
 *   offset  explicit offset (p*), file position at entry (read/write/...),
 *           lseek: the requested offset; mmap: the file offset
 *   size    requested bytes (count, iovec sum, length)
 *   arg     open: flags | mode << 32; lseek: whence; dup2/3: new fd;
 *           fcntl: cmd | arg << 32; mmap: prot | flags << 32;
 *           sendfile/copy_file_range: the second fd;
 *           close_range: last fd | flags << 32;
 *           read kinds with DL_F_CACHE: pages the read added to the page cache
 */
struct dl_io {
	struct dl_hdr h;
	__u64 dur; /* ns from entry to exit */
	__s64 ret;
	__u64 offset;
	__u64 size;
	__u64 arg;
};

/* How a path slot was obtained (dl_path.how[]) */
#define DL_PATH_NONE	 0    /* slot unused */
#define DL_PATH_WALK	 1    /* dentry walk of the file (components leaf first) */
#define DL_PATH_USER	 2    /* user string, with a base walk when relative */
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
 * ino/dev/fs_magic/file_size describe it.
 */
struct dl_path {
	struct dl_io io;
	__u64 ino;
	__u64 file_size;
	__u32 dev;	/* st_dev encoding: major << 20 | minor (kernel) */
	__u32 fs_magic; /* superblock magic (statfs f_type) */
	__u32 flags;	/* renameat2/statx/unlinkat/newfstatat flags */
	__u16 base_len[2];
	__u16 name_len[2];
	__u8 how[2];
	__u8 pad[2];
	__u32 py_stack; /* with DL_F_PYSTACK: the Python stack id, else 0 */
	__u32 pad2;
	char data[]; /* slot 0 base, slot 0 name, slot 1 base, slot 1 name */
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
	__u32 pad;
	char comm[DL_COMM_LEN];
	char data[]; /* exec: program path, then argv */
};

/*
 * mmap layer: a user page fault on a file-backed mapping.  h.ts is the fault
 * time; offset is the file offset of the faulting page.
 */
#define DL_FAULT_WRITE 0x01 /* write access */
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
 * completion.  h.ts is the submission time, h.fd the request's fd.
 */
struct dl_uring {
	struct dl_hdr h;
	__u64 dur;
	__u64 user_data;
	__s64 res;    /* the completion's result: bytes or -errno */
	__u64 offset; /* read/write: the file offset asked for */
	__u32 len;    /* read/write: bytes asked for (iovec count for *V ops) */
	__u8 opcode;  /* IORING_OP_* */
	__u8 pad[3];
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
 * Per-CPU counters in the `dl_stats` map, one group per job slot:
 * key = job * DL_STAT_COUNT + stat.
 */
enum dl_stat {
	DL_STAT_LOST,	    /* records dropped: ring buffer full */
	DL_STAT_LOST_BYTES, /* bytes of those records */
	DL_STAT_LOST_KIND,  /* first of DL_LOST_KINDS: records dropped, by kind */
	DL_STAT_COUNT = DL_STAT_LOST_KIND + 64,
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
 * a stack id (DL_F_PYSTACK), a number per process image; the stack itself
 * is sent once, before the first record that uses it, as a list of (code
 * object, instruction) pairs, and each code object once per process, with
 * what user space needs to name it and turn an instruction into a line.
 *
 * Where the id is (dl_py_stack_of()): a dl_io's arg has its upper 32 bits
 * free for every kind but mmap, close_range, dup3 and fcntl, so the id
 * rides there at no cost to the batched records; a path record has its
 * own field (dl_path.py_stack); an mmap with a stack is sent alone as a
 * struct dl_io_py (its arg holds prot and flags).  close_range, dup3 and
 * fcntl never carry one.
 */
#define DL_PY_FRAMES	16   /* frames walked; a deeper stack is cut (DL_PYS_TRUNCATED) */
#define DL_PY_FILE_MAX	512  /* bytes of a code object's file name sent */
#define DL_PY_NAME_MAX	256  /* bytes of its qualified name */
#define DL_PY_TABLE_MAX 4096 /* bytes of its line table */

/*
 * An mmap record with a Python stack (kind DL_SYS_MMAP, DL_F_PYSTACK, never
 * batched: it is the only dl_io record longer than 64 bytes).
 *
 *    0                                      64         68     72
 *    +--------------------------------------+----------+------+
 *    | struct dl_io (arg: prot | flags<<32) | py_stack | pad  |
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
static inline __u32 dl_py_stack_of(const struct dl_io *io, __u32 size)
{
	if (!(io->h.flags & DL_F_PYSTACK))
		return 0;
	if (dl_kind_has_path(io->h.kind))
		return size >= sizeof(struct dl_path) ? ((const struct dl_path *)io)->py_stack : 0;
	if (io->h.kind == DL_SYS_MMAP)
		return size >= sizeof(struct dl_io_py) ? ((const struct dl_io_py *)io)->py_stack
						       : 0;
	return io->arg >> 32;
}

/* The arg of a syscall record without the Python stack id. */
static inline __u64 dl_io_arg(const struct dl_io *io)
{
	if ((io->h.flags & DL_F_PYSTACK) && !dl_kind_has_path(io->h.kind) &&
	    io->h.kind != DL_SYS_MMAP)
		return io->arg & 0xffffffff;
	return io->arg;
}

#endif /* DLTRACE_EVENTS_H */
