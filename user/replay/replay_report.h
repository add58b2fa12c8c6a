/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What `dltrace replay` says: the replayed I/O against the recorded, side
 * by side (per file, directory, process and syscall kind; wall time; the
 * data stall per step and epoch), and the difference as the saving that
 * the replay's file system would give; in three forms, like the report:
 * terminal, JSON, HTML.  And the plan alone, for --dry-run.
 */
#ifndef REPLAY_REPORT_H
#define REPLAY_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "replay/replay_plan.h"
#include "replay/replay_prepare.h"
#include "replay/replay_run.h"

struct replay_report_info {
	const char *trace;	     /* the trace replayed */
	const char *stage, *scratch; /* as used (NULL: none) */
	const struct replay_map_rule *rules;
	unsigned nrules;
	bool no_think, cold, warm;
	unsigned top; /* rows per table */
};

struct replay_report;

/* The comparison of a replay (outcome) with its plan.  NULL when out of memory. */
struct replay_report *replay_report__new(const struct replay_plan *p,
					 const struct replay_outcome *out,
					 const struct replay_prep *prep,
					 const struct replay_report_info *info);
void replay_report__free(struct replay_report *r);
void replay_report__terminal(const struct replay_report *r, FILE *f, bool color);
void replay_report__json(const struct replay_report *r, FILE *f);
void replay_report__html(const struct replay_report *r, FILE *f);

/* Warnings about the trace and the plan (lost events, calls not replayed), one line each. */
void replay_plan_warnings(const struct replay_plan *p, FILE *f, const char *prefix);

/* --dry-run: the plan (files, threads, calls, bytes, what would be staged). */
void replay_plan_print(const struct replay_plan *p, const struct replay_prep *prep,
		       const struct replay_report_info *info, FILE *f);
/* --dry-run --json: the same, with each thread's first info->top calls. */
void replay_plan_json(const struct replay_plan *p, const struct replay_prep *prep,
		      const struct replay_report_info *info, FILE *f);

#endif
