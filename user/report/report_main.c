// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* `dltrace report`: command line, reading the traces, choosing the output. */
#define _GNU_SOURCE
#include "report/report_main.h"

#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_usage.h"
#include "io/output_file.h"
#include "report/render/report_output.h"
#include "report/report_warnings.h"
#include "event/version.h"

#define DEFAULT_TOP 100

struct report_options {
	bool json, quiet;
	const char *html;
	unsigned top;
	uint64_t ram;
};

static void report_usage(FILE *out)
{
	fprintf(out,
		"Usage: dltrace report [OPTIONS] TRACE [TRACE...]\n"
		"\n"
		"Summarize dltrace traces (.json or .json.gz; several traces, e.g. one per\n"
		"node or run, are combined): where the job's I/O time goes, Darshan-style\n"
		"counters (access sizes, sequential/consecutive accesses, files, directories,\n"
		"file systems), balance across processes, a timeline with write bursts, and\n"
		"findings with evidence and recommendations.  Environment I/O (Python imports,\n"
		"shared libraries, /proc, /sys, /dev) is reported apart from the job's data.\n"
		"\n"
		"Options:\n"
		"      --json         print the report as JSON (stable keys; see dltrace(8))\n"
		"      --html FILE    also write the report as one self-contained HTML page\n"
		"      --top N        rows of each list in --json and --html (default %d)\n"
		"      --ram SIZE     memory of the machine the job ran on, for the findings\n"
		"                     (e.g. 64G; default: this machine's)\n"
		"  -q, --quiet        no terminal report (with --html)\n"
		"  -h, --help         this help\n"
		"\n"
		"The terminal report uses colors when standard output is a terminal and\n"
		"NO_COLOR is not set.  A trace cut short (no closing ']', a cut last event)\n"
		"is summarized with a warning.  Exit status: 0, or 1 when a trace cannot be\n"
		"read (empty, not a dltrace trace, corrupt gzip data), 2 on usage errors.\n",
		DEFAULT_TOP);
}

static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v > 0))
		return -1;
	switch (*end) {
	case 'k':
	case 'K':
		v *= 1024.0;
		end++;
		break;
	case 'm':
	case 'M':
		v *= 1048576.0;
		end++;
		break;
	case 'g':
	case 'G':
		v *= 1073741824.0;
		end++;
		break;
	case 't':
	case 'T':
		v *= 1099511627776.0;
		end++;
		break;
	}
	if ((*end == 'i' && end[1] == 'B' && !end[2]) || (*end == 'B' && !end[1]))
		end += strlen(end);
	if (*end || v >= 1.8e19)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

static uint64_t machine_ram(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
}

/* ---- reading ---- */

static void start_of(void *ctx, const struct trace_event *ev)
{
	*(int64_t *)ctx = ev->start_wall_ns;
}

static int read_traces(struct report_stats *st, char **files, int n)
{
	int64_t origin = INT64_MAX;
	char err[400];

	for (int i = 0; i < n; i++) {
		int64_t start;

		if (!strcmp(files[i], "-"))
			continue;
		if (trace_read_header(files[i], start_of, &start, err, sizeof(err))) {
			fprintf(stderr, "dltrace report: %s: %s\n", files[i], err);
			return 1;
		}
		if (start < origin)
			origin = start;
	}
	if (origin != INT64_MAX)
		rs_set_origin(st, origin);
	for (int i = 0; i < n; i++) {
		struct trace_read_status status;

		if (rs_begin_trace(st, files[i])) {
			fprintf(stderr, "dltrace report: out of memory\n");
			return 1;
		}
		if (trace_read_file(files[i], rs_event, st, &status)) {
			fprintf(stderr, "dltrace report: %s: %s\n", files[i], status.error);
			return 1;
		}
		rs_end_trace(st, &status);
	}
	return 0;
}

static void warn_traces(const struct report_stats *st)
{
	char lines[WARNING_MAX][WARNING_LINE];

	for (uint32_t t = 0; t < st->ntraces; t++) {
		int n = report_trace_warnings(st, t, lines);

		for (int k = 0; k < n; k++)
			fprintf(stderr, "dltrace report: warning: %s\n", lines[k]);
	}
}

/* ---- output ---- */

static bool want_color(FILE *out)
{
	const char *nc = getenv("NO_COLOR");

	return isatty(fileno(out)) && !(nc && *nc);
}

static int write_html(const struct report_view *v, const char *path)
{
	struct file_owner owner = invoking_user();
	char err[600];
	int fd = output_open(path, &owner, 0600, err, sizeof(err));
	FILE *f;

	if (fd < 0) {
		fprintf(stderr, "dltrace report: %s\n", err);
		return 1;
	}
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		fprintf(stderr, "dltrace report: %s: %s\n", path, strerror(errno));
		return 1;
	}
	report_html(f, v);
	if (fflush(f) || ferror(f)) {
		fprintf(stderr, "dltrace report: writing %s failed: %s\n", path, strerror(errno));
		fclose(f);
		return 1;
	}
	fclose(f);
	return 0;
}

static void render(const struct report_view *v, const struct report_options *o, FILE *out)
{
	if (o->json)
		report_json(out, v);
	else if (!o->quiet)
		report_terminal(out, v);
}

