// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * pystack_check: dltrace's BPF programs with Python stacks on, and one line
 * per traced syscall with the Python frames the kernel side found.  A
 * proof of the walk and of the records before they reach dltrace's
 * decoder and writer (tests/test_python_stacks.py reads its output).
 *
 *   pystack_check [OPTIONS] -- COMMAND [ARG]...
 *   pystack_check [OPTIONS] --pid PID
 *
 * --all-kinds: stacks at every syscall (default: not at lseek, close, dup);
 * --skip PATTERN: a rule of the application frame (as --python-skip);
 * --no-stacks: the same programs without the walk (for cost comparisons);
 * --kernel-follows: user space looks at the command's first program and the
 *   --pid processes only, later execs are left to the kernel side (a known
 *   interpreter file is recognized at exec or when libpython is mapped);
 * --quiet: only the counts at the end; -o FILE: output there.
 *
 * At the end, per application location and syscall (what the report's
 * per-location table adds up): "loc  APP  NAME  CALLS  BYTES" (BYTES:
 * what data syscalls returned).
 *
 * Output, tab separated, one line per syscall of a traced process:
 *   sys  PID  TID  TS  DUR  NAME  PATH  FD  RET  STACK  APP  FRAMES
 * (TS: the syscall's entry, CLOCK_MONOTONIC ns; DUR: ns to its exit)
 * STACK is "-" (no stack), or the stack id followed by T when the walk was
 * cut at its frame limit and B when a read failed; APP is the innermost
 * application frame ("file:line function", the file's full path); FRAMES
 * all frames, innermost first, separated by " | ".  Lines starting with
 * "#" are remarks (unsupported interpreters, counts at the end).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "bpf/dltrace_events.h"
#include "decode/path_rebuild.h"
#include "decode/python_frames.h"
#include "event/syscall_table.h"
#include "lib/string_index.h"
#include "lib/u64_index.h"
#include "live/command_launcher.h"
#include "lib/proc_scan.h"
#include "probe/probe_loader.h"
#include "probe/python_probe.h"

#define SLOT	    1
#define FRAMES_TEXT 8192

struct tool {
	struct probes probes;
	struct py_probe py;
	struct py_frames *frames;
	struct py_rules rules;
	FILE *out;
	/* descriptor -> path, per process: (tgid << 32 | fd) -> paths[] */
	struct u64_index fds;
	char **paths;
	uint32_t npaths, cappaths;
	uint64_t syscalls, with_stack, stack_records, code_records, truncated;
	/* per (application location, syscall): calls and bytes */
	struct string_index locs;
	uint64_t *loc_calls, *loc_bytes;
	uint32_t loc_cap;
	bool quiet; /* counts only, no line per syscall */
	bool stacks;
	bool kernel_follows; /* no user-space look at execs after the command's first */
	bool cmd_execd;
	pid_t cmd_pid;
	volatile sig_atomic_t stop;
};

static void warn_line(void *ctx, const char *line)
{
	struct tool *t = ctx;

	fprintf(t->out, "# %s\n", line);
	fprintf(stderr, "pystack_check: %s\n", line);
}

static void set_fd(struct tool *t, uint32_t tgid, int fd, const char *path)
{
	uint64_t key = (uint64_t)tgid << 32 | (uint32_t)fd;
	uint32_t i = u64_index_get(&t->fds, key);

	if (i != U64_NONE) {
		free(t->paths[i]);
		t->paths[i] = path ? strdup(path) : NULL;
		return;
	}
	if (!path)
		return;
	if (t->npaths == t->cappaths) {
		uint32_t cap = t->cappaths ? 2 * t->cappaths : 256;
		char **p = realloc(t->paths, cap * sizeof(*p));

		if (!p)
			return;
		t->paths = p;
		t->cappaths = cap;
	}
	if (u64_index_put(&t->fds, key, t->npaths))
		return;
	t->paths[t->npaths++] = strdup(path);
}

static const char *fd_path(struct tool *t, uint32_t tgid, int fd)
{
	uint32_t i = u64_index_get(&t->fds, (uint64_t)tgid << 32 | (uint32_t)fd);

	return i == U64_NONE || !t->paths[i] ? "" : t->paths[i];
}

static void on_syscall(struct tool *t, const struct dl_io *io, size_t size)
{
	const struct syscall_info *info = syscall_info(io->h.kind);
	char path[PATH_REBUILD_MAX] = "", frames[FRAMES_TEXT], app[1024] = "", stack[32] = "-";
	struct py_frame f[DL_PY_FRAMES];
	uint32_t id = dl_py_stack_of(io, size);
	unsigned flags = 0;
	int n = 0, fd = io->h.fd;
	size_t len = 0;

	if (!info)
		return;
	t->syscalls++;
	if (t->quiet) {
		t->with_stack += id != 0;
		return;
	}
	if (dl_kind_has_path(io->h.kind) && size >= sizeof(struct dl_path)) {
		const struct dl_path *p = (const void *)io;

		if (p->how[0] && sizeof(*p) + p->base_len[0] + p->name_len[0] <= size)
			path_rebuild(p->data, p->base_len[0], p->data + p->base_len[0],
				     p->name_len[0], p->how[0], path);
		if (info->opens && io->ret >= 0) {
			set_fd(t, io->h.tgid, io->ret, path);
			fd = io->ret;
		} else if (!path[0] && fd >= 0) {
			/* fstatat(fd, "", AT_EMPTY_PATH): the descriptor's file */
			snprintf(path, sizeof(path), "%s", fd_path(t, io->h.tgid, fd));
		}
	} else if (fd >= 0) {
		snprintf(path, sizeof(path), "%s", fd_path(t, io->h.tgid, fd));
		if (io->h.kind == DL_SYS_CLOSE && io->ret == 0)
			set_fd(t, io->h.tgid, fd, NULL);
	}
	frames[0] = '\0';
	if (id) {
		n = py_frames_stack(t->frames, io->h.tgid, id, f, DL_PY_FRAMES, &flags);
		snprintf(stack, sizeof(stack), "%u%s%s", id, flags & DL_PYS_TRUNCATED ? "T" : "",
			 flags & DL_PYS_BROKEN ? "B" : "");
		t->with_stack++;
		t->truncated += !!(flags & DL_PYS_TRUNCATED);
	}
	for (int i = 0; i < n && len < sizeof(frames) - 1; i++) {
		len += snprintf(frames + len, sizeof(frames) - len, "%s", i ? " | " : "");
		if (len < sizeof(frames))
			len += py_frame_format(&f[i], true, frames + len, sizeof(frames) - len);
		if (getenv("PYSTACK_DEBUG") && len < sizeof(frames))
			len += snprintf(frames + len, sizeof(frames) - len, " [%llx@%d]",
					(unsigned long long)f[i].code, f[i].lasti);
	}
	if (n) {
		char key[1200];
		int k;
		uint32_t at;

		py_frame_format(&f[py_frames_app(&t->rules, f, n)], true, app, sizeof(app));
		k = snprintf(key, sizeof(key), "%s\t%s", app, info->name);
		at = string_index_put(&t->locs, key,
				      k < (int)sizeof(key) ? k : (int)sizeof(key) - 1);
		if (at != STRING_NONE && at >= t->loc_cap) {
			uint32_t cap = t->loc_cap ? 2 * t->loc_cap : 256;
			uint64_t *c = realloc(t->loc_calls, cap * sizeof(*c));
			uint64_t *b = c ? realloc(t->loc_bytes, cap * sizeof(*b)) : NULL;

			if (c)
				t->loc_calls = c;
			if (b) {
				t->loc_bytes = b;
				memset(c + t->loc_cap, 0, (cap - t->loc_cap) * sizeof(*c));
				memset(b + t->loc_cap, 0, (cap - t->loc_cap) * sizeof(*b));
				t->loc_cap = cap;
			}
		}
		if (at != STRING_NONE && at < t->loc_cap) {
			t->loc_calls[at]++;
			if ((info->reads || info->writes) && io->ret > 0 &&
			    io->h.kind != DL_SYS_MMAP)
				t->loc_bytes[at] += io->ret;
		}
	}
	fprintf(t->out, "sys\t%u\t%u\t%llu\t%llu\t%s\t%s\t%d\t%lld\t%s\t%s\t%s\n", io->h.tgid,
		io->h.tid, (unsigned long long)io->h.ts, (unsigned long long)io->dur, info->name,
		path, fd, (long long)io->ret, stack, app, frames);
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct tool *t = ctx;
	const struct dl_hdr *h = data;

	if (size < sizeof(*h))
		return 0;
	if (h->kind < DL_SYS_COUNT) {
		if (h->flags & DL_F_BATCH) {
			for (size_t off = 0; off + sizeof(struct dl_io) <= size;
			     off += sizeof(struct dl_io))
				on_syscall(t, (const struct dl_io *)((char *)data + off),
					   sizeof(struct dl_io));
		} else if (size >= sizeof(struct dl_io)) {
			on_syscall(t, data, size);
		}
		return 0;
	}
	switch (h->kind) {
	case DL_EV_EXEC:
		if (t->kernel_follows && (t->cmd_execd || (pid_t)h->tgid != t->cmd_pid))
			break;
		t->cmd_execd |= (pid_t)h->tgid == t->cmd_pid;
		if (t->stacks && size >= sizeof(struct dl_proc))
			py_probe_exec(&t->py, data, size);
		break;
	case DL_EV_PY_STACK:
		t->stack_records++;
		if (py_frames_record(t->frames, data, size))
			fprintf(t->out, "# malformed stack record (%zu bytes)\n", size);
		break;
	case DL_EV_PY_CODE:
		t->code_records++;
		if (py_frames_record(t->frames, data, size))
			fprintf(t->out, "# malformed code record (%zu bytes)\n", size);
		break;
	default:
		break;
	}
	return 0;
}

static struct tool *the_tool;

static void on_signal(int sig)
{
	(void)sig;
	if (the_tool)
		the_tool->stop = 1;
}

static void seed(pid_t pid, void *ctx)
{
	struct tool *t = ctx;

	probes_add_process(&t->probes, pid, SLOT);
	if (t->stacks)
		py_probe_process(&t->py, pid);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: pystack_check [--all-kinds] [--skip PATTERN]... [--no-stacks] "
		"[--kernel-follows] [--quiet] [-o FILE] (--pid PID | -- COMMAND [ARG]...)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"pid", required_argument, NULL, 'p'}, {"skip", required_argument, NULL, 's'},
	    {"all-kinds", no_argument, NULL, 'a'}, {"output", required_argument, NULL, 'o'},
	    {"no-stacks", no_argument, NULL, 'n'}, {"kernel-follows", no_argument, NULL, 'k'},
	    {"quiet", no_argument, NULL, 'q'},	   {NULL, 0, NULL, 0},
	};
	struct probe_options po = {.ring_bytes = 64 << 20,
				   .layers = 1u << DL_LAYER_SYSCALL,
				   .verbose = getenv("PYSTACK_VERBOSE") != NULL};
	struct tool *t = calloc(1, sizeof(*t));
	uint64_t kinds = py_probe_default_kinds(), nstacks, ncodes;
	struct command cmd = {.pid = -1};
	char err[512];
	pid_t target = 0;
	int c, status = 0, rc = 0;
	bool exited = false, stacks = true;

	if (!t)
		return 1;
	t->out = stdout;
	py_rules_init(&t->rules);
	u64_index_init(&t->fds);
	string_index_init(&t->locs);
	while ((c = getopt_long(argc, argv, "+o:", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			target = atoi(optarg);
			break;
		case 's':
			if (py_rules_add(&t->rules, optarg, err, sizeof(err))) {
				fprintf(stderr, "pystack_check: %s\n", err);
				return 2;
			}
			break;
		case 'a':
			kinds = ~0ull; /* every kind below 64: the metadata kinds get none */
			break;
		case 'n':
			stacks = false;
			break;
		case 'k':
			t->kernel_follows = true;
			break;
		case 'q':
			t->quiet = true;
			break;
		case 'o':
			t->out = fopen(optarg, "w");
			if (!t->out) {
				perror(optarg);
				return 1;
			}
			break;
		default:
			usage();
		}
	}
	if ((target > 0) == (optind < argc))
		usage();
	setvbuf(t->out, NULL, _IOFBF, 1 << 16);
	if (stacks && py_probe_options(&po, kinds, err, sizeof(err))) {
		fprintf(stderr, "pystack_check: %s\n", err);
		return 1;
	}
	t->stacks = stacks;
	t->frames = py_frames_new();
	if (optind < argc && command_prepare(&cmd, argv + optind, err, sizeof(err))) {
		fprintf(stderr, "pystack_check: %s\n", err);
		return 1;
	}
	if (probes_load(&t->probes, &po, on_record, t, err, sizeof(err)) ||
	    (stacks && py_probe_init(&t->py, &t->probes, warn_line, t, err, sizeof(err))) ||
	    probes_attach(&t->probes, err, sizeof(err)) ||
	    probes_set_job(&t->probes, SLOT, 1, -1)) {
		fprintf(stderr, "pystack_check: %s\n", err);
		if (cmd.pid > 0)
			command_abort(&cmd);
		return 1;
	}
	the_tool = t;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (target > 0) {
		if (!proc_exists(target) || proc_for_each_descendant(target, seed, t) < 1) {
			fprintf(stderr, "pystack_check: no process %d\n", (int)target);
			return 1;
		}
		fprintf(stderr, "pystack_check: attached to %d\n", (int)target);
	} else {
		t->cmd_pid = cmd.pid;
		if (stacks)
			py_probe_command(&t->py, argv[optind], cmd.pid);
		probes_add_process(&t->probes, cmd.pid, SLOT | DL_SEED_AT_EXEC);
		if (command_release(&cmd, err, sizeof(err))) {
			fprintf(stderr, "pystack_check: %s\n", err);
			return 1;
		}
	}
	while (!t->stop && !exited) {
		probes_poll(&t->probes, 10);
		if (t->stacks)
			py_probe_poll(&t->py);
		if (target > 0)
			exited = kill(target, 0) && errno == ESRCH;
		else if (waitpid(cmd.pid, &status, WNOHANG) == cmd.pid)
			exited = true;
	}
	probes_set_job(&t->probes, SLOT, 0, -1);
	probes_flush_batches(&t->probes);
	while (probes_drain(&t->probes) > 0)
		;
	for (uint32_t i = 0; i < t->locs.count && i < t->loc_cap; i++)
		fprintf(t->out, "loc\t%s\t%llu\t%llu\n", string_at(&t->locs, i),
			(unsigned long long)t->loc_calls[i], (unsigned long long)t->loc_bytes[i]);
	py_frames_counts(t->frames, &nstacks, &ncodes);
	fprintf(t->out,
		"# syscalls %llu with_stack %llu truncated %llu stack_records %llu "
		"code_records %llu python_processes %u known_stacks %llu known_codes %llu\n",
		(unsigned long long)t->syscalls, (unsigned long long)t->with_stack,
		(unsigned long long)t->truncated, (unsigned long long)t->stack_records,
		(unsigned long long)t->code_records, t->py.processes, (unsigned long long)nstacks,
		(unsigned long long)ncodes);
	{
		struct lost_counts lost;

		probes_lost(&t->probes, SLOT, &lost);
		fprintf(t->out, "# lost %llu\n", (unsigned long long)lost.events);
	}
	/* with kernel.bpf_stats_enabled=1: each program's own run time */
	for (size_t i = 0; i < t->probes.nlinks; i++) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);

		memset(&info, 0, sizeof(info));
		if (!bpf_obj_get_info_by_fd(bpf_program__fd(t->probes.link_prog[i]), &info, &len) &&
		    info.run_cnt)
			fprintf(t->out, "# prog %s run_cnt %llu run_time_ns %llu\n",
				bpf_program__name(t->probes.link_prog[i]),
				(unsigned long long)info.run_cnt,
				(unsigned long long)info.run_time_ns);
	}
	fflush(t->out);
	if (t->out != stdout)
		fclose(t->out);
	if (target <= 0)
		rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	/* detaching takes the kernel seconds: a helper process does it (as dltrace) */
	probes_release_and_exit_soon(&t->probes);
	probes_destroy(&t->probes);
	py_probe_free(&t->py);
	py_frames_free(t->frames);
	return rc;
}
