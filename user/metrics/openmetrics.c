// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "metrics/openmetrics.h"

#include <stdlib.h>
#include <string.h>

#include "lib/json_string.h"

enum kind { COUNTER, GAUGE, HISTOGRAM };

struct family {
	const char *name; /* counters: with _total */
	enum kind kind;
	const char *help;
};

static const char *class_names[LIVE_CLASSES] = {"data", "metadata", "sync"};

/* A label value: valid UTF-8 (U+FFFD for other bytes), '\\', '"' and newline escaped. */
static void put_value(FILE *out, const char *s)
{
	size_t len = strlen(s), i = 0;

	while (i < len) {
		size_t n = utf8_sequence_length((const unsigned char *)s + i, len - i);

		if (!n) {
			fputs("\xef\xbf\xbd", out);
			i++;
			continue;
		}
		if (s[i] == '\\')
			fputs("\\\\", out);
		else if (s[i] == '"')
			fputs("\\\"", out);
		else if (s[i] == '\n')
			fputs("\\n", out);
		else
			fwrite(s + i, 1, n, out);
		i += n;
	}
}

static void family_head(FILE *out, const struct family *f, bool om)
{
	size_t n = strlen(f->name);

	if (om && f->kind == COUNTER && n > 6 && !strcmp(f->name + n - 6, "_total"))
		n -= 6; /* OpenMetrics names the counter family without its suffix */
	fprintf(out, "# HELP %.*s %s\n", (int)n, f->name, f->help);
	fprintf(out, "# TYPE %.*s %s\n", (int)n, f->name,
		f->kind == COUNTER ? "counter"
		: f->kind == GAUGE ? "gauge"
				   : "histogram");
}

static void job_labels(FILE *out, const struct metrics_job *j, const char *host)
{
	fputs("job=\"", out);
	put_value(out, j->job);
	fputs("\",cgroup=\"", out);
	put_value(out, j->cgroup);
	fputs("\",host=\"", out);
	put_value(out, host);
	fputc('"', out);
}

/* name{job labels[,key="value"]} value */
static void job_sample(FILE *out, const char *name, const struct metrics_job *j, const char *host,
		       const char *key, const char *value, uint64_t v)
{
	fprintf(out, "%s{", name);
	job_labels(out, j, host);
	if (key)
		fprintf(out, ",%s=\"%s\"", key, value);
	fprintf(out, "} %llu\n", (unsigned long long)v);
}

/* Nanoseconds as seconds, exactly. */
static void put_seconds(FILE *out, uint64_t ns)
{
	fprintf(out, "%llu.%09llu", (unsigned long long)(ns / 1000000000ull),
		(unsigned long long)(ns % 1000000000ull));
}

static const struct family fam_read = {
    "dltrace_job_read_bytes_total", COUNTER,
    "Bytes the job read, by capture layer: syscall (read, pread64, readv, ..., sendfile), mmap "
    "(pages faulted in from mapped files), uring (io_uring reads)."};
static const struct family fam_written = {
    "dltrace_job_written_bytes_total", COUNTER,
    "Bytes the job wrote, by capture layer: syscall (write, pwrite64, writev, ..., sendfile), "
    "uring (io_uring writes)."};
static const struct family fam_ops = {
    "dltrace_job_operations_total", COUNTER,
    "File system calls of the job: read, write, metadata (open, stat, lseek, close, rename, "
    "...) and sync (fsync, fdatasync, sync_file_range)."};
static const struct family fam_io = {
    "dltrace_job_io_seconds_total", COUNTER,
    "Time the job's threads spent in file system calls, by class (summed over threads)."};
static const struct family fam_lat = {"dltrace_job_io_latency_seconds", HISTOGRAM,
				      "Latency of the job's file system calls, by class."};
static const struct family fam_lost = {
    "dltrace_job_lost_events_total", COUNTER,
    "Records of the job that the kernel side dropped (ring buffer full)."};
static const struct family fam_events = {"dltrace_job_events_total", COUNTER,
					 "Events of the job's trace so far."};
