/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Streaming reader of PyTorch profiler traces (Kineto's JSON, what
 * torch.profiler's export_chrome_trace writes), plain or gzip.  Such a
 * trace is one JSON object, often gigabytes, pretty-printed, with its
 * events in one array and its wall-clock base after them:
 *
 *   {                                     depth 1: the trace's members
 *     "schemaVersion": 1,                 kept: scalars, distributedInfo.rank,
 *     "deviceProperties": [ ... ],        the number of devices
 *     "distributedInfo": {"rank": 34, ...},
 *     "traceEvents": [                    depth 2: one event per element, cut
 *       {"ph": "X", "cat": "kernel", "name": ..., "pid": 0, "tid": 7,
 *        "ts": 2413669097444.592, "dur": 1.76, "args": {...}},
 *       ...                               out and parsed alone (memory: the
 *     ],                                  longest event, never the file)
 *     "traceName": "...",
 *     "baseTimeNanoseconds": 1727743122000000000
 *   }
 *
 * Times: "ts" is microseconds (three decimals: nanoseconds) since
 * baseTimeNanoseconds, a Unix time in ns: an event's wall clock is
 * baseTimeNanoseconds + ts * 1000, read here exactly from the decimal text.
 * The base comes last, so whoever needs wall times reads the file twice
 * (or keeps relative times until the end).
 *
 * Errors (one line, in status.error): not a JSON object, an object without
 * traceEvents, no baseTimeNanoseconds, a file cut short (inside the events
 * or before the closing brace; a gzip stream without its end), corrupt
 * gzip.  An element of traceEvents that is not an event object is counted
 * (malformed) and given to the callback with its reason, never dropped
 * silently.
 */
#ifndef KINETO_READER_H
#define KINETO_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event/event.h"

#define KINETO_EVENT_MAX (16u << 20) /* longer events are counted, not parsed */

/* A pid or tid: Kineto writes numbers (Linux ids, devices, streams) or strings ("Spans"). */
struct kineto_id {
	bool present, is_str;
	uint64_t v;	 /* a non-negative integer */
	struct ev_str s; /* a string (or a number that is not a non-negative integer) */
};

/* One element of traceEvents.  Strings point into the reader's buffers (valid in the callback). */
struct kineto_event {
	const char *malformed;	     /* why this element is not an event (NULL: it is one) */
	struct ev_str raw;	     /* the element's text */
	struct ev_str name, cat, ph; /* ph: as written ("X", "M", ...) */
	bool has_ts, has_dur, has_id;
	int64_t ts_ns;	/* ts * 1000, exact: ns since baseTimeNanoseconds */
	int64_t dur_ns; /* dur * 1000 (negative when written so) */
	struct kineto_id pid, tid;
	uint64_t id;	     /* a flow's id (s, f) */
	struct ev_str bp;    /* a flow end's binding point ("e") */
	struct ev_str scope; /* an instant's "s" ("g", "p", "t") */
	/*
	 * "args" in order, typed: strings, integers, booleans, decimals of at
	 * most three fraction digits (what the trace writers keep exactly) as
	 * EV_ARG_DOUBLE; anything else (arrays, objects, null, other numbers)
	 * as EV_ARG_STR holding its JSON text as written.
	 */
	struct ev_arg args[EV_ARGS_MAX];
	uint32_t nargs;
	uint32_t args_dropped; /* beyond EV_ARGS_MAX */
};

/* What the trace says of itself (its members other than traceEvents). */
struct kineto_header {
	bool has_base;
	int64_t base_ns; /* baseTimeNanoseconds */
	bool has_rank;
	int64_t rank, world_size; /* distributedInfo (world_size -1: not given) */
	int64_t schema_version;	  /* -1: not given */
	uint32_t devices;	  /* entries of deviceProperties */
	char trace_name[256];	  /* traceName (cut), "" when none */
};

struct kineto_status {
	bool gzip;
	uint64_t bytes;	    /* of JSON text (after decompression) */
	uint64_t elements;  /* elements of traceEvents */
	uint64_t malformed; /* of them, not events */
	const char *first_malformed_why;
	uint64_t first_malformed; /* its index in traceEvents */
	bool trailing_garbage;	  /* bytes after the closing brace (ignored) */
	char error[320];
};

typedef void (*kineto_event_fn)(void *ctx, const struct kineto_event *ev);

struct kineto_reader;

/* A reader handing each element of traceEvents to fn (NULL: none).  NULL: out of memory. */
struct kineto_reader *kineto_reader__new(kineto_event_fn fn, void *ctx);
void kineto_reader__free(struct kineto_reader *r);
/* Raw file bytes (gzip or not).  -1 on a fatal error (status.error). */
int kineto_reader__feed(struct kineto_reader *r, const void *data, size_t len);
/* End of input: -1 when the trace is cut short or says no base time (status.error). */
int kineto_reader__finish(struct kineto_reader *r);
const struct kineto_header *kineto_reader__header(const struct kineto_reader *r);
const struct kineto_status *kineto_reader__status(const struct kineto_reader *r);

/*
 * Read a whole file ("-" is not accepted: callers read twice).  0, or -1
 * with st->error ("cannot open ...", or the reader's error).
 */
int kineto_file_read(const char *path, kineto_event_fn fn, void *ctx, struct kineto_header *h,
		     struct kineto_status *st);

/* Does the file look like a profiler trace (its first non-blank byte, gzip or not, is '{')? */
bool kineto_file_is(const char *path);

/* ns of a decimal number of microseconds ("12.345", "-3", "1e3"): exact for plain decimals. */
bool kineto_us_to_ns(const char *s, size_t len, int64_t *ns);

#endif
