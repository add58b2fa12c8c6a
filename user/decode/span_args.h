/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The EV_SPAN event of a span record (decode/span_records.h): its name,
 * category, phase and typed arguments, by level:
 *
 *   stdio   path (the stream's file, absolute: from the descriptor table,
 *           else from its fopen), fd, mode, item_size, items, size (bytes
 *           asked), offset, whence, ret (items done; streams and fgets'
 *           buffer as hex)
 *   hdf5    path (the file), object (the full name of a dataset, group or
 *           object: from the H5Dopen2/H5Oopen/... that returned its hid),
 *           loc or hid, flags (H5F_ACC_*), file_space and mem_space of
 *           H5Dread/H5Dwrite ("all" for H5S_ALL, else "selection"), and,
 *           where the library's layout is known, selection (the file
 *           selection's kind: all, hyperslab, points, none), points (its
 *           points), type_size (the dataset's) and bytes (bytes asked:
 *           points x type_size, Darshan's count), ret
 *   mpiio   path, amode (MPI_MODE_*), offset (in etypes of the view),
 *           count, bytes (count x the datatype's size, when readable),
 *           disp, etype_size, datarep, ret
 *   marker  a region's or instant's own arguments, typed (its flat JSON
 *           object split into members; a text that is no JSON object is
 *           kept whole as "args"); a counter's value
 *
 * Library calls also carry what they caused on their thread, when they
 * made syscalls: syscalls (all kinds), sys_reads and sys_read_bytes (the
 * read kinds and the bytes they returned), sys_writes, sys_write_bytes
 * (and syscalls_partial when some may be missing), and with the cache
 * layer sys_cache_miss_bytes: what those reads brought into the page cache
 * from storage.
 */
#ifndef SPAN_ARGS_H
#define SPAN_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "decode/span_records.h"
#include "decode/span_threads.h"
#include "event/event.h"

/* Bytes of scratch span_event() may use. */
#define SPAN_SCRATCH 2048

/* What the decoder knows of a span beyond its record. */
struct span_context {
	const struct ev_path *path;	   /* its file, or NULL */
	const char *object;		   /* an HDF5 object's full name, or NULL */
	const struct sys_totals *enclosed; /* library calls: the syscalls they enclose */
	bool enclosed_partial;
};

/*
 * Fill out (name, cat, phase, dur, args) from the record v; strings point
 * into the record, c, and scratch (SPAN_SCRATCH bytes); args holds
 * EV_ARGS_MAX.
 */
void span_event(const struct span_view *v, const struct span_context *c, struct ev_span *out,
		struct ev_arg *args, char *scratch);

#endif
