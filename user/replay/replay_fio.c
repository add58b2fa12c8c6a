// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fio iolog v3 export (replay_fio.h).  One log per thread:
 *
 *   fio version 3 iolog
 *   <usec> <file> add            once per file, before its first use
 *   <usec> <file> open           when the thread's first descriptor on it opens
 *   <usec> <file> read <offset> <length>
 *   <usec> <file> write <offset> <length>
 *   <usec> <file> sync 0 0 | datasync 0 0
 *   <usec> <file> close          when the thread's last descriptor on it closes
 *
 * Times are microseconds from the replay's origin (the first process's
 * start), so each log starts its thread when the job started it, and fio
 * waits out the recorded think times.  Offsets are the recorded ones (a
 * read() at the file position has it as its offset); lengths are the bytes
 * the call moved.  fio reads names up to 255 bytes without spaces: other
 * files are left out, and counted.
 */
#define _GNU_SOURCE
#include "replay/replay_fio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "event/syscall_table.h"

#define FIO_NAME_MAX 255

struct fio_state {
	uint32_t *opens; /* per file: descriptors of this thread on it */
	bool *added;
	uint64_t left_out[DL_SYS_COUNT + 1]; /* by kind: what an iolog cannot say */
	uint64_t bad_names, lines;
};

static bool fio_name_ok(const char *s)
{
	size_t n = strlen(s);

	return n && n <= FIO_NAME_MAX && !strpbrk(s, " \t\n\r");
}

static void ensure_open(FILE *f, struct fio_state *s, const char *name, uint32_t file, uint64_t us)
{
	if (!s->added[file]) {
		fprintf(f, "%llu %s add\n", (unsigned long long)us, name);
		s->added[file] = true;
	}
	if (!s->opens[file]) {
		fprintf(f, "%llu %s open\n", (unsigned long long)us, name);
		s->opens[file] = 1;
	}
}

static int write_thread(const struct replay_plan *p, uint32_t t, FILE *f, struct fio_state *s)
{
	const struct rp_thread *th = &p->threads[t];
	uint64_t last = 0;

	memset(s->opens, 0, p->nfiles * sizeof(*s->opens));
	memset(s->added, 0, p->nfiles * sizeof(*s->added));
	fputs("fio version 3 iolog\n", f);
	for (uint32_t i = th->op; i < th->op + th->nops; i++) {
		const struct rp_op *o = &p->ops[i];
		const char *name;
		uint64_t us;
		unsigned kind;
		const struct syscall_info *si;

		if (!rp_op_is_io(o))
			continue;
		kind = o->type == RP_OP_FAULT ? RP_FAULT_KIND : o->sys;
		if (o->file == RP_NONE) {
			s->left_out[kind]++;
			continue;
		}
		name = rp_str(p, p->files[o->file].replay);
		if (!fio_name_ok(name)) {
			s->bad_names++;
			continue;
		}
		us = (o->ts > p->origin ? o->ts - p->origin : 0) / 1000;
		if (us < last) /* a log's times never go back */
			us = last;
		last = us;
		si = o->type == RP_OP_SYS ? syscall_info(o->sys) : NULL;
		if (o->type == RP_OP_FAULT) {
			ensure_open(f, s, name, o->file, us);
			fprintf(f, "%llu %s read %llu %llu\n", (unsigned long long)us, name,
				(unsigned long long)o->offset, (unsigned long long)o->size);
			s->lines++;
			continue;
		}
		if (si && si->opens) {
			if (o->ret < 0) {
				s->left_out[kind]++;
				continue;
			}
			if (s->opens[o->file]++) /* already open in this log: one more descriptor */
				continue;
			s->opens[o->file] = 0;
			ensure_open(f, s, name, o->file, us);
			continue;
		}
		if (o->sys == DL_SYS_CLOSE) {
			if (s->opens[o->file] > 1) {
				s->opens[o->file]--;
			} else if (s->opens[o->file] == 1) {
				fprintf(f, "%llu %s close\n", (unsigned long long)us, name);
				s->opens[o->file] = 0;
			}
			continue;
		}
		if (o->sys == DL_SYS_FSYNC || o->sys == DL_SYS_FDATASYNC) {
			ensure_open(f, s, name, o->file, us);
			fprintf(f, "%llu %s %s 0 0\n", (unsigned long long)us, name,
				o->sys == DL_SYS_FSYNC ? "sync" : "datasync");
			s->lines++;
			continue;
		}
		if (si && (si->reads || si->writes) && o->sys != DL_SYS_SENDFILE &&
		    o->sys != DL_SYS_COPY_FILE_RANGE) {
			if (o->ret <= 0)
				continue; /* nothing moved: nothing for fio to do */
			ensure_open(f, s, name, o->file, us);
			fprintf(f, "%llu %s %s %llu %llu\n", (unsigned long long)us, name,
				si->reads ? "read" : "write", (unsigned long long)o->offset,
				(unsigned long long)o->ret);
			s->lines++;
			continue;
		}
		s->left_out[kind]++;
	}
	for (uint32_t k = 0; k < p->nfiles; k++)
		if (s->opens[k])
			fprintf(f, "%llu %s close\n", (unsigned long long)last,
				rp_str(p, p->files[k].replay));
	return ferror(f) ? -1 : 0;
}

