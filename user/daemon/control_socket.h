/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The daemon's control socket: a unix stream socket (mode 0600) that only
 * root may use (peer credentials are checked).  One request line per
 * connection ("status", "start CGROUP", "stop JOB", "top JOB", "top-totals JOB"),
 * one reply: a first
 * line "ok" or "error: reason", then the body.
 */
#ifndef CONTROL_SOCKET_H
#define CONTROL_SOCKET_H

#include <stddef.h>

/* Listen on path (replacing a stale socket). Returns the fd or -1 with err set. */
int control_listen(const char *path, char *err, size_t errlen);

typedef void (*control_handler)(void *ctx, const char *request, char *reply, size_t size);

/* Accept one connection and answer it (call when the listening fd is readable). */
void control_serve_one(int listen_fd, control_handler handler, void *ctx);

/* Client: send request, get the reply's body (malloc'd, NUL-terminated); 0 on "ok". */
int control_request_reply(const char *path, const char *request, char **body, size_t *len,
			  char *err, size_t errlen);
/* Client: send request, print the reply's body to stdout.  Returns 0 on "ok". */
int control_request(const char *path, const char *request, char *err, size_t errlen);

#endif
