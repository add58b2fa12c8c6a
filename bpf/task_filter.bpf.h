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
#include "leader_verdict.bpf.h"

struct dl_cgroup_search {
	__u64 mask;
	__u32 slot;
};

static long dl_cgroup_step(__u64 i, void *ctx)
{
	struct dl_cgroup_search *c = ctx;
	__u32 slot = i + 1;

	if (!(c->mask & (1ULL << (slot & (DL_MAX_JOBS - 1)))))
		return 0;
	if (bpf_current_task_under_cgroup(&job_cgroups, slot) != 1)
		return 0;
	c->slot = slot;
	return 1;
}

/*
 * The job slot whose cgroup contains the current task, or 0.  In bpf_loop:
 * the verifier checks its body once, where an unrolled loop over the 63
 * slots cost every program thousands of verified instructions (start-up).
 */
static __always_inline __u32 dl_match_cgroup(void)
{
	struct dl_cgroup_search c = {.mask = cgroup_slots};

	if (!c.mask)
		return 0;
	bpf_loop(DL_MAX_JOBS - 1, dl_cgroup_step, &c, 0);
	return c.slot;
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
#ifdef DL_FILTER_NO_KFUNCS
			__u64 v = tgid != (__u32)id ? dl_leader_verdict_btf() : 0;
#else
			__u64 v = tgid != (__u32)id ? dl_leader_verdict(tgid) : 0;
#endif

			slot = (__u32)v & (DL_MAX_JOBS - 1);
			job_id = v >> 32;
			if (slot) /* a command that joined at exec: its leader has joined */
				pending = 0;
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
