// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "io/output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool parse_id(const char *s, unsigned long *out)
{
	char *end;

	if (!s || !*s)
		return false;
	errno = 0;
	*out = strtoul(s, &end, 10);
	return !errno && !*end && *out < UINT_MAX;
}

struct file_owner invoking_user(void)
{
	struct file_owner o = {getuid(), getgid()};
	unsigned long uid, gid;

	if (o.uid == 0 && parse_id(getenv("SUDO_UID"), &uid) &&
	    parse_id(getenv("SUDO_GID"), &gid)) {
		o.uid = uid;
		o.gid = gid;
	}
	return o;
}

bool output_wants_gzip(const char *path)
{
	size_t n = strlen(path);

	return n > 3 && strcmp(path + n - 3, ".gz") == 0;
}

int output_open(const char *path, const struct file_owner *owner, mode_t mode, char *err,
		size_t errlen)
{
	struct stat st;
	bool created;
	int fd;

	if (strcmp(path, "-") == 0) {
		fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		if (fd < 0)
			snprintf(err, errlen, "cannot use standard output: %s", strerror(errno));
		return fd;
	}
	/* A new file is ours; an existing one must already belong to the owner. */
	/* read-write: after a full disk, the sink reads back to find an event boundary */
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	created = fd >= 0;
	if (!created && errno == EEXIST)
		fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ELOOP)
			snprintf(err, errlen, "%s: is a symbolic link; refusing to follow it",
				 path);
		else
			snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	/* Blocking writes from here on (O_NONBLOCK only kept FIFOs from hanging open). */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	if (!S_ISREG(st.st_mode))
		return fd; /* a FIFO or a device such as /dev/null */
	if (!created && st.st_uid != owner->uid) {
		snprintf(err, errlen, "%s belongs to another user (uid %u); not overwriting it",
			 path, (unsigned)st.st_uid);
		close(fd);
		return -1;
	}
	if (st.st_nlink > 1) {
		snprintf(err, errlen, "%s has other hard links; not overwriting it", path);
		close(fd);
		return -1;
	}
	if (ftruncate(fd, 0) || fchmod(fd, mode) ||
	    (geteuid() == 0 && fchown(fd, owner->uid, owner->gid))) {
		snprintf(err, errlen, "cannot prepare %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}
