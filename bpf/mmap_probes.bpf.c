// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * mmap layer: page faults of traced tasks on file-backed mappings, with the
 * file and the offset of the page (numpy.memmap, torch.load(mmap=True),
 * shared libraries).  On x86 every user fault is seen (exceptions:
 * page_fault_user) and the mapping is looked up with bpf_find_vma; where
 * that tracepoint is missing, filemap:mm_filemap_fault sees the faults
 * that had to go to the page cache.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "dltrace_events.h"
#include "task_filter.bpf.h"
#include "ring_output.bpf.h"

#define PAGE_SHIFT 12

struct fault_lookup {
	__u64 address;
	__u64 offset;
	__u64 ino;
	__u32 dev;
	__u32 found;
};

static long fault_vma(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	struct fault_lookup *f = data;
	struct file *file = vma->vm_file;
	struct inode *inode;

	(void)task;
	if (!file)
		return 0; /* anonymous memory */
	inode = BPF_CORE_READ(file, f_inode);
	f->offset = ((f->address - vma->vm_start) & ~((1UL << PAGE_SHIFT) - 1)) +
		    (vma->vm_pgoff << PAGE_SHIFT);
	f->ino = BPF_CORE_READ(inode, i_ino);
	f->dev = BPF_CORE_READ(inode, i_sb, s_dev);
	f->found = 1;
	return 0;
}

static __always_inline void emit_fault(struct dl_task *t, __u64 address, __u64 offset, __u64 ino,
				       __u32 dev, __u32 flags)
{
	struct dl_fault *e;

	dl_flush(t);
	e = dl_reserve(sizeof(*e), t->slot, DL_EV_FAULT);
	if (!e)
		return;
	dl_fill_hdr(&e->h, bpf_ktime_get_ns(), DL_EV_FAULT, t->slot);
	e->address = address;
	e->offset = offset;
	e->ino = ino;
	e->dev = dev;
	e->flags = flags;
	dl_submit(e);
}

SEC("tp_btf/page_fault_user")
int BPF_PROG(mmap_fault_user, unsigned long address, struct pt_regs *regs, unsigned long error_code)
{
	struct dl_task *t = dl_traced_task();
	struct fault_lookup f = {.address = address};

	(void)regs;
	if (!t)
		return 0;
	if (bpf_find_vma(bpf_get_current_task_btf(), address, fault_vma, &f, 0) || !f.found)
		return 0;
	emit_fault(t, address, f.offset, f.ino, f.dev, error_code & 2 ? DL_FAULT_WRITE : 0);
	return 0;
}

SEC("tracepoint/filemap/mm_filemap_fault")
int mmap_fault_filemap(struct trace_event_raw_mm_filemap_fault *ctx)
{
	struct dl_task *t = dl_traced_task();

	if (!t)
		return 0;
	emit_fault(t, 0, (__u64)ctx->index << PAGE_SHIFT, ctx->i_ino, ctx->s_dev, 0);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
