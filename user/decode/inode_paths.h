/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Paths of files known by identity (device, inode): learnt from opens and
 * vfs_open, used to name records that carry only the identity (page
 * faults, VFS calls).  For files opened before tracing, /proc/PID/maps
 * is consulted once per miss.
 */
#ifndef INODE_PATHS_H
#define INODE_PATHS_H

#include <stdint.h>
#include <sys/types.h>

#include "lib/path_table.h"

struct inode_paths {
	struct inode_slot *slots;
	uint32_t cap, count;
};

void inode_paths_init(struct inode_paths *m);
void inode_paths_free(struct inode_paths *m);
/* Remember dev:ino -> path (takes its own reference). */
void inode_paths_set(struct inode_paths *m, uint32_t dev, uint64_t ino, struct path_ref *path);
/* The path, or NULL; pid > 0 allows a look at /proc/pid/maps on a miss. */
struct path_ref *inode_paths_get(struct inode_paths *m, uint32_t dev, uint64_t ino, pid_t pid);

#endif
