/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The files the kernel met through descriptors (struct dl_file records),
 * by cookie: what a call's record names its file by (struct dl_io.file).
 * Each is named as a trace shows it:
 *
 *   a file in the task's tree      its absolute path (the kernel's walk)
 *   a socket                       socket:[ino] (and its address family)
 *   a pipe                         pipe:[ino]
 *   an anonymous inode             anon_inode:NAME (anon_inode:[eventfd], ...)
 *   another file outside any tree  its own name (memfd:NAME), else FS:[ino]
 *
 * the names /proc/PID/fd shows (but memfd's "/memfd:NAME (deleted)").
 */
#ifndef FILE_NAMES_H
#define FILE_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "bpf/dltrace_events.h"
#include "lib/id_map.h"
#include "lib/path_table.h"

struct file_name {
	uint64_t ino;
	uint32_t dev;
	uint16_t family; /* sockets: the address family */
	struct path_ref *path;
};

struct file_names {
	struct id_map by_cookie; /* cookie -> struct file_name */
};

void file_names_init(struct file_names *m);
void file_names_free(struct file_names *m);
/* Learn a struct dl_file record; returns its entry, or NULL when malformed. */
const struct file_name *file_names_add(struct file_names *m, const struct dl_file *rec,
				       size_t size);
/* The file a cookie stands for, or NULL when no record said. */
const struct file_name *file_names_get(const struct file_names *m, uint32_t cookie);

#endif
