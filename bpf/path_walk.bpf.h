/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Absolute paths from the kernel's view: fd -> struct file, and a bounded
 * walk from a dentry up to the task's root, crossing mount points.  The
 * walk writes the components leaf first ("leaf/dir/top/") into the per-CPU
 * scratch record; user space reverses them.  It runs in bpf_loop so that
 * deep trees (hundreds of levels) stay within the verifier's limits.
 *
 * The directories' part of a walk is cached (dl_dirs, path_walk.bpf.c): a file in a
 * directory met before costs its own component and one copy, not a walk
 * to the root.
 */
#ifndef PATH_WALK_BPF_H
#define PATH_WALK_BPF_H

#include <bpf/bpf_core_read.h>
#include "dltrace_maps.bpf.h"
#include "task_reads.bpf.h"

/*
 * Bumped by every successful rename of the machine (the rename programs
 * count them before the task filter): a name sent or cached may be stale.
 */
volatile __u32 dl_names_gen __weak = 0;

/* The struct file behind descriptor fd of the current task, or NULL (task_reads.bpf.c). */
static __always_inline struct file *dl_fd_file(int fd)
{
	return (struct file *)dl_fd_file_addr(fd);
}

/* The file position of descriptor fd, for kinds that report it. */
static __always_inline int dl_fd_pos(int fd, __u64 *pos)
{
	struct file *f = dl_fd_file(fd);

	if (!f)
		return -1;
	*pos = BPF_CORE_READ(f, f_pos);
	return 0;
}

static __always_inline char *dl_scratch_data(void)
{
	__u32 zero = 0;
	struct dl_scratch *s = bpf_map_lookup_elem(&scratch, &zero);

	return s ? s->buf + sizeof(struct dl_path) : NULL;
}

/*
 * Walk from (dentry, mnt) to the current task's root, writing at `start`
 * of the scratch data (path_walk.bpf.c).  Returns the bytes written in the
 * low half and the walk's DL_PATH_* flags in the high half.  A global
 * function: the verifier checks it once per program, not once per walk the
 * program makes.
 */
__u64 dl_walk_at(__u64 dentry, __u64 mnt, __u32 start);

/* The same without the directory cache (a smaller function for the verifier). */
__u64 dl_walk_plain_at(__u64 dentry, __u64 mnt, __u32 start);

/* The same, as the record wants it: the bytes written; ORs DL_PATH_* into *how. */
static __always_inline __u32 dl_walk_path(void *dentry, void *mnt, __u32 start, __u8 *how)
{
	__u64 r = dl_walk_at((__u64)dentry, (__u64)mnt, start);

	*how |= r >> 32;
	return (__u32)r;
}

/* Walk an open file's path. */
static __always_inline __u32 dl_walk_file(struct file *f, __u32 start, __u8 *how)
{
	if (!f)
		return 0;
	return dl_walk_path(BPF_CORE_READ(f, f_path.dentry), BPF_CORE_READ(f, f_path.mnt), start,
			    how);
}

/*
 * Walk a file met through a descriptor it was not opened by, once per file:
 * without the directory cache, so that the programs that only name such
 * files verify the smaller walk.
 */
static __always_inline __u32 dl_walk_file_plain(struct file *f, __u32 start, __u8 *how)
{
	__u64 r;

	if (!f)
		return 0;
	r = dl_walk_plain_at((__u64)BPF_CORE_READ(f, f_path.dentry),
			     (__u64)BPF_CORE_READ(f, f_path.mnt), start);
	*how |= r >> 32;
	return (__u32)r;
}

/* Walk the base a relative name is resolved against: dirfd or the cwd. */
static __always_inline __u32 dl_walk_dirfd(int dirfd, __u32 start, __u8 *how)
{
	struct dl_vfs_path pwd;

	if (dirfd != -100 /* AT_FDCWD */)
		return dl_walk_file(dl_fd_file(dirfd), start, how);
	dl_task_path(DL_TASK_PWD, &pwd);
	return dl_walk_path((void *)pwd.dentry, (void *)pwd.mnt, start, how);
}

/* Read a user string into a path slot; returns its length without the NUL. */
static __always_inline __u32 dl_user_name(char *data, __u32 off, const char *user)
{
	long n;

	if (!user)
		return 0;
	n = bpf_probe_read_user_str(data + (off & DL_SCRATCH_MASK), DL_PATH_MAX, user);
	return n > 0 ? n - 1 : 0;
}

/*
 * Fill path slot `i` at data offset `off` for a name relative to dirfd;
 * returns the bytes used.
 */
static __always_inline __u32 dl_name_slot(struct dl_path *p, char *data, __u32 off, int i,
					  int dirfd, const char *user)
{
	__u32 base = 0, name;
	char first = 0;

	i &= 1;
	bpf_probe_read_user(&first, 1, user);
	/* an empty name (AT_EMPTY_PATH) is the dirfd itself: user space knows its path */
	if (first != '/' && first != '\0')
		base = dl_walk_dirfd(dirfd, off, &p->how[i]);
	name = dl_user_name(data, off + base, user);
	p->how[i] |= DL_PATH_USER;
	p->base_len[i] = base;
	p->name_len[i] = name;
	return base + name;
}

#endif /* PATH_WALK_BPF_H */
