/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The daemon's /metrics: per job and per node, in the OpenMetrics 1.0 text
 * format or the Prometheus text format 0.0.4 (the same families; they
 * differ in a counter's TYPE line and the closing "# EOF").
 *
 * Per job, labels job, cgroup, host (never a file or a pid: the label sets
 * stay bounded), from the job's live statistics (view/live_stats.h):
 *   dltrace_job_read_bytes_total{layer}      syscall, mmap, uring
 *   dltrace_job_written_bytes_total{layer}   syscall, uring
 *   dltrace_job_operations_total{op}         read, write, metadata, sync
 *   dltrace_job_io_seconds_total{class}      data, metadata, sync
 *   dltrace_job_io_latency_seconds{class}    histogram, fixed buckets
 *   dltrace_job_lost_events_total, dltrace_job_events_total
 *   dltrace_job_processes, dltrace_job_threads, dltrace_job_start_time_seconds
 * Per node (label host): dltrace_jobs_traced, dltrace_jobs_finished_total,
 * dltrace_events_total, dltrace_lost_events_total, dltrace_probes_attached;
 * and the daemon's own process_cpu_seconds_total,
 * process_resident_memory_bytes, process_start_time_seconds.
 */
#ifndef OPENMETRICS_H
#define OPENMETRICS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "view/live_stats.h"

struct metrics_job {
	const char *job, *cgroup;
	const struct live_stats *live;
	uint64_t lost;	   /* records of the job the kernel side dropped */
	double start_time; /* Unix time the job's tracing began */
};

struct metrics_node {
	const char *host;
	const struct metrics_job *jobs; /* being traced */
	uint32_t njobs;
	uint64_t jobs_finished;
	uint64_t events_done, lost_done; /* of the jobs that finished */
	bool probes_attached;
	double cpu_seconds; /* the daemon's user + system time */
	uint64_t rss_bytes;
	double start_time;
};

/* The content types of the two formats. */
#define OPENMETRICS_TYPE "application/openmetrics-text; version=1.0.0; charset=utf-8"
#define PROMETHEUS_TYPE	 "text/plain; version=0.0.4; charset=utf-8"

void metrics_write(FILE *out, const struct metrics_node *node, bool openmetrics);

/* Does an Accept header ask for OpenMetrics? */
bool metrics_wants_openmetrics(const char *accept);

#endif
