// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "live/cgroup_lookup.h"

#include "lib/cgroup_mounts.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#define CGROUP2_MAGIC 0x63677270

static int is_cgroup2_dir(const char *path)
{
	struct statfs sf;
	struct stat st;

	return statfs(path, &sf) == 0 && (unsigned long)sf.f_type == CGROUP2_MAGIC &&
	       stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int cgroup2_mount(char *out, size_t size)
{
	return cgroup_mount_of("", out, size) ? 0 : -1;
}

struct search {
	const char *name;
	size_t name_len;
	char **found;
	size_t count;
};

static struct search *current_search;

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	struct search *s = current_search;
	size_t len = strlen(path);

	(void)st;
	(void)ftw;
	if (type != FTW_D)
		return 0;
	/* match the last components: "job123" or "slurm/job123" */
	if (len > s->name_len && path[len - s->name_len - 1] == '/' &&
	    strcmp(path + len - s->name_len, s->name) == 0) {
		char **f = realloc(s->found, (s->count + 1) * sizeof(*f));

		if (!f)
			return -1;
		s->found = f;
		s->found[s->count++] = strdup(path);
	}
	return 0;
}

int cgroup_resolve(const char *arg, char *out, size_t size, char *err, size_t errlen)
{
	char mount[PATH_MAX], path[PATH_MAX];
	struct search s = {0};
	size_t used = 0;

	if (!*arg) {
		snprintf(err, errlen, "--cgroup needs a cgroup name or directory");
		return -1;
	}
	if (cgroup2_mount(mount, sizeof(mount))) {
		snprintf(err, errlen,
			 "no cgroup v2 hierarchy is mounted (looked in /proc/self/mountinfo)");
		return -1;
	}
	if (arg[0] == '/') {
		if (is_cgroup2_dir(arg) && realpath(arg, out)) {
			if (strncmp(out, mount, strlen(mount)) == 0)
				return 0;
		}
		snprintf(path, sizeof(path), "%s%s", mount, arg);
		if (is_cgroup2_dir(path) && realpath(path, out))
			return 0;
		snprintf(err, errlen, "%s is not a cgroup v2 directory (the cgroup v2 mount is %s)",
			 arg, mount);
		return -1;
	}
	/* a name: search the hierarchy */
	while (arg[0] == '.' && arg[1] == '/')
		arg += 2;
	s.name = arg;
	s.name_len = strlen(arg);
	current_search = &s;
	nftw(mount, visit, 32, FTW_PHYS | FTW_MOUNT);
	current_search = NULL;
	if (s.count == 1) {
		snprintf(out, size, "%s", s.found[0]);
	} else if (s.count == 0) {
		snprintf(err, errlen, "no cgroup named '%s' under %s", arg, mount);
	} else {
		used = snprintf(err, errlen, "cgroup name '%s' is ambiguous; give one of:", arg);
		for (size_t i = 0; i < s.count && used < errlen; i++)
			used += snprintf(err + used, errlen - used, "\n  %s", s.found[i]);
	}
	for (size_t i = 0; i < s.count; i++)
		free(s.found[i]);
	free(s.found);
	return s.count == 1 ? 0 : -1;
}

struct procs_walk {
	void (*fn)(pid_t pid, void *ctx);
	void *ctx;
	int count;
};

/* One cgroup's cgroup.procs, then its children's. */
static void procs_of(int dirfd, struct procs_walk *w, int depth)
{
	int fd = openat(dirfd, "cgroup.procs", O_RDONLY | O_CLOEXEC);
	struct dirent *d;
	DIR *dir;

	if (fd >= 0) {
		FILE *f = fdopen(fd, "re");
		long pid;

		if (!f) {
			close(fd);
		} else {
			while (fscanf(f, "%ld", &pid) == 1)
				if (pid > 0) {
					w->fn((pid_t)pid, w->ctx);
					w->count++;
				}
			fclose(f);
		}
	}
	if (depth >= 64)
		return;
	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((d = readdir(dir))) {
		int child;

		if (d->d_type != DT_DIR || d->d_name[0] == '.')
			continue;
		child = openat(dirfd, d->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (child < 0)
			continue;
		procs_of(child, w, depth + 1);
		close(child);
	}
	closedir(dir);
}

int cgroup_for_each_process(const char *path, void (*fn)(pid_t pid, void *ctx), void *ctx)
{
	struct procs_walk w = {fn, ctx, 0};
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	procs_of(fd, &w, 0);
	close(fd);
	return w.count;
}
