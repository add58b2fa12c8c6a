/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The reverse of event_head() and event_args() (event/event_args.h): an
 * event back from what a trace shows of it, its name, category, phase and
 * typed arguments.  Both trace readers decode a record into that (the
 * .pftrace reader from debug annotations, the Chrome JSON reader from a
 * line's tokens, format/chrome/trace_line_parser.h), and this gives the
 * event the writer was given:
 *
 *   event --event_head/event_args--> name, cat, ph, args --writer--> file
 *   file --reader--> name, cat, ph, args --event_parse--> the same event
 *
 * It is the one place that knows what each key means: an argument
 * event_args() writes is read back here, and nowhere else.  Keys are read
 * as event_args() writes them, whatever the type they come back as (a
 * reader may give an unsigned value as signed, a symbol or a hex value as
 * a string, microseconds as a double); unknown keys are ignored, missing
 * ones leave their field 0.  Events of no dltrace kind become EV_SPAN
 * (slices, instants, counters and flows with a category, or named without
 * one when there is no raw text to keep: a .pftrace's) or EV_OTHER.
 */
#ifndef EVENT_PARSE_H
#define EVENT_PARSE_H

#include <stdint.h>

#include "event/event.h"
#include "event/event_args.h"

/* What the parsed event points to besides the caller's args (valid until the next call). */
struct event_parse {
	struct ev_path paths[EV_ARGS_MAX];
	struct ev_arg args[EV_ARGS_MAX];
	struct lost_counts lost; /* the summary's lost_by_kind, with its totals */
};

/*
 * Fill e's type and payload from h and args: e is zero but for its ts,
 * pid, tid (and raw), which are the caller's.  dur: a slice's duration;
 * id: a fork's arrow (its flow) or an asynchronous request's id (joining
 * its begin and end).  Strings of e point into h and args.
 */
void event_parse(struct event_parse *p, struct event *e, const struct ev_head *h, uint64_t dur,
		 uint64_t id, const struct ev_arg *args, unsigned n);

#endif
