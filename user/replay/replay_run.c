// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The replay's processes and threads (see replay_run.h for the picture).
 *
 * Memory shared by every replay process, made before the first fork:
 *
 *   +----------------------------------------------------------------+
 *   | struct shared: futex counter, stop, live/waiting threads,      |
 *   |                ops done, t0, counts of what went wrong         |
 *   +----------------------------------------------------------------+
 *   | struct shared_result[plan->nops]: start, ret, end (0: not yet) |
 *   +----------------------------------------------------------------+
 *
 * An op's end is stored last (release); an op that waits for it reads it
 * (acquire) and then also sees what it did (a descriptor it opened).
 * Waiting: on the futex counter, bumped when an op that others wait for
 * ends.  A wait that can never end (every live thread waits: a damaged
 * trace's deps) is given up and counted.
 */
#define _GNU_SOURCE
#include "replay/replay_run.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "io/output_file.h"
#include "lib/clock_ns.h"
#include "replay/replay_issue.h"

#define SPIN_NS	   50000ull    /* the end of a think time is spun, not slept (timer slack) */
#define POLL_NS	   50000000ull /* waits look at the stop flag this often */
#define MAX_GROUPS 1024

struct shared_result {
	uint64_t start;
	int64_t ret;
	_Atomic uint64_t end;
};

struct shared {
	_Atomic uint32_t futex;
	_Atomic uint32_t stop;
	_Atomic uint32_t live;	  /* replay threads that run (or will, for the root) */
	_Atomic uint32_t waiting; /* of them, waiting for another's op */
	_Atomic uint64_t done;
	_Atomic uint64_t t0;
	_Atomic uint32_t released, spawn_failed, faults_bus;
	struct shared_result res[];
};

/* What every replay process knows (set before the first fork, copied by each). */
static const struct replay_plan *g_plan;
static const struct replay_run_options *g_opt;
static struct shared *g_sh;
static int *g_fds;	 /* this process's descriptors (recorded -> real) */
static uint8_t **g_maps; /* this process's mappings */
static const void *g_zero;
static size_t g_zero_size;
static int g_fd_base;
static uint32_t *g_orphans; /* per process: its threads no thread starts, then RP_NONE */
static uint32_t *g_orphan_at;
static uint32_t g_proc;
static uint64_t g_proc_start;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t *g_threads; /* this process's threads, to join */
static uint32_t g_nthreads, g_cap_threads;
/* the invoking user, for the replay root */
static struct file_owner g_user;
static gid_t g_groups[MAX_GROUPS];
static int g_ngroups;

static uint64_t now(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static long futex(_Atomic uint32_t *addr, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, addr, op, val, ts, NULL, 0);
}

static void wake_all(void)
{
	atomic_fetch_add(&g_sh->futex, 1);
	futex(&g_sh->futex, FUTEX_WAKE, INT_MAX, NULL);
}

static bool stopping(void)
{
	return atomic_load_explicit(&g_sh->stop, memory_order_relaxed) != 0;
}

/*
 * Until t (CLOCK_MONOTONIC), or the stop: slept, and the last SPIN_NS spun.
 * Returns how late it woke (a loaded machine's wake-up latency), 0 when t
 * had passed already.
 */
static uint64_t sleep_until(uint64_t t)
{
	bool slept = false;

	for (;;) {
		uint64_t n = now();
		struct timespec ts;

		if (n >= t || stopping())
			return slept && n > t ? n - t : 0;
		slept = true;
		if (t - n > SPIN_NS) {
			uint64_t until = t - SPIN_NS;

			if (until - n > POLL_NS)
				until = n + POLL_NS;
			ts.tv_sec = (time_t)(until / 1000000000ull);
			ts.tv_nsec = (long)(until % 1000000000ull);
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
			continue;
		}
		while (now() < t)
			__asm__ __volatile__("" ::: "memory");
		return 0;
	}
}

/* The end of op i, once it has ended (now, when the wait is given up or stopped). */
static uint64_t wait_done(uint32_t i)
{
	struct shared_result *r = &g_sh->res[i];
	uint64_t e = atomic_load_explicit(&r->end, memory_order_acquire), last_done = UINT64_MAX;
	unsigned stuck = 0;

	if (e)
		return e;
	atomic_fetch_add(&g_sh->waiting, 1);
	for (;;) {
		uint32_t f = atomic_load(&g_sh->futex);
		struct timespec ts = {0, POLL_NS};
		uint64_t d;

		e = atomic_load_explicit(&r->end, memory_order_acquire);
		if (e || stopping())
			break;
		/* every live thread waits, and nothing ended since the last look: none can end */
		d = atomic_load(&g_sh->done);
		if (atomic_load(&g_sh->waiting) >= atomic_load(&g_sh->live) && d == last_done) {
			if (++stuck >= 3) {
				atomic_fetch_add(&g_sh->released, 1);
				break;
			}
		} else {
			stuck = 0;
		}
		last_done = d;
		futex(&g_sh->futex, FUTEX_WAIT, f, &ts);
	}
	atomic_fetch_sub(&g_sh->waiting, 1);
	return e ? e : now();
}

static void finish_op(uint32_t i, uint64_t start, uint64_t end, int64_t ret)
{
	struct shared_result *r = &g_sh->res[i];

	r->start = start;
	r->ret = ret;
	atomic_store_explicit(&r->end, end ? end : 1, memory_order_release);
	atomic_fetch_add(&g_sh->done, 1);
	if ((g_plan->ops[i].flags & RPO_WATCHED) && atomic_load(&g_sh->waiting))
		wake_all();
}

static void thread_ends(void)
{
	atomic_fetch_sub(&g_sh->live, 1);
	if (atomic_load(&g_sh->waiting))
		wake_all();
}

static void *thread_main(void *arg);
static void process_main(uint32_t proc, uint32_t thread) __attribute__((noreturn));

struct thread_arg {
	uint32_t thread;
	uint64_t start; /* when it starts (an orphan sleeps until then) */
};

/* Start thread t of this process (at: when its ops begin; 0 now).  0 or an errno. */
static int start_thread(uint32_t t, uint64_t at)
{
	struct thread_arg *a = malloc(sizeof(*a));
	pthread_t id;
	int e = ENOMEM;

	if (!a)
		return e;
	*a = (struct thread_arg){t, at};
	pthread_mutex_lock(&g_lock);
	if (g_nthreads == g_cap_threads) {
		uint32_t n = g_cap_threads ? 2 * g_cap_threads : 16;
		pthread_t *q = realloc(g_threads, n * sizeof(*q));

		if (!q)
			goto out;
		g_threads = q;
		g_cap_threads = n;
	}
	e = pthread_create(&id, NULL, thread_main, a);
	if (!e)
		g_threads[g_nthreads++] = id;
out:
	pthread_mutex_unlock(&g_lock);
	if (e)
		free(a);
	return e;
}

/* SPAWN: fork the process whose first thread t is, or start thread t of this process. */
static int64_t spawn(uint32_t t)
{
	const struct rp_thread *th = &g_plan->threads[t];
	int e;

	atomic_fetch_add(&g_sh->live, 1);
	if (th->proc != g_proc) {
		pid_t pid;

		if (g_plan->procs[th->proc].main_thread != t) {
			e = EINVAL;
			goto fail;
		}
		pid = fork();
		if (pid == 0)
			process_main(th->proc, t);
		if (pid < 0) {
			e = errno;
			goto fail;
		}
		return pid;
	}
	e = start_thread(t, 0);
	if (!e)
		return 0;
fail:
	atomic_fetch_add(&g_sh->spawn_failed, 1);
	thread_ends();
	return -e;
}

/* A traced thread's ops, from its start at start (replay time). */
static void run_thread(uint32_t ti, uint64_t start)
{
	const struct replay_plan *p = g_plan;
	const struct rp_thread *t = &p->threads[ti];
	bool think = !g_opt->no_think;
	struct rp_issue_ctx c = {g_fds, p->max_fd, g_maps,	g_fd_base, NULL,
				 0,	g_zero,	   g_zero_size, 0};
	uint64_t prev = start, late = 0;

	if (t->buf_size) {
		c.buf = mmap(NULL, t->buf_size, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (c.buf == MAP_FAILED)
			c.buf = NULL;
		else
			c.buf_size = t->buf_size;
	}
	for (uint32_t k = t->op; k < t->op + t->nops && !stopping(); k++) {
		const struct rp_op *o = &p->ops[k];
		uint64_t anchor = prev, s, e, until;
		int64_t ret = 0;

		for (uint32_t d = o->dep; d < o->dep + o->ndeps; d++) {
			const struct rp_op *dop = &p->ops[p->deps[d]];

			if (dop->ts + dop->dur <= o->ts) {
				uint64_t de = wait_done(p->deps[d]);

				if (de > anchor)
					anchor = de;
			}
		}
		/* a wake-up that came late is taken from the next think times */
		if (think) {
			uint64_t gap = o->gap > late ? o->gap - late : 0;

			late -= o->gap - gap;
			late += sleep_until(anchor + gap);
		} else {
			sleep_until(anchor);
		}
		if (stopping())
			break;
		s = now();
		switch (o->type) {
		case RP_OP_SYS:
		case RP_OP_FAULT:
			ret = rp_issue(p, o, &c);
			break;
		case RP_OP_SPAWN:
			ret = (o->flags & RPO_NOOP) || o->target == RP_NONE ? 0 : spawn(o->target);
			break;
		case RP_OP_PIPE_READ:
			until = s + (think ? o->dur : 0);
			if (o->flags & RPO_BLOCKED) {
				uint64_t data = s;

				for (uint32_t d = o->dep; d < o->dep + o->ndeps; d++) {
					const struct rp_op *dop = &p->ops[p->deps[d]];

					if (dop->ts + dop->dur > o->ts) {
						uint64_t de = wait_done(p->deps[d]);

						if (de > data)
							data = de;
					}
				}
				until = data + (think ? o->tail : 0);
			}
			sleep_until(until);
			ret = o->ret;
			break;
		case RP_OP_PIPE_WRITE:
			sleep_until(s + (think ? o->dur : 0));
			ret = o->ret;
			break;
		default:
			break;
		}
		e = now();
		finish_op(k, s, e, ret);
		prev = e;
	}
	if (c.faults_bus)
		atomic_fetch_add(&g_sh->faults_bus, c.faults_bus);
	if (c.buf)
		munmap(c.buf, c.buf_size);
}

static void *thread_main(void *arg)
{
	struct thread_arg a = *(struct thread_arg *)arg;

	free(arg);
	if (a.start)
		sleep_until(a.start);
	run_thread(a.thread, a.start ? a.start : now());
	thread_ends();
	return NULL;
}

static void wait_children(void)
{
	for (;;) {
		pid_t r = waitpid(-1, NULL, 0);

		if (r < 0 && errno != EINTR)
			return;
	}
}

/* A replay process: its orphan threads, its first thread's ops, then it waits for the rest. */
static void process_main(uint32_t proc, uint32_t thread)
{
	const struct rp_proc *pr = &g_plan->procs[proc];

	g_proc = proc;
	g_proc_start = now();
	/* the parent's other threads are not here: neither their list nor a lock they held */
	g_threads = NULL;
	g_nthreads = g_cap_threads = 0;
	pthread_mutex_init(&g_lock, NULL);
	for (uint32_t i = g_orphan_at[proc]; g_orphans[i] != RP_NONE; i++) {
		const struct rp_thread *t = &g_plan->threads[g_orphans[i]];
		uint64_t at = g_proc_start;

		if (!g_opt->no_think && t->start_ts > pr->start_ts)
			at += t->start_ts - pr->start_ts;
		atomic_fetch_add(&g_sh->live, 1);
		if (start_thread(g_orphans[i], at ? at : 1)) {
			atomic_fetch_add(&g_sh->spawn_failed, 1);
			thread_ends();
		}
	}
	run_thread(thread, g_proc_start);
	thread_ends();
	/* its threads (more may start while it joins), then its children */
	for (uint32_t i = 0;; i++) {
		pthread_t id;

		pthread_mutex_lock(&g_lock);
		if (i >= g_nthreads) {
			pthread_mutex_unlock(&g_lock);
			break;
		}
		id = g_threads[i];
		pthread_mutex_unlock(&g_lock);
		pthread_join(id, NULL);
	}
	wait_children();
	_exit(0);
}

static void ignore_signals(void)
{
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
}

static int root_order_cmp(const void *a, const void *b)
{
	const struct rp_proc *x = &g_plan->procs[*(const uint32_t *)a];
	const struct rp_proc *y = &g_plan->procs[*(const uint32_t *)b];

	return x->start_ts < y->start_ts ? -1 : x->start_ts > y->start_ts;
}

/* The replay root: waits for the go, then starts the job's first processes at their times. */
static void root_main(int go_fd, uint32_t *roots, uint32_t nroots) __attribute__((noreturn));
static void root_main(int go_fd, uint32_t *roots, uint32_t nroots)
{
	char go = 0;
	uint64_t t0;

	setpgid(0, 0); /* Ctrl-C is the supervisor's: it stops the replay cleanly */
	ignore_signals();
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	prctl(PR_SET_TIMERSLACK, 1UL);
	rp_issue_init_process();
	if (g_opt->drop_privileges &&
	    (setgroups(g_ngroups, g_groups) || setgid(g_user.gid) || setuid(g_user.uid))) {
		fprintf(stderr, "dltrace replay: cannot become user %u: %s\n", (unsigned)g_user.uid,
			strerror(errno));
		_exit(126);
	}
	while (read(go_fd, &go, 1) < 0 && errno == EINTR)
		;
	if (go != 'g')
		_exit(0);
	close(go_fd);
	t0 = now();
	atomic_store(&g_sh->t0, t0);
	g_proc = RP_NONE;
	for (uint32_t i = 0; i < nroots && !stopping(); i++) {
		const struct rp_proc *pr = &g_plan->procs[roots[i]];
		pid_t pid;

		if (!g_opt->no_think && pr->start_ts > g_plan->origin)
			sleep_until(t0 + (pr->start_ts - g_plan->origin));
		if (stopping())
			break;
		atomic_fetch_add(&g_sh->live, 1);
		pid = fork();
		if (pid == 0)
			process_main(roots[i], pr->main_thread);
		if (pid < 0) {
			atomic_fetch_add(&g_sh->spawn_failed, 1);
			thread_ends();
		}
	}
	thread_ends(); /* the root's own count: it starts no more */
	wait_children();
	_exit(0);
}

/* ---- the supervisor ---- */

static volatile sig_atomic_t g_signals;

static void on_signal(int sig)
{
	(void)sig;
	g_signals++;
}

/* dltrace on the replay root, attached before it goes: its stderr until "dltrace: tracing". */
static pid_t start_tracer(const struct replay_run_options *o, pid_t root, int *err_fd, char *err,
			  size_t errlen)
{
	char pidbuf[32], line[1024];
	size_t len = 0;
	int pfd[2];
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	snprintf(pidbuf, sizeof(pidbuf), "%d", (int)root);
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		/* its own process group: the terminal's Ctrl-C stops the replay, not the trace */
		setpgid(0, 0);
		dup2(pfd[1], 2);
		execl(o->self, o->self, "-o", o->trace_out, "--pid", pidbuf, (char *)NULL);
		fprintf(stderr, "dltrace: cannot run %s: %s\n", o->self, strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		char c;
		ssize_t n = read(pfd[0], &c, 1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			line[len] = '\0';
			snprintf(err, errlen, "the tracer did not start%s%s", len ? ": " : "",
				 line);
			close(pfd[0]);
			waitpid(pid, NULL, 0);
			return -1;
		}
		if (c != '\n') {
			if (len < sizeof(line) - 1)
				line[len++] = c;
			continue;
		}
		line[len] = '\0';
		if (!strncmp(line, "dltrace: tracing ", 17))
			break;
		if (strncmp(line, "dltrace: layers unavailable", 27))
			fprintf(stderr, "%s\n", line);
		len = 0;
	}
	*err_fd = pfd[0];
	return pid;
}

static void progress_line(const struct replay_plan *p, uint64_t t0, bool clear)
{
	uint64_t done = atomic_load(&g_sh->done), t = t0 ? now() - t0 : 0;

	if (clear) {
		fputs("\r\033[K", stderr);
		return;
	}
	fprintf(stderr, "\r\033[Kdltrace replay: %llu of %u ops (%u%%), %.1f s",
		(unsigned long long)done, p->nops, p->nops ? (unsigned)(100 * done / p->nops) : 100,
		(double)t / 1e9);
}

/* The invoking user and their groups (the replay root becomes them). */
static void find_user(void)
{
	struct passwd *pw;

	g_user = invoking_user();
	pw = getpwuid(g_user.uid);
	g_ngroups = MAX_GROUPS;
	if (!pw || getgrouplist(pw->pw_name, g_user.gid, g_groups, &g_ngroups) < 0) {
		g_groups[0] = g_user.gid;
		g_ngroups = 1;
	}
}

int replay_run(const struct replay_plan *p, const struct replay_run_options *o,
	       struct replay_outcome *out, char *err, size_t errlen)
{
	size_t shsize = sizeof(struct shared) + (size_t)p->nops * sizeof(struct shared_result);
	uint32_t *roots, nroots = 0, n = 0;
	struct sigaction sa, old_int, old_term;
	pid_t root, tracer = -1;
	int go[2], tracer_err = -1, status;
	uint64_t show_after, begun;
	bool shown = false;
	struct rlimit rl;

	memset(out, 0, sizeof(*out));
	out->tracer_status = -1;
	g_plan = p;
	g_opt = o;
	if (o->drop_privileges)
		find_user();
	g_sh = mmap(NULL, shsize, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (g_sh == MAP_FAILED) {
		snprintf(err, errlen, "cannot map %zu bytes for the replay's results: %s", shsize,
			 strerror(errno));
		return -1;
	}
	g_zero_size = p->max_write ? p->max_write : 1;
	g_zero = mmap(NULL, g_zero_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	g_fds = malloc((p->max_fd ? p->max_fd : 1) * sizeof(*g_fds));
	g_maps = calloc(p->nmaps ? p->nmaps : 1, sizeof(*g_maps));
	roots = malloc((p->nprocs + 1) * sizeof(*roots));
	g_orphans = malloc((p->nthreads + p->nprocs + 1) * sizeof(*g_orphans));
	g_orphan_at = malloc((p->nprocs + 1) * sizeof(*g_orphan_at));
	if (g_zero == MAP_FAILED || !g_fds || !g_maps || !roots || !g_orphans || !g_orphan_at) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (uint32_t i = 0; i < p->max_fd; i++)
		g_fds[i] = -1;
	/* processes the replay root starts, in order; each process's orphan threads */
	for (uint32_t i = 0; i < p->nprocs; i++) {
		uint32_t mt = p->procs[i].main_thread;

		if (mt != RP_NONE && p->threads[mt].spawned_by == RP_NONE)
			roots[nroots++] = i;
		g_orphan_at[i] = n;
		for (uint32_t t = 0; t < p->nthreads; t++)
			if (p->threads[t].proc == i && t != mt &&
			    p->threads[t].spawned_by == RP_NONE)
				g_orphans[n++] = t;
		g_orphans[n++] = RP_NONE;
	}
	qsort(roots, nroots, sizeof(*roots), root_order_cmp);
	/* dup2 targets above what the replay opens: room for both */
	g_fd_base = p->max_fd * 2 + 1024;
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		rlim_t want = (rlim_t)g_fd_base + p->max_fd + 64;

		if (rl.rlim_cur < want) {
			rl.rlim_cur = want < rl.rlim_max ? want : rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	if (pipe2(go, O_CLOEXEC)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	root = fork();
	if (root < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		return -1;
	}
	if (root == 0) {
		close(go[1]);
		root_main(go[0], roots, nroots);
	}
	close(go[0]);
	setpgid(root, root);
	if (o->trace_out) {
		tracer = start_tracer(o, root, &tracer_err, err, errlen);
		if (tracer < 0) {
			close(go[1]);
			waitpid(root, NULL, 0);
			free(roots);
			return -1;
		}
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	g_signals = 0;
	if (write(go[1], "g", 1) != 1) {
		snprintf(err, errlen, "cannot start the replay: %s", strerror(errno));
		close(go[1]);
		waitpid(root, NULL, 0);
		return -1;
	}
	close(go[1]);
	{
		/* DLTRACE_PROGRESS_AFTER_MS: the line's delay (io/progress.h), for tests */
		const char *after = getenv("DLTRACE_PROGRESS_AFTER_MS");
		char *end;
		long ms = after ? strtol(after, &end, 10) : -1;

		show_after =
		    after && *after && !*end && ms >= 0 ? (uint64_t)ms * 1000000ull : 1000000000ull;
		begun = now();
	}
	for (unsigned tick = 0;; tick++) {
		pid_t r = waitpid(root, &status, WNOHANG);
		struct timespec ts = {0, 100000000};

		if (r == root || (r < 0 && errno != EINTR))
			break;
		if (g_signals && !atomic_load(&g_sh->stop)) {
			atomic_store(&g_sh->stop, 1);
			out->stopped = true;
			wake_all();
		}
		if (g_signals > 1)
			kill(-root, SIGKILL); /* a second Ctrl-C: now */
		if (o->progress && now() - begun >= show_after && tick % 2 == 0) {
			progress_line(p, atomic_load(&g_sh->t0), false);
			shown = true;
		}
		nanosleep(&ts, NULL);
	}
	if (shown)
		progress_line(p, 0, true);
	kill(-root, SIGKILL); /* what outlived the root (a process whose parent was gone) */
	if (tracer > 0) {
		/* the tracer ends when the replay's processes are gone; its last lines follow */
		char buf[4096];
		ssize_t r;

		while ((r = read(tracer_err, buf, sizeof(buf))) > 0 || (r < 0 && errno == EINTR))
			if (r > 0)
				fwrite(buf, 1, (size_t)r, stderr);
		close(tracer_err);
		while (waitpid(tracer, &status, 0) < 0 && errno == EINTR)
			;
		out->tracer_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	out->res = malloc((p->nops ? p->nops : 1) * sizeof(*out->res));
	if (!out->res) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (uint32_t i = 0; i < p->nops; i++) {
		out->res[i].start = g_sh->res[i].start;
		out->res[i].end = atomic_load(&g_sh->res[i].end);
		out->res[i].ret = g_sh->res[i].ret;
		if (out->res[i].end == 1)
			out->res[i].end = out->res[i].start;
	}
	out->t0 = atomic_load(&g_sh->t0);
	out->ops_done = atomic_load(&g_sh->done);
	out->released = atomic_load(&g_sh->released);
	out->spawn_failed = atomic_load(&g_sh->spawn_failed);
	out->faults_bus = atomic_load(&g_sh->faults_bus);
	if (atomic_load(&g_sh->stop))
		out->stopped = true;
	munmap(g_sh, shsize);
	munmap((void *)g_zero, g_zero_size);
	free(g_fds);
	free(g_maps);
	free(g_orphans);
	free(g_orphan_at);
	free(roots);
	return 0;
}

void replay_outcome_free(struct replay_outcome *out, const struct replay_plan *p)
{
	(void)p;
	free(out->res);
	out->res = NULL;
}
