/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The daemon's files in a shared log directory: LOGDIR/YYYY/MM/DD/
 * <user>_<jobid>_<host>.json.gz (or .pftrace.gz, or no trace) and
 * <user>_<jobid>_<host>.summary.json.
 * Directories are created and opened one level at a time without
 * following symlinks and must belong to root; a job's trace is written
 * under a hidden temporary name and renamed, owned by the job's user with
 * mode 0640, when the job ends (its user is known only then).
 */
#ifndef JOB_FILES_H
#define JOB_FILES_H

#include <stddef.h>
#include <sys/types.h>
#include <time.h>

struct job_files {
	int dir_fd;	    /* the day directory */
	char day[40];	    /* "YYYY/MM/DD" */
	char tmp_name[256]; /* the trace while it is written */
	char suffix[16];    /* of the trace: ".json.gz", ".pftrace.gz"; "": none (only a summary) */
	char jobid[64];
	char host[64];
};

/*
 * Make LOGDIR/YYYY/MM/DD (for time t) and create the job's temporary trace
 * file there, to be named ...<suffix> (""): no trace, the file is removed
 * at the end).  Returns its fd, or -1 with the reason in err.
 */
int job_files_create(struct job_files *jf, const char *log_dir, time_t t, const char *jobid,
		     const char *host, const char *suffix, char *err, size_t errlen);

/*
 * Give the trace its final name for `user`, owner uid:gid and mode 0640;
 * write `summary` (n bytes) next to it the same way.  The final paths are
 * returned in trace_path/summary_path (relative to the log dir; trace_path
 * "" when there is no trace).
 */
int job_files_finish(struct job_files *jf, const char *user, uid_t uid, gid_t gid,
		     const char *summary, size_t n, char *trace_path, char *summary_path,
		     size_t size, char *err, size_t errlen);

/* Remove the temporary trace (a job that could not be traced). */
void job_files_abandon(struct job_files *jf);

/* Delete traces and summaries older than `days` below log_dir; returns how many. */
int job_files_expire(const char *log_dir, int days, time_t now);

#endif