static const struct family fam_procs = {"dltrace_job_processes", GAUGE,
					"Processes of the job being traced now."};
static const struct family fam_threads = {"dltrace_job_threads", GAUGE,
					  "Threads of the job being traced now."};
static const struct family fam_start = {"dltrace_job_start_time_seconds", GAUGE,
					"Unix time the job's tracing began."};

static void job_families(FILE *out, const struct metrics_node *n, bool om)
{
	struct live_totals t[n->njobs ? n->njobs : 1];

	for (uint32_t i = 0; i < n->njobs; i++)
		live_stats__totals(n->jobs[i].live, &t[i]);

	family_head(out, &fam_read, om);
	for (uint32_t i = 0; i < n->njobs; i++) {
		job_sample(out, fam_read.name, &n->jobs[i], n->host, "layer", "syscall",
			   t[i].total->rd_bytes);
		job_sample(out, fam_read.name, &n->jobs[i], n->host, "layer", "mmap",
			   t[i].layers->fault_bytes);
		job_sample(out, fam_read.name, &n->jobs[i], n->host, "layer", "uring",
			   t[i].layers->uring_rd_bytes);
	}
	family_head(out, &fam_written, om);
	for (uint32_t i = 0; i < n->njobs; i++) {
		job_sample(out, fam_written.name, &n->jobs[i], n->host, "layer", "syscall",
			   t[i].total->wr_bytes);
		job_sample(out, fam_written.name, &n->jobs[i], n->host, "layer", "uring",
			   t[i].layers->uring_wr_bytes);
	}
	family_head(out, &fam_ops, om);
	for (uint32_t i = 0; i < n->njobs; i++) {
		job_sample(out, fam_ops.name, &n->jobs[i], n->host, "op", "read",
			   t[i].total->rd_ops);
		job_sample(out, fam_ops.name, &n->jobs[i], n->host, "op", "write",
			   t[i].total->wr_ops);
		job_sample(out, fam_ops.name, &n->jobs[i], n->host, "op", "metadata",
			   t[i].total->meta_ops);
		job_sample(out, fam_ops.name, &n->jobs[i], n->host, "op", "sync",
			   t[i].total->sync_ops);
	}
	family_head(out, &fam_io, om);
	for (uint32_t i = 0; i < n->njobs; i++) {
		for (int c = 0; c < LIVE_CLASSES; c++) {
			fprintf(out, "%s{", fam_io.name);
			job_labels(out, &n->jobs[i], n->host);
			fprintf(out, ",class=\"%s\"} ", class_names[c]);
			put_seconds(out, t[i].class_ns[c]);
			fputc('\n', out);
		}
	}
	family_head(out, &fam_lat, om);
	for (uint32_t i = 0; i < n->njobs; i++) {
		for (int c = 0; c < LIVE_CLASSES; c++) {
			uint64_t cum = 0;

			for (int b = 0; b <= LIVE_METRIC_BUCKETS; b++) {
				cum += t[i].class_lat[c][b];
				fprintf(out, "%s_bucket{", fam_lat.name);
				job_labels(out, &n->jobs[i], n->host);
				if (b < LIVE_METRIC_BUCKETS)
					fprintf(out, ",class=\"%s\",le=\"%g\"} %llu\n",
						class_names[c], live_metric_bounds_ns[b] / 1e9,
						(unsigned long long)cum);
				else
					fprintf(out, ",class=\"%s\",le=\"+Inf\"} %llu\n",
						class_names[c], (unsigned long long)cum);
			}
			fprintf(out, "%s_sum{", fam_lat.name);
			job_labels(out, &n->jobs[i], n->host);
			fprintf(out, ",class=\"%s\"} ", class_names[c]);
			put_seconds(out, t[i].class_ns[c]);
			fprintf(out, "\n%s_count{", fam_lat.name);
			job_labels(out, &n->jobs[i], n->host);
			fprintf(out, ",class=\"%s\"} %llu\n", class_names[c],
				(unsigned long long)t[i].class_ops[c]);
		}
	}
	family_head(out, &fam_lost, om);
	for (uint32_t i = 0; i < n->njobs; i++)
		job_sample(out, fam_lost.name, &n->jobs[i], n->host, NULL, NULL, n->jobs[i].lost);
	family_head(out, &fam_events, om);
	for (uint32_t i = 0; i < n->njobs; i++)
		job_sample(out, fam_events.name, &n->jobs[i], n->host, NULL, NULL, t[i].events);
	family_head(out, &fam_procs, om);
	for (uint32_t i = 0; i < n->njobs; i++)
		job_sample(out, fam_procs.name, &n->jobs[i], n->host, NULL, NULL, t[i].processes);
	family_head(out, &fam_threads, om);
	for (uint32_t i = 0; i < n->njobs; i++)
		job_sample(out, fam_threads.name, &n->jobs[i], n->host, NULL, NULL, t[i].threads);
	family_head(out, &fam_start, om);
	for (uint32_t i = 0; i < n->njobs; i++) {
		fprintf(out, "%s{", fam_start.name);
		job_labels(out, &n->jobs[i], n->host);
		fprintf(out, "} %.3f\n", n->jobs[i].start_time);
	}
}

