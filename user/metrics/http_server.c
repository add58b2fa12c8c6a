// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "metrics/http_server.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct conn {
	int fd; /* -1: a free slot */
	char in[HTTP_REQUEST_MAX + 1];
	size_t in_len;
	char *out; /* the reply, headers and body */
	size_t out_len, out_pos;
	time_t deadline;
};

struct http_server {
	int fd;
	int port;
	struct conn conns[HTTP_MAX_CONNS];
};

static time_t now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

struct http_server *http_server__new(const char *listen_on, char *err, size_t errlen)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC,
				 .ai_socktype = SOCK_STREAM,
				 .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
	struct addrinfo *ai = NULL;
	char host[256], *colon;
	const char *port;
	struct http_server *s;
	struct sockaddr_storage sa;
	socklen_t sl = sizeof(sa);
	int one = 1, rc;

	if (strlen(listen_on) >= sizeof(host)) {
		snprintf(err, errlen, "metrics address too long");
		return NULL;
	}
	strcpy(host, listen_on);
	colon = strrchr(host, ':');
	if (!colon || !colon[1]) {
		snprintf(err, errlen, "metrics address '%s' needs HOST:PORT", listen_on);
		return NULL;
	}
	*colon = '\0';
	port = colon + 1;
	if (host[0] == '[' && colon > host && colon[-1] == ']') { /* [::1]:9477 */
		colon[-1] = '\0';
		memmove(host, host + 1, strlen(host));
	}
	rc = getaddrinfo(host[0] ? host : NULL, port, &hints, &ai);
	if (rc) {
		snprintf(err, errlen, "metrics address '%s': %s", listen_on, gai_strerror(rc));
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		freeaddrinfo(ai);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	for (int i = 0; i < HTTP_MAX_CONNS; i++)
		s->conns[i].fd = -1;
	s->fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->fd < 0 || setsockopt(s->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(s->fd, ai->ai_addr, ai->ai_addrlen) || listen(s->fd, 64) ||
	    getsockname(s->fd, (struct sockaddr *)&sa, &sl)) {
		snprintf(err, errlen, "cannot listen on %s: %s", listen_on, strerror(errno));
		freeaddrinfo(ai);
		if (s->fd >= 0)
			close(s->fd);
		free(s);
		return NULL;
	}
	freeaddrinfo(ai);
	s->port = ntohs(sa.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&sa)->sin6_port
						 : ((struct sockaddr_in *)&sa)->sin_port);
	return s;
}

static void conn_close(struct conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->out);
	c->fd = -1;
	c->out = NULL;
	c->in_len = c->out_len = c->out_pos = 0;
}

void http_server__free(struct http_server *s)
{
	if (!s)
		return;
	for (int i = 0; i < HTTP_MAX_CONNS; i++)
		conn_close(&s->conns[i]);
	close(s->fd);
	free(s);
}

int http_server__port(const struct http_server *s)
{
	return s->port;
}

int http_server__fds(const struct http_server *s, struct pollfd *fds, int max)
{
	int n = 0;

	if (max < 1)
		return 0;
	fds[n++] = (struct pollfd){s->fd, POLLIN, 0};
	for (int i = 0; i < HTTP_MAX_CONNS && n < max; i++) {
		const struct conn *c = &s->conns[i];

		if (c->fd >= 0)
			fds[n++] = (struct pollfd){c->fd, c->out ? POLLOUT : POLLIN, 0};
	}
	return n;
}

static const char *reason(int status)
{
	switch (status) {
	case 200:
		return "OK";
	case 400:
		return "Bad Request";
	case 404:
		return "Not Found";
	case 405:
		return "Method Not Allowed";
	case 431:
		return "Request Header Fields Too Large";
	default:
		return "Internal Server Error";
	}
}

/* The reply in c->out: status line, headers, body (freed here). */
static void set_reply(struct conn *c, struct http_reply *r, bool head)
{
	char hdr[512];
	int n = snprintf(hdr, sizeof(hdr),
			 "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
			 "Connection: close\r\n\r\n",
			 r->status, reason(r->status),
			 r->content_type ? r->content_type : "text/plain; charset=utf-8", r->len);
	size_t body = head ? 0 : r->len;

	c->out = malloc(n + body);
	if (c->out) {
		memcpy(c->out, hdr, n);
		if (body)
			memcpy(c->out + n, r->body, body);
		c->out_len = n + body;
		c->out_pos = 0;
	}
	free(r->body);
}

