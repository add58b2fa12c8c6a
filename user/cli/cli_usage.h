/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Usage errors of the subcommands (`dltrace report`, `dltrace merge`), and option values they
 * share. */
#ifndef CLI_USAGE_H
#define CLI_USAGE_H

/* "dltrace CMD: MSG ARG" and a pointer to --help on stderr; returns 2, the exit status. */
int cli_usage_error(const char *cmd, const char *msg, const char *arg);

/* --gzip-level's value (`dltrace`, convert, merge): 1 to 9, or -1 when arg is not one of them. */
int cli_gzip_level(const char *arg);

#endif
