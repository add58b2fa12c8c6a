// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "probe/probe_loader.h"

#include <bpf/bpf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bpf/dltrace_events.h"
#include "dltrace.skel.h"
#include "probe/library_probes.h"
#include "event/syscall_table.h"
#include "probe/probe_layers.h"
#include "probe/shared_maps.h"
#include "probe/system_checks.h"
#include "probe/tracepoint_events.h"
#include "lib/clock_ns.h"

static bool libbpf_verbose;
/* a load with task_kfuncs on failed: the kernel lacks them or refuses them somewhere */
static bool task_kfuncs_refused;
/* the program libbpf first failed to load in this attempt (two objects load at once) */
static char failed_prog[64];
static pthread_mutex_t failed_lock = PTHREAD_MUTEX_INITIALIZER;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[1024];
	const char *p;
	va_list copy;

	va_copy(copy, ap);
	vsnprintf(line, sizeof(line), fmt, ap);
	/* libbpf: prog 'NAME': failed to load: -13 */
	p = strstr(line, "prog '");
	if (p && strstr(line, "failed to load")) {
		pthread_mutex_lock(&failed_lock);
		if (!failed_prog[0])
			sscanf(p + 6, "%63[^']", failed_prog);
		pthread_mutex_unlock(&failed_lock);
	}
	/* whole: a verifier log is one message of many lines */
	if (libbpf_verbose && level != LIBBPF_DEBUG)
		vfprintf(stderr, fmt, copy);
	va_end(copy);
	return 0;
}

/*
 * The shared programs (meta_syscall_probes.bpf.c): one enter and one exit
 * program for the syscall kinds marked shared, attached to each of their
 * tracepoints with the kind as the attachment's cookie.
 */
bool probe_is_shared(const struct bpf_program *prog)
{
	const char *name = bpf_program__name(prog);

	return !strcmp(name, "dl_enter_shared") || !strcmp(name, "dl_exit_shared");
}

/* The tracepoint of a shared kind: sys_enter_<tp> or sys_exit_<tp>. */
static void shared_tracepoint(const struct syscall_info *si, bool exit, char *buf, size_t size)
{
	snprintf(buf, size, "sys_%s_%s", exit ? "exit" : "enter", si->tracepoint);
}

/* Name the shared kinds whose tracepoint this kernel lacks (fchmodat2 before 6.6, ...). */
static void note_missing_shared(struct probes *p)
{
	char tp[96];

	for (unsigned k = 0; k < DL_SYS_COUNT; k++) {
		const struct syscall_info *si = syscall_info(k);
		size_t n = strlen(p->skipped_names);

		if (!si->shared)
			continue;
		shared_tracepoint(si, false, tp, sizeof(tp));
		if (tracepoint_exists("syscalls", tp))
			continue;
		if (p->skipped++ < 8)
			snprintf(p->skipped_names + n, sizeof(p->skipped_names) - n, "%s%s",
				 n ? ", " : "", tp);
	}
}

/* Open the skeleton with the programs of the plan's active layers. */
static int open_planned(struct probes *p, const struct probe_options *o)
{
	struct bpf_program *prog;

	p->skel = dltrace_bpf__open();
	if (!p->skel)
		return -errno;
	p->skel->rodata->self_tgid = getpid();
	p->skel->rodata->wakeup_bytes = o->ring_bytes / 4;
	p->skel->rodata->cache_layer = p->plan.layer[DL_LAYER_CACHE].active;
	p->skel->rodata->py_stacks = o->python_stacks;
	p->skel->rodata->py_kinds = o->python_stacks ? o->python_kinds : 0;
	p->skel->rodata->py_pthread_specific = o->pthread_specific;
	if (!o->python_stacks) {
		/* no python stacks: their tables take no memory */
		bpf_map__set_max_entries(p->skel->maps.py_stack_ids, 1);
		bpf_map__set_max_entries(p->skel->maps.py_codes, 1);
		bpf_map__set_max_entries(p->skel->maps.py_procs, 1);
		bpf_map__set_max_entries(p->skel->maps.py_bins, 1);
	}
	/* stdio is attached per process: learn of new processes at once */
	p->skel->rodata->fork_wakeup = p->plan.layer[DL_LAYER_STDIO].active;
	p->skel->rodata->task_kfuncs = !task_kfuncs_refused;
	bpf_map__set_max_entries(p->skel->maps.events, o->ring_bytes);
	p->ring_bytes = o->ring_bytes;
	p->skipped = 0;
	p->skipped_names[0] = '\0';
	if (p->plan.layer[DL_LAYER_SYSCALL].active &&
	    bpf_object__find_program_by_name(p->skel->obj, "dl_enter_shared"))
		note_missing_shared(p);
	bpf_object__for_each_program (prog, p->skel->obj) {
		int layer = layer_of_program(prog);

		if (!strncmp(bpf_program__name(prog), "cgroup_", 7)) {
			bpf_program__set_autoload(prog, o->cgroup_events);
			continue;
		}
		if (!strncmp(bpf_program__name(prog), "live_", 5)) {
			bpf_program__set_autoload(prog, o->live);
			continue;
		}
		if (!strncmp(bpf_program__name(prog), "py_", 3)) {
			bpf_program__set_autoload(prog, o->python_stacks);
			continue;
		}
		if (layer_program_enabled(&p->plan, prog))
			continue;
		bpf_program__set_autoload(prog, false);
		/* name the syscall tracepoints this kernel lacks (arm64: open, stat, ...) */
		if (layer == DL_LAYER_SYSCALL && p->plan.layer[DL_LAYER_SYSCALL].active &&
		    p->skipped++ < 8) {
			size_t n = strlen(p->skipped_names);

			snprintf(p->skipped_names + n, sizeof(p->skipped_names) - n, "%s%s",
				 n ? ", " : "", bpf_program__section_name(prog) + 11);
		}
	}
	return 0;
}

