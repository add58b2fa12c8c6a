// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "io/output_sink.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef SINK_CHUNK
#define SINK_CHUNK (1 << 20) /* bytes buffered before a write (smaller in the fuzz target) */
#endif
#define SINK_TAIL_ROOM (64 << 10) /* first attempt: free this much for the closing bytes */

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
	}
	return 0;
}

/* Write everything; *done (when given) is what was written before an error. */
static int write_some(int fd, const char *p, size_t n, size_t *done)
{
	size_t total = 0;
	int err = 0;

	while (total < n) {
		ssize_t w = write(fd, p + total, n - total);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			err = w < 0 ? -errno : -EIO;
			break;
		}
		total += w;
	}
	if (done)
		*done = total;
	return err;
}

static int write_all(int fd, const char *p, size_t n)
{
	return write_some(fd, p, n, NULL);
}

void sink_frame_packets(struct output_sink *s)
{
	s->packets = true;
}

/* Packets: the end of the last whole one in buf[0..n), which starts with one. */
static size_t last_packet_end(const char *buf, size_t n)
{
	const unsigned char *p = (const unsigned char *)buf;
	size_t at = 0;

	while (at < n) {
		size_t i = at + 1;
		uint64_t len = 0;
		unsigned shift = 0;

		while (i < n && shift < 64) {
			len |= (uint64_t)(p[i] & 0x7f) << shift;
			shift += 7;
			if (!(p[i++] & 0x80))
				break;
		}
		if (i >= n || p[i - 1] & 0x80 || len > n - i)
			break;
		at = i + len;
	}
	return at;
}

/*
 * Plain output: the end of the last whole event within buf[0..n).  Every
 * JSON event after the first starts a new line ("\n,{"), so that is the
 * last newline.
 */
static size_t last_event_end(const struct output_sink *s, const char *buf, size_t n)
{
	if (s->packets)
		return last_packet_end(buf, n);
	while (n > 0 && buf[n - 1] != '\n')
		n--;
	return n ? n - 1 : 0;
}

/* The empty file: where a sink with no good chunk yet can be cut. */
static struct sink_mark empty_mark(void)
{
	return (struct sink_mark){0, crc32(0, NULL, 0), 0};
}

static struct sink_mark last_mark(const struct output_sink *s)
{
	return s->nmarks ? s->marks[s->nmarks - 1] : empty_mark();
}

/* A new point where the file may be cut (after each good chunk). */
static void add_mark(struct output_sink *s, off_t end)
{
	struct sink_mark m = {end, s->gzip ? s->z.adler : 0, s->gzip ? s->z.total_in : 0};

	if (s->nmarks == SINK_MARKS) {
		/* keep the first (the header) and the most recent ones */
		memmove(&s->marks[1], &s->marks[2], (SINK_MARKS - 2) * sizeof(m));
		s->nmarks--;
	}
	s->marks[s->nmarks++] = m;
}

