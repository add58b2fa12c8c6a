// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fread-heavy loop: small buffered reads of one file through stdio, timed
 * inside; or, with --call LIB:FUNC, a loop calling FUNC (no arguments) of a
 * shared library loaded with dlopen.  The cost of a uprobe on the called
 * function shows up directly in ns_per_call.
 *
 * Usage: fread_loop FILE CALLS [ITEM_BYTES]
 *        fread_loop --call LIB:FUNC CALLS
 *        fread_loop --map LIB FILE CALLS [ITEM_BYTES]   (maps LIB, calls fread)
 *        fread_loop --procs N FILE CALLS [ITEM_BYTES]   (N processes: forks N-1)
 *        fread_loop --pace US ...   (sleep US microseconds after each fread)
 *        fread_loop --spawn CALLS   (fork a child that exits at once, wait; CALLS times)
 *
 * Prints one JSON object: "calls", "elapsed_ns", "ns_per_call".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static unsigned pace_us;

static int fread_loop(const char *file, uint64_t calls, size_t item)
{
	static char buf[1 << 16];
	FILE *f = fopen(file, "rb");
	uint64_t t0, t1;

	if (!f || item == 0 || item > sizeof(buf)) {
		perror(file);
		return 1;
	}
	/* a large stdio buffer: almost every call is served from it */
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	t0 = now_ns();
	for (uint64_t i = 0; i < calls; i++) {
		if (fread(buf, 1, item, f) != item) {
			if (fseek(f, 0, SEEK_SET)) {
				perror("fseek");
				return 1;
			}
		}
		if (pace_us)
			usleep(pace_us);
	}
	t1 = now_ns();
	fclose(f);
	printf("{\"calls\":%llu,\"elapsed_ns\":%llu,\"ns_per_call\":%.2f}\n",
	       (unsigned long long)calls, (unsigned long long)(t1 - t0),
	       (double)(t1 - t0) / (double)calls);
	return 0;
}

static int call_loop(const char *spec, uint64_t calls)
{
	char lib[4096];
	const char *colon = strrchr(spec, ':');
	void *h, *sym;
	uint64_t t0, t1;

	if (!colon || (size_t)(colon - spec) >= sizeof(lib)) {
		fprintf(stderr, "fread_loop: --call LIB:FUNC\n");
		return 2;
	}
	memcpy(lib, spec, colon - spec);
	lib[colon - spec] = '\0';
	h = dlopen(lib, RTLD_NOW);
	sym = h ? dlsym(h, colon + 1) : NULL;
	if (!sym) {
		fprintf(stderr, "fread_loop: %s\n", dlerror());
		return 1;
	}
	t0 = now_ns();
	for (uint64_t i = 0; i < calls; i++)
		((void (*)(void))sym)();
	t1 = now_ns();
	printf("{\"calls\":%llu,\"elapsed_ns\":%llu,\"ns_per_call\":%.2f}\n",
	       (unsigned long long)calls, (unsigned long long)(t1 - t0),
	       (double)(t1 - t0) / (double)calls);
	return 0;
}

static int spawn_loop(uint64_t calls)
{
	uint64_t t0 = now_ns(), t1;

	for (uint64_t i = 0; i < calls; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		if (pid < 0 || waitpid(pid, NULL, 0) != pid) {
			perror("fork");
			return 1;
		}
	}
	t1 = now_ns();
	printf("{\"calls\":%llu,\"elapsed_ns\":%llu,\"ns_per_call\":%.2f}\n",
	       (unsigned long long)calls, (unsigned long long)(t1 - t0),
	       (double)(t1 - t0) / (double)calls);
	return 0;
}

int main(int argc, char **argv)
{
	int procs = 1, rc;

	if (argc >= 3 && !strcmp(argv[1], "--pace")) {
		pace_us = strtoul(argv[2], NULL, 0);
		argv += 2;
		argc -= 2;
	}
	if (argc >= 3 && !strcmp(argv[1], "--spawn"))
		return spawn_loop(strtoull(argv[2], NULL, 0));
	if (argc >= 5 && !strcmp(argv[1], "--procs")) {
		procs = atoi(argv[2]);
		argv += 2;
		argc -= 2;
	}
	for (int i = 1; i < procs; i++) {
		fflush(stdout);
		if (fork() == 0) {
			procs = 1;
			break;
		}
	}
	if (argc >= 4 && !strcmp(argv[1], "--call"))
		return call_loop(argv[2], strtoull(argv[3], NULL, 0));
	if (argc >= 5 && !strcmp(argv[1], "--map")) {
		if (!dlopen(argv[2], RTLD_NOW)) {
			fprintf(stderr, "fread_loop: %s\n", dlerror());
			return 1;
		}
		argv += 2;
		argc -= 2;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: fread_loop FILE CALLS [ITEM_BYTES]\n"
				"       fread_loop --call LIB:FUNC CALLS\n"
				"       fread_loop --map LIB FILE CALLS [ITEM_BYTES]\n");
		return 2;
	}
	rc = fread_loop(argv[1], strtoull(argv[2], NULL, 0),
			argc > 3 ? strtoul(argv[3], NULL, 0) : 8);
	while (procs > 1 && wait(NULL) > 0)
		;
	return rc;
}
