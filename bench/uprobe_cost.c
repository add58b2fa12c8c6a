// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What a uprobe costs, and to whom (bench/uprobe_cost.py drives it).
 *
 * uprobe_cost run MODE LIB FUNCS -- COMMAND...
 *     Start COMMAND held, attach an entry and a return program to each
 *     function of FUNCS (comma separated) in LIB, release COMMAND, wait.
 *     MODE: none (nothing attached), global (every process, COMMAND is not
 *     traced), other (attached for another process only), traced (attached
 *     for COMMAND, which is traced: one ring record per call), traced-global
 *     (attached for every process, COMMAND traced), inherit (tracefs uprobe
 *     events opened for COMMAND with perf's inherit: its children and
 *     threads too; they are all traced).
 *     Prints COMMAND's output, then {"attach_ms":..,"hits":..,"records":..}.
 *
 * uprobe_cost attach-time LIB FUNCS REPS [global|inherit]
 *     Attach and detach the programs for a sleeping process (or every
 *     process) REPS times; prints one JSON line per rep with the times and
 *     how many processes map LIB.
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "probe/elf_symbols.h"
#include "uprobe_cost.skel.h"

#define MAX_FUNCS 32

static struct uprobe_cost_bpf *skel;
static struct bpf_link *links[2 * MAX_FUNCS];
static int nlinks;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

static int attach_all(const char *lib, const char *funcs, pid_t pid)
{
	char list[1024], *save = NULL;

	snprintf(list, sizeof(list), "%s", funcs);
	for (char *f = strtok_r(list, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
		for (int ret = 0; ret < 2 && nlinks < 2 * MAX_FUNCS; ret++) {
			LIBBPF_OPTS(bpf_uprobe_opts, o, .func_name = f, .retprobe = ret);
			struct bpf_program *prog =
			    ret ? skel->progs.cost_return : skel->progs.cost_entry;
			struct bpf_link *l = bpf_program__attach_uprobe_opts(prog, pid, lib, 0, &o);

			if (!l) {
				fprintf(stderr, "uprobe_cost: cannot attach %s:%s: %s\n", lib, f,
					strerror(errno));
				return -1;
			}
			links[nlinks++] = l;
		}
	}
	return 0;
}

#define TRACEFS "/sys/kernel/tracing"
static char events[2 * MAX_FUNCS][64]; /* tracefs uprobe events made (inherit mode) */
static int nevents;

static int tracefs_write(const char *line)
{
	int fd = open(TRACEFS "/uprobe_events", O_WRONLY | O_APPEND | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : write(fd, line, strlen(line));
	int err = n < 0 ? errno : 0;

	if (fd >= 0)
		close(fd);
	return err;
}

/* A tracefs uprobe event opened for pid and its future children and threads. */
static struct bpf_link *attach_inherit(struct bpf_program *prog, const char *lib, uint64_t off,
				       bool ret, const char *func, pid_t pid)
{
	struct perf_event_attr attr = {0};
	char line[4600], path[256], id[32];
	int fd, pfd, err;
	ssize_t n;
	struct bpf_link *link;

	snprintf(events[nevents], sizeof(events[0]), "dlcost%d/%c_%s", (int)getpid(),
		 ret ? 'r' : 'p', func);
	snprintf(line, sizeof(line), "%c:%s %s:0x%llx\n", ret ? 'r' : 'p', events[nevents], lib,
		 (unsigned long long)off);
	err = tracefs_write(line);
	if (err) {
		errno = err;
		return NULL;
	}
	nevents++;
	snprintf(path, sizeof(path), TRACEFS "/events/%s/id", events[nevents - 1]);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, id, sizeof(id) - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return NULL;
	id[n] = '\0';
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = strtoull(id, NULL, 10);
	attr.sample_period = 1;
	attr.wakeup_events = 1;
	attr.inherit = 1;
	pfd = syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0)
		return NULL;
	link = bpf_program__attach_perf_event(prog, pfd);
	if (!link)
		close(pfd);
	return link;
}

static int attach_all_inherit(const char *lib, const char *funcs, pid_t pid)
{
	char list[1024], *save = NULL;
	struct elf_symbols *e = elf_symbols_open(lib);

	if (!e)
		return -1;
	snprintf(list, sizeof(list), "%s", funcs);
	for (char *f = strtok_r(list, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
		uint64_t off;

		if (elf_function_offset(e, f, &off)) {
			fprintf(stderr, "uprobe_cost: no function %s in %s\n", f, lib);
			return -1;
		}
		for (int ret = 0; ret < 2 && nlinks < 2 * MAX_FUNCS; ret++) {
			struct bpf_program *prog =
			    ret ? skel->progs.cost_return : skel->progs.cost_entry;
			struct bpf_link *l = attach_inherit(prog, lib, off, ret, f, pid);

			if (!l) {
				fprintf(stderr, "uprobe_cost: cannot attach %s:%s (inherit): %s\n",
					lib, f, strerror(errno));
				return -1;
			}
			links[nlinks++] = l;
		}
	}
	elf_symbols_close(e);
	return 0;
}

static void detach_all(void)
{
	char line[128];

	while (nlinks)
		bpf_link__destroy(links[--nlinks]);
	while (nevents) {
		snprintf(line, sizeof(line), "-:%s\n", events[--nevents]);
		tracefs_write(line);
	}
}

static void print_per_tgid(void)
{
	int fd = bpf_map__fd(skel->maps.per_tgid);
	__u32 key, next, *prev = NULL;
	__u64 n;

	printf("{\"per_tgid\":{");
	for (int first = 1; !bpf_map_get_next_key(fd, prev, &next); first = 0) {
		key = next;
		prev = &key;
		if (!bpf_map_lookup_elem(fd, &key, &n))
			printf("%s\"%u\":%llu", first ? "" : ",", key, (unsigned long long)n);
	}
	printf("}}\n");
}

static int drained(void *ctx, void *data, size_t size)
{
	(void)ctx;
	(void)data;
	(void)size;
	return 0;
}

/* A process that only sleeps, for the programs of another process. */
static pid_t sleeper(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

static int run(const char *mode, const char *lib, const char *funcs, char **cmd)
{
	int hold[2], status;
	pid_t child, other = -1;
	struct ring_buffer *rb;
	double t0, t1 = 0;
	char c = 0;

	if (pipe(hold))
		return 1;
	child = fork();
	if (child == 0) {
		close(hold[1]);
		if (read(hold[0], &c, 1) != 1)
			_exit(126);
		execvp(cmd[0], cmd);
		_exit(127);
	}
	close(hold[0]);
	t0 = now_ms();
	if (!strcmp(mode, "global")) {
		if (attach_all(lib, funcs, -1))
			return 1;
	} else if (!strcmp(mode, "other")) {
		other = sleeper();
		if (attach_all(lib, funcs, other))
			return 1;
	} else if (!strcmp(mode, "traced")) {
		skel->bss->traced_tgid = child;
		if (attach_all(lib, funcs, child))
			return 1;
	} else if (!strcmp(mode, "traced-global")) {
		skel->bss->traced_tgid = child;
		if (attach_all(lib, funcs, -1))
			return 1;
	} else if (!strcmp(mode, "global-all")) {
		skel->bss->trace_all = 1;
		if (attach_all(lib, funcs, -1))
			return 1;
	} else if (!strcmp(mode, "inherit")) {
		skel->bss->trace_all = 1;
		if (attach_all_inherit(lib, funcs, child))
			return 1;
	} else if (!strcmp(mode, "inherit-other")) {
		other = sleeper();
		if (attach_all_inherit(lib, funcs, other))
			return 1;
	} else if (strcmp(mode, "none")) {
		fprintf(stderr, "uprobe_cost: unknown mode %s\n", mode);
		return 2;
	}
	t1 = now_ms();
	rb = ring_buffer__new(bpf_map__fd(skel->maps.cost_ring), drained, NULL, NULL);
	fflush(stdout);
	if (write(hold[1], &c, 1) != 1)
		return 1;
	close(hold[1]);
	/* records are submitted without a wakeup: consume on a timer */
	while (waitpid(child, &status, WNOHANG) == 0) {
		usleep(5000);
		ring_buffer__consume(rb);
	}
	ring_buffer__consume(rb);
	ring_buffer__free(rb);
	if (other > 0) {
		kill(other, SIGKILL);
		waitpid(other, NULL, 0);
	}
	if (skel->bss->trace_all)
		print_per_tgid();
	printf("{\"attach_ms\":%.3f,\"links\":%d,\"hits\":%llu,\"returns\":%llu,\"unpaired\":%llu,"
	       "\"records\":%llu,\"lost\":%llu}\n",
	       t1 - t0, nlinks, (unsigned long long)skel->bss->hits,
	       (unsigned long long)skel->bss->returns, (unsigned long long)skel->bss->unpaired,
	       (unsigned long long)skel->bss->records, (unsigned long long)skel->bss->lost);
	detach_all();
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* Processes whose memory maps lib (by name in /proc/PID/maps). */
static int mapping_processes(const char *lib)
{
	const char *base = strrchr(lib, '/') ? strrchr(lib, '/') + 1 : lib;
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d))) {
		char path[300], line[4096];
		FILE *f;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/maps", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			if (strstr(line, base)) {
				n++;
				break;
			}
		}
		fclose(f);
	}
	if (d)
		closedir(d);
	return n;
}

