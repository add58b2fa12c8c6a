// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Python stacks: which traced processes are CPython interpreters, kept in
 * py_procs in the kernel so that no user-space delay loses a process's
 * first syscalls.  A forked child is its parent's copy (a DataLoader
 * worker); an exec of a known interpreter executable is found here, one of
 * a program that loads a known libpython when the library is mapped
 * (python_stack.bpf.h, dl_py_mapped); user space adds the processes it
 * finds itself (--pid, the first run of an interpreter it had not seen).
 * Loaded only with --python-stacks (programs named py_*).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "dltrace_events.h"
#include "task_filter.bpf.h"
#include "python_maps.bpf.h"

static __always_inline void py_changed(void)
{
	__sync_fetch_and_add(&py_procs_gen, 1);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(py_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	struct dl_py_proc *p, copy;

	if (ptgid == ctgid || !dl_traced_task())
		return 0;
	p = bpf_map_lookup_elem(&py_procs, &ptgid);
	if (!p) {
		/* a stale entry of a process that had this pid */
		if (!bpf_map_delete_elem(&py_procs, &ctgid))
			py_changed();
		return 0;
	}
	copy = *p;
	copy.gen = __sync_fetch_and_add(&py_next_gen, 1) + 1;
	copy.next_stack = 1;
	bpf_map_update_elem(&py_procs, &ctgid, &copy, BPF_ANY);
	py_changed();
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(py_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct dl_task *t = bpf_task_storage_get(&tasks, task, 0, 0);
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct dl_py_file key = {};
	struct dl_py_proc proc = {};
	struct dl_py_bin *bin;
	struct inode *inode;
	int changed;

	/* traced, or a command dltrace holds until this exec (pending_slot) */
	if (!t || !(dl_slot_live(t) || t->pending_slot))
		return 0;
	changed = !bpf_map_delete_elem(&py_procs, &tgid); /* a new program */
	inode = BPF_CORE_READ(bprm, file, f_inode);
	key.ino = BPF_CORE_READ(inode, i_ino);
	key.dev = BPF_CORE_READ(inode, i_sb, s_dev);
	bin = bpf_map_lookup_elem(&py_bins, &key);
	if (bin && bin->kind == DL_PY_BIN_EXE) {
		__u64 bias = bin->pie ? BPF_CORE_READ(task, mm, start_code) - bin->text_vaddr : 0;

		proc.runtime = bin->runtime + bias;
		proc.layout = bin->layout;
		proc.gen = __sync_fetch_and_add(&py_next_gen, 1) + 1;
		proc.next_stack = 1;
		bpf_map_update_elem(&py_procs, &tgid, &proc, BPF_ANY);
		changed = 1;
	}
	if (changed)
		py_changed();
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(py_exit, struct task_struct *p)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct task_struct *task = bpf_get_current_task_btf();

	if (BPF_CORE_READ(task, signal, live.counter) == 0 &&
	    !bpf_map_delete_elem(&py_procs, &tgid))
		py_changed();
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