static void simple_reply(struct conn *c, int status, const char *text)
{
	struct http_reply r = {status, "text/plain; charset=utf-8", strdup(text), strlen(text)};

	if (!r.body)
		r.len = 0;
	set_reply(c, &r, false);
}

/* A header's value in the request's header lines (NULL: absent); cut at its line end. */
static const char *header_value(char *headers, const char *name)
{
	size_t n = strlen(name);

	for (char *line = headers; line && *line;) {
		char *end = strstr(line, "\r\n");

		if (end)
			*end = '\0';
		if (!strncasecmp(line, name, n) && line[n] == ':') {
			char *v = line + n + 1;

			while (*v == ' ' || *v == '\t')
				v++;
			return v;
		}
		if (end)
			*end = '\r';
		line = end ? end + 2 : NULL;
	}
	return NULL;
}

/* A whole request is in c->in: parse it and prepare the reply. */
static void answer(struct conn *c, http_handler fn, void *ctx)
{
	char *sp1, *sp2, *eol, *q;
	struct http_request req = {0};
	struct http_reply reply = {0};
	const char *accept;

	c->in[c->in_len] = '\0';
	eol = strstr(c->in, "\r\n");
	if (!eol) {
		simple_reply(c, 400, "bad request\n");
		return;
	}
	*eol = '\0';
	sp1 = strchr(c->in, ' ');
	sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
	if (!sp1 || !sp2 || strncmp(sp2 + 1, "HTTP/1.", 7)) {
		simple_reply(c, 400, "bad request\n");
		return;
	}
	*sp1 = *sp2 = '\0';
	if (strcmp(c->in, "GET") && strcmp(c->in, "HEAD")) {
		simple_reply(c, 405, "only GET\n");
		return;
	}
	req.head = !strcmp(c->in, "HEAD");
	q = strchr(sp1 + 1, '?');
	if (q)
		*q = '\0';
	req.path = sp1 + 1;
	accept = header_value(eol + 2, "Accept");
	req.accept = accept ? accept : "";
	reply.status = 500;
	fn(ctx, &req, &reply);
	set_reply(c, &reply, req.head);
}

static void conn_read(struct conn *c, http_handler fn, void *ctx)
{
	ssize_t n = recv(c->fd, c->in + c->in_len, HTTP_REQUEST_MAX - c->in_len, 0);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		conn_close(c);
		return;
	}
	c->in_len += n;
	c->in[c->in_len] = '\0';
	if (strstr(c->in, "\r\n\r\n"))
		answer(c, fn, ctx);
	else if (c->in_len == HTTP_REQUEST_MAX)
		simple_reply(c, 431, "request too large\n");
}

static void conn_write(struct conn *c)
{
	while (c->out_pos < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_pos, c->out_len - c->out_pos,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0)
			break;
		c->out_pos += n;
	}
	conn_close(c);
}

void http_server__serve(struct http_server *s, const struct pollfd *fds, int n, http_handler fn,
			void *ctx)
{
	time_t now = now_s();

	for (int k = 1; k < n; k++) {
		struct conn *c = NULL;

		if (!fds[k].revents)
			continue;
		for (int i = 0; i < HTTP_MAX_CONNS && !c; i++)
			if (s->conns[i].fd == fds[k].fd)
				c = &s->conns[i];
		if (!c)
			continue;
		if (!c->out && (fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
			conn_read(c, fn, ctx);
		if (c->fd >= 0 && c->out)
			conn_write(c);
	}
	for (int i = 0; i < HTTP_MAX_CONNS; i++)
		if (s->conns[i].fd >= 0 && now > s->conns[i].deadline)
			conn_close(&s->conns[i]);
	if (n < 1 || !(fds[0].revents & POLLIN))
		return;
	for (int i = 0; i < HTTP_MAX_CONNS; i++) {
		struct conn *c = &s->conns[i];

		if (c->fd >= 0)
			continue;
		c->fd = accept4(s->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (c->fd < 0)
			break;
		c->deadline = now + HTTP_DEADLINE_S;
		c->in_len = 0;
		/* the request is often there already */
		conn_read(c, fn, ctx);
		if (c->fd >= 0 && c->out)
			conn_write(c);
	}
}
