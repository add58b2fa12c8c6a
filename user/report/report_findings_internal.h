/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the files of the findings share; callers use report_findings.h only.
 *
 *   report_findings.c    the table of rules (finding_rules[]), which calls the
 *                        rules below, report_findings() and each rule's doc
 *   findings_access.c    the rules on how the application uses its files:
 *                        small and random requests, bytes read again,
 *                        metadata calls, many small files, data re-read that
 *                        fits in RAM, failed calls
 *   findings_time.c      the rules on who waits and who works: imbalance,
 *                        syncs, checkpoint stalls, read parallelism, data
 *                        stalls, the GPU's idle time
 *   findings_levels.c    the levels above the system calls: read
 *                        amplification, the Python lines behind a finding
 *   findings_evidence.c  what every rule writes a finding with (a leaf)
 *
 * The rule files call findings_evidence.c and not report_findings.c.
 */
#ifndef REPORT_FINDINGS_INTERNAL_H
#define REPORT_FINDINGS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/finding_rule.h"

#define MIB (1ull << 20)

/* The parameters of a rule's function. */
#define RULE_ARGS                                                                                  \
	const struct finding_rule *r, const struct report_stats *st,                               \
	    const struct finding_options *opt, struct finding *f

/* ---- findings_evidence.c ---- */

void finding__rule(struct finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* one more evidence line, while there is room */
void finding__evidence(struct finding *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void finding__metric(struct finding *f, const char *key, double value);
void finding__recommend(struct finding *f, const char *text);
double finding__ratio(uint64_t a, uint64_t b);
/* Short display of a file name. */
const char *finding__file_name(const struct report_stats *st, uint32_t name, char *buf,
			       size_t size);

/* Up to 3 application files with the largest value of a per-file figure. */
typedef uint64_t (*file_metric)(const struct rs_file *f);

void finding__top_files(const struct report_stats *st, struct finding *f, file_metric m,
			const char *what);

/* ---- the rules, one function per row of finding_rules[] ---- */

/* findings_access.c */
bool detect_small_reads(RULE_ARGS);
bool detect_small_writes(RULE_ARGS);
bool detect_random_reads(RULE_ARGS);
bool detect_random_writes(RULE_ARGS);
bool detect_redundant_reads(RULE_ARGS);
bool detect_metadata_heavy(RULE_ARGS);
bool detect_many_small_files(RULE_ARGS);
bool detect_reread_fits_in_ram(RULE_ARGS);
bool detect_failed_syscalls(RULE_ARGS);

/* findings_time.c */
bool detect_imbalance(RULE_ARGS);
bool detect_sync_heavy(RULE_ARGS);
bool detect_checkpoint_stall(RULE_ARGS);
bool detect_low_read_parallelism(RULE_ARGS);
bool detect_data_stall(RULE_ARGS);
bool detect_gpu_idle_on_data(RULE_ARGS);

/* findings_levels.c */
bool detect_read_amplification(RULE_ARGS);
/*
 * The Python locations behind a fired finding (--python-stacks), as its row
 * asks: f->py and one evidence line.
 */
void python_behind(const struct finding_rule *r, const struct report_stats *st, struct finding *f);

#endif
