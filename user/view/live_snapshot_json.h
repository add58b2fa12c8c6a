/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A live snapshot as JSON and back: how `dltrace ctl top` gets the view of
 * a job that the daemon traces (the daemon sends its snapshot over the
 * control socket, the client shows it with the same view).  Every counter
 * is kept exactly; latency buckets are sent as [bucket, count] pairs of the
 * buckets that are not 0.  Names that are not UTF-8 arrive with U+FFFD.
 */
#ifndef LIVE_SNAPSHOT_JSON_H
#define LIVE_SNAPSHOT_JSON_H

#include <stddef.h>

#include "view/live_stats.h"

/* The JSON text (malloc'd, *len bytes), NULL when out of memory. */
char *live_snapshot_json(const struct live_snapshot *s, size_t *len);
/* Parse it back into out; -1 with a reason in err. */
int live_snapshot_parse(const char *text, size_t len, struct live_snapshot *out, char *err,
			size_t errlen);

#endif
