// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "probe/tracepoint_events.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "lib/cgroup_mounts.h"
#include "probe/system_checks.h"

#define HANDOVER_DIR	"/run/dltrace"
#define HANDOVER_SOCKET HANDOVER_DIR "/tracepoints.sock"
#define MAGIC		"dltrace-tp 1\n"
#define MAGIC_END	"dltrace-tp 1 end\n"
#define FDS_PER_MESSAGE 250
#define NAME_MAX_LEN	96

struct tp_event {
	char name[NAME_MAX_LEN]; /* "category/name" */
	int fd;
	bool used;
};

struct tp_events {
	pthread_mutex_t lock; /* the attach threads open at once */
	struct tp_event *ev;
	size_t n, cap;
	size_t taken, opened;
};

/*
 * The handover directory, made root's and private when missing.  False
 * when it is not this user's alone: then nothing is given or taken.
 */
static bool handover_dir_ok(void)
{
	struct stat st;

	if (mkdir(HANDOVER_DIR, 0700) && errno != EEXIST)
		return false;
	return !lstat(HANDOVER_DIR, &st) && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
	       !(st.st_mode & 077);
}

static void handover_address(struct sockaddr_un *a)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	snprintf(a->sun_path, sizeof(a->sun_path), "%s", HANDOVER_SOCKET);
}

/* The other end runs as this user (root): what it gives is trusted as our own. */
static bool peer_is_us(int sock)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	return !getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &len) && cred.uid == geteuid();
}

static int add_event(struct tp_events *t, const char *name, int fd)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		struct tp_event *ev = realloc(t->ev, cap * sizeof(*ev));

		if (!ev)
			return -1;
		t->ev = ev;
		t->cap = cap;
	}
	snprintf(t->ev[t->n].name, sizeof(t->ev[t->n].name), "%s", name);
	t->ev[t->n].fd = fd;
	t->ev[t->n++].used = false;
	return 0;
}

/*
 * One message: MAGIC, then a name per line, with as many descriptors.
 * Returns 1 for a message taken, 0 at the end, -1 on anything else (the
 * descriptors of a malformed message are closed).
 */
