/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The view of `dltrace top` and `dltrace ctl top`: two snapshots of a
 * job's live statistics (view/live_stats.h) become a screen (rates over
 * the interval between them, cumulative totals since the start) or, when
 * the output is not a terminal, one line per interval.
 *
 *   screen: a header (the job, its totals, lost events, the training
 *           thread, data stall) and one table: processes (as a tree),
 *           files, directories or capture layers; keys switch the table,
 *           change the sort column and pause.
 *   lines:  a header line once, then one line of fixed columns per
 *           interval, counts of that interval (see top_view__line).
 *
 * Pure rendering: no terminal handling (view/top_ui.c) and no I/O of its
 * own but the FILE it is given.  The rows, their rates and their order are
 * view/top_model.c's; the drawing, the lines and the keys are here.
 */
#ifndef TOP_VIEW_H
#define TOP_VIEW_H

#include <stdbool.h>
#include <stdio.h>

#include "view/live_stats.h"

/* What a key did. */
enum top_key_result { TOP_KEY_NONE, TOP_KEY_REDRAW, TOP_KEY_QUIT };

struct top_view;

struct top_view *top_view__new(void);
void top_view__free(struct top_view *v);

/* A new snapshot: the view owns it now and keeps the one before for the rates. */
void top_view__push(struct top_view *v, struct live_snapshot *s);
/* Has it a snapshot to show? */
bool top_view__ready(const struct top_view *v);

/* The screen as terminal text (ANSI sequences), width x height, from the top-left corner. */
void top_view__screen(struct top_view *v, FILE *out, int width, int height);

/* Lines mode: the header line, then one line per pushed snapshot. */
void top_view__line_header(FILE *out);
void top_view__line(struct top_view *v, FILE *out);

/* A key pressed (a character, or one of the TOP_K_* below). */
#define TOP_K_LEFT  0x101
#define TOP_K_RIGHT 0x102
enum top_key_result top_view__key(struct top_view *v, int key);
bool top_view__paused(const struct top_view *v);

/* Screen modifiers for the owner: the title's first words ("dltrace top", "dltrace ctl top 42"). */
void top_view__set_title(struct top_view *v, const char *title);
void top_view__set_interval(struct top_view *v, double seconds);
/* A one-line message under the header until the next key (NULL: none). */
void top_view__set_message(struct top_view *v, const char *msg);

#endif
