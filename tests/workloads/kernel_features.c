// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What the running kernel lets a tracer attach to VFS functions, found
 * independently of dltrace's own detection: loads and attaches a trivial
 * fentry program on vfs_read with the raw bpf(2) syscall, and opens a
 * kprobe on vfs_read through the perf kprobe PMU.
 * Prints one JSON line: {"fentry": true|false, "kprobe": true|false}.
 */
#define _GNU_SOURCE
#include <bpf/btf.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int fentry_works(void)
{
	struct bpf_insn insns[] = {
	    {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0},
	    {.code = BPF_JMP | BPF_EXIT},
	};
	struct btf *btf = btf__load_vmlinux_btf();
	union bpf_attr attr;
	int id, fd, link;

	if (!btf)
		return 0;
	id = btf__find_by_name_kind(btf, "vfs_read", BTF_KIND_FUNC);
	btf__free(btf);
	if (id <= 0)
		return 0;
	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_TRACING;
	attr.expected_attach_type = BPF_TRACE_FENTRY;
	attr.attach_btf_id = id;
	attr.insns = (unsigned long)insns;
	attr.insn_cnt = 2;
	attr.license = (unsigned long)"GPL";
	fd = syscall(SYS_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
	if (fd < 0)
		return 0;
	memset(&attr, 0, sizeof(attr));
	attr.raw_tracepoint.prog_fd = fd;
	link = syscall(SYS_bpf, BPF_RAW_TRACEPOINT_OPEN, &attr, sizeof(attr));
	close(fd);
	if (link < 0)
		return 0;
	close(link);
	return 1;
}

static int kprobe_works(void)
{
	struct perf_event_attr attr;
	FILE *f = fopen("/sys/bus/event_source/devices/kprobe/type", "r");
	int type, fd;

	if (!f)
		return 0;
	if (fscanf(f, "%d", &type) != 1)
		type = -1;
	fclose(f);
	if (type < 0)
		return 0;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config1 = (unsigned long)"vfs_read"; /* kprobe_func */
	attr.config2 = 0;			  /* probe_offset */
	fd = syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

int main(void)
{
	printf("{\"fentry\": %s, \"kprobe\": %s}\n", fentry_works() ? "true" : "false",
	       kprobe_works() ? "true" : "false");
	return 0;
}
