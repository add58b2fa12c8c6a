// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* dltrace: eBPF file-I/O tracer for deep-learning jobs.  Subcommand dispatch. */
#include <stdio.h>
#include <string.h>

#include "trace_options.h"
#include "trace_session.h"

int main(int argc, char **argv)
{
	struct trace_options o;
	int rc;

	rc = trace_options_parse(&o, argc, argv);
	if (rc == 1)
		return 0;
	if (rc)
		return rc;
	return trace_run(&o);
}
