// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "lib/pb_writer.h"

#include <string.h>

void pb_writer__init(struct pb_writer *w, void *buf, size_t cap)
{
	w->buf = buf;
	w->cap = cap;
	pb_writer__reset(w);
}

void pb_writer__reset(struct pb_writer *w)
{
	w->len = 0;
	w->depth = 0;
	w->overflow = false;
}

/* Room for n more bytes; sets overflow when there is none. */
static inline bool room(struct pb_writer *w, size_t n)
{
	if (w->overflow)
		return false;
	if (w->cap - w->len < n) {
		w->overflow = true;
		return false;
	}
	return true;
}

static inline void put_key(struct pb_writer *w, uint32_t field, enum pb_wire_type wt)
{
	w->len += pb__varint_put(w->buf + w->len, pb__key(field, wt));
}

void pb_writer__overflow(struct pb_writer *w)
{
	w->overflow = true;
}

void pb_writer__sint(struct pb_writer *w, uint32_t field, int64_t v)
{
	pb_writer__varint(w, field, pb__zigzag(v));
}

void pb_writer__fixed64(struct pb_writer *w, uint32_t field, uint64_t v)
{
	if (!room(w, PB_VARINT_MAX + 8))
		return;
	put_key(w, field, PB_WT_I64);
	for (int i = 0; i < 8; i++)
		w->buf[w->len++] = (uint8_t)(v >> (8 * i));
}

void pb_writer__fixed32(struct pb_writer *w, uint32_t field, uint32_t v)
{
	if (!room(w, PB_VARINT_MAX + 4))
		return;
	put_key(w, field, PB_WT_I32);
	for (int i = 0; i < 4; i++)
		w->buf[w->len++] = (uint8_t)(v >> (8 * i));
}

void pb_writer__double(struct pb_writer *w, uint32_t field, double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	pb_writer__fixed64(w, field, bits);
}

void pb_writer__bytes(struct pb_writer *w, uint32_t field, const void *data, size_t len)
{
	if (!room(w, 2 * PB_VARINT_MAX + len))
		return;
	put_key(w, field, PB_WT_LEN);
	w->len += pb__varint_put(w->buf + w->len, len);
	if (len)
		memcpy(w->buf + w->len, data, len);
	w->len += len;
}

void pb_writer__begin(struct pb_writer *w, uint32_t field)
{
	if (!room(w, PB_VARINT_MAX + 1))
		return;
	if (w->depth == PB_DEPTH_MAX) {
		w->overflow = true;
		return;
	}
	put_key(w, field, PB_WT_LEN);
	w->open[w->depth++] = w->len;
	w->buf[w->len++] = 0; /* the length, when it fits in one byte */
}

void pb_writer__end(struct pb_writer *w)
{
	size_t at, body, n;

	if (w->overflow || !w->depth)
		return;
	at = w->open[--w->depth];
	body = w->len - at - 1;
	n = pb__varint_len(body);
	if (n > 1) {
		if (!room(w, n - 1))
			return;
		memmove(w->buf + at + n, w->buf + at + 1, body);
		w->len += n - 1;
	}
	pb__varint_put(w->buf + at, body);
}
