/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the machine must offer before any probe is loaded: privileges,
 * kernel BTF, a mounted tracefs.  Each check fails with one actionable
 * line in err.
 */
#ifndef SYSTEM_CHECKS_H
#define SYSTEM_CHECKS_H

#include <stddef.h>

int check_privileges(char *err, size_t errlen);
int check_btf(char *err, size_t errlen);
/* Mount tracefs at /sys/kernel/tracing when no tracefs is mounted. */
int ensure_tracefs(char *err, size_t errlen);
/* The tracefs directory in use ("/sys/kernel/tracing" or the debugfs one). */
const char *tracefs_dir(void);
/* Lift RLIMIT_MEMLOCK (kernels before 5.11 charge BPF memory to it). */
void raise_memlock_limit(void);
/* True when syscalls:<name> exists in tracefs (e.g. "sys_enter_openat2"). */
int tracepoint_exists(const char *category, const char *name);

#endif
