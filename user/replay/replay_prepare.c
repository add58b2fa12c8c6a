// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The files around a replay (replay_prepare.h).  Runs before the replay's
 * processes start (and before a --trace tracer attaches), so none of this
 * is in the replay's own trace.
 */
#define _GNU_SOURCE
#include "replay/replay_prepare.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "lib/u64_index.h"

#define COPY_CHUNK (1u << 20)

volatile int replay_prepare_stop;

static int stopped(char *err, size_t errlen)
{
	if (!replay_prepare_stop)
		return 0;
	snprintf(err, errlen, "stopped while preparing: nothing was replayed");
	return -1;
}

static bool needed_as_found(const struct rp_file *f)
{
	return !(f->flags & RPF_WRITTEN) && (f->flags & RPF_EXISTED) &&
	       (f->flags & (RPF_OPENED | RPF_READ | RPF_MAPPED));
}

/* mkdir -p of path's directories (not path itself); 0 or -1 with errno. */
static int make_parents(const char *path)
{
	char *s = strdup(path);
	int rc = 0;

	if (!s)
		return -1;
	for (char *q = s + 1; *q; q++) {
		if (*q != '/')
			continue;
		*q = '\0';
		if (mkdir(s, 0755) && errno != EEXIST) {
			rc = -1;
			*q = '/';
			break;
		}
		*q = '/';
	}
	free(s);
	return rc;
}

static int make_dirs(const char *path)
{
	if (make_parents(path))
		return -1;
	return mkdir(path, 0755) && errno != EEXIST ? -1 : 0;
}

/* Copy a regular file (through a temporary name), its mode and times. */
static int copy_file(const char *from, const char *to, const struct stat *st, char *err,
		     size_t errlen)
{
	char *tmp = NULL, *buf = malloc(COPY_CHUNK);
	int in = -1, out = -1, rc = -1;
	struct timespec times[2];

	if (!buf || asprintf(&tmp, "%s.dltrace-copy", to) < 0) {
		tmp = NULL;
		snprintf(err, errlen, "out of memory");
		goto done;
	}
	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		snprintf(err, errlen, "cannot read %s: %s", from, strerror(errno));
		goto done;
	}
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, st->st_mode & 07777);
	if (out < 0) {
		snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
		goto done;
	}
	for (;;) {
		ssize_t n, w = 0;

		if (stopped(err, errlen))
			goto done;
		n = read(in, buf, COPY_CHUNK);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(err, errlen, "reading %s: %s", from, strerror(errno));
			goto done;
		}
		if (!n)
			break;
		while (w < n) {
			ssize_t k = write(out, buf + w, (size_t)(n - w));

			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0) {
				snprintf(err, errlen, "writing %s: %s", tmp,
					 k < 0 ? strerror(errno) : "no space");
				goto done;
			}
			w += k;
		}
	}
	times[0] = st->st_atim;
	times[1] = st->st_mtim;
	if (futimens(out, times) || close(out)) {
		out = -1;
		snprintf(err, errlen, "writing %s: %s", tmp, strerror(errno));
		goto done;
	}
	out = -1;
	if (rename(tmp, to)) {
		snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, to, strerror(errno));
		goto done;
	}
	rc = 0;
done:
	if (out >= 0)
		close(out);
	if (in >= 0)
		close(in);
	if (rc && tmp)
		unlink(tmp);
	free(tmp);
	free(buf);
	return rc;
}

/* Copy one file system object (file, directory, symlink) from to to (made anew). */
static int copy_node(const char *from, const char *to, const struct stat *st, char *err,
		     size_t errlen)
{
	if (make_parents(to)) {
		snprintf(err, errlen, "cannot make the directories of %s: %s", to, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st->st_mode)) {
		if (mkdir(to, st->st_mode & 07777) && errno != EEXIST) {
			snprintf(err, errlen, "cannot make %s: %s", to, strerror(errno));
			return -1;
		}
		return 0;
	}
	if (S_ISLNK(st->st_mode)) {
		char target[4096];
		ssize_t n = readlink(from, target, sizeof(target) - 1);

		if (n < 0) {
			snprintf(err, errlen, "cannot read the link %s: %s", from, strerror(errno));
			return -1;
		}
		target[n] = '\0';
		unlink(to);
		if (symlink(target, to)) {
			snprintf(err, errlen, "cannot make the link %s: %s", to, strerror(errno));
			return -1;
		}
		return 0;
	}
	if (!S_ISREG(st->st_mode)) {
		snprintf(err, errlen, "%s is not a regular file, directory or link: not copied",
			 from);
		return -1;
	}
	return copy_file(from, to, st, err, errlen);
}

