/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Findings: rules over the report's figures.  Each has a level, the rule
 * with its threshold, the evidence (numbers, top files and processes) and a
 * concrete recommendation.  The rules and thresholds are listed in
 * report_findings.c and in docs/report.md "Findings".
 */
#ifndef REPORT_FINDINGS_H
#define REPORT_FINDINGS_H

#include <stdint.h>

#include "report/report_stats.h"

enum finding_level {
	LEVEL_INFO,
	LEVEL_WARN,
	LEVEL_HIGH,
};

#define FINDING_EVIDENCE 9
#define FINDING_METRICS	 12
#define FINDING_LINE	 600
#define FINDINGS_MAX	 16
#define FINDING_PY	 3

/* A Python location behind a finding (--python-stacks): what it did that the finding is about. */
struct finding_py {
	const char *location; /* "FILE:LINE FUNCTION", the report's string */
	uint64_t calls, bytes, io_ns;
};

struct finding_metric {
	const char *key;
	double value;
};

struct finding {
	const char *id;
	enum finding_level level;
	const char *title;
	char rule[FINDING_LINE];
	char evidence[FINDING_EVIDENCE][FINDING_LINE];
	int nevidence;
	struct finding_metric metrics[FINDING_METRICS];
	int nmetrics;
	char recommendation[2 * FINDING_LINE];
	struct finding_py py[FINDING_PY]; /* top Python locations behind it, by py_rank */
	int npy;
	const char *py_what; /* what they are counted by ("small reads", ...) */
};

struct findings {
	struct finding items[FINDINGS_MAX];
	int n;
};

struct finding_options {
	uint64_t ram_bytes; /* memory of the machine the job ran on */
	int ram_from_option;
};

/* Evaluate every rule; fills out, highest level first. */
void report_findings(const struct report_stats *st, const struct finding_options *opt,
		     struct findings *out);
const char *finding_level_name(enum finding_level l);

#endif
