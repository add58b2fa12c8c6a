/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Finding a cgroup v2 directory from what the user typed: an absolute
 * directory, a path relative to the cgroup v2 mount, or a name searched for
 * below the mount (an ambiguous name is an error listing the candidates).
 */
#ifndef CGROUP_LOOKUP_H
#define CGROUP_LOOKUP_H

#include <stddef.h>
#include <sys/types.h>

/* The cgroup v2 mount point ("/sys/fs/cgroup" or a hybrid ".../unified"). */
int cgroup2_mount(char *out, size_t size);

/*
 * Resolve `arg` to an absolute cgroup directory in out.  Returns 0, or -1
 * with a message in err (for an ambiguous name, the candidates, one per
 * line).
 */
int cgroup_resolve(const char *arg, char *out, size_t size, char *err, size_t errlen);

/*
 * fn for every process in the cgroup directory path and in its descendant
 * cgroups (their cgroup.procs, read once each).  The number of processes,
 * or -1 when path cannot be opened.
 */
int cgroup_for_each_process(const char *path, void (*fn)(pid_t pid, void *ctx), void *ctx);

#endif
