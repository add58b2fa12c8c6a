// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "event/event_tee.h"

#include <string.h>

static void fan_out(struct event_consumer *c, const struct event *e)
{
	struct event_tee *t = container_of(c, struct event_tee, consumer);

	t->events++;
	for (unsigned i = 0; i < t->n; i++)
		event_deliver(t->out[i], e);
}

void event_tee_init(struct event_tee *t)
{
	memset(t, 0, sizeof(*t));
	event_consumer_init(&t->consumer);
	event_consumer_fill(&t->consumer, fan_out);
}

int event_tee_add(struct event_tee *t, struct event_consumer *c)
{
	if (t->n == EVENT_TEE_MAX)
		return -1;
	t->out[t->n++] = c;
	return 0;
}

void event_tee_remove(struct event_tee *t, struct event_consumer *c)
{
	for (unsigned i = 0; i < t->n; i++) {
		if (t->out[i] == c) {
			memmove(&t->out[i], &t->out[i + 1], (t->n - i - 1) * sizeof(t->out[0]));
			t->n--;
			return;
		}
	}
}