/*
 * The programs the second opening of the object loads (load_objects()):
 * the per-syscall exit programs, about half of the kernel's verifying at
 * start-up (docs/kernel-notes.md "Choices the kernels forced"); the first opening loads the rest,
 * and everything that user space names (iterators, Python and library
 * probes).
 */
static bool loads_second(const struct bpf_program *prog)
{
	return !strncmp(bpf_program__name(prog), "dl_exit_", 8) && !probe_is_shared(prog);
}

struct object_load {
	struct dltrace_bpf *skel;
	int err;
};

static void *object_load_thread(void *arg)
{
	struct object_load *l = arg;

	l->err = dltrace_bpf__load(l->skel);
	return NULL;
}

/*
 * Load the opened object on two CPUs at once.  libbpf loads an object's
 * programs one after the other and the kernel verifies each in the
 * caller's thread: a second opening of the same object takes the programs
 * of loads_second(), both are given one set of maps before either loads
 * (shared_maps.c), and each loads in a thread of its own.  p->second
 * stays NULL when the second opening cannot be made (one load, as before).
 * Returns 0 or the first load's error.
 */
static int load_objects(struct probes *p, bool split, bool *reopen)
{
	struct object_load second = {.skel = split ? dltrace_bpf__open() : NULL};
	struct bpf_program *prog, *other;
	struct bpf_object *objs[2];
	size_t moved = 0;
	pthread_t thread;
	int err;

	*reopen = false;
	if (!second.skel)
		return dltrace_bpf__load(p->skel);
	other = bpf_object__next_program(second.skel->obj, NULL);
	bpf_object__for_each_program (prog, p->skel->obj) {
		bool move = bpf_program__autoload(prog) && loads_second(prog);

		if (!other)
			break;
		bpf_program__set_autoload(other, move);
		if (move) {
			bpf_program__set_autoload(prog, false);
			moved++;
		}
		other = bpf_object__next_program(second.skel->obj, other);
	}
	if (!moved) {
		dltrace_bpf__destroy(second.skel);
		return dltrace_bpf__load(p->skel);
	}
	objs[0] = p->skel->obj;
	objs[1] = second.skel->obj;
	if (shared_maps_create(objs, 2) ||
	    pthread_create(&thread, NULL, object_load_thread, &second)) {
		/* the first opening has lost programs and maybe taken maps: open it again */
		dltrace_bpf__destroy(second.skel);
		*reopen = true;
		return -1;
	}
	err = dltrace_bpf__load(p->skel);
	pthread_join(thread, NULL);
	if (!err)
		err = second.err;
	if (err) {
		dltrace_bpf__destroy(second.skel);
		return err;
	}
	p->second = second.skel;
	return 0;
}

/*
 * Records handled per call: libbpf consumes for as long as records keep
 * arriving, and a producer faster than the writer would keep the caller
 * from ever looking at signals, timers or its traced processes again.
 */
#define RECORDS_PER_PASS 100000

static int budgeted_record(void *ctx, void *data, size_t size)
{
	struct probes *p = ctx;
	int err;

	library_probes_record(p->libs, data, size); /* per-process layers follow forks */
	err = p->cb(p->cb_ctx, data, size);

	if (err)
		return err;
	/* the record is consumed; stop the pass here, the rest waits for the next */
	return ++p->pass_records >= RECORDS_PER_PASS ? -EAGAIN : 0;
}

