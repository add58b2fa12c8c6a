// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "daemon/control_socket.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define REQUEST_MAX 4096
#define REPLY_MAX   (4 << 20) /* ctl top's snapshots: every row of a job */

static int make_addr(const char *path, struct sockaddr_un *a)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(a->sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(a->sun_path, path);
	return 0;
}

int control_listen(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un a;
	struct stat st;
	int fd;

	if (make_addr(path, &a)) {
		snprintf(err, errlen, "socket path too long: %s", path);
		return -1;
	}
	/* a socket left by a daemon that died: replace it; anything else: refuse */
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			snprintf(err, errlen, "%s exists and is not a socket", path);
			return -1;
		}
		unlink(path);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) || chmod(path, 0600) ||
	    listen(fd, 16)) {
		snprintf(err, errlen, "cannot listen on %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static void write_reply(int fd, const char *s)
{
	size_t n = strlen(s), done = 0;

	while (done < n) {
		ssize_t w = write(fd, s + done, n - done);

		if (w <= 0)
			return;
		done += w;
	}
}

void control_serve_one(int listen_fd, control_handler handler, void *ctx)
{
	char request[REQUEST_MAX], *reply;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct pollfd p;
	size_t got = 0;
	int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) || cred.uid != 0) {
		write_reply(fd, "error: only root may control dltrace\n");
		close(fd);
		return;
	}
	/* one line, with a deadline: a silent client must not stall the daemon */
	p.fd = fd;
	p.events = POLLIN;
	while (got < sizeof(request) - 1 && !memchr(request, '\n', got) && poll(&p, 1, 1000) > 0) {
		ssize_t n = read(fd, request + got, sizeof(request) - 1 - got);

		if (n <= 0)
			break;
		got += n;
	}
	request[got] = '\0';
	request[strcspn(request, "\n")] = '\0';
	reply = malloc(REPLY_MAX);
	if (reply) {
		handler(ctx, request, reply, REPLY_MAX);
		write_reply(fd, reply);
		free(reply);
	}
	close(fd);
}

int control_request_reply(const char *path, const char *request, char **body, size_t *len,
			  char *err, size_t errlen)
{
	struct sockaddr_un a;
	size_t got = 0, cap = 65536;
	char *buf;
	int fd;
	ssize_t n;

	*body = NULL;
	*len = 0;
	if (make_addr(path, &a)) {
		snprintf(err, errlen, "socket path too long: %s", path);
		return -1;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		snprintf(err, errlen, "cannot reach the daemon at %s: %s%s", path, strerror(errno),
			 errno == ENOENT || errno == ECONNREFUSED
			     ? " (is 'dltrace daemon' running?)"
			     : "");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	write_reply(fd, request);
	write_reply(fd, "\n");
	shutdown(fd, SHUT_WR);
	buf = malloc(cap);
	while (buf) {
		if (got + 1 == cap) {
			char *more = cap < REPLY_MAX * 2 ? realloc(buf, cap * 2) : NULL;

			if (!more)
				break;
			buf = more;
			cap *= 2;
		}
		n = read(fd, buf + got, cap - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	if (!buf) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	buf[got] = '\0';
	if (strncmp(buf, "ok\n", 3) == 0) {
		memmove(buf, buf + 3, got - 3 + 1);
		*body = buf;
		*len = got - 3;
		return 0;
	}
	snprintf(err, errlen, "%s", strncmp(buf, "error: ", 7) == 0 ? buf + 7 : buf);
	err[strcspn(err, "\n")] = '\0';
	if (!*err)
		snprintf(err, errlen, "no reply from the daemon");
	free(buf);
	return -1;
}

int control_request(const char *path, const char *request, char *err, size_t errlen)
{
	char *body;
	size_t len;

	if (control_request_reply(path, request, &body, &len, err, errlen))
		return -1;
	fwrite(body, 1, len, stdout);
	free(body);
	return 0;
}
