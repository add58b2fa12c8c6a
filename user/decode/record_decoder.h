/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * From ring-buffer records to trace events: keeps the process, thread and
 * descriptor tables current and hands each event, with its file names, to
 * the Chrome writer.
 */
#ifndef RECORD_DECODER_H
#define RECORD_DECODER_H

#include <stddef.h>
#include <stdint.h>

#include "bpf/dltrace_events.h"
#include "decode/block_tracks.h"
#include "format/chrome/chrome_writer.h"
#include "decode/inode_paths.h"
#include "decode/process_table.h"

struct record_decoder {
	struct process_table procs;
	struct chrome_writer *writer;
	struct inode_paths inodes;	 /* (dev, ino) -> path, for faults and VFS calls */
	struct block_tracks blocks;	 /* per-device tracks of the block layer */
	uint64_t uring_requests;	 /* async slice ids of io_uring requests */
	int64_t user_uid;		 /* first non-root uid among the processes (-1: none yet) */
	uint64_t records;		 /* records decoded */
	uint64_t by_kind[DL_KIND_COUNT]; /* records per kind */
	uint64_t malformed;
	struct process *last_proc; /* the process and thread of the last record */
	uint32_t last_tid;	   /* records too short for their kind */
};

void decoder_init(struct record_decoder *d, struct chrome_writer *w);
void decoder_free(struct record_decoder *d);

/* Decode one ring-buffer record. */
void decoder_handle(struct record_decoder *d, const void *rec, size_t size);

/*
 * A process that was traced before any of its records arrived (--pid
 * targets and their existing descendants): name it and learn its open
 * descriptors from /proc.
 */
void decoder_seed_process(struct record_decoder *d, uint32_t pid);

/* Name every process and thread still alive (end of trace). */
void decoder_finish(struct record_decoder *d);

#endif
