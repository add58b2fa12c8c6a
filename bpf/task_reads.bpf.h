/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The current task's descriptor table and directories (task_reads.bpf.c). */
#ifndef TASK_READS_BPF_H
#define TASK_READS_BPF_H

/* The current task's root and working directory: which pointer dl_task_dir() returns. */
enum dl_task_dir {
	DL_ROOT_DENTRY,
	DL_ROOT_MNT,
	DL_PWD_DENTRY,
	DL_PWD_MNT,
};

/* The struct file behind descriptor fd of the current task, as a number; 0: none. */
__u64 dl_fd_file_addr(int fd);
/* A struct dentry or struct vfsmount pointer of the current task, as a number. */
__u64 dl_task_dir(enum dl_task_dir which);

#endif /* TASK_READS_BPF_H */
