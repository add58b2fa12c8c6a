/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A tee: one event stream fanned out to several consumers, in the order
 * they were added.  The tee is itself a consumer: a source delivers to
 * &tee->consumer.
 */
#ifndef EVENT_TEE_H
#define EVENT_TEE_H

#include "event/event.h"

#define EVENT_TEE_MAX 8

struct event_tee {
	struct event_consumer consumer; /* deliver the stream here */
	struct event_consumer *out[EVENT_TEE_MAX];
	unsigned n;
	uint64_t events; /* events delivered */
};

void event_tee_init(struct event_tee *t);
/* -1 when the tee already has EVENT_TEE_MAX consumers. */
int event_tee_add(struct event_tee *t, struct event_consumer *c);
/* Stop delivering to c (no-op if it was not added). */
void event_tee_remove(struct event_tee *t, struct event_consumer *c);

#endif
