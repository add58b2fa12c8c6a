/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Capture layers: which groups of BPF programs to load, what the running
 * kernel offers for each, and why a layer is missing.  Programs belong to a
 * layer by the prefix of their name (dl_ for syscalls, mmap_, cache_,
 * block_, uring_, vfs_fentry_/vfs_fexit_ or vfs_kprobe_/vfs_kretprobe_,
 * markers_, stdio_, hdf5_, mpiio_).
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

enum layer {
	LAYER_SYSCALL,
	LAYER_VFS,
	LAYER_MMAP,
	LAYER_CACHE,
	LAYER_BLOCK,
	LAYER_URING,
	LAYER_MARKERS, /* the job's phases: USDT probes of libdltrace_markers.so */
	LAYER_STDIO,   /* libc's fopen, fread, fwrite, ...: per traced process */
	LAYER_HDF5,    /* libhdf5's H5Fopen, H5Dread, ... */
	LAYER_MPIIO,   /* libmpi's MPI_File_* */
	LAYER_COUNT,
};

#define LAYERS_ALL ((1u << LAYER_COUNT) - 1)
#define LAYERS_LIBRARY                                                                             \
	((1u << LAYER_MARKERS) | (1u << LAYER_STDIO) | (1u << LAYER_HDF5) | (1u << LAYER_MPIIO))
/*
 * The layers on unless --layers says otherwise: those that cost processes
 * dltrace does not trace nothing measurable.  stdio, hdf5 and mpiio make
 * every call of the probed functions trap (docs/user-guide.md "Levels").
 */
#define LAYERS_DEFAULT                                                                             \
	(LAYERS_ALL & ~((1u << LAYER_STDIO) | (1u << LAYER_HDF5) | (1u << LAYER_MPIIO)))

static inline bool layer_is_library(int l)
{
	return l >= 0 && l < LAYER_COUNT && (LAYERS_LIBRARY & (1u << l));
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
	struct layer_state layer[LAYER_COUNT];
	enum vfs_attach vfs;
};

const char *layer_name(enum layer l);
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