int probes_load(struct probes *p, const struct probe_options *o, ring_buffer_sample_fn cb,
		void *ctx, char *err, size_t errlen)
{
	bool split = true; /* two loads at once (load_objects()) */
	int e;

	memset(p, 0, sizeof(*p));
	libbpf_verbose = o->verbose;
	libbpf_set_print(libbpf_print);
	layers_plan(&p->plan, o->layers, o->vfs_attach);
	p->libs = library_probes_plan(&p->plan, o->lib_paths, o->nlib_paths, o->verbose);
	for (;;) {
		struct bpf_program *prog;
		bool reopen;
		int layer;

		e = open_planned(p, o);
		if (e) {
			snprintf(err, errlen, "cannot open the BPF object: %s", strerror(-e));
			return -1;
		}
		failed_prog[0] = '\0';
		e = load_objects(p, split, &reopen);
		if (!e)
			break;
		if (reopen || (split && !failed_prog[0])) {
			/* no program refused, yet the two loads failed: one load, as before */
			split = false;
			dltrace_bpf__destroy(p->skel);
			p->skel = NULL;
			continue;
		}
		if (p->skel->rodata->task_kfuncs) {
			/* before 6.2, or program types without kfuncs: the older way */
			task_kfuncs_refused = true;
			dltrace_bpf__destroy(p->skel);
			p->skel = NULL;
			continue;
		}
		/* An optional layer the kernel refuses is dropped; the core is not optional. */
		prog = failed_prog[0] ? bpf_object__find_program_by_name(p->skel->obj, failed_prog)
				      : NULL;
		layer = prog ? layer_of_program(prog) : -1;
		if (layer <= DL_LAYER_SYSCALL) {
			snprintf(err, errlen,
				 "the kernel refused dltrace's BPF programs (%s%s%s); rerun with "
				 "--verbose for the verifier log",
				 failed_prog[0] ? failed_prog : "", failed_prog[0] ? ": " : "",
				 strerror(-e));
			return -1;
		}
		p->plan.layer[layer].active = false;
		snprintf(p->plan.layer[layer].reason, sizeof(p->plan.layer[layer].reason),
			 "the kernel refused its BPF program %s (%s)", failed_prog, strerror(-e));
		dltrace_bpf__destroy(p->skel);
		p->skel = NULL;
	}
	p->cb = cb;
	p->cb_ctx = ctx;
	p->rb = ring_buffer__new(bpf_map__fd(p->skel->maps.events), budgeted_record, p, NULL);
	if (!p->rb) {
		snprintf(err, errlen, "cannot map the ring buffer: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static bool is_attached(const struct probes *p, const struct bpf_program *prog)
{
	for (size_t i = 0; i < p->nlinks; i++)
		if (p->link_prog[i] == prog)
			return true;
	return false;
}

/*
 * Attach order: process following first (no child is missed while the rest
 * attaches), then the programs that end a call (syscall exits, fexit,
 * kretprobes, completions), then those that start one.  A call already in
 * flight when its start program attaches then always meets its end
 * program, and no entry state is left waiting for an end that never comes.
 */
static int attach_rank(const struct bpf_program *prog)
{
	const char *sec = bpf_program__section_name(prog);
	size_t len = strlen(sec);

	if (layer_of_program(prog) < 0)
		return 0;
	if (strstr(sec, "/sys_exit_") || !strncmp(sec, "fexit/", 6) ||
	    !strncmp(sec, "kretprobe/", 10) || (len > 9 && !strcmp(sec + len - 9, "_complete")) ||
	    !strcmp(bpf_program__name(prog), "dl_exit_shared"))
		return 1;
	return 2;
}

#define ATTACH_RANKS 3

/* Whether want selects the library layers' programs (attached by library_probes.c). */
static bool wants_library(const struct probes *p, bool (*want)(const struct bpf_program *))
{
	struct bpf_program *prog;

	bpf_object__for_each_program (prog, p->skel->obj)
		if (layer_is_library(layer_of_program(prog)) && (!want || want(prog)))
			return true;
	return false;
}

static void add_link(struct probes *p, struct bpf_program *prog, int layer, struct bpf_link *link,
		     const struct link_event *event)
{
	p->link_event[p->nlinks] = *event;
	p->link_layer[p->nlinks] = layer;
	p->link_prog[p->nlinks] = prog;
	p->links[p->nlinks++] = link;
}

/*
 * One attachment: a program, or a shared program on one kind's tracepoint
 * (the kind as its cookie).  A rank's attachments are made from several
 * threads at once (attach_all()), then looked at in order.
 */
struct attach_job {
	struct bpf_program *prog;
	int layer;
	int kind; /* a shared program's syscall kind; -1: the program's own target */
	struct tp_events *events; /* where a tracepoint's perf event comes from */
	struct bpf_link *link;	  /* NULL: failed with err */
	struct link_event event;  /* the tracepoint's perf event, if one */
	int err;
};

struct attach_jobs {
	struct attach_job *job;
	size_t n;
	size_t next; /* the next job a thread takes */
};

/* The tracepoint a shared program attaches to for one kind: sys_enter_<tp> or sys_exit_<tp>. */
static void kind_tracepoint(const struct bpf_program *prog, unsigned kind, char *buf, size_t size)
{
	shared_tracepoint(syscall_info(kind), !strcmp(bpf_program__name(prog), "dl_exit_shared"),
			  buf, size);
}

/* The loaded openings of the object: skel's, then the second's when there is one. */
static int loaded_objects(const struct probes *p, struct bpf_object *objs[2])
{
	objs[0] = p->skel->obj;
	objs[1] = p->second ? p->second->obj : NULL;
	return p->second ? 2 : 1;
}

/* "tracepoint/CATEGORY/NAME" (or "tp/..."): the program's tracepoint; false for other kinds. */
static bool tracepoint_of(const struct bpf_program *prog, char *category, size_t catlen, char *name,
			  size_t namelen)
{
	const char *sec = bpf_program__section_name(prog), *slash;

	if (!strncmp(sec, "tracepoint/", 11))
		sec += 11;
	else if (!strncmp(sec, "tp/", 3))
		sec += 3;
	else
		return false;
	slash = strchr(sec, '/');
	if (!slash || (size_t)(slash - sec) >= catlen)
		return false;
	snprintf(category, catlen, "%.*s", (int)(slash - sec), sec);
	snprintf(name, namelen, "%s", slash + 1);
	return true;
}

/*
 * A tracepoint program is attached to a perf event of tracepoint_events.c
 * (one an earlier run handed over, or a new one), and the event is kept
 * with the link; the other kinds as libbpf attaches them.
 */
static void attach_one(struct attach_job *j)
{
	LIBBPF_OPTS(bpf_perf_event_opts, opts);
	char category[32], name[64];
	int fd;

	j->event.fd = -1;
	if (j->kind >= 0) {
		snprintf(category, sizeof(category), "syscalls");
		kind_tracepoint(j->prog, j->kind, name, sizeof(name));
		opts.bpf_cookie = j->kind;
	} else if (!tracepoint_of(j->prog, category, sizeof(category), name, sizeof(name))) {
		j->link = bpf_program__attach(j->prog);
		j->err = j->link ? 0 : errno;
		return;
	}
	fd = tp_events__open(j->events, category, name);
	if (fd < 0) {
		j->link = NULL;
		j->err = -fd;
		return;
	}
	j->link = bpf_program__attach_perf_event_opts(j->prog, fd, &opts);
	if (!j->link) {
		j->err = errno;
		close(fd);
		return;
	}
	j->err = 0;
	j->event.fd = fd;
	snprintf(j->event.name, sizeof(j->event.name), "%s/%s", category, name);
}

static void *attach_worker(void *arg)
{
	struct attach_jobs *jobs = arg;
	size_t i;

	while ((i = __atomic_fetch_add(&jobs->next, 1, __ATOMIC_RELAXED)) < jobs->n)
		attach_one(&jobs->job[i]);
	return NULL;
}

/*
 * Attachments are made one after the other while each is quick (a fifth
 * of a millisecond here).  A tracepoint's perf event is opened under the
 * kernel's event_mutex, which the detaching helper of a dltrace that has
 * just exited holds across a grace period for each tracepoint it lets go
 * (25 ms each here): one thread would wait once per tracepoint, over a
 * second in all.  So once an attachment has waited ATTACH_WAITED_NS, the
 * rest are made from ATTACH_THREADS threads at once: they queue together,
 * get in together, and then hold the tracepoints the helper has not let go
 * yet, whose release waits for nothing.  (Threads from the first
 * attachment on cost a start without such a wait 16 to 60 ms: measured with
 * bench/lifecycle.py.)
 */
#define ATTACH_THREADS	 16
#define ATTACH_WAITED_NS (5 * 1000000ULL)

static void attach_all(struct attach_job *job, size_t n)
{
	struct attach_jobs jobs = {.job = job, .n = n};
	pthread_t threads[ATTACH_THREADS];
	size_t nt = 0, i;
	pthread_attr_t attr;

	while ((i = __atomic_fetch_add(&jobs.next, 1, __ATOMIC_RELAXED)) < n) {
		uint64_t t0 = mono_ns();

		attach_one(&job[i]);
		if (mono_ns() - t0 >= ATTACH_WAITED_NS)
			break;
	}
	if (i + 1 >= n)
		return;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 << 10);
	while (nt < ATTACH_THREADS - 1 &&
	       !pthread_create(&threads[nt], &attr, attach_worker, &jobs))
		nt++;
	pthread_attr_destroy(&attr);
	attach_worker(&jobs);
	for (size_t t = 0; t < nt; t++)
		pthread_join(threads[t], NULL);
}

/* Drop an optional layer whose attachment failed: detach what it attached already. */
static void drop_layer(struct probes *p, const struct attach_job *j)
{
	p->plan.layer[j->layer].active = false;
	snprintf(p->plan.layer[j->layer].reason, sizeof(p->plan.layer[j->layer].reason),
		 "cannot attach %s (%s)", bpf_program__section_name(j->prog), strerror(j->err));
	for (size_t i = 0; i < p->nlinks; i++) {
		if (p->link_layer[i] == j->layer) {
			bpf_link__destroy(p->links[i]);
			p->nlinks--;
			p->links[i] = p->links[p->nlinks];
			p->link_prog[i] = p->link_prog[p->nlinks];
			p->link_event[i] = p->link_event[p->nlinks];
			p->link_layer[i--] = p->link_layer[p->nlinks];
		}
	}
}

/* The attachments of one rank that `want` selects and that are not made yet. */
static size_t rank_jobs(struct probes *p, int rank, bool (*want)(const struct bpf_program *),
			struct attach_job *job)
{
	struct bpf_object *objs[2];
	int nobj = loaded_objects(p, objs);
	struct bpf_program *prog;
	size_t n = 0;
	char tp[96];

	for (int o = 0; o < nobj; o++)
		bpf_object__for_each_program (prog, objs[o]) {
			int layer = layer_of_program(prog);

			/*
			 * iterators are not attached: they run on demand; library
			 * layers are attached to their libraries (library_probes.c)
			 */
			if (attach_rank(prog) != rank || !bpf_program__autoload(prog) ||
			    layer_is_library(layer) ||
			    (layer > DL_LAYER_SYSCALL && !p->plan.layer[layer].active) ||
			    (want && !want(prog)) || is_attached(p, prog) ||
			    !strncmp(bpf_program__section_name(prog), "iter/", 5))
				continue;
			if (!probe_is_shared(prog)) {
				job[n++] =
				    (struct attach_job){.prog = prog, .layer = layer, .kind = -1};
				continue;
			}
			for (unsigned k = 0; k < DL_SYS_COUNT; k++) {
				if (!syscall_info(k)->shared)
					continue;
				kind_tracepoint(prog, k, tp, sizeof(tp));
				if (!tracepoint_exists("syscalls", tp))
					continue; /* named at load (note_missing_shared) */
				job[n++] =
				    (struct attach_job){.prog = prog, .layer = layer, .kind = k};
			}
		}
	return n;
}

int probes_attach_where(struct probes *p, bool (*want)(const struct bpf_program *), char *err,
			size_t errlen)
{
	struct bpf_object *objs[2];
	int nobj = loaded_objects(p, objs);
	struct tp_events *events;
	struct attach_job *job;
	struct bpf_program *prog;
	size_t n = 0, taken, opened, unused;
	int rc = 0;

	for (int o = 0; o < nobj; o++)
		bpf_object__for_each_program (prog, objs[o])
			n += probe_is_shared(prog) ? DL_SYS_COUNT : 1;
	if (!p->links) {
		p->links = calloc(n, sizeof(*p->links));
		p->link_layer = calloc(n, sizeof(*p->link_layer));
		p->link_prog = calloc(n, sizeof(*p->link_prog));
		p->link_event = calloc(n, sizeof(*p->link_event));
	}
	job = calloc(n + 1, sizeof(*job));
	events = job ? tp_events__new() : NULL;
	if (!job || !events || !p->links || !p->link_layer || !p->link_prog || !p->link_event) {
		tp_events__free(events);
		free(job);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int rank = 0; rank < ATTACH_RANKS && !rc; rank++) {
		size_t nj = rank_jobs(p, rank, want, job);

		for (size_t i = 0; i < nj; i++)
			job[i].events = events;
		attach_all(job, nj);
		/* in order: what attached is kept (and detached with the rest on an error) */
		for (size_t i = 0; i < nj; i++)
			if (job[i].link)
				add_link(p, job[i].prog, job[i].layer, job[i].link, &job[i].event);
		for (size_t i = 0; i < nj && !rc; i++) {
			const struct attach_job *j = &job[i];
			char tp[96];

			if (j->link ||
			    (j->layer > DL_LAYER_SYSCALL && !p->plan.layer[j->layer].active))
				continue;
			if (j->layer > DL_LAYER_SYSCALL) {
				drop_layer(p, j);
				continue;
			}
			rc = -1;
			if (j->kind >= 0) {
				kind_tracepoint(j->prog, j->kind, tp, sizeof(tp));
				snprintf(err, errlen, "cannot attach %s to syscalls/%s: %s",
					 bpf_program__name(j->prog), tp, strerror(j->err));
			} else {
				snprintf(err, errlen, "cannot attach %s: %s%s",
					 bpf_program__section_name(j->prog), strerror(j->err),
					 j->err == ENOENT
					     ? " (is tracefs mounted at /sys/kernel/tracing?)"
					     : "");
			}
		}
	}
	free(job);
	tp_events__counts(events, &taken, &opened, &unused);
	tp_events__free(events); /* closes what an earlier run gave and none of ours took */
	if (libbpf_verbose && taken + opened + unused)
		fprintf(
		    stderr,
		    "dltrace: tracepoint events: %zu taken over from an earlier run, %zu opened, "
		    "%zu given and not used\n",
		    taken, opened, unused);
	if (!rc && wants_library(p, want))
		library_probes_attach(p->libs, p->skel, &p->plan);
	return rc;
}

int probes_attach(struct probes *p, char *err, size_t errlen)
{
	return probes_attach_where(p, NULL, err, errlen);
}

/*
 * Destroying a tracepoint link waits for RCU grace periods in the kernel
 * (tracepoint_synchronize_unregister(): tens of milliseconds each).  One
 * thread pays them one after the other, about 7 s for 200 attachments
 * here; threads that detach at the same time wait for the same grace
 * periods, so each link gets its own thread (up to DETACH_THREADS).
 */
#define DETACH_THREADS 256

struct link_slice {
	struct bpf_link **links;
	size_t n, step;
};

static void *destroy_slice(void *arg)
{
	struct link_slice *s = arg;

	for (size_t i = 0; i < s->n; i += s->step)
		bpf_link__destroy(s->links[i]);
	return NULL;
}

/*
 * Destroy links[0..n) from up to DETACH_THREADS threads, and the nseq
 * links after them (library layers: libbpf's USDT links share its USDT
 * manager, not safe to detach concurrently) one by one meanwhile.
 */
static void destroy_links(struct bpf_link **links, size_t n, size_t nseq)
{
	size_t nt = n < DETACH_THREADS ? n : DETACH_THREADS;
	struct link_slice *slices = calloc(nt + 1, sizeof(*slices));
	pthread_t *threads = calloc(nt + 1, sizeof(*threads));
	bool *started = calloc(nt + 1, sizeof(*started));
	struct link_slice seq = {links + n, nseq, 1}, all = {links, n, 1};
	pthread_attr_t attr;

	if (!slices || !threads || !started) {
		destroy_slice(&all);
		nt = 0;
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 << 10);
	for (size_t t = 0; t < nt; t++) {
		slices[t] = (struct link_slice){links + t, n - t, nt};
		started[t] = !pthread_create(&threads[t], &attr, destroy_slice, &slices[t]);
	}
	pthread_attr_destroy(&attr);
	destroy_slice(&seq);
	for (size_t t = 0; t < nt; t++) {
		if (started[t])
			pthread_join(threads[t], NULL);
		else
			destroy_slice(&slices[t]);
	}
	free(slices);
	free(threads);
	free(started);
}

struct detach_batch {
	struct bpf_link **links; /* the core's, then the library layers' */
	size_t n, nlib;
};

static int batches_running; /* threads of probes_detach_where_async() not done yet */

static void *detach_batch(void *arg)
{
	struct detach_batch *b = arg;

	destroy_links(b->links, b->n - b->nlib, b->nlib);
	free(b->links);
	free(b);
	return NULL;
}

static void *detach_batch_thread(void *arg)
{
	detach_batch(arg);
	__atomic_sub_fetch(&batches_running, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

size_t probes_detach_where_async(struct probes *p, bool (*want)(const struct bpf_program *))
{
	struct detach_batch *b = calloc(1, sizeof(*b));
	struct bpf_link **lib = NULL;
	size_t kept = 0, n,
	       nlib = wants_library(p, want) ? library_probes_take_links(p->libs, &lib) : 0;
	pthread_t thread;

	if (!b || !(b->links = calloc(p->nlinks + nlib + 1, sizeof(*b->links)))) {
		for (size_t i = 0; i < nlib; i++)
			bpf_link__destroy(lib[i]);
		free(lib);
		free(b);
		return 0;
	}
	for (size_t i = 0; i < p->nlinks; i++) {
		if (want(p->link_prog[i])) {
			b->links[b->n++] = p->links[i];
			continue;
		}
		p->links[kept] = p->links[i];
		p->link_prog[kept] = p->link_prog[i];
		p->link_event[kept] = p->link_event[i];
		p->link_layer[kept++] = p->link_layer[i];
	}
	p->nlinks = kept;
	for (size_t i = 0; i < nlib; i++)
		b->links[b->n++] = lib[i];
	b->nlib = nlib;
	free(lib);
	n = b->n;
	/* the kernel takes a while to detach: let threads wait for it */
	__atomic_add_fetch(&batches_running, 1, __ATOMIC_SEQ_CST);
	if (pthread_create(&thread, NULL, detach_batch_thread, b)) {
		__atomic_sub_fetch(&batches_running, 1, __ATOMIC_SEQ_CST);
		detach_batch(b);
	} else {
		pthread_detach(thread);
	}
	return n;
}

void probes_detach(struct probes *p)
{
	struct bpf_link **lib = NULL, **all;
	size_t nlib = library_probes_take_links(p->libs, &lib);

	all = malloc((p->nlinks + nlib + 1) * sizeof(*all));
	if (!all) {
		/* one by one then */
		for (size_t i = 0; i < nlib; i++)
			bpf_link__destroy(lib[i]);
		for (size_t i = 0; i < p->nlinks; i++)
			bpf_link__destroy(p->links[i]);
	} else {
		if (p->nlinks)
			memcpy(all, p->links, p->nlinks * sizeof(*all));
		if (nlib)
			memcpy(all + p->nlinks, lib, nlib * sizeof(*all));
		destroy_links(all, p->nlinks, nlib);
		free(all);
	}
	free(lib);
	p->nlinks = 0;
}

/* The descriptors of this process whose /proc/self/fd link is one of kinds (NULL-ended). */
static size_t fds_of_kind(const char *const *kinds, int *fds, size_t cap)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	size_t n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) && n < cap) {
		char path[300], target[64];
		int fd = atoi(e->d_name);
		ssize_t len;

		if (e->d_name[0] < '0' || e->d_name[0] > '9' || fd == dirfd(d))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		for (size_t k = 0; kinds[k]; k++)
			if (!strcmp(target, kinds[k]))
				fds[n++] = fd;
	}
	closedir(d);
	return n;
}

struct fd_set_close {
	int *fds;
	size_t n;
};

/*
 * Close the helper's other perf events (uprobes, USDT semaphores), then
 * name the process "dltrace-held": from then on it holds nothing but
 * tracepoint events, disabled and without a program.
 */
static void *close_all(void *arg)
{
	struct fd_set_close *c = arg;
	int comm;

	for (size_t i = 0; i < c->n; i++)
		if (c->fds[i] >= 0)
			close(c->fds[i]);
	comm = open("/proc/self/comm", O_WRONLY | O_CLOEXEC);
	if (comm >= 0) {
		if (write(comm, "dltrace-held", 12) < 0) {
			/* a name only: nothing depends on it */
		}
		close(comm);
	}
	return NULL;
}

/*
 * The detaching helper's order.  Closing a link detaches its program at
 * once, many links at a time; closing a tracepoint's last perf event
 * waits for the kernel's grace periods one tracepoint after another
 * (perf_trace_destroy holds event_mutex across them: about 25 ms each
 * here, 5 s for 200).  So the helper first takes an extra reference to
 * every perf event, destroys the links (the programs are off every
 * tracepoint in a fraction of a second), closes the programs and maps
 * (freed now), and only then lets the perf events go: disabled and
 * without a program, a tracepoint's events run nothing while the kernel
 * takes its time (the traced syscalls still take the kernel's tracing
 * path).  The tracepoints' events are first offered to the next run for a
 * while (tp_events__hold()), which then starts without waiting for any of
 * this.  A library layer's uprobes keep their
 * breakpoints (and USDT semaphores) until their perf events go, as they
 * did before this order.
 */
static void detach_then_exit(struct probes *p, unsigned hold_ms, const char *cgroups)
{
	static const char *const perf[] = {"anon_inode:[perf_event]", NULL};
	static const char *const bpf[] = {"anon_inode:bpf-prog", "anon_inode:bpf-map",
					  "anon_inode:bpf_link", "anon_inode:bpf-link", NULL};
	size_t cap = 4096, n, nheld = 0;
	int *fds = malloc(cap * sizeof(*fds)), *held = calloc(p->nlinks + 1, sizeof(*held));
	char **names = calloc(p->nlinks + 1, sizeof(*names));
	struct fd_set_close others;
	pthread_t closer;
	bool closing;

	if (!fds || !held || !names) {
		probes_detach(p);
		_exit(0);
	}
	/* the tracepoints' events are offered to the next run (tracepoint_events.h) */
	for (size_t i = 0; i < p->nlinks; i++) {
		if (p->link_event[i].fd < 0)
			continue;
		held[nheld] = fcntl(p->link_event[i].fd, F_DUPFD_CLOEXEC, 0);
		if (held[nheld] >= 0)
			names[nheld++] = p->link_event[i].name;
	}
	/* the other perf events (uprobes): not the held copies, nor the links' own descriptors */
	n = fds_of_kind(perf, fds, cap);
	for (size_t i = 0; i < n; i++) {
		bool tracepoint = false;

		for (size_t k = 0; k < nheld && !tracepoint; k++)
			tracepoint = fds[i] == held[k];
		for (size_t k = 0; k < p->nlinks && !tracepoint; k++)
			tracepoint = fds[i] == p->link_event[k].fd;
		fds[i] = tracepoint ? -1 : fcntl(fds[i], F_DUPFD_CLOEXEC, 0);
	}
	probes_detach(p);
	{
		int *objs = malloc(cap * sizeof(*objs));
		size_t m = objs ? fds_of_kind(bpf, objs, cap) : 0;

		for (size_t i = 0; i < m; i++)
			close(objs[i]);
		free(objs);
	}
	/* the other events (uprobes) go meanwhile, each waiting for the kernel */
	others = (struct fd_set_close){fds, n};
	closing = !pthread_create(&closer, NULL, close_all, &others);
	if (!closing)
		close_all(&others);
	tp_events__hold(names, held, nheld, hold_ms, cgroups);
	if (closing)
		pthread_join(closer, NULL);
	_exit(0);
}

void probes_release_and_exit_soon(struct probes *p)
{
	const char *env = getenv("DLTRACE_EVENTS_HOLD_MS");
	unsigned hold_ms = env && *env ? (unsigned)strtoul(env, NULL, 10) : TP_EVENTS_HOLD_MS;
	char launcher[4096] = "", path[64];
	int hold[2];
	pid_t pid;
	FILE *f;
	char c;

	if (!p->nlinks || pipe(hold))
		return;
	/* the cgroups of the process that started dltrace: where its helper may linger */
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)getppid());
	f = hold_ms ? fopen(path, "re") : NULL;
	if (f) {
		launcher[fread(launcher, 1, sizeof(launcher) - 1, f)] = '\0';
		fclose(f);
	}
	if (!launcher[0])
		hold_ms = 0; /* nowhere known to go */
