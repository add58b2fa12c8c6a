/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Names and classes of the record kinds (enum dl_kind). */
#ifndef SYSCALL_TABLE_H
#define SYSCALL_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/dltrace_events.h"

enum io_class {
	IO_DATA,     /* moves file bytes: read, write, mmap, sendfile, ... */
	IO_METADATA, /* names, attributes, descriptors: open, stat, close, ... */
	IO_SYNC,     /* durability: fsync, fdatasync, sync_file_range, msync, sync, syncfs */
	IO_HINT,     /* advice about future access: fadvise64, readahead, madvise */
};

/*
 * How a syscall shows one of its own arguments: the show column of
 * bpf/syscalls.def, read by event_args() and, the other way, event_parse().
 */
enum show_field {
	SF_NONE,
	SF_LO,	    /* arg_lo */
	SF_HI,	    /* arg_hi */
	SF_ARG,	    /* arg_hi << 32 | arg_lo */
	SF_OFFSET,  /* offset */
	SF_SIZE,    /* size */
	SF_TEXT,    /* text */
	SF_ATFLAGS, /* at_flags */
	SF_ADDR,    /* addr */
	SF_ATIME,   /* times[0] */
	SF_MTIME,   /* times[1] */
	SF_RET,	    /* ret (shown only: it is read back as ret) */
};

enum show_format {
	SH_U64,
	SH_I64,
	SH_I32,	       /* a signed int: -1 as -1 */
	SH_HEX,	       /* "0x1f" */
	SH_OCTAL,      /* "0644" */
	SH_RDEV,       /* mknod's device, "major:minor" */
	SH_STR,	       /* the text as it is */
	SH_UTIME,      /* format_utime() */
	SH_OPEN_FLAGS, /* format_open_flags() */
	SH_WHENCE,     /* whence_name() */
	SH_PROT,       /* format_mmap_prot() */
	SH_MMAP_FLAGS, /* format_mmap_flags() */
	SH_CLOEXEC,    /* "O_CLOEXEC" */
	SH_FCNTL,      /* the command, and what its argument was */
	SH_FLAGS,      /* format_flag_set(set) */
	SH_SYM,	       /* sym_name(set) */
	SH_IDENTITY,   /* an opened file's ino, dev, fs and file_size */
};

enum show_when {
	SW_ALWAYS,
	SW_NONZERO, /* the field is not 0 */
	SW_OK,	    /* the call succeeded */
	SW_CREATE,  /* the open flags create a file (O_CREAT, O_TMPFILE) */
};

struct syscall_show {
	const char *key;
	uint8_t key_len;
	uint8_t field;	/* enum show_field */
	uint8_t format; /* enum show_format */
	uint8_t set;	/* SH_FLAGS: enum flag_set; SH_SYM: enum sym_set */
	uint8_t when;	/* enum show_when */
};

#define SYSCALL_SHOW_MAX 4

/* What names a call's file in a trace (its descriptor argument). */
enum fd_key {
	FD_KEY_NONE,  /* not shown: a name, an address, a context */
	FD_KEY_FD,    /* "fd" */
	FD_KEY_DIRFD, /* "dirfd", when not AT_FDCWD */
};

/* One row of bpf/syscalls.def. */
struct syscall_info {
	const char *name;	/* syscall name as users know it */
	const char *tracepoint; /* syscalls:sys_enter_<tracepoint> on x86_64 */
	enum io_class io_class;
	unsigned reads : 1;	   /* moves bytes from a file */
	unsigned writes : 1;	   /* moves bytes to a file */
	unsigned opens : 1;	   /* returns a new descriptor for a path */
	unsigned shared : 1;	   /* served by the shared programs (meta_syscall_probes.bpf.c) */
	unsigned stats : 1;	   /* stat, lstat, fstat, newfstatat, statx */
	unsigned dups : 1;	   /* dup, dup2, dup3 */
	unsigned out_fd : 1;	   /* arg_lo is a second descriptor, the output (path2: out_path) */
	unsigned times : 1;	   /* the record's offset, size and arg hold utime's two times */
	unsigned size_shown : 1;   /* the record's size is shown as "size" */
	unsigned offset_shown : 1; /* a file offset is shown, as offset_key */
	unsigned fd_key : 2;	   /* enum fd_key */
	uint8_t offset_key_len;
	const char *offset_key; /* "offset", "length" (truncate) */
	uint8_t nshow;
	struct syscall_show show[SYSCALL_SHOW_MAX]; /* the kind's own arguments, in order */
};

