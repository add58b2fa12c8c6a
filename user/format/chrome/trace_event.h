/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One line of a Chrome trace as the tokenizer (trace_line_parser.c) reads
 * it: the common fields already converted to numbers, the other args kept
 * as raw JSON values.  chrome_events.c turns it into a typed event (the
 * event stream's contract, event/event.h); merge rewrites it as text.
 * Strings point into the reader's line buffer and are valid only during
 * the callback that receives the line; they are the unescaped bytes (not
 * NUL-terminated, may hold any byte).
 */
#ifndef TRACE_EVENT_H
#define TRACE_EVENT_H

#include <stdbool.h>
#include <stdint.h>

enum trace_event_type {
	TEV_OTHER,	   /* anything else (kept for counting) */
	TEV_HEADER,	   /* the first event: name "dltrace", args.format */
	TEV_SUMMARY,	   /* "dltrace_summary" */
	TEV_SYSCALL,	   /* a file syscall slice (cat data/metadata/sync/hint) */
	TEV_FORK,	   /* "fork" (args.child_pid) */
	TEV_THREAD_CREATE, /* "thread_create" (args.child_tid) */
	TEV_PROCESS_START, /* "process_start" (args.parent_pid) */
	TEV_THREAD_START,  /* "thread_start" */
	TEV_EXEC,	   /* "exec" (args.file, args.cmdline) */
	TEV_PROCESS_EXIT,  /* "process_exit" (args.exit_code or args.signal) */
	TEV_THREAD_EXIT,   /* "thread_exit" */
	TEV_PROCESS_NAME,  /* M "process_name" (args.name: the command line) */
	TEV_THREAD_NAME,   /* M "thread_name" (args.name: comm) */
	TEV_LAYER, /* an event of another capture layer: cat mmap, cache, block, uring, vfs */
};

struct trace_str {
	const char *s;
	uint32_t len;
};

/* trace_event.has bits: which optional fields were present */
#define TE_TS	      (1u << 0)
#define TE_DUR	      (1u << 1)
#define TE_PID	      (1u << 2)
#define TE_TID	      (1u << 3)
#define TE_RET	      (1u << 4)
#define TE_FD	      (1u << 5)
#define TE_OFFSET     (1u << 6)
#define TE_SIZE	      (1u << 7)
#define TE_FILE_SIZE  (1u << 8)
#define TE_CHILD      (1u << 9)
#define TE_PARENT     (1u << 10)
#define TE_EXIT_CODE  (1u << 11)
#define TE_SIGNAL     (1u << 12)
#define TE_START_WALL (1u << 13)
#define TE_START_MONO (1u << 14)
#define TE_EVENTS     (1u << 15)
#define TE_LOST	      (1u << 16)
#define TE_DURATION   (1u << 17)
#define TE_END_WALL   (1u << 18)
#define TE_TRUNCATED  (1u << 19)
#define TE_LENGTH     (1u << 20)
#define TE_LOST_BYTES (1u << 21)
#define TE_CACHE_MISS (1u << 22)
#define TE_BYTES      (1u << 23)
#define TE_LATENCY    (1u << 24)
#define TE_BIND_ID    (1u << 25)
#define TE_ID2	      (1u << 26)

/* An argument the tokenizer does not interpret: its key and its JSON value, as written. */
struct trace_member {
	struct trace_str key;
	struct trace_str value;
};

#define TRACE_EXTRA_MAX 24

struct trace_event {
	struct trace_str raw; /* the event's JSON object as it is in the file (escaped) */
	enum trace_event_type type;
	int sys;  /* DL_SYS_* for TEV_SYSCALL, -1 if the name is unknown */
	char cat; /* 'd'ata, 'm'etadata, 's'ync, 'h'int, 'p'rocess; layers: 'f' (mmap faults),
		     'c'ache, 'b'lock, 'u'ring, 'v'fs; 0 other */
	struct trace_str event_name; /* "name" */
	struct trace_str category;   /* "cat" */
	char ph;		     /* 'X', 'M', 'i', ... */
	uint32_t has;
	uint64_t ts_ns, dur_ns; /* ts and dur (microseconds in the file) in ns */
	uint32_t pid, tid;
	uint64_t bind_id; /* flow id (fork arrows) */
	uint64_t id2;	  /* id2.local of async events */

	/* syscall args */
	int64_t ret;	      /* -1 with errno_name for failures */
	struct trace_str err; /* "ENOENT"; len 0 when the call succeeded */
	int64_t fd;
	struct trace_str path;	/* exact bytes (from path_hex when present) */
	struct trace_str path2; /* new_path / out_path */
	int64_t offset;		/* offset, or ftruncate's length */
	uint64_t size;
	struct trace_str whence, flags, dev, fs;
	uint64_t file_size;
	uint64_t cache_miss; /* cache layer: bytes a read brought into the page cache */
	uint64_t bytes;	     /* block layer: request size */
	uint64_t latency_ns; /* block layer: latency_us of a request's end */

	/* process events and metadata */
	int64_t child, parent, exit_code, signal;
	struct trace_str name;	  /* args.name of process_name/thread_name */
	struct trace_str cmdline; /* exec */

	/* header (TEV_HEADER) */
	struct trace_str format, version, kernel, hostname, target, start_wall, layers;
	int64_t start_wall_ns;
	uint64_t start_mono_ns;

	/* the other args, in order (up to TRACE_EXTRA_MAX) */
	struct trace_member extra[TRACE_EXTRA_MAX];
	uint32_t nextra;

	/* summary (TEV_SUMMARY) */
	uint64_t events, lost_events, lost_bytes, duration_ns;
	int64_t end_wall_ns;
	struct trace_str stop_reason;
	bool truncated;
};

#endif
