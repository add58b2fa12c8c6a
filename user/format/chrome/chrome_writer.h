/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Chrome Trace Event Format writer (JSON array form, one event per line),
 * following the rules of Perfetto's JSON importer: the file starts with
 * `[{"`, timestamps are microseconds with nanosecond precision relative to
 * the trace start, slices never partially overlap on a thread, strings are
 * valid UTF-8 without surrogate escapes.
 *
 * Layout: line 1 is `[{...dltrace metadata...}`, each further event is a
 * line `,{...}`, and the file ends with the summary event and `]`.
 */
#ifndef CHROME_WRITER_H
#define CHROME_WRITER_H

#include <stdbool.h>
#include <stdint.h>

#include "bpf/dltrace_events.h"
#include "event/lost_counts.h"
#include "io/output_sink.h"
#include "decode/path_table.h"

struct trace_meta {
	const char *version;
	const char *kernel;
	const char *hostname;
	const char *target;	/* "pid 1234", "cgroup /job", "command python3 x.py" */
	const char *layers;	/* active capture layers, comma separated */
	const char *layers_off; /* "layer: reason; ..." for the missing ones */
	uint64_t start_mono_ns; /* CLOCK_MONOTONIC origin of ts */
	int64_t start_wall_ns;	/* CLOCK_REALTIME at the same instant */
	uint32_t tracer_pid;
};

struct trace_summary {
	uint64_t end_mono_ns;
	int64_t end_wall_ns;
	struct lost_counts lost; /* records the kernel side dropped */
	const char *stop_reason;
	uint64_t capped_events; /* not written: the trace reached its size cap */
	bool output_error;	/* the trace was cut short by a write error */
};

struct chrome_writer {
	struct output_sink *sink;
	uint64_t t0;
	uint64_t events; /* events written, metadata included */
	uint64_t next_flow;
	uint32_t page_size; /* for the cache layer's page counts */
	/* optional: the pid/tid to write for a real pid/tid (reused pids) */
	void (*map_ids)(void *ctx, uint32_t *pid, uint32_t *tid);
	void *map_ctx;
};

/* Names of the files a syscall record refers to. */
struct io_names {
	const struct path_ref *path;  /* the fd's (or the named) file */
	const struct path_ref *path2; /* rename target; sendfile/copy output */
};

void cw_begin(struct chrome_writer *w, struct output_sink *sink, const struct trace_meta *m);
/* A completed syscall; pathrec is non-NULL for records that carry a path. */
void cw_syscall(struct chrome_writer *w, const struct dl_io *io, const struct io_names *names,
		const struct dl_path *pathrec);
/* fork: a zero-length slice on the parent and on the child, joined by a flow arrow. */
void cw_fork(struct chrome_writer *w, uint64_t ts, uint32_t ppid, uint32_t ptid, uint32_t pid,
	     bool thread);
void cw_exec(struct chrome_writer *w, uint64_t ts, uint32_t pid, uint32_t tid, const char *file,
	     size_t file_len, const char *cmdline);
void cw_exit(struct chrome_writer *w, uint64_t ts, uint32_t pid, uint32_t tid, int status,
	     bool group_dead);
void cw_process_name(struct chrome_writer *w, uint32_t pid, const char *name);
void cw_thread_name(struct chrome_writer *w, uint32_t pid, uint32_t tid, const char *name);
/* Write the summary and the closing bracket (does not close the sink). */
/* The summary and closing bracket; tail must hold CW_TAIL_MAX bytes. */
#define CW_TAIL_MAX 4096
void cw_end(struct chrome_writer *w, const struct trace_summary *s, char *tail, size_t *tail_len,
	    size_t tail_cap);

#endif
