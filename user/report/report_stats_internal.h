/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the files that accumulate the report's figures share; the outputs
 * use report_stats.h only.
 *
 *   report_intern.c    growing arrays and interned strings (a leaf)
 *   report_tables.c    the tables: traces, processes, threads, files,
 *                      (process, file) pairs, directories, mounts
 *   report_access.c    Darshan's counters of each access to an application
 *                      file: reads and writes, sequential and consecutive,
 *                      sizes, open-file sessions and the bytes read again
 *   report_timeline.c  the timeline of application bytes and write bursts
 *   report_events.c    the event dispatch: rs_event and one handler per kind
 *   report_levels.c, report_python.c, report_phases.c  (below)
 *
 * Each keeps its state in struct report_stats, with its own init and free
 * (levels: only a free), which rs_init and rs_free call (report_session.c),
 * not each other.
 */
#ifndef REPORT_STATS_INTERNAL_H
#define REPORT_STATS_INTERNAL_H

#include "report/report_intern.h"
#include "report/report_stats.h"

/* ---- report_tables.c ---- */

void rs_tables_init(struct report_stats *st);
void rs_tables_free(struct report_stats *st);

/*
 * The index of a process, thread, directory, file or (process, file) pair,
 * added when new (now: report time of its first event); NONE32 when out of
 * memory.  Processes and threads are per trace (st->cur).
 */
uint32_t rs_proc_get(struct report_stats *st, uint32_t pid, uint64_t now);
uint32_t rs_thread_get(struct report_stats *st, uint32_t pid, uint32_t tid, uint64_t now);
/* the directory of path (its name up to the last slash) */
uint32_t rs_dir_get(struct report_stats *st, const char *path, uint32_t len, uint8_t scope);
uint32_t rs_file_get(struct report_stats *st, const struct ev_str *path, uint8_t scope, uint8_t env,
		     uint64_t now);
uint32_t rs_pair_get(struct report_stats *st, uint32_t proc, uint32_t file);
/* The mount (device and file system) of f, from an open that identified the file. */
void rs_mount_set(struct report_stats *st, struct rs_file *f, const struct ev_syscall *s);

/* ---- report_events.c ---- */

void rs_events_init(struct report_stats *st);
void rs_events_free(struct report_stats *st);

/* ---- report_access.c ---- */

/* One read or write of an application file (pair NONE32: no per-process state). */
struct rs_access {
	uint32_t ti, file, pair;
	bool has_offset;
	int64_t offset;
	uint64_t bytes, start, end;
	uint8_t origin; /* ORG_* */
	bool async;	/* a request the thread did not wait for: no time of the thread's */
	/*
	 * A run (ev_syscall.calls): calls accesses of bytes each, at offset +
	 * i * stride, that took dur in all (end: the last one's end); 0: one.
	 */
	uint32_t calls;
	uint64_t stride, dur;
};

void rs_app_read(struct report_stats *st, const struct rs_access *a);
void rs_app_write(struct report_stats *st, const struct rs_access *a);

/* ---- report_timeline.c ---- */

void rs_timeline_init(struct report_stats *st);

/* Spread bytes over [start, end) of report time into bins (tl_read, tl_write, tl_meta). */
void rs_timeline_add(struct report_stats *st, uint64_t *bins, uint64_t start, uint64_t end,
		     uint64_t bytes);
/* A write (or sync, or a call around them) of thread ti: extends or starts its burst. */
void rs_burst_add(struct report_stats *st, uint32_t ti, uint32_t file, uint64_t start, uint64_t end,
		  uint64_t bytes);
/* End thread ti's burst, if any; kept when it moved at least BURST_MIN. */
void rs_burst_close(struct report_stats *st, uint32_t ti);

/* ---- report_levels.c ---- */

/* A library call (an EV_SPAN of category stdio, hdf5 or mpiio); start: report time. */
void rs_level_span(struct report_stats *st, uint32_t ti, const struct event *ev, uint64_t start);
/* The level of a span category (DL_LAYER_SYSCALL: none of the library levels). */
int rs_level_of(const struct ev_str *cat);
void rs_levels_free(struct report_stats *st);
void rs_levels_init(struct report_stats *st);
/* Process proc opened the library at path (environment): note libhdf5 and libmpi. */
void rs_level_library(struct report_stats *st, uint32_t proc, const struct ev_str *path);

/* ---- report_python.c ---- */

void rs_python_init(struct report_stats *st);
/* A syscall event with a Python location. */
uint32_t rs_python_syscall(struct report_stats *st, const struct ev_syscall *s, bool failed,
			   uint64_t moved, bool reads, bool writes);
/* Count what the syscall being counted did at its location (st->python.cur), if any. */
static inline void rs_python_what(struct report_stats *st, enum rs_py_what w, uint64_t bytes,
				  uint64_t ns)
{
	struct rs_py_count *c;

	if (st->python.cur == NONE32)
		return;
	c = &st->python.locs[st->python.cur].what[w];
	c->calls++;
	c->bytes += bytes;
	c->ns += ns;
}
void rs_python_free(struct report_stats *st);

/* ---- report_phases.c ---- */

/* A call of the job (application I/O, a pipe or socket read, a library call). */
void rs_phase_call(struct report_stats *st, const struct rs_item *it);
/* A marker event (region, instant, counter) of thread ti; start: report time. */
void rs_phase_marker(struct report_stats *st, uint32_t ti, const struct event *ev, uint64_t start);
/* The end of the input: the calls still waiting go to their phases. */
void rs_phases_finish(struct report_stats *st);
void rs_phases_init(struct report_stats *st);
void rs_phases_free(struct report_stats *st);

#endif
