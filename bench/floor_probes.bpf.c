// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The floor: one empty program on every hook dltrace attaches, with the
 * same section (attach type) and name as dltrace's program there.  The
 * list is generated from dltrace's object (bench/probe_list.py).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#define FLOOR_PROBE(name, section)                                                                 \
	SEC(section)                                                                               \
	int name(void *ctx)                                                                        \
	{                                                                                          \
		(void)ctx;                                                                         \
		return 0;                                                                          \
	}

#include "floor_probe_list.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";
