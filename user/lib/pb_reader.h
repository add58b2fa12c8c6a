/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A small protobuf decoder over a caller's bytes: the fields of one
 * message, one at a time, in the order they were written.  Nothing is
 * allocated or copied: a length-delimited field (a string, bytes, a nested
 * message, a packed repeated field) is a pointer into the buffer.  Wire
 * format as in lib/pb_writer.h; bytes that do not decode (a varint longer
 * than 10 bytes, a length past the end, a wire type that is not 0, 1, 2
 * or 5) end the walk with `bad` set.
 */
#ifndef PB_READER_H
#define PB_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pb_reader {
	const uint8_t *p, *end;
	bool bad;
};

struct pb_field {
	uint32_t number;
	uint8_t wire_type;   /* 0 varint, 1 fixed 64, 2 length-delimited, 5 fixed 32 */
	uint64_t v;	     /* wire types 0, 1, 5 */
	const uint8_t *data; /* wire type 2 (other types: "", 0) */
	size_t len;
};

/* A varint at *p (not past end) into *v; false when it does not decode. */
static inline bool pb__varint_get(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t x = 0;

	for (unsigned shift = 0; shift < 70 && *p < end; shift += 7) {
		uint8_t b = *(*p)++;

		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return true;
		}
	}
	return false;
}

static inline void pb_reader__init(struct pb_reader *r, const void *data, size_t len)
{
	r->p = data;
	r->end = r->p + len;
	r->bad = false;
}

/* The next field into f; false at the end of the message or on bad bytes (r->bad). */
bool pb_reader__next(struct pb_reader *r, struct pb_field *f);

/* A double field's value (wire type 1). */
double pb__double(const struct pb_field *f);

#endif