/* Free bytes of the file system that holds path (or its nearest existing directory). */
static int free_bytes(const char *path, uint64_t *out)
{
	char *s = strdup(path);
	struct statvfs v;
	int rc = -1;

	if (!s)
		return -1;
	for (;;) {
		char *slash;

		if (!statvfs(s, &v)) {
			*out = (uint64_t)v.f_bavail * v.f_frsize;
			rc = 0;
			break;
		}
		slash = strrchr(s, '/');
		if (!slash)
			break;
		if (slash == s) {
			s[1] = '\0';
			if (!statvfs(s, &v)) {
				*out = (uint64_t)v.f_bavail * v.f_frsize;
				rc = 0;
			}
			break;
		}
		*slash = '\0';
	}
	free(s);
	return rc;
}

static bool dir_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	bool empty = true;

	if (!d)
		return true;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			empty = false;
			break;
		}
	closedir(d);
	return empty;
}

static int check_missing(const struct replay_plan *p, char *err, size_t errlen)
{
	uint32_t missing = 0, first = RP_NONE;
	struct stat st;

	for (uint32_t i = 0; i < p->nfiles; i++) {
		const struct rp_file *f = &p->files[i];

		if (!needed_as_found(f) || !lstat(rp_str(p, f->source), &st))
			continue;
		if (first == RP_NONE)
			first = i;
		missing++;
	}
	if (!missing)
		return 0;
	{
		const struct rp_file *f = &p->files[first];
		const char *src = rp_str(p, f->source), *name = rp_str(p, f->name);
		char more[64] = "";

		if (missing > 1)
			snprintf(more, sizeof(more), " (and %u more files)", missing - 1);
		if (strcmp(src, name))
			snprintf(err, errlen, "%s (recorded as %s) is missing%s: the job %s it",
				 src, name, more, (f->flags & RPF_READ) ? "read" : "opened");
		else
			snprintf(err, errlen,
				 "%s is missing%s: the job %s it (--map OLD=NEW says "
				 "where it is now)",
				 src, more, (f->flags & RPF_READ) ? "read" : "opened");
	}
	return -1;
}

/*
 * The scratch copies of a recorded path's directories, down to the first
 * the job made itself (it makes that one, and what is below it).
 */
static int scratch_parents(const struct replay_plan *p, const struct u64_index *absent_dirs,
			   const char *scratch, uint32_t name)
{
	const char *s = rp_str(p, name);
	size_t slen = strlen(scratch), n = string_len(&p->strings, name);
	char *buf = malloc(slen + n + 2);
	int rc = 0;

	if (!buf)
		return -1;
	memcpy(buf, scratch, slen);
	for (size_t k = 1; k < n; k++) {
		uint32_t id;

		if (s[k] != '/')
			continue;
		id = string_index_find(&p->strings, s, k);
		if (id != STRING_NONE && u64_index_get(absent_dirs, id) != U64_NONE)
			break;
		memcpy(buf + slen, s, k);
		buf[slen + k] = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST) {
			rc = -1;
			break;
		}
	}
	free(buf);
	return rc;
}

/* The scratch directory's copy of what the changed files were when the job began. */
static int prepare_scratch(const struct replay_plan *p, const struct replay_prepare_options *o,
			   struct replay_prep *out, char *err, size_t errlen)
{
	struct u64_index absent_dirs;
	struct stat st;

