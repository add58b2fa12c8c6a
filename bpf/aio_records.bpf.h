/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Native AIO (io_submit and io_getevents): each iocb as a request, from its
 * submission to the event that reports its completion.  The kernel has no
 * AIO tracepoint, and kprobes are not always there, so both ends are read
 * from the calls' user memory:
 *
 *   io_submit(ctx, nr, iocbpp)   at entry, before the kernel takes them:
 *                                one DL_AIO_SUBMIT record per iocb (op, fd,
 *                                offset, bytes, aio_data, its address);
 *                                the call's own record says later how many
 *                                the kernel took (its return value)
 *   io_getevents(ctx, min_nr, nr, events, ...), io_pgetevents
 *                                at exit: one record per io_event returned
 *                                (the iocb's address, res, res2)
 *
 * So a completion's time is when the application reaped it, not when the
 * kernel finished the I/O: the same for an application that waits in
 * io_getevents, later by whatever it did before asking otherwise.  Events
 * reaped from the ring in user space (without io_getevents) are not seen.
 */
#ifndef AIO_RECORDS_BPF_H
#define AIO_RECORDS_BPF_H

#include "dltrace_maps.bpf.h"
#include "ring_output.bpf.h"
#include "iovec.bpf.h"

#define IOCB_CMD_PREADV	 7
#define IOCB_CMD_PWRITEV 8

/* struct iocb (UAPI linux/aio_abi.h, 64 bytes; little endian) */
struct dl_iocb {
	__u64 aio_data;
	__u32 aio_key;
	__u32 aio_rw_flags;
	__u16 aio_lio_opcode;
	__s16 aio_reqprio;
	__u32 aio_fildes;
	__u64 aio_buf;
	__u64 aio_nbytes;
	__s64 aio_offset;
	__u64 aio_reserved2;
	__u32 aio_flags;
	__u32 aio_resfd;
};

/* struct io_event (UAPI) */
struct dl_io_event {
	__u64 data;
	__u64 obj;
	__s64 res;
	__s64 res2;
};

struct dl_aio_walk {
	__u64 ts;
	__u64 ctx;
	__u64 array; /* io_submit: struct iocb **; io_getevents: struct io_event * */
	__u32 slot;
	__u32 tgid;
	__u32 tid;
};

static __always_inline struct dl_aio *dl_aio_record(struct dl_aio_walk *w)
{
	struct dl_aio *e = dl_reserve(sizeof(*e), w->slot, DL_EV_AIO);

	if (!e)
		return NULL;
	e->h.ts = w->ts;
	e->h.tgid = w->tgid;
	e->h.tid = w->tid;
	e->h.kind = DL_EV_AIO;
	e->h.job = w->slot;
	e->h.flags = 0;
	e->h.fd = -1;
	e->ctx = w->ctx;
	return e;
}

static long dl_aio_submit_one(__u32 i, void *arg)
{
	struct dl_aio_walk *w = arg;
	struct dl_iocb cb = {};
	struct dl_aio *e;
	__u64 p = 0;
	__u8 trunc = 0;

	if (bpf_probe_read_user(&p, sizeof(p), (void *)(w->array + (__u64)i * 8)) || !p ||
	    bpf_probe_read_user(&cb, sizeof(cb), (void *)p))
		return 1; /* the kernel refuses it too (EFAULT): nothing after it is taken */
	e = dl_aio_record(w);
	if (!e)
		return 0;
	e->h.fd = cb.aio_fildes;
	e->iocb = p;
	e->data = cb.aio_data;
	e->offset = cb.aio_offset;
	e->nbytes = cb.aio_nbytes;
	if (cb.aio_lio_opcode == IOCB_CMD_PREADV || cb.aio_lio_opcode == IOCB_CMD_PWRITEV)
		e->nbytes = dl_iov_bytes((void *)cb.aio_buf, cb.aio_nbytes, &trunc);
	e->res = 0;
	e->res2 = 0;
	e->index = i;
	e->opcode = cb.aio_lio_opcode;
	e->flags = DL_AIO_SUBMIT | (trunc ? DL_AIO_IOV_TRUNC : 0);
	dl_submit(e);
	return 0;
}

static long dl_aio_reap_one(__u32 i, void *arg)
{
	struct dl_aio_walk *w = arg;
	struct dl_io_event ev = {};
	struct dl_aio *e;

	if (bpf_probe_read_user(&ev, sizeof(ev), (void *)(w->array + (__u64)i * sizeof(ev))))
		return 1;
	e = dl_aio_record(w);
	if (!e)
		return 0;
	e->iocb = ev.obj;
	e->data = ev.data;
	e->offset = 0;
	e->nbytes = 0;
	e->res = ev.res;
	e->res2 = ev.res2;
	e->index = i;
	e->opcode = 0;
	e->flags = 0;
	dl_submit(e);
	return 0;
}

/* io_submit's entry: its iocbs, after the task's earlier records. */
static __always_inline void dl_aio_submitted(struct dl_task *t, __u64 ts)
{
	struct dl_aio_walk w = {ts, t->a[0], t->a[2], t->slot, t->tgid, t->tid};
	__u64 n = t->a[1];

	if ((long)n <= 0)
		return;
	dl_flush(t);
	bpf_loop(n < DL_AIO_MAX ? n : DL_AIO_MAX, dl_aio_submit_one, &w, 0);
}

/* io_getevents's or io_pgetevents's exit: the n events it returned. */
static __always_inline void dl_aio_reaped(struct dl_task *t, long n, __u64 ts)
{
	struct dl_aio_walk w = {ts, t->a[0], t->a[3], t->slot, t->tgid, t->tid};

	if (n <= 0)
		return;
	dl_flush(t);
	bpf_loop(n < DL_AIO_MAX ? n : DL_AIO_MAX, dl_aio_reap_one, &w, 0);
}

#endif /* AIO_RECORDS_BPF_H */
