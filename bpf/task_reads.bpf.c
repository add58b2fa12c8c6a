// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What the path walk and the descriptor lookups read of the current task:
 * its descriptor table and its root and working directory.
 *
 * They read through the task with plain loads, not helper calls.  A pointer
 * loaded from the trusted task pointer bpf_get_current_task_btf() gives
 * makes the verifier check whether the field keeps the trust: up to four
 * searches of the kernel's whole BTF by name (btf_nested_type_is_trusted)
 * per load and per path of the program it checks, a quarter of dltrace's
 * start-up CPU on 6.18.  The same task cast read-only (bpf_rdonly_cast:
 * untrusted) reads the same memory with the same loads, and no load through
 * it is looked up.  A kernel without the kfunc (before 6.2, task_kfuncs
 * off) reads the trusted task, as before.
 *
 * Global functions in an object of their own: libbpf 1.1's linker cannot
 * merge kfunc externs of several objects, and a global function is
 * verified once per program, whatever calls it.  They return numbers (a
 * global function cannot return a typed pointer): the callers read what
 * hangs off a struct file with helpers anyway.  One number per call, no
 * struct: on 6.1 a path kind's exit program is within 32 bytes of the
 * combined stack limit (512).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "dltrace_maps.bpf.h"
#include "task_reads.bpf.h"

/* 6.2 on, every program type; weak: older kernels read the trusted task (task_kfuncs off) */
void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

static __always_inline struct task_struct *task_to_read(void)
{
	struct task_struct *task = bpf_get_current_task_btf();

	if (!task_kfuncs)
		return task;
	return bpf_rdonly_cast(task, bpf_core_type_id_kernel(struct task_struct));
}

__noinline __u64 dl_fd_file_addr(int fd)
{
	struct task_struct *task = task_to_read();
	struct fdtable *fdt;
	struct file **files;
	struct file *f = NULL;

	if (fd < 0)
		return 0;
	/* task -> files -> fdt -> max_fds, fd: loads (a NULL one reads as 0); the slot: a helper */
	fdt = task->files->fdt;
	if (!fdt || (unsigned int)fd >= fdt->max_fds)
		return 0;
	files = fdt->fd;
	bpf_probe_read_kernel(&f, sizeof(f), &files[fd]);
	return (__u64)f;
}

__noinline __u64 dl_task_dir(enum dl_task_dir which)
{
	struct fs_struct *fs = task_to_read()->fs;
	void *field;
	__u64 v = 0;

	/* the last step with a helper: a global function returns a number, not a pointer */
	switch (which) {
	case DL_ROOT_DENTRY:
		field = &fs->root.dentry;
		break;
	case DL_ROOT_MNT:
		field = &fs->root.mnt;
		break;
	case DL_PWD_DENTRY:
		field = &fs->pwd.dentry;
		break;
	default:
		field = &fs->pwd.mnt;
		break;
	}
	bpf_probe_read_kernel(&v, sizeof(v), field);
	return v;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
