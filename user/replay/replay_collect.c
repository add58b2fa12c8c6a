// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The planner's first half: the trace's events, in whatever order they
 * come, kept as compact records of what the replay needs (the calls on the
 * application's files, pipe reads and writes, page faults, forks, execs,
 * exits, marker regions, names), with counts of what it leaves out.
 * replay_walk.c sorts and walks them.
 */
#define _GNU_SOURCE
#include "replay/replay_plan_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/path_scope.h"

void *rp_grow(void *p, size_t *cap, size_t need, size_t size, bool *oom)
{
	size_t n = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return p;
	while (n < need)
		n *= 2;
	q = realloc(p, n * size);
	if (!q) {
		*oom = true;
		return NULL;
	}
	*cap = n;
	return q;
}

uint32_t rp_str_put(struct rp_plan_state *st, struct ev_str s)
{
	uint32_t id;

	if (!s.len)
		return RP_NONE;
	id = string_index_put(&st->plan->strings, s.s, s.len);
	if (id == STRING_NONE)
		st->oom = true;
	return id == STRING_NONE ? RP_NONE : id;
}

/* ---- collecting ---- */

static struct rec *rec_new(struct rp_plan_state *st, const struct event *e, uint8_t type)
{
	struct rec *r;

	if (st->nrecs == st->cap) {
		size_t cap = st->cap;
		struct rec *q = rp_grow(st->recs, &cap, st->nrecs + 1, sizeof(*q), &st->oom);

		if (!q)
			return NULL;
		st->recs = q;
		st->cap = cap;
	}
	r = &st->recs[st->nrecs];
	memset(r, 0, sizeof(*r));
	r->ts = e->ts < TIME_LIMIT ? e->ts : TIME_LIMIT; /* sums of times never wrap */
	r->pid = e->pid;
	r->tid = e->tid;
	r->type = type;
	r->seq = (uint32_t)st->nrecs;
	r->path = r->path2 = r->text = r->times = RP_NONE;
	r->number = -1;
	st->nrecs++;
	return r;
}

/* Every event of a thread: its first and last time (a thread's life when no start or exit). */
static void seen(struct rp_plan_state *st, const struct event *e, uint64_t end)
{
	uint32_t i;

	if (e->pid >= EV_DEVICE_PID_BASE || !e->tid)
		return;
	i = u64_index_get(&st->tid_index, e->tid);
	if (i == U64_NONE) {
		if (!GROW(st, st->tids, st->cap_tids, st->ntids + 1))
			return;
		i = st->ntids++;
		st->tids[i] = (struct first_last){e->ts, end};
		if (u64_index_put(&st->tid_index, e->tid, i)) {
			st->oom = true;
			return;
		}
	}
	if (e->ts < st->tids[i].first)
		st->tids[i].first = e->ts;
	if (end > st->tids[i].last)
		st->tids[i].last = end;
}

static bool is_app(const struct ev_path *p)
{
	enum env_kind k;

	return p->name.len && path_scope(p->name.s, p->name.len, &k) == SCOPE_APP;
}

static bool is_pipe(const struct ev_path *p)
{
	return p->name.len > 6 && !memcmp(p->name.s, "pipe:[", 6);
}

/* Kinds the replay issues again. */
static bool kind_replayed(unsigned k)
{
	switch (k) {
	case DL_SYS_CLOSE_RANGE:
	case DL_SYS_SYNC:
	case DL_SYS_SPLICE:
	case DL_SYS_VMSPLICE:
	case DL_SYS_TEE:
	case DL_SYS_IO_SETUP:
	case DL_SYS_IO_SUBMIT:
	case DL_SYS_IO_GETEVENTS:
	case DL_SYS_IO_PGETEVENTS:
	case DL_SYS_IO_CANCEL:
	case DL_SYS_IO_DESTROY:
	case DL_SYS_IO_URING_SETUP:
	case DL_SYS_IO_URING_ENTER:
	case DL_SYS_IO_URING_REGISTER:
	case DL_SYS_SETXATTRAT:
	case DL_SYS_GETXATTRAT:
	case DL_SYS_LISTXATTRAT:
	case DL_SYS_REMOVEXATTRAT:
		return false;
	default:
		return k < DL_SYS_COUNT;
	}
}

