/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Findings: rules over the report's figures.  Each has a severity, the
 * rule with its threshold, the evidence (numbers, top files and processes)
 * and a concrete recommendation.  The rules are one table
 * (finding_rules[], report_findings.c): `dltrace report --list-findings`
 * prints it, and docs/report.md "Findings" and the man page list it.
 */
#ifndef REPORT_FINDINGS_H
#define REPORT_FINDINGS_H

#include <stddef.h>

#include "report/finding_rule.h"

/* A rule fires at most once, and the build checks that every rule has room. */
#define FINDINGS_MAX 32

struct findings {
	struct finding items[FINDINGS_MAX];
	int n;
};

extern const struct finding_rule finding_rules[];
extern const int finding_rules_count;

/* Evaluate every rule; fills out, highest severity first, then in the table's order. */
void report_findings(const struct report_stats *st, const struct finding_options *opt,
		     struct findings *out);
const char *finding_severity_name(enum finding_severity s);
/* A rule's doc with its thresholds in place of {share}, {high} and {min}. */
const char *finding_rule_doc(const struct finding_rule *r, char *buf, size_t size);
/* "warn", "warn or high", "high": what the rule can give. */
const char *finding_rule_severities(const struct finding_rule *r, char *buf, size_t size);

#endif
