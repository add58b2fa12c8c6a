// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Process following: children and threads of traced tasks join the trace
 * at fork, in the kernel, before they run; exec and exit are reported so
 * that user space can name processes and know when the tree has ended.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "dltrace_events.h"
#include "task_filter.bpf.h"
#include "ring_output.bpf.h"

SEC("tp_btf/sched_process_fork")
int BPF_PROG(dl_fork, struct task_struct *parent, struct task_struct *child)
{
	struct dl_task *p = dl_traced_task();
	struct dl_task *c;
	struct dl_proc *e;

	(void)ctx;
	if (!p)
		return 0;
	dl_flush(p); /* the parent's data records come before the fork */
	c = bpf_task_storage_get(&tasks, child, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!c) {
		dl_count_lost(p->slot, DL_EV_FORK, sizeof(*e));
		return 0;
	}
	c->gen = p->gen;
	c->slot = p->slot;
	c->job_id = p->job_id;
	c->sys = 0;
	c->tgid = child->tgid;
	c->tid = child->pid;

	e = dl_reserve(sizeof(*e), p->slot, DL_EV_FORK);
	if (!e)
		return 0;
	dl_fill_hdr(&e->h, bpf_ktime_get_ns(), DL_EV_FORK, p->slot);
	e->h.tgid = child->tgid;
	e->h.tid = child->pid;
	if (child->tgid == parent->tgid)
		e->h.flags |= DL_F_THREAD;
	else if (BPF_CORE_READ(child, files) == BPF_CORE_READ(parent, files))
		e->h.flags |= DL_F_SHARE_FILES;
	e->ppid = parent->tgid;
	e->ptid = parent->pid;
	e->exit_code = 0;
	e->file_len = 0;
	e->args_len = 0;
	e->uid = (__u32)bpf_get_current_uid_gid();
	e->env_len = 0;
	BPF_CORE_READ_STR_INTO(&e->comm, child, comm);
	/* a per-process layer (stdio) attaches to the child when user space reads this */
	if (fork_wakeup)
		bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
	else
		dl_submit(e);
	return 0;
}

/* What the environment scan keeps between its steps. */
struct dl_env_scan {
	__u64 envp; /* the next environment pointer */
	struct dl_ranks *out;
	char buf[32]; /* NAME=VALUE, cut: the names and values looked for fit */
};

/* Whether buf starts with name (n bytes, '=' included). */
static __always_inline bool dl_env_is(const char *buf, const char *name, int n)
{
	for (int i = 0; i < n; i++)
		if (buf[i] != name[i])
			return false;
	return true;
}

/* The decimal value after n bytes of buf; -1 when it is not one of 1 to 9 digits. */
static __always_inline __s32 dl_env_value(const char *buf, int n)
{
	__s32 v = 0;
	int i;

	for (i = 0; i < 10; i++) {
		char c = buf[(n + i) & 31];

		if (c == '\0')
			break;
		if (c < '0' || c > '9' || i == 9)
			return -1;
		v = v * 10 + (c - '0');
	}
	return i ? v : -1;
}

#define DL_ENV(buf, lit) dl_env_is((buf), (lit), sizeof(lit) - 1)

static long dl_env_step(__u32 i, void *ctx)
{
	struct dl_env_scan *w = ctx;
	__u64 p = 0;
	int k = -1, n = 0;

	if (bpf_probe_read_user(&p, sizeof(p), (void *)w->envp) || !p)
		return 1;
	w->envp += sizeof(p);
	if (bpf_probe_read_user_str(w->buf, sizeof(w->buf), (void *)p) <= 0)
		return 0;
	if (DL_ENV(w->buf, "RANK="))
		k = DL_RANK_RANK, n = 5;
	else if (DL_ENV(w->buf, "LOCAL_RANK="))
		k = DL_RANK_LOCAL_RANK, n = 11;
	else if (DL_ENV(w->buf, "WORLD_SIZE="))
		k = DL_RANK_WORLD_SIZE, n = 11;
	else if (DL_ENV(w->buf, "SLURM_PROCID="))
		k = DL_RANK_SLURM, n = 13;
	else if (DL_ENV(w->buf, "OMPI_COMM_WORLD_RANK="))
		k = DL_RANK_OMPI, n = 21;
	else if (DL_ENV(w->buf, "PMI_RANK="))
		k = DL_RANK_PMI, n = 9;
	if (k >= 0 && k < DL_RANK_COUNT)
		w->out->v[k] = dl_env_value(w->buf, n);
	return 0;
}

