// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A job that reads a dataset with known calls and known compute time, for
 * dltrace replay's tests and its bench (bench/replay_bench.py):
 *
 *   [sleep START_MS]
 *   per FILE: openat, read(BLOCK) until EOF with GAP_US of compute after
 *             each read, pread64(BLOCK at 0), close;
 *             with -o: openat(OUT, O_APPEND|O_CREAT), write "done N\n", close;
 *             [sleep PAUSE_MS]
 *
 * The compute is a busy loop when -c is given (a job that keeps a CPU busy
 * between reads), else a sleep.  Every call goes through syscall(2), so the
 * trace shows these calls and no others of libc's choosing.
 *
 * Usage: replay_reader [-b BLOCK] [-g GAP_US] [-c] [-s START_MS] [-p PAUSE_MS]
 *                      [-o OUT] FILE...
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void compute(long us, int busy)
{
	long long end = now_ns() + us * 1000ll;
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000};

	if (!us)
		return;
	if (!busy) {
		nanosleep(&ts, NULL);
		return;
	}
	while (now_ns() < end)
		;
}

int main(int argc, char **argv)
{
	long block = 65536, gap = 0, start = 0, pause = 0;
	const char *out = NULL;
	int c, busy = 0;
	char *buf;

	while ((c = getopt(argc, argv, "b:g:cs:p:o:")) != -1) {
		switch (c) {
		case 'b':
			block = atol(optarg);
			break;
		case 'g':
			gap = atol(optarg);
			break;
		case 'c':
			busy = 1;
			break;
		case 's':
			start = atol(optarg);
			break;
		case 'p':
			pause = atol(optarg);
			break;
		case 'o':
			out = optarg;
			break;
		default:
			fprintf(stderr,
				"usage: replay_reader [-b BLOCK] [-g GAP_US] [-c] [-s START_MS] "
				"[-p PAUSE_MS] [-o OUT] FILE...\n");
			return 2;
		}
	}
	if (optind >= argc || block <= 0 || !(buf = malloc(block)))
		return 2;
	compute(start * 1000, 0);
	for (int i = optind; i < argc; i++) {
		long fd = syscall(SYS_openat, AT_FDCWD, argv[i], O_RDONLY);
		long n;

		if (fd < 0) {
			perror(argv[i]);
			return 1;
		}
		do {
			n = syscall(SYS_read, fd, buf, block);
			compute(gap, busy);
		} while (n > 0);
		syscall(SYS_pread64, fd, buf, block, 0L);
		syscall(SYS_close, fd);
		if (out) {
			char line[64];
			int len = snprintf(line, sizeof(line), "done %d\n", i - optind);
			long ofd =
			    syscall(SYS_openat, AT_FDCWD, out, O_WRONLY | O_CREAT | O_APPEND, 0644);

			syscall(SYS_write, ofd, line, (long)len);
			syscall(SYS_close, ofd);
		}
		compute(pause * 1000, 0);
	}
	free(buf);
	return 0;
}
