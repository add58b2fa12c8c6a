// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Two processes with the same pid, one after the other (clone3 with
 * set_tid, which root may use): the first reads FILE1, exits and is
 * reaped; the second gets the same pid and reads FILE2.  A zombie is left
 * for a moment between them.  Prints {"pid": N, "zombie": M}.
 * Usage: pid_reuse FILE1 FILE2
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t spawn_at(pid_t want, const char *file)
{
	struct clone_args args;
	pid_t tid = want;
	pid_t pid;

	memset(&args, 0, sizeof(args));
	args.exit_signal = SIGCHLD;
	args.set_tid = want ? (unsigned long)&tid : 0;
	args.set_tid_size = want ? 1 : 0;
	pid = syscall(SYS_clone3, &args, sizeof(args));
	if (pid == 0) {
		char buf[100];
		int fd = open(file, O_RDONLY);

		if (fd < 0 || read(fd, buf, sizeof(buf)) < 0)
			_exit(1);
		_exit(0);
	}
	return pid;
}

int main(int argc, char **argv)
{
	pid_t first, second, zombie;
	int status;

	if (argc != 3)
		return 2;
	/* a zombie: exits, not reaped until the end */
	zombie = fork();
	if (zombie == 0)
		_exit(0);
	first = spawn_at(0, argv[1]);
	if (first < 0 || waitpid(first, &status, 0) != first)
		return 1;
	second = spawn_at(first, argv[2]);
	if (second != first) {
		perror("clone3 set_tid");
		return 1;
	}
	waitpid(second, &status, 0);
	waitpid(zombie, &status, 0);
	printf("{\"pid\": %d, \"zombie\": %d}\n", first, zombie);
	return 0;
}