static int take_message(struct tp_events *t, int sock)
{
	char buf[FDS_PER_MESSAGE * NAME_MAX_LEN + sizeof(MAGIC_END)];
	union {
		char space[CMSG_SPACE(FDS_PER_MESSAGE * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = {buf, sizeof(buf) - 1};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = ctl.space,
			     .msg_controllen = sizeof(ctl.space)};
	int fds[FDS_PER_MESSAGE];
	char *name[FDS_PER_MESSAGE];
	size_t nfds = 0, names = 0;
	ssize_t len = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	struct cmsghdr *c;
	char *line, *save = NULL;
	int rc = 1;

	if (len <= 0)
		return -1;
	buf[len] = '\0';
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		size_t k;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
		    c->cmsg_len < CMSG_LEN(0))
			continue;
		k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		if (nfds + k > FDS_PER_MESSAGE)
			k = FDS_PER_MESSAGE - nfds;
		memcpy(fds + nfds, CMSG_DATA(c), k * sizeof(int));
		nfds += k;
	}
	if (!strcmp(buf, MAGIC_END) && !nfds)
		return 0;
	if ((msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || strncmp(buf, MAGIC, strlen(MAGIC)))
		rc = -1;
	else
		for (line = strtok_r(buf + strlen(MAGIC), "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			if (names < FDS_PER_MESSAGE)
				name[names++] = line;
	if (names != nfds)
		rc = -1;
	for (size_t i = 0; i < nfds; i++) {
		if (rc > 0 && !add_event(t, name[i], fds[i]))
			continue;
		close(fds[i]);
		rc = -1;
	}
	return rc;
}

struct tp_events *tp_events__new(void)
{
	struct tp_events *t = calloc(1, sizeof(*t));
	struct timeval wait = {.tv_sec = 2};
	struct sockaddr_un addr;
	int sock;

	if (!t)
		return NULL;
	pthread_mutex_init(&t->lock, NULL);
	if (!handover_dir_ok())
		return t;
	sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (sock < 0)
		return t;
	handover_address(&addr);
	/* a holder stuck in the middle must not hold up this start: 2 s at most per message */
	setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait));
	if (!connect(sock, (struct sockaddr *)&addr, sizeof(addr)) && peer_is_us(sock) &&
	    send(sock, MAGIC, strlen(MAGIC), MSG_NOSIGNAL) > 0)
		while (take_message(t, sock) > 0)
			;
	close(sock);
	return t;
}

/* A new perf event of the tracepoint, as libbpf opens one: every process, counted on CPU 0. */
static int perf_tracepoint_open(const char *category, const char *name)
{
	struct perf_event_attr attr;
	char path[512];
	FILE *f;
	int id = -1, fd;

	snprintf(path, sizeof(path), "%s/events/%s/%s/id", tracefs_dir(), category, name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (fscanf(f, "%d", &id) != 1)
		id = -1;
	fclose(f);
	if (id < 0)
		return -EINVAL;
	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.size = sizeof(attr);
	attr.config = id;
	fd = syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int tp_events__open(struct tp_events *t, const char *category, const char *name)
{
	char full[NAME_MAX_LEN];
	int fd;

	snprintf(full, sizeof(full), "%s/%s", category, name);
	pthread_mutex_lock(&t->lock);
	for (size_t i = 0; i < t->n; i++) {
		if (t->ev[i].used || strcmp(t->ev[i].name, full))
			continue;
		t->ev[i].used = true;
		t->taken++;
		fd = t->ev[i].fd;
		pthread_mutex_unlock(&t->lock);
		return fd;
	}
	pthread_mutex_unlock(&t->lock);
	fd = perf_tracepoint_open(category, name);
	if (fd >= 0)
		__atomic_add_fetch(&t->opened, 1, __ATOMIC_RELAXED);
	return fd;
}

void tp_events__counts(const struct tp_events *t, size_t *taken, size_t *opened, size_t *unused)
{
	*taken = t->taken;
	*opened = t->opened;
	*unused = t->n - t->taken;
}

struct fd_list {
	int *fds;
	size_t n;
};

static void *close_fds(void *arg)
{
	struct fd_list *l = arg;

	for (size_t i = 0; i < l->n; i++)
		close(l->fds[i]);
	free(l->fds);
	free(l);
	return NULL;
}

void tp_events__free(struct tp_events *t)
{
	struct fd_list *l;
	pthread_t thread;

	if (!t)
		return;
	l = calloc(1, sizeof(*l));
	if (l)
		l->fds = calloc(t->n + 1, sizeof(int));
	for (size_t i = 0; i < t->n; i++) {
		if (t->ev[i].used)
			continue;
		if (l && l->fds)
			l->fds[l->n++] = t->ev[i].fd;
		else
			close(t->ev[i].fd); /* no memory for a list: here, then */
	}
	if (l && l->n && !pthread_create(&thread, NULL, close_fds, l))
		pthread_detach(thread);
	else if (l)
		close_fds(l);
	pthread_mutex_destroy(&t->lock);
	free(t->ev);
	free(t);
}

/*
 * Whether the caller on conn asks for the events: a run of ours sends
 * MAGIC at once.  One that only looks whether a holder is there (another
 * helper, bind_handover()) closes without asking, and must not get them.
 */
static bool asks(int conn)
{
	struct timeval wait = {.tv_sec = 1};
	char buf[sizeof(MAGIC)];
	ssize_t len;

	setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait));
	len = recv(conn, buf, sizeof(buf) - 1, 0);
	return peer_is_us(conn) && len == (ssize_t)strlen(MAGIC) && !memcmp(buf, MAGIC, len);
}

/* Send names[0..n) and their fds, FDS_PER_MESSAGE at a time, then the end. */
static int give(int conn, char *const *names, const int *fds, size_t n)
{
	static char buf[FDS_PER_MESSAGE * NAME_MAX_LEN + sizeof(MAGIC)];

	for (size_t at = 0; at < n; at += FDS_PER_MESSAGE) {
		size_t k = n - at < FDS_PER_MESSAGE ? n - at : FDS_PER_MESSAGE, len;
		union {
			char space[CMSG_SPACE(FDS_PER_MESSAGE * sizeof(int))];
			struct cmsghdr align;
		} ctl;
		struct iovec iov = {buf, 0};
		struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.space};
		struct cmsghdr *c;

		len = snprintf(buf, sizeof(buf), "%s", MAGIC);
		for (size_t i = at; i < at + k && len < sizeof(buf); i++)
			len += snprintf(buf + len, sizeof(buf) - len, "%.*s\n", NAME_MAX_LEN - 1,
					names[i]);
		if (len >= sizeof(buf))
			return -1;
		iov.iov_len = len;
		memset(&ctl, 0, sizeof(ctl));
		msg.msg_controllen = CMSG_SPACE(k * sizeof(int));
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(k * sizeof(int));
		memcpy(CMSG_DATA(c), fds + at, k * sizeof(int));
		if (sendmsg(conn, &msg, MSG_NOSIGNAL) < 0)
			return -1;
	}
	return send(conn, MAGIC_END, strlen(MAGIC_END), MSG_NOSIGNAL) < 0 ? -1 : 0;
}

