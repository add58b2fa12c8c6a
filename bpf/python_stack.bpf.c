// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The Python stack walk (python_stack.bpf.h): a file of its own, without
 * programs: the exit programs of syscall_probes.bpf.c and the shared exit
 * of meta_syscall_probes.bpf.c call its global functions.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "dltrace_events.h"
#include "task_filter.bpf.h"
#include "python_stack.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";
