/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where the cgroup hierarchies are mounted (/proc/self/mountinfo): the
 * v2 hierarchy, or a v1 hierarchy by its controllers.
 */
#ifndef CGROUP_MOUNTS_H
#define CGROUP_MOUNTS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The mount point of the hierarchy with every controller of `controllers`
 * ("cpu,cpuacct"; "" for v2), into dir.  Of several, one of the
 * hierarchy's root is preferred, then /sys/fs/cgroup, then the first.
 * False when there is none.
 */
bool cgroup_mount_of(const char *controllers, char *dir, size_t size);

#endif
