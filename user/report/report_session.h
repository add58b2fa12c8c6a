/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One report: the accumulators, fed by event streams (live, while a trace
 * is written, or read back from trace files), then the derived figures
 * and the findings; report/render/report_render.h renders them.
 *
 *   report_session__new
 *   per trace: report_session__begin_trace -> consumer gets the events
 *              -> report_session__end_trace
 *   report_session__finish (figures, findings), then terminal/json/html
 *
 * Called by `dltrace report` (cli/), by `dltrace --report` (live/) and by
 * the daemon for each job's summary (daemon/).
 */
#ifndef REPORT_SESSION_H
#define REPORT_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "event/event.h"
#include "io/trace_status.h"

struct report_session;
struct report_stats;
struct findings;

struct report_session *report_session__new(void);
void report_session__free(struct report_session *s);

/* Report time 0 = this wall-clock time (else the first trace's start). */
void report_session__set_origin(struct report_session *s, int64_t wall_ns);
/* The events of a new trace go to the consumer returned; file names the trace. NULL: no memory. */
struct event_consumer *report_session__begin_trace(struct report_session *s, const char *file);
/* The trace's end: st says how it was read (NULL: a live stream, complete). */
void report_session__end_trace(struct report_session *s, const struct trace_read_status *st);

/*
 * A PyTorch profiler trace (--kineto) to join: expect it before the traces
 * are read; after them, its events go to the profile returned (NULL: out
 * of memory), which rs_gpu_profile__end joins or rs_gpu_profile__free drops
 * (report/report_gpu_idle.h).  The caller reads the file, as it reads the
 * traces.
 */
struct rs_gpu_profile;
void report_session__expect_kineto(struct report_session *s);
struct rs_gpu_profile *report_session__gpu_profile(struct report_session *s);

/* ram_bytes: the job's machine's memory (0: this machine's). */
void report_session__finish(struct report_session *s, uint64_t ram_bytes);

/* Warnings about the traces read (one line each, without a prefix). */
void report_session__warnings(const struct report_session *s, FILE *out, const char *prefix);

/* What the renderings read (after finish). */
const struct report_stats *report_session__stats(const struct report_session *s);
const struct findings *report_session__findings(const struct report_session *s);
const char *report_session__generator(const struct report_session *s); /* "dltrace 0.1.0" */

#endif
