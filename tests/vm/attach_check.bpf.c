// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Attach-method probe for the test VM: one program per method (fentry,
 * fexit, kprobe, kretprobe); user space picks the kernel function at load or
 * attach time and counts how often each program ran in its own process.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

const volatile __u32 target_tgid;
__u64 hits[4];

static __always_inline void count(int method)
{
	if ((bpf_get_current_pid_tgid() >> 32) == target_tgid)
		__sync_fetch_and_add(&hits[method], 1);
}

SEC("fentry")
int on_fentry(void *ctx __attribute__((unused)))
{
	count(0);
	return 0;
}

SEC("fexit")
int on_fexit(void *ctx __attribute__((unused)))
{
	count(1);
	return 0;
}

SEC("kprobe")
int on_kprobe(void *ctx __attribute__((unused)))
{
	count(2);
	return 0;
}

SEC("kretprobe")
int on_kretprobe(void *ctx __attribute__((unused)))
{
	count(3);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