static int attach_time(const char *lib, const char *funcs, int reps, bool global, bool inherit)
{
	pid_t other = global ? -1 : sleeper();
	int mappers = mapping_processes(lib);

	for (int r = 0; r < reps; r++) {
		double t0 = now_ms(), t1, t2;
		int n;

		if (inherit ? attach_all_inherit(lib, funcs, other) : attach_all(lib, funcs, other))
			return 1;
		t1 = now_ms();
		n = nlinks;
		detach_all();
		t2 = now_ms();
		printf("{\"rep\":%d,\"links\":%d,\"attach_ms\":%.3f,\"detach_ms\":%.3f,"
		       "\"mapping_processes\":%d}\n",
		       r, n, t1 - t0, t2 - t1, mappers);
	}
	if (other > 0) {
		kill(other, SIGKILL);
		waitpid(other, NULL, 0);
	}
	return 0;
}

int main(int argc, char **argv)
{
	int rc;

	if (argc < 2) {
		fprintf(stderr, "usage: uprobe_cost run MODE LIB FUNCS -- COMMAND...\n"
				"       uprobe_cost attach-time LIB FUNCS REPS [global|inherit]\n");
		return 2;
	}
	libbpf_set_print(quiet);
	skel = uprobe_cost_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "uprobe_cost: cannot load the programs: %s\n", strerror(errno));
		return 1;
	}
	if (!strcmp(argv[1], "run") && argc >= 7 && !strcmp(argv[5], "--"))
		rc = run(argv[2], argv[3], argv[4], argv + 6);
	else if (!strcmp(argv[1], "attach-time") && argc >= 5)
		rc = attach_time(argv[2], argv[3], atoi(argv[4]),
				 argc > 5 && !strcmp(argv[5], "global"),
				 argc > 5 && !strcmp(argv[5], "inherit"));
	else
		rc = 2;
	uprobe_cost_bpf__destroy(skel);
	return rc;
}