int report_main(int argc, char **argv)
{
	enum { OPT_JSON = 256, OPT_HTML, OPT_TOP, OPT_RAM };
	static const struct option longopts[] = {
	    {"json", no_argument, NULL, OPT_JSON},
	    {"html", required_argument, NULL, OPT_HTML},
	    {"top", required_argument, NULL, OPT_TOP},
	    {"ram", required_argument, NULL, OPT_RAM},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct report_options o = {false, false, NULL, DEFAULT_TOP, 0};
	struct finding_options fo;
	struct report_stats *st;
	struct findings *fi;
	struct report_view v;
	char *end, generator[64];
	int c, rc;
	long n;

	setlocale(LC_CTYPE, "");
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_JSON:
			o.json = true;
			break;
		case OPT_HTML:
			if (!*optarg)
				return cli_usage_error("report", "--html needs a file name", NULL);
			o.html = optarg;
			break;
		case OPT_TOP:
			errno = 0;
			n = strtol(optarg, &end, 10);
			if (errno || *end || n < 1 || n > 1000000)
				return cli_usage_error(
				    "report", "--top needs a number from 1 to 1000000, not",
				    optarg);
			o.top = n;
			break;
		case OPT_RAM:
			if (parse_size(optarg, &o.ram))
				return cli_usage_error(
				    "report", "--ram needs a size such as 64G, not", optarg);
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'h':
			report_usage(stdout);
			return 0;
		case ':':
			return cli_usage_error("report", "missing argument for", argv[optind - 1]);
		default:
			return cli_usage_error("report", "unknown option", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_usage_error("report", "no trace given", NULL);

	st = malloc(sizeof(*st));
	fi = malloc(sizeof(*fi));
	if (!st || !fi) {
		free(st);
		free(fi);
		fprintf(stderr, "dltrace report: out of memory\n");
		return 1;
	}
	rs_init(st);
	rc = read_traces(st, argv + optind, argc - optind);
	if (!rc) {
		rs_derive(st);
		warn_traces(st);
		fo.ram_bytes = o.ram ? o.ram : machine_ram();
		fo.ram_from_option = o.ram != 0;
		report_findings(st, &fo, fi);
		snprintf(generator, sizeof(generator), "dltrace %s", DLTRACE_VERSION);
		v = (struct report_view){st, fi, o.top, want_color(stdout), generator};
		if (o.html)
			rc = write_html(&v, o.html);
		render(&v, &o, stdout);
		if (fflush(stdout) && errno != EPIPE) {
			fprintf(stderr, "dltrace report: writing the report failed: %s\n",
				strerror(errno));
			rc = 1;
		}
		if (o.html && !rc && !o.json)
			fprintf(stderr, "dltrace report: wrote %s\n", o.html);
	}
	rs_free(st);
	free(st);
	free(fi);
	return rc;
}

/* ---- dltrace --report ---- */

struct report_session {
	struct report_stats st;
	struct trace_reader reader;
	bool fed;
};

struct report_session *report_session_new(void)
{
	struct report_session *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	rs_init(&s->st);
	return s;
}

/* Raw trace bytes as they are written (an output_sink copy hook). */
void report_session_feed(void *session, const void *text, size_t len)
{
	struct report_session *s = session;

	if (!s->fed) {
		s->fed = true;
		rs_begin_trace(&s->st, "standard output");
		trace_reader_init(&s->reader, rs_event, &s->st);
	}
	trace_reader_feed(&s->reader, text, len);
}

int report_session_print(struct report_session *s, const char *path, FILE *out)
{
	struct trace_read_status status;
	struct finding_options fo = {machine_ram(), 0};
	struct findings *fi = malloc(sizeof(*fi));
	struct report_view v;
	char generator[64];
	int rc = 0;

	if (!fi)
		return 1;
	if (path) {
		rs_begin_trace(&s->st, path);
		rc = trace_read_file(path, rs_event, &s->st, &status);
	} else {
		if (!s->fed) {
			free(fi);
			return 1;
		}
		rc = trace_reader_finish(&s->reader);
		status = s->reader.st;
		trace_reader_free(&s->reader);
	}
	if (rc) {
		fprintf(stderr, "dltrace: cannot summarize the trace: %s\n", status.error);
		free(fi);
		return 1;
	}
	rs_end_trace(&s->st, &status);
	rs_derive(&s->st);
	report_findings(&s->st, &fo, fi);
	snprintf(generator, sizeof(generator), "dltrace %s", DLTRACE_VERSION);
	setlocale(LC_CTYPE, "");
	v = (struct report_view){&s->st, fi, DEFAULT_TOP, want_color(out), generator};
	fputc('\n', out);
	report_terminal(out, &v);
	fflush(out);
	free(fi);
	return 0;
}

void report_session_free(struct report_session *s)
{
	if (!s)
		return;
	if (s->fed)
		trace_reader_free(&s->reader);
	rs_free(&s->st);
	free(s);
}

char *report_json_text(const char *path, size_t *len, char *err, size_t errlen)
{
	struct finding_options fo = {machine_ram(), false};
	struct report_stats *st = malloc(sizeof(*st));
	struct findings *fi = malloc(sizeof(*fi));
	struct trace_read_status status;
	struct report_view v;
	char generator[64], *text = NULL;
	FILE *f;

	if (!st || !fi) {
		free(st);
		free(fi);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	rs_init(st);
	if (rs_begin_trace(st, path)) {
		snprintf(err, errlen, "out of memory");
	} else if (trace_read_file(path, rs_event, st, &status)) {
		snprintf(err, errlen, "%s", status.error);
	} else {
		rs_end_trace(st, &status);
		rs_derive(st);
		report_findings(st, &fo, fi);
		snprintf(generator, sizeof(generator), "dltrace %s", DLTRACE_VERSION);
		v = (struct report_view){st, fi, DEFAULT_TOP, false, generator};
		f = open_memstream(&text, len);
		if (f) {
			report_json(f, &v);
			if (fclose(f)) {
				free(text);
				text = NULL;
			}
		}
		if (!text)
			snprintf(err, errlen, "out of memory");
	}
	rs_free(st);
	free(st);
	free(fi);
	return text;
}
