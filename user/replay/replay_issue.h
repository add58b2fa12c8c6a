/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* One recorded call issued again (replay_issue.c); used by the replay's threads. */
#ifndef REPLAY_ISSUE_H
#define REPLAY_ISSUE_H

#include <stddef.h>
#include <stdint.h>

#include "replay/replay_plan.h"

/* rp_issue's result for a call it could not issue (no such syscall here, no mapping) */
#define RP_NOT_ISSUED (-((int64_t)1 << 40))

/* What a replay thread issues calls with (its process's tables, its own buffer). */
struct rp_issue_ctx {
	int *fds; /* recorded descriptor -> the replay's (-1: none); the process's */
	uint32_t nfds;
	uint8_t **maps; /* mapping slot -> where the replay mapped it; the process's */
	int fd_base;	/* dup2/dup3 targets the replay has no descriptor for: fd_base + fd */
	void *buf;	/* the thread's read buffer */
	size_t buf_size;
	const void *zero; /* what writes write (zeros) */
	size_t zero_size;
	uint32_t faults_bus; /* touches past a file's end (SIGBUS) */
};

/* In each replay process: catch SIGBUS of a touched page past a file's end. */
void rp_issue_init_process(void);

/* Issue o; its result or -errno, RP_NOT_ISSUED when it could not be issued. */
int64_t rp_issue(const struct replay_plan *p, const struct rp_op *o, struct rp_issue_ctx *c);

#endif
