/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Before a replay: the files it needs are where the plan says (else it
 * refuses, naming the first missing one), the staged copies are made (when
 * there is room for them), the scratch directory holds what the job found
 * of the files it changed, and the cache is as asked (--cold, --warm).
 * After it: the scratch directory is removed.
 */
#ifndef REPLAY_PREPARE_H
#define REPLAY_PREPARE_H

#include <stdbool.h>
#include <stdint.h>

#include "replay/replay_plan.h"

struct replay_prepare_options {
	const char *stage, *scratch;
	bool cold, warm;
	bool dry_run; /* check and count, change nothing */
};

/* A file shorter than the trace's reads of it. */
struct rp_short_file {
	uint32_t file;
	uint64_t size, read_end;
};

struct replay_prep {
	uint64_t stage_files, stage_bytes;     /* what --stage copies (or would) */
	uint64_t stage_reused;		       /* files already there from an earlier run */
	uint64_t stage_free;		       /* free bytes where they go */
	uint64_t scratch_files, scratch_bytes; /* changed files copied into the scratch */
	uint64_t scratch_empty;		       /* changed files no longer found: made empty */
	uint64_t read_files, read_bytes;       /* the files the replay reads, their sizes */
	uint64_t cold_files, warm_bytes;
	struct rp_short_file *shorts;
	uint32_t nshorts;
	bool scratch_made; /* the scratch directory is the replay's: removed afterwards */
};

/* Set (from a signal handler) to stop preparing: replay_prepare fails, saying so. */
extern volatile int replay_prepare_stop;

/* -1 with a one-line reason (a missing file, no room to stage, a step that failed). */
int replay_prepare(const struct replay_plan *p, const struct replay_prepare_options *o,
		   struct replay_prep *out, char *err, size_t errlen);
/* Remove the scratch directory (when the replay made it).  -1 with a reason. */
int replay_cleanup(const struct replay_prepare_options *o, struct replay_prep *prep, char *err,
		   size_t errlen);
void replay_prep_free(struct replay_prep *prep);

#endif
