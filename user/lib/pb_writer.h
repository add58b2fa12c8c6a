/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A small protobuf encoder into a caller's buffer: varints, zigzag, fixed
 * 32/64-bit and double fields, bytes, and nested messages.  Nothing is
 * allocated.  A nested message reserves one byte for its length; when the
 * finished message needs more, its body is moved forward (rare: only
 * messages of 128 bytes and more).  Writing past the buffer's end sets
 * `overflow` and writes nothing more, so a caller checks once at the end.
 *
 * Wire format: a field is a key (field number << 3 | wire type) as a
 * varint, then the value: a varint (type 0), 8 bytes little-endian (type
 * 1), a varint length and the bytes (type 2), or 4 bytes (type 5).
 */
#ifndef PB_WRITER_H
#define PB_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PB_VARINT_MAX 10
#define PB_DEPTH_MAX  16

enum pb_wire_type {
	PB_WT_VARINT = 0,
	PB_WT_I64 = 1,
	PB_WT_LEN = 2,
	PB_WT_I32 = 5,
};

struct pb_writer {
	uint8_t *buf;
	size_t len, cap;
	size_t open[PB_DEPTH_MAX]; /* offset of each open message's length byte */
	unsigned depth;
	bool overflow; /* a write did not fit (or messages nested too deep) */
};

/* Encode v at p (room for PB_VARINT_MAX bytes); returns the bytes written. */
static inline size_t pb__varint_put(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)v | 0x80;
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

static inline size_t pb__varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* sint64's mapping: 0, -1, 1, -2, ... to 0, 1, 2, 3, ... */
static inline uint64_t pb__zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline uint64_t pb__key(uint32_t field, enum pb_wire_type wt)
{
	return (uint64_t)field << 3 | wt;
}

void pb_writer__init(struct pb_writer *w, void *buf, size_t cap);
/* Empty again (same buffer). */
void pb_writer__reset(struct pb_writer *w);

/* uint32/uint64/enum/bool fields, and int32/int64 (negative: 10 bytes). */
static inline void pb_writer__varint(struct pb_writer *w, uint32_t field, uint64_t v)
{
	extern void pb_writer__overflow(struct pb_writer * w);

	if (w->overflow || w->cap - w->len < 2 * PB_VARINT_MAX) {
		pb_writer__overflow(w);
		return;
	}
	w->len += pb__varint_put(w->buf + w->len, pb__key(field, PB_WT_VARINT));
	w->len += pb__varint_put(w->buf + w->len, v);
}
/* sint32/sint64 fields: zigzag, so small negative values stay short. */
void pb_writer__sint(struct pb_writer *w, uint32_t field, int64_t v);
void pb_writer__fixed64(struct pb_writer *w, uint32_t field, uint64_t v);
void pb_writer__fixed32(struct pb_writer *w, uint32_t field, uint32_t v);
void pb_writer__double(struct pb_writer *w, uint32_t field, double v);
/* string/bytes fields (any bytes), and an already encoded message. */
void pb_writer__bytes(struct pb_writer *w, uint32_t field, const void *data, size_t len);

/* Open a nested message field; pb_writer__end() closes the innermost. */
void pb_writer__begin(struct pb_writer *w, uint32_t field);
void pb_writer__end(struct pb_writer *w);

/* Bytes written (all messages closed). */
static inline size_t pb_writer__size(const struct pb_writer *w)
{
	return w->len;
}

#endif
