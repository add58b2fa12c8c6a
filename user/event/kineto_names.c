// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "event/kineto_names.h"

#include <stddef.h>
#include <string.h>

static bool is(struct ev_str s, const char *lit)
{
	size_t n = strlen(lit);

	return s.len == n && !memcmp(s.s, lit, n);
}

bool kineto_category(struct ev_str cat)
{
	static const char *const names[] = {
	    "cpu_op",
	    "user_annotation",
	    "gpu_user_annotation",
	    "gpu_memcpy",
	    "gpu_memset",
	    "kernel",
	    "external_correlation",
	    "cuda_runtime",
	    "cuda_driver",
	    "cpu_instant_event",
	    "python_function",
	    "overhead",
	    "cuda_sync",
	    "cuda_profiler_range",
	    "mtia_runtime",
	    "mtia_ccp_events",
	    "glow_runtime",
	    "hpu_op",
	    "xpu_runtime",
	    "xpu_driver",
	    "collective_comm",
	    "privateuse1_runtime",
	    "privateuse1_driver",
	    "Trace",
	    "ac2g",
	    "fwdbwd",
	    "Kernel",
	    "Memcpy",
	    "Memset",
	    "Runtime",
	    "Operator",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (is(cat, names[i]))
			return true;
	return false;
}

/* Kineto's categories of work on a device (libkineto's ActivityType names, and older ones). */
bool kineto_gpu_category(struct ev_str cat)
{
	return kineto_busy_category(cat) || is(cat, "gpu_user_annotation") ||
	       is(cat, "cuda_profiler_range");
}

bool kineto_busy_category(struct ev_str cat)
{
	return is(cat, "kernel") || is(cat, "gpu_memcpy") || is(cat, "gpu_memset") ||
	       is(cat, "Kernel") || is(cat, "Memcpy") || is(cat, "Memset");
}
