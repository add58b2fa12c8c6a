// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * vfs layer: the VFS calls behind file I/O, for I/O that is not a syscall
 * of the traced task (io_uring workers, sendfile/splice internals, kernel
 * readers) and for each file's identity (inode, device, file system).
 * Two sets of programs do the same work: fentry/fexit (preferred) and
 * kprobe/kretprobe (fallback); the loader attaches one set, or none when
 * the kernel offers neither (then the layer is reported unavailable).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "dltrace_events.h"
#include "task_filter.bpf.h"
#include "ring_output.bpf.h"
#include "path_walk.bpf.h"

static __always_inline void vfs_enter(__u32 op, struct file *file, const loff_t *ppos, __u64 size,
				      __u32 write)
{
	struct dl_task *t = dl_traced_task();
	__u64 pos = 0;

	if (!t || t->vfs_op)
		return; /* not traced, or nested in another VFS call */
	if (ppos)
		bpf_probe_read_kernel(&pos, sizeof(pos), ppos);
	t->vfs_file = (__u64)file;
	t->vfs_pos = pos;
	t->vfs_size = size;
	t->vfs_write = write;
	t->vfs_op = op + 1;
	t->vfs_ts = bpf_ktime_get_ns();
}

static __always_inline void vfs_fill(struct dl_vfs *e, struct dl_task *t, __u32 op, __u64 ts)
{
	struct file *file = (void *)t->vfs_file;
	struct inode *inode = BPF_CORE_READ(file, f_inode);

	dl_fill_hdr(&e->h, ts, DL_EV_VFS, t->slot);
	e->offset = t->vfs_pos;
	e->size = t->vfs_size;
	e->ino = BPF_CORE_READ(inode, i_ino);
	e->dev = BPF_CORE_READ(inode, i_sb, s_dev);
	e->fs_magic = BPF_CORE_READ(inode, i_sb, s_magic);
	e->op = op;
	e->write = t->vfs_write;
}

static __always_inline void vfs_exit(__u32 op, long ret)
{
	struct dl_task *t = dl_traced_task();
	struct dl_vfs *e;
	__u64 now;

	if (!t || t->vfs_op != op + 1)
		return;
	t->vfs_op = 0;
	now = bpf_ktime_get_ns();
	e = dl_reserve(sizeof(*e), t->slot);
	if (!e)
		return;
	vfs_fill(e, t, op, t->vfs_ts);
	e->dur = now - t->vfs_ts;
	e->ret = ret;
	dl_submit(e);
}

/* rw_verify_area: every read/write request; reported only outside vfs_read/write. */
static __always_inline void vfs_rw_check(int write, struct file *file, const loff_t *ppos,
					 __u64 count)
{
	struct dl_task *t = dl_traced_task();
	struct dl_vfs *e;
	__u64 pos = 0;

	if (!t || t->vfs_op)
		return;
	if (ppos)
		bpf_probe_read_kernel(&pos, sizeof(pos), ppos);
	e = dl_reserve(sizeof(*e), t->slot);
	if (!e)
		return;
	t->vfs_file = (__u64)file;
	t->vfs_pos = pos;
	t->vfs_size = count;
	t->vfs_write = write != 0;
	vfs_fill(e, t, DL_VFS_RW_CHECK, bpf_ktime_get_ns());
	e->dur = 0;
	e->ret = 0;
	dl_submit(e);
}

/* vfs_open: the opened file's absolute path and identity. */
static __always_inline void vfs_opened(const struct path *path, struct file *file, long ret)
{
	struct dl_task *t = dl_traced_task();
	struct dl_scratch *s;
	struct dl_path *p;
	struct inode *inode;
	__u32 zero = 0, used;

	if (!t)
		return;
	s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s)
		return;
	p = (void *)s->buf;
	__builtin_memset(p, 0, sizeof(*p));
	dl_fill_hdr(&p->io.h, bpf_ktime_get_ns(), DL_EV_VFS_OPEN, t->slot);
	p->io.ret = ret;
	p->io.arg = BPF_CORE_READ(file, f_flags);
	inode = BPF_CORE_READ(file, f_inode);
	p->ino = BPF_CORE_READ(inode, i_ino);
	p->file_size = BPF_CORE_READ(inode, i_size);
	p->dev = BPF_CORE_READ(inode, i_sb, s_dev);
	p->fs_magic = BPF_CORE_READ(inode, i_sb, s_magic);
	used = dl_walk_path(BPF_CORE_READ(path, dentry), BPF_CORE_READ(path, mnt), 0, &p->how[0]);
	p->how[0] |= DL_PATH_WALK;
	p->base_len[0] = used;
	DL_OPAQUE(used);
	used &= DL_SCRATCH_MASK;
	dl_output(p, sizeof(*p) + used, t->slot);
}

