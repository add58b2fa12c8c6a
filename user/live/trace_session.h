/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef TRACE_SESSION_H
#define TRACE_SESSION_H

#include "cli/trace_options.h"

/* Trace as the options say; returns the process exit status. */
int trace_run(const struct trace_options *o);

#endif
