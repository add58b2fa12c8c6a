// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fd calls: data calls on descriptors, for what naming a descriptor's file
 * at each call costs (bench/fd_identity_cost.py).  Timed inside.
 *
 * Usage: fd_calls one FILE CALLS      4 KiB preads of one descriptor
 *        fd_calls spread FILE CALLS   4 KiB preads of 8 descriptors of FILE in
 *                                     turn (the task's cache of 4 misses)
 *        fd_calls pipe CALLS          8-byte writes and reads of a pipe, in turn
 *
 * Prints one JSON object: "calls", "elapsed_ns", "ns_per_call" and
 * "cpu_ns_per_call" (the process's CPU time per call: BPF programs run in
 * the task's system time; other processes of a busy machine do not
 * inflate it).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SPREAD 8

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	static char buf[4096];
	int fds[SPREAD], nfd = 1, pp[2] = {-1, -1};
	int is_pipe = argc == 3 && !strcmp(argv[1], "pipe");
	long calls;
	uint64_t start, elapsed, cpu;

	if (!is_pipe && (argc != 4 || (strcmp(argv[1], "one") && strcmp(argv[1], "spread")))) {
		fprintf(stderr, "usage: fd_calls one|spread FILE CALLS | fd_calls pipe CALLS\n");
		return 2;
	}
	calls = atol(argv[argc - 1]) / 2 * 2;
	if (is_pipe) {
		if (pipe(pp)) {
			perror("pipe");
			return 1;
		}
	} else {
		nfd = strcmp(argv[1], "spread") ? 1 : SPREAD;
		for (int i = 0; i < nfd; i++) {
			fds[i] = open(argv[2], O_RDONLY);
			if (fds[i] < 0) {
				perror(argv[2]);
				return 1;
			}
		}
	}
	cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	start = clock_ns(CLOCK_MONOTONIC);
	for (long i = 0; i < calls; i++) {
		ssize_t n;

		if (is_pipe)
			n = i & 1 ? read(pp[0], buf, 8) : write(pp[1], buf, 8);
		else
			n = pread(fds[i % nfd], buf, sizeof(buf), 0);
		if (n <= 0) {
			perror("fd_calls");
			return 1;
		}
	}
	elapsed = clock_ns(CLOCK_MONOTONIC) - start;
	cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu;
	printf("{\"workload\":\"fd_calls_%s\",\"calls\":%ld,\"elapsed_ns\":%llu,"
	       "\"ns_per_call\":%.1f,\"cpu_ns_per_call\":%.1f}\n",
	       argv[1], calls, (unsigned long long)elapsed, (double)elapsed / calls,
	       (double)cpu / calls);
	return 0;
}
