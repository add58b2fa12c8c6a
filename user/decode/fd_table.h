/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What each descriptor of a traced process refers to, so that read/write
 * records (which carry only the fd) are reported with the file's path.
 * Kept up to date from open/dup/close/close_range/fcntl (F_DUPFD*, F_SETFD) records; copied at
 * fork; close-on-exec entries dropped at exec.  Shared by reference between
 * processes that share a descriptor table (threads, CLONE_FILES).  An entry
 * keeps the cookie of its file (struct dl_io.file): a call whose record
 * carries another cookie is named after that cookie's file instead, and
 * the entry learns it (descriptors made by calls that are not traced:
 * socket, pipe, SCM_RIGHTS, ...).
 *
 * Data records may arrive after later opens and closes of other threads
 * (each task sends its data records in batches), so the table remembers
 * what recently closed descriptors referred to, and when: a record is
 * named after the file its fd meant at the record's time.
 */
#ifndef FD_TABLE_H
#define FD_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/path_table.h"

struct fd_entry {
	struct path_ref *path;
	uint64_t ino;
	uint32_t dev;
	bool cloexec;
	uint32_t cookie; /* the kernel's cookie of the file (0: not known) */
	uint64_t since;	 /* when the descriptor began to mean this file (ns; 0: before tracing) */
};

#define FD_PAST 32 /* closed descriptors remembered per table */

struct fd_past {
	int fd;
	uint64_t since, until;
	struct fd_entry e;
};

struct fd_table {
	uint32_t refs;
	uint32_t cap;
	struct fd_entry *slots;
	struct fd_past past[FD_PAST]; /* a ring, newest at past_next - 1 */
	unsigned past_next;
};

struct fd_table *fd_table_new(void);
struct fd_table *fd_table_get_ref(struct fd_table *t);
void fd_table_put(struct fd_table *t);
/* A private copy (fork without CLONE_FILES). */
struct fd_table *fd_table_copy(const struct fd_table *t);

/* What fd means now, or NULL when unknown. */
const struct fd_entry *fdt_lookup(const struct fd_table *t, int fd);
/* A descriptor's entry (current or recently closed) with this cookie, or NULL. */
const struct fd_entry *fdt_find_cookie(const struct fd_table *t, uint32_t cookie);
/* What fd meant at time ts (ns), or NULL when unknown. */
const struct fd_entry *fdt_lookup_at(const struct fd_table *t, int fd, uint64_t ts);
/* Set fd from e->since on (takes a new reference on e->path). */
void fdt_set(struct fd_table *t, int fd, const struct fd_entry *e);
/* Close fd at time ts. */
void fdt_close(struct fd_table *t, int fd, uint64_t ts);
void fdt_close_range(struct fd_table *t, unsigned first, unsigned last, bool cloexec_only,
		     uint64_t ts);
void fdt_dup(struct fd_table *t, int oldfd, int newfd, bool cloexec, uint64_t ts);
/* fcntl(F_SETFD): fd's close-on-exec flag. */
void fdt_set_cloexec(struct fd_table *t, int fd, bool cloexec);
void fdt_exec(struct fd_table *t, uint64_t ts);
unsigned fdt_count(const struct fd_table *t);

#endif
