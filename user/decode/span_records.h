/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * DL_EV_SPAN records (bpf/dltrace_events.h, struct dl_span): library calls
 * of the stdio, hdf5 and mpiio layers and the markers' regions, instants
 * and counters.  What a consumer needs to turn one into an event: its
 * strings, its function's name and category, its phase, and the names of
 * the objects it works on, learnt from earlier records of the same process
 * (an H5Dread's dataset from the H5Dopen2 or H5Oopen that returned its hid,
 * a FILE's path from its fopen, an MPI_File's from its MPI_File_open).
 */
#ifndef SPAN_RECORDS_H
#define SPAN_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/dltrace_events.h"

struct span_view {
	const struct dl_span *rec;
	const char *str; /* path, object or region name (not NUL-terminated) */
	uint32_t str_len;
	const char *str2; /* region arguments (flat JSON object), fopen mode, datarep */
	uint32_t str2_len;
};

/* 0, or -1 when the record is too short for what it says it holds. */
int span_view(const void *rec, size_t size, struct span_view *v);

/* "H5Dread", "fread", "MPI_File_read_at", "region", ...; "?" for an unknown id. */
const char *span_func_name(unsigned func);
/* The category: "hdf5", "stdio", "mpiio", "marker". */
const char *span_level_name(unsigned level);
/* 'X' (calls, regions), 'i' (instants), 'C' (counters). */
char span_phase(unsigned func);
/* Whether the call opens something whose name later calls use (its handle is then ret). */
bool span_func_opens(unsigned func);

/*
 * Names of the objects calls work on, per process: what a successful open
 * named, under the handle it returned; forgotten at the close.
 */
struct span_name {
	char *name; /* the object: a file's path, "/group/dataset" */
	char *file; /* the file it belongs to (HDF5), or NULL */
};

struct span_handle_slot;

struct span_handles {
	struct span_handle_slot *slots;
	size_t cap, count, dirty;
	struct span_name closed; /* the last name a close forgot */
};

void span_handles_init(struct span_handles *h);
void span_handles_free(struct span_handles *h);
/*
 * Call v, completed, in the order of its process's calls: learn what an
 * open named, forget what a close closed.  Returns the object v works on
 * (for an open: the one it opened, HDF5 objects with their full name in
 * their file), or NULL when unknown.  Valid until the next call.
 */
const struct span_name *span_handles_apply(struct span_handles *h, const struct span_view *v);
/* A process exited: forget its handles. */
void span_handles_forget_process(struct span_handles *h, uint32_t tgid);

#endif
