// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * uring layer: io_uring requests submitted by traced tasks, from
 * submission to completion.  Completions often run in io-wq workers or
 * interrupt context, so requests are matched by their address, and the
 * submitter saved at submission.
 *
 * The request's file is read at completion (req->file: the kernel assigns
 * it when it issues the request, after the submission tracepoint), so a
 * registered file (IOSQE_FIXED_FILE: the sqe's fd is an index in the
 * ring's table, not a descriptor) is named as well as a descriptor: by its
 * inode, with its path sent once (file_identity.bpf.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "dltrace_events.h"
#include "task_filter.bpf.h"
#include "ring_output.bpf.h"
#include "file_identity.bpf.h"

/* REQ_F_FIXED_FILE is bit 0 of req->flags: IOSQE_FIXED_FILE_BIT (UAPI) on every kernel */
#define DL_REQ_F_FIXED_FILE 0x01

struct uring_submit {
	__u64 ts;
	__u64 user_data;
	__u64 offset;
	__u32 tgid;
	__u32 tid;
	__s32 fd;
	__u32 len;
	__u8 opcode;
	__u8 slot;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct uring_submit);
} uring_inflight SEC(".maps");

/* Remember a request a traced task submits. */
static __always_inline void uring_submitted(struct io_kiocb *req, __u64 user_data, __u8 opcode)
{
	struct dl_task *t = dl_traced_task();
	/* read/write requests keep their arguments in the command area */
	struct io_rw *rw = (void *)req;
	__u64 key = (__u64)req, id = bpf_get_current_pid_tgid();
	struct uring_submit v = {};

	if (!t)
		return;
	v.ts = bpf_ktime_get_ns();
	v.user_data = user_data;
	v.opcode = opcode;
	v.tgid = id >> 32;
	v.tid = (__u32)id;
	v.slot = t->slot;
	v.fd = BPF_CORE_READ(req, cqe.fd);
	v.offset = BPF_CORE_READ(rw, kiocb.ki_pos);
	v.len = BPF_CORE_READ(rw, len);
	bpf_map_update_elem(&uring_inflight, &key, &v, BPF_ANY);
}

/* 6.0 and later */
SEC("tracepoint/io_uring/io_uring_submit_req")
int uring_submit(struct trace_event_raw_io_uring_submit_req *ctx)
{
	uring_submitted(ctx->req, ctx->user_data, ctx->opcode);
	return 0;
}

/*
 * Before 6.0 the tracepoint is io_uring_submit_sqe; its ctx, req,
 * user_data and opcode fields are all this program reads.  (Declared here:
 * the bundled vmlinux.h is from a newer kernel; CO-RE finds the fields.)
 */
struct trace_event_raw_io_uring_submit_sqe {
	struct trace_entry ent;
	void *ctx;
	void *req;
	unsigned long long user_data;
	u8 opcode;
} __attribute__((preserve_access_index));

SEC("tracepoint/io_uring/io_uring_submit_sqe")
int uring_submit_sqe(struct trace_event_raw_io_uring_submit_sqe *ctx)
{
	uring_submitted(ctx->req, ctx->user_data, ctx->opcode);
	return 0;
}

SEC("tracepoint/io_uring/io_uring_complete")
int uring_complete(struct trace_event_raw_io_uring_complete *ctx)
{
	__u64 key = (__u64)ctx->req;
	struct uring_submit *v = bpf_map_lookup_elem(&uring_inflight, &key);
	struct io_kiocb *req = ctx->req;
	struct file *file;
	struct dl_uring *e;
	__u8 flags = 0, req_flags = 0;
	__u64 ino = 0;
	__u32 dev = 0;

	if (!v)
		return 0;
	/* the low byte of req->flags (a u32 on 6.1, a u64 later; little endian) */
	bpf_probe_read_kernel(&req_flags, 1, (char *)req + bpf_core_field_offset(req->flags));
	if (req_flags & DL_REQ_F_FIXED_FILE)
		flags |= DL_URING_FIXED;
	file = BPF_CORE_READ(req, file);
	if (file) {
		dl_file_id(file, &ino, &dev);
		dl_name_file(file, ino, dev, v->slot);
		flags |= DL_URING_FILE;
	}
	e = dl_reserve(sizeof(*e), v->slot, DL_EV_URING);
	if (e) {
		dl_fill_hdr(&e->h, v->ts, DL_EV_URING, v->slot);
		e->h.tgid = v->tgid;
		e->h.tid = v->tid;
		e->h.fd = v->fd;
		e->dur = bpf_ktime_get_ns() - v->ts;
		e->user_data = v->user_data;
		e->res = ctx->res;
		e->offset = v->offset;
		e->len = v->len;
		e->opcode = v->opcode;
		e->flags = flags;
		e->pad[0] = e->pad[1] = 0;
		e->ino = ino;
		e->dev = dev;
		e->pad2 = 0;
		dl_submit(e);
	}
	bpf_map_delete_elem(&uring_inflight, &key);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