#if defined(__SANITIZE_ADDRESS__)
	/*
	 * GCC's ASan allocator is not fork-safe (glibc's malloc is): a
	 * background detach thread inside it while we fork leaves it locked in
	 * the child, whose own threads then hang.  Sanitizer builds let those
	 * threads finish first; the release build forks at once.
	 */
	while (__atomic_load_n(&batches_running, __ATOMIC_SEQ_CST) || library_probes_detaching())
		usleep(10000);
#endif
	/*
	 * A grandchild inherits every link and detaches once this process has
	 * dropped its own references (the pipe reaches EOF), so that it holds
	 * the last ones and pays the kernel's grace periods, not us.
	 */
	pid = fork();
	if (pid == 0) {
		if (fork() == 0) {
			int null = open("/dev/null", O_RDWR);

			/* hold no one's pipe: readers of dltrace's output see EOF at its exit */
			if (null >= 0) {
				dup2(null, 0);
				dup2(null, 1);
				dup2(null, 2);
			}
			setsid();
			close(hold[1]);
			while (read(hold[0], &c, 1) > 0)
				;
			detach_then_exit(p, hold_ms, launcher);
		}
		_exit(0);
	}
	if (pid < 0) {
		probes_detach(p);
		return;
	}
	waitpid(pid, NULL, 0);
	p->released = true;
	/* streams still open on the descriptors closed below lose no buffered bytes */
	fflush(NULL);
	close(hold[0]);
	if (hold[1] > 3)
		syscall(SYS_close_range, 3, hold[1] - 1, 0);
	syscall(SYS_close_range, hold[1] + 1, ~0U, 0);
	close(hold[1]);
}

