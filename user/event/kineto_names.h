/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The categories a PyTorch profiler (Kineto) trace gives its events: what
 * tells a profiler's event from dltrace's own in a merged trace, and which
 * of them are work on a GPU.  Shared by the profiler trace's reader and
 * merge (format/kineto/, merge/kineto_merge.c) and the report's GPU join
 * (report/report_gpu_idle.c).
 */
#ifndef KINETO_NAMES_H
#define KINETO_NAMES_H

#include <stdbool.h>

#include "event/event.h"

/* A category Kineto writes (libkineto's activity types, and its trace's own: "Trace", "ac2g"). */
bool kineto_category(struct ev_str cat);
/* A category of work on a device ("kernel", "gpu_memcpy", "gpu_user_annotation", ...). */
bool kineto_gpu_category(struct ev_str cat);
/* A category of GPU work that keeps the device busy (kernels, copies, memsets). */
bool kineto_busy_category(struct ev_str cat);

#endif
