// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "cli/cli_usage.h"

#include <stdio.h>
#include <stdlib.h>

int cli_usage_error(const char *cmd, const char *msg, const char *arg)
{
	fprintf(stderr, "dltrace %s: %s%s%s\n", cmd, msg, arg ? " " : "", arg ? arg : "");
	fprintf(stderr, "Try 'dltrace %s --help' for more information.\n", cmd);
	return 2;
}

int cli_gzip_level(const char *arg)
{
	char *end;
	long v = strtol(arg, &end, 10);

	return *arg && !*end && v >= 1 && v <= 9 ? (int)v : -1;
}
