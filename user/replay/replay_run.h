/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Issuing a plan's ops again, with the job's processes and threads.
 *
 *   dltrace replay (this process, "the supervisor": progress, Ctrl-C)
 *     `-- replay root (its own process group; the invoking user under sudo;
 *         |            starts the job's first processes at their times)
 *         `-- one process per traced process, forked by the replay thread of
 *             the thread that forked it, at that point of its ops;
 *             one thread per traced thread, likewise
 *
 * Each op's start, end and result go to memory shared by all of them
 * (struct rp_result, one per op), which is also how an op waits for
 * another (a futex on one counter, woken when an op others wait for ends).
 * With --trace OUT, dltrace traces the replay root and all it starts, and
 * the root starts only once the tracer is attached.
 */
#ifndef REPLAY_RUN_H
#define REPLAY_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "replay/replay_plan.h"

/* One op as replayed: end 0 when it never ran (stopped, or its thread never started). */
struct rp_result {
	uint64_t start, end; /* CLOCK_MONOTONIC ns */
	int64_t ret;	     /* the result, or -errno */
};

struct replay_run_options {
	bool no_think;
	bool progress;	       /* a progress line on standard error */
	const char *trace_out; /* --trace: trace the replay with dltrace into this file */
	const char *self;      /* this program (for the tracer) */
	bool drop_privileges;  /* root through sudo: replay as the invoking user */
};

struct replay_outcome {
	struct rp_result *res; /* plan->nops of them (owned: replay_outcome_free) */
	uint64_t t0;	       /* the replay's start */
	uint64_t ops_done;
	bool stopped;	       /* Ctrl-C, SIGTERM */
	uint32_t released;     /* waits given up because every thread was waiting (damage) */
	uint32_t spawn_failed; /* threads or processes that could not be started */
	uint32_t faults_bus;   /* touched pages past a file's end (SIGBUS) */
	int tracer_status;     /* --trace: dltrace's exit status (-1: not run) */
};

/* Replay p.  -1 with a one-line reason when it cannot start (then out holds nothing). */
int replay_run(const struct replay_plan *p, const struct replay_run_options *o,
	       struct replay_outcome *out, char *err, size_t errlen);
void replay_outcome_free(struct replay_outcome *out, const struct replay_plan *p);

#endif
