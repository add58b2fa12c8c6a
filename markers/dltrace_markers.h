/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * dltrace markers: name the phases of a job (epochs, steps, batch fetches,
 * checkpoints) on dltrace's timeline.  Each function is a USDT probe of
 * provider "dltrace" guarded by a semaphore: while no tracer is attached a
 * call costs a load and a branch; dltrace (or bpftrace, perf) attaching to
 * the probe turns it on.
 *
 *   dltrace_region_begin("epoch", "{\"epoch\":1}");
 *   ...
 *   dltrace_region_end("epoch");
 *
 * Regions are slices on the calling thread and must nest (end the innermost
 * first, on the thread that began it).  args is a flat JSON object (numbers,
 * strings, booleans) or NULL.  dltrace keeps names up to 63 bytes, args up
 * to 255 bytes, and 8 open regions per thread.
 *
 * USDT probes (for bpftrace: usdt:PATH:dltrace:region_begin ...):
 *   region_begin(const char *name, const char *args)
 *   region_end(const char *name)
 *   instant(const char *name, const char *args)
 *   counter(const char *name, long long value)
 */
#ifndef DLTRACE_MARKERS_H
#define DLTRACE_MARKERS_H

#ifdef __cplusplus
extern "C" {
#endif

void dltrace_region_begin(const char *name, const char *args);
void dltrace_region_end(const char *name);
void dltrace_instant(const char *name, const char *args);
void dltrace_counter(const char *name, long long value);
/* Non-zero while a tracer is attached to any of the probes. */
int dltrace_markers_enabled(void);

/*
 * The semaphores themselves (the kernel counts attached tracers in them):
 * a caller may test one before preparing a probe's arguments.
 */
extern volatile unsigned short dltrace_region_begin_semaphore;
extern volatile unsigned short dltrace_region_end_semaphore;
extern volatile unsigned short dltrace_instant_semaphore;
extern volatile unsigned short dltrace_counter_semaphore;

#ifdef __cplusplus
}
#endif

#endif
