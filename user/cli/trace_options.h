/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Command-line options of `dltrace [OPTIONS] TARGET`. */
#ifndef TRACE_OPTIONS_H
#define TRACE_OPTIONS_H

#include <stdio.h>

#include "live/trace_session.h"

/*
 * Parse argv.  Returns 0 to run, 1 when --help/--version was handled,
 * 2 on a usage error (message already printed).
 */
int trace_options_parse(struct trace_options *o, int argc, char **argv);
void trace_usage(FILE *out);
/* What parsing allocated (the --lib paths). */
void trace_options_free(struct trace_options *o);

#endif
