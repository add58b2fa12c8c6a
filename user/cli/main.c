// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* dltrace: eBPF file-I/O tracer for deep-learning jobs.  Subcommand dispatch. */
#include <stdio.h>
#include <string.h>

#include "daemon/daemon.h"
#include "cli/convert_cmd.h"
#include "cli/merge_main.h"
#include "cli/replay_cmd.h"
#include "cli/report_cmd.h"
#include "cli/trace_options.h"
#include "live/trace_session.h"

int main(int argc, char **argv)
{
	struct trace_options o;
	int rc;

	if (argc > 1 && !strcmp(argv[1], "daemon"))
		return daemon_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "ctl"))
		return ctl_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "merge"))
		return merge_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "report"))
		return report_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "convert"))
		return convert_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "replay"))
		return replay_main(argc - 1, argv + 1);

	if (argc > 1 && !strcmp(argv[1], "top")) /* tracing, with the live view */
		rc = trace_options_parse(&o, argc - 1, argv + 1);
	else
		rc = trace_options_parse(&o, argc, argv);
	if (!rc)
		rc = trace_run(&o);
	else if (rc == 1)
		rc = 0;
	trace_options_free(&o);
	return rc;
}
