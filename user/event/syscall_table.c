// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "event/syscall_table.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bpf/dltrace_events.h"

#define SYS(kind, nm, tp, cls, r, w, o) [kind] = {nm, tp, cls, r, w, o}

static const struct syscall_info table[DL_SYS_COUNT] = {
    SYS(DL_SYS_OPEN, "open", "open", IO_METADATA, 0, 0, 1),
    SYS(DL_SYS_OPENAT, "openat", "openat", IO_METADATA, 0, 0, 1),
    SYS(DL_SYS_OPENAT2, "openat2", "openat2", IO_METADATA, 0, 0, 1),
    SYS(DL_SYS_CREAT, "creat", "creat", IO_METADATA, 0, 0, 1),
    SYS(DL_SYS_CLOSE, "close", "close", IO_METADATA, 0, 0, 0),
    SYS(DL_SYS_CLOSE_RANGE, "close_range", "close_range", IO_METADATA, 0, 0, 0),
    SYS(DL_SYS_READ, "read", "read", IO_DATA, 1, 0, 0),
    SYS(DL_SYS_PREAD64, "pread64", "pread64", IO_DATA, 1, 0, 0),
    SYS(DL_SYS_READV, "readv", "readv", IO_DATA, 1, 0, 0),
    SYS(DL_SYS_PREADV, "preadv", "preadv", IO_DATA, 1, 0, 0),
    SYS(DL_SYS_PREADV2, "preadv2", "preadv2", IO_DATA, 1, 0, 0),
    SYS(DL_SYS_WRITE, "write", "write", IO_DATA, 0, 1, 0),
    SYS(DL_SYS_PWRITE64, "pwrite64", "pwrite64", IO_DATA, 0, 1, 0),
    SYS(DL_SYS_WRITEV, "writev", "writev", IO_DATA, 0, 1, 0),
    SYS(DL_SYS_PWRITEV, "pwritev", "pwritev", IO_DATA, 0, 1, 0),
    SYS(DL_SYS_PWRITEV2, "pwritev2", "pwritev2", IO_DATA, 0, 1, 0),
    SYS(DL_SYS_LSEEK, "lseek", "lseek", IO_METADATA, 0, 0, 0),
    SYS(DL_SYS_FSYNC, "fsync", "fsync", IO_SYNC, 0, 0, 0),
    SYS(DL_SYS_FDATASYNC, "fdatasync", "fdatasync", IO_SYNC, 0, 0, 0),
    SYS(DL_SYS_SYNC_FILE_RANGE, "sync_file_range", "sync_file_range", IO_SYNC, 0, 0, 0),
    SYS(DL_SYS_MMAP, "mmap", "mmap", IO_DATA, 0, 0, 0),
    SYS(DL_SYS_STAT, "stat", "newstat", IO_METADATA, 0, 0, 0),
    SYS(DL_SYS_LSTAT, "lstat", "newlstat", IO_METADATA, 0, 0, 0),
    SYS(DL_SYS_FSTAT, "fstat", "newfstat", IO_METADATA, 0, 0, 0),
    SYS(DL_SYS_NEWFSTATAT, "newfstatat", "newfstatat", IO_METADATA, 0, 0, 0),
    SYS(DL_SYS_STATX, "statx", "statx", IO_METADATA, 0, 0, 0),
    SYS(DL_SYS_GETDENTS64, "getdents64", "getdents64", IO_METADATA, 0, 0, 0),
    SYS(DL_SYS_UNLINK, "unlink", "unlink", IO_METADATA, 0, 0, 0),
    SYS(DL_SYS_UNLINKAT, "unlinkat", "unlinkat", IO_METADATA, 0, 0, 0),
    SYS(DL_SYS_RENAME, "rename", "rename", IO_METADATA, 0, 0, 0),
    SYS(DL_SYS_RENAMEAT, "renameat", "renameat", IO_METADATA, 0, 0, 0),
    SYS(DL_SYS_RENAMEAT2, "renameat2", "renameat2", IO_METADATA, 0, 0, 0),
    SYS(DL_SYS_MKDIR, "mkdir", "mkdir", IO_METADATA, 0, 0, 0),
    SYS(DL_SYS_MKDIRAT, "mkdirat", "mkdirat", IO_METADATA, 0, 0, 0),
    SYS(DL_SYS_RMDIR, "rmdir", "rmdir", IO_METADATA, 0, 0, 0),
    SYS(DL_SYS_FTRUNCATE, "ftruncate", "ftruncate", IO_METADATA, 0, 0, 0),
    SYS(DL_SYS_FALLOCATE, "fallocate", "fallocate", IO_METADATA, 0, 0, 0),
    SYS(DL_SYS_DUP, "dup", "dup", IO_METADATA, 0, 0, 0),
    SYS(DL_SYS_DUP2, "dup2", "dup2", IO_METADATA, 0, 0, 0),
    SYS(DL_SYS_DUP3, "dup3", "dup3", IO_METADATA, 0, 0, 0),
    SYS(DL_SYS_FCNTL, "fcntl", "fcntl", IO_METADATA, 0, 0, 0),
    SYS(DL_SYS_SENDFILE, "sendfile", "sendfile64", IO_DATA, 1, 1, 0),
    SYS(DL_SYS_COPY_FILE_RANGE, "copy_file_range", "copy_file_range", IO_DATA, 1, 1, 0),
};

const struct syscall_info *syscall_info(unsigned kind)
{
	return kind < DL_SYS_COUNT ? &table[kind] : NULL;
}

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
	};

	if (kind < DL_SYS_COUNT)
		return table[kind].name;
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

void format_whence(uint32_t whence, char *buf, size_t size)
{
	if (whence < COUNT(whence_names))
		snprintf(buf, size, "%s", whence_names[whence]);
	else
		snprintf(buf, size, "%u", whence);
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

#define KIND_SLOTS 128
static signed char kind_slot[KIND_SLOTS];
static bool kind_ready;

static uint32_t name_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static void kind_table_init(void)
{
	memset(kind_slot, -1, sizeof(kind_slot));
	for (int k = 0; k < DL_SYS_COUNT; k++) {
		const char *nm = syscall_info(k)->name;
		uint32_t h = name_hash(nm, strlen(nm)) % KIND_SLOTS;

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
	h = name_hash(name, len) % KIND_SLOTS;
	while (kind_slot[h] >= 0) {
		const char *nm = syscall_info(kind_slot[h])->name;

		if (strlen(nm) == len && !memcmp(nm, name, len))
			return kind_slot[h];
		h = (h + 1) % KIND_SLOTS;
	}
	return -1;
}
