// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "format/chrome/chrome_format.h"

#include <stdio.h>

#include "lib/fs_names.h"
#include "lib/json_string.h"
#include "event/syscall_table.h"

char *fmt_u64(char *p, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = '0' + v % 10;
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

char *fmt_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return fmt_u64(p, -(uint64_t)v);
	}
	return fmt_u64(p, v);
}

char *fmt_us(char *p, uint64_t ns)
{
	uint32_t frac = ns % 1000;

	p = fmt_u64(p, ns / 1000);
	*p++ = '.';
	*p++ = '0' + frac / 100;
	*p++ = '0' + frac / 10 % 10;
	*p++ = '0' + frac % 10;
	return p;
}

char *fmt_str(char *p, const char *s, size_t len)
{
	bool lossy = false;

	*p++ = '"';
	p += json_escape(p, s, len, &lossy);
	*p++ = '"';
	return p;
}

char *put_key_u64(char *p, const char *key, uint64_t v)
{
	*p++ = ',';
	*p++ = '"';
	p = stpcpy(p, key);
	*p++ = '"';
	*p++ = ':';
	return fmt_u64(p, v);
}

char *put_key_i64(char *p, const char *key, int64_t v)
{
	*p++ = ',';
	*p++ = '"';
	p = stpcpy(p, key);
	*p++ = '"';
	*p++ = ':';
	return fmt_i64(p, v);
}

char *put_key_str(char *p, const char *key, const char *s)
{
	*p++ = ',';
	*p++ = '"';
	p = stpcpy(p, key);
	*p++ = '"';
	*p++ = ':';
	return fmt_str(p, s, strlen(s));
}

char *put_path(char *p, const char *key, const struct path_ref *path)
{
	if (!path)
		return p;
	*p++ = ',';
	return p + path_json(path, key, p);
}

/* Start a line: separator, then {"name":..,"cat":..,"ph":..,"ts":..,"pid":..,"tid":.. */
char *line_begin_head(struct chrome_writer *w, char *p, const char *head, size_t head_len,
		      uint64_t ts, uint32_t pid, uint32_t tid)
{
	uint64_t rel = ts > w->t0 ? ts - w->t0 : 0;

	if (w->map_ids)
		w->map_ids(w->map_ctx, &pid, &tid);
	if (w->events)
		PUT(p, "\n,");
	memcpy(p, head, head_len);
	p += head_len;
	p = fmt_us(p, rel);
	PUT(p, ",\"pid\":");
	p = fmt_u64(p, pid);
	PUT(p, ",\"tid\":");
	return fmt_u64(p, tid);
}

size_t line_head(char *out, const char *name, const char *cat, char ph)
{
	return sprintf(out, "{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"%c\",\"ts\":", name, cat, ph);
}

char *line_begin(struct chrome_writer *w, char *p, const char *name, const char *cat, char ph,
		 uint64_t ts, uint32_t pid, uint32_t tid)
{
	char head[256];

	return line_begin_head(w, p, head, line_head(head, name, cat, ph), ts, pid, tid);
}

void line_end(struct chrome_writer *w, char *start, char *p)
{
	sink_advance(w->sink, p - start);
	w->events++;
}

/* The first member of args: "ret" (and "errno" when it failed). */
char *put_errno_or_ret(char *p, int64_t ret)
{
	char buf[16];

	if (ret < 0 && ret >= -4095) {
		PUT(p, "\"ret\":-1,\"errno\":\"");
		p = stpcpy(p, errno_name(-ret, buf, sizeof(buf)));
		*p++ = '"';
		return p;
	}
	PUT(p, "\"ret\":");
	return fmt_i64(p, ret);
}

char *put_dev(char *p, const char *key, uint32_t dev)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%u:%u", dev >> 20, dev & 0xfffff);
	return put_key_str(p, key, buf);
}

char *put_identity(char *p, uint64_t ino, uint32_t dev, uint32_t fs_magic)
{
	const char *fs = fs_name(fs_magic);
	char buf[16];

	p = put_key_u64(p, "ino", ino);
	p = put_dev(p, "dev", dev);
	if (!fs) {
		snprintf(buf, sizeof(buf), "0x%x", fs_magic);
		fs = buf;
	}
	return put_key_str(p, "fs", fs);
}
