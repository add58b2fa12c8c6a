/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Streaming reader of dltrace traces (plain or gzip, detected from the
 * bytes): splits the text into lines, checks the layout (first line
 * `[{...dltrace metadata...}`, then `,{...}` lines, then `]`) and hands each
 * event to a callback.  Memory stays bounded by the longest line.
 *
 * What a crash leaves (no `]`, the last event cut, a gzip stream without
 * its end) is not an error: the status says so and the caller warns.
 * Input that is not a dltrace trace, an empty file or corrupt gzip data is
 * an error with a one-line message.
 */
#ifndef TRACE_READER_H
#define TRACE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "format/chrome/trace_event.h"
#include "io/trace_status.h"
#include "io/input_stream.h"

#define TRACE_LINE_MAX (16u << 20) /* longer lines are not dltrace events */

typedef void (*trace_event_fn)(void *ctx, const struct trace_event *ev);

struct trace_reader {
	trace_event_fn fn;
	void *ctx;
	struct input_stream in; /* plain or gzip */
	char *line;		/* a line split across input chunks */
	size_t line_len, line_cap;
	bool skipping; /* dropping the rest of an overlong line */
	char *scratch;
	size_t scratch_cap;
	int state;	    /* 0: before the header, 1: events, 2: after `]` */
	bool first_checked; /* the first non-blank byte was looked at */
	bool last_bad;	    /* the last non-blank line was malformed */
	bool failed;
	struct trace_read_status st;
};

void trace_reader_init(struct trace_reader *r, trace_event_fn fn, void *ctx);
/* Raw file bytes (compressed or not).  -1 on a fatal error (st.error). */
int trace_reader_feed(struct trace_reader *r, const void *data, size_t len);
/* End of input.  -1 on a fatal error (st.error). */
int trace_reader_finish(struct trace_reader *r);
void trace_reader_free(struct trace_reader *r);

/* Read a whole file ("-": standard input).  -1 with st->error on errors. */
int trace_read_file(const char *path, trace_event_fn fn, void *ctx, struct trace_read_status *st);
/* The same, adding the bytes and events read to a progress line (io/progress.h; NULL: none). */
struct progress;
int trace_read_file_progress(const char *path, trace_event_fn fn, void *ctx,
			     struct trace_read_status *st, struct progress *progress);

/*
 * Read a file only as far as its first line: fn receives the metadata
 * event, nothing else (for what must be known of every trace before any is
 * read, such as the earliest start).  -1 with a one-line reason in err.
 */
int trace_read_header(const char *path, trace_event_fn fn, void *ctx, char *err, size_t errlen);

#endif
