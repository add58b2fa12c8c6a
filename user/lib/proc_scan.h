/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Reading what /proc says about processes: names, threads, fds, children. */
#ifndef PROC_SCAN_H
#define PROC_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Read /proc/<pid>/<file> into buf (NUL-terminated); returns bytes or -1. */
ssize_t proc_read(pid_t pid, const char *file, char *buf, size_t size);
/* readlink /proc/<pid>/fd/<fd>; returns length or -1. */
ssize_t proc_fd_path(pid_t pid, int fd, char *buf, size_t size);
/* The parent pid from /proc/<pid>/stat, or -1. */
pid_t proc_ppid(pid_t pid);
/* True when /proc/<pid> is a process (thread group leader) that exists. */
bool proc_exists(pid_t pid);

typedef void (*pid_visit_fn)(pid_t id, void *ctx);
/* Call fn for each thread id of pid. Returns the count or -1. */
int proc_for_each_thread(pid_t pid, pid_visit_fn fn, void *ctx);
/* Call fn for each open fd of pid. */
int proc_for_each_fd(pid_t pid, pid_visit_fn fn, void *ctx);
/* Call fn for pid and every descendant process (one /proc scan). */
int proc_for_each_descendant(pid_t root, pid_visit_fn fn, void *ctx);

#endif
