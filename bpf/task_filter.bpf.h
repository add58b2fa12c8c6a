/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Which tasks are traced.
 *
 * Membership lives in task local storage: a task is traced when its
 * dl_task has a job slot whose current job id matches.  The fast path is
 * one storage lookup and two loads, for traced and untraced tasks alike.
 * A task with no storage yet, or whose verdict predates the last change of
 * the rules (dl_gen), is evaluated once: its process was named (seed_tgids)
 * or it runs under a job cgroup.  Children and threads inherit membership
 * at fork (process_probes.bpf.c), so no user-space race can lose them.
 */
#ifndef TASK_FILTER_BPF_H
#define TASK_FILTER_BPF_H

#include "dltrace_maps.bpf.h"

static __always_inline int dl_slot_live(const struct dl_task *t)
{
	return t->slot && job_ids[t->slot & (DL_MAX_JOBS - 1)] == t->job_id;
}

/* The job slot whose cgroup contains the current task, or 0. */
static __always_inline __u32 dl_match_cgroup(void)
{
	__u64 mask = cgroup_slots;

	if (!mask)
		return 0;
	for (__u32 slot = 1; slot < DL_MAX_JOBS; slot++) {
		if (!(mask & (1ULL << slot)))
			continue;
		if (bpf_current_task_under_cgroup(&job_cgroups, slot) == 1)
			return slot;
	}
	return 0;
}

/*
 * Evaluate the current task (slow path, once per task and rule change).
 * Returns its storage when it is traced, NULL otherwise.
 */
static __noinline struct dl_task *dl_evaluate(struct task_struct *task, struct dl_task *t)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32;
	__u32 slot = 0, pending = 0, job_id = 0;

	if (tgid != self_tgid) {
		__u32 *seed = bpf_map_lookup_elem(&seed_tgids, &tgid);

		if (seed && (*seed & DL_SEED_AT_EXEC))
			pending = *seed & (DL_MAX_JOBS - 1);
		else if (seed)
			slot = *seed & (DL_MAX_JOBS - 1);
		else
			slot = dl_match_cgroup();
		if (slot) {
			job_id = job_ids[slot & (DL_MAX_JOBS - 1)];
		} else {
			/*
			 * Threads the kernel creates without a fork event (io_uring
			 * workers and SQPOLL threads) follow their process's leader,
			 * also when the process is a command that joined its job at
			 * exec (its seed still says "at exec": the leader knows it
			 * has joined).
			 */
			struct task_struct *leader = task->group_leader;
			struct dl_task *lt;

			if (leader && leader != task) {
				lt = bpf_task_storage_get(&tasks, leader, 0, 0);
				if (lt && dl_slot_live(lt)) {
					slot = lt->slot;
					job_id = lt->job_id;
					pending = 0;
				}
			}
		}
	}
	if (!t) {
		t = bpf_task_storage_get(&tasks, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (!t)
			return NULL;
	}
	t->gen = dl_gen;
	t->slot = slot;
	t->job_id = job_id;
	t->tgid = tgid;
	t->tid = (__u32)id;
	t->pending_slot = pending;
	t->sys = 0;
	return slot && job_id ? t : NULL;
}

/* The current task's state if it is traced, else NULL.  Filter first. */
static __always_inline struct dl_task *dl_traced_task(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct dl_task *t = bpf_task_storage_get(&tasks, task, 0, 0);

	if (t) {
		if (dl_slot_live(t))
			return t;
		if (t->gen == dl_gen)
			return NULL;
	}
	return dl_evaluate(task, t);
}

#endif /* TASK_FILTER_BPF_H */
