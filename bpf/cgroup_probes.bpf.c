// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Daemon: cgroup v2 directories made and removed, so that jobs are noticed
 * the moment their cgroup appears (and finished when it goes).  These
 * records wake the reader at once.  Loaded only in daemon mode.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "dltrace_events.h"
#include "dltrace_maps.bpf.h"
#include "ring_output.bpf.h"

static __always_inline int cgroup_event(struct trace_event_raw_cgroup *ctx, __u16 op)
{
	__u32 zero = 0, off = ctx->__data_loc_path & 0xffff;
	struct dl_scratch *s;
	struct dl_cgroup *e;
	long n;

	if (ctx->root != 0) /* hierarchy 0 is cgroup v2 */
		return 0;
	s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s)
		return 0;
	e = (void *)s->buf;
	dl_fill_hdr(&e->h, bpf_ktime_get_ns(), DL_EV_CGROUP, 0);
	e->id = ctx->id;
	e->level = ctx->level;
	e->op = op;
	n = bpf_probe_read_kernel_str(e->path, DL_PATH_MAX, (void *)ctx + off);
	e->path_len = n > 0 ? n - 1 : 0;
	n = sizeof(*e) + (e->path_len & (DL_PATH_MAX - 1));
	if (bpf_ringbuf_output(&events, e, n & 0x3fff, BPF_RB_FORCE_WAKEUP))
		dl_count_lost(0, DL_EV_CGROUP, n);
	return 0;
}

SEC("tracepoint/cgroup/cgroup_mkdir")
int cgroup_mkdir(struct trace_event_raw_cgroup *ctx)
{
	return cgroup_event(ctx, DL_CGROUP_MKDIR);
}

SEC("tracepoint/cgroup/cgroup_rmdir")
int cgroup_rmdir(struct trace_event_raw_cgroup *ctx)
{
	return cgroup_event(ctx, DL_CGROUP_RMDIR);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