/* fentry/fexit */
SEC("fentry/vfs_read")
int BPF_PROG(vfs_fentry_read, struct file *file, char *buf, size_t count, loff_t *pos)
{
	vfs_enter(DL_VFS_READ, file, pos, count, 0);
	return 0;
}
SEC("fexit/vfs_read")
int BPF_PROG(vfs_fexit_read, struct file *file, char *buf, size_t count, loff_t *pos, long ret)
{
	vfs_exit(DL_VFS_READ, ret);
	return 0;
}
SEC("fentry/vfs_write")
int BPF_PROG(vfs_fentry_write, struct file *file, const char *buf, size_t count, loff_t *pos)
{
	vfs_enter(DL_VFS_WRITE, file, pos, count, 1);
	return 0;
}
SEC("fexit/vfs_write")
int BPF_PROG(vfs_fexit_write, struct file *file, const char *buf, size_t count, loff_t *pos,
	     long ret)
{
	vfs_exit(DL_VFS_WRITE, ret);
	return 0;
}
SEC("fentry/vfs_iter_read")
int BPF_PROG(vfs_fentry_iter_read, struct file *file, struct iov_iter *iter, loff_t *pos)
{
	vfs_enter(DL_VFS_ITER_READ, file, pos, BPF_CORE_READ(iter, count), 0);
	return 0;
}
SEC("fexit/vfs_iter_read")
int BPF_PROG(vfs_fexit_iter_read, struct file *file, struct iov_iter *iter, loff_t *pos, int flags,
	     long ret)
{
	vfs_exit(DL_VFS_ITER_READ, ret);
	return 0;
}
SEC("fentry/vfs_iter_write")
int BPF_PROG(vfs_fentry_iter_write, struct file *file, struct iov_iter *iter, loff_t *pos)
{
	vfs_enter(DL_VFS_ITER_WRITE, file, pos, BPF_CORE_READ(iter, count), 1);
	return 0;
}
SEC("fexit/vfs_iter_write")
int BPF_PROG(vfs_fexit_iter_write, struct file *file, struct iov_iter *iter, loff_t *pos, int flags,
	     long ret)
{
	vfs_exit(DL_VFS_ITER_WRITE, ret);
	return 0;
}
SEC("fentry/vfs_fsync_range")
int BPF_PROG(vfs_fentry_fsync, struct file *file, loff_t start, loff_t end)
{
	struct dl_task *t;

	vfs_enter(DL_VFS_FSYNC, file, NULL, end - start, 1);
	t = dl_traced_task();
	if (t && t->vfs_op == DL_VFS_FSYNC + 1)
		t->vfs_pos = start;
	return 0;
}
SEC("fexit/vfs_fsync_range")
int BPF_PROG(vfs_fexit_fsync, struct file *file, loff_t start, loff_t end, int datasync, int ret)
{
	vfs_exit(DL_VFS_FSYNC, ret);
	return 0;
}
SEC("fentry/rw_verify_area")
int BPF_PROG(vfs_fentry_rw_check, int write, struct file *file, const loff_t *ppos, size_t count)
{
	vfs_rw_check(write, file, ppos, count);
	return 0;
}
SEC("fexit/vfs_open")
int BPF_PROG(vfs_fexit_open, const struct path *path, struct file *file, int ret)
{
	vfs_opened(path, file, ret);
	return 0;
}

/* kprobe/kretprobe fallback: the same work, arguments saved at entry */
SEC("kprobe/vfs_read")
int BPF_KPROBE(vfs_kprobe_read, struct file *file, char *buf, size_t count, loff_t *pos)
{
	vfs_enter(DL_VFS_READ, file, pos, count, 0);
	return 0;
}
SEC("kretprobe/vfs_read")
int BPF_KRETPROBE(vfs_kretprobe_read, long ret)
{
	vfs_exit(DL_VFS_READ, ret);
	return 0;
}
SEC("kprobe/vfs_write")
int BPF_KPROBE(vfs_kprobe_write, struct file *file, const char *buf, size_t count, loff_t *pos)
{
	vfs_enter(DL_VFS_WRITE, file, pos, count, 1);
	return 0;
}
SEC("kretprobe/vfs_write")
int BPF_KRETPROBE(vfs_kretprobe_write, long ret)
{
	vfs_exit(DL_VFS_WRITE, ret);
	return 0;
}
SEC("kprobe/vfs_iter_read")
int BPF_KPROBE(vfs_kprobe_iter_read, struct file *file, struct iov_iter *iter, loff_t *pos)
{
	vfs_enter(DL_VFS_ITER_READ, file, pos, BPF_CORE_READ(iter, count), 0);
	return 0;
}
SEC("kretprobe/vfs_iter_read")
int BPF_KRETPROBE(vfs_kretprobe_iter_read, long ret)
{
	vfs_exit(DL_VFS_ITER_READ, ret);
	return 0;
}
SEC("kprobe/vfs_iter_write")
int BPF_KPROBE(vfs_kprobe_iter_write, struct file *file, struct iov_iter *iter, loff_t *pos)
{
	vfs_enter(DL_VFS_ITER_WRITE, file, pos, BPF_CORE_READ(iter, count), 1);
	return 0;
}
SEC("kretprobe/vfs_iter_write")
int BPF_KRETPROBE(vfs_kretprobe_iter_write, long ret)
{
	vfs_exit(DL_VFS_ITER_WRITE, ret);
	return 0;
}
SEC("kprobe/vfs_fsync_range")
int BPF_KPROBE(vfs_kprobe_fsync, struct file *file, loff_t start, loff_t end)
{
	struct dl_task *t;

	vfs_enter(DL_VFS_FSYNC, file, NULL, end - start, 1);
	t = dl_traced_task();
	if (t && t->vfs_op == DL_VFS_FSYNC + 1)
		t->vfs_pos = start;
	return 0;
}
SEC("kretprobe/vfs_fsync_range")
int BPF_KRETPROBE(vfs_kretprobe_fsync, long ret)
{
	vfs_exit(DL_VFS_FSYNC, ret);
	return 0;
}
SEC("kprobe/rw_verify_area")
int BPF_KPROBE(vfs_kprobe_rw_check, int write, struct file *file, const loff_t *ppos, size_t count)
{
	vfs_rw_check(write, file, ppos, count);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