int replay_fio_write(const struct replay_plan *p, const char *dir, unsigned *nlogs, char *err,
		     size_t errlen)
{
	struct fio_state s = {0};
	char *path = NULL;
	FILE *job = NULL;
	int rc = -1;
	uint32_t logs = 0;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "cannot make %s: %s", dir, strerror(errno));
		return -1;
	}
	s.opens = calloc(p->nfiles ? p->nfiles : 1, sizeof(*s.opens));
	s.added = calloc(p->nfiles ? p->nfiles : 1, sizeof(*s.added));
	if (!s.opens || !s.added || asprintf(&path, "%s/replay.fio", dir) < 0) {
		path = NULL;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	/* fio opens the files the job changed below the scratch directory: their directories */
	for (uint32_t i = 0; i < p->nfiles; i++) {
		const struct rp_file *f = &p->files[i];
		char *d;

		if (!(f->flags & RPF_WRITTEN) || !(d = strdup(rp_str(p, f->replay))))
			continue;
		for (char *q = d + 1; *q; q++) {
			if (*q != '/')
				continue;
			*q = '\0';
			mkdir(d, 0755);
			*q = '/';
		}
		if ((f->flags & RPF_DIR) && !(f->flags & RPF_ABSENT))
			mkdir(d, 0755);
		free(d);
	}
	job = fopen(path, "w");
	if (!job) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		goto out;
	}
	for (uint32_t t = 0; t < p->nthreads; t++) {
		uint64_t before = s.lines;
		char *log = NULL;
		FILE *f;

		if (asprintf(&log, "%s/thread-%u.iolog", dir, p->threads[t].tid) < 0) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		f = fopen(log, "w");
		if (!f) {
			snprintf(err, errlen, "cannot write %s: %s", log, strerror(errno));
			free(log);
			goto out;
		}
		if (write_thread(p, t, f, &s) | fclose(f)) {
			snprintf(err, errlen, "writing %s failed", log);
			free(log);
			goto out;
		}
		if (s.lines == before) /* a thread with no I/O fio can do: no log */
			remove(log);
		else
			logs++;
		free(log);
	}
	fprintf(job,
		"; fio job file written by dltrace replay --fio: the application I/O of a trace,\n"
		"; one job per traced thread, each replaying its iolog (version 3) at the\n"
		"; recorded times.  Run it with: fio replay.fio (from this directory).\n"
		"; Files the job changed are named below its scratch directory.\n");
	fprintf(job, "; An iolog cannot say these calls; they are left out:");
	{
		bool any = false;

		for (unsigned k = 0; k <= DL_SYS_COUNT; k++)
			if (s.left_out[k]) {
				fprintf(job, "%s %s %llu", any ? "," : "", rp_kind_name(k),
					(unsigned long long)s.left_out[k]);
				any = true;
			}
		fprintf(job, "%s\n", any ? "" : " none");
	}
	if (s.bad_names)
		fprintf(job,
			"; %llu calls on files whose names fio cannot read (spaces, longer "
			"than 255 bytes) are left out.\n",
			(unsigned long long)s.bad_names);
	fprintf(job, "\n[global]\nioengine=psync\n");
	for (uint32_t t = 0; t < p->nthreads; t++) {
		char *log = NULL;
		struct stat st;

		if (asprintf(&log, "%s/thread-%u.iolog", dir, p->threads[t].tid) < 0)
			continue;
		if (!stat(log, &st))
			fprintf(job, "\n[thread-%u]\nread_iolog=thread-%u.iolog\n",
				p->threads[t].tid, p->threads[t].tid);
		free(log);
	}
	if (fclose(job)) {
		job = NULL;
		snprintf(err, errlen, "writing %s failed: %s", path, strerror(errno));
		goto out;
	}
	job = NULL;
	*nlogs = logs;
	rc = 0;
out:
	if (job)
		fclose(job);
	free(path);
	free(s.opens);
	free(s.added);
	return rc;
}
