/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The trace formats behind one choice: a registry of formats (one line of
 * format/trace_formats.def each, its ops in format/trace_format_ops.h):
 * Chrome JSON (format/chrome/) and Perfetto's protobuf (format/perfetto/),
 * the same events either way.
 *
 *   writing: the output's name picks the format     -> trace_writer (a consumer)
 *            (its suffix, plain or .gz; a name no format claims: the first)
 *   reading: the file's first bytes pick the reader -> trace_file_read (a source)
 *            (after gzip: the first format whose claims() says so, else the first)
 *
 * gzip or not is the output sink's business on the way out (io/output_sink.h)
 * and the input stream's on the way in (io/input_stream.h).
 */
#ifndef TRACE_FORMAT_H
#define TRACE_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event/event.h"
#include "format/trace_format_ops.h"
#include "io/output_sink.h"
#include "io/trace_status.h"

enum trace_format {
#define TRACE_FORMAT(id, ops) TRACE_FORMAT_##id,
#include "format/trace_formats.def"
#undef TRACE_FORMAT
	TRACE_FORMAT_COUNT,
};

/* The format's entry: its names, suffix, help texts (f < TRACE_FORMAT_COUNT). */
const struct trace_format_ops *trace_format_ops(enum trace_format f);
/* The format a file name asks for: the one whose suffix it ends with (or suffix.gz), else the
 * first. */
enum trace_format trace_format_of_name(const char *path);
/* The format named name ("json", "pftrace"); -1 when none is. */
int trace_format_by_name(const char *name);
/* "json", "pftrace" */
const char *trace_format_name(enum trace_format f);
/*
 * The gzip level a .gz of the format gets unless told (docs/performance.md
 * "What the measurements decided").
 */
int trace_format_gzip_level(enum trace_format f);

/* ---- writing ---- */

struct trace_writer;

/*
 * A writer of format f into sink (which stays the caller's).  size_cap:
 * stop writing events once the sink has taken this many bytes (0: no
 * cap); the summary counts those left out.  NULL when out of memory.
 */
struct trace_writer *trace_writer__new(enum trace_format f, struct output_sink *sink,
				       uint64_t size_cap);
void trace_writer__free(struct trace_writer *w);
/* Deliver the stream here. */
struct event_consumer *trace_writer__consumer(struct trace_writer *w);
/* After EV_TRACE_END: the bytes that close the file (the summary), for sink_close(). */
const char *trace_writer__tail(const struct trace_writer *w, size_t *len);
/* Events written so far (the summary included once it is made). */
uint64_t trace_writer__events(const struct trace_writer *w);
/* Events not written because of the size cap. */
uint64_t trace_writer__capped(const struct trace_writer *w);

/* ---- reading ---- */

/*
 * Read a whole trace file of either format ("-": standard input) into c.
 * -1 with st->error on errors (damage that a crash leaves is not one: st
 * says what it was).
 */
int trace_file_read(const char *path, struct event_consumer *c, struct trace_read_status *st);
/* The same, adding the bytes and events read to a progress line (io/progress.h; NULL: none). */
struct progress;
int trace_file_read_progress(const char *path, struct event_consumer *c,
			     struct trace_read_status *st, struct progress *progress);

/* The format of a file, from its first bytes.  -1 with a one-line reason. */
int trace_file_format(const char *path, enum trace_format *f, char *err, size_t errlen);

/*
 * Only the trace's metadata event (for what must be known of every trace
 * before any is read: the earliest start, the hosts): into c, which gets
 * nothing else.  -1 with a one-line reason.
 */
int trace_file_header(const char *path, struct event_consumer *c, char *err, size_t errlen);

/* Only the trace's start (its wall clock).  -1 with a one-line reason. */
int trace_file_start(const char *path, int64_t *start_wall_ns, char *err, size_t errlen);

#endif
