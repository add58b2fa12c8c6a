/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A .pftrace file dltrace wrote, as a source of the event stream: the
 * reverse of pftrace_consumer.h.
 *
 *   file bytes -> io/input_stream (gzip) -> packets (lib/pb_reader)
 *              -> per sequence: interned strings, default track, clock
 *              -> name, category, phase, typed args -> event_parse -> a consumer
 *
 * Each event comes back as it was written: a complete slice is a
 * SLICE_BEGIN followed at once, in the file, by a nameless SLICE_END on the
 * same sequence and track (any other SLICE_BEGIN on a thread's track is a
 * span's 'B', a named SLICE_END its 'E'); lanes give the begin and end of
 * asynchronous requests (their id is the correlation_id); counters carry
 * their values as debug annotations; track descriptors with a name are the
 * process and thread names; instants on the "dltrace" track are the
 * metadata, the summary and events of no known kind.  Strings are valid
 * only during the callback.
 *
 * Damage is reported as for JSON traces (io/trace_status.h): a cut
 * last packet or gzip stream, no summary.  A file that is not a dltrace
 * .pftrace (another Perfetto trace included) is an error.
 */
#ifndef PFTRACE_EVENTS_H
#define PFTRACE_EVENTS_H

#include <stddef.h>

#include "event/event.h"
#include "io/trace_status.h"

struct pftrace_events;

struct pftrace_events *pftrace_events__new(struct event_consumer *out);
void pftrace_events__free(struct pftrace_events *r);
/* Raw file bytes (plain or gzip).  -1 on a fatal error (the status says which). */
int pftrace_events__feed(struct pftrace_events *r, const void *data, size_t len);
/* End of input: the last packets.  -1 on a fatal error. */
int pftrace_events__finish(struct pftrace_events *r);
const struct trace_read_status *pftrace_events__status(const struct pftrace_events *r);

#endif