/*
 * Bind the handover socket: under a name of this process's, listening,
 * then linked to the shared name (a caller never finds it bound and not
 * yet listening).  A socket file nobody answers on is a dead holder's:
 * replaced.  -1 when a live holder has it (or on an error).
 */
static int bind_handover(struct stat *bound)
{
	struct sockaddr_un addr, mine;
	int sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	bool linked;

	if (sock < 0)
		return -1;
	handover_address(&addr);
	memset(&mine, 0, sizeof(mine));
	mine.sun_family = AF_UNIX;
	snprintf(mine.sun_path, sizeof(mine.sun_path), "%s.%d", HANDOVER_SOCKET, (int)getpid());
	unlink(mine.sun_path);
	if (bind(sock, (struct sockaddr *)&mine, sizeof(mine)) || listen(sock, 4)) {
		close(sock);
		return -1;
	}
	linked = !link(mine.sun_path, HANDOVER_SOCKET);
	if (!linked && errno == EEXIST) {
		int probe = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
		bool live = probe < 0 || !connect(probe, (struct sockaddr *)&addr, sizeof(addr));

		if (probe >= 0)
			close(probe);
		linked = !live && !unlink(HANDOVER_SOCKET) && !link(mine.sun_path, HANDOVER_SOCKET);
	}
	unlink(mine.sun_path);
	if (!linked || stat(HANDOVER_SOCKET, bound)) {
		close(sock);
		return -1;
	}
	return sock;
}

/*
 * Join, in each hierarchy, the cgroup that `cgroups` (a /proc/PID/cgroup
 * text) names where this process is elsewhere.  False when a move fails.
 */
static bool join_cgroups(const char *cgroups)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[1024];
	bool ok = true;

	if (!f)
		return false;
	while (ok && fgets(line, sizeof(line), f)) {
		char *first = strchr(line, ':'), *second = first ? strchr(first + 1, ':') : NULL;
		char key[300], want[512], dir[512], procs[1100];
		const char *at;
		int fd;

		if (!second)
			continue;
		line[strcspn(line, "\n")] = '\0';
		/* the same hierarchy in the other text: "ID:controllers:" */
		snprintf(key, sizeof(key), "%.*s", (int)(second + 1 - line), line);
		at = strstr(cgroups, key);
		while (at && at != cgroups && at[-1] != '\n')
			at = strstr(at + 1, key);
		if (!at)
			continue;
		at += strlen(key);
		snprintf(want, sizeof(want), "%.*s", (int)strcspn(at, "\n"), at);
		if (!strcmp(want, second + 1))
			continue;
		*second = '\0';
		if (!cgroup_mount_of(first + 1, dir, sizeof(dir))) {
			ok = false;
			break;
		}
		snprintf(procs, sizeof(procs), "%s%s/cgroup.procs", dir, want);
		fd = open(procs, O_WRONLY | O_CLOEXEC);
		ok = fd >= 0 && dprintf(fd, "%d\n", (int)getpid()) > 0;
		if (fd >= 0)
			close(fd);
	}
	fclose(f);
	return ok;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

void tp_events__hold(char *const *names, const int *fds, size_t n, unsigned hold_ms,
		     const char *cgroups)
{
	uint64_t end = now_ms() + hold_ms;
	struct stat bound, now;
	int sock = -1;

	/* disabled and without a program, a held event costs the traced syscalls next to nothing */
	for (size_t i = 0; i < n; i++)
		ioctl(fds[i], PERF_EVENT_IOC_DISABLE, 0);
	/* a holder never stays in a job's cgroup, whose manager waits for it to empty */
	if (n && hold_ms && (!cgroups || join_cgroups(cgroups)) && handover_dir_ok())
		sock = bind_handover(&bound);
	while (sock >= 0) {
		struct pollfd pfd = {.fd = sock, .events = POLLIN};
		uint64_t t = now_ms();
		int conn;

		if (t >= end || poll(&pfd, 1, (int)(end - t)) <= 0)
			break;
		conn = accept4(sock, NULL, NULL, SOCK_CLOEXEC);
		if (conn < 0)
			continue;
		if (asks(conn) && !give(conn, names, fds, n)) {
			close(conn);
			break;
		}
		close(conn);
	}
	if (sock >= 0) {
		/* leave the name to whoever bound it since, if anyone did */
		if (!stat(HANDOVER_SOCKET, &now) && now.st_ino == bound.st_ino &&
		    now.st_dev == bound.st_dev)
			unlink(HANDOVER_SOCKET);
		close(sock);
	}
	for (size_t i = 0; i < n; i++)
		close(fds[i]);
}
