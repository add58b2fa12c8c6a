// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * pread FILE in a loop (4 KiB at offset 0) from THREADS threads until
 * SECONDS have passed (0: until killed), or until each has made COUNT
 * preads (a multiple of 256) when COUNT is given, then print how many preads each
 * thread issued: "count <n>" per thread, then "maxgap_ms <m>": the longest
 * time any thread took for 256 calls (a stalled thread shows there), then
 * "waits <n>": how often the threads went to sleep while reading (their
 * voluntary context switches; a cached pread never sleeps, so a tracer that
 * made the job wait shows there).  With
 * SIGUSR1 it prints the counts
 * so far and exits.  Used by the interruption and overload tests.
 * Usage: busy_reader FILE THREADS SECONDS [COUNT]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 64

static int fd;
static volatile int stop;
static double seconds;
static unsigned long limit; /* preads per thread; 0: no limit */
static unsigned long counts[MAX_THREADS];
static double maxgap[MAX_THREADS];
static long waits[MAX_THREADS];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *reader(void *arg)
{
	unsigned long *count = arg;
	double *gap = &maxgap[count - counts];
	double last = now(), end = seconds > 0 ? last + seconds : 0;
	struct rusage before, after;
	char buf[4096];

	getrusage(RUSAGE_THREAD, &before);
	while (!stop) {
		for (int i = 0; i < 256; i++) {
			if (syscall(SYS_pread64, fd, buf, 4096L, 0L) != 4096)
				abort();
			(*count)++;
		}
		double t = now();

		if (t - last > *gap)
			*gap = t - last;
		last = t;
		if ((end && t >= end) || (limit && *count >= limit))
			break;
	}
	getrusage(RUSAGE_THREAD, &after);
	waits[count - counts] = after.ru_nvcsw - before.ru_nvcsw;
	return NULL;
}

static void on_usr1(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	pthread_t t[MAX_THREADS];
	int n;

	if (argc != 4 && argc != 5)
		return 2;
	if (argc == 5)
		limit = strtoul(argv[4], NULL, 10);
	fd = open(argv[1], O_RDONLY);
	n = atoi(argv[2]);
	seconds = atof(argv[3]);
	if (fd < 0 || n < 1 || n > MAX_THREADS)
		return 2;
	signal(SIGUSR1, on_usr1);
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, reader, &counts[i]);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < n; i++)
		printf("count %lu\n", counts[i]);
	{
		double g = 0;

		for (int i = 0; i < n; i++)
			if (maxgap[i] > g)
				g = maxgap[i];
		printf("maxgap_ms %.1f\n", g * 1e3);
	}
	{
		long w = 0;

		for (int i = 0; i < n; i++)
			w += waits[i];
		printf("waits %ld\n", w);
	}
	return 0;
}
