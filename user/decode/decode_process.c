// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Process records (fork, exec, exit) and the names of processes and threads
 * (a process's with its rank).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/decode_emit.h"
#include "decode/record_decoder_internal.h"

/* A process's display name: its command line, else its comm. */
static const char *proc_display_name(const struct process *p)
{
	return p->cmdline && *p->cmdline ? p->cmdline : p->comm;
}

void decoder__handle_fork(struct record_decoder *d, const struct dl_proc *e)
{
	struct process *parent = decoder__proc_for(
	    d, &(struct dl_hdr){.tgid = e->ppid, .tid = e->ptid, .job = e->h.job});
	bool thread = e->h.flags & DL_F_THREAD;
	struct thread *t;

	if (thread) {
		t = thread_ensure(&d->procs, e->h.tid, e->h.tgid);
		t->live = true;
		memcpy(t->comm, e->comm, sizeof(t->comm));
		t->comm[sizeof(t->comm) - 1] = '\0';
		parent->threads++;
	} else {
		struct process *old = proc_find(&d->procs, e->h.tgid), *c;

		d->last_proc = NULL;
		if (old) { /* pid reused, or its exit was lost */
			decoder__name_process(d, old);
			proc_forget(&d->procs, e->h.tgid);
		}
		c = proc_ensure(&d->procs, e->h.tgid);
		c->ppid = e->ppid;
		c->job = e->h.job;
		memcpy(c->comm, e->comm, sizeof(c->comm));
		c->comm[sizeof(c->comm) - 1] = '\0';
		if (parent->cmdline)
			c->cmdline = strdup(parent->cmdline);
		memcpy(c->ranks, parent->ranks, sizeof(c->ranks));
		c->ranks_read = parent->ranks_read;
		fd_table_put(c->fds);
		c->fds = e->h.flags & DL_F_SHARE_FILES ? fd_table_get_ref(parent->fds)
						       : fd_table_copy(parent->fds);
		t = thread_ensure(&d->procs, e->h.tid, e->h.tgid);
		t->live = true;
		memcpy(t->comm, c->comm, sizeof(t->comm));
		c->threads = 1;
	}
	{
		uint32_t child = thread ? e->h.tid : e->h.tgid;
		struct event ev = {
		    .type = EV_FORK, .ts = rel(d, e->h.ts), .pid = e->ppid, .tid = e->ptid};

		ev.fork.thread = thread;
		ev.fork.child = child;
		ev.fork.parent_pid = e->ppid;
		ev.fork.parent_tid = e->ptid;
		ev.fork.flow = ++d->next_flow;
		emit(d, &ev);
		ev.type = EV_START;
		ev.pid = thread ? e->ppid : child;
		ev.tid = child;
		emit(d, &ev);
	}
}

void decoder__handle_exec(struct record_decoder *d, const struct dl_proc *e, size_t size)
{
	struct process *p = decoder__proc_for(d, &e->h);
	size_t file_len = e->file_len, args_len = e->args_len;

	if (sizeof(*e) + file_len + args_len > size) {
		d->malformed++;
		return;
	}
	if (e->env_len >= sizeof(struct dl_ranks) &&
	    sizeof(*e) + file_len + args_len + sizeof(struct dl_ranks) <= size) {
		struct dl_ranks r;

		memcpy(&r, e->data + file_len + args_len, sizeof(r));
		memcpy(p->ranks, r.v, sizeof(p->ranks));
		p->ranks_read = true;
	}
	/* a non-leader thread that execs takes over the leader's id */
	if (e->ppid != e->h.tid) {
		struct thread *old = thread_find(&d->procs, e->ppid);

		if (old)
			old->live = false;
	}
	memcpy(p->comm, e->comm, sizeof(p->comm));
	p->comm[sizeof(p->comm) - 1] = '\0';
	if (args_len)
		proc_set_cmdline(p, e->data + file_len, args_len);
	p->exec_seen = true;
	decoder__learn_user(d, e->uid);
	if (p->fds->refs > 1) {
		struct fd_table *own = fd_table_copy(p->fds);

		fd_table_put(p->fds);
		p->fds = own;
	}
	fdt_exec(p->fds, e->h.ts);
	{
		struct event ev = {
		    .type = EV_EXEC, .ts = rel(d, e->h.ts), .pid = e->h.tgid, .tid = e->h.tid};

		ev.exec.file = (struct ev_str){e->data, file_len};
		ev.exec.cmdline = ev_cstr(p->cmdline);
		emit(d, &ev);
	}
}

/* A process's or thread's name (none when it is empty). */
void decoder__emit_name(struct record_decoder *d, enum event_type type, uint32_t pid, uint32_t tid,
			const char *name)
{
	struct event e = {.type = type, .pid = pid, .tid = tid};

	e.name.name = ev_cstr(name);
	if (e.name.name.len)
		emit(d, &e);
}

/*
 * A process's track name, with its rank when it has one ("python3
 * train.py (rank 3 of 8)"); its ranks go in the name event's args.
 */
void decoder__name_process(struct record_decoder *d, const struct process *p)
{
	char name[DL_ARGS_MAX + 128], rank[64] = "";
	const char *from = "";
	int32_t r = proc_rank(p, &from);
	struct event e = {.type = EV_PROCESS_NAME, .pid = p->pid, .tid = p->pid};

	if (r >= 0 && p->ranks[DL_RANK_WORLD_SIZE] >= 0)
		snprintf(rank, sizeof(rank), " (rank %d of %d)", r, p->ranks[DL_RANK_WORLD_SIZE]);
	else if (r >= 0)
		snprintf(rank, sizeof(rank), " (rank %d)", r);
	/* the rank last: a reader strips it to compare commands */
	if (p->out_pid == p->pid)
		snprintf(name, sizeof(name), "%s%s", proc_display_name(p), rank);
	else /* a reused pid: its trace pid is an alias, say which real pid it was */
		snprintf(name, sizeof(name), "%s (pid %u reused)%s", proc_display_name(p), p->pid,
			 rank);
	e.name.name = ev_cstr(name);
	if (!e.name.name.len)
		return;
	e.name.ranks = p->ranks_read ? EV_RANKS_READ : 0;
	if (r >= 0) {
		e.name.ranks |= EV_RANK;
		e.name.rank = r;
		e.name.rank_from = ev_cstr(from);
	}
	if (p->ranks[DL_RANK_LOCAL_RANK] >= 0) {
		e.name.ranks |= EV_LOCAL_RANK;
		e.name.local_rank = p->ranks[DL_RANK_LOCAL_RANK];
	}
	if (p->ranks[DL_RANK_WORLD_SIZE] >= 0) {
		e.name.ranks |= EV_WORLD_SIZE;
		e.name.world_size = p->ranks[DL_RANK_WORLD_SIZE];
	}
	emit(d, &e);
}

void decoder__handle_exit(struct record_decoder *d, const struct dl_proc *e)
{
	bool group_dead = e->h.flags & DL_F_GROUP_DEAD;
	struct process *p;
	struct thread *t;
	char comm[DL_COMM_LEN];

	/*
	 * A thread's exit after its process's end: pthread_join returns when
	 * the thread released its memory, before its exit tracepoint, so the
	 * process may exit first.  It is no new process of a reused pid.
	 */
	if (!group_dead && !proc_find(&d->procs, e->h.tgid) &&
	    id_map_get(&d->procs.seen, e->h.tgid)) {
		d->late_exits++;
		return;
	}
	p = decoder__proc_for(d, &e->h);
	t = thread_find(&d->procs, e->h.tid);

	memcpy(comm, e->comm, sizeof(comm));
	comm[sizeof(comm) - 1] = '\0';
	d->last_proc = NULL;
	{
		struct event ev = {
		    .type = EV_EXIT, .ts = rel(d, e->h.ts), .pid = e->h.tgid, .tid = e->h.tid};

		ev.exit.group_dead = group_dead;
		ev.exit.signaled = (e->exit_code & 0x7f) != 0;
		ev.exit.code = ev.exit.signaled ? e->exit_code & 0x7f : (e->exit_code >> 8) & 0xff;
		emit(d, &ev);
	}
	decoder__emit_name(d, EV_THREAD_NAME, e->h.tgid, e->h.tid, comm);
	if (t) {
		t->live = false;
		free(id_map_remove(&d->procs.threads, e->h.tid));
	}
	span_threads_exit(&d->span_threads, e->h.tid);
	if (p->threads)
		p->threads--;
	if (group_dead) {
		decoder__aio_forget(d, e->h.tgid, 0, e->h.ts);
		span_handles_forget_process(&d->span_names, e->h.tgid);
		decoder__name_process(d, p);
		proc_mark_exited(&d->procs, p, e->exit_code);
		proc_forget(&d->procs, p->pid);
		if (d->py)
			py_frames_forget(d->py, e->h.tgid);
	}
}
