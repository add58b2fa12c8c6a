/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The three renderings of a report: terminal text, JSON, one HTML page. */
#ifndef REPORT_OUTPUT_H
#define REPORT_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "report/report_findings.h"
#include "report/report_stats.h"

struct report_view {
	const struct report_stats *st;
	const struct findings *fi;
	unsigned top;	       /* rows of each list (files, processes, ...) */
	bool color;	       /* terminal: ANSI colors */
	const char *generator; /* "dltrace 0.1.0" */
};

void report_terminal(FILE *out, const struct report_view *v);
void report_json(FILE *out, const struct report_view *v);
void report_html(FILE *out, const struct report_view *v);

/* The GPU idle section (report_gpu.c; nothing, or null, without a profiler trace). */
struct json_object;
void report_gpu_terminal(FILE *out, const struct report_stats *st, unsigned top, bool color);
struct json_object *report_gpu_json(const struct report_stats *st, unsigned top);
void report_gpu_html(FILE *out, const struct report_stats *st, unsigned top);

/* Sort keys shared by the renderings. */
double key_file_bytes(const struct report_stats *st, uint32_t i); /* application files */
/* application files by bytes their reads brought into the page cache (-1: none) */
double key_file_cache_miss(const struct report_stats *st, uint32_t i);
double key_dir_bytes(const struct report_stats *st, uint32_t i);
double key_mount_bytes(const struct report_stats *st, uint32_t i);
double key_proc_io(const struct report_stats *st, uint32_t i);
double key_thread_io(const struct report_stats *st, uint32_t i);
/* The 4 most common access sizes (reads and writes together, or one direction:
 * dir -1, 0 or 1); returns how many were found. */
int common_sizes(const struct report_stats *st, int dir, uint64_t size[4], uint64_t count[4]);
/*
 * The ranks of n processes as ranges ("ranks 0-3, 6, 1 unknown"); "" when
 * none has a rank.  Returns buf.
 */
char *rank_set(const struct report_stats *st, const uint32_t *procs, uint32_t n, char *buf,
	       size_t size);
/*
 * "rank 3 (pid 812)" when ranks (peers have ranks; "rank unknown (pid 812)"
 * for one without), else "pid 812".
 */
char *proc_who(const struct report_stats *st, uint32_t pi, bool ranks, char *buf, size_t size);

#endif
