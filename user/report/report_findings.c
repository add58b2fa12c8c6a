// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The rules of `dltrace report`: one table, finding_rules[], with a function
 * per rule in the file of what it looks at (report_findings_internal.h lists
 * them).  All figures are of application files (environment I/O excluded)
 * unless a rule says otherwise.
 *
 * Adding a finding: a function that fills the finding and returns true when
 * it fires (the thresholds of its row in r->share, r->high, r->min), and one
 * row (docs/developer-guide.md "Adding a finding").
 */
#define _GNU_SOURCE
#include "report/report_findings.h"

#include <stdio.h>
#include <string.h>

#include "report/report_findings_internal.h"

const char *finding_severity_name(enum finding_severity s)
{
	return s == SEVERITY_HIGH ? "high" : s == SEVERITY_WARN ? "warn" : "info";
}

/*
 * The rules, in the order the report lists findings of one severity.  Each
 * row: id, title, function; the severity it fires at and the thresholds
 * ({share}, {high}, {min} of the doc); what it reads; when it fires; the
 * Python calls behind it.
 */
const struct finding_rule finding_rules[] = {
    {"small_reads", "Many small reads", detect_small_reads, SEVERITY_WARN, 0.10, 0.50, 1000,
     UNIT_COUNT, "reads of application files and their sizes",
     "reads under 1 MiB are more than {share} of the reads and more than {min} (Drishti's "
     "thresholds); high above {high}",
     PYW_SMALL_READS, PY_BY_CALLS, "small reads"},
    {"small_writes", "Many small writes", detect_small_writes, SEVERITY_WARN, 0.10, 0.50, 1000,
     UNIT_COUNT, "writes of application files and their sizes",
     "writes under 1 MiB are more than {share} of the writes and more than {min} (Drishti's "
     "thresholds); high above {high}",
     PYW_SMALL_WRITES, PY_BY_CALLS, "small writes"},
    {"random_reads", "Random-access reads", detect_random_reads, SEVERITY_HIGH, 0.20, 0, 1000,
     UNIT_COUNT, "the offsets of the reads of each file, per process",
     "reads neither sequential nor the first of their file are more than {share} and more "
     "than {min} (Drishti)",
     PYW_RANDOM_READS, PY_BY_CALLS, "random reads"},
    {"random_writes", "Random-access writes", detect_random_writes, SEVERITY_HIGH, 0.20, 0, 1000,
     UNIT_COUNT, "the offsets of the writes of each file, per process",
     "writes neither sequential nor the first of their file are more than {share} and more "
     "than {min} (Drishti)",
     PYW_RANDOM_WRITES, PY_BY_CALLS, "random writes"},
    {"redundant_reads", "Redundant reads", detect_redundant_reads, SEVERITY_WARN, 0.10, 0.50, MIB,
     UNIT_BYTES, "the byte ranges read per open of a file and per process",
     "bytes re-read within one open plus bytes read by several processes at the same time are "
     "at least {share} of the bytes read and {min}; high from {high}",
     PYW_READS, PY_BY_BYTES, "bytes read"},
    {"metadata_heavy", "Metadata-heavy I/O", detect_metadata_heavy, SEVERITY_WARN, 0.10, 0.30, 1000,
     UNIT_COUNT, "metadata calls and the application's I/O time",
     "at least {min} metadata calls take at least {share} of the application's I/O time "
     "(Drishti); high from {high}",
     PYW_META, PY_BY_CALLS, "metadata calls"},
    {"many_small_files", "Many small files", detect_many_small_files, SEVERITY_WARN, 0.50, 0, 1000,
     UNIT_COUNT, "the files read and their sizes",
     "at least {min} files under 1 MiB read, and at least {share} of the files read", PYW_META,
     PY_BY_CALLS, "metadata calls"},
    {"reread_fits_in_ram", "Data re-read every epoch fits in RAM", detect_reread_fits_in_ram,
     SEVERITY_WARN, 0.05, 0, 0, UNIT_COUNT,
     "passes over each file, its read time, the RAM (--ram); page-cache misses (cache layer)",
     "files read 1.5 times or more hold half the data, the data fits in half the RAM (--ram), "
     "and reading them took {share} of the wall time",
     PYW_READS, PY_BY_BYTES, "bytes read"},
    {"imbalance", "I/O imbalance across workers or ranks", detect_imbalance, SEVERITY_WARN, 0.30, 0,
     MIB, UNIT_BYTES,
     "bytes and I/O time per process (peers: same parent and command) and per host",
     "peers (workers, ranks, hosts) more than {share} apart in bytes moved, a group of at least "
     "{min}",
     0, 0, NULL},
    {"sync_heavy", "Sync-heavy writes", detect_sync_heavy, SEVERITY_WARN, 0, 0.50, 50, UNIT_COUNT,
     "syncs, the bytes written, write and sync time",
     "at least {min} syncs with under 1 MiB written per sync; high when they take {high} of the "
     "write time",
     PYW_SYNCS, PY_BY_CALLS, "syncs"},
    {"checkpoint_stall", "Checkpoint writes stall the training thread", detect_checkpoint_stall,
     SEVERITY_WARN, 0.05, 0.20, 50e6, UNIT_NS, "the training thread's write bursts",
     "the training thread is blocked in write bursts for at least {share} of its time and "
     "{min}, and the bursts repeat (at least 2, other work between them); high from {high}",
     PYW_WRITES, PY_BY_BYTES, "bytes written"},
    {"failed_syscalls", "Storm of failed system calls", detect_failed_syscalls, SEVERITY_WARN, 0.10,
     0, 1000, UNIT_COUNT, "failed calls of all files with their errno, syscall and directory",
     "at least {min} failed calls that are {share} of all calls; info when mostly environment",
     PYW_FAILED, PY_BY_CALLS, "failed calls"},
    {"low_read_parallelism", "Too little read parallelism", detect_low_read_parallelism,
     SEVERITY_WARN, 0.90, 0, MIB, UNIT_BYTES, "bytes read, read time and lifetime per thread",
     "one thread reads {share} of the bytes (at least {min}) and spends 20% of its time "
     "reading while the job's other threads are idle",
     PYW_READS, PY_BY_TIME, "read time"},
    {"data_stall", "The training loop waits for its data", detect_data_stall, SEVERITY_WARN, 0.20,
     0.50, 50e6, UNIT_NS,
     "step and fetch regions (markers layer; without fetch regions, reads of pipes and sockets)",
     "a training loop waits for its batches at least {share} of its iterations' time, over 3 "
     "steps and {min}; high from {high}",
     PYW_READS, PY_BY_TIME, "read time"},
    {"gpu_idle_on_data", "The GPU waits for data", detect_gpu_idle_on_data, SEVERITY_WARN, 0.20,
     0.50, 3, UNIT_COUNT,
     "a PyTorch profiler trace's steps and GPU work (merged, or --kineto); fetch regions, pipe and "
     "socket reads, file reads; page-cache misses (cache layer), block requests (block layer)",
     "data waits (batch waits, file reads, page-cache misses, block I/O) overlap at least {share} "
     "of a GPU's idle time in steps, over at least {min} steps; high from {high}",
     PYW_READS, PY_BY_TIME, "read time"},
    {"read_amplification", "Reads that read far more than they asked for",
     detect_read_amplification, SEVERITY_WARN, 0, 0.50, MIB, UNIT_BYTES,
     "the bytes asked per HDF5 dataset and per file (hdf5, stdio or mpiio layer) and what the "
     "read syscalls of those calls read",
     "an HDF5 dataset's reads, or a file's stdio or MPI-IO reads, made read syscalls that "
     "read at least 2x the bytes asked and more than {min} beyond them; high when that excess "
     "is at least {high} of the application's bytes read",
     0, 0, NULL},
};

