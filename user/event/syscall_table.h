/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Names and classes of the record kinds (enum dl_kind). */
#ifndef SYSCALL_TABLE_H
#define SYSCALL_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum io_class {
	IO_DATA,     /* moves file bytes: read, write, mmap, sendfile, ... */
	IO_METADATA, /* names, attributes, descriptors: open, stat, close, ... */
	IO_SYNC,     /* durability: fsync, fdatasync, sync_file_range */
};

struct syscall_info {
	const char *name;	/* syscall name as users know it */
	const char *tracepoint; /* syscalls:sys_enter_<tracepoint> on x86_64 */
	enum io_class io_class;
	unsigned reads : 1;  /* moves bytes from a file */
	unsigned writes : 1; /* moves bytes to a file */
	unsigned opens : 1;  /* returns a new descriptor for a path */
};

/* NULL for kinds that are not syscalls. */
const struct syscall_info *syscall_info(unsigned kind);
/* The syscall's name, or "fork", "page_fault", ... for the other kinds; NULL if unknown. */
const char *record_kind_name(unsigned kind);
const char *io_class_name(enum io_class c);
/* The reverse: DL_SYS_* of a syscall name as traces write it, or -1. */
int syscall_kind(const char *name, size_t len);

/* "O_WRONLY|O_CREAT|O_TRUNC" style rendering into buf. */
void format_open_flags(uint32_t flags, char *buf, size_t size);
/* "SEEK_SET", ... or the number. */
void format_whence(uint32_t whence, char *buf, size_t size);
/* "PROT_READ|PROT_WRITE" and "MAP_SHARED|..." */
void format_mmap_prot(uint32_t prot, char *buf, size_t size);
void format_mmap_flags(uint32_t flags, char *buf, size_t size);
/* "ENOENT"; the number as text when unknown. */
const char *errno_name(int err, char *buf, size_t size);

/* An errno value that has no name (a trace said "ret": -1 without a known errno). */
#define ERRNO_UNKNOWN 4095

/* The reverse of the formatters above (what a trace reader needs); -1 if s is not one. */
int parse_open_flags(const char *s, size_t len, uint32_t *out);
int parse_whence(const char *s, size_t len, uint32_t *out);
int parse_mmap_prot(const char *s, size_t len, uint32_t *out);
int parse_mmap_flags(const char *s, size_t len, uint32_t *out);
/* "ENOENT" -> 2; unknown names -> ERRNO_UNKNOWN. */
int errno_number(const char *s, size_t len);

#endif