static void on_syscall(struct event_consumer *c, const struct event *e)
{
	struct rp_plan_state *st = container_of(c, struct rp_plan_state, consumer);
	struct replay_plan *p = st->plan;
	const struct ev_syscall *s = &e->sys;
	unsigned k = s->sys;
	struct rec *r;
	uint8_t type = REC_SYS;

	seen(st, e, e->ts + s->dur);
	if (k >= DL_SYS_COUNT)
		return;
	if (is_pipe(&s->path) && (read_pipe_kind(k) || write_pipe_kind(k))) {
		if (s->ret <= 0)
			return;
		type = REC_PIPE;
	} else if (!is_app(&s->path)) {
		if ((s->flags & EVS_PATH_UNKNOWN) && !s->path.name.len) {
			p->skipped[RP_SKIP_PATH_UNKNOWN][k]++;
			return;
		}
		p->other_calls++;
		return;
	} else {
		p->app_calls++;
		if (!kind_replayed(k)) {
			p->skipped[RP_SKIP_KIND][k]++;
			return;
		}
		if ((k == DL_SYS_RENAME || k == DL_SYS_RENAMEAT || k == DL_SYS_RENAMEAT2 ||
		     k == DL_SYS_LINK || k == DL_SYS_LINKAT || k == DL_SYS_SENDFILE ||
		     k == DL_SYS_COPY_FILE_RANGE) &&
		    !is_app(&s->path2)) {
			p->skipped[RP_SKIP_MIXED][k]++;
			return;
		}
	}
	r = rec_new(st, e, type);
	if (!r)
		return;
	r->sys = k;
	r->flags = s->flags;
	r->dur = s->dur < TIME_LIMIT ? s->dur : TIME_LIMIT;
	r->ret = s->ret;
	r->fd = s->fd;
	r->arg_lo = s->arg_lo;
	r->arg_hi = s->arg_hi;
	r->at_flags = s->at_flags;
	r->offset = s->offset;
	r->size = s->size;
	r->addr = s->addr;
	r->file_size = (s->flags & EVS_IDENTITY) ? s->file_size : 0;
	r->path = rp_str_put(st, s->path.name);
	r->path2 = rp_str_put(st, s->path2.name);
	r->text = rp_str_put(st, s->text);
	if (k == DL_SYS_UTIME || k == DL_SYS_UTIMES || k == DL_SYS_FUTIMESAT ||
	    k == DL_SYS_UTIMENSAT) {
		size_t cap = p->ntimes;
		struct ev_times *t = NULL;

		/* capacity doubles at powers of two (ntimes is the size) */
		if (!(p->ntimes & (p->ntimes - 1))) {
			cap = p->ntimes ? p->ntimes * 2 : 1;
			t = realloc(p->times, cap * sizeof(*t));
			if (!t) {
				st->oom = true;
				return;
			}
			p->times = t;
		}
		p->times[p->ntimes] = s->times;
		r->times = p->ntimes++;
	}
}

static void on_fault(struct event_consumer *c, const struct event *e)
{
	struct rp_plan_state *st = container_of(c, struct rp_plan_state, consumer);
	const struct ev_fault *f = &e->fault;
	struct rec *r;

	seen(st, e, e->ts);
	if (!is_app(&f->path)) {
		st->plan->other_calls++;
		return;
	}
	if (f->exec) /* code, not data */
		return;
	st->plan->app_calls++;
	r = rec_new(st, e, REC_FAULT);
	if (!r)
		return;
	r->offset = f->offset;
	r->size = f->size ? f->size : 4096;
	r->addr = f->address;
	r->sub = (f->write && !f->cow) ? RPO_WRITE : 0;
	r->path = rp_str_put(st, f->path.name);
}

static void on_fork(struct event_consumer *c, const struct event *e)
{
	struct rp_plan_state *st = container_of(c, struct rp_plan_state, consumer);
	struct rec *r = rec_new(st, e, e->type == EV_FORK ? REC_FORK : REC_START);

	seen(st, e, e->ts);
	if (!r)
		return;
	r->sub = e->fork.thread;
	r->arg_lo = e->fork.child;
	r->arg_hi = e->fork.parent_pid;
	r->at_flags = e->fork.parent_tid;
}