static void node_sample(FILE *out, const struct family *f, const char *host, const char *value)
{
	fprintf(out, "%s{host=\"", f->name);
	put_value(out, host);
	fprintf(out, "\"} %s\n", value);
}

void metrics_write(FILE *out, const struct metrics_node *n, bool om)
{
	static const struct family traced = {"dltrace_jobs_traced", GAUGE,
					     "Jobs being traced on this node now."};
	static const struct family finished = {
	    "dltrace_jobs_finished_total", COUNTER,
	    "Jobs whose tracing finished since the daemon started."};
	static const struct family events = {
	    "dltrace_events_total", COUNTER,
	    "Events of every job's trace since the daemon started (rate(): events/s)."};
	static const struct family lost = {
	    "dltrace_lost_events_total", COUNTER,
	    "Records of every job that the kernel side dropped since the daemon started."};
	static const struct family attached = {
	    "dltrace_probes_attached", GAUGE,
	    "1 while the tracing probes are attached (they are detached when no job runs)."};
	static const struct family cpu = {"process_cpu_seconds_total", COUNTER,
					  "User and system CPU time of the daemon."};
	static const struct family rss = {"process_resident_memory_bytes", GAUGE,
					  "Resident memory of the daemon."};
	static const struct family start = {"process_start_time_seconds", GAUGE,
					    "Unix time the daemon started."};
	uint64_t ev = n->events_done, lo = n->lost_done;
	char v[64];

	job_families(out, n, om);
	for (uint32_t i = 0; i < n->njobs; i++) {
		struct live_totals t;

		live_stats__totals(n->jobs[i].live, &t);
		ev += t.events;
		lo += n->jobs[i].lost;
	}
	family_head(out, &traced, om);
	snprintf(v, sizeof(v), "%u", n->njobs);
	node_sample(out, &traced, n->host, v);
	family_head(out, &finished, om);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)n->jobs_finished);
	node_sample(out, &finished, n->host, v);
	family_head(out, &events, om);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)ev);
	node_sample(out, &events, n->host, v);
	family_head(out, &lost, om);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)lo);
	node_sample(out, &lost, n->host, v);
	family_head(out, &attached, om);
	node_sample(out, &attached, n->host, n->probes_attached ? "1" : "0");
	family_head(out, &cpu, om);
	fprintf(out, "%s %.3f\n", cpu.name, n->cpu_seconds);
	family_head(out, &rss, om);
	fprintf(out, "%s %llu\n", rss.name, (unsigned long long)n->rss_bytes);
	family_head(out, &start, om);
	fprintf(out, "%s %.3f\n", start.name, n->start_time);
	if (om)
		fputs("# EOF\n", out);
}

bool metrics_wants_openmetrics(const char *accept)
{
	return accept && strstr(accept, "application/openmetrics-text");
}
