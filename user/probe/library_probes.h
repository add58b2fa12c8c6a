/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The library layers: find the libraries a job will use and attach
 * bpf/level_probes.bpf.c's programs to their functions.
 *
 *   markers  USDT probes of libdltrace_markers.so (next to dltrace, in the
 *            dynamic loader's cache, or --lib), for every process
 *   hdf5     every libhdf5 library in `ldconfig -p` (and --lib) that has H5Fopen,
 *            for every process
 *   mpiio    every libmpi or libmpich library with MPI_File_open, for every process
 *   stdio    the C library dltrace itself uses (the dynamic loader's), for
 *            each traced process only: a uprobe on libc for every process
 *            would make every stdio call on the machine trap
 *
 * Probes are attached by file, so processes that load a library later
 * (dlopen, exec) are covered; for every process means that the kernel
 * traps any process calling the function, and the task filter keeps the
 * untraced ones out of the trace.  Per traced process means one attachment
 * per process, made when dltrace learns of it (a traced fork, --pid, the
 * command, a process's first record) and dropped at its exit; calls a
 * process makes before that are not recorded.
 * docs/user-guide.md "Levels" explains these choices; bench/uprobe_cost.py measures them.
 */
#ifndef LIBRARY_PROBES_H
#define LIBRARY_PROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "probe/probe_layers.h"

struct bpf_link;
struct dltrace_bpf;
struct library_probes;

/*
 * A library given with --lib PATH: its layer is found from what it defines
 * (H5Fopen, MPI_File_open, fopen, dltrace USDT probes).  Its real path goes
 * to real (PATH_MAX bytes).  -1 with a message when it cannot be a library
 * of any layer.
 */
int library_probes_check_path(const char *path, char *real, char *err, size_t errlen);

/*
 * Find the libraries and functions of the wanted library layers (the
 * --lib libraries first, checked real paths); layers that cannot run are
 * marked in plan with their reason.  NULL: out of memory (the library
 * layers are then marked off).
 */
struct library_probes *library_probes_plan(struct layer_plan *plan, char *const *lib_paths,
					   size_t nlib_paths, bool verbose);
/*
 * What a library's layout means for the BPF side (a FILE's descriptor, an
 * MPI datatype's size) travels in its probes' cookies: nothing to set
 * before load.  Attach what is attached for every process (after load); a
 * layer that
 * cannot be attached is marked off in plan and its probes detached.
 */
void library_probes_attach(struct library_probes *lp, struct dltrace_bpf *skel,
			   struct layer_plan *plan);
/* A process is traced from now on: attach the per-process layers (stdio) to it. */
void library_probes_add_process(struct library_probes *lp, pid_t tgid);
/* Every ring record passes here first: follows forks, exits and new processes. */
void library_probes_record(struct library_probes *lp, const void *rec, size_t size);
/*
 * Hand over every link (to detach elsewhere: it takes the kernel tens of
 * milliseconds each); the layers can be attached again later.  Returns how
 * many, in *out (free it).
 */
size_t library_probes_take_links(struct library_probes *lp, struct bpf_link ***out);
/*
 * Detach everything (disconnect: only forget the links, another process
 * holds them and detaches them).
 */
void library_probes_detach(struct library_probes *lp, bool disconnect);
void library_probes_free(struct library_probes *lp);

/* Whether a background thread is still detaching exited processes' probes. */
bool library_probes_detaching(void);

struct library_stats {
	unsigned processes;    /* processes the per-process layers were attached to */
	unsigned failed;       /* attachments that failed (the process had exited, ...) */
	double attach_ms;      /* time spent attaching them */
	unsigned system_links; /* links for every process */
};
void library_probes_stats(const struct library_probes *lp, struct library_stats *st);

#endif