static void on_exec(struct event_consumer *c, const struct event *e)
{
	struct rp_plan_state *st = container_of(c, struct rp_plan_state, consumer);

	seen(st, e, e->ts);
	rec_new(st, e, REC_EXEC);
	if (e->exec.cmdline.len) {
		uint32_t id = rp_str_put(st, e->exec.cmdline);

		if (id != RP_NONE && u64_index_get(&st->pid_names, e->pid) == U64_NONE &&
		    u64_index_put(&st->pid_names, e->pid, id))
			st->oom = true;
	}
}

static void on_thread_exit(struct event_consumer *c, const struct event *e)
{
	struct rp_plan_state *st = container_of(c, struct rp_plan_state, consumer);
	struct rec *r;

	seen(st, e, e->ts);
	r = rec_new(st, e, REC_EXIT);
	if (r)
		r->sub = e->exit.group_dead;
}

static void on_name(struct event_consumer *c, const struct event *e)
{
	struct rp_plan_state *st = container_of(c, struct rp_plan_state, consumer);
	struct u64_index *names = e->type == EV_PROCESS_NAME ? &st->pid_names : &st->tid_names;
	uint64_t key = e->type == EV_PROCESS_NAME ? e->pid : e->tid;
	uint32_t id = rp_str_put(st, e->name.name);

	/* no seen(): a name's time is not the thread's */
	if (id != RP_NONE && u64_index_get(names, key) == U64_NONE && u64_index_put(names, key, id))
		st->oom = true;
}

static void on_span(struct event_consumer *c, const struct event *e)
{
	struct rp_plan_state *st = container_of(c, struct rp_plan_state, consumer);
	const struct ev_span *sp = &e->span;
	int kind = -1;
	int64_t number = -1;
	struct rec *r;

	seen(st, e, e->ts + (sp->phase == EV_PH_COMPLETE ? sp->dur : 0));
	if (sp->phase != EV_PH_COMPLETE || !ev_str_is(&sp->cat, "marker"))
		return;
	if (ev_str_is(&sp->name, "epoch"))
		kind = RP_MARK_EPOCH;
	else if (ev_str_is(&sp->name, "step"))
		kind = RP_MARK_STEP;
	else if (ev_str_is(&sp->name, "fetch"))
		kind = RP_MARK_FETCH;
	if (kind < 0 || sp->dur >= TIME_LIMIT || e->ts >= TIME_LIMIT)
		return;
	for (uint32_t i = 0; i < sp->nargs; i++) {
		const struct ev_arg *a = &sp->args[i];

		if (a->type == EV_ARG_U64 && a->u <= INT64_MAX)
			number = (int64_t)a->u;
		else if (a->type == EV_ARG_I64)
			number = a->i;
		else
			continue;
		break;
	}
	r = rec_new(st, e, REC_MARK_BEGIN);
	if (!r)
		return;
	r->sub = kind;
	r->number = number;
	r->dur = sp->dur;
	r = rec_new(st, e, REC_MARK_END);
	if (!r)
		return;
	r->ts = e->ts + sp->dur;
	r->sub = kind;
	r->number = number;
	r->dur = sp->dur;
}

static void on_async(struct event_consumer *c, const struct event *e)
{
	struct rp_plan_state *st = container_of(c, struct rp_plan_state, consumer);
	const struct ev_path *path = e->type == EV_URING ? &e->uring.path : &e->aio.path;
	char phase = e->type == EV_URING ? e->uring.phase : e->aio.phase;

	seen(st, e, e->ts);
	if (phase == EV_PH_BEGIN && is_app(path)) {
		st->plan->app_calls++;
		st->plan->skipped[RP_SKIP_KIND]
				 [e->type == EV_URING ? DL_SYS_IO_URING_ENTER : DL_SYS_IO_SUBMIT]++;
	}
}

void rp_copy_str(char *out, size_t size, struct ev_str s)
{
	size_t n = s.len < size - 1 ? s.len : size - 1;

	memcpy(out, s.s, n);
	out[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)out[i] < 0x20 || (unsigned char)out[i] == 0x7f)
			out[i] = '?';
}

