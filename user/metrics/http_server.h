/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A small HTTP/1.1 server for one caller's poll loop (the daemon's): GET
 * requests only, one request per connection (Connection: close), never
 * blocking.  Its descriptors join the caller's poll; after poll it
 * accepts, reads requests, asks the handler for a reply and writes it as
 * the socket takes it.  At most HTTP_MAX_CONNS connections at once (more
 * wait in the listen queue); a connection that has not finished within
 * HTTP_DEADLINE_S is closed, so a slow client costs nothing but a slot.
 */
#ifndef HTTP_SERVER_H
#define HTTP_SERVER_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>

#define HTTP_MAX_CONNS	 16
#define HTTP_DEADLINE_S	 10
#define HTTP_REQUEST_MAX 8192

struct http_request {
	const char *path;   /* "/metrics" (the query string cut off) */
	const char *accept; /* the Accept header's value ("" when absent) */
	bool head;	    /* HEAD: the reply without its body */
};

struct http_reply {
	int status;		  /* 200, 404, ... */
	const char *content_type; /* a string that outlives the call */
	char *body;		  /* malloc'd; the server frees it */
	size_t len;
};

/* Fill reply for req. */
typedef void (*http_handler)(void *ctx, const struct http_request *req, struct http_reply *reply);

struct http_server;

/*
 * Listen on "HOST:PORT" (an IPv4 address, "[IPv6]:PORT", or a name
 * getaddrinfo knows; port 0: any free one).  NULL with a reason in err.
 */
struct http_server *http_server__new(const char *listen, char *err, size_t errlen);
void http_server__free(struct http_server *s);
/* The port it listens on. */
int http_server__port(const struct http_server *s);
/* Its descriptors to poll, into fds (at most max); returns how many. */
int http_server__fds(const struct http_server *s, struct pollfd *fds, int max);
/* After poll, with the same fds and their revents: do what can be done now. */
void http_server__serve(struct http_server *s, const struct pollfd *fds, int n, http_handler fn,
			void *ctx);

#endif
