/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The live source of the event stream: from ring-buffer records to typed,
 * resolved events.  Keeps the process, thread and descriptor tables
 * current, names each descriptor's file, aliases reused pids, and delivers
 * every event to one consumer (a tee, for several).  It knows no writer.
 *
 * Called by the tracing session and the daemon (live/): decoder_begin()
 * once, decoder_handle() per record, decoder_finish() once.
 */
#ifndef RECORD_DECODER_H
#define RECORD_DECODER_H

#include <stddef.h>
#include <stdint.h>

#include "bpf/dltrace_events.h"
#include "decode/aio_requests.h"
#include "decode/block_tracks.h"
#include "decode/file_names.h"
#include "decode/inode_paths.h"
#include "decode/span_args.h"
#include "decode/span_records.h"
#include "decode/span_threads.h"
#include "event/event.h"
#include "decode/process_table.h"
#include "decode/python_frames.h"

struct record_decoder {
	struct process_table procs;
	struct event_consumer *out; /* where the events go */
	uint64_t t0;		    /* CLOCK_MONOTONIC at ts 0 */
	uint64_t emitted;	    /* events delivered */
	uint64_t next_flow;	    /* fork arrows */
	uint32_t page_size;	    /* the cache layer counts pages */
	struct inode_paths inodes;  /* (dev, ino) -> path, for faults and VFS calls */
	struct file_names files;    /* cookie -> the file the kernel met (struct dl_file) */
	uint64_t paths_unknown;	    /* calls whose file's struct dl_file was lost */
	struct block_tracks blocks; /* per-device tracks of the block layer */
	uint64_t uring_requests; /* async slice ids of io_uring and AIO requests (one sequence) */
	struct aio_requests aio; /* native AIO requests in flight */
	uint64_t last_ts;	 /* the latest record time (unreaped AIO ends there) */
	int64_t user_uid;	 /* first non-root uid among the processes (-1: none yet) */
	uint64_t records;	 /* records decoded */
	/* counting mode: the run records (DL_KIND_RUN) and the calls they hold */
	uint64_t runs, run_calls;
	struct {
		uint32_t calls; /* the run being decoded (0: a record of one call) */
		uint64_t span, longest, stride;
	} run;
	/*
	 * Saved records decoded later (bench/replay, the golden tests): their
	 * processes are gone and their pids may be others' now, so /proc is
	 * never read (names come from the records alone).
	 */
	bool offline;
	uint64_t by_kind[DL_KIND_COUNT]; /* records per kind */
	uint64_t malformed;
	uint64_t late_exits;	   /* threads' exits after their process's (decoder__handle_exit) */
	struct process *last_proc; /* the process and thread of the last record */
	uint32_t last_tid;	   /* records too short for their kind */
	/* library calls and markers (DL_EV_SPAN) */
	struct span_handles span_names;	  /* what opens named, per process and handle */
	struct span_threads span_threads; /* the syscalls library calls enclose */
	struct ev_arg span_args[EV_ARGS_MAX];
	char span_scratch[SPAN_SCRATCH];
	/* --python-stacks (decoder_python()): the stacks and code objects sent */
	struct py_frames *py;
	const struct py_rules *py_rules;
	bool py_full; /* every frame too (ev_syscall.py_stack) */
};

void decoder_init(struct record_decoder *d, struct event_consumer *out);
/*
 * Python stacks: syscall events of CPython threads get their application
 * frame (ev_syscall.py, by rules, which must outlive d) and, with full, all
 * frames.  Returns -1 when out of memory.
 */
int decoder_python(struct record_decoder *d, const struct py_rules *rules, bool full);
/* The trace's start: delivers EV_TRACE_BEGIN (times count from meta->start_mono_ns). */
void decoder_begin(struct record_decoder *d, const struct ev_trace_begin *meta);
void decoder_free(struct record_decoder *d);

/* Decode one ring-buffer record. */
void decoder_handle(struct record_decoder *d, const void *rec, size_t size);

/*
 * A process that was traced before any of its records arrived (--pid
 * targets and their existing descendants, at attach): name it and learn
 * its open descriptors from /proc (for what names files by descriptor
 * without the kernel's cookie: library calls; syscalls carry cookies).
 */
void decoder_seed_process(struct record_decoder *d, uint32_t pid);

/*
 * The trace's end: names every process and thread still alive, then
 * delivers EV_TRACE_END with end (its events count is set here).
 */
void decoder_finish(struct record_decoder *d, struct ev_trace_end *end);

#endif
