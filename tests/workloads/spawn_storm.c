// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Short-lived processes at a steady rate: RATE children per second for
 * SECONDS, each opening FILE, reading it and exiting; then THREADS threads
 * (if given) each doing one pread of FILE.  Prints the children's pids and
 * the threads' tids as JSON: {"children": [...], "threads": [...]}.
 * Usage: spawn_storm FILE RATE SECONDS [THREADS]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *file;
static pthread_barrier_t barrier;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *thread_main(void *arg)
{
	char buf[64];
	int fd = open(file, O_RDONLY);

	*(long *)arg = syscall(SYS_gettid);
	/* all threads alive at once */
	pthread_barrier_wait(&barrier);
	if (fd < 0 || pread(fd, buf, sizeof(buf), 0) < 0)
		abort();
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	int rate, nthreads;
	double seconds, start;
	long n = 0, total;
	pid_t *pids;

	if (argc < 4)
		return 2;
	file = argv[1];
	rate = atoi(argv[2]);
	seconds = atof(argv[3]);
	nthreads = argc > 4 ? atoi(argv[4]) : 0;
	total = (long)(rate * seconds);
	pids = calloc(total + 1, sizeof(*pids));
	start = now();
	while (n < total) {
		pid_t pid;

		/* keep to the rate */
		while (now() < start + (double)n / rate)
			usleep(100);
		pid = fork();
		if (pid == 0) {
			char buf[64];
			int fd = open(file, O_RDONLY);

			if (fd < 0 || read(fd, buf, sizeof(buf)) < 0)
				_exit(1);
			_exit(0);
		}
		pids[n++] = pid;
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
	while (wait(NULL) > 0)
		;
	printf("{\"seconds\": %.3f, \"children\": [", now() - start);
	for (long i = 0; i < n; i++)
		printf("%s%d", i ? "," : "", pids[i]);
	printf("], \"threads\": [");
	if (nthreads > 0) {
		pthread_t *t = calloc(nthreads, sizeof(*t));
		long *tids = calloc(nthreads, sizeof(*tids));

		pthread_barrier_init(&barrier, NULL, nthreads);
		for (int i = 0; i < nthreads; i++)
			pthread_create(&t[i], NULL, thread_main, &tids[i]);
		for (int i = 0; i < nthreads; i++)
			pthread_join(t[i], NULL);
		for (int i = 0; i < nthreads; i++)
			printf("%s%ld", i ? "," : "", tids[i]);
	}
	printf("]}\n");
	return 0;
}
