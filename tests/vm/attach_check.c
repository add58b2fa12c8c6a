// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * attach_check FUNC...: for each kernel function, try fentry, fexit, kprobe
 * and kretprobe one at a time, do some file I/O (open, write, writev, fsync,
 * read, readv) and say whether each attached and how often it ran in this
 * process.  Exit status 0 when every method attached and ran at least once.
 * Used by the VM tests to show what the kernel under test offers.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "attach_check.skel.h"

static const char *const method_names[] = {"fentry", "fexit", "kprobe", "kretprobe"};
static int verbose;

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_DEBUG && !verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

static struct bpf_program *method_program(struct attach_check_bpf *skel, int method)
{
	struct bpf_program *progs[] = {skel->progs.on_fentry, skel->progs.on_fexit,
				       skel->progs.on_kprobe, skel->progs.on_kretprobe};
	return progs[method];
}

/* File I/O that passes through the usual VFS entry points. */
static void do_file_io(void)
{
	char path[] = "/tmp/attach-check-XXXXXX";
	char buf[4096];
	struct iovec iov = {buf, sizeof(buf)};
	int fd = mkstemp(path);

	if (fd < 0)
		return;
	memset(buf, 'x', sizeof(buf));
	if (write(fd, buf, sizeof(buf)) < 0 || writev(fd, &iov, 1) < 0 || fsync(fd) < 0)
		perror("attach_check: write");
	close(fd);
	fd = open(path, O_RDONLY);
	if (fd >= 0) {
		if (read(fd, buf, sizeof(buf)) < 0 || readv(fd, &iov, 1) < 0)
			perror("attach_check: read");
		close(fd);
	}
	unlink(path);
}

/* 0 when the method attached to func and ran. */
static int check(const char *func, int method)
{
	struct attach_check_bpf *skel = attach_check_bpf__open();
	struct bpf_program *prog;
	struct bpf_link *link = NULL;
	int err;

	if (!skel) {
		printf("%s %s: open failed: %s\n", func, method_names[method], strerror(errno));
		return 1;
	}
	skel->rodata->target_tgid = getpid();
	for (int m = 0; m < 4; m++)
		bpf_program__set_autoload(method_program(skel, m), m == method);
	prog = method_program(skel, method);
	err = method < 2 ? bpf_program__set_attach_target(prog, 0, func) : 0;
	if (!err)
		err = attach_check_bpf__load(skel);
	if (err) {
		printf("%s %s: load failed: %s\n", func, method_names[method], strerror(-err));
		attach_check_bpf__destroy(skel);
		return 1;
	}
	if (method < 2)
		link = bpf_program__attach(prog);
	else
		link = bpf_program__attach_kprobe(prog, method == 3, func);
	if (!link) {
		err = -errno;
		printf("%s %s: attach failed: %s\n", func, method_names[method], strerror(-err));
		attach_check_bpf__destroy(skel);
		return 1;
	}
	do_file_io();
	bpf_link__destroy(link);
	printf("%s %s: attached, ran %llu times\n", func, method_names[method],
	       (unsigned long long)skel->bss->hits[method]);
	err = skel->bss->hits[method] ? 0 : 1;
	attach_check_bpf__destroy(skel);
	return err;
}

int main(int argc, char **argv)
{
	int failed = 0, first = 1;

	if (argc > 1 && !strcmp(argv[1], "-v")) {
		verbose = 1;
		first = 2;
	}
	if (first >= argc) {
		fprintf(stderr, "usage: attach_check [-v] FUNC...\n");
		return 2;
	}
	libbpf_set_print(print_libbpf);
	for (int i = first; i < argc; i++)
		for (int m = 0; m < 4; m++)
			failed += check(argv[i], m);
	return failed ? 1 : 0;
}
