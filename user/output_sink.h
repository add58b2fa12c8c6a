/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Buffered trace output, plain or gzip, that stays a valid file when the
 * file system fills up: data is written in chunks that end on an event
 * boundary; after each chunk a little space is preallocated past the end;
 * when a write fails, the file is cut back to the last whole chunk and the
 * closing bytes (and, for gzip, a final stored block and the gzip trailer)
 * are written there.
 */
#ifndef OUTPUT_SINK_H
#define OUTPUT_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <zlib.h>

struct output_sink {
	int fd;
	bool gzip;
	bool regular; /* a regular file: can be cut back and preallocated */
	char *buf;    /* pending uncompressed bytes */
	size_t len, cap;
	z_stream z;
	char *zbuf;
	size_t zcap;
	off_t committed;     /* file size after the last good chunk */
	uint32_t good_crc;   /* gzip: CRC-32 of the input up to `committed` */
	uint64_t good_total; /* gzip: input bytes up to `committed` */
	int error;	     /* errno of the first failed write, 0 if none */
	uint64_t bytes_in;   /* uncompressed bytes accepted */
};

/* Take ownership of fd. level: zlib level when gzip. */
int sink_init(struct output_sink *s, int fd, bool gzip, int level);

/* Room for n more bytes (flushes a full buffer first). Never NULL. */
static inline char *sink_space(struct output_sink *s, size_t n)
{
	extern char *sink_grow(struct output_sink * s, size_t n);

	if (s->cap - s->len >= n)
		return s->buf + s->len;
	return sink_grow(s, n);
}

static inline void sink_advance(struct output_sink *s, size_t n)
{
	s->len += n;
	s->bytes_in += n;
}

void sink_write(struct output_sink *s, const void *data, size_t n);

/* Write out the buffered bytes as one chunk.  0, or -errno (sticky). */
int sink_flush(struct output_sink *s);

/*
 * Append `tail` and close the file.  After a failed write the file is cut
 * back to the last good chunk and `tail` is written there instead.
 * Returns 0, or the first -errno met.
 */
int sink_close(struct output_sink *s, const char *tail, size_t n);

#endif
