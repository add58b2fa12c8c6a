/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What a trace shows of an event: its name, category and phase, and its
 * arguments in order.  Every writer writes exactly this (the Chrome writer
 * as JSON, the Perfetto writer as debug annotations), and the trace reader
 * reads the same keys back into the event, so all formats hold the same.
 *
 * Called by the writers for each event they write; pure (no state).
 */
#ifndef EVENT_ARGS_H
#define EVENT_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "event/event.h"

/* Bytes of scratch that event_head() and event_args() may need for formatted values. */
#define EV_SCRATCH 1536

struct ev_head {
	struct ev_str name;
	struct ev_str cat; /* len 0: none (metadata events) */
	char ph;	   /* 'X', 'i', 'b', 'e', 'C', 'M', 'B', 'E' */
};

/*
 * The event's name, category and phase.  Names of unknown io_uring opcodes
 * are formatted into scratch.
 */
void event_head(const struct event *e, struct ev_head *h, char *scratch);

/*
 * The event's arguments, at most EV_ARGS_MAX, into args; returns how many.
 * Strings that need formatting (flags, errno names, devices, hex values)
 * are written to scratch (EV_SCRATCH bytes), which must outlive args.
 */
unsigned event_args(const struct event *e, struct ev_arg *args, char *scratch);

/* The id that joins an asynchronous request's begin and end (EV_BLOCK, EV_URING, EV_AIO). */
uint64_t event_async_id(const struct event *e);

/* Names of the layers' operations: "READ", "PREAD" (AIO), "vfs_read", "read" (block). */
const char *uring_op_name(unsigned opcode, char *buf, size_t size);
const char *aio_op_name(unsigned opcode, char *buf, size_t size);
const char *vfs_op_name(unsigned op);
const char *block_op_name(unsigned op);

#endif
