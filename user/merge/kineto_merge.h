/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A PyTorch profiler (Kineto) trace merged onto dltrace's timeline
 * (`dltrace merge TRACE KINETO.json`, docs/profiler.md).  The trace is read
 * twice (format/kineto/kineto_reader.h): first for its wall-clock base, its
 * processes, devices and times, then to place every event:
 *
 *   profiler trace                         merged trace
 *   ts (us since baseTimeNanoseconds)  ->  baseTimeNanoseconds + ts * 1000 - the merged start
 *   CPU op, pid P tid T                ->  the ids P and T got in the dltrace trace that has
 *                                          process P (joined), or fresh ones (its own group)
 *   kernel, memcpy: pid D (a device),  ->  a thread "GPU D stream S" of the process P
 *     tid S (a stream)                     (tids from EV_GPU_TRACK_BASE up)
 *   pid "Spans", "Traces", ""          ->  a thread "PyTorch profiler" of P, the ids in
 *                                          args kineto_pid and kineto_tid
 *   s, f (ac2g, fwdbwd) with id N      ->  flow 1 << 63 | input << 52 | kind << 44 | N
 *   M process_name, thread_name, ...   ->  names of the tracks it adds (counted as names)
 *   X, i, I, B, E, C                   ->  EV_SPAN of the same phase, name, category, args
 *   anything else                      ->  not placed, counted by category
 *
 * Joined: P, the process with most of the trace's CPU events, is a process
 * of the dltrace trace merged just before, and the profiler's events
 * overlap that trace's time.  Otherwise (another host or boot) the trace
 * is merged as its own process group, named "PyTorch profiler <rank N or
 * file>: <name> (pid P)", and the caller warns with why_alone().
 */
#ifndef KINETO_MERGE_H
#define KINETO_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "merge/event_merge.h"

struct kineto_input;

/* A profiler trace given as the index-th one.  NULL: out of memory. */
struct kineto_input *kineto_input__new(const char *path, uint32_t index);
void kineto_input__free(struct kineto_input *k);
/* The first reading.  -1 with a one-line reason in err. */
int kineto_input__scan(struct kineto_input *k, char *err, size_t errlen);
/* The wall clock (ns) of its earliest event (INT64_MAX: none), and of its latest end (INT64_MIN).
 */
int64_t kineto_input__first_wall(const struct kineto_input *k);
int64_t kineto_input__last_wall(const struct kineto_input *k);
bool kineto_input__placed(const struct kineto_input *k);

/*
 * After a dltrace trace's events went through m: does the profiler trace
 * belong to it (its times: start_wall_ns to end_wall_ns)?  When it does
 * not, why is noted for why_alone().
 */
bool kineto_input__joins(struct kineto_input *k, const struct event_merge *m,
			 const char *trace_file, int64_t start_wall_ns, int64_t end_wall_ns);
/*
 * Place its events through m's writer, on a timeline whose 0 is
 * origin_wall_ns: joined to the trace m merged last (its ids), or as its
 * own group (m starts a new set of ids).  -1 with a one-line reason.
 */
int kineto_input__place(struct kineto_input *k, struct event_merge *m, int64_t origin_wall_ns,
			bool joined, char *err, size_t errlen);
/* Why it was merged as its own group (one line, no prefix). */
const char *kineto_input__why_alone(const struct kineto_input *k);
/* The one-line warning of what it could not place ("" when it placed everything). */
void kineto_input__unplaced_warning(const struct kineto_input *k, char *out, size_t size);

/*
 * Its record in the merged trace, an event of no dltrace kind (JSON text):
 *   {"name":"kineto_input","ph":"M","pid":0,"tid":0,"args":{"file":..,
 *    "base_time_ns":..,"rank":..,"placement":"joined"|"own group","trace":..,
 *    "pid":..,"why":..,"first_wall_ns":..,"last_wall_ns":..,"events":..,
 *    "placed":..,"names":..,"unplaced":..}}
 * Returns its length; out holds kineto_input__line_max() bytes.
 */
size_t kineto_input__line_max(const struct kineto_input *k);
size_t kineto_input__line(const struct kineto_input *k, char *out);

/*
 * The merged summary's keys for all profiler traces (ev_trace_end.extra):
 * kineto_events (elements of their traceEvents), kineto_placed,
 * kineto_names (metadata events that named tracks), kineto_unplaced and
 * one "kineto_unplaced.<category>" per category of what was not placed,
 * kineto_args_dropped (args beyond what an event holds) when any.
 * Returns how many were written to args (at most max); their keys are made
 * in scratch (size bytes: the categories that do not fit are added to
 * "kineto_unplaced.(other)").
 */
uint32_t kineto_summary_args(struct kineto_input *const *k, uint32_t n, struct ev_arg *args,
			     uint32_t max, char *scratch, size_t size);

#endif
