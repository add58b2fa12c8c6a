// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "lib/proc_scan.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

ssize_t proc_read(pid_t pid, const char *file, char *buf, size_t size)
{
	char path[64];
	ssize_t n, total = 0;
	int fd;

	if (!size)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while ((size_t)total < size - 1 && (n = read(fd, buf + total, size - 1 - total)) > 0)
		total += n;
	close(fd);
	buf[total] = '\0';
	return total;
}

ssize_t proc_fd_path(pid_t pid, int fd, char *buf, size_t size)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, fd);
	n = readlink(path, buf, size - 1);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

pid_t proc_ppid(pid_t pid)
{
	char buf[1024], *p;
	int ppid;

	if (proc_read(pid, "stat", buf, sizeof(buf)) <= 0)
		return -1;
	/* comm may contain spaces and parentheses: parse after the last ')' */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
		return -1;
	return ppid;
}

bool proc_exists(pid_t pid)
{
	char path[64], buf[1024], *p;
	int tgid = -1;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (access(path, F_OK))
		return false;
	if (proc_read(pid, "status", buf, sizeof(buf)) <= 0)
		return false;
	p = strstr(buf, "\nTgid:");
	if (p)
		sscanf(p + 6, "%d", &tgid);
	return tgid == pid;
}

static int for_each_number(const char *dir, pid_visit_fn fn, void *ctx)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char *end;
		long v;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		v = strtol(e->d_name, &end, 10);
		if (*end)
			continue;
		fn(v, ctx);
		n++;
	}
	closedir(d);
	return n;
}

int proc_for_each_thread(pid_t pid, pid_visit_fn fn, void *ctx)
{
	char dir[64];

	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	return for_each_number(dir, fn, ctx);
}

int proc_for_each_fd(pid_t pid, pid_visit_fn fn, void *ctx)
{
	char dir[64];

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	return for_each_number(dir, fn, ctx);
}

struct pid_pair {
	pid_t pid, ppid;
};

struct scan {
	struct pid_pair *v;
	size_t n, cap;
};

static void collect(pid_t pid, void *ctx)
{
	struct scan *s = ctx;

	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 256;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		if (!s->v)
			abort();
	}
	s->v[s->n].pid = pid;
	s->v[s->n].ppid = proc_ppid(pid);
	s->n++;
}

int proc_for_each_descendant(pid_t root, pid_visit_fn fn, void *ctx)
{
	struct scan s = {0};
	pid_t *queue;
	size_t head = 0, tail = 0;

	if (for_each_number("/proc", collect, &s) < 0)
		return -1;
	queue = malloc((s.n + 1) * sizeof(*queue));
	if (!queue)
		abort();
	queue[tail++] = root;
	while (head < tail) {
		pid_t p = queue[head++];

		fn(p, ctx);
		for (size_t i = 0; i < s.n; i++)
			if (s.v[i].ppid == p && s.v[i].pid != root && tail <= s.n)
				queue[tail++] = s.v[i].pid;
	}
	free(queue);
	free(s.v);
	return (int)tail;
}
