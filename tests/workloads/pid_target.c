// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Target for --pid tests.  Opens PRE before tracing starts and says
 * "ready <pid> <fd>"; waits for a line on stdin (the test sends it once
 * dltrace is attached); then preads PRE at 0 and 4096 through the old
 * descriptor, forks a child that reads CHILD, waits for it and exits.
 * Usage: pid_target PRE CHILD
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[4096], line[16];
	int fd, cfd, status;
	pid_t child;

	if (argc != 3)
		return 2;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0)
		return 1;
	/* this read happens before the attach: it must not be in the trace */
	if (pread(fd, buf, 100, 8192) < 0)
		return 1;
	printf("ready %d %d\n", getpid(), fd);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	syscall(SYS_pread64, fd, buf, 512L, 0L);
	syscall(SYS_pread64, fd, buf, 512L, 4096L);
	child = fork();
	if (child == 0) {
		cfd = open(argv[2], O_RDONLY);
		if (cfd < 0 || read(cfd, buf, sizeof(buf)) < 0)
			_exit(1);
		close(cfd);
		_exit(0);
	}
	waitpid(child, &status, 0);
	printf("child %d\n", child);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
