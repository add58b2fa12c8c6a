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
 * global function cannot return a typed pointer), or fill a small struct
 * of numbers: a struct file's and a dentry's fields are read here, by
 * loads through the pointer cast read-only, all in one call.  On a kernel
 * with return-thunk mitigations every helper's and function's return
 * costs; one call that reads ten fields by loads replaces ten helper
 * reads (docs/performance.md, "What the measurements decided").
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

static __always_inline __u64 fd_file_addr(int fd)
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

__noinline __u64 dl_fd_file_addr(int fd)
{
	return fd_file_addr(fd);
}

/*
 * A call's descriptor, its file and what names it, in one call: a global
 * function's call and return cost more here than the loads (a kernel with
 * return-thunk mitigations), so the file's fields are read in the same call
 * as its slot, by loads through the file cast read-only.
 */
__noinline int dl_fd_facts(int fd, struct dl_fd_facts *out)
{
	struct file *f;

	if (!out)
		return -1;
	out->file = fd_file_addr(fd);
	if (!out->file) {
		out->inode = out->ino = out->pos = 0;
		return -1;
	}
	if (task_kfuncs) {
		f = bpf_rdonly_cast((void *)out->file, bpf_core_type_id_kernel(struct file));
		out->inode = (__u64)f->f_inode;
		out->ino = f->f_inode->i_ino;
		out->pos = f->f_pos;
		return 0;
	}
	f = (void *)out->file;
	out->inode = (__u64)BPF_CORE_READ(f, f_inode);
	out->ino = BPF_CORE_READ(f, f_inode, i_ino);
	out->pos = BPF_CORE_READ(f, f_pos);
	return 0;
}

__noinline int dl_file_facts(__u64 file, struct dl_file_facts *out)
{
	struct super_block *sb;
	struct inode *inode;
	struct file *f;

	if (!out)
		return -1;
	if (!file) {
		__builtin_memset(out, 0, sizeof(*out));
		return -1;
	}
	if (task_kfuncs) {
		f = bpf_rdonly_cast((void *)file, bpf_core_type_id_kernel(struct file));
		inode = f->f_inode;
		sb = inode->i_sb;
		out->dentry = (__u64)f->f_path.dentry;
		out->mnt = (__u64)f->f_path.mnt;
		out->inode = (__u64)inode;
		out->ino = inode->i_ino;
		out->size = inode->i_size;
		out->dev = sb->s_dev;
		out->magic = sb->s_magic;
		return 0;
	}
	f = (void *)file;
	inode = BPF_CORE_READ(f, f_inode);
	sb = BPF_CORE_READ(inode, i_sb);
	out->dentry = (__u64)BPF_CORE_READ(f, f_path.dentry);
	out->mnt = (__u64)BPF_CORE_READ(f, f_path.mnt);
	out->inode = (__u64)inode;
	out->ino = BPF_CORE_READ(inode, i_ino);
	out->size = BPF_CORE_READ(inode, i_size);
	out->dev = BPF_CORE_READ(sb, s_dev);
	out->magic = BPF_CORE_READ(sb, s_magic);
	return 0;
}

/* A dentry read-only cast's inode fields, by loads; *out zeroed before. */
static __always_inline void dentry_facts_loaded(struct dentry *d, struct dl_dentry_facts *out)
{
	struct inode *inode = d->d_inode;

	if (!inode)
		return;
	out->inode = (__u64)inode;
	out->ino = inode->i_ino;
	out->igen = inode->i_generation;
}

__noinline int dl_dentry_facts(__u64 dentry, struct dl_dentry_facts *out)
{
	struct inode *inode;
	struct dentry *d;

	if (!out)
		return -1;
	__builtin_memset(out, 0, sizeof(*out));
	if (!dentry)
		return -1;
	if (task_kfuncs) {
		d = bpf_rdonly_cast((void *)dentry, bpf_core_type_id_kernel(struct dentry));
		dentry_facts_loaded(d, out);
		return 0;
	}
	d = (void *)dentry;
	inode = BPF_CORE_READ(d, d_inode);
	if (!inode)
		return 0;
	out->inode = (__u64)inode;
	out->ino = BPF_CORE_READ(inode, i_ino);
	out->igen = BPF_CORE_READ(inode, i_generation);
	return 0;
}

/*
 * A step of the walk in one call, by loads through the dentry and the mount
 * cast read-only: a dentry's parent and name, its mount's root, and the
 * parent's inode fields.  Kernels without the kfunc walk by helper reads
 * (path_walk.bpf.c), and never call this.
 */
__noinline int dl_dentry_up(__u64 dentry, __u64 mnt, struct dl_dentry_up *out)
{
	struct vfsmount *m;
	struct dentry *d, *p;

	if (!out)
		return -1;
	__builtin_memset(out, 0, sizeof(*out));
	if (!dentry || !mnt || !task_kfuncs)
		return -1;
	d = bpf_rdonly_cast((void *)dentry, bpf_core_type_id_kernel(struct dentry));
	m = bpf_rdonly_cast((void *)mnt, bpf_core_type_id_kernel(struct vfsmount));
	out->mnt_root = (__u64)m->mnt_root;
	p = d->d_parent;
	out->parent = (__u64)p;
	out->name = (__u64)d->d_name.name;
	out->len = d->d_name.len;
	dentry_facts_loaded(p, &out->up);
	return 0;
}

__noinline int dl_task_path(enum dl_task_dir which, struct dl_vfs_path *out)
{
	struct fs_struct *fs;
	struct path *path;

	if (!out)
		return -1;
	fs = task_to_read()->fs;
	path = which == DL_TASK_PWD ? &fs->pwd : &fs->root;
	out->dentry = out->mnt = 0;
	/* one read where struct path is (mnt, dentry), as in every kernel dltrace knows */
	if (bpf_core_field_offset(struct path, mnt) == 0 &&
	    bpf_core_field_offset(struct path, dentry) == 8) {
		bpf_probe_read_kernel(out, sizeof(*out), path);
		return 0;
	}
	bpf_probe_read_kernel(&out->mnt, sizeof(out->mnt), &path->mnt);
	bpf_probe_read_kernel(&out->dentry, sizeof(out->dentry), &path->dentry);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
