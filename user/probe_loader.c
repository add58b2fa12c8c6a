// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "probe_loader.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../bpf/dltrace_events.h"
#include "dltrace.skel.h"
#include "system_checks.h"

static bool libbpf_verbose;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG || (!libbpf_verbose && level == LIBBPF_INFO))
		return 0;
	if (!libbpf_verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* "tracepoint/syscalls/sys_enter_openat2": does the kernel have it? */
static bool program_available(struct bpf_program *prog)
{
	const char *sec = bpf_program__section_name(prog);
	char category[64], name[128];

	if (strncmp(sec, "tracepoint/", 11) != 0)
		return true;
	if (sscanf(sec + 11, "%63[^/]/%127s", category, name) != 2)
		return true;
	return tracepoint_exists(category, name);
}

int probes_load(struct probes *p, const struct probe_options *o, ring_buffer_sample_fn cb,
		void *ctx, char *err, size_t errlen)
{
	struct bpf_program *prog;
	int e;

	memset(p, 0, sizeof(*p));
	libbpf_verbose = o->verbose;
	libbpf_set_print(libbpf_print);
	p->skel = dltrace_bpf__open();
	if (!p->skel) {
		snprintf(err, errlen, "cannot open the BPF object: %s", strerror(errno));
		return -1;
	}
	p->skel->rodata->self_tgid = getpid();
	p->skel->rodata->wakeup_bytes = o->ring_bytes / 4;
	bpf_map__set_max_entries(p->skel->maps.events, o->ring_bytes);

	bpf_object__for_each_program (prog, p->skel->obj) {
		if (program_available(prog))
			continue;
		bpf_program__set_autoload(prog, false);
		if (p->skipped++ < 8) {
			size_t n = strlen(p->skipped_names);

			snprintf(p->skipped_names + n, sizeof(p->skipped_names) - n, "%s%s",
				 n ? ", " : "", bpf_program__section_name(prog) + 11);
		}
	}
	e = dltrace_bpf__load(p->skel);
	if (e) {
		snprintf(err, errlen,
			 "the kernel refused dltrace's BPF programs (%s); rerun with --verbose "
			 "for the verifier log",
			 strerror(-e));
		return -1;
	}
	p->rb = ring_buffer__new(bpf_map__fd(p->skel->maps.events), cb, ctx, NULL);
	if (!p->rb) {
		snprintf(err, errlen, "cannot map the ring buffer: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int probes_attach(struct probes *p, char *err, size_t errlen)
{
	struct bpf_program *prog;
	size_t n = 0;

	bpf_object__for_each_program (prog, p->skel->obj)
		n++;
	p->links = calloc(n, sizeof(*p->links));
	if (!p->links) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	bpf_object__for_each_program (prog, p->skel->obj) {
		struct bpf_link *link;

		if (!bpf_program__autoload(prog))
			continue;
		link = bpf_program__attach(prog);
		if (!link) {
			int e = errno;

			snprintf(err, errlen, "cannot attach %s: %s%s",
				 bpf_program__section_name(prog), strerror(e),
				 e == ENOENT ? " (is tracefs mounted at /sys/kernel/tracing?)"
					     : "");
			return -1;
		}
		p->links[p->nlinks++] = link;
	}
	return 0;
}

struct detach_stripe {
	struct probes *p;
	size_t first, step;
};

static void *detach_stripe(void *arg)
{
	struct detach_stripe *d = arg;

	for (size_t i = d->first; i < d->p->nlinks; i += d->step)
		bpf_link__destroy(d->p->links[i]);
	return NULL;
}

/*
 * Each tracepoint detach waits for RCU grace periods (tens of ms); done one
 * after the other, ninety of them take seconds.  Detaching from several
 * threads lets the waits overlap.
 */
void probes_detach(struct probes *p)
{
	enum { THREADS = 16 };
	struct detach_stripe d[THREADS];
	pthread_t tid[THREADS];
	size_t started = 0;

	for (size_t i = 0; i < THREADS && i < p->nlinks; i++) {
		d[i] = (struct detach_stripe){p, i, THREADS};
		if (pthread_create(&tid[i], NULL, detach_stripe, &d[i]))
			break;
		started++;
	}
	for (size_t i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	if (!started)
		detach_stripe(&(struct detach_stripe){p, 0, 1});
	p->nlinks = 0;
}

void probes_release_and_exit_soon(struct probes *p)
{
	int hold[2];
	pid_t pid;
	char c;

	if (!p->nlinks || pipe(hold))
		return;
	/*
	 * A grandchild inherits every link and detaches once this process has
	 * dropped its own references (the pipe reaches EOF), so that it holds
	 * the last ones and pays the kernel's grace periods, not us.
	 */
	pid = fork();
	if (pid == 0) {
		if (fork() == 0) {
			setsid();
			close(hold[1]);
			while (read(hold[0], &c, 1) > 0)
				;
			probes_detach(p);
			_exit(0);
		}
		_exit(0);
	}
	if (pid < 0) {
		probes_detach(p);
		return;
	}
	waitpid(pid, NULL, 0);
	p->released = true;
	close(hold[0]);
	if (hold[1] > 3)
		syscall(SYS_close_range, 3, hold[1] - 1, 0);
	syscall(SYS_close_range, hold[1] + 1, ~0U, 0);
	close(hold[1]);
}

void probes_destroy(struct probes *p)
{
	if (p->released)
		return; /* its descriptors are gone; the process is exiting */
	probes_detach(p);
	free(p->links);
	p->links = NULL;
	ring_buffer__free(p->rb);
	p->rb = NULL;
	dltrace_bpf__destroy(p->skel);
	p->skel = NULL;
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
	__atomic_add_fetch(&bss->dl_gen, 1, __ATOMIC_SEQ_CST);
	return 0;
}

int probes_add_process(struct probes *p, pid_t tgid, uint32_t slot)
{
	uint32_t key = tgid;

	if (bpf_map_update_elem(bpf_map__fd(p->skel->maps.seed_tgids), &key, &slot, BPF_ANY))
		return -errno;
	__atomic_add_fetch(&p->skel->bss->dl_gen, 1, __ATOMIC_SEQ_CST);
	return 0;
}

int probes_remove_process(struct probes *p, pid_t tgid)
{
	uint32_t key = tgid;

	return bpf_map_delete_elem(bpf_map__fd(p->skel->maps.seed_tgids), &key) ? -errno : 0;
}

void probes_lost(struct probes *p, uint32_t slot, uint64_t *events, uint64_t *bytes)
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
	*events = sum[DL_STAT_LOST];
	*bytes = sum[DL_STAT_LOST_BYTES];
}

int probes_drain(struct probes *p)
{
	return ring_buffer__consume(p->rb);
}

int probes_poll(struct probes *p, int timeout_ms)
{
	int n = ring_buffer__poll(p->rb, timeout_ms);

	if (n < 0 && n != -EINTR)
		return n;
	/* records submitted without a wakeup are not reported by epoll */
	return ring_buffer__consume(p->rb);
}
