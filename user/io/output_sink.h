/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Buffered trace output, plain or gzip, that stays a valid file when the
 * file system fills up.  Data is written in chunks that end on an event
 * boundary, and the sink remembers recent boundaries (for gzip: the
 * sync-flushed, byte-aligned ends of the deflate stream with their CRC).
 * When a write fails, the file is cut back to such a point (further back
 * while the file system still refuses) and the closing bytes are written
 * there; for gzip a final stored block and the gzip trailer close the
 * stream by hand.  The header chunk is never cut.  Events are lines (the
 * JSON: each event after the first starts with "\n,") or, after
 * sink_frame_packets(), protobuf packets (a .pftrace: key 0x0a, a varint
 * length, the packet).
 */
#ifndef OUTPUT_SINK_H
#define OUTPUT_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <zlib.h>

#define SINK_MARKS 16

struct output_sink {
	int fd;
	bool gzip;
	bool regular; /* a regular file: can be cut back and preallocated */
	bool packets; /* events are length-delimited packets, not lines */
	char *buf;    /* pending uncompressed bytes */
	size_t len, cap;
	z_stream z;
	char *zbuf;
	size_t zcap;
	struct sink_mark {
		off_t end;	/* file size at this boundary */
		uint32_t crc;	/* gzip: CRC-32 of the input up to here */
		uint64_t total; /* gzip: input bytes up to here */
	} marks[SINK_MARKS];	/* [0]: the first chunk (the header); then the latest */
	unsigned nmarks;
	off_t partial_end; /* plain: end of the whole events of a failed write */
	bool tail_lost;	   /* not even the closing bytes could be written */
	int error;	   /* errno of the first failed write, 0 if none */
	uint64_t bytes_in; /* uncompressed bytes accepted */
	/* optional: also given each chunk of uncompressed text as it is written */
	void (*copy)(void *ctx, const void *text, size_t len);
	void *copy_ctx;
};

/* Take ownership of fd. level: zlib level when gzip. */
int sink_init(struct output_sink *s, int fd, bool gzip, int level);
/* Events are Trace.packet fields (a .pftrace), so cut between those. */
void sink_frame_packets(struct output_sink *s);

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
