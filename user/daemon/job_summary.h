/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The summary written next to a finished job trace (the report, as JSON). */
#ifndef JOB_SUMMARY_H
#define JOB_SUMMARY_H

#include <stddef.h>

/* JSON text for the trace at path (malloc'd, *len bytes), or NULL with err. */
char *job_summary_json(const char *path, size_t *len, char *err, size_t errlen);

#endif
