/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One trace format, as the registry (format/trace_format.c) sees it: its
 * names, how to write it and how to read it.  Each format is a folder of
 * its own for its writer and reader (format/chrome/, format/perfetto/), one
 * file here that fills one of these from them (format/json_format.c,
 * format/pftrace_format.c) and one line of format/trace_formats.def.  The
 * entry is not in the format's folder: the registry uses the folders and
 * they know nothing of it, so that dependencies point one way.
 *
 *   writing: open(sink) -> consumer (the event callbacks) -> tail (the bytes
 *            that close the file) -> free
 *   reading: reader_new(consumer) -> feed(raw bytes)... -> finish -> status -> reader_free
 *
 * Compression is not the format's: the output sink gzips what the writer
 * gives it (io/output_sink.h) and the reader gets the file's raw bytes,
 * which it passes through an input stream (io/input_stream.h).  Only the
 * per-file calls go through these pointers: the events go to the writer's
 * own consumer, so a format costs no indirect call per event.
 */
#ifndef TRACE_FORMAT_OPS_H
#define TRACE_FORMAT_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event/event.h"
#include "io/output_sink.h"
#include "io/trace_status.h"

struct trace_format_ops {
	const char *name;   /* "json": the daemon's trace_format, convert's summary */
	const char *title;  /* "Chrome JSON": the help texts */
	const char *noun;   /* "JSON": the help texts' short name */
	const char *note;   /* after the title in dltrace --help: ", a few bytes per event" */
	const char *suffix; /* ".json": a file name's, and with ".gz" compressed */
	int gzip_level;	    /* of a .gz unless told (docs/performance.md "What the measurements
			       decided") */

	/*
	 * Is a file of this format, by its first bytes after gzip (p, n: up to
	 * 64)?  NULL for the first format of the registry, which reads what no
	 * other claims and says why it is not a trace.
	 */
	bool (*claims)(const char *p, size_t n);

	/* Writing into sink (the caller's); size_cap: stop writing events past it (0: none). */
	void *(*open)(struct output_sink *sink, uint64_t size_cap);
	struct event_consumer *(*consumer)(void *w);
	const char *(*tail)(const void *w, size_t *len); /* after EV_TRACE_END */
	uint64_t (*events)(const void *w);
	uint64_t (*capped)(const void *w);
	void (*close)(void *w);

	/* Reading raw file bytes into out. */
	void *(*reader_new)(struct event_consumer *out);
	int (*feed)(void *r, const void *data, size_t len); /* -1 on a fatal error */
	int (*finish)(void *r);
	const struct trace_read_status *(*status)(const void *r);
	void (*reader_free)(void *r);
};

#endif