	if (!o->dry_run) {
		if (!lstat(o->scratch, &st)) {
			if (!S_ISDIR(st.st_mode) || !dir_empty(o->scratch)) {
				snprintf(err, errlen,
					 "the scratch directory %s is not empty: the replay needs "
					 "an empty one (it removes what it made there afterwards)",
					 o->scratch);
				return -1;
			}
		} else {
			if (make_dirs(o->scratch)) {
				snprintf(err, errlen, "cannot make the scratch directory %s: %s",
					 o->scratch, strerror(errno));
				return -1;
			}
			out->scratch_made = true;
		}
	}
	u64_index_init(&absent_dirs);
	for (uint32_t i = 0; i < p->nfiles; i++)
		if ((p->files[i].flags & (RPF_ABSENT | RPF_DIR)) == (RPF_ABSENT | RPF_DIR) &&
		    u64_index_put(&absent_dirs, p->files[i].name, i)) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
	for (uint32_t i = 0; i < p->nfiles; i++) {
		const struct rp_file *f = &p->files[i];
		const char *dst = rp_str(p, f->replay), *src = rp_str(p, f->source);

		if (!(f->flags & RPF_WRITTEN))
			continue;
		out->scratch_files += !(f->flags & RPF_ABSENT);
		if (o->dry_run)
			continue;
		/* its directories, as the job found them: not those the job made */
		if (scratch_parents(p, &absent_dirs, o->scratch, f->name)) {
			snprintf(err, errlen, "cannot make the directories of %s: %s", dst,
				 strerror(errno));
			goto fail;
		}
		if (f->flags & RPF_ABSENT)
			continue;
		if (f->flags & RPF_DIR) {
			if (mkdir(dst, 0755) && errno != EEXIST) {
				snprintf(err, errlen, "cannot make %s: %s", dst, strerror(errno));
				goto fail;
			}
			continue;
		}
		if (lstat(src, &st)) {
			/* gone since (the job itself may have removed it): an empty stand-in */
			int fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

			if (fd >= 0)
				close(fd);
			out->scratch_empty++;
			continue;
		}
		if (stopped(err, errlen) || copy_node(src, dst, &st, err, errlen))
			goto fail;
		out->scratch_bytes += S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
	}
	u64_index_free(&absent_dirs);
	return 0;
fail:
	u64_index_free(&absent_dirs);
	return -1;
}

static int prepare_stage(const struct replay_plan *p, const struct replay_prepare_options *o,
			 struct replay_prep *out, char *err, size_t errlen)
{
	uint64_t need = 0;
	struct stat st, dst;

	for (uint32_t i = 0; i < p->nfiles; i++) {
		const struct rp_file *f = &p->files[i];

		if (!(f->flags & RPF_STAGED) || lstat(rp_str(p, f->source), &st))
			continue;
		out->stage_files++;
		if (!S_ISREG(st.st_mode))
			continue;
		out->stage_bytes += (uint64_t)st.st_size;
		if (!lstat(rp_str(p, f->replay), &dst) && S_ISREG(dst.st_mode) &&
		    dst.st_size == st.st_size && dst.st_mtim.tv_sec == st.st_mtim.tv_sec &&
		    dst.st_mtim.tv_nsec == st.st_mtim.tv_nsec)
			continue;
		need += (uint64_t)st.st_size;
	}
	if (free_bytes(o->stage, &out->stage_free)) {
		snprintf(err, errlen, "cannot see the free space of %s: %s", o->stage,
			 strerror(errno));
		return -1;
	}
	/* room for the copies and a little more: a full file system helps no one */
	if (need + (need >> 6) + (1u << 20) > out->stage_free) {
		snprintf(err, errlen,
			 "%s has %llu bytes free; staging the %llu files the job read needs %llu",
			 o->stage, (unsigned long long)out->stage_free,
			 (unsigned long long)out->stage_files, (unsigned long long)need);
		return -1;
	}
	if (o->dry_run)
		return 0;
	for (uint32_t i = 0; i < p->nfiles; i++) {
		const struct rp_file *f = &p->files[i];
		const char *src = rp_str(p, f->source), *to = rp_str(p, f->replay);

		if (!(f->flags & RPF_STAGED) || lstat(src, &st))
			continue;
		if (S_ISREG(st.st_mode) && !lstat(to, &dst) && S_ISREG(dst.st_mode) &&
		    dst.st_size == st.st_size && dst.st_mtim.tv_sec == st.st_mtim.tv_sec &&
		    dst.st_mtim.tv_nsec == st.st_mtim.tv_nsec) {
			out->stage_reused++;
			continue;
		}
		if (stopped(err, errlen) || copy_node(src, to, &st, err, errlen))
			return -1;
	}
	return 0;
}

