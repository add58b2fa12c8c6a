// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "probe/system_checks.h"

#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif
#define TRACEFS_MAGIC 0x74726163

static const char *tracefs = "/sys/kernel/tracing";

static int has_cap(int cap)
{
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct data[2] = {0};

	if (syscall(SYS_capget, &hdr, data))
		return 0;
	return (data[cap / 32].effective >> (cap % 32)) & 1;
}

int check_privileges(char *err, size_t errlen)
{
	if (geteuid() == 0 || has_cap(CAP_SYS_ADMIN) || (has_cap(CAP_BPF) && has_cap(CAP_PERFMON)))
		return 0;
	snprintf(err, errlen, "tracing needs root (or CAP_BPF and CAP_PERFMON); run it with sudo");
	return -1;
}

int check_btf(char *err, size_t errlen)
{
	if (access("/sys/kernel/btf/vmlinux", R_OK) == 0)
		return 0;
	snprintf(err, errlen,
		 "this kernel exposes no BTF (/sys/kernel/btf/vmlinux); dltrace needs a kernel "
		 "built with CONFIG_DEBUG_INFO_BTF=y");
	return -1;
}

static int is_tracefs(const char *dir)
{
	struct statfs st;
	char events[256];

	snprintf(events, sizeof(events), "%s/events", dir);
	return statfs(dir, &st) == 0 && (unsigned long)st.f_type == TRACEFS_MAGIC &&
	       access(events, F_OK) == 0;
}

int ensure_tracefs(char *err, size_t errlen)
{
	if (is_tracefs("/sys/kernel/tracing")) {
		tracefs = "/sys/kernel/tracing";
		return 0;
	}
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0 &&
	    is_tracefs("/sys/kernel/tracing")) {
		tracefs = "/sys/kernel/tracing";
		return 0;
	}
	if (is_tracefs("/sys/kernel/debug/tracing")) {
		tracefs = "/sys/kernel/debug/tracing";
		return 0;
	}
	snprintf(err, errlen,
		 "cannot mount tracefs at /sys/kernel/tracing (%s); mount it with "
		 "'mount -t tracefs nodev /sys/kernel/tracing' and try again",
		 strerror(errno));
	return -1;
}

const char *tracefs_dir(void)
{
	return tracefs;
}

void raise_memlock_limit(void)
{
	struct rlimit r = {RLIM_INFINITY, RLIM_INFINITY};

	setrlimit(RLIMIT_MEMLOCK, &r);
}

int tracepoint_exists(const char *category, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/events/%s/%s/id", tracefs, category, name);
	return access(path, F_OK) == 0;
}
