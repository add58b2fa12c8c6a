// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "event/event.h"

#include <stddef.h>

static void ignore(struct event_consumer *c, const struct event *e)
{
	(void)c;
	(void)e;
}

/* The slot of each event type, by offset in struct event_consumer. */
static const size_t slot_of[EV_TYPE_COUNT] = {
    [EV_TRACE_BEGIN] = offsetof(struct event_consumer, trace_begin),
    [EV_TRACE_END] = offsetof(struct event_consumer, trace_end),
    [EV_SYSCALL] = offsetof(struct event_consumer, syscall),
    [EV_FORK] = offsetof(struct event_consumer, fork),
    [EV_START] = offsetof(struct event_consumer, start),
    [EV_EXEC] = offsetof(struct event_consumer, exec),
    [EV_EXIT] = offsetof(struct event_consumer, exit),
    [EV_PROCESS_NAME] = offsetof(struct event_consumer, process_name),
    [EV_THREAD_NAME] = offsetof(struct event_consumer, thread_name),
    [EV_FAULT] = offsetof(struct event_consumer, fault),
    [EV_BLOCK] = offsetof(struct event_consumer, block),
    [EV_BLOCK_RATE] = offsetof(struct event_consumer, block_rate),
    [EV_URING] = offsetof(struct event_consumer, uring),
    [EV_AIO] = offsetof(struct event_consumer, aio),
    [EV_VFS] = offsetof(struct event_consumer, vfs),
    [EV_VFS_OPEN] = offsetof(struct event_consumer, vfs_open),
    [EV_SPAN] = offsetof(struct event_consumer, span),
    [EV_OTHER] = offsetof(struct event_consumer, other),
};

#define SLOT(c, type) (*(event_fn *)((char *)(c) + slot_of[type]))

void event_consumer_init(struct event_consumer *c)
{
	for (int t = 0; t < EV_TYPE_COUNT; t++)
		SLOT(c, t) = ignore;
}

void event_consumer_fill(struct event_consumer *c, event_fn fn)
{
	for (int t = 0; t < EV_TYPE_COUNT; t++)
		if (SLOT(c, t) == ignore || !SLOT(c, t))
			SLOT(c, t) = fn;
}

void event_deliver(struct event_consumer *c, const struct event *e)
{
	if ((unsigned)e->type < EV_TYPE_COUNT)
		SLOT(c, e->type)(c, e);
}
