/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The Chrome Trace Event Format writer: a consumer of the event stream
 * that writes each event as one line of JSON, following the rules of
 * Perfetto's JSON importer: the file starts with `[{"`, timestamps are
 * microseconds with nanosecond precision relative to the trace start,
 * slices never partially overlap on a thread, strings are valid UTF-8
 * without surrogate escapes (names that are not carry their exact bytes
 * in a `*_hex` argument).
 *
 *   [{"name":"dltrace","ph":"M",...,"args":{...metadata...}}    EV_TRACE_BEGIN
 *   ,{"name":"read","cat":"data","ph":"X","ts":..,"args":{..}}  one line per event
 *   ...
 *   ,{"name":"dltrace_summary","ph":"M",...}                    EV_TRACE_END
 *   ]
 *
 * What each line holds besides its name, category, phase, time and ids
 * comes from event_args() (event/event_args.h).  The summary and the
 * closing bracket are kept apart (chrome_writer__tail()) so that the
 * output sink can still write them after a failed write.
 */
#ifndef CHROME_WRITER_H
#define CHROME_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "event/event.h"
#include "io/output_sink.h"

struct chrome_writer;

/*
 * A writer into sink (which stays the caller's).  size_cap: stop writing
 * events once the sink has taken this many bytes (0: no cap); the events
 * dropped are counted in the summary's capped_events.
 */
struct chrome_writer *chrome_writer__new(struct output_sink *sink, uint64_t size_cap);
void chrome_writer__free(struct chrome_writer *w);

/* Deliver the stream here. */
struct event_consumer *chrome_writer__consumer(struct chrome_writer *w);

/* After EV_TRACE_END: the summary line and the closing bracket, for sink_close(). */
const char *chrome_writer__tail(const struct chrome_writer *w, size_t *len);

/* Events written so far (the summary included once it is formatted). */
uint64_t chrome_writer__events(const struct chrome_writer *w);
/* Events not written because of the size cap. */
uint64_t chrome_writer__capped(const struct chrome_writer *w);

#endif