const int finding_rules_count = sizeof(finding_rules) / sizeof(finding_rules[0]);

_Static_assert(sizeof(finding_rules) / sizeof(finding_rules[0]) <= FINDINGS_MAX,
	       "every rule can fire: raise FINDINGS_MAX");

static int by_severity(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;

	return (int)y->severity - (int)x->severity;
}

void report_findings(const struct report_stats *st, const struct finding_options *opt,
		     struct findings *out)
{
	out->n = 0;
	for (int i = 0; i < finding_rules_count; i++) {
		const struct finding_rule *r = &finding_rules[i];
		struct finding *f = &out->items[out->n];

		memset(f, 0, sizeof(*f));
		f->id = r->id;
		f->title = r->title;
		f->severity = r->severity;
		if (!r->fire(r, st, opt, f))
			continue;
		python_behind(r, st, f);
		out->n++;
	}
	/* stable: by severity, then in rule order */
	for (int i = 1; i < out->n; i++) {
		struct finding tmp = out->items[i];
		int j = i;

		while (j > 0 && by_severity(&out->items[j - 1], &tmp) > 0) {
			out->items[j] = out->items[j - 1];
			j--;
		}
		out->items[j] = tmp;
	}
}

/* A threshold as the docs say it: "10%", "1000", "1 MiB", "50 ms". */
static const char *threshold(char *buf, size_t size, double v, enum finding_unit u, bool share)
{
	if (share)
		snprintf(buf, size, "%.0f%%", v * 100);
	else if (u == UNIT_BYTES && v >= MIB)
		snprintf(buf, size, "%.0f MiB", v / MIB);
	else if (u == UNIT_NS && v >= 1e6)
		snprintf(buf, size, "%.0f ms", v / 1e6);
	else
		snprintf(buf, size, "%.0f", v);
	return buf;
}

const char *finding_rule_doc(const struct finding_rule *r, char *buf, size_t size)
{
	static const char *const keys[] = {"{share}", "{high}", "{min}"};
	const char *p = r->doc;
	size_t n = 0;

	buf[0] = '\0';
	while (*p && n + 1 < size) {
		int k = -1;

		for (int i = 0; i < 3 && k < 0; i++)
			if (!strncmp(p, keys[i], strlen(keys[i])))
				k = i;
		if (k < 0) {
			buf[n++] = *p++;
			buf[n] = '\0';
			continue;
		}
		threshold(buf + n, size - n,
			  k == 0   ? r->share
			  : k == 1 ? r->high
				   : r->min,
			  r->min_unit, k < 2);
		n += strlen(buf + n);
		p += strlen(keys[k]);
	}
	return buf;
}

const char *finding_rule_severities(const struct finding_rule *r, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s", finding_severity_name(r->severity),
		 r->high > 0 && r->severity != SEVERITY_HIGH ? " or high" : "");
	return buf;
}