/*
 * The ranks in the environment of the program that starts now: its stack
 * begins with argc, argv[], NULL, envp[], NULL (mm->start_stack points at
 * argc).  Up to DL_ENV_SCAN variables.
 */
static __always_inline void dl_exec_ranks(struct task_struct *task, struct dl_ranks *out)
{
	struct dl_env_scan w = {.out = out};
	__u64 sp = BPF_CORE_READ(task, mm, start_stack), argc = 0;

	for (int k = 0; k < DL_RANK_COUNT; k++)
		out->v[k] = -1;
	if (!sp || bpf_probe_read_user(&argc, sizeof(argc), (void *)sp) || argc > 1 << 20)
		return;
	w.envp = sp + 8 * (argc + 2);
	bpf_loop(DL_ENV_SCAN, dl_env_step, &w, 0);
}

SEC("tracepoint/sched/sched_process_exec")
int dl_exec(struct trace_event_raw_sched_process_exec *ctx)
{
	struct dl_task *t = dl_traced_task();
	struct task_struct *task = bpf_get_current_task_btf();
	struct dl_scratch *s;
	struct dl_proc *e;
	unsigned long arg_start, arg_end;
	struct dl_ranks ranks;
	__u32 zero = 0, off, n;
	long len;

	if (!t) {
		/* a command held by dltrace joins its job here, at its first instruction */
		t = bpf_task_storage_get(&tasks, task, 0, 0);
		if (!t || !t->pending_slot)
			return 0;
		t->slot = t->pending_slot & (DL_MAX_JOBS - 1);
		t->job_id = job_ids[t->slot];
		t->pending_slot = 0;
		if (!t->job_id)
			return 0;
	}
	t->sys = 0; /* the execve in flight is not reported */
	dl_forget_mappings(t);
	dl_flush(t);
	/* a thread that execs takes over its process's id */
	t->tid = (__u32)bpf_get_current_pid_tgid();
	s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s)
		return 0;
	e = (void *)s->buf;
	dl_fill_hdr(&e->h, bpf_ktime_get_ns(), DL_EV_EXEC, t->slot);
	e->ppid = ctx->old_pid;
	e->ptid = 0;
	e->exit_code = 0;
	e->uid = (__u32)bpf_get_current_uid_gid();
	e->env_len = 0;
	bpf_get_current_comm(&e->comm, sizeof(e->comm));

	off = ctx->__data_loc_filename & 0xffff;
	len = bpf_probe_read_kernel_str(e->data, DL_PATH_MAX, (void *)ctx + off);
	e->file_len = len > 0 ? len - 1 : 0;

	arg_start = BPF_CORE_READ(task, mm, arg_start);
	arg_end = BPF_CORE_READ(task, mm, arg_end);
	n = arg_end > arg_start ? arg_end - arg_start : 0;
	if (n > DL_ARGS_MAX)
		n = DL_ARGS_MAX;
	off = e->file_len & (DL_PATH_MAX - 1);
	DL_OPAQUE(n);
	n &= DL_ARGS_MAX * 2 - 1;
	if (bpf_probe_read_user(e->data + off, n, (void *)arg_start))
		n = 0;
	e->args_len = n;
	off = (off + n) & 0x1fff; /* path (< 4096) and argv (< 2048): in the scratch area */
	dl_exec_ranks(task, &ranks);
	if (!bpf_probe_read_kernel(e->data + off, sizeof(ranks), &ranks))
		e->env_len = sizeof(ranks);
	dl_output(e, (sizeof(*e) + off + e->env_len) & 0x3fff, t->slot);
	return 0;
}

