/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The current task's descriptor table and directories (task_reads.bpf.c). */
#ifndef TASK_READS_BPF_H
#define TASK_READS_BPF_H

/* The current task's root and working directory: which one dl_task_path() reads. */
enum dl_task_dir {
	DL_TASK_ROOT,
	DL_TASK_PWD,
};

/* What a call on a descriptor needs of its file (dl_fd_facts()). */
struct dl_fd_facts {
	__u64 file;  /* struct file *, 0: no file */
	__u64 inode; /* its f_inode */
	__u64 ino;   /* and that inode's i_ino */
	__u64 pos;   /* f_pos */
};

/* What an open's record and walk need of the file it opened (dl_file_facts()). */
struct dl_file_facts {
	__u64 dentry; /* f_path */
	__u64 mnt;
	__u64 inode;
	__u64 ino;
	__u64 size; /* i_size */
	__u32 dev;  /* i_sb->s_dev */
	__u32 magic;
};

/* What the directory cache checks of a dentry (dl_dentry_facts()). */
struct dl_dentry_facts {
	__u64 inode; /* d_inode */
	__u64 ino;
	__u32 igen; /* i_generation */
	__u32 pad;
};

/*
 * One step of the path walk up from a dentry (dl_dentry_up()): its parent
 * and name, the root of its mount, and what the directory cache checks of
 * the parent.
 */
struct dl_dentry_up {
	__u64 parent;	/* d_parent */
	__u64 name;	/* d_name.name */
	__u64 mnt_root; /* the mount's root dentry */
	__u32 len;	/* d_name.len */
	__u32 pad;
	struct dl_dentry_facts up; /* the parent's */
};

/* A struct path as numbers, in its order (dl_task_path()). */
struct dl_vfs_path {
	__u64 mnt;
	__u64 dentry;
};

/* The struct file behind descriptor fd of the current task, as a number; 0: none. */
__u64 dl_fd_file_addr(int fd);

/* Fill *out for descriptor fd of the current task; 0, or -1 when fd has no file. */
int dl_fd_facts(int fd, struct dl_fd_facts *out);

/* Fill *out for struct file `file` (a number); 0, or -1 without a file. */
int dl_file_facts(__u64 file, struct dl_file_facts *out);
/* Fill *out for struct dentry `dentry` (a number); 0, or -1 without a dentry. */
int dl_dentry_facts(__u64 dentry, struct dl_dentry_facts *out);
/* Fill *out for dentry `dentry` of mount `mnt` (numbers); 0, or -1 without a dentry. */
int dl_dentry_up(__u64 dentry, __u64 mnt, struct dl_dentry_up *out);
/* Fill *out with the current task's root or working directory; 0, or -1. */
int dl_task_path(enum dl_task_dir which, struct dl_vfs_path *out);

#endif /* TASK_READS_BPF_H */
