/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Getting records to user space.  Records go through the shared ring
 * buffer without a wakeup; the reader drains on a short timer and is woken
 * early only when the backlog passes `wakeup_bytes`.  This avoids one
 * wakeup per event.  A record that does not fit is never lost silently: it
 * is counted per job in dl_stats.
 *
 * Data syscalls (read, write, lseek, fsync, ...) are not sent one by one:
 * each task gathers DL_BATCH of them in its storage and sends them in one
 * ring write (a ring operation costs more than filling a record).  A
 * task's batch goes out before any other record of that task (so opens,
 * closes, forks, execs and exits stay in order with its data records),
 * when it is full, when its first record is DL_BATCH_AGE_NS old at the
 * task's next syscall, and at the end of tracing (the dl_flush_batches
 * task iterator).
 */
#ifndef RING_OUTPUT_BPF_H
#define RING_OUTPUT_BPF_H

#include "dltrace_maps.bpf.h"

static __always_inline void dl_count(__u32 slot, __u32 stat, __u64 n)
{
	__u32 key = (slot & (DL_MAX_JOBS - 1)) * DL_STAT_COUNT + stat;
	__u64 *v = bpf_map_lookup_elem(&dl_stats, &key);

	if (v)
		*v += n;
}

/* A record of `kind` that did not fit: counted in total and by kind. */
static __always_inline void dl_count_lost(__u32 slot, __u32 kind, __u64 bytes)
{
	dl_count(slot, DL_STAT_LOST, 1);
	dl_count(slot, DL_STAT_LOST_BYTES, bytes);
	dl_count(slot, DL_STAT_LOST_KIND + dl_lost_index(kind), 1);
}

static __always_inline __u64 dl_wakeup_flag(void)
{
	return bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes ? BPF_RB_FORCE_WAKEUP
									     : BPF_RB_NO_WAKEUP;
}

static __always_inline void *dl_reserve(__u32 size, __u32 slot, __u32 kind)
{
	void *rec = bpf_ringbuf_reserve(&events, size, 0);

	if (!rec)
		dl_count_lost(slot, kind, size);
	return rec;
}

static __always_inline void dl_submit(void *rec)
{
	bpf_ringbuf_submit(rec, dl_wakeup_flag());
}

/*
 * Copy a record built in scratch space (it starts with its struct dl_hdr);
 * size must be bounded by the caller.  0 when it went out.
 */
static __always_inline int dl_output(void *rec, __u64 size, __u32 slot)
{
	if (bpf_ringbuf_output(&events, rec, size, dl_wakeup_flag())) {
		dl_count_lost(slot, ((struct dl_hdr *)rec)->kind, size);
		return -1;
	}
	return 0;
}

#define DL_BATCH_AGE_NS 50000000ull /* 50 ms */

/* Send the task's gathered data records, if any. */
static __always_inline void dl_flush(struct dl_task *t)
{
	__u32 n = t->nbatch;

	if (!n)
		return;
	if (n > DL_BATCH)
		n = DL_BATCH;
	if (bpf_ringbuf_output(&events, t->batch, n * sizeof(struct dl_io), dl_wakeup_flag())) {
		for (__u32 i = 0; i < DL_BATCH && i < n; i++)
			dl_count_lost(t->slot, t->batch[i].h.kind, sizeof(struct dl_io));
	}
	t->nbatch = 0;
	t->run_from = 0;
}

static __always_inline void dl_fill_hdr(struct dl_hdr *h, __u64 ts, __u16 kind, __u32 slot)
{
	__u64 id = bpf_get_current_pid_tgid();

	h->ts = ts;
	h->tgid = id >> 32;
	h->tid = (__u32)id;
	h->kind = kind;
	h->job = slot;
	h->flags = 0;
	h->fd = -1;
}

#endif /* RING_OUTPUT_BPF_H */
