/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Building Chrome-trace JSON lines without printf: numbers, microsecond
 * timestamps, escaped strings, `"key":value` members, and the common head
 * of an event line.  Shared by the writers of the core and layer events.
 */
#ifndef CHROME_FORMAT_H
#define CHROME_FORMAT_H

#include <stdint.h>
#include <string.h>

#include "format/chrome/chrome_writer.h"
#include "decode/path_table.h"

/* Append a string literal (only literals: the length is taken with sizeof). */
#define PUT(p, lit)                                                                                \
	do {                                                                                       \
		_Static_assert(__builtin_constant_p(lit), "PUT takes a string literal");           \
		memcpy((p), (lit), sizeof(lit) - 1);                                               \
		(p) += sizeof(lit) - 1;                                                            \
	} while (0)

char *fmt_u64(char *p, uint64_t v);
char *fmt_i64(char *p, int64_t v);
/* ns as microseconds with three decimals: "12.345" */
char *fmt_us(char *p, uint64_t ns);
/* a JSON string with its quotes */
char *fmt_str(char *p, const char *s, size_t len);

/* ,"key":value members */
char *put_key_u64(char *p, const char *key, uint64_t v);
char *put_key_i64(char *p, const char *key, int64_t v);
char *put_key_str(char *p, const char *key, const char *s);
/* ,"key":"path" (and "key_hex" when the name is not UTF-8); nothing for NULL */
char *put_path(char *p, const char *key, const struct path_ref *path);
/* "ret":N, or "ret":-1,"errno":"ENAME" for -errno values: the first member of args */
char *put_errno_or_ret(char *p, int64_t ret);
/* ,"dev":"maj:min" from a kernel dev_t */
char *put_dev(char *p, const char *key, uint32_t dev);
/* ,"ino":N,"dev":"maj:min","fs":"ext4" */
char *put_identity(char *p, uint64_t ino, uint32_t dev, uint32_t fs_magic);

/*
 * Start a line: the separator, then {"name":..,"cat":..,"ph":..,"ts":..,
 * "pid":..,"tid":.. (ts relative to the trace start).  line_end() counts it.
 */
char *line_begin(struct chrome_writer *w, char *p, const char *name, const char *cat, char ph,
		 uint64_t ts, uint32_t pid, uint32_t tid);
/* The same with a head made once by line_head() (hot paths). */
size_t line_head(char *out, const char *name, const char *cat, char ph);
char *line_begin_head(struct chrome_writer *w, char *p, const char *head, size_t head_len,
		      uint64_t ts, uint32_t pid, uint32_t tid);
void line_end(struct chrome_writer *w, char *start, char *p);

#endif