/* Compress (gzip) or pass through buf[0..len) and write it. */
static int sink_emit(struct output_sink *s, int zflush)
{
	off_t end = last_mark(s).end;
	int err = 0;

	if (s->copy && s->len)
		s->copy(s->copy_ctx, s->buf, s->len);
	if (!s->gzip) {
		size_t done = 0;

		err = write_some(s->fd, s->buf, s->len, &done);
		if (err) {
			/* whole events that did reach the file can stay */
			s->partial_end = end + last_event_end(s, s->buf, done);
			return err;
		}
		end += s->len;
	} else {
		s->z.next_in = (Bytef *)s->buf;
		s->z.avail_in = s->len;
		do {
			size_t have;

			s->z.next_out = (Bytef *)s->zbuf;
			s->z.avail_out = s->zcap;
			if (deflate(&s->z, zflush) == Z_STREAM_ERROR)
				return -EIO;
			have = s->zcap - s->z.avail_out;
			err = write_all(s->fd, s->zbuf, have);
			end += have;
		} while (!err && (s->z.avail_out == 0 || s->z.avail_in));
		if (err)
			return err;
	}
	s->len = 0;
	add_mark(s, end);
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
	if (err) {
		s->error = -err;
		s->len = 0;
	}
	return err;
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

/* Cut the file at `end` and write `data` there. */
static int rewrite_end(struct output_sink *s, off_t end, const void *data, size_t n)
{
	if (ftruncate(s->fd, end) || lseek(s->fd, end, SEEK_SET) < 0)
		return -errno;
	return write_all(s->fd, data, n);
}

/*
 * gzip: a mark is a sync-flushed, byte-aligned end of the deflate stream.
 * Close it by hand with one final stored block holding `tail`, then the
 * gzip trailer (CRC-32 and length of everything up to there).
 */
static int gzip_close_at(struct output_sink *s, const struct sink_mark *m, const char *tail,
			 size_t n)
{
	static const unsigned char header[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
	unsigned char *out = malloc(sizeof(header) + 5 + n + 8), *p = out;
	uint32_t crc = crc32(m->crc, (const Bytef *)tail, n);
	int err;

	if (!out)
		return -ENOMEM;
	if (m->end == 0) {
		memcpy(p, header, sizeof(header));
		p += sizeof(header);
	}
	*p++ = 1; /* BFINAL=1, BTYPE=00 (stored) */
	*p++ = n & 0xff;
	*p++ = n >> 8;
	*p++ = ~n & 0xff;
	*p++ = (~n >> 8) & 0xff;
	memcpy(p, tail, n);
	p += n;
	put_le32(p, crc);
	put_le32(p + 4, (uint32_t)(m->total + n));
	p += 8;
	err = rewrite_end(s, m->end, out, p - out);
	free(out);
	return err;
}

/* Plain: the end of the last event that ends at or before `limit`, read back from the file. */
static off_t event_end_before(struct output_sink *s, off_t limit)
{
	char buf[128 << 10];
	off_t floor = s->nmarks ? s->marks[0].end : 0;

	if (s->packets) {
		/* packets cannot be found backwards: the chunk boundaries can */
		for (unsigned i = s->nmarks; i-- > 1;)
			if (s->marks[i].end <= limit)
				return s->marks[i].end;
		return floor;
	}

	while (limit > floor) {
		off_t from =
		    limit - (off_t)sizeof(buf) > floor ? limit - (off_t)sizeof(buf) : floor;
		ssize_t n = pread(s->fd, buf, limit - from, from);

		if (n <= 0)
			return floor;
		for (ssize_t i = n - 1; i >= 0; i--)
			if (buf[i] == '\n')
				return from + i;
		limit = from;
	}
	return floor;
}

/*
 * After a failed write: cut the file back to a point where it can end and
 * write `tail` there, going further back (freeing more space) while the
 * file system still refuses.  The header chunk is always kept.
 */
static int sink_recover(struct output_sink *s, const char *tail, size_t n)
{
	int err = -ENOSPC;

	if (!s->regular)
		return write_all(s->fd, tail, n);
	if (s->gzip) {
		struct sink_mark empty = empty_mark();

		for (int i = s->nmarks - 1; i >= 0 && err; i--)
			err = gzip_close_at(s, &s->marks[i], tail, n);
		return err ? gzip_close_at(s, &empty, tail, n) : 0;
	}
	off_t floor = s->nmarks ? s->marks[0].end : 0;
	off_t end = s->partial_end > last_mark(s).end ? s->partial_end : last_mark(s).end;
	off_t room = SINK_TAIL_ROOM;

	for (;;) {
		err = rewrite_end(s, end, tail, n);
		if (!err || end <= floor)
			return err;
		end = event_end_before(s, end - room);
		room *= 4;
	}
}

int sink_close(struct output_sink *s, const char *tail, size_t n)
{
	int err = 0;

	if (!s->error) {
		sink_write(s, tail, n);
		err = s->error ? -s->error : sink_emit(s, s->gzip ? Z_FINISH : Z_NO_FLUSH);
		if (err)
			s->error = -err;
	}
	if (s->error) {
		err = -s->error;
		if (sink_recover(s, tail, n))
			s->tail_lost = true;
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
