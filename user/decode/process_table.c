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
