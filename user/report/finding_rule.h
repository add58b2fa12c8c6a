/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What one rule of the findings is given and fills: its row (struct
 * finding_rule) and a finding.  Apart from the table (report_findings.h)
 * so that a rule whose function lives beside the figures it reads
 * (report_gpu_idle.c) uses these without the table that calls it.
 */
#ifndef FINDING_RULE_H
#define FINDING_RULE_H

#include <stdbool.h>
#include <stdint.h>

#include "report/report_stats.h"

/* How much a finding matters ("level" in the report's JSON). */
enum finding_severity {
	SEVERITY_INFO,
	SEVERITY_WARN,
	SEVERITY_HIGH,
};

#define FINDING_EVIDENCE 9
#define FINDING_METRICS	 12
#define FINDING_LINE	 600
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
	enum finding_severity severity;
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

struct finding_options {
	uint64_t ram_bytes; /* memory of the machine the job ran on */
	int ram_from_option;
};

/* How the Python locations behind a finding are ranked. */
enum py_rank { PY_BY_CALLS, PY_BY_BYTES, PY_BY_TIME };

/* What a rule's min counts, for its doc. */
enum finding_unit { UNIT_COUNT, UNIT_BYTES, UNIT_NS };

/*
 * One rule.  The thresholds that decide whether it fires and how severe it
 * is are in the row, named by its doc, where {share}, {high} and {min}
 * stand for them; a rule's other constants sit beside its function.
 */
struct finding_rule {
	const char *id;	   /* the finding's id in the report */
	const char *title; /* its headline */
	/*
	 * Fill f (id, title and severity set from the row) and return true when
	 * the rule fires; f is cleared again when it does not.
	 */
	bool (*fire)(const struct finding_rule *r, const struct report_stats *st,
		     const struct finding_options *opt, struct finding *f);
	enum finding_severity severity; /* when it fires, below high */
	double share;			/* fires above this share (0: no share) */
	double high;			/* severity high from this share (0: never) */
	double min;			/* and needs at least this many (0: no minimum) */
	enum finding_unit min_unit;
	const char *needs; /* the figures it reads */
	const char *doc;   /* when it fires, one line */
	/* the Python locations behind it (--python-stacks): which calls, ranked how */
	enum rs_py_what py_what;
	enum py_rank py_rank;
	const char *py_label;
};

#endif
