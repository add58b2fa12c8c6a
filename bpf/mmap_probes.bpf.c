// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * mmap layer: page faults of traced tasks on file-backed mappings, with the
 * file and the offset of the page (numpy.memmap, torch.load(mmap=True),
 * shared libraries).  On x86 every user fault is seen (exceptions:
 * page_fault_user) and the mapping is looked up with bpf_find_vma; where
 * that tracepoint is missing, filemap:mm_filemap_fault sees the faults
 * that had to go to the page cache.
 *
 * bpf_find_vma is dear here: the tracepoint runs with interrupts off, so
 * the helper releases the mmap lock from an irq_work, a self-interrupt per
 * call (a VM exit under virtualization).  Most faults of a training job
 * are on anonymous memory (copy-on-write after DataLoader workers fork,
 * fresh allocations), so two checks come first: faults on pages that are
 * already mapped (protection faults: copy-on-write, the first write to a
 * page that was read) are skipped, as they move no file data; and each
 * thread remembers the last few anonymous mappings it faulted in, until a
 * traced task maps a file or moves a mapping (dl_map_gen), so that faults
 * in the allocations a thread is working in cost one lookup each.
 *
 * It also remembers the last few file mappings (a library being loaded,
 * a memory-mapped dataset read through), where the kernel says when they
 * may have changed: where mm_lock_seq is a sequence count (6.18, not 6.1),
 * every writer of the address space's mappings makes it odd, then even
 * again (munmap, mmap, mprotect, mremap, brk, shmat, ...; the kernel's own
 * lockless lookups check it the same way).  An entry serves while the
 * count is the even value read before its lookup.  Kernels without such a
 * count look every file fault up.
 *
 * The mapped file's path is sent once per file (file_identity.bpf.h), so a
 * fault is named even when no traced open of the file was seen (a file
 * opened before tracing began, or mapped by a library from a descriptor
 * closed since).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "dltrace_events.h"
#include "task_filter.bpf.h"
#include "ring_output.bpf.h"
#include "file_identity.bpf.h"

#define PAGE_SHIFT   12
#define X86_PF_PROT  1 /* error code: the page was present (a protection fault) */
#define X86_PF_WRITE 2
#define VM_SHARED    0x00000008
#define VM_EXEC	     0x00000004

struct fault_lookup {
	__u64 address;
	__u64 base; /* the file offset of the mapping's start */
	__u64 ino;
	__u64 start, end; /* the mapping */
	__u64 file;	  /* struct file * */
	__u32 dev;
	__u32 found; /* 1: a file mapping, 2: anonymous */
	__u32 exec;  /* the mapping is executable */
	__u32 priv;  /* a private mapping (writes are copies) */
};

static long fault_vma(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	struct fault_lookup *f = data;
	/* read, not loaded: a pointer loaded from a trusted one costs the verifier a BTF search */
	struct file *file = BPF_CORE_READ(vma, vm_file);
	struct inode *inode;

	f->start = vma->vm_start;
	f->end = vma->vm_end;
	if (!file) {
		f->found = 2;
		return 0;
	}
	inode = BPF_CORE_READ(file, f_inode);
	f->base = vma->vm_pgoff << PAGE_SHIFT;
	f->ino = BPF_CORE_READ(inode, i_ino);
	f->dev = BPF_CORE_READ(inode, i_sb, s_dev);
	f->file = (__u64)file;
	/* code, or any part of the program's own file (its data, read-only data) */
	f->exec = (vma->vm_flags & VM_EXEC) || BPF_CORE_READ(task, mm, exe_file, f_inode) == inode;
	f->priv = !(vma->vm_flags & VM_SHARED);
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

/* File faults served from a thread's memory, and mappings looked up, since the load: --verbose. */
volatile __u64 dl_fault_served __weak = 0;
volatile __u64 dl_fault_lookups __weak = 0;

/*
 * The address space's write sequence, odd while its mappings are being
 * changed; 1 (odd: never trusted) where the kernel has no such count.
 */
static __always_inline __u32 mm_write_seq(struct mm_struct *mm)
{
	if (!bpf_core_field_exists(mm->mm_lock_seq.sequence))
		return 1;
	return mm->mm_lock_seq.sequence;
}

SEC("tp_btf/page_fault_user")
int BPF_PROG(mmap_fault_user, unsigned long address, struct pt_regs *regs, unsigned long error_code)
{
	struct dl_task *t = dl_traced_task();
	struct fault_lookup f = {.address = address};
	struct task_struct *task;
	struct mm_struct *mm;
	struct dl_fmap m;
	__u32 seq, i, write;

	(void)regs;
	if (!t || (error_code & X86_PF_PROT))
		return 0;
	if (t->anon_gen == dl_map_gen)
		for (int j = 0; j < DL_ANON_CACHE; j++)
			if (address >= t->anon_lo[j] && address < t->anon_hi[j])
				return 0;
	task = bpf_get_current_task_btf();
	mm = task->mm;
	/* read before the lookup: a change after it makes the entry stale */
	seq = mm_write_seq(mm);
	if (!(seq & 1) && t->fmap_mm == (__u64)mm && t->fmap_seq == seq)
		for (int j = 0; j < DL_FMAP_CACHE; j++)
			if (address >= t->fmap[j].lo && address < t->fmap[j].hi) {
				m = t->fmap[j];
				__sync_fetch_and_add(&dl_fault_served, 1);
				goto out;
			}
	__sync_fetch_and_add(&dl_fault_lookups, 1);
	if (bpf_find_vma(task, address, fault_vma, &f, 0) || !f.found)
		return 0;
	if (f.found == 2) {
		if (t->anon_gen != dl_map_gen) {
			dl_forget_anon(t);
			t->anon_gen = dl_map_gen;
		}
		i = t->anon_next++ & (DL_ANON_CACHE - 1);
		t->anon_lo[i] = f.start;
		t->anon_hi[i] = f.end;
		return 0;
	}
	m.lo = f.start;
	m.hi = f.end;
	m.base = f.base;
	m.file = f.file;
	m.ino = f.ino;
	m.dev = f.dev;
	m.flags = (f.exec ? DL_FAULT_EXEC : 0) | (f.priv ? DL_FAULT_COW : 0);
	if (!(seq & 1)) {
		if (t->fmap_mm != (__u64)mm || t->fmap_seq != seq) {
			for (int j = 0; j < DL_FMAP_CACHE; j++)
				t->fmap[j].hi = 0;
			t->fmap_mm = (__u64)mm;
			t->fmap_seq = seq;
		}
		t->fmap[t->fmap_next++ & (DL_FMAP_CACHE - 1)] = m;
	}
out:
	write = error_code & X86_PF_WRITE;
	dl_flush(t);
	dl_name_file((struct file *)m.file, m.ino, m.dev, t->slot);
	emit_fault(t, address, (address & ~((1UL << PAGE_SHIFT) - 1)) - m.lo + m.base, m.ino, m.dev,
		   (write ? DL_FAULT_WRITE : 0) | (m.flags & DL_FAULT_EXEC) |
		       (write ? m.flags & DL_FAULT_COW : 0));
	return 0;
}

/*
 * mremap can move a file's mapping onto memory a thread remembers as
 * anonymous (MREMAP_FIXED): it is forgotten, as at a traced mmap of a file.
 */
SEC("tracepoint/syscalls/sys_exit_mremap")
int mmap_remap(struct trace_event_raw_sys_exit *ctx)
{
	if (ctx->ret < 0) /* an address when it worked, never negative */
		return 0;
	if (dl_traced_task())
		__sync_fetch_and_add(&dl_map_gen, 1);
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
