// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "event/syscall_table.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bpf/syscall_def.h"
#include "lib/hash.h"

/*
 * The table, from bpf/syscalls.def in three passes: what each row shows
 * under keys of its own and what its record holds (SB_, enum constants),
 * the key of its file offset (SK_), then the rows (SI_).
 */
#define ST_SIZE	  0x1
#define ST_TIMES  0x2
#define SB_ARG(s) /* nothing: only SIZE and TIMES are asked about */
#define SB_LO(s)
#define SB_HI(s)
#define SB_SIZE(s) | ST_SIZE
#define SB_OFFSET(s)
#define SB_ATFLAGS(s)
#define SB_FILE_OFFSET
#define SB_TIMES(n, layout) | ST_TIMES
#define SB_FCNTL_ARGS
#define SB_SPLICE_FLAGS
#define SB_SHOW(cond, key, field, format) | 1u << SF_##field
#define SB_OFFSET_AS(key)

#define DL_ITEMS SB
#define DL_SYSCALL(kind, name, tp, args, cls, prog, roles, rec, file, second, store, show)         \
	SHOWN_##kind = 0 show, STORED_##kind = 0 store,
enum {
#include "bpf/syscalls.def"
};
#undef DL_SYSCALL
#undef DL_ITEMS

#define SK_SHOW(cond, key, field, format)
#define SK_OFFSET_AS(key) #key
#define DL_ITEMS	  SK
#define DL_SYSCALL(kind, name, tp, args, cls, prog, roles, rec, file, second, store, show)         \
	static const char offset_key_##kind[] = "" show;
#include "bpf/syscalls.def"
#undef DL_SYSCALL
#undef DL_ITEMS

