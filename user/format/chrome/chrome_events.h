/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A Chrome trace file as a source of the event stream.
 *
 *   file bytes -> trace_reader (lines, gzip) -> trace_line_parser (head and
 *              typed args) -> event_parse (event/event_parse.h) -> a consumer
 *
 * Each line becomes one event, so a trace read back delivers what the
 * live decoder delivered when the trace was written: the same types and
 * values, for every event the Chrome writer writes (event/event_args.h
 * lists what that is; event_parse(), shared with the .pftrace reader,
 * reads it back).  Lines of no known kind become EV_OTHER; slices,
 * instants and counters of other categories become EV_SPAN with their args.
 *
 * Called by `dltrace report`, `convert` and `merge` for each trace file.
 */
#ifndef CHROME_EVENTS_H
#define CHROME_EVENTS_H

#include "event/event.h"
#include "event/event_parse.h"
#include "format/chrome/trace_reader.h"

/*
 * The parser stage on its own, for a caller that runs the trace reader
 * itself: chrome_events__line is a trace_event_fn that delivers each
 * line's event to out.
 */
struct chrome_events;
struct chrome_events *chrome_events__new(struct event_consumer *out);
void chrome_events__line(void *ctx, const struct trace_event *line);
void chrome_events__free(struct chrome_events *s);

/* A line's event (into e; its strings point into l and p). */
void chrome_event_of(const struct trace_event *l, struct event_parse *p, struct event *e);

/* Read a whole file ("-": standard input) into c.  -1 with st->error on errors. */
int chrome_read_events(const char *path, struct event_consumer *c, struct trace_read_status *st);

#endif
