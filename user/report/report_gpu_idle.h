/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The GPU's idle time against the job's data waits (`dltrace report` on a
 * trace merged with a PyTorch profiler trace, or with --kineto FILE):
 *
 *   step window   |<------------------- ProfilerStep#7 ------------------->|
 *   GPU (union)       [kernel]  [kernel]              [memcpy][kernel]
 *   idle          |==|        |=|       |=============|                |==|
 *   batch wait                        [--- fetch / pipe read ---]
 *   file reads                     [read a.bin]   [read b.bin]
 *   explained                           |=========|  (idle inside any wait)
 *
 * A step's idle time is its window minus the union of its device's busy
 * slices (kernels, copies, memsets on any stream); the part of it that
 * overlaps each kind of wait, and the part inside any of them (explained:
 * every idle ns counted once), come from sweeps over sorted, merged
 * intervals.  Steps are the profiler's ProfilerStep#N, else dltrace's step
 * markers.  Waits:
 *   batch   the training thread's (the step's thread) fetch regions, or
 *           without any, its reads of pipes and sockets (the DataLoader's);
 *   reads   reads of application files by any thread of the step's trace;
 *   misses  those of them that brought data into the page cache (cache layer);
 *   block   block requests from issue to completion (block layer).
 * Files: the idle time each file's reads overlap.  Memory: the intervals
 * (24 bytes each), up to GPU_WAITS_MAX waits; those beyond are counted.
 */
#ifndef REPORT_GPU_IDLE_H
#define REPORT_GPU_IDLE_H

#include <stdbool.h>
#include <stdint.h>

#include "report/report_stats.h"

struct finding_rule;
struct finding;

#define GPU_WAITS_MAX (1u << 24)

enum rs_gpu_wait { GW_FETCH, GW_PIPE, GW_READ, GW_MISS, GW_BLOCK, GW_KINDS };
/* what a step's idle time overlaps */
enum rs_gpu_overlap { GO_BATCH, GO_READS, GO_MISSES, GO_BLOCK, GO_KINDS };
extern const char *const rs_gpu_overlap_names[GO_KINDS]; /* "batch_wait", "file_read", ... */

struct rs_gpu_ival {
	uint64_t start, end;
};

/* A GPU: a device of a process (trace, pid), its busy slices. */
struct rs_gpu_dev {
	uint32_t trace, pid; /* trace NONE32: a --kineto trace joined to no process */
	int64_t device;	     /* the events' "device" (-1: not given) */
	struct rs_gpu_ival *busy;
	uint32_t nbusy, cap_busy;
	/* derived: over its steps */
	uint32_t steps;
	uint64_t window_ns, busy_ns, idle_ns, explained_ns, overlap_ns[GO_KINDS];
	uint8_t batch_from; /* GW_FETCH, GW_PIPE, or GW_KINDS: no training thread known */
};

struct rs_gpu_step {
	uint32_t trace, pid, tid;
	int64_t index; /* N of ProfilerStep#N, the marker's step (-1: none) */
	uint64_t start, end;
};

/* One step on one device. */
struct rs_gpu_row {
	uint32_t step, dev;
	uint64_t busy_ns, idle_ns, explained_ns, overlap_ns[GO_KINDS];
};

struct rs_gpu_file {
	uint32_t file;
	uint64_t idle_ns; /* idle time its reads overlap */
};

#define GPU_WARNINGS 4

/* A wait: 24 bytes. */
struct rs_gpu_wait_ival {
	uint64_t start, end;
	uint32_t who; /* thread (batch), file (reads, misses), NONE32 (block) */
	uint16_t trace;
	uint8_t kind; /* enum rs_gpu_wait */
};

struct rs_gpu {
	bool collect; /* a profiler trace is expected: keep the waits */
	struct rs_gpu_dev *devs;
	uint32_t ndevs, cap_devs;
	struct rs_gpu_step *steps;
	uint32_t nsteps, cap_steps;
	bool marker_steps; /* the steps are dltrace's markers (no ProfilerStep seen) */
	struct rs_gpu_wait_ival *waits;
	uint32_t nwaits, cap_waits;
	uint64_t waits_dropped;	  /* beyond GPU_WAITS_MAX */
	uint64_t profiler_events; /* spans of a profiler trace read */
	char warnings[GPU_WARNINGS][320];
	uint32_t nwarnings;
	/* derived */
	struct rs_gpu_row *rows;
	uint32_t nrows;
	struct rs_gpu_file *files; /* by idle_ns, largest first */
	uint32_t nfiles;
	bool cache_layer, block_layer;
};

/* ---- fed by report_events.c (a merged trace) ---- */

/* A profiler trace's span (its categories): taken here (true), not a thread's work. */
bool rs_gpu_span(struct report_stats *st, const struct event *ev);
/* The name of a track a merge added for a profiler trace: not a thread of the job. */
bool rs_gpu_track_name(const struct event *ev);
/* Keep the waits from here on (a merged trace that holds a profiler trace, or --kineto). */
void rs_gpu_expect(struct report_stats *st);
/* A wait of thread ti (file: its file, or NONE32) over [start, end) of report time. */
void rs_gpu_wait(struct report_stats *st, enum rs_gpu_wait kind, uint32_t ti, uint32_t file,
		 uint64_t start, uint64_t end);

/*
 * A profiler trace given apart (--kineto), read by the caller after the
 * traces: each of its events (times: ns since its base, as the trace has
 * them), then its end, which joins its steps and GPU work to the traces by
 * pid and wall clock (base_ns: its baseTimeNanoseconds) and frees it.
 */
struct rs_gpu_profile;
struct rs_gpu_profile_event {
	struct ev_str name, cat;
	bool complete; /* a slice ('X') */
	int64_t start, end;
	bool has_pid, has_tid; /* numeric ones */
	uint64_t pid, tid;
	const struct ev_arg *args; /* "device" */
	uint32_t nargs;
};
struct rs_gpu_profile *rs_gpu_profile__new(struct report_stats *st);
void rs_gpu_profile__add(struct rs_gpu_profile *p, const struct rs_gpu_profile_event *e);
void rs_gpu_profile__end(struct rs_gpu_profile *p, const char *path, int64_t base_ns,
			 uint64_t events);
/* Free it without joining it (the trace could not be read). */
void rs_gpu_profile__free(struct rs_gpu_profile *p);

/* ---- after the input ---- */

void rs_gpu_derive(struct report_stats *st);
void rs_gpu_free(struct report_stats *st);
/* The join's figures (NULL: no GPU work was seen). */
const struct rs_gpu *rs_gpu_of(const struct report_stats *st);
/*
 * The finding gpu_idle_on_data, its row's thresholds in r (report_findings.c's
 * table): fills f and returns true when it fires.
 */
bool rs_gpu_finding(const struct finding_rule *r, const struct report_stats *st,
		    struct finding *f);

/* "ProfilerStep#7" or "step 7" */
const char *rs_gpu_step_label(const struct rs_gpu *g, const struct rs_gpu_step *s, char *buf,
			      size_t size);

#endif
