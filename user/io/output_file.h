/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Opening trace output files safely: traces reveal the job's file names,
 * so they are created private (mode 0600, or as asked), owned by the user
 * who asked for them (SUDO_UID when run through sudo), never through a
 * symlink, and never over another user's file.
 */
#ifndef OUTPUT_FILE_H
#define OUTPUT_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct file_owner {
	uid_t uid;
	gid_t gid;
};

/* The user dltrace acts for: SUDO_UID/SUDO_GID when root through sudo. */
struct file_owner invoking_user(void);

/*
 * Open `path` for writing ("-" is standard output).  Returns an fd, or -1
 * with a one-line reason in err.
 */
int output_open(const char *path, const struct file_owner *owner, mode_t mode, char *err,
		size_t errlen);

/* True when the name ends in ".gz". */
bool output_wants_gzip(const char *path);

#endif
