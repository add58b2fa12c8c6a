/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One report: the accumulators, fed by event streams (live, while a trace
 * is written, or read back from trace files), then the derived figures,
 * the findings and the renderers.
 *
 *   report_session__new
 *   per trace: report_session__begin_trace -> consumer gets the events
 *              -> report_session__end_trace
 *          or: report_session__read_file (does all three)
 *   report_session__finish (figures, findings), then print/json/html
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
#include "format/trace_status.h"

#define REPORT_DEFAULT_TOP 100

struct report_session;

struct report_session *report_session__new(void);
void report_session__free(struct report_session *s);

/* Report time 0 = this wall-clock time (else the first trace's start). */
void report_session__set_origin(struct report_session *s, int64_t wall_ns);
/* The events of a new trace go to the consumer returned; file names the trace. NULL: no memory. */
struct event_consumer *report_session__begin_trace(struct report_session *s, const char *file);
/* The trace's end: st says how it was read (NULL: a live stream, complete). */
void report_session__end_trace(struct report_session *s, const struct trace_read_status *st);
/* A whole trace file.  -1 with a one-line reason in err. */
int report_session__read_file(struct report_session *s, const char *path, char *err,
			      size_t errlen);
/* The same, with a progress line (io/progress.h; NULL: none). */
struct progress;
int report_session__read_file_progress(struct report_session *s, const char *path,
				       struct progress *progress, char *err, size_t errlen);

/* A PyTorch profiler trace (--kineto) to join: expect it before the traces are read, */
/* add it after them.  -1 with a one-line reason in err. */
void report_session__expect_kineto(struct report_session *s);
int report_session__add_kineto(struct report_session *s, const char *path, char *err,
			       size_t errlen);

/* ram_bytes: the job's machine's memory (0: this machine's). */
void report_session__finish(struct report_session *s, uint64_t ram_bytes);

/* Warnings about the traces read (one line each, without a prefix). */
void report_session__warnings(const struct report_session *s, FILE *out, const char *prefix);

/* Renderers (after finish). */
void report_session__terminal(const struct report_session *s, FILE *out, unsigned top,
			      bool color);
void report_session__json(const struct report_session *s, FILE *out, unsigned top);
void report_session__html(const struct report_session *s, FILE *out, unsigned top);
/* The JSON as malloc'd text of *len bytes, NULL when out of memory. */
char *report_session__json_text(const struct report_session *s, size_t *len);

#endif
