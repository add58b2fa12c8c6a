// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "daemon/job_files.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/trace_format.h"

/* Open (making it first if needed) directory `name` below parent, safely. */
static int open_dir(int parent, const char *name, char *err, size_t errlen, const char *shown)
{
	struct stat st;
	int fd;

	if (mkdirat(parent, name, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", shown, strerror(errno));
		return -1;
	}
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s%s", shown, strerror(errno),
			 errno == ELOOP || errno == ENOTDIR ? " (not a directory, or a symlink)"
							    : "");
		return -1;
	}
	if (fstat(fd, &st) || st.st_uid != geteuid() || (st.st_mode & S_IWOTH)) {
		snprintf(err, errlen,
			 "%s does not belong to the daemon's user or is world-writable", shown);
		close(fd);
		return -1;
	}
	return fd;
}

int job_files_create(struct job_files *jf, const char *log_dir, time_t t, const char *jobid,
		     const char *host, const char *suffix, char *err, size_t errlen)
{
	char part[3][12], shown[1200];
	struct tm tm;
	int fd, top;

	memset(jf, 0, sizeof(*jf));
	jf->dir_fd = -1;
	snprintf(jf->jobid, sizeof(jf->jobid), "%s", jobid);
	snprintf(jf->host, sizeof(jf->host), "%s", host);
	snprintf(jf->suffix, sizeof(jf->suffix), "%s", suffix);
	localtime_r(&t, &tm);
	snprintf(part[0], sizeof(part[0]), "%04d", tm.tm_year + 1900);
	snprintf(part[1], sizeof(part[1]), "%02d", tm.tm_mon + 1);
	snprintf(part[2], sizeof(part[2]), "%02d", tm.tm_mday);
	snprintf(jf->day, sizeof(jf->day), "%s/%s/%s", part[0], part[1], part[2]);

	if (mkdir(log_dir, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", log_dir, strerror(errno));
		return -1;
	}
	top = open(log_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (top < 0) {
		snprintf(err, errlen, "cannot open %s: %s", log_dir, strerror(errno));
		return -1;
	}
	for (int i = 0; i < 3; i++) {
		snprintf(shown, sizeof(shown), "%s/%.*s", log_dir, 4 + 3 * i, jf->day);
		fd = open_dir(top, part[i], err, errlen, shown);
		close(top);
		if (fd < 0)
			return -1;
		top = fd;
	}
	jf->dir_fd = top;
	snprintf(jf->tmp_name, sizeof(jf->tmp_name), ".%s_%s.%d.partial%s", jobid, host,
		 (int)getpid(), *suffix ? suffix : ".none");
	fd = openat(jf->dir_fd, jf->tmp_name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0600);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create %s/%s/%s: %s", log_dir, jf->day, jf->tmp_name,
			 strerror(errno));
		close(jf->dir_fd);
		jf->dir_fd = -1;
	}
	return fd;
}

/* Rename tmp to "<base><suffix>", adding .1, .2, ... rather than replacing a file. */
static int rename_unique(int dir, const char *tmp, const char *base, const char *suffix,
			 char *final, size_t size)
{
	for (int i = 0; i < 1000; i++) {
		if (i)
			snprintf(final, size, "%s.%d%s", base, i, suffix);
		else
			snprintf(final, size, "%s%s", base, suffix);
		if (!renameat2(dir, tmp, dir, final, RENAME_NOREPLACE))
			return 0;
		if (errno != EEXIST)
			return -1;
	}
	errno = EEXIST;
	return -1;
}

int job_files_finish(struct job_files *jf, const char *user, uid_t uid, gid_t gid,
		     const char *summary, size_t n, char *trace_path, char *summary_path,
		     size_t size, char *err, size_t errlen)
{
	char base[512], final[600], tmp_summary[300];
	ssize_t w;
	int fd;

	snprintf(base, sizeof(base), "%s_%s_%s", user, jf->jobid, jf->host);
	if (!*jf->suffix) {
		/* no trace: the summary alone */
		unlinkat(jf->dir_fd, jf->tmp_name, 0);
		snprintf(final, sizeof(final), "%s", base);
		if (size)
			trace_path[0] = '\0';
	} else if (fchownat(jf->dir_fd, jf->tmp_name, uid, gid, AT_SYMLINK_NOFOLLOW) ||
		   fchmodat(jf->dir_fd, jf->tmp_name, 0640, 0) ||
		   rename_unique(jf->dir_fd, jf->tmp_name, base, jf->suffix, final,
				 sizeof(final))) {
		snprintf(err, errlen, "cannot finish %s: %s", jf->tmp_name, strerror(errno));
		return -1;
	} else {
		snprintf(trace_path, size, "%s/%s", jf->day, final);
		/* the summary: same stem as the trace, so the pair stays together */
		final[strlen(final) - strlen(jf->suffix)] = '\0';
	}
	snprintf(tmp_summary, sizeof(tmp_summary), ".%s.summary.tmp", final);
	fd = openat(jf->dir_fd, tmp_summary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0600);
	w = fd < 0 ? -1 : write(fd, summary, n);
	if (fd < 0 || w != (ssize_t)n || fchown(fd, uid, gid) || fchmod(fd, 0640) || close(fd) ||
	    rename_unique(jf->dir_fd, tmp_summary, final, ".summary.json", base, sizeof(base))) {
		snprintf(err, errlen, "cannot write the summary of %s: %s", final, strerror(errno));
		unlinkat(jf->dir_fd, tmp_summary, 0);
		return -1;
	}
	snprintf(summary_path, size, "%s/%s", jf->day, base);
	close(jf->dir_fd);
	jf->dir_fd = -1;
	return 0;
}

void job_files_abandon(struct job_files *jf)
{
	if (jf->dir_fd < 0)
		return;
	unlinkat(jf->dir_fd, jf->tmp_name, 0);
	close(jf->dir_fd);
	jf->dir_fd = -1;
}

/* Is name more than a, then b? */
static bool ends_with(const char *name, const char *a, const char *b)
{
	size_t n = strlen(name), la = strlen(a), lb = strlen(b);

	return n > la + lb && !strncmp(name + n - la - lb, a, la) && !strcmp(name + n - lb, b);
}

static time_t expire_before;
static int expired;

static int expire_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	const char *name = path + ftw->base;
	bool ours = ends_with(name, ".summary.json", "");

	/* a trace of any format, as the daemon writes them: gzip-compressed */
	for (int f = 0; f < TRACE_FORMAT_COUNT && !ours; f++)
		ours = ends_with(name, trace_format_ops(f)->suffix, ".gz");

	if (type == FTW_F && ours && st->st_mtime < expire_before && !unlink(path))
		expired++;
	else if (type == FTW_DP && ftw->level > 0)
		rmdir(path); /* only succeeds when empty */
	return 0;
}

int job_files_expire(const char *log_dir, int days, time_t now)
{
	if (days <= 0)
		return 0;
	expire_before = now - (time_t)days * 86400;
	expired = 0;
	nftw(log_dir, expire_entry, 16, FTW_PHYS | FTW_DEPTH | FTW_MOUNT);
	return expired;
}
