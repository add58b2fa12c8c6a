/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The traced processes and threads as user space knows them: names (from
 * the exec'd command line), descriptor tables, and which are still alive,
 * so that tracing can stop when the whole tree has exited.
 */
#ifndef PROCESS_TABLE_H
#define PROCESS_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "bpf/dltrace_events.h"
#include "decode/fd_table.h"
#include "lib/id_map.h"

struct process {
	uint32_t pid;
	uint32_t out_pid; /* pid in the trace: pid, or an alias when pid was reused */
	uint32_t ppid;
	uint32_t job; /* job slot */
	bool live;
	bool exec_seen; /* cmdline comes from an exec we saw */
	char comm[16];
	char *cmdline; /* argv joined with spaces; NULL until known */
	struct fd_table *fds;
	uint32_t threads; /* live threads */
	int exit_code;	  /* wait status, when exited */
	/*
	 * Its ranks (enum dl_rank_var; -1: not set): from its exec's
	 * environment, or /proc/PID/environ for a process there before the
	 * trace; a forked child keeps its parent's.  ranks_read: looked.
	 */
	int32_t ranks[DL_RANK_COUNT];
	bool ranks_read;
};

struct thread {
	uint32_t tid;
	uint32_t pid;
	bool live;
	char comm[16];
};

struct process_table {
	struct id_map procs;   /* pid -> struct process */
	struct id_map threads; /* tid -> struct thread */
	struct id_map seen;    /* pid -> processes with that pid so far (a count) */
	uint32_t live_procs;
	uint32_t aliased; /* processes given an alias pid */
};

void process_table_init(struct process_table *pt);
void process_table_free(struct process_table *pt);

struct process *proc_find(struct process_table *pt, uint32_t pid);
/* Find or create (live) a process; a new one gets an empty fd table. */
struct process *proc_ensure(struct process_table *pt, uint32_t pid);
struct thread *thread_find(struct process_table *pt, uint32_t tid);
struct thread *thread_ensure(struct process_table *pt, uint32_t tid, uint32_t pid);

void proc_set_cmdline(struct process *p, const char *argv, size_t len);
/* The ranks in an environment block (NAME=VALUE strings, NUL separated). */
void proc_ranks_from_env(struct process *p, const char *env, size_t len);
/*
 * The rank to show (RANK, else SLURM_PROCID, OMPI_COMM_WORLD_RANK,
 * PMI_RANK) and the variable it came from; -1 when none is set.
 */
int32_t proc_rank(const struct process *p, const char **from);
void proc_mark_exited(struct process_table *pt, struct process *p, int status);
/* The pid and tid to write for a real pid/tid (aliases for reused pids). */
void proc_trace_ids(struct process_table *pt, uint32_t *pid, uint32_t *tid);
/* Forget a dead process (after its names were written). */
void proc_forget(struct process_table *pt, uint32_t pid);

#endif
