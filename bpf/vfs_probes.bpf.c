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

/*
 * Is the VFS call recorded in t left over from one whose return was never
 * seen (the task left the job in between, or the return hook was not
 * attached yet)?  A task's VFS calls run inside its syscalls, so one that
 * began before the syscall in flight is over.
 */
static __always_inline int vfs_stale(const struct dl_task *t)
{
	return t->vfs_op && t->sys && t->vfs_ts < t->ts;
}

static __always_inline void vfs_enter(__u32 op, struct file *file, const loff_t *ppos, __u64 size,
				      __u32 write)
{
	struct dl_task *t = dl_traced_task();
	__u64 pos = 0;

	if (!t)
		return;
	if (vfs_stale(t))
		t->vfs_op = 0;
	if (t->vfs_op)
		return; /* nested in another VFS call */
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
	if (vfs_stale(t)) {
		t->vfs_op = 0;
		return;
	}
	t->vfs_op = 0;
	now = bpf_ktime_get_ns();
	dl_flush(t);
	e = dl_reserve(sizeof(*e), t->slot, DL_EV_VFS);
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

	if (!t)
		return;
	if (vfs_stale(t))
		t->vfs_op = 0;
	if (t->vfs_op)
		return;
	if (ppos)
		bpf_probe_read_kernel(&pos, sizeof(pos), ppos);
	dl_flush(t);
	e = dl_reserve(sizeof(*e), t->slot, DL_EV_VFS);
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
	dl_flush(t);
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

#define UNPAREN(...) __VA_ARGS__

/*
 * Four programs per VFS function: fentry/fexit and kprobe/kretprobe, the
 * same work at entry (`enter`, which may use the parameters of `proto`,
 * the function's whole parameter list) and at return.
 */
#define VFS_HOOK(fn, name, op, proto, enter)                                                       \
	SEC("fentry/" #fn)                                                                         \
	int BPF_PROG(vfs_fentry_##name, UNPAREN proto)                                             \
	{                                                                                          \
		enter;                                                                             \
		return 0;                                                                          \
	}                                                                                          \
	SEC("fexit/" #fn)                                                                          \
	int BPF_PROG(vfs_fexit_##name, UNPAREN proto, long ret)                                    \
	{                                                                                          \
		vfs_exit(op, ret);                                                                 \
		return 0;                                                                          \
	}                                                                                          \
	SEC("kprobe/" #fn)                                                                         \
	int BPF_KPROBE(vfs_kprobe_##name, UNPAREN proto)                                           \
	{                                                                                          \
		enter;                                                                             \
		return 0;                                                                          \
	}                                                                                          \
	SEC("kretprobe/" #fn)                                                                      \
	int BPF_KRETPROBE(vfs_kretprobe_##name, long ret)                                          \
	{                                                                                          \
		vfs_exit(op, ret);                                                                 \
		return 0;                                                                          \
	}

static __always_inline void vfs_fsync_enter(struct file *file, loff_t start, loff_t end)
{
	struct dl_task *t;

	vfs_enter(DL_VFS_FSYNC, file, NULL, end - start, 1);
	t = dl_traced_task();
	if (t && t->vfs_op == DL_VFS_FSYNC + 1)
		t->vfs_pos = start;
}

VFS_HOOK(vfs_read, read, DL_VFS_READ, (struct file * file, char *buf, size_t count, loff_t *pos),
	 vfs_enter(DL_VFS_READ, file, pos, count, 0))
VFS_HOOK(vfs_write, write, DL_VFS_WRITE,
	 (struct file * file, const char *buf, size_t count, loff_t *pos),
	 vfs_enter(DL_VFS_WRITE, file, pos, count, 1))
VFS_HOOK(vfs_iter_read, iter_read, DL_VFS_ITER_READ,
	 (struct file * file, struct iov_iter *iter, loff_t *pos, int flags),
	 vfs_enter(DL_VFS_ITER_READ, file, pos, BPF_CORE_READ(iter, count), 0))
VFS_HOOK(vfs_iter_write, iter_write, DL_VFS_ITER_WRITE,
	 (struct file * file, struct iov_iter *iter, loff_t *pos, int flags),
	 vfs_enter(DL_VFS_ITER_WRITE, file, pos, BPF_CORE_READ(iter, count), 1))
VFS_HOOK(vfs_fsync_range, fsync, DL_VFS_FSYNC,
	 (struct file * file, loff_t start, loff_t end, int datasync),
	 vfs_fsync_enter(file, start, end))

/* entry only: any read/write request, also those that are no syscall of the task */
SEC("fentry/rw_verify_area")
int BPF_PROG(vfs_fentry_rw_check, int write, struct file *file, const loff_t *ppos, size_t count)
{
	vfs_rw_check(write, file, ppos, count);
	return 0;
}
SEC("kprobe/rw_verify_area")
int BPF_KPROBE(vfs_kprobe_rw_check, int write, struct file *file, const loff_t *ppos, size_t count)
{
	vfs_rw_check(write, file, ppos, count);
	return 0;
}

/* the opened file: fexit sees the arguments with the result; kprobes save them */
SEC("fexit/vfs_open")
int BPF_PROG(vfs_fexit_open, const struct path *path, struct file *file, int ret)
{
	vfs_opened(path, file, ret);
	return 0;
}
SEC("kprobe/vfs_open")
int BPF_KPROBE(vfs_kprobe_open, const struct path *path, struct file *file)
{
	struct dl_task *t = dl_traced_task();

	if (t) {
		t->vfs_open_path = (__u64)path;
		t->vfs_open_file = (__u64)file;
	}
	return 0;
}
SEC("kretprobe/vfs_open")
int BPF_KRETPROBE(vfs_kretprobe_open, long ret)
{
	struct dl_task *t = dl_traced_task();

	if (t && t->vfs_open_file) {
		vfs_opened((void *)t->vfs_open_path, (void *)t->vfs_open_file, ret);
		t->vfs_open_file = 0;
	}
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
