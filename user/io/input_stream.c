// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "io/input_stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef ZOUT_BYTES
#define ZOUT_BYTES (256u << 10) /* inflated bytes per step (smaller in the fuzz target) */
#endif

void input_stream_init(struct input_stream *s, input_fn fn, void *ctx)
{
	memset(s, 0, sizeof(*s));
	s->fn = fn;
	s->ctx = ctx;
}

void input_stream_free(struct input_stream *s)
{
	if (s->z_ready)
		inflateEnd(&s->z);
	free(s->zout);
	s->zout = NULL;
	s->z_ready = false;
}

static int fail(struct input_stream *s, const char *why, const char *detail)
{
	if (!s->failed)
		snprintf(s->error, sizeof(s->error), "%s%s%s%s", why, detail ? " (" : "",
			 detail ? detail : "", detail ? ")" : "");
	s->failed = true;
	return -1;
}

static int out(struct input_stream *s, const char *p, size_t n)
{
	if (n && s->fn(s->ctx, p, n)) {
		s->failed = true;
		return -1;
	}
	return 0;
}

static int gzip_feed(struct input_stream *s, const unsigned char *data, size_t len)
{
	if (!s->z_ready) {
		memset(&s->z, 0, sizeof(s->z));
		if (inflateInit2(&s->z, 16 + MAX_WBITS) != Z_OK)
			return fail(s, "cannot start gzip decompression", NULL);
		s->zout = malloc(ZOUT_BYTES);
		if (!s->zout)
			return fail(s, "out of memory", NULL);
		s->z_ready = true;
	}
	s->z.next_in = (Bytef *)data;
	s->z.avail_in = len;
	while (s->z.avail_in) {
		int zr;

		if (s->z_ended) {
			/* another gzip member may follow (concatenated files) */
			if (*s->z.next_in != 0x1f) {
				s->trailing_garbage = true;
				return 0;
			}
			inflateReset(&s->z);
			s->z_ended = false;
		}
		s->z.next_out = (Bytef *)s->zout;
		s->z.avail_out = ZOUT_BYTES;
		zr = inflate(&s->z, Z_NO_FLUSH);
		if (zr == Z_DATA_ERROR || zr == Z_NEED_DICT)
			return fail(s, "corrupt gzip data", s->z.msg ? s->z.msg : "invalid stream");
		if (zr == Z_MEM_ERROR)
			return fail(s, "out of memory", NULL);
		if (out(s, s->zout, ZOUT_BYTES - s->z.avail_out))
			return -1;
		if (zr == Z_STREAM_END)
			s->z_ended = true;
		else if (zr == Z_BUF_ERROR && s->z.avail_out == ZOUT_BYTES)
			break; /* needs more input */
	}
	return 0;
}

int input_stream_feed(struct input_stream *s, const void *data, size_t len)
{
	const unsigned char *p = data;

	if (s->failed)
		return -1;
	if (s->mode == 0) {
		while (len && s->magic_len < 2) {
			s->magic[s->magic_len++] = *p++;
			len--;
		}
		if (s->magic_len < 2)
			return 0;
		s->mode = s->magic[0] == 0x1f && s->magic[1] == 0x8b ? 2 : 1;
		s->gzip = s->mode == 2;
		if (s->mode == 2 ? gzip_feed(s, s->magic, 2) : out(s, (const char *)s->magic, 2))
			return -1;
	}
	if (!len)
		return 0;
	return s->mode == 2 ? gzip_feed(s, p, len) : out(s, (const char *)p, len);
}

int input_stream_finish(struct input_stream *s)
{
	if (s->failed)
		return -1;
	if (s->mode == 0 && s->magic_len) {
		s->mode = 1;
		if (out(s, (const char *)s->magic, s->magic_len))
			return -1;
	}
	if (s->mode == 2 && !s->z_ended)
		s->gzip_unfinished = true;
	return 0;
}

size_t input_stream_peek(const void *data, size_t len, char *buf, size_t size)
{
	const unsigned char *p = data;
	z_stream z;
	size_t n;

	if (len < 2 || p[0] != 0x1f || p[1] != 0x8b) {
		n = len < size ? len : size;
		memcpy(buf, data, n);
		return n;
	}
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return 0;
	z.next_in = (Bytef *)data;
	z.avail_in = len;
	z.next_out = (Bytef *)buf;
	z.avail_out = size;
	inflate(&z, Z_SYNC_FLUSH);
	n = size - z.avail_out;
	inflateEnd(&z);
	return n;
}
