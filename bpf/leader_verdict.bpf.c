// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Threads the kernel creates without a fork event (io_uring workers and
 * SQPOLL threads) follow their process's leader (task_filter.bpf.h).  The
 * leader comes from bpf_task_from_pid where the kernel allows it: reading
 * task->group_leader from a trusted task pointer makes the verifier search
 * the kernel's whole BTF by name (btf_nested_type_is_trusted), milliseconds
 * for each program that has the filter, most of the verification time of
 * them all at start-up.  task_kfuncs is a constant: the verifier checks
 * only the branch taken.
 *
 * Global functions in an object of their own, with no programs: every
 * program's filter calls them, a global function is verified once per
 * program, and the kfuncs are declared in this object only (libbpf 1.1's
 * linker cannot merge kfunc externs of several objects).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "dltrace_maps.bpf.h"
#include "leader_verdict.bpf.h"

/* 6.2 on; weak: older kernels load dltrace without them (task_kfuncs off) */
struct task_struct *bpf_task_from_pid(s32 pid) __ksym __weak;
void bpf_task_release(struct task_struct *p) __ksym __weak;

static __always_inline __u64 dl_verdict_of(struct dl_task *lt)
{
	if (!lt || !dl_slot_live(lt))
		return 0;
	return ((__u64)lt->job_id << 32) | lt->slot;
}

/* Without kfuncs: task->group_leader (the verifier's BTF search, in this function only). */
__noinline __u64 dl_leader_verdict_btf(void)
{
	struct task_struct *leader = bpf_get_current_task_btf()->group_leader;

	return leader ? dl_verdict_of(bpf_task_storage_get(&tasks, leader, 0, 0)) : 0;
}

__noinline __u64 dl_leader_verdict(__u32 tgid)
{
	struct task_struct *leader;
	struct dl_task *lt;

	if (!task_kfuncs)
		return dl_leader_verdict_btf();
	leader = bpf_task_from_pid(tgid);
	if (!leader)
		return 0;
	lt = bpf_task_storage_get(&tasks, leader, 0, 0);
	bpf_task_release(leader);
	return dl_verdict_of(lt);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
