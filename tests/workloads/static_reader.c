// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A reader with a known count: COUNT preads of SIZE bytes from FILE (at
 * offsets i * SIZE modulo its size), spread over SPREAD seconds, then it
 * waits WAIT seconds (-1: until a signal) before closing the file and
 * exiting.  Built statically (Makefile), so that no dynamic loader reads a
 * library: the job's only reads are these.  Prints nothing.
 *
 * Usage: static_reader FILE COUNT SIZE SPREAD WAIT
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void sleep_until(const struct timespec *start, double at)
{
	struct timespec t = *start;

	t.tv_sec += (time_t)at;
	t.tv_nsec += (long)((at - (time_t)at) * 1e9);
	if (t.tv_nsec >= 1000000000) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000;
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL))
		;
}

int main(int argc, char **argv)
{
	static char buf[1 << 20];
	struct timespec start;
	long count, size, i;
	double spread, wait;
	struct stat st;
	int fd;

	if (argc != 6) {
		fprintf(stderr, "usage: static_reader FILE COUNT SIZE SPREAD WAIT\n");
		return 2;
	}
	count = atol(argv[2]);
	size = atol(argv[3]);
	spread = atof(argv[4]);
	wait = atof(argv[5]);
	if (size <= 0 || size > (long)sizeof(buf))
		return 2;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) || st.st_size < size)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (i = 0; i < count; i++) {
		off_t off = (off_t)(i * size % (st.st_size - st.st_size % size));

		if (pread(fd, buf, size, off) != size)
			return 1;
		if (spread > 0 && i % 50 == 49)
			sleep_until(&start, spread * (i + 1) / count);
	}
	if (wait < 0)
		for (;;)
			pause();
	if (wait > 0)
		sleep_until(&start, spread + wait);
	close(fd);
	return 0;
}
