// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * cache layer: pages a traced task adds to the page cache while one of its
 * syscalls runs are pages that had to come from storage (the read itself or
 * the readahead it triggered).  The count is reported with the read
 * (dl_io.arg, DL_F_CACHE); a read that adds nothing was served from cache.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "dltrace_events.h"
#include "task_filter.bpf.h"

SEC("tracepoint/filemap/mm_filemap_add_to_page_cache")
int cache_add(struct trace_event_raw_mm_filemap_op_page_cache *ctx)
{
	struct dl_task *t = dl_traced_task();
	__u32 order = 0;

	if (!t || !t->sys)
		return 0;
	/* folios: 2^order pages (older kernels add single pages) */
	if (bpf_core_field_exists(ctx->order))
		order = ctx->order & 31;
	t->cache_pages += 1U << order;
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
