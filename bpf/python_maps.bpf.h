/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Python stacks: settings and maps, shared (__weak) by the objects that
 * use them (syscall_probes.bpf.c walks, python_probes.bpf.c follows
 * processes).  See python_stack.bpf.h for the walk.
 */
#ifndef PYTHON_MAPS_BPF_H
#define PYTHON_MAPS_BPF_H

#include "dltrace_maps.bpf.h"
#include "python_stack.h"

/* Set by user space before load. */
const volatile __u8 py_stacks __weak = 0; /* walk Python stacks at all */
const volatile __u64 py_kinds __weak = 0; /* syscall kinds (bit 1 << enum dl_kind) that get one */
/* glibc's struct pthread: offset of specific_1stblock (calibrated by user space) */
const volatile __u32 py_pthread_specific __weak = 0;

/*
 * Changed while running: py_procs_gen is bumped whenever py_procs changes,
 * so that each task decides again (once) whether its process is a CPython;
 * py_next_gen numbers process images (user space and BPF both take from it).
 */
volatile __u32 py_procs_gen __weak = 0;
volatile __u32 py_next_gen __weak = 0;

/* CPython layouts by index (user/probe/python_offsets.c). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, DL_PY_LAYOUTS);
	__type(key, __u32);
	__type(value, struct dl_py_layout);
} py_layouts SEC(".maps") __weak;

/* Files known to be a CPython: executables and libpython. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, struct dl_py_file);
	__type(value, struct dl_py_bin);
} py_bins SEC(".maps") __weak;

/* Traced CPython processes: tgid -> where its runtime is. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct dl_py_proc);
} py_procs SEC(".maps") __weak;

/* Stacks already sent: (hash, gen) -> stack id. */
struct dl_py_stack_key {
	__u64 hash;
	__u32 gen;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct dl_py_stack_key);
	__type(value, __u32);
} py_stack_ids SEC(".maps") __weak;

/*
 * Code objects already sent: (address, gen) -> what it held then (names,
 * first line, table): a code object freed and another one made at the
 * same address is sent again.
 */
struct dl_py_code_key {
	__u64 code;
	__u32 gen;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct dl_py_code_key);
	__type(value, __u64);
} py_codes SEC(".maps") __weak;

/*
 * Scratch space of the walk: buf holds a window of the thread's frame
 * stack read at once (up to DL_PY_WIN bytes at 0) and single objects (at
 * DL_PY_ONE); stack and code are the records being built.
 */
#define DL_PY_BUF  4096
#define DL_PY_WIN  3584
#define DL_PY_ONE  3712
#define DL_PY_DATA (1024 + DL_PY_TABLE_MAX) /* code record data: names, then the table */

struct dl_py_scratch {
	__u8 buf[DL_PY_BUF + 8];
	struct dl_py_stack stack;
	__u8 code[sizeof(struct dl_py_code) + DL_PY_DATA]; /* a struct dl_py_code */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dl_py_scratch);
} py_scratch SEC(".maps") __weak;

#endif /* PYTHON_MAPS_BPF_H */