void probes_destroy(struct probes *p)
{
	if (p->released) {
		/* the descriptors were handed over and closed: free, do not detach */
		library_probes_detach(p->libs, true);
		for (size_t i = 0; i < p->nlinks; i++) {
			bpf_link__disconnect(p->links[i]);
			bpf_link__destroy(p->links[i]); /* frees it only */
		}
		p->nlinks = 0;
	}
	probes_detach(p);
	library_probes_free(p->libs);
	p->libs = NULL;
	free(p->links);
	free(p->link_layer);
	free(p->link_prog);
	free(p->link_event);
	p->link_event = NULL;
	p->links = NULL;
	p->link_layer = NULL;
	p->link_prog = NULL;
	ring_buffer__free(p->rb);
	p->rb = NULL;
	dltrace_bpf__destroy(p->second);
	p->second = NULL;
	dltrace_bpf__destroy(p->skel);
	p->skel = NULL;
}

void probes_set_counting(struct probes *p, uint32_t slot, bool on)
{
	if (slot == 0 || slot >= DL_MAX_JOBS)
		return;
	if (on)
		__atomic_or_fetch(&p->skel->bss->count_slots, 1ULL << slot, __ATOMIC_SEQ_CST);
	else
		__atomic_and_fetch(&p->skel->bss->count_slots, ~(1ULL << slot), __ATOMIC_SEQ_CST);
}

