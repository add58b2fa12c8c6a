/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A progress line for commands that read long inputs (dltrace report,
 * merge, convert): bytes read of the total, events per second, the time
 * left.  Only on a terminal (standard error), and only once the run has
 * lasted a second: short runs and redirected output show nothing.
 *
 *   struct progress *p = progress__new("dltrace report", total_bytes);
 *   per chunk read:   progress__add(p, bytes, events);
 *   at the end:       progress__done(p);    (clears the line)
 *
 * Every call accepts NULL (no progress wanted).  Cheap: one clock read per
 * call, a redraw at most five times a second.
 *
 * For tests, not users: DLTRACE_PROGRESS_AFTER_MS=N shows the line after N ms
 * instead of the second (0: at the first chunk read), so that a test sees the
 * line whatever the machine's speed.  Unset or not a number: the second.
 */
#ifndef PROGRESS_H
#define PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

struct progress;

/* total_bytes 0: unknown (standard input): no percentage, no time left. */
struct progress *progress__new(const char *what, uint64_t total_bytes);
/* bytes and events more since the last call. */
void progress__add(struct progress *p, uint64_t bytes, uint64_t events);
/* Clear the line (when one was drawn) and free. */
void progress__done(struct progress *p);
/* A file's size (0 when it cannot be sized, e.g. "-"). */
uint64_t progress_file_size(const char *path);
/* The total of the files (0 when one cannot be sized). */
uint64_t progress_file_sizes(char *const *paths, int n);

#endif
