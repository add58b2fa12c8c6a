// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "output_sink.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SINK_CHUNK   (1 << 20)	 /* bytes buffered before a write */
#define SINK_RESERVE (256 << 10) /* preallocated past the end for the tail */

int sink_init(struct output_sink *s, int fd, bool gzip, int level)
{
	struct stat st;

	memset(s, 0, sizeof(*s));
	s->fd = fd;
	s->gzip = gzip;
	s->regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	s->cap = SINK_CHUNK;
	s->buf = malloc(s->cap);
	if (!s->buf)
		return -ENOMEM;
	if (gzip) {
		s->zcap = deflateBound(NULL, SINK_CHUNK) + 64;
		s->zbuf = malloc(s->zcap);
		/* windowBits 15 + 16: gzip wrapper */
		if (!s->zbuf ||
		    deflateInit2(&s->z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
			return -ENOMEM;
		s->good_crc = crc32(0, NULL, 0);
	}
	if (s->regular)
		fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, SINK_RESERVE);
	return 0;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (w == 0)
			return -EIO;
		p += w;
		n -= w;
	}
	return 0;
}

static int sink_fail(struct output_sink *s, int err)
{
	if (!s->error)
		s->error = -err;
	if (s->regular && ftruncate(s->fd, s->committed) == 0)
		lseek(s->fd, s->committed, SEEK_SET);
	s->len = 0;
	return err;
}

/* Compress (gzip) or pass through buf[0..len) and write it. */
static int sink_emit(struct output_sink *s, int zflush)
{
	int err = 0;
	off_t written = 0;

	if (!s->gzip) {
		err = write_all(s->fd, s->buf, s->len);
		written = s->len;
	} else {
		s->z.next_in = (Bytef *)s->buf;
		s->z.avail_in = s->len;
		do {
			s->z.next_out = (Bytef *)s->zbuf;
			s->z.avail_out = s->zcap;
			if (deflate(&s->z, zflush) == Z_STREAM_ERROR)
				return -EIO;
			size_t have = s->zcap - s->z.avail_out;

			err = write_all(s->fd, s->zbuf, have);
			written += have;
		} while (!err && (s->z.avail_out == 0 || s->z.avail_in));
	}
	if (err)
		return err;
	s->committed += written;
	s->len = 0;
	if (s->gzip) {
		s->good_crc = s->z.adler;
		s->good_total = s->z.total_in;
	}
	if (s->regular)
		fallocate(s->fd, FALLOC_FL_KEEP_SIZE, s->committed, SINK_RESERVE);
	return 0;
}

int sink_flush(struct output_sink *s)
{
	int err;

	if (s->error) {
		s->len = 0;
		return -s->error;
	}
	if (!s->len)
		return 0;
	err = sink_emit(s, Z_SYNC_FLUSH);
	return err ? sink_fail(s, err) : 0;
}

char *sink_grow(struct output_sink *s, size_t n)
{
	sink_flush(s);
	if (s->cap - s->len < n) {
		char *b = realloc(s->buf, s->len + n);

		if (!b)
			abort();
		s->buf = b;
		s->cap = s->len + n;
	}
	return s->buf + s->len;
}

void sink_write(struct output_sink *s, const void *data, size_t n)
{
	memcpy(sink_space(s, n), data, n);
	sink_advance(s, n);
}

static void put_le32(unsigned char *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/*
 * After a failure: the file ends on a chunk boundary (a sync-flushed,
 * byte-aligned deflate stream).  Finish it by hand with one final stored
 * block holding `tail`, then the gzip trailer.
 */
static int sink_gzip_tail(struct output_sink *s, const char *tail, size_t n)
{
	static const unsigned char header[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
	unsigned char block[5], trailer[8];
	uint32_t crc = crc32(s->good_crc, (const Bytef *)tail, n);
	int err = 0;

	if (n > 0xffff)
		n = 0xffff;
	if (s->committed == 0)
		err = write_all(s->fd, (const char *)header, sizeof(header));
	block[0] = 1; /* BFINAL=1, BTYPE=00 (stored) */
	block[1] = n & 0xff;
	block[2] = n >> 8;
	block[3] = ~n & 0xff;
	block[4] = (~n >> 8) & 0xff;
	put_le32(trailer, crc);
	put_le32(trailer + 4, (uint32_t)(s->good_total + n));
	if (!err)
		err = write_all(s->fd, (const char *)block, sizeof(block));
	if (!err)
		err = write_all(s->fd, tail, n);
	if (!err)
		err = write_all(s->fd, (const char *)trailer, sizeof(trailer));
	return err;
}

int sink_close(struct output_sink *s, const char *tail, size_t n)
{
	int err = 0;

	if (!s->error) {
		sink_write(s, tail, n);
		err = s->error ? -s->error : sink_emit(s, s->gzip ? Z_FINISH : Z_NO_FLUSH);
		if (err)
			sink_fail(s, err);
	}
	if (s->error) {
		/* Cut back to the last good chunk and close the document there. */
		err = -s->error;
		if (s->gzip)
			sink_gzip_tail(s, tail, n);
		else
			write_all(s->fd, tail, n);
	}
	if (s->regular) {
		/* drop the preallocation past the end */
		off_t end = lseek(s->fd, 0, SEEK_CUR);

		if (end >= 0)
			fallocate(s->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, end,
				  SINK_RESERVE);
	}
	if (s->gzip)
		deflateEnd(&s->z);
	if (close(s->fd) && !err)
		err = -errno;
	free(s->buf);
	free(s->zbuf);
	s->buf = s->zbuf = NULL;
	s->fd = -1;
	return err;
}
