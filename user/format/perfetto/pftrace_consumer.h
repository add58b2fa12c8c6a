/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The .pftrace writer as a consumer of the event stream: each event
 * becomes the pftrace_writer call its kind maps to (pftrace_writer.h has
 * the packets), with the arguments event_args() lists, so the file holds
 * what the JSON holds.
 *
 *   EV_TRACE_BEGIN           instant "dltrace" at 0 on the "dltrace" track (metadata)
 *   EV_TRACE_END             instant "dltrace_summary" at duration_ns (the sink's tail)
 *   EV_PROCESS/THREAD_NAME   the process's or thread's track descriptor, named
 *   'X' events               a slice (SLICE_BEGIN, SLICE_END) on the thread's track;
 *                            a fork's arrow as flow_ids / terminating_flow_ids
 *   'i' events               an instant on the thread's track
 *   EV_BLOCK, EV_URING       begin and end on a lane under the device or process,
 *                            the request's seq as correlation_id
 *   'C' events               counter tracks "NAME KEY" under the process
 *   EV_SPAN 'B' / 'E'        SLICE_BEGIN / SLICE_END (with its name)
 *   EV_OTHER                 instant NAME on the "dltrace" track, with pid, tid,
 *                            ph and json (the line as the JSON trace held it)
 *
 * On EV_EXIT the thread's sequence is released (its interned state freed).
 * As the Chrome writer, it stops writing events (but names) past a size cap
 * and counts them in the summary's capped_events.
 */
#ifndef PFTRACE_CONSUMER_H
#define PFTRACE_CONSUMER_H

#include <stddef.h>
#include <stdint.h>

#include "event/event.h"
#include "io/output_sink.h"

struct pftrace_consumer;

/* A writer into sink (which stays the caller's); size_cap as chrome_writer__new's. */
struct pftrace_consumer *pftrace_consumer__new(struct output_sink *sink, uint64_t size_cap);
void pftrace_consumer__free(struct pftrace_consumer *c);

/* Deliver the stream here. */
struct event_consumer *pftrace_consumer__consumer(struct pftrace_consumer *c);

/* After EV_TRACE_END: the summary packet, for sink_close(). */
const char *pftrace_consumer__tail(const struct pftrace_consumer *c, size_t *len);

/* Events written so far (the summary included once it is made). */
uint64_t pftrace_consumer__events(const struct pftrace_consumer *c);
/* Events not written because of the size cap. */
uint64_t pftrace_consumer__capped(const struct pftrace_consumer *c);

/* Tests: the string table is full at n strings (it is cleared and refilled). */
void pftrace_consumer__limit_strings(struct pftrace_consumer *c, uint32_t n);

#endif
