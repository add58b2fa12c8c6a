// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The process and thread of a record, and a process met for the first time:
 * its names, ranks, user and descriptors from /proc (live traces only).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/record_decoder.h"
#include "decode/record_decoder_internal.h"
#include "lib/proc_scan.h"

struct process *decoder__proc_for(struct record_decoder *d, const struct dl_hdr *h)
{
	struct process *p;

	/* most records come from the thread of the one before */
	if (d->last_proc && d->last_tid == h->tid && d->last_proc->pid == h->tgid)
		return d->last_proc;
	p = proc_find(&d->procs, h->tgid);

	if (!p) {
		/* first sight of a process (e.g. traced by cgroup): name it from /proc */
		if (!d->offline)
			decoder__seed_process(d, h->tgid, false);
		p = proc_ensure(&d->procs, h->tgid);
	}
	p->job = h->job;
	if (!thread_find(&d->procs, h->tid)) {
		struct thread *t = thread_ensure(&d->procs, h->tid, h->tgid);
		char file[64];

		snprintf(file, sizeof(file), "task/%u/comm", h->tid);
		if (!d->offline && proc_read(h->tgid, file, t->comm, sizeof(t->comm)) > 0)
			t->comm[strcspn(t->comm, "\n")] = '\0';
		p->threads++;
	}
	d->last_proc = p;
	d->last_tid = h->tid;
	return p;
}

/* The job's user: the first process seen that does not run as root. */
void decoder__learn_user(struct record_decoder *d, uint32_t uid)
{
	if (d->user_uid <= 0 && uid != 0)
		d->user_uid = uid;
}

/* The same, from /proc (processes found running when tracing starts). */
static void learn_user_from_proc(struct record_decoder *d, uint32_t pid)
{
	char status[2048], *p;
	unsigned uid;

	if (d->user_uid > 0 || proc_read(pid, "status", status, sizeof(status)) <= 0)
		return;
	p = strstr(status, "\nUid:");
	if (p && sscanf(p + 5, "%u", &uid) == 1)
		decoder__learn_user(d, uid);
}

#define PROC_ENV_MAX (256 * 1024) /* bytes of /proc/PID/environ looked at */

/*
 * Learn what fd refers to from /proc: only when tracing starts, for the
 * descriptors a process had before (a call is named by the kernel's
 * cookie, never from /proc, which says what fd means when it is read).
 */
static const struct fd_entry *fd_from_proc(struct process *p, int fd)
{
	char buf[DL_PATH_MAX + 1];
	struct fd_entry e = {0};
	ssize_t n;

	if (fd < 0 || !p->live)
		return NULL;
	n = proc_fd_path(p->pid, fd, buf, sizeof(buf));
	if (n <= 0)
		return NULL;
	e.path = path_intern(buf, n);
	fdt_set(p->fds, fd, &e);
	path_put(e.path);
	return fdt_lookup(p->fds, fd);
}

static void seed_fd(pid_t fd, void *ctx)
{
	fd_from_proc(ctx, fd);
}

struct seed_ctx {
	struct record_decoder *d;
	struct process *p;
};

static void seed_thread(pid_t tid, void *ctx)
{
	struct seed_ctx *s = ctx;
	struct thread *t = thread_ensure(&s->d->procs, tid, s->p->pid);
	char file[64];

	snprintf(file, sizeof(file), "task/%d/comm", (int)tid);
	if (proc_read(s->p->pid, file, t->comm, sizeof(t->comm)) > 0)
		t->comm[strcspn(t->comm, "\n")] = '\0';
	s->p->threads++;
}

/* A process first seen: its names from /proc, and with fds its descriptors (at attach only). */
void decoder__seed_process(struct record_decoder *d, uint32_t pid, bool fds)
{
	struct process *p;
	char buf[DL_ARGS_MAX + 1];
	ssize_t n;

	if (proc_find(&d->procs, pid))
		return;
	p = proc_ensure(&d->procs, pid);
	p->ppid = proc_ppid(pid);
	learn_user_from_proc(d, pid);
	n = proc_read(pid, "cmdline", buf, sizeof(buf));
	if (n > 0)
		proc_set_cmdline(p, buf, n);
	if (proc_read(pid, "comm", p->comm, sizeof(p->comm)) > 0)
		p->comm[strcspn(p->comm, "\n")] = '\0';
	{
		/* a process there before the trace: its ranks from the environment it began with */
		char *env = malloc(PROC_ENV_MAX);

		n = env ? proc_read(pid, "environ", env, PROC_ENV_MAX) : -1;
		if (n >= 0)
			proc_ranks_from_env(p, env, (size_t)n);
		free(env);
	}
	if (fds)
		proc_for_each_fd(pid, seed_fd, p);
	proc_for_each_thread(pid, seed_thread, &(struct seed_ctx){d, p});
}

void decoder_seed_process(struct record_decoder *d, uint32_t pid)
{
	decoder__seed_process(d, pid, true);
}