int probes_set_job(struct probes *p, uint32_t slot, uint32_t job_id, int cgroup_fd)
{
	struct dltrace_bpf__bss *bss = p->skel->bss;
	int fd = bpf_map__fd(p->skel->maps.job_cgroups);

	if (slot == 0 || slot >= DL_MAX_JOBS)
		return -EINVAL;
	if (cgroup_fd >= 0) {
		if (bpf_map_update_elem(fd, &slot, &cgroup_fd, BPF_ANY))
			return -errno;
		__atomic_or_fetch(&bss->cgroup_slots, 1ULL << slot, __ATOMIC_SEQ_CST);
	} else {
		__atomic_and_fetch(&bss->cgroup_slots, ~(1ULL << slot), __ATOMIC_SEQ_CST);
		bpf_map_delete_elem(fd, &slot);
	}
	bss->job_ids[slot] = job_id;
	if (!job_id)
		probes_set_counting(p, slot, false);
	{
		uint32_t live = 0;

		for (int i = 1; i < DL_MAX_JOBS; i++)
			live += bss->job_ids[i] != 0;
		bss->jobs_live = live;
	}
	__atomic_add_fetch(&bss->dl_gen, 1, __ATOMIC_SEQ_CST);
	return 0;
}

int probes_add_process(struct probes *p, pid_t tgid, uint32_t slot)
{
	uint32_t key = tgid;

	if (bpf_map_update_elem(bpf_map__fd(p->skel->maps.seed_tgids), &key, &slot, BPF_ANY))
		return -errno;
	__atomic_add_fetch(&p->skel->bss->dl_gen, 1, __ATOMIC_SEQ_CST);
	library_probes_add_process(p->libs, tgid);
	return 0;
}

