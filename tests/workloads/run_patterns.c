// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Data calls in the shapes the counting mode (--summary-only=counts) folds
 * into runs, and in those that break them, for the test that compares its
 * report with the one of single events.  Every call is made with
 * syscall(2) (the calls are the program's, not up to libc).
 *
 * Usage: run_patterns DIR
 *   a      256 writes of 4 KiB, then read back in 4 KiB reads (to EOF)
 *   a      64 preads of 4 KiB at one offset; 64 at scattered offsets
 *   a, b   128 times: read 4 KiB of a, write 4 KiB to b (two runs at once)
 *   a      an lseek back in the middle of 4 KiB reads
 *   c      10000 bytes read in 4 KiB reads: two full, one short, one at EOF
 *   d      readv and writev of two 2 KiB buffers, 32 times each
 *   pipe   100 writes of 512 bytes, read back in 512-byte reads
 *   child  a forked process reads a in 8 KiB reads and exits, a still open
 *   thread a second thread reads b in 1 KiB reads
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#define KIB 1024

static char dir[1024];
static char buf[64 * KIB];

static const char *in_dir(const char *name)
{
	static __thread char path[2048];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static int open_file(const char *name, int flags)
{
	int fd = (int)syscall(SYS_openat, (long)AT_FDCWD, in_dir(name), (long)flags, 0644L);

	if (fd < 0) {
		perror(name);
		exit(1);
	}
	return fd;
}

static long sys_read(int fd, size_t n)
{
	return syscall(SYS_read, (long)fd, buf, (long)n);
}

static long sys_write(int fd, size_t n)
{
	return syscall(SYS_write, (long)fd, buf, (long)n);
}

static void sys_close(int fd)
{
	syscall(SYS_close, (long)fd);
}

static void *thread_reads(void *arg)
{
	int fd = open_file("b", O_RDONLY);

	(void)arg;
	while (sys_read(fd, KIB) > 0)
		;
	sys_close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	struct iovec iov[2] = {{buf, 2 * KIB}, {buf + 2 * KIB, 2 * KIB}};
	int fd, fd2, p[2], i;
	pthread_t th;
	pid_t child;

	if (argc != 2) {
		fprintf(stderr, "usage: run_patterns DIR\n");
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s", argv[1]);
	memset(buf, 'x', sizeof(buf));

	fd = open_file("a", O_RDWR | O_CREAT | O_TRUNC);
	for (i = 0; i < 256; i++)
		sys_write(fd, 4 * KIB);
	syscall(SYS_lseek, (long)fd, 0L, (long)SEEK_SET);
	while (sys_read(fd, 4 * KIB) > 0)
		;
	for (i = 0; i < 64; i++)
		syscall(SYS_pread64, (long)fd, buf, 4L * KIB, 8L * KIB);
	for (i = 0; i < 64; i++)
		syscall(SYS_pread64, (long)fd, buf, 4L * KIB, (long)((i * 97) % 256) * 4 * KIB);
	syscall(SYS_lseek, (long)fd, 0L, (long)SEEK_SET);

	fd2 = open_file("b", O_WRONLY | O_CREAT | O_TRUNC);
	for (i = 0; i < 128; i++) {
		sys_read(fd, 4 * KIB);
		sys_write(fd2, 4 * KIB);
	}
	sys_close(fd2);

	syscall(SYS_lseek, (long)fd, 0L, (long)SEEK_SET);
	for (i = 0; i < 16; i++) {
		sys_read(fd, 4 * KIB);
		if (i == 7)
			syscall(SYS_lseek, (long)fd, 4L * KIB, (long)SEEK_SET);
	}

	fd2 = open_file("c", O_RDWR | O_CREAT | O_TRUNC);
	sys_write(fd2, 10000);
	syscall(SYS_lseek, (long)fd2, 0L, (long)SEEK_SET);
	while (sys_read(fd2, 4 * KIB) > 0)
		;
	sys_close(fd2);

	fd2 = open_file("d", O_RDWR | O_CREAT | O_TRUNC);
	for (i = 0; i < 32; i++)
		syscall(SYS_writev, (long)fd2, iov, 2L);
	syscall(SYS_lseek, (long)fd2, 0L, (long)SEEK_SET);
	for (i = 0; i < 32; i++)
		syscall(SYS_readv, (long)fd2, iov, 2L);
	sys_close(fd2);

	if (pipe(p))
		return 1;
	for (i = 0; i < 100; i++)
		sys_write(p[1], 512);
	for (i = 0; i < 100; i++)
		sys_read(p[0], 512);
	sys_close(p[0]);
	sys_close(p[1]);

	child = fork();
	if (child == 0) {
		int cfd = open_file("a", O_RDONLY);

		while (sys_read(cfd, 8 * KIB) > 0)
			;
		syscall(SYS_exit_group, 0L); /* a still open */
	}
	if (child < 0 || waitpid(child, NULL, 0) != child)
		return 1;

	if (pthread_create(&th, NULL, thread_reads, NULL) || pthread_join(th, NULL))
		return 1;
	sys_close(fd);
	return 0;
}
