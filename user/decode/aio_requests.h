/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Native AIO requests between their io_submit and the io_event reaped for
 * them.  An iocb is recorded at io_submit's entry, before the kernel says
 * how many of the array it took; the call's own record (its return value)
 * confirms the first ret of them and drops the others.  A confirmed request
 * waits here until io_getevents returns its event (matched by process,
 * context and the iocb's address), its context is destroyed, its process
 * exits or the trace ends.
 */
#ifndef AIO_REQUESTS_H
#define AIO_REQUESTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct path_ref;

struct aio_req {
	uint32_t tgid, tid;
	uint64_t ctx, iocb, data;
	uint64_t ts; /* io_submit's entry (CLOCK_MONOTONIC) */
	uint64_t offset, nbytes;
	uint64_t seq; /* 0 until confirmed */
	uint32_t index;
	int32_t fd;
	uint16_t opcode, flags;
	struct path_ref *path; /* the descriptor's file at submission (a reference) */
};

struct aio_requests {
	struct aio_req *v;
	size_t n, cap;
};

void aio_requests_free(struct aio_requests *a);
/* Add an iocb of an io_submit in progress; NULL when out of memory. */
struct aio_req *aio_requests_add(struct aio_requests *a);
/* The request of (tgid, ctx, iocb), confirmed or not (seq 0), or NULL. */
struct aio_req *aio_requests_find(struct aio_requests *a, uint32_t tgid, uint64_t ctx,
				  uint64_t iocb);
/* Forget request r (drops its path). */
void aio_requests_remove(struct aio_requests *a, struct aio_req *r);

#endif
