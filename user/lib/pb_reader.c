// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "lib/pb_reader.h"

#include <string.h>

bool pb_reader__next(struct pb_reader *r, struct pb_field *f)
{
	uint64_t key, len;

	if (r->bad || r->p >= r->end)
		return false;
	if (!pb__varint_get(&r->p, r->end, &key) || (key >> 3) == 0 || (key >> 3) > UINT32_MAX)
		goto bad;
	f->number = key >> 3;
	f->wire_type = key & 7;
	/* a field read as a string or message that is not one is an empty one */
	f->data = (const uint8_t *)"";
	f->len = 0;
	switch (f->wire_type) {
	case 0:
		if (!pb__varint_get(&r->p, r->end, &f->v))
			goto bad;
		return true;
	case 1:
	case 5: {
		size_t n = f->wire_type == 1 ? 8 : 4;

		if ((size_t)(r->end - r->p) < n)
			goto bad;
		f->v = 0;
		for (size_t i = 0; i < n; i++)
			f->v |= (uint64_t)r->p[i] << (8 * i);
		r->p += n;
		return true;
	}
	case 2:
		if (!pb__varint_get(&r->p, r->end, &len) || len > (uint64_t)(r->end - r->p))
			goto bad;
		f->data = r->p;
		f->len = len;
		r->p += len;
		return true;
	default:
		break;
	}
bad:
	r->bad = true;
	return false;
}

double pb__double(const struct pb_field *f)
{
	double d;

	memcpy(&d, &f->v, sizeof(d));
	return d;
}
