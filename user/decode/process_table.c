// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "decode/process_table.h"

#include <stdlib.h>
#include <string.h>

#include "event/event.h"

void process_table_init(struct process_table *pt)
{
	id_map_init(&pt->procs);
	id_map_init(&pt->threads);
	id_map_init(&pt->seen);
	pt->live_procs = 0;
	pt->aliased = 0;
}

static void proc_free(struct process *p)
{
	fd_table_put(p->fds);
	free(p->cmdline);
	free(p);
}

void process_table_free(struct process_table *pt)
{
	uint32_t key;
	void *v;

	for (size_t i = 0; id_map_next(&pt->procs, &i, &key, &v);)
		proc_free(v);
	for (size_t i = 0; id_map_next(&pt->threads, &i, &key, &v);)
		free(v);
	id_map_free(&pt->procs);
	id_map_free(&pt->threads);
	id_map_free(&pt->seen);
}

struct process *proc_find(struct process_table *pt, uint32_t pid)
{
	return id_map_get(&pt->procs, pid);
}

struct process *proc_ensure(struct process_table *pt, uint32_t pid)
{
	struct process *p = proc_find(pt, pid);

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		abort();
	p->pid = pid;
	p->out_pid = pid;
	p->live = true;
	for (int k = 0; k < DL_RANK_COUNT; k++)
		p->ranks[k] = -1;
	{
		uintptr_t before = (uintptr_t)id_map_get(&pt->seen, pid);

		id_map_put(&pt->seen, pid, (void *)(before + 1));
		if (before) { /* the pid was reused during the trace */
			p->out_pid = pid + PID_ALIAS_STRIDE *
					       (before < PID_ALIAS_MAX ? before : PID_ALIAS_MAX);
			pt->aliased++;
		}
	}
	p->fds = fd_table_new();
	id_map_put(&pt->procs, pid, p);
	pt->live_procs++;
	return p;
}

struct thread *thread_find(struct process_table *pt, uint32_t tid)
{
	return id_map_get(&pt->threads, tid);
}

struct thread *thread_ensure(struct process_table *pt, uint32_t tid, uint32_t pid)
{
	struct thread *t = thread_find(pt, tid);

	if (t) {
		t->pid = pid;
		return t;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		abort();
	t->tid = tid;
	t->pid = pid;
	t->live = true;
	id_map_put(&pt->threads, tid, t);
	return t;
}

void proc_set_cmdline(struct process *p, const char *argv, size_t len)
{
	char *s;

	while (len && argv[len - 1] == '\0')
		len--;
	s = malloc(len + 1);
	if (!s)
		abort();
	for (size_t i = 0; i < len; i++)
		s[i] = argv[i] ? argv[i] : ' ';
	s[len] = '\0';
	free(p->cmdline);
	p->cmdline = s;
}

void proc_mark_exited(struct process_table *pt, struct process *p, int status)
{
	if (p->live && pt->live_procs)
		pt->live_procs--;
	p->live = false;
	p->exit_code = status;
}

void proc_forget(struct process_table *pt, uint32_t pid)
{
	struct process *p = id_map_remove(&pt->procs, pid);

	if (!p)
		return;
	if (p->live && pt->live_procs)
		pt->live_procs--;
	proc_free(p);
}

void proc_trace_ids(struct process_table *pt, uint32_t *pid, uint32_t *tid)
{
	struct process *p;

	if (!pt->aliased || !(p = proc_find(pt, *pid)) || p->out_pid == p->pid)
		return;
	if (*tid == *pid)
		*tid = p->out_pid;
	*pid = p->out_pid;
}

static const char *const rank_vars[DL_RANK_COUNT] = {
    [DL_RANK_RANK] = "RANK",
    [DL_RANK_LOCAL_RANK] = "LOCAL_RANK",
    [DL_RANK_WORLD_SIZE] = "WORLD_SIZE",
    [DL_RANK_SLURM] = "SLURM_PROCID",
    [DL_RANK_OMPI] = "OMPI_COMM_WORLD_RANK",
    [DL_RANK_PMI] = "PMI_RANK",
};

/* A value as the BPF side reads it: 1 to 9 decimal digits, else -1. */
static int32_t rank_value(const char *v, size_t len)
{
	int32_t n = 0;

	if (!len || len > 9)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -1;
		n = n * 10 + (v[i] - '0');
	}
	return n;
}

void proc_ranks_from_env(struct process *p, const char *env, size_t len)
{
	for (int k = 0; k < DL_RANK_COUNT; k++)
		p->ranks[k] = -1;
	p->ranks_read = true;
	for (size_t i = 0; i < len;) {
		const char *s = env + i;
		size_t n = strnlen(s, len - i);

		for (int k = 0; k < DL_RANK_COUNT; k++) {
			size_t vl = strlen(rank_vars[k]);

			if (n > vl && !memcmp(s, rank_vars[k], vl) && s[vl] == '=')
				p->ranks[k] = rank_value(s + vl + 1, n - vl - 1);
		}
		i += n + 1;
	}
}

int32_t proc_rank(const struct process *p, const char **from)
{
	static const int order[] = {DL_RANK_RANK, DL_RANK_SLURM, DL_RANK_OMPI, DL_RANK_PMI};

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (p->ranks[order[i]] >= 0) {
			if (from)
				*from = rank_vars[order[i]];
			return p->ranks[order[i]];
		}
	return -1;
}
