/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The live view on a terminal, or as lines: timing, keys, the terminal's
 * modes.  Its owner gives it a function that takes snapshots (of a
 * live_stats in this process, or over the daemon's control socket) and
 * calls top_ui__step() from its own loop; top_ui__timeout_ms() says how
 * long that loop may sleep.
 *
 * On a terminal (and TERM is not "dumb"): the alternate screen, redrawn
 * every interval and after each key, in plain ANSI sequences; keys are
 * read from standard input (or /dev/tty) without echo, in non-canonical
 * mode with signals left on, so that Ctrl-C still stops tracing.  The
 * terminal is restored by top_ui__free().  Elsewhere: top_view__line()
 * lines, one per interval, and one more for the last part at the end.
 */
#ifndef TOP_UI_H
#define TOP_UI_H

#include <stdbool.h>
#include <stdio.h>

#include "view/live_stats.h"

/*
 * A snapshot of the job now; 0, or -1 (the view keeps the last one).
 * rows false: the tables' rows are not needed (the lines show totals).
 */
typedef int (*top_snapshot_fn)(void *ctx, bool rows, struct live_snapshot *out);

struct top_ui;

/* interval in seconds; title: first words of the screen's header. */
struct top_ui *top_ui__new(FILE *out, double interval, const char *title, top_snapshot_fn fn,
			   void *ctx);
/* Is it full screen (else lines)? */
bool top_ui__screen(const struct top_ui *ui);
/* Milliseconds until the next refresh is due. */
int top_ui__timeout_ms(const struct top_ui *ui);
/* The descriptor keys come from (-1: none), to poll. */
int top_ui__key_fd(const struct top_ui *ui);
/* Refresh if it is time, handle the keys pressed; true when q was pressed. */
bool top_ui__step(struct top_ui *ui);
/* A message under the header (the screen) or on standard error (lines). */
void top_ui__message(struct top_ui *ui, const char *msg);
/* The end: lines mode prints the last part of the last interval. */
void top_ui__finish(struct top_ui *ui);
/* Restore the terminal and free. */
void top_ui__free(struct top_ui *ui);

#endif
