// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A double-forked daemon: the program forks, the child forks again and
 * exits, the grandchild starts a new session, waits a moment, reads FILE and
 * exits; the original process exits at once.  The grandchild's pid is
 * printed first.  Usage: daemonize FILE
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int pipefd[2];
	pid_t child;

	if (argc != 2 || pipe(pipefd))
		return 2;
	child = fork();
	if (child == 0) {
		pid_t grandchild = fork();

		if (grandchild == 0) {
			char buf[1024];
			int fd;

			setsid();
			dprintf(pipefd[1], "%d\n", getpid());
			close(pipefd[1]);
			usleep(300000); /* outlive both ancestors */
			fd = open(argv[1], O_RDONLY);
			if (fd < 0 || read(fd, buf, sizeof(buf)) < 0)
				_exit(1);
			close(fd);
			_exit(0);
		}
		_exit(grandchild > 0 ? 0 : 1);
	}
	close(pipefd[1]);
	waitpid(child, NULL, 0);
	{
		char line[32];
		ssize_t n = read(pipefd[0], line, sizeof(line) - 1);

		if (n <= 0)
			return 1;
		line[n] = '\0';
		printf("daemon %s", line);
	}
	return 0;
}
