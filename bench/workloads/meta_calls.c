// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * meta calls: the cheap metadata syscalls a job makes by the thousand
 * (access, fcntl F_GETFL, fstatfs of one file, in turn), or a syscall
 * dltrace never traces (getppid), for what a hook on every syscall costs.
 * Each call is made with syscall(2), timed inside.
 *
 * Usage: meta_calls FILE CALLS [--other]
 *
 * Prints one JSON object: "calls", "elapsed_ns", "ns_per_call", and
 * "cpu_ns_per_call": the process's CPU time per call, which a busy machine's
 * other processes do not inflate (BPF programs run in the task's system
 * time).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	int other = argc == 4 && !strcmp(argv[3], "--other");
	long calls, fd;
	uint64_t start, elapsed, cpu;
	struct statfs sfs;

	if (argc != 3 && !other) {
		fprintf(stderr, "usage: meta_calls FILE CALLS [--other]\n");
		return 2;
	}
	calls = atol(argv[2]) / 3 * 3;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || calls <= 0) {
		perror(argv[1]);
		return 1;
	}
	cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	start = clock_ns(CLOCK_MONOTONIC);
	if (other) {
		for (long i = 0; i < calls; i++)
			syscall(SYS_getppid);
	} else {
		for (long i = 0; i < calls; i += 3) {
			if (syscall(SYS_access, argv[1], (long)R_OK) ||
			    syscall(SYS_fcntl, fd, (long)F_GETFL) < 0 ||
			    syscall(SYS_fstatfs, fd, &sfs)) {
				perror("meta_calls");
				return 1;
			}
		}
	}
	elapsed = clock_ns(CLOCK_MONOTONIC) - start;
	cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu;
	printf("{\"workload\":\"meta_calls%s\",\"calls\":%ld,\"elapsed_ns\":%llu,"
	       "\"ns_per_call\":%.1f,\"cpu_ns_per_call\":%.1f}\n",
	       other ? "_other" : "", calls, (unsigned long long)elapsed, (double)elapsed / calls,
	       (double)cpu / calls);
	return 0;
}
