// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Attach the floor's empty programs system-wide, as dltrace attaches its
 * own, and keep them until SIGTERM or SIGINT.  Only the programs named on
 * the command line are loaded: the benchmark names those dltrace attached
 * on this kernel with its default options.
 *
 * Usage: floor_loader FLOOR_BPF_OBJECT PROGRAM...
 * PROGRAM is a name (attached where its section says), or
 * NAME@CATEGORY/EVENT for a program dltrace attaches to several
 * tracepoints (its shared programs): one attachment per such argument.
 * Prints "ready N" (N attachments) once everything is attached.
 * USDT programs (the markers layer) are not attached: dltrace attaches
 * them to the marker library's file, and they cost only the processes
 * that run a marker, which the workloads do at most once per step.
 */
#define _GNU_SOURCE
#include <bpf/libbpf.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#define TRACEFS "/sys/kernel/tracing"

static int warnings_only(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

/* The argument's program name: up to '@' when it has one. */
static int names(const char *arg, const char *name)
{
	size_t n = strcspn(arg, "@");

	return strlen(name) == n && !strncmp(arg, name, n);
}

static int named(const char *name, int argc, char **argv)
{
	for (int i = 2; i < argc; i++)
		if (names(argv[i], name))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	sigset_t stop;
	int attached = 0, skipped = 0, sig;

	if (argc < 3) {
		fprintf(stderr, "usage: floor_loader FLOOR_BPF_OBJECT PROGRAM...\n");
		return 2;
	}
	libbpf_set_print(warnings_only);
	if (access(TRACEFS "/events", F_OK))
		mount("nodev", TRACEFS, "tracefs", 0, NULL);
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigprocmask(SIG_BLOCK, &stop, NULL);

	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "floor_loader: cannot open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	for (int i = 2; i < argc; i++) {
		char name[128];

		snprintf(name, sizeof(name), "%.*s", (int)strcspn(argv[i], "@"), argv[i]);
		if (!bpf_object__find_program_by_name(obj, name)) {
			fprintf(stderr, "floor_loader: no program %s in %s (rebuild it)\n", argv[i],
				argv[1]);
			return 1;
		}
	}
	bpf_object__for_each_program (prog, obj)
		bpf_program__set_autoload(prog, named(bpf_program__name(prog), argc, argv));
	if (bpf_object__load(obj)) {
		fprintf(stderr, "floor_loader: the kernel refused the programs\n");
		return 1;
	}
	for (int i = 2; i < argc; i++) {
		char category[64], event[128];

		if (sscanf(argv[i], "%*[^@]@%63[^/]/%127s", category, event) != 2)
			continue;
		bpf_object__for_each_program (prog, obj) {
			if (!names(argv[i], bpf_program__name(prog)))
				continue;
			if (!bpf_program__attach_tracepoint(prog, category, event)) {
				fprintf(stderr, "floor_loader: cannot attach %s: %s\n", argv[i],
					strerror(errno));
				return 1;
			}
			attached++;
		}
	}
	bpf_object__for_each_program (prog, obj) {
		if (!bpf_program__autoload(prog) ||
		    !strcmp(bpf_program__section_name(prog), "tracepoint"))
			continue;
		if (!strncmp(bpf_program__section_name(prog), "usdt", 4)) {
			skipped++;
			continue;
		}
		if (!bpf_program__attach(prog)) {
			fprintf(stderr, "floor_loader: cannot attach %s: %s\n",
				bpf_program__section_name(prog), strerror(errno));
			return 1;
		}
		attached++;
	}
	if (skipped)
		fprintf(stderr, "floor_loader: %d USDT programs not attached (marker library)\n",
			skipped);
	printf("ready %d\n", attached);
	fflush(stdout);
	sigwait(&stop, &sig);
	/* exiting closes every link and program */
	return 0;
}
