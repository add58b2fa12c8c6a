/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Clocks in nanoseconds. */
#ifndef CLOCK_NS_H
#define CLOCK_NS_H

#include <stdint.h>
#include <time.h>

/* clock's current time, in nanoseconds */
static inline uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* CLOCK_MONOTONIC in nanoseconds: for intervals and deadlines */
static inline uint64_t mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

#endif