static void on_begin(struct event_consumer *c, const struct event *e)
{
	struct rp_plan_state *st = container_of(c, struct rp_plan_state, consumer);
	struct replay_plan *p = st->plan;
	const struct ev_trace_begin *b = &e->begin;

	if (p->begun)
		return;
	p->begun = true;
	rp_copy_str(p->hostname, sizeof(p->hostname), b->hostname);
	if (ev_str_is(&b->clock, "CLOCK_REALTIME") ||
	    (b->target.len >= 9 && !memcmp(b->target.s, "merge of ", 9))) {
		bool hosts = memchr(b->hostname.s, ',', b->hostname.len) != NULL;

		if (hosts) {
			p->refused = true;
			snprintf(p->refusal, sizeof(p->refusal),
				 "a merged trace of several hosts (%s): its processes ran on "
				 "different machines; replay each host's own trace, the inputs "
				 "of dltrace merge",
				 p->hostname);
		}
	}
}

static void on_end(struct event_consumer *c, const struct event *e)
{
	struct rp_plan_state *st = container_of(c, struct rp_plan_state, consumer);
	struct replay_plan *p = st->plan;

	p->ended = true;
	p->lost_events = e->end.lost_events;
	p->paths_unknown = e->end.paths_unknown;
	if (e->end.lost)
		p->lost = *e->end.lost;
	else
		p->lost.events = e->end.lost_events;
}

struct replay_plan *replay_plan__new(void)
{
	struct replay_plan *p = calloc(1, sizeof(*p));
	struct rp_plan_state *st = calloc(1, sizeof(*st));

	if (!p || !st) {
		free(p);
		free(st);
		return NULL;
	}
	p->st = st;
	st->plan = p;
	string_index_init(&p->strings);
	u64_index_init(&st->tid_index);
	u64_index_init(&st->pid_names);
	u64_index_init(&st->tid_names);
	u64_index_init(&st->file_index);
	u64_index_init(&st->pid_index);
	u64_index_init(&st->thread_index);
	u64_index_init(&st->pipe_index);
	event_consumer_init(&st->consumer);
	st->consumer.trace_begin = on_begin;
	st->consumer.trace_end = on_end;
	st->consumer.syscall = on_syscall;
	st->consumer.fault = on_fault;
	st->consumer.fork = on_fork;
	st->consumer.start = on_fork;
	st->consumer.exec = on_exec;
	st->consumer.exit = on_thread_exit;
	st->consumer.process_name = on_name;
	st->consumer.thread_name = on_name;
	st->consumer.span = on_span;
	st->consumer.uring = on_async;
	st->consumer.aio = on_async;
	return p;
}

struct event_consumer *replay_plan__consumer(struct replay_plan *p)
{
	return &p->st->consumer;
}

void rp_state_free(struct rp_plan_state *st)
{
	if (!st)
		return;
	free(st->recs);
	free(st->tids);
	u64_index_free(&st->tid_index);
	u64_index_free(&st->pid_names);
	u64_index_free(&st->tid_names);
	u64_index_free(&st->file_index);
	u64_index_free(&st->pid_index);
	u64_index_free(&st->thread_index);
	u64_index_free(&st->pipe_index);
	for (uint32_t i = 0; i < st->nprocs; i++) {
		free(st->procs[i].fds);
		free(st->procs[i].maps);
		free(st->procs[i].threads);
	}
	free(st->procs);
	for (uint32_t i = 0; i < st->nthreads; i++)
		free(st->threads[i].ops);
	free(st->threads);
	for (uint32_t i = 0; i < st->npipes; i++) {
		free(st->pipes[i].w);
		free(st->pipes[i].r);
	}
	free(st->pipes);
	free(st->pdeps);
	free(st);
}

void replay_plan__free(struct replay_plan *p)
{
	if (!p)
		return;
	rp_state_free(p->st);
	string_index_free(&p->strings);
	free(p->files);
	free(p->ops);
	free(p->deps);
	free(p->threads);
	free(p->procs);
	free(p->marks);
	free(p->times);
	free(p->maps);
	free(p);
}