int probes_remove_process(struct probes *p, pid_t tgid)
{
	uint32_t key = tgid;

	return bpf_map_delete_elem(bpf_map__fd(p->skel->maps.seed_tgids), &key) ? -errno : 0;
}

void probes_caches(struct probes *p, struct probe_caches *c)
{
	c->dir_hits = __atomic_load_n(&p->skel->bss->dl_dir_hits, __ATOMIC_RELAXED);
	c->dir_misses = __atomic_load_n(&p->skel->bss->dl_dir_misses, __ATOMIC_RELAXED);
	c->fault_served = __atomic_load_n(&p->skel->bss->dl_fault_served, __ATOMIC_RELAXED);
	c->fault_lookups = __atomic_load_n(&p->skel->bss->dl_fault_lookups, __ATOMIC_RELAXED);
}

void probes_lost(struct probes *p, uint32_t slot, struct lost_counts *lost)
{
	int ncpu = libbpf_num_possible_cpus();
	int fd = bpf_map__fd(p->skel->maps.dl_stats);
	uint64_t *v = calloc(ncpu > 0 ? ncpu : 1, sizeof(*v));
	uint64_t sum[DL_STAT_COUNT] = {0};

	for (uint32_t s = 0; v && s < DL_STAT_COUNT; s++) {
		uint32_t key = slot * DL_STAT_COUNT + s;

		if (bpf_map_lookup_elem(fd, &key, v))
			continue;
		for (int c = 0; c < ncpu; c++)
			sum[s] += v[c];
	}
	free(v);
	lost->events = sum[DL_STAT_LOST];
	lost->bytes = sum[DL_STAT_LOST_BYTES];
	memcpy(lost->by_kind, sum + DL_STAT_LOST_KIND, sizeof(lost->by_kind));
}

