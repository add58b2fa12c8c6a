// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "report/path_scope.h"

#include <stdbool.h>
#include <string.h>

static bool has_prefix(const char *p, size_t len, const char *dir)
{
	size_t n = strlen(dir);

	return len >= n && !memcmp(p, dir, n) && (len == n || p[n] == '/');
}

static bool has_suffix(const char *p, size_t len, const char *suf)
{
	size_t n = strlen(suf);

	return len >= n && !memcmp(p + len - n, suf, n);
}

static bool contains(const char *p, size_t len, const char *needle)
{
	return memmem(p, len, needle, strlen(needle)) != NULL;
}

/* libfoo.so, libfoo.so.6, libfoo.so.1.2.3 */
static bool shared_library(const char *p, size_t len)
{
	const char *base = p, *s;
	size_t blen;

	for (size_t i = 0; i < len; i++)
		if (p[i] == '/')
			base = p + i + 1;
	blen = p + len - base;
	s = memmem(base, blen, ".so", 3);
	while (s) {
		const char *q = s + 3;

		while (q < p + len && (*q == '.' || (*q >= '0' && *q <= '9')))
			q++;
		if (q == p + len)
			return true;
		s = memmem(s + 3, p + len - (s + 3), ".so", 3);
	}
	return false;
}

/*
 * The shared-memory file systems: /dev/shm, where shm_open(3) and
 * sem_open(3) put every object, and its old name /run/shm.  *rest: the
 * part below it.
 */
static bool in_shm_dir(const char *p, size_t len, const char **rest, size_t *rlen)
{
	static const char *const dirs[] = {"/dev/shm/", "/run/shm/"};

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		size_t n = strlen(dirs[i]);

		if (len > n && !memcmp(p, dirs[i], n)) {
			*rest = p + n;
			*rlen = len - n;
			return true;
		}
	}
	return false;
}

/*
 * The runtimes' own names for their segments in /dev/shm (the first part
 * below it): what moves tensors, messages and locks between processes, not
 * data the job reads or writes as files.
 */
static bool segment_name(const char *p, size_t len)
{
	static const char *const prefixes[] = {
	    "torch_",			/* PyTorch: tensors shared with DataLoader workers */
	    "psm_",			/* Python's multiprocessing.shared_memory */
	    "pym-",			/* Python's multiprocessing heap (Value, Array, Queue) */
	    "sem.",			/* POSIX named semaphores (sem_open) */
	    "psm2_shm.",		/* Intel PSM2 (Omni-Path) */
	    "vader_segment.",		/* Open MPI 3-4 shared-memory transport */
	    "sm_segment.",		/* Open MPI 5 shared-memory transport */
	    "osc_sm.",			/* Open MPI one-sided windows */
	    "mpich_shar_tmp",		/* MPICH and its derivatives */
	    "ucx_shm_posix_",		/* UCX */
	    "nccl-",			/* NCCL */
	    "cuda.shm.",		/* CUDA IPC */
	    "joblib_memmapping_folder_" /* joblib: arrays handed to its workers */
	};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t n = strlen(prefixes[i]);

		if (len >= n && !memcmp(p, prefixes[i], n))
			return true;
	}
	return false;
}

bool path_shm_entry(const char *p, size_t len)
{
	const char *rest;
	size_t rlen;

	return in_shm_dir(p, len, &rest, &rlen) && !memchr(rest, '/', rlen);
}

enum path_scope path_scope(const char *p, size_t len, enum env_kind *kind)
{
	const char *rest;
	size_t rlen;
	static const char *const system_dirs[] = {
	    "/etc",	    "/usr/share", "/usr/include",
	    "/run",	    "/var/lib",	  "/var/cache/ldconfig",
	    "/usr/libexec", "/bin",	  "/sbin",
	    "/usr/bin",	    "/usr/sbin"};

	*kind = ENV_NONE;
	if (!len || p[0] != '/')
		return SCOPE_OTHER; /* unnamed, pipe:[..], socket:[..], anon_inode:.. */
	/* shared memory: SysV segments, memfd_create (their mappings' names) */
	if ((len >= 5 && !memcmp(p, "/SYSV", 5)) || (len >= 7 && !memcmp(p, "/memfd:", 7)))
		return SCOPE_OTHER;
	/* the MPI runtime's shared memory: OpenMPI's session directory, PMIx's store, MPICH's */
	if ((len >= 10 && !memcmp(p, "/tmp/ompi.", 10)) || contains(p, len, "/pmix_dstor_") ||
	    (len >= 19 && !memcmp(p, "/tmp/mpich_shar_tmp", 19)))
		return SCOPE_OTHER;
	/*
	 * /dev/shm is a tmpfs like any other: a dataset staged there is the
	 * application's, a runtime's segment is not (by its name here; by how
	 * it is used, report_events.c)
	 */
	if (in_shm_dir(p, len, &rest, &rlen))
		return segment_name(rest, rlen) ? SCOPE_OTHER : SCOPE_APP;
	if (has_prefix(p, len, "/proc"))
		*kind = ENV_PROC;
	else if (has_prefix(p, len, "/sys"))
		*kind = ENV_SYS;
	else if (has_prefix(p, len, "/dev"))
		*kind = ENV_DEV;
	else if (has_suffix(p, len, ".py") || has_suffix(p, len, ".pyc") ||
		 contains(p, len, "/site-packages/") || contains(p, len, "/dist-packages/") ||
		 contains(p, len, "/__pycache__/") || has_prefix(p, len, "/usr/lib/python3") ||
		 contains(p, len, "/lib/python3") || contains(p, len, "/lib/python2"))
		*kind = ENV_PYTHON;
	else if (shared_library(p, len) || has_prefix(p, len, "/usr/lib") ||
		 has_prefix(p, len, "/lib") || has_prefix(p, len, "/lib64") ||
		 has_prefix(p, len, "/usr/lib64") || has_prefix(p, len, "/usr/local/lib"))
		*kind = ENV_LIBRARY;
	else {
		for (size_t i = 0; i < sizeof(system_dirs) / sizeof(system_dirs[0]); i++) {
			if (has_prefix(p, len, system_dirs[i])) {
				*kind = ENV_SYSTEM;
				break;
			}
		}
	}
	return *kind == ENV_NONE ? SCOPE_APP : SCOPE_ENV;
}

const char *path_scope_name(enum path_scope s)
{
	switch (s) {
	case SCOPE_APP:
		return "application";
	case SCOPE_ENV:
		return "environment";
	default:
		return "other";
	}
}

const char *env_kind_name(enum env_kind k)
{
	static const char *const names[ENV_COUNT] = {"none", "python", "libraries", "proc",
						     "sys",  "dev",    "system"};

	return k < ENV_COUNT ? names[k] : "none";
}
