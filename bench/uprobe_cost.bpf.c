// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Programs for bench/uprobe_cost.c: an entry and a return program shaped
 * like dltrace's library probes.  Every hit pays the task filter (one task
 * storage lookup); only the traced process (traced_tgid) saves the entry
 * time and emits one ring record per call at the return.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

volatile __u32 traced_tgid = 0; /* set by the loader once the child exists */
volatile __u32 trace_all = 0;	/* every process that reaches the programs is traced */

struct cost_task {
	__u64 ts;
	__u64 arg;
	__u32 traced;
	__u32 depth;
};

struct cost_rec {
	__u64 ts, dur, arg;
	__s64 ret;
	__u32 tgid, tid;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct cost_task);
} cost_tasks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);
} cost_ring SEC(".maps");

__u64 hits = 0, records = 0, lost = 0, returns = 0, unpaired = 0;

/* records by process */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u64);
} per_tgid SEC(".maps");

static __always_inline struct cost_task *traced(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct cost_task *t = bpf_task_storage_get(&cost_tasks, task, 0, 0);

	if (!t) {
		t = bpf_task_storage_get(&cost_tasks, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (!t)
			return NULL;
		t->traced = trace_all || (bpf_get_current_pid_tgid() >> 32) == traced_tgid;
	}
	return t->traced ? t : NULL;
}

SEC("uprobe")
int BPF_KPROBE(cost_entry, void *a0)
{
	struct cost_task *t;

	__sync_fetch_and_add(&hits, 1);
	t = traced();
	if (!t)
		return 0;
	t->arg = (__u64)a0;
	t->ts = bpf_ktime_get_ns();
	return 0;
}

SEC("uretprobe")
int BPF_KRETPROBE(cost_return, long ret)
{
	struct cost_task *t = traced();
	struct cost_rec *r;

	__sync_fetch_and_add(&returns, 1);
	if (!t || !t->ts) {
		__sync_fetch_and_add(&unpaired, 1);
		return 0;
	}
	r = bpf_ringbuf_reserve(&cost_ring, sizeof(*r), 0);
	if (!r) {
		__sync_fetch_and_add(&lost, 1);
		return 0;
	}
	r->ts = t->ts;
	r->dur = bpf_ktime_get_ns() - t->ts;
	r->arg = t->arg;
	r->ret = ret;
	r->tgid = bpf_get_current_pid_tgid() >> 32;
	r->tid = (__u32)bpf_get_current_pid_tgid();
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	t->ts = 0;
	__sync_fetch_and_add(&records, 1);
	{
		__u32 tgid = bpf_get_current_pid_tgid() >> 32;
		__u64 one = 1, *n = bpf_map_lookup_elem(&per_tgid, &tgid);

		if (n)
			__sync_fetch_and_add(n, 1);
		else
			bpf_map_update_elem(&per_tgid, &tgid, &one, BPF_NOEXIST);
	}
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