int probes_flush_batches(struct probes *p)
{
	struct bpf_link *link = bpf_program__attach_iter(p->skel->progs.dl_flush_batches, NULL);
	char buf[64];
	int fd, err = 0;

	if (!link)
		return -errno;
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0)
		err = -errno;
	else
		while (read(fd, buf, sizeof(buf)) > 0)
			;
	if (fd >= 0)
		close(fd);
	bpf_link__destroy(link);
	return err;
}

/* One pass: records consumed (RECORDS_PER_PASS when more are waiting), or -errno. */
static int consume_pass(struct probes *p)
{
	int n;

	p->pass_records = 0;
	n = ring_buffer__consume(p->rb);
	if (n == -EAGAIN)
		return RECORDS_PER_PASS;
	return n;
}

int probes_drain(struct probes *p)
{
	return consume_pass(p);
}

int probes_drain_backlog(struct probes *p)
{
	/* the smallest record (header and all) is 16 bytes */
	unsigned long most = p->ring_bytes / 16 / RECORDS_PER_PASS + 1;
	int n = 0;

	for (unsigned long pass = 0; pass < most; pass++) {
		int got = consume_pass(p);

		if (got < 0)
			return got;
		n += got;
		if (got < RECORDS_PER_PASS)
			break;
	}
	return n;
}

int probes_poll(struct probes *p, int timeout_ms)
{
	int n;

	p->pass_records = 0;
	n = ring_buffer__poll(p->rb, timeout_ms);
	if (n < 0 && n != -EINTR && n != -EAGAIN)
		return n;
	/* records submitted without a wakeup are not reported by epoll */
	return consume_pass(p);
}
