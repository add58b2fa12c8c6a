// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "live/command_launcher.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/output_file.h"

#define MAX_GROUPS 1024

/* In the child: wait for the go byte, drop privileges, exec. Never returns. */
static void child_main(char *const argv[], int hold_fd, int err_fd, const struct file_owner *u,
		       const gid_t *groups, int ngroups, bool drop)
{
	sigset_t none;
	char go;
	int e;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			signal(s, SIG_DFL);
	prctl(PR_SET_PDEATHSIG, SIGKILL); /* until released: die with dltrace */
	while (read(hold_fd, &go, 1) < 0 && errno == EINTR)
		;
	if (go != 'g')
		_exit(127);
	prctl(PR_SET_PDEATHSIG, 0);
	if (drop && (setgroups(ngroups, groups) || setgid(u->gid) || setuid(u->uid))) {
		e = errno;
		goto fail;
	}
	execvp(argv[0], argv);
	e = errno;
fail:
	if (write(err_fd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(e == ENOENT ? 127 : 126);
}

int command_prepare(struct command *c, char *const argv[], char *err, size_t errlen)
{
	struct file_owner u = invoking_user();
	bool drop = geteuid() == 0 && u.uid != 0;
	gid_t groups[MAX_GROUPS];
	int ngroups = 0, hold[2], status[2];

	if (drop) {
		struct passwd *pw = getpwuid(u.uid);

		ngroups = MAX_GROUPS;
		if (!pw || getgrouplist(pw->pw_name, u.gid, groups, &ngroups) < 0) {
			groups[0] = u.gid;
			ngroups = 1;
		}
	}
	if (pipe2(hold, O_CLOEXEC) || pipe2(status, O_CLOEXEC)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	c->pid = fork();
	if (c->pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		return -1;
	}
	if (c->pid == 0) {
		close(hold[1]);
		close(status[0]);
		child_main(argv, hold[0], status[1], &u, groups, ngroups, drop);
	}
	close(hold[0]);
	close(status[1]);
	c->release_fd = hold[1];
	c->error_fd = status[0];
	return 0;
}

int command_release(struct command *c, char *err, size_t errlen)
{
	int e = 0;
	ssize_t n;

	if (write(c->release_fd, "g", 1) != 1) {
		snprintf(err, errlen, "cannot start the command: %s", strerror(errno));
		return -1;
	}
	close(c->release_fd);
	c->release_fd = -1;
	while ((n = read(c->error_fd, &e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(c->error_fd);
	c->error_fd = -1;
	if (n == sizeof(e)) {
		snprintf(err, errlen, "cannot run the command: %s", strerror(e));
		return -1;
	}
	return 0;
}

void command_abort(struct command *c)
{
	if (c->pid > 0) {
		kill(c->pid, SIGKILL);
		waitpid(c->pid, NULL, 0);
	}
	if (c->release_fd >= 0)
		close(c->release_fd);
	if (c->error_fd >= 0)
		close(c->error_fd);
	c->pid = -1;
}

int command_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}
