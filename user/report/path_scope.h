/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Which part of a job's I/O a path belongs to, for the report: the
 * application's files (datasets, checkpoints, outputs), the environment
 * (Python modules, shared libraries, /proc, /sys, /dev, system files), or
 * other descriptors (pipes, sockets, anonymous inodes, unnamed).
 */
#ifndef PATH_SCOPE_H
#define PATH_SCOPE_H

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
	ENV_DEV,     /* /dev (and /dev/shm) */
	ENV_SYSTEM,  /* /etc, /usr/share, /usr/include, /run, ... */
	ENV_COUNT,
};

enum path_scope path_scope(const char *path, size_t len, enum env_kind *kind);
const char *path_scope_name(enum path_scope s);
const char *env_kind_name(enum env_kind k);

#endif
