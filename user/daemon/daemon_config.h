/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The daemon's configuration file: `key = value` lines, `#` comments.
 *
 *   job_cgroup = PATTERN    cgroup paths (below the cgroup v2 mount) that
 *                           are jobs; fnmatch(3) patterns, repeatable; the
 *                           job id is the number after the last "job_"
 *   log_dir = DIR           where traces go: DIR/YYYY/MM/DD/...
 *   layers = LIST           capture layers (as --layers)
 *   max_trace_mb = N        stop writing a job's trace past N MiB (0: no cap)
 *   retention_days = N      delete traces older than N days (0: keep)
 *   trace_format = F        none (the default: no trace, only the job's
 *                           summary, data calls counted in runs), json
 *                           (.json.gz) or pftrace (.pftrace.gz)
 *   gzip_level = N          1..9 (default: 1 for json, 5 for pftrace)
 *   ring_size_mb = N        kernel ring buffer, a power of two
 *   idle_detach_s = N       detach the probes N seconds after the last job
 *                           ends (-1: stay attached)
 *   socket = PATH           control socket (root only)
 *   metrics_listen = ADDR   HOST:PORT of the /metrics endpoint (OpenMetrics,
 *                           Prometheus); "off": none
 */
#ifndef DAEMON_CONFIG_H
#define DAEMON_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#define CONFIG_MAX_PATTERNS 16

/* trace_format = none: no trace file, only the job's summary. */
#define CONFIG_TRACE_NONE (-1)

/* python_stacks: Python stacks in the jobs' traces (dltrace --python-stacks) */
enum daemon_python {
	DAEMON_PYTHON_OFF,
	DAEMON_PYTHON_ON,   /* args.py */
	DAEMON_PYTHON_FULL, /* args.py and args.py_stack */
};

struct daemon_config {
	char patterns[CONFIG_MAX_PATTERNS][256];
	int npatterns;
	char log_dir[1024];
	unsigned layers;
	uint64_t max_trace_bytes;
	int retention_days;
	int trace_format; /* enum trace_format (format/trace_format.h), or CONFIG_TRACE_NONE */
	int gzip_level;	  /* 0: the format's default */
	uint64_t ring_bytes;
	int idle_detach_s;
	char socket[108];
	char metrics_listen[128]; /* "" when off */
	int python_stacks;	  /* enum daemon_python */
};

/* Where /metrics is served by default: loopback only. */
#define DEFAULT_METRICS_LISTEN "127.0.0.1:9477"

/* Defaults: Slurm's cgroup v2 layouts, /var/log/dltrace, all layers, ... */
void config_defaults(struct daemon_config *c);
/* Parse text (the file's contents); 0, or -1 with "line N: reason" in err. */
int config_parse(struct daemon_config *c, const char *text, size_t len, char *err, size_t errlen);
/* Read and parse a file; 0, or -1 with the reason in err. */
int config_load(struct daemon_config *c, const char *path, char *err, size_t errlen);
/*
 * Is `rel` (a cgroup path below the v2 mount, starting with '/') a job?
 * Returns 1 and the job id (the digits after the last "job_") in jobid.
 */
int config_job_of(const struct daemon_config *c, const char *rel, char *jobid, size_t size);

#endif
