/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Capture layers: which groups of BPF programs to load, what the running
 * kernel offers for each, and why a layer is missing.  Programs belong to a
 * layer by the prefix of their name (layer_table[].prefixes: dl_enter_ and
 * dl_exit_ for syscalls, mmap_, cache_, block_, uring_, vfs_ (fentry or
 * kprobe), markers_, stdio_, hdf5_, mpiio_).
 *
 * The library layers (markers, stdio, hdf5, mpiio) are uprobes and USDT
 * probes on shared libraries: the kernel only says whether uprobes work;
 * user/probe/library_probes.c finds the libraries and their functions and
 * attaches them.
 */
#ifndef PROBE_LAYERS_H
#define PROBE_LAYERS_H

#include <bpf/libbpf.h>
#include <stdbool.h>
#include <stddef.h>

#include "bpf/dltrace_events.h"

/*
 * One row per layer, in the order --layers, --help and the trace's metadata
 * list them; the layers' enum is the shared header's (enum dl_layer,
 * bpf/dltrace_events.h).  --layers parses the names, --help and
 * --list-layers print the rows, and the docs' list of layers is made from
 * --list-layers (tools/doc_lists.py).
 */
struct layer_info {
	enum dl_layer id;
	const char *name;	 /* in --layers and in the trace's metadata */
	bool on;		 /* in the default set (docs/user-guide.md "Levels" says why not) */
	const char *prefixes[3]; /* its BPF programs, by the start of their names */
	const char *records;	 /* what it records */
	const char *attaches;	 /* what it attaches to */
	const char *cost;	 /* what it costs, and whom */
};

extern const struct layer_info layer_table[DL_LAYER_COUNT];

#define LAYERS_ALL ((1u << DL_LAYER_COUNT) - 1)
/* The default set: the rows that are on, where the kernel offers them. */
unsigned layers_default(void);
/*
 * The default layers when data calls are counted in runs (--summary-only,
 * the daemon's trace_format = none): without vfs, whose record per call
 * would end every run.
 */
unsigned layers_default_counted(void);

/* The library layers (uprobes and USDT probes on shared libraries) are the levels above the
 * syscalls. */
static inline bool layer_is_library(int l)
{
	return l > DL_LAYER_SYSCALL && l < DL_LEVEL_COUNT;
}

enum vfs_attach {
	VFS_ATTACH_AUTO,   /* fentry/fexit, else kprobes */
	VFS_ATTACH_FENTRY, /* fentry/fexit only */
	VFS_ATTACH_KPROBE, /* kprobe/kretprobe only */
};

struct layer_state {
	bool wanted;
	bool active;
	const char *how;  /* the attach method or tracepoint in use */
	char reason[192]; /* why it is not active */
};

struct layer_plan {
	struct layer_state layer[DL_LAYER_COUNT];
	enum vfs_attach vfs;
};

const char *layer_name(enum dl_layer l);
/*
 * Parse "syscall,mmap,..." ("all", "default") into a bit set; "+hdf5,-block"
 * adds to or removes from the default set.  -1 on an unknown name.
 */
int layers_parse(const char *list, unsigned *mask, char *err, size_t errlen);

/* Decide, from what the kernel offers, which wanted layers can run. */
void layers_plan(struct layer_plan *plan, unsigned wanted, enum vfs_attach vfs);
/* The layer of a program (by name); -1 for the core (process) programs. */
int layer_of_program(const struct bpf_program *prog);
/* Whether this program is to be loaded under the plan. */
bool layer_program_enabled(const struct layer_plan *plan, const struct bpf_program *prog);

/* "syscall,mmap,cache" and "vfs: reason; ..." */
void layers_describe(const struct layer_plan *plan, char *active, size_t alen, char *missing,
		     size_t mlen);
/* How each active layer attaches: "syscall: syscall tracepoints; vfs: fentry/fexit; ..." */
void layers_attach_methods(const struct layer_plan *plan, char *out, size_t len);

#endif
