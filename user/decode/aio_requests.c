// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "decode/aio_requests.h"

#include <stdlib.h>
#include <string.h>

#include "lib/path_table.h"

void aio_requests_free(struct aio_requests *a)
{
	for (size_t i = 0; i < a->n; i++)
		path_put(a->v[i].path);
	free(a->v);
	memset(a, 0, sizeof(*a));
}

struct aio_req *aio_requests_add(struct aio_requests *a)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 64;
		struct aio_req *v = realloc(a->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		a->v = v;
		a->cap = cap;
	}
	memset(&a->v[a->n], 0, sizeof(a->v[0]));
	return &a->v[a->n++];
}

/* In flight: a few per context (the queue depth); the newest are searched first. */
struct aio_req *aio_requests_find(struct aio_requests *a, uint32_t tgid, uint64_t ctx,
				  uint64_t iocb)
{
	for (size_t i = a->n; i-- > 0;) {
		struct aio_req *r = &a->v[i];

		if (r->iocb == iocb && r->ctx == ctx && r->tgid == tgid)
			return r;
	}
	return NULL;
}

void aio_requests_remove(struct aio_requests *a, struct aio_req *r)
{
	path_put(r->path);
	*r = a->v[--a->n];
}
