// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Asynchronous I/O records: io_uring requests, and native AIO requests from
 * io_submit to the event reaped (their bookkeeping: aio_requests.c).
 */
#include "decode/decode_emit.h"
#include "decode/record_decoder_internal.h"
#include "lib/path_table.h"

/*
 * An io_uring request: its submission and its completion.  Its file is the
 * one the request used (its inode, named by a DL_EV_FILE record), else the
 * descriptor's at submission; a registered file's index is no descriptor,
 * so without its inode's name the path is unknown, and said so.
 */
void decoder__handle_uring(struct record_decoder *d, const struct dl_uring *u)
{
	struct process *p = decoder__proc_for(d, &u->h);
	struct event e = {
	    .type = EV_URING, .ts = rel(d, u->h.ts), .pid = u->h.tgid, .tid = u->h.tid};
	const struct path_ref *path = NULL;
	bool fixed = u->flags & DL_URING_FIXED;

	e.uring.phase = EV_PH_BEGIN;
	e.uring.opcode = u->opcode;
	e.uring.seq = ++d->uring_requests;
	e.uring.fd = u->h.fd;
	e.uring.fixed = fixed;
	e.uring.len = u->len;
	e.uring.offset = u->offset;
	e.uring.user_data = u->user_data;
	if (u->flags & DL_URING_FILE) {
		path = inode_paths_get(&d->inodes, u->dev, u->ino, 0);
		e.uring.has_file = true;
		e.uring.ino = u->ino;
		e.uring.dev = u->dev;
	}
	if (!path && !fixed && u->h.fd >= 0)
		path = fd_path(p, u->h.fd, u->h.ts);
	/* a request on a file whose name is not known (a request without a file has none) */
	e.uring.path_unknown = !path && (fixed || (u->flags & DL_URING_FILE));
	e.uring.path = ev_path(path);
	emit(d, &e);
	e.ts = rel(d, u->h.ts + u->dur);
	e.uring.phase = EV_PH_END;
	e.uring.res = u->res;
	emit(d, &e);
}

/* An AIO request's begin: the iocb as submitted. */
static void aio_begin(struct record_decoder *d, const struct aio_req *r)
{
	struct event e = {.type = EV_AIO, .ts = rel(d, r->ts), .pid = r->tgid, .tid = r->tid};

	e.aio.phase = EV_PH_BEGIN;
	e.aio.opcode = r->opcode;
	e.aio.seq = r->seq;
	e.aio.fd = r->fd;
	e.aio.size_partial = r->flags & DL_AIO_IOV_TRUNC;
	e.aio.offset = r->offset;
	e.aio.len = r->nbytes;
	e.aio.data = r->data;
	e.aio.iocb = r->iocb;
	e.aio.ctx = r->ctx;
	e.aio.path = ev_path(r->path);
	emit(d, &e);
}

/* Its end: the event reaped (ev), or none (the request ends unreaped at ts). */
void decoder__aio_end(struct record_decoder *d, const struct aio_req *r, const struct dl_aio *ev,
		      uint64_t ts)
{
	struct event e = {.type = EV_AIO, .ts = rel(d, ts), .pid = r->tgid, .tid = r->tid};

	if (ev) {
		e.pid = ev->h.tgid;
		e.tid = ev->h.tid;
		e.aio.reaped = true;
		e.aio.res = ev->res;
		e.aio.res2 = ev->res2;
	}
	e.aio.phase = EV_PH_END;
	e.aio.opcode = r->opcode;
	e.aio.seq = r->seq;
	emit(d, &e);
}

/*
 * A native AIO record: an iocb at io_submit's entry (held until the call's
 * return says whether the kernel took it), or an event io_getevents
 * returned, which ends its request.  An event of a request submitted
 * before tracing begins and ends where it was reaped.
 */
void decoder__handle_aio(struct record_decoder *d, const struct dl_aio *a)
{
	struct process *p = decoder__proc_for(d, &a->h);
	struct aio_req *r;

	if (a->flags & DL_AIO_SUBMIT) {
		r = aio_requests_add(&d->aio);
		if (!r)
			return;
		r->tgid = a->h.tgid;
		r->tid = a->h.tid;
		r->ctx = a->ctx;
		r->iocb = a->iocb;
		r->data = a->data;
		r->ts = a->h.ts;
		r->offset = a->offset;
		r->nbytes = a->nbytes;
		r->index = a->index;
		r->fd = a->h.fd;
		r->opcode = a->opcode;
		r->flags = a->flags;
		r->path = path_get((struct path_ref *)fd_path(p, a->h.fd, a->h.ts));
		return;
	}
	r = aio_requests_find(&d->aio, a->h.tgid, a->ctx, a->iocb);
	if (r && !r->seq) {
		/*
		 * Reaped (by another thread) before its io_submit's own record came
		 * (a thread's records may wait in its batch): the kernel took it.
		 */
		r->seq = ++d->uring_requests;
		aio_begin(d, r);
	}
	if (r) {
		decoder__aio_end(d, r, a, a->h.ts);
		aio_requests_remove(&d->aio, r);
		return;
	}
	{
		struct aio_req u = {.tgid = a->h.tgid,
				    .tid = a->h.tid,
				    .ctx = a->ctx,
				    .iocb = a->iocb,
				    .data = a->data,
				    .ts = a->h.ts,
				    .seq = ++d->uring_requests,
				    .fd = -1,
				    .opcode = AIO_OP_UNKNOWN};
		struct event e = {
		    .type = EV_AIO, .ts = rel(d, a->h.ts), .pid = a->h.tgid, .tid = a->h.tid};

		e.aio.phase = EV_PH_BEGIN;
		e.aio.opcode = AIO_OP_UNKNOWN;
		e.aio.seq = u.seq;
		e.aio.fd = -1;
		e.aio.submission_unknown = true;
		e.aio.data = a->data;
		e.aio.iocb = a->iocb;
		e.aio.ctx = a->ctx;
		emit(d, &e);
		decoder__aio_end(d, &u, a, a->h.ts);
	}
}

/*
 * io_submit returned: its first ret iocbs are requests from its entry on,
 * the others were not taken.  io_destroy ends its context's requests,
 * unreaped; so does the process's exit (ctx 0: all of the process's).
 */
void decoder__aio_submitted(struct record_decoder *d, const struct dl_io *io)
{
	for (size_t i = 0; i < d->aio.n;) {
		struct aio_req *r = &d->aio.v[i];

		if (r->seq || r->tid != io->h.tid) {
			i++;
			continue;
		}
		if (io->ret > 0 && r->index < (uint64_t)io->ret && r->ctx == io->arg) {
			r->seq = ++d->uring_requests;
			aio_begin(d, r);
			i++;
		} else {
			aio_requests_remove(&d->aio, r);
		}
	}
}

void decoder__aio_forget(struct record_decoder *d, uint32_t tgid, uint64_t ctx, uint64_t ts)
{
	for (size_t i = 0; i < d->aio.n;) {
		struct aio_req *r = &d->aio.v[i];

		if (r->tgid != tgid || (ctx && r->ctx != ctx)) {
			i++;
			continue;
		}
		if (r->seq)
			decoder__aio_end(d, r, NULL, ts);
		aio_requests_remove(&d->aio, r);
	}
}
