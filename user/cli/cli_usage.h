/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Usage errors of the subcommands (`dltrace report`, `dltrace merge`), option values they
 * share, and the parts of their help made from the registries (trace formats, layers).
 */
#ifndef CLI_USAGE_H
#define CLI_USAGE_H

#include <stddef.h>
#include <stdio.h>

#define CLI_WIDTH    80 /* columns of the help texts */
#define CLI_HELP_COL 25 /* where an option's help starts in dltrace's, convert's and merge's */

/* "dltrace CMD: MSG ARG" and a pointer to --help on stderr; returns 2, the exit status. */
int cli_usage_error(const char *cmd, const char *msg, const char *arg);

/* --gzip-level's value (`dltrace`, convert, merge): 1 to 9, or -1 when arg is not one of them. */
int cli_gzip_level(const char *arg);

/*
 * Print text from column col (what the line holds already), words wrapped at
 * CLI_WIDTH columns, each further line indented by indent; a '\n' in text
 * breaks the line there.  Ends the last line.
 */
void cli_wrap(FILE *out, int col, int indent, const char *text);
/* An option's help: "  -o, --output FILE" padded to CLI_HELP_COL, then text wrapped. */
void cli_option(FILE *out, const char *option, const char *text);

/*
 * Write a page (--html) to path, made as the invoking user under sudo (mode
 * 0600): fill(f, arg) fills it.  A failure is one line "dltrace CMD: ..." on
 * stderr; returns 0 or 1, the exit status.
 */
int cli_write_page(const char *cmd, const char *path, void (*fill)(FILE *f, const void *arg),
		   const void *arg);

/* ".json or .pftrace": every trace format's suffix (format/trace_formats.def). */
const char *cli_format_suffixes(char *buf, size_t size);
/* The --gzip-level option's help, with each format's default level. */
void cli_gzip_level_help(FILE *out);

#endif