#define SI_CLASS_DATA	      IO_DATA
#define SI_CLASS_META	      IO_METADATA
#define SI_CLASS_SYNC	      IO_SYNC
#define SI_CLASS_HINT	      IO_HINT
#define SI_SHARED_OWN	      0
#define SI_SHARED_SHARED      1
#define SI_FDKEY_FD(n)	      FD_KEY_FD
#define SI_FDKEY_FDNUM(n)     FD_KEY_FD
#define SI_FDKEY_RANGE(n)     FD_KEY_FD
#define SI_FDKEY_NAME(n)      FD_KEY_NONE
#define SI_FDKEY_AT(d, n)     FD_KEY_DIRFD
#define SI_FDKEY_ATFD(d, n)   FD_KEY_DIRFD
#define SI_FDKEY_OPENED(d, n) SI_FDKEY_OPENED_##d
#define SI_FDKEY_OPENED_CWD   FD_KEY_NONE
#define SI_FDKEY_OPENED_0     FD_KEY_DIRFD
#define SI_FDKEY_MAPPED(n)    FD_KEY_NONE
#define SI_FDKEY_NOFILE	      FD_KEY_NONE
#define SI_FORMAT_U64	      SH_U64, 0
#define SI_FORMAT_I64	      SH_I64, 0
#define SI_FORMAT_I32	      SH_I32, 0
#define SI_FORMAT_HEX	      SH_HEX, 0
#define SI_FORMAT_OCTAL	      SH_OCTAL, 0
#define SI_FORMAT_RDEV	      SH_RDEV, 0
#define SI_FORMAT_STR	      SH_STR, 0
#define SI_FORMAT_UTIME	      SH_UTIME, 0
#define SI_FORMAT_OPEN_FLAGS  SH_OPEN_FLAGS, 0
#define SI_FORMAT_WHENCE      SH_WHENCE, 0
#define SI_FORMAT_PROT	      SH_PROT, 0
#define SI_FORMAT_MMAP_FLAGS  SH_MMAP_FLAGS, 0
#define SI_FORMAT_CLOEXEC     SH_CLOEXEC, 0
#define SI_FORMAT_FCNTL	      SH_FCNTL, 0
#define SI_FORMAT_IDENTITY    SH_IDENTITY, 0
#define SI_FORMAT_FLAGS(set)  SH_FLAGS, FLAGS_##set
#define SI_FORMAT_SYM(set)    SH_SYM, SYM_##set
#define SI_SHOW(cond, key, field, format)                                                          \
	{#key, sizeof(#key) - 1, SF_##field, SI_FORMAT_##format, SW_##cond},
#define SI_OFFSET_AS(key)
#define SI_SHOWN(...)                                                                              \
	(sizeof((const struct syscall_show[]){{"", 0, 0, 0, 0, 0}, __VA_ARGS__}) /                 \
	     sizeof(struct syscall_show) -                                                         \
	 1)

#define DL_ITEMS SI
#define DL_SYSCALL(kind, nm, tp, args, cls, prog, roles, rec, file, second, store, shown)          \
	[DL_SYS_##kind] = {                                                                        \
	    .name = #nm,                                                                           \
	    .tracepoint = #tp,                                                                     \
	    .io_class = SI_CLASS_##cls,                                                            \
	    .reads = ((roles)&DL_ROLE_READS) != 0,                                                 \
	    .writes = ((roles)&DL_ROLE_WRITES) != 0,                                               \
	    .opens = ((roles)&DL_ROLE_OPENS) != 0,                                                 \
	    .shared = SI_SHARED_##prog,                                                            \
	    .stats = ((roles)&DL_ROLE_STATS) != 0,                                                 \
	    .dups = ((roles)&DL_ROLE_DUPS) != 0,                                                   \
	    .out_fd = DL_SECOND_KIND_##second == DL_SECOND_OUT,                                    \
	    .times = (STORED_##kind & ST_TIMES) != 0,                                              \
	    .size_shown = (STORED_##kind & ST_SIZE) && !(SHOWN_##kind & 1u << SF_SIZE),            \
	    .offset_shown = !(SHOWN_##kind & 1u << SF_OFFSET),                                     \
	    .fd_key = SI_FDKEY_##file,                                                             \
	    .offset_key_len = sizeof(offset_key_##kind) > 1 ? sizeof(offset_key_##kind) - 1 : 6,   \
	    .offset_key = sizeof(offset_key_##kind) > 1 ? offset_key_##kind : "offset",            \
	    .nshow = SI_SHOWN(shown),                                                              \
	    .show = {shown},                                                                       \
	},
const struct syscall_info syscall_rows[DL_SYS_COUNT] = {
#include "bpf/syscalls.def"
};
#undef DL_SYSCALL

/* a row that lists more arguments than a syscall_info holds */
#define DL_SYSCALL(kind, nm, tp, args, cls, prog, roles, rec, file, second, store, shown)          \
	_Static_assert(SI_SHOWN(shown) <= SYSCALL_SHOW_MAX, #nm ": too many arguments shown");     \
	_Static_assert(!(STORED_##kind & ST_TIMES) || DL_REC_PATH_##rec,                           \
		       #nm ": TIMES in a path record (the decoder looks for them there)");         \
	_Static_assert(!((roles)&DL_ROLE_PY_PATH) || (SI_SHARED_##prog && DL_REC_PATH_##rec),      \
		       #nm ": PY_PATH is for a shared row with a path record");
#include "bpf/syscalls.def"
#undef DL_SYSCALL
#undef DL_ITEMS

const char *record_kind_name(unsigned kind)
{
	/* sized by the kinds, so that a kind added without a name is NULL, not past the end */
	static const char *const events[DL_KIND_COUNT - DL_EV_FORK] = {
	    [DL_EV_FORK - DL_EV_FORK] = "fork",
	    [DL_EV_EXEC - DL_EV_FORK] = "exec",
	    [DL_EV_EXIT - DL_EV_FORK] = "exit",
	    [DL_EV_FAULT - DL_EV_FORK] = "page_fault",
	    [DL_EV_BLOCK - DL_EV_FORK] = "block_request",
	    [DL_EV_URING - DL_EV_FORK] = "io_uring_request",
	    [DL_EV_VFS - DL_EV_FORK] = "vfs",
	    [DL_EV_VFS_OPEN - DL_EV_FORK] = "vfs_open",
	    [DL_EV_CGROUP - DL_EV_FORK] = "cgroup",
	    [DL_EV_SPAN - DL_EV_FORK] = "span",
	    [DL_EV_FILE - DL_EV_FORK] = "file",
	    [DL_EV_AIO - DL_EV_FORK] = "aio_request",
	};

	if (kind < DL_SYS_COUNT)
		return syscall_rows[kind].name;
	if (kind >= DL_EV_FORK && kind < DL_KIND_COUNT)
		return events[kind - DL_EV_FORK];
	return NULL;
}

const char *io_class_name(enum io_class c)
{
	switch (c) {
	case IO_DATA:
		return "data";
	case IO_SYNC:
		return "sync";
	case IO_HINT:
		return "hint";
	default:
		return "metadata";
	}
}

struct flag_name {
	uint32_t bit;
	const char *name;
};

/* Append "name" (with a '|' separator) to buf; keeps buf terminated. */
static void append(char *buf, size_t size, size_t *len, const char *name)
{
	size_t n = strlen(name), bar = *len != 0;

	if (*len + bar + n >= size)
		return;
	if (bar)
		buf[(*len)++] = '|';
	memcpy(buf + *len, name, n + 1);
	*len += n;
}

/* A decimal number of at most 9 digits. */
static int parse_uint(const char *s, size_t len, uint32_t *out)
{
	uint32_t v = 0;

	if (!len || len > 9)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

static void format_bits(uint32_t value, const struct flag_name *names, size_t count, char *buf,
			size_t size, size_t len)
{
	char rest[16];

	for (size_t i = 0; i < count; i++) {
		if ((value & names[i].bit) == names[i].bit && names[i].bit) {
			append(buf, size, &len, names[i].name);
			value &= ~names[i].bit;
		}
	}
	if (value) {
		snprintf(rest, sizeof(rest), "0x%x", value);
		append(buf, size, &len, rest);
	}
	if (!len && size)
		snprintf(buf, size, "0");
}

static const struct flag_name open_names[] = {
    {O_CREAT, "O_CREAT"},	  {O_EXCL, "O_EXCL"},
    {O_NOCTTY, "O_NOCTTY"},	  {O_TRUNC, "O_TRUNC"},
    {O_APPEND, "O_APPEND"},	  {O_NONBLOCK, "O_NONBLOCK"},
    {O_DSYNC, "O_DSYNC"},	  {O_DIRECT, "O_DIRECT"},
    {O_LARGEFILE, "O_LARGEFILE"}, {O_DIRECTORY, "O_DIRECTORY"},
    {O_NOFOLLOW, "O_NOFOLLOW"},	  {O_NOATIME, "O_NOATIME"},
    {O_CLOEXEC, "O_CLOEXEC"},	  {O_SYNC & ~O_DSYNC, "O_SYNC"},
    {O_PATH, "O_PATH"},		  {O_TMPFILE & ~O_DIRECTORY, "O_TMPFILE"},
    {O_RDONLY, "O_RDONLY"},	  {O_WRONLY, "O_WRONLY"},
    {O_RDWR, "O_RDWR"},		  {O_ACCMODE, "O_ACCMODE"},
};
#define OPEN_BITS 16 /* the entries above the access modes */

static const char *const whence_names[] = {"SEEK_SET", "SEEK_CUR", "SEEK_END", "SEEK_DATA",
					   "SEEK_HOLE"};

static const struct flag_name prot_names[] = {
    {PROT_READ, "PROT_READ"},
    {PROT_WRITE, "PROT_WRITE"},
    {PROT_EXEC, "PROT_EXEC"},
    {PROT_NONE, "PROT_NONE"},
};

static const struct flag_name map_names[] = {
    {MAP_SHARED_VALIDATE, "MAP_SHARED_VALIDATE"},
    {MAP_SHARED, "MAP_SHARED"},
    {MAP_PRIVATE, "MAP_PRIVATE"},
    {MAP_FIXED, "MAP_FIXED"},
    {MAP_POPULATE, "MAP_POPULATE"},
    {MAP_NORESERVE, "MAP_NORESERVE"},
    {MAP_LOCKED, "MAP_LOCKED"},
    {MAP_FIXED_NOREPLACE, "MAP_FIXED_NOREPLACE"},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

void format_open_flags(uint32_t flags, char *buf, size_t size)
{
	size_t len = 0;

	if (!size)
		return;
	buf[0] = '\0';
	append(buf, size, &len, open_names[OPEN_BITS + (flags & O_ACCMODE)].name);
	format_bits(flags & ~(uint32_t)O_ACCMODE, open_names, OPEN_BITS, buf, size, len);
}

const char *whence_name(uint32_t whence, char *buf, size_t size)
{
	if (whence < COUNT(whence_names))
		return whence_names[whence];
	snprintf(buf, size, "%u", whence);
	return buf;
}

void format_mmap_prot(uint32_t prot, char *buf, size_t size)
{
	if (!size)
		return;
	buf[0] = '\0';
	if (!prot) {
		snprintf(buf, size, "PROT_NONE");
		return;
	}
	format_bits(prot, prot_names, 3, buf, size, 0);
}

void format_mmap_flags(uint32_t flags, char *buf, size_t size)
{
	if (!size)
		return;
	buf[0] = '\0';
	format_bits(flags, map_names, COUNT(map_names), buf, size, 0);
}

/*
 * The reverse of format_bits: "A|B|0x40" -> the value; names not in the
 * table fail.
 */
static int parse_bits(const char *s, size_t len, const struct flag_name *names, size_t count,
		      uint32_t *out)
{
	uint32_t v = 0;

	while (len) {
		const char *bar = memchr(s, '|', len);
		size_t n = bar ? (size_t)(bar - s) : len;
		size_t i;

		if (n > 2 && s[0] == '0' && s[1] == 'x') {
			char tmp[16], *end;

			if (n >= sizeof(tmp))
				return -1;
			memcpy(tmp, s, n);
			tmp[n] = '\0';
			v |= strtoul(tmp, &end, 16);
			if (*end)
				return -1;
		} else {
			for (i = 0; i < count; i++)
				if (strlen(names[i].name) == n && !memcmp(names[i].name, s, n))
					break;
			if (i == count)
				return -1;
			v |= names[i].bit;
		}
		s += n;
		len -= n;
		if (len) { /* the bar */
			s++;
			len--;
		}
	}
	*out = v;
	return 0;
}

int parse_open_flags(const char *s, size_t len, uint32_t *out)
{
	return parse_bits(s, len, open_names, COUNT(open_names), out);
}

int parse_whence(const char *s, size_t len, uint32_t *out)
{
	for (uint32_t i = 0; i < COUNT(whence_names); i++) {
		if (strlen(whence_names[i]) == len && !memcmp(whence_names[i], s, len)) {
			*out = i;
			return 0;
		}
	}
	return parse_uint(s, len, out);
}

int parse_mmap_prot(const char *s, size_t len, uint32_t *out)
{
	return parse_bits(s, len, prot_names, COUNT(prot_names), out);
}

int parse_mmap_flags(const char *s, size_t len, uint32_t *out)
{
	if (len == 1 && *s == '0') {
		*out = 0;
		return 0;
	}
	return parse_bits(s, len, map_names, COUNT(map_names), out);
}

/* ---- the arguments of the metadata, hint and sync kinds ---- */

struct enum_name {
	uint32_t value;
	const char *name;
	uint8_t arg; /* fcntl commands: enum fcntl_arg */
};

static const struct enum_name fcntl_cmds[] = {
    {0, "F_DUPFD", FCNTL_ARG_DUP},
    {1, "F_GETFD", FCNTL_ARG_NONE},
    {2, "F_SETFD", FCNTL_ARG_FD_FLAGS},
    {3, "F_GETFL", FCNTL_ARG_NONE},
    {4, "F_SETFL", FCNTL_ARG_FILE_FLAGS},
    {5, "F_GETLK", FCNTL_ARG_LOCK},
    {6, "F_SETLK", FCNTL_ARG_LOCK},
    {7, "F_SETLKW", FCNTL_ARG_LOCK},
    {8, "F_SETOWN", FCNTL_ARG_INT},
    {9, "F_GETOWN", FCNTL_ARG_NONE},
    {10, "F_SETSIG", FCNTL_ARG_INT},
    {11, "F_GETSIG", FCNTL_ARG_NONE},
    {15, "F_SETOWN_EX", FCNTL_ARG_POINTER},
    {16, "F_GETOWN_EX", FCNTL_ARG_POINTER},
    {17, "F_GETOWNER_UIDS", FCNTL_ARG_POINTER},
    {36, "F_OFD_GETLK", FCNTL_ARG_LOCK},
    {37, "F_OFD_SETLK", FCNTL_ARG_LOCK},
    {38, "F_OFD_SETLKW", FCNTL_ARG_LOCK},
    {1024, "F_SETLEASE", FCNTL_ARG_INT},
    {1025, "F_GETLEASE", FCNTL_ARG_NONE},
    {1026, "F_NOTIFY", FCNTL_ARG_INT},
    {1027, "F_DUPFD_QUERY", FCNTL_ARG_INT},
    {1028, "F_CREATED_QUERY", FCNTL_ARG_NONE},
    {1030, "F_DUPFD_CLOEXEC", FCNTL_ARG_DUP},
    {1031, "F_SETPIPE_SZ", FCNTL_ARG_INT},
    {1032, "F_GETPIPE_SZ", FCNTL_ARG_NONE},
    {1033, "F_ADD_SEALS", FCNTL_ARG_INT},
    {1034, "F_GET_SEALS", FCNTL_ARG_NONE},
    {1035, "F_GET_RW_HINT", FCNTL_ARG_POINTER},
    {1036, "F_SET_RW_HINT", FCNTL_ARG_POINTER},
    {1037, "F_GET_FILE_RW_HINT", FCNTL_ARG_POINTER},
    {1038, "F_SET_FILE_RW_HINT", FCNTL_ARG_POINTER},
};

static const struct enum_name lock_types[] = {
    {0, "F_RDLCK", 0},
    {1, "F_WRLCK", 0},
    {2, "F_UNLCK", 0},
};

static const struct enum_name fadvise_advice[] = {
    {0, "POSIX_FADV_NORMAL", 0},   {1, "POSIX_FADV_RANDOM", 0},	  {2, "POSIX_FADV_SEQUENTIAL", 0},
    {3, "POSIX_FADV_WILLNEED", 0}, {4, "POSIX_FADV_DONTNEED", 0}, {5, "POSIX_FADV_NOREUSE", 0},
};

static const struct enum_name madvise_advice[] = {
    {0, "MADV_NORMAL", 0},	     {1, "MADV_RANDOM", 0},	     {2, "MADV_SEQUENTIAL", 0},
    {3, "MADV_WILLNEED", 0},	     {4, "MADV_DONTNEED", 0},	     {8, "MADV_FREE", 0},
    {9, "MADV_REMOVE", 0},	     {10, "MADV_DONTFORK", 0},	     {11, "MADV_DOFORK", 0},
    {12, "MADV_MERGEABLE", 0},	     {13, "MADV_UNMERGEABLE", 0},    {14, "MADV_HUGEPAGE", 0},
    {15, "MADV_NOHUGEPAGE", 0},	     {16, "MADV_DONTDUMP", 0},	     {17, "MADV_DODUMP", 0},
    {18, "MADV_WIPEONFORK", 0},	     {19, "MADV_KEEPONFORK", 0},     {20, "MADV_COLD", 0},
    {21, "MADV_PAGEOUT", 0},	     {22, "MADV_POPULATE_READ", 0},  {23, "MADV_POPULATE_WRITE", 0},
    {24, "MADV_DONTNEED_LOCKED", 0}, {25, "MADV_COLLAPSE", 0},	     {100, "MADV_HWPOISON", 0},
    {101, "MADV_SOFT_OFFLINE", 0},   {102, "MADV_GUARD_INSTALL", 0}, {103, "MADV_GUARD_REMOVE", 0},
};

static const struct enum_name uring_register_ops[] = {
    {0, "IORING_REGISTER_BUFFERS", 0},	       {1, "IORING_UNREGISTER_BUFFERS", 0},
    {2, "IORING_REGISTER_FILES", 0},	       {3, "IORING_UNREGISTER_FILES", 0},
    {4, "IORING_REGISTER_EVENTFD", 0},	       {5, "IORING_UNREGISTER_EVENTFD", 0},
    {6, "IORING_REGISTER_FILES_UPDATE", 0},    {7, "IORING_REGISTER_EVENTFD_ASYNC", 0},
    {8, "IORING_REGISTER_PROBE", 0},	       {9, "IORING_REGISTER_PERSONALITY", 0},
    {10, "IORING_UNREGISTER_PERSONALITY", 0},  {11, "IORING_REGISTER_RESTRICTIONS", 0},
    {12, "IORING_REGISTER_ENABLE_RINGS", 0},   {13, "IORING_REGISTER_FILES2", 0},
    {14, "IORING_REGISTER_FILES_UPDATE2", 0},  {15, "IORING_REGISTER_BUFFERS2", 0},
    {16, "IORING_REGISTER_BUFFERS_UPDATE", 0}, {17, "IORING_REGISTER_IOWQ_AFF", 0},
    {18, "IORING_UNREGISTER_IOWQ_AFF", 0},     {19, "IORING_REGISTER_IOWQ_MAX_WORKERS", 0},
    {20, "IORING_REGISTER_RING_FDS", 0},       {21, "IORING_UNREGISTER_RING_FDS", 0},
    {22, "IORING_REGISTER_PBUF_RING", 0},      {23, "IORING_UNREGISTER_PBUF_RING", 0},
    {24, "IORING_REGISTER_SYNC_CANCEL", 0},    {25, "IORING_REGISTER_FILE_ALLOC_RANGE", 0},
};

static const struct enum_name families[] = {
    {1, "AF_UNIX", 0},	  {2, "AF_INET", 0},   {4, "AF_IPX", 0},    {5, "AF_APPLETALK", 0},
    {9, "AF_X25", 0},	  {10, "AF_INET6", 0}, {15, "AF_KEY", 0},   {16, "AF_NETLINK", 0},
    {17, "AF_PACKET", 0}, {21, "AF_RDS", 0},   {24, "AF_PPPOX", 0}, {27, "AF_IB", 0},
    {28, "AF_MPLS", 0},	  {29, "AF_CAN", 0},   {30, "AF_TIPC", 0},  {31, "AF_BLUETOOTH", 0},
    {38, "AF_ALG", 0},	  {40, "AF_VSOCK", 0}, {41, "AF_KCM", 0},   {42, "AF_QIPCRTR", 0},
    {43, "AF_SMC", 0},	  {44, "AF_XDP", 0},   {45, "AF_MCTP", 0},
};

static const struct {
	const struct enum_name *names;
	size_t count;
} enums[] = {
    [SYM_FCNTL_CMD] = {fcntl_cmds, COUNT(fcntl_cmds)},
    [SYM_LOCK_TYPE] = {lock_types, COUNT(lock_types)},
    [SYM_FADVISE] = {fadvise_advice, COUNT(fadvise_advice)},
    [SYM_MADVISE] = {madvise_advice, COUNT(madvise_advice)},
    [SYM_FAMILY] = {families, COUNT(families)},
    [SYM_URING_REGISTER] = {uring_register_ops, COUNT(uring_register_ops)},
};

static const struct enum_name *enum_find(enum sym_set set, uint32_t v)
{
	for (size_t i = 0; i < enums[set].count; i++)
		if (enums[set].names[i].value == v)
			return &enums[set].names[i];
	return NULL;
}

const char *sym_name(enum sym_set set, uint32_t v, char *buf, size_t size)
{
	const struct enum_name *e = enum_find(set, v);

	if (e)
		return e->name;
	snprintf(buf, size, "%u", v);
	return buf;
}

int parse_sym(enum sym_set set, const char *s, size_t len, uint32_t *out)
{
	for (size_t i = 0; i < enums[set].count; i++) {
		const char *n = enums[set].names[i].name;

		if (strlen(n) == len && !memcmp(n, s, len)) {
			*out = enums[set].names[i].value;
			return 0;
		}
	}
	return parse_uint(s, len, out);
}

enum fcntl_arg fcntl_arg_of(uint32_t cmd)
{
	const struct enum_name *e = enum_find(SYM_FCNTL_CMD, cmd);

	return e ? (enum fcntl_arg)e->arg : FCNTL_ARG_POINTER;
}

/* access(2) modes: F_OK is 0 */
static const struct flag_name access_names[] = {
    {4, "R_OK"},
    {2, "W_OK"},
    {1, "X_OK"},
};

static const struct flag_name flock_names[] = {
    {1, "LOCK_SH"},
    {2, "LOCK_EX"},
    {4, "LOCK_NB"},
    {8, "LOCK_UN"},
};

static const struct flag_name msync_names[] = {
    {1, "MS_ASYNC"},
    {2, "MS_INVALIDATE"},
    {4, "MS_SYNC"},
};

static const struct flag_name xattr_names[] = {
    {1, "XATTR_CREATE"},
    {2, "XATTR_REPLACE"},
};

static const struct flag_name fd_names[] = {
    {FD_CLOEXEC, "FD_CLOEXEC"},
};

static const struct flag_name splice_names[] = {
    {1, "SPLICE_F_MOVE"},
    {2, "SPLICE_F_NONBLOCK"},
    {4, "SPLICE_F_MORE"},
    {8, "SPLICE_F_GIFT"},
};

static const struct flag_name uring_setup_names[] = {
    {1u << 0, "IORING_SETUP_IOPOLL"},	      {1u << 1, "IORING_SETUP_SQPOLL"},
    {1u << 2, "IORING_SETUP_SQ_AFF"},	      {1u << 3, "IORING_SETUP_CQSIZE"},
    {1u << 4, "IORING_SETUP_CLAMP"},	      {1u << 5, "IORING_SETUP_ATTACH_WQ"},
    {1u << 6, "IORING_SETUP_R_DISABLED"},     {1u << 7, "IORING_SETUP_SUBMIT_ALL"},
    {1u << 8, "IORING_SETUP_COOP_TASKRUN"},   {1u << 9, "IORING_SETUP_TASKRUN_FLAG"},
    {1u << 10, "IORING_SETUP_SQE128"},	      {1u << 11, "IORING_SETUP_CQE32"},
    {1u << 12, "IORING_SETUP_SINGLE_ISSUER"}, {1u << 13, "IORING_SETUP_DEFER_TASKRUN"},
    {1u << 14, "IORING_SETUP_NO_MMAP"},	      {1u << 15, "IORING_SETUP_REGISTERED_FD_ONLY"},
    {1u << 16, "IORING_SETUP_NO_SQARRAY"},
};

static const struct flag_name uring_enter_names[] = {
    {1u << 0, "IORING_ENTER_GETEVENTS"},       {1u << 1, "IORING_ENTER_SQ_WAKEUP"},
    {1u << 2, "IORING_ENTER_SQ_WAIT"},	       {1u << 3, "IORING_ENTER_EXT_ARG"},
    {1u << 4, "IORING_ENTER_REGISTERED_RING"},
};

static const struct {
	const struct flag_name *names;
	size_t count;
	const char *zero; /* the name of 0 */
} flag_sets[] = {
    [FLAGS_ACCESS] = {access_names, COUNT(access_names), "F_OK"},
    [FLAGS_FLOCK] = {flock_names, COUNT(flock_names), "0"},
    [FLAGS_MSYNC] = {msync_names, COUNT(msync_names), "0"},
    [FLAGS_XATTR] = {xattr_names, COUNT(xattr_names), "0"},
    [FLAGS_FD] = {fd_names, COUNT(fd_names), "0"},
    [FLAGS_SPLICE] = {splice_names, COUNT(splice_names), "0"},
    [FLAGS_URING_SETUP] = {uring_setup_names, COUNT(uring_setup_names), "0"},
    [FLAGS_URING_ENTER] = {uring_enter_names, COUNT(uring_enter_names), "0"},
};

void format_flag_set(enum flag_set set, uint32_t v, char *buf, size_t size)
{
	if (!size)
		return;
	buf[0] = '\0';
	if (!v) {
		snprintf(buf, size, "%s", flag_sets[set].zero);
		return;
	}
	format_bits(v, flag_sets[set].names, flag_sets[set].count, buf, size, 0);
}

int parse_flag_set(enum flag_set set, const char *s, size_t len, uint32_t *out)
{
	const char *zero = flag_sets[set].zero;

	if (strlen(zero) == len && !memcmp(zero, s, len)) {
		*out = 0;
		return 0;
	}
	return parse_bits(s, len, flag_sets[set].names, flag_sets[set].count, out);
}

/* A time of utime*: "SECONDS.NANOSECONDS" (nine digits or more), or UTIME_NOW, UTIME_OMIT. */
#define UTIME_NOW_NS  ((1u << 30) - 1)
#define UTIME_OMIT_NS ((1u << 30) - 2)

void format_utime(int64_t sec, uint32_t nsec, char *buf, size_t size)
{
	if (nsec == UTIME_NOW_NS)
		snprintf(buf, size, "UTIME_NOW");
	else if (nsec == UTIME_OMIT_NS)
		snprintf(buf, size, "UTIME_OMIT");
	else
		snprintf(buf, size, "%lld.%09u", (long long)sec, nsec);
}

int parse_utime(const char *s, size_t len, int64_t *sec, uint32_t *nsec)
{
	const char *dot = memchr(s, '.', len);
	uint64_t whole = 0, frac = 0;
	bool neg = len && s[0] == '-';
	size_t i = neg;

	if (len == 9 && !memcmp(s, "UTIME_NOW", 9)) {
		*sec = 0;
		*nsec = UTIME_NOW_NS;
		return 0;
	}
	if (len == 10 && !memcmp(s, "UTIME_OMIT", 10)) {
		*sec = 0;
		*nsec = UTIME_OMIT_NS;
		return 0;
	}
	if (!dot || dot == s + i || (size_t)(s + len - dot - 1) < 9 || s + len - dot - 1 > 10)
		return -1;
	for (; s + i < dot; i++) {
		if (s[i] < '0' || s[i] > '9' || whole > (UINT64_MAX - 9) / 10)
			return -1;
		whole = whole * 10 + (s[i] - '0');
	}
	for (i++; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		frac = frac * 10 + (s[i] - '0');
	}
	if (frac > UINT32_MAX)
		return -1;
	*sec = neg ? -(int64_t)whole : (int64_t)whole;
	*nsec = frac;
	return 0;
}

const char *errno_name(int err, char *buf, size_t size)
{
	const char *name = err == ERRNO_UNKNOWN ? "EUNKNOWN" : strerrorname_np(err);

	if (name)
		return name;
	snprintf(buf, size, "%d", err);
	return buf;
}

int errno_number(const char *s, size_t len)
{
	static int16_t by_hash[512];
	static bool ready;
	uint32_t h = 0;

	if (!ready) { /* errno names by a small hash of their bytes, made once */
		for (int e = 1; e < 512; e++) {
			const char *n = strerrorname_np(e);
			uint32_t k = 0;

			if (!n)
				continue;
			for (const char *p = n; *p; p++)
				k = k * 31 + (unsigned char)*p;
			for (k %= 512; by_hash[k]; k = (k + 1) % 512)
				;
			by_hash[k] = e;
		}
		ready = true;
	}
	for (size_t i = 0; i < len; i++)
		h = h * 31 + (unsigned char)s[i];
	for (h %= 512; by_hash[h]; h = (h + 1) % 512) {
		const char *n = strerrorname_np(by_hash[h]);

		if (strlen(n) == len && !memcmp(n, s, len))
			return by_hash[h];
	}
	if (len && s[0] >= '0' && s[0] <= '9') {
		uint32_t v;

		if (!parse_uint(s, len, &v) && v && v < ERRNO_UNKNOWN)
			return v;
	}
	return ERRNO_UNKNOWN;
}

#define KIND_SLOTS 256 /* a power of two, at least twice DL_SYS_COUNT */
_Static_assert(DL_SYS_COUNT * 2 <= KIND_SLOTS && DL_SYS_COUNT <= 127, "kind_slot holds a kind");
static signed char kind_slot[KIND_SLOTS];
static bool kind_ready;

static void kind_table_init(void)
{
	memset(kind_slot, -1, sizeof(kind_slot));
	for (int k = 0; k < DL_SYS_COUNT; k++) {
		const char *nm = syscall_info(k)->name;
		uint32_t h = fnv1a_32(nm, strlen(nm)) % KIND_SLOTS;

		while (kind_slot[h] >= 0)
			h = (h + 1) % KIND_SLOTS;
		kind_slot[h] = k;
	}
	kind_ready = true;
}

int syscall_kind(const char *name, size_t len)
{
	uint32_t h;

	if (!kind_ready)
		kind_table_init();
	h = fnv1a_32(name, len) % KIND_SLOTS;
	while (kind_slot[h] >= 0) {
		const char *nm = syscall_info(kind_slot[h])->name;

		if (strlen(nm) == len && !memcmp(nm, name, len))
			return kind_slot[h];
		h = (h + 1) % KIND_SLOTS;
	}
	return -1;
}
