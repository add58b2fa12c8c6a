// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The marker library (see dltrace_markers.h): four USDT probes with
 * semaphores.  sys/sdt.h writes each probe's note (.note.stapsdt) with the
 * address of its semaphore; a tracer that attaches increments the semaphore
 * in every process mapping this library, and the probe's nop becomes a trap.
 */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

#include "dltrace_markers.h"

#define SEMAPHORE(name)                                                                            \
	__attribute__((visibility("default"),                                                      \
		       section(".probes"))) volatile unsigned short dltrace_##name##_semaphore

SEMAPHORE(region_begin);
SEMAPHORE(region_end);
SEMAPHORE(instant);
SEMAPHORE(counter);

#define ON(name) __builtin_expect(dltrace_##name##_semaphore != 0, 0)

void dltrace_region_begin(const char *name, const char *args)
{
	if (ON(region_begin))
		STAP_PROBE2(dltrace, region_begin, name, args);
}

void dltrace_region_end(const char *name)
{
	if (ON(region_end))
		STAP_PROBE1(dltrace, region_end, name);
}

void dltrace_instant(const char *name, const char *args)
{
	if (ON(instant))
		STAP_PROBE2(dltrace, instant, name, args);
}

void dltrace_counter(const char *name, long long value)
{
	if (ON(counter))
		STAP_PROBE2(dltrace, counter, name, value);
}

int dltrace_markers_enabled(void)
{
	return ON(region_begin) || ON(region_end) || ON(instant) || ON(counter);
}
