// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Threads and processes with known calls, for dltrace replay's order test:
 * each thread's calls must come back in their order, by as many threads.
 *
 *   main: makes DIR/shared.bin (64 KiB), starts 3 threads, forks a child
 *   thread i (1..3): its own DIR/tI.bin: write 3 x 4 KiB, pread 2 KiB at
 *          i KiB, lseek, read 1 KiB, fstat; pread 4 KiB of shared.bin at
 *          i * 8 KiB through main's descriptor; close
 *   child: 2 threads doing the same as threads 4 and 5 on its inherited
 *          descriptor of shared.bin, then reads shared.bin itself
 *   main:  after the joins, reads shared.bin at 60 KiB and closes it
 *
 * A pipe carries the go from main to the threads (after the fork), so that
 * the threads read shared.bin while main waits: calls of several threads
 * interleave.
 *
 * Usage: replay_threads DIR
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *dir;
static long shared_fd;
static int go[2];

static void *worker(void *arg)
{
	long i = (long)arg, fd;
	char path[4096], buf[4096], c;
	struct stat st;

	memset(buf, 'w', sizeof(buf));
	snprintf(path, sizeof(path), "%s/t%ld.bin", dir, i);
	if (read(go[0], &c, 1) != 1)
		return NULL;
	fd = syscall(SYS_openat, AT_FDCWD, path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	for (int k = 0; k < 3; k++)
		syscall(SYS_write, fd, buf, sizeof(buf));
	syscall(SYS_pread64, fd, buf, 2048, i * 1024);
	syscall(SYS_lseek, fd, i * 512, SEEK_SET);
	syscall(SYS_read, fd, buf, 1024);
	syscall(SYS_fstat, fd, &st);
	syscall(SYS_pread64, shared_fd, buf, 4096, i * 8192);
	syscall(SYS_close, fd);
	return NULL;
}

static void run_threads(long first, long n)
{
	pthread_t t[8];

	for (long i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, (void *)(first + i));
	for (long i = 0; i < n; i++)
		pthread_join(t[i], NULL);
}

int main(int argc, char **argv)
{
	char path[4096], buf[65536];
	pid_t child;
	int status;

	if (argc != 2) {
		fprintf(stderr, "usage: replay_threads DIR\n");
		return 2;
	}
	dir = argv[1];
	memset(buf, 's', sizeof(buf));
	snprintf(path, sizeof(path), "%s/shared.bin", dir);
	shared_fd = syscall(SYS_openat, AT_FDCWD, path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	syscall(SYS_write, shared_fd, buf, sizeof(buf));
	if (pipe(go))
		return 1;
	child = fork();
	if (child == 0) {
		run_threads(4, 2);
		syscall(SYS_pread64, shared_fd, buf, 100, 100);
		_exit(0);
	}
	/* the go: one byte per thread of both processes */
	if (write(go[1], "xxxxx", 5) != 5)
		return 1;
	run_threads(1, 3);
	waitpid(child, &status, 0);
	syscall(SYS_pread64, shared_fd, buf, 4096, 61440);
	syscall(SYS_close, shared_fd);
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : 1;
}