/*
 * Processes whose last thread has been reported (kernels without the
 * tracepoint's group_dead): the first exit that sees no live thread left
 * claims the process's end, so that only one does.
 */
struct dl_dead_key {
	__u32 tgid;
	__u32 pad;
	__u64 start; /* the leader's start time: a pid reused later is another key */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct dl_dead_key);
	__type(value, __u8);
} dl_dead SEC(".maps");

/*
 * Whether the exiting task is its process's last thread.  Since 6.16 the
 * tracepoint says so, from the same atomic_dec_and_test(&signal->live)
 * that decides it in do_exit.  Before, signal->live is read here, some time
 * after that decrement: two threads exiting together (the main thread and
 * an io_uring SQPOLL thread it killed) can both find it 0, so the first to
 * claim the process in dl_dead wins.
 */
static __always_inline int dl_group_dead(struct trace_event_raw_sched_process_exit *ctx,
					 struct task_struct *task)
{
	struct dl_dead_key key = {};
	__u8 one = 1;

	if (bpf_core_field_exists(ctx->group_dead))
		return ctx->group_dead;
	if (BPF_CORE_READ(task, signal, live.counter) != 0)
		return 0;
	key.tgid = BPF_CORE_READ(task, tgid);
	key.start = BPF_CORE_READ(task, group_leader, start_time);
	return !bpf_map_update_elem(&dl_dead, &key, &one, BPF_NOEXIST);
}

SEC("tracepoint/sched/sched_process_exit")
int dl_exit(struct trace_event_raw_sched_process_exit *ctx)
{
	struct dl_task *t = dl_traced_task();
	struct task_struct *task = bpf_get_current_task_btf();
	struct dl_proc *e;

	if (!t)
		return 0;
	dl_flush(t);
	e = dl_reserve(sizeof(*e), t->slot, DL_EV_EXIT);
	if (!e)
		return 0;
	dl_fill_hdr(&e->h, bpf_ktime_get_ns(), DL_EV_EXIT, t->slot);
	if (dl_group_dead(ctx, task))
		e->h.flags |= DL_F_GROUP_DEAD;
	e->ppid = 0;
	e->ptid = 0;
	e->exit_code = BPF_CORE_READ(task, exit_code);
	e->file_len = 0;
	e->args_len = 0;
	e->uid = (__u32)bpf_get_current_uid_gid();
	e->env_len = 0;
	bpf_get_current_comm(&e->comm, sizeof(e->comm));
	dl_submit(e);
	return 0;
}

/*
 * A task moved between cgroups may have entered a job cgroup: make tasks
 * judged untraced be evaluated again.
 */
SEC("tracepoint/cgroup/cgroup_attach_task")
int dl_cgroup_attach(void *ctx __attribute__((unused)))
{
	if (cgroup_slots)
		__sync_fetch_and_add(&dl_gen, 1);
	return 0;
}

/*
 * Live consumers (the daemon's metrics, --live, dltrace top): a task that
 * goes to sleep sends its gathered data records, so that an idle thread's
 * last calls are seen now, not at its next file syscall.  Only a voluntary
 * sleep: a preempted task may be inside one of these programs, filling its
 * batch; a sleeping one cannot be (they never sleep).  Loaded only for
 * live consumers: it runs at every context switch of the node.
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(live_flush_on_sleep, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	struct dl_task *t;

	if (preempt || !prev_state)
		return 0;
	t = bpf_task_storage_get(&tasks, prev, 0, 0);
	/* counting mode: a wait inside a call (a disk read) ends no run; the call's exit is near */
	if (t && t->nbatch && !(t->sys && dl_counting(t)))
		dl_flush(t);
	return 0;
}

/*
 * End of tracing: send every task's gathered data records.  User space runs
 * this iterator once the programs are idle (no task belongs to a job).
 */
SEC("iter/task")
int dl_flush_batches(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct dl_task *t;

	if (!task)
		return 0;
	t = bpf_task_storage_get(&tasks, task, 0, 0);
	if (t)
		dl_flush(t);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