/* Drop a file's pages from the cache (written back first), or read it all in. */
static void cache_state(const char *path, bool cold, struct replay_prep *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;

	if (fd < 0)
		return;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return;
	}
	if (cold) {
		fdatasync(fd);
		if (!posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
			out->cold_files++;
	} else {
		static char buf[1 << 16];
		ssize_t n;

		while ((n = read(fd, buf, sizeof(buf))) > 0)
			out->warm_bytes += (uint64_t)n;
	}
	close(fd);
}

int replay_prepare(const struct replay_plan *p, const struct replay_prepare_options *o,
		   struct replay_prep *out, char *err, size_t errlen)
{
	struct stat st;

	memset(out, 0, sizeof(*out));
	if (check_missing(p, err, errlen))
		return -1;
	if (o->stage && prepare_stage(p, o, out, err, errlen))
		return -1;
	if (prepare_scratch(p, o, out, err, errlen))
		return -1;
	/* what the replay reads: sizes, files shorter than the trace's reads */
	for (uint32_t i = 0; i < p->nfiles; i++) {
		const struct rp_file *f = &p->files[i];
		const char *path =
		    rp_str(p, (o->dry_run && (f->flags & RPF_STAGED)) ? f->source : f->replay);

		if ((f->flags & RPF_WRITTEN) || !(f->flags & RPF_EXISTED) || lstat(path, &st) ||
		    !S_ISREG(st.st_mode))
			continue;
		out->read_files++;
		out->read_bytes += (uint64_t)st.st_size;
		if (f->read_end > (uint64_t)st.st_size && !(f->flags & RPF_DIR)) {
			struct rp_short_file *q =
			    realloc(out->shorts, (out->nshorts + 1) * sizeof(*q));

			if (q) {
				out->shorts = q;
				q[out->nshorts++] =
				    (struct rp_short_file){i, (uint64_t)st.st_size, f->read_end};
			}
		}
	}
	if (o->dry_run || !(o->cold || o->warm))
		return 0;
	for (uint32_t i = 0; i < p->nfiles; i++) {
		const struct rp_file *f = &p->files[i];

		if (stopped(err, errlen))
			return -1;

		if ((f->flags & RPF_DIR) || ((f->flags & RPF_WRITTEN) && (f->flags & RPF_ABSENT)))
			continue;
		cache_state(rp_str(p, f->replay), o->cold, out);
	}
	return 0;
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (ftw->level == 0)
		return 0; /* the scratch directory itself: the caller decides */
	if (type == FTW_DP)
		return rmdir(path) && errno != ENOENT ? -1 : 0;
	return unlink(path) && errno != ENOENT ? -1 : 0;
}

int replay_cleanup(const struct replay_prepare_options *o, struct replay_prep *prep, char *err,
		   size_t errlen)
{
	struct stat st;

	if (o->dry_run || !o->scratch || lstat(o->scratch, &st) || !S_ISDIR(st.st_mode))
		return 0;
	if (nftw(o->scratch, remove_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT)) {
		snprintf(err, errlen, "cannot remove what the replay made in %s: %s", o->scratch,
			 strerror(errno));
		return -1;
	}
	if (prep->scratch_made && rmdir(o->scratch) && errno != ENOENT) {
		snprintf(err, errlen, "cannot remove %s: %s", o->scratch, strerror(errno));
		return -1;
	}
	return 0;
}

void replay_prep_free(struct replay_prep *prep)
{
	free(prep->shorts);
	prep->shorts = NULL;
	prep->nshorts = 0;
}
