// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "cli/cli_usage.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/trace_format.h"
#include "io/output_file.h"

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

void cli_wrap(FILE *out, int col, int indent, const char *text)
{
	const char *p = text;
	bool first = true; /* of its line: no space before it, however long */

	while (*p) {
		size_t gap = strspn(p, " "), len = strcspn(p + gap, " \n");

		if (p[gap] == '\n') {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
			first = true;
			p += gap + 1;
			continue;
		}
		if (!len) /* spaces at the end */
			break;
		if (!first && col + (int)(gap + len) > CLI_WIDTH) {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
			first = true;
		}
		if (first)
			gap = 0; /* a line starts with its word */
		else
			fprintf(out, "%.*s", (int)gap, p);
		fprintf(out, "%.*s", (int)len, p + strspn(p, " "));
		col += gap + len;
		first = false;
		p += strspn(p, " ") + len;
	}
	fputc('\n', out);
}

void cli_option(FILE *out, const char *option, const char *text)
{
	int n = fprintf(out, "%s", option);

	if (n >= CLI_HELP_COL - 1) { /* no room: the help goes on the next line */
		fprintf(out, "\n");
		n = 0;
	}
	fprintf(out, "%*s", CLI_HELP_COL - n, "");
	cli_wrap(out, CLI_HELP_COL, CLI_HELP_COL, text);
}

const char *cli_format_suffixes(char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int f = 0; f < TRACE_FORMAT_COUNT && n < size; f++)
		n += snprintf(buf + n, size - n, "%s%s",
			      !f			    ? ""
			      : f == TRACE_FORMAT_COUNT - 1 ? " or "
							    : ", ",
			      trace_format_ops(f)->suffix);
	return buf;
}

void cli_gzip_level_help(FILE *out)
{
	char text[256];
	size_t n = snprintf(text, sizeof(text), "compression level 1-9 for .gz output (default");

	for (int f = 0; f < TRACE_FORMAT_COUNT && n < sizeof(text); f++)
		n += snprintf(text + n, sizeof(text) - n, "%s %d for %s.gz", f ? "," : "",
			      trace_format_gzip_level(f), trace_format_ops(f)->suffix);
	if (n < sizeof(text))
		snprintf(text + n, sizeof(text) - n, ")");
	cli_option(out, "      --gzip-level N", text);
}

int cli_write_page(const char *cmd, const char *path, void (*fill)(FILE *f, const void *arg),
		   const void *arg)
{
	struct file_owner owner = invoking_user();
	char err[600];
	int fd = output_open(path, &owner, 0600, err, sizeof(err));
	FILE *f;

	if (fd < 0) {
		fprintf(stderr, "dltrace %s: %s\n", cmd, err);
		return 1;
	}
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		fprintf(stderr, "dltrace %s: %s: %s\n", cmd, path, strerror(errno));
		return 1;
	}
	fill(f, arg);
	if (fflush(f) || ferror(f)) {
		fprintf(stderr, "dltrace %s: writing %s failed: %s\n", cmd, path, strerror(errno));
		fclose(f);
		return 1;
	}
	fclose(f);
	return 0;
}
