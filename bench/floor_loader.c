// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Attach the floor's empty programs system-wide, as dltrace attaches its
 * own, and keep them until SIGTERM or SIGINT.  Tracepoints this kernel
 * lacks are skipped, as dltrace skips them.
 *
 * Usage: floor_loader FLOOR_BPF_OBJECT
 * Prints "ready N" (N programs attached) once everything is attached.
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

static int silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

/* "tracepoint/CATEGORY/NAME": does tracefs list it? */
static int tracepoint_missing(const char *section)
{
	char category[64], name[128], path[512];

	if (strncmp(section, "tracepoint/", 11) ||
	    sscanf(section + 11, "%63[^/]/%127s", category, name) != 2)
		return 0;
	snprintf(path, sizeof(path), TRACEFS "/events/%s/%s/id", category, name);
	return access(path, F_OK) != 0;
}

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	sigset_t stop;
	int attached = 0, sig;

	if (argc != 2) {
		fprintf(stderr, "usage: floor_loader FLOOR_BPF_OBJECT\n");
		return 2;
	}
	libbpf_set_print(silent);
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
	bpf_object__for_each_program (prog, obj) {
		if (tracepoint_missing(bpf_program__section_name(prog)))
			bpf_program__set_autoload(prog, false);
	}
	if (bpf_object__load(obj)) {
		fprintf(stderr, "floor_loader: the kernel refused the programs\n");
		return 1;
	}
	bpf_object__for_each_program (prog, obj) {
		if (!bpf_program__autoload(prog))
			continue;
		if (!bpf_program__attach(prog)) {
			fprintf(stderr, "floor_loader: cannot attach %s: %s\n",
				bpf_program__section_name(prog), strerror(errno));
			return 1;
		}
		attached++;
	}
	printf("ready %d\n", attached);
	fflush(stdout);
	sigwait(&stop, &sig);
	/* exiting closes every link and program */
	return 0;
}
