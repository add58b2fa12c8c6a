// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The floor: an empty program for every program of dltrace, with the same
 * section (attach type) and name; the list is generated from dltrace's
 * object (bench/probe_list.py).  floor_loader attaches the ones dltrace
 * attaches.
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
