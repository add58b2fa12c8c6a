// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * block layer: every block request while tracing, from issue to
 * completion, per device (block I/O is not attributed to one job: it is
 * often issued by kernel workers).  Requests are matched by their address.
 *
 * The issuer is the task that made the request from a bio, not the one
 * that dispatched it: with a scheduler or a busy queue the dispatch runs
 * from kblockd or an interrupt.  The submitter is remembered by the bio
 * that heads the request (block_getrq, or a front merge that replaces the
 * head), with its sector so a reused bio address is never taken for it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "dltrace_events.h"
#include "task_filter.bpf.h"
#include "ring_output.bpf.h"

#define MINORBITS   20
#define REQ_OP_MASK 0xff

struct block_issue {
	__u64 ts;
	__u32 tgid;
	__u32 tid;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct block_issue);
} block_inflight SEC(".maps");

struct block_submitter {
	__u64 sector;
	__u32 tgid;
	__u32 tid;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct block_submitter);
} block_submitters SEC(".maps");

static __always_inline int remember_submitter(struct bio *bio)
{
	__u64 key = (__u64)bio, id = bpf_get_current_pid_tgid();
	struct block_submitter v = {BPF_CORE_READ(bio, bi_iter.bi_sector), id >> 32, (__u32)id};

	if (jobs_live)
		bpf_map_update_elem(&block_submitters, &key, &v, BPF_ANY);
	return 0;
}

/* a new request whose first bio is this one, in the submitter's context */
SEC("tp_btf/block_getrq")
int BPF_PROG(block_getrq, struct bio *bio)
{
	return remember_submitter(bio);
}

/* this bio becomes the head of a queued request */
SEC("tp_btf/block_bio_frontmerge")
int BPF_PROG(block_frontmerge, struct bio *bio)
{
	return remember_submitter(bio);
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(block_issue, struct request *rq)
{
	__u64 key = (__u64)rq, id = bpf_get_current_pid_tgid();
	__u64 head = (__u64)BPF_CORE_READ(rq, bio);
	struct block_issue v = {bpf_ktime_get_ns(), id >> 32, (__u32)id};
	struct block_submitter *s;

	if (!jobs_live) /* record block I/O only while some job is traced */
		return 0;
	/* no submitter (a flush, a passthrough): the dispatcher is all there is */
	s = head ? bpf_map_lookup_elem(&block_submitters, &head) : NULL;
	if (s) {
		if (s->sector == BPF_CORE_READ(rq, __sector)) {
			v.tgid = s->tgid;
			v.tid = s->tid;
		}
		bpf_map_delete_elem(&block_submitters, &head);
	}
	bpf_map_update_elem(&block_inflight, &key, &v, BPF_ANY);
	return 0;
}

static __always_inline __u32 request_dev(struct request *rq)
{
	struct gendisk *disk = BPF_CORE_READ(rq, q, disk);
	struct block_device *part = BPF_CORE_READ(rq, part);

	if (part)
		return BPF_CORE_READ(part, bd_dev);
	if (disk)
		return (BPF_CORE_READ(disk, major) << MINORBITS) | BPF_CORE_READ(disk, first_minor);
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(block_complete, struct request *rq, blk_status_t error, unsigned int nr_bytes)
{
	__u64 key = (__u64)rq;
	struct block_issue *v = bpf_map_lookup_elem(&block_inflight, &key);
	struct dl_block *e;

	if (!v)
		return 0;
	e = dl_reserve(sizeof(*e), 0, DL_EV_BLOCK);
	if (e) {
		dl_fill_hdr(&e->h, v->ts, DL_EV_BLOCK, 0);
		e->h.tgid = v->tgid;
		e->h.tid = v->tid;
		e->dur = bpf_ktime_get_ns() - v->ts;
		e->sector = BPF_CORE_READ(rq, __sector);
		e->bytes = nr_bytes;
		e->dev = request_dev(rq);
		e->error = error;
		e->op = BPF_CORE_READ(rq, cmd_flags) & REQ_OP_MASK;
		dl_submit(e);
	}
	bpf_map_delete_elem(&block_inflight, &key);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