/* The rows, by kind (DL_SYS_*): read through syscall_info(). */
extern const struct syscall_info syscall_rows[DL_SYS_COUNT];

/* NULL for kinds that are not syscalls; inline: every event reads its row, some several times. */
static inline const struct syscall_info *syscall_info(unsigned kind)
{
	return kind < DL_SYS_COUNT ? &syscall_rows[kind] : NULL;
}
/* The syscall's name, or "fork", "page_fault", ... for the other kinds; NULL if unknown. */
const char *record_kind_name(unsigned kind);
const char *io_class_name(enum io_class c);
/* The reverse: DL_SYS_* of a syscall name as traces write it, or -1. */
int syscall_kind(const char *name, size_t len);

/* "O_WRONLY|O_CREAT|O_TRUNC" style rendering into buf. */
void format_open_flags(uint32_t flags, char *buf, size_t size);
/* "SEEK_SET", ...: a static name; else the number, written to buf. */
const char *whence_name(uint32_t whence, char *buf, size_t size);
/* "PROT_READ|PROT_WRITE" and "MAP_SHARED|..." */
void format_mmap_prot(uint32_t prot, char *buf, size_t size);
void format_mmap_flags(uint32_t flags, char *buf, size_t size);
/* "ENOENT"; the number as text when unknown. */
const char *errno_name(int err, char *buf, size_t size);

/* Named values of the metadata, hint and sync kinds' arguments. */
enum sym_set {
	SYM_FCNTL_CMD,	    /* F_SETLK, F_GETFL, ... */
	SYM_LOCK_TYPE,	    /* F_RDLCK, F_WRLCK, F_UNLCK */
	SYM_FADVISE,	    /* POSIX_FADV_* */
	SYM_MADVISE,	    /* MADV_* */
	SYM_FAMILY,	    /* AF_UNIX, AF_INET, ... (socket address families) */
	SYM_URING_REGISTER, /* IORING_REGISTER_*, IORING_UNREGISTER_* */
};
/* The value's static name; else the number, written to buf. */
const char *sym_name(enum sym_set set, uint32_t v, char *buf, size_t size);
int parse_sym(enum sym_set set, const char *s, size_t len, uint32_t *out);

/* What an fcntl command's third argument is (what a trace shows of it). */
enum fcntl_arg {
	FCNTL_ARG_NONE,	      /* F_GETFL, F_GETFD, ...: nothing shown */
	FCNTL_ARG_DUP,	      /* F_DUPFD*: the lowest new fd ("minfd") */
	FCNTL_ARG_FD_FLAGS,   /* F_SETFD: FD_CLOEXEC */
	FCNTL_ARG_FILE_FLAGS, /* F_SETFL: O_* flags */
	FCNTL_ARG_LOCK,	      /* the locks: a struct flock (type, whence, start, len) */
	FCNTL_ARG_INT,	      /* F_SETOWN, F_SETSIG, F_SETLEASE, ...: a number */
	FCNTL_ARG_POINTER,    /* a pointer to something else, and unknown commands: not shown */
};
enum fcntl_arg fcntl_arg_of(uint32_t cmd);

/* Flag sets: "R_OK|W_OK" (0: "F_OK"), "LOCK_EX|LOCK_NB", "MS_SYNC", "XATTR_CREATE", "FD_CLOEXEC" */
enum flag_set {
	FLAGS_ACCESS,
	FLAGS_FLOCK,
	FLAGS_MSYNC,
	FLAGS_XATTR,
	FLAGS_FD,
	FLAGS_SPLICE,	   /* SPLICE_F_* */
	FLAGS_URING_SETUP, /* IORING_SETUP_* */
	FLAGS_URING_ENTER, /* IORING_ENTER_* */
};
void format_flag_set(enum flag_set set, uint32_t v, char *buf, size_t size);
int parse_flag_set(enum flag_set set, const char *s, size_t len, uint32_t *out);

/* utime* times: "1700000000.000000123", "UTIME_NOW", "UTIME_OMIT" */
void format_utime(int64_t sec, uint32_t nsec, char *buf, size_t size);
int parse_utime(const char *s, size_t len, int64_t *sec, uint32_t *nsec);

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
