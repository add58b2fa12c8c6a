/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Usage errors of the subcommands (`dltrace report`, `dltrace merge`). */
#ifndef CLI_USAGE_H
#define CLI_USAGE_H

/* "dltrace CMD: MSG ARG" and a pointer to --help on stderr; returns 2, the exit status. */
int cli_usage_error(const char *cmd, const char *msg, const char *arg);

#endif
