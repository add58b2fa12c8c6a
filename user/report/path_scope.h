/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Which part of a job's I/O a path belongs to, for the report: the
 * application's files (datasets, checkpoints, outputs; on any file system,
 * a tmpfs such as /dev/shm included), the environment (Python modules,
 * shared libraries, /proc, /sys, /dev, system files), or other descriptors
 * (pipes, sockets, anonymous inodes, unnamed, and shared memory: SysV and
 * memfd segments, the MPI runtime's, the segments of /dev/shm).
 */
#ifndef PATH_SCOPE_H
#define PATH_SCOPE_H

#include <stdbool.h>
#include <stddef.h>

enum path_scope {
	SCOPE_APP,
	SCOPE_ENV,
	SCOPE_OTHER,
	SCOPE_COUNT,
};

enum env_kind {
	ENV_NONE,
	ENV_PYTHON,  /* .py/.pyc, site-packages, dist-packages, lib/pythonX */
	ENV_LIBRARY, /* .so, /usr/lib, /lib */
	ENV_PROC,    /* /proc */
	ENV_SYS,     /* /sys */
	ENV_DEV,     /* /dev (not /dev/shm: files and segments, above) */
	ENV_SYSTEM,  /* /etc, /usr/share, /usr/include, /run, ... */
	ENV_COUNT,
};

enum path_scope path_scope(const char *path, size_t len, enum env_kind *kind);
/*
 * A name directly in /dev/shm, where shm_open(3) puts every segment: one
 * path_scope() calls the application's (no runtime's name) may still be a
 * segment by how the job uses it (report_events.c decides).
 */
bool path_shm_entry(const char *path, size_t len);
const char *path_scope_name(enum path_scope s);
const char *env_kind_name(enum env_kind k);

#endif
