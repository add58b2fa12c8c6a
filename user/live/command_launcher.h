/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Running the traced command: it is forked first and held on a pipe until
 * every probe is attached and its pid is in the traced set, so nothing from
 * its first instruction is missed.  Through sudo it runs as the invoking
 * user (uid, gid and supplementary groups), never as root.  No shell is
 * involved: argv is passed to execvp as given.
 */
#ifndef COMMAND_LAUNCHER_H
#define COMMAND_LAUNCHER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct command {
	pid_t pid;
	int release_fd; /* write end: one byte releases the child */
	int error_fd;	/* read end: errno of a failed exec, EOF on success */
};

/* Fork the held child. Returns 0 or -1 with err set. */
int command_prepare(struct command *c, char *const argv[], char *err, size_t errlen);

/*
 * Let the child exec.  Returns 0 once it has exec'd, or -1 with the reason
 * (e.g. "python4: No such file or directory") when the exec failed.
 */
int command_release(struct command *c, char *err, size_t errlen);

/* Kill and reap a child that was never released. */
void command_abort(struct command *c);

/* Exit status to report for a wait status (128 + signal when killed). */
int command_exit_code(int wait_status);

#endif
