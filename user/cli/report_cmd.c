// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* `dltrace report`: command line, reading the traces, choosing the output. */
#define _GNU_SOURCE
#include "cli/report_cmd.h"

#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_usage.h"
#include "format/kineto/kineto_reader.h"
#include "format/trace_format.h"
#include "io/output_file.h"
#include "io/progress.h"
#include "report/report_findings.h"
#include "report/report_gpu_idle.h"
#include "report/report_session.h"
#include "report/render/report_render.h"

#define KINETO_MAX 64

struct report_options {
	bool json, quiet;
	const char *html;
	unsigned top;
	uint64_t ram;
	const char *kineto[KINETO_MAX]; /* --kineto: PyTorch profiler traces to join */
	unsigned nkineto;
};

static void report_usage(FILE *out)
{
	char text[256], sfx[128];

	fprintf(out, "Usage: dltrace report [OPTIONS] TRACE [TRACE...]\n"
		     "\n");
	snprintf(text, sizeof(text), "Summarize dltrace traces (%s, plain or gzip-compressed;",
		 cli_format_suffixes(sfx, sizeof(sfx)));
	cli_wrap(out, 0, 0, text);
	fprintf(out,
		"several traces, e.g. one per node or run, are combined): where the job's\n"
		"I/O time goes, Darshan-style counters (access sizes, sequential/consecutive\n"
		"accesses, files, directories, file systems), balance across processes, a\n"
		"timeline with write bursts, and findings with evidence and recommendations.\n"
		"Environment I/O (Python imports, shared libraries, /proc, /sys, /dev) is\n"
		"reported apart from the job's data.\n"
		"\n"
		"Options:\n"
		"      --json         print the report as JSON (stable keys; see dltrace(8))\n"
		"      --html FILE    also write the report as one self-contained HTML page\n"
		"      --top N        rows of each list in --json and --html (default %d)\n"
		"      --ram SIZE     memory of the machine the job ran on, for the findings\n"
		"                     (e.g. 64G; default: this machine's)\n"
		"      --kineto FILE  a PyTorch profiler (Kineto) trace of the job: the GPU's\n"
		"                     idle time per step against the data waits (repeatable;\n"
		"                     a trace merged with one by dltrace merge needs none)\n"
		"  -q, --quiet        no terminal report (with --html)\n"
		"      --list-findings  print the rules of the findings, one a line: id,\n"
		"                     severity, when it fires, the figures it reads (tabs\n"
		"                     between them)\n"
		"  -h, --help         this help\n"
		"\n"
		"The terminal report uses colors when standard output is a terminal and\n"
		"NO_COLOR is not set.  A trace cut short (no closing ']', a cut last event)\n"
		"is summarized with a warning.  Exit status: 0, or 1 when a trace cannot be\n"
		"read (empty, not a dltrace trace, corrupt gzip data), 2 on usage errors.\n"
		"On a terminal, reading for more than a second shows its progress on\n"
		"standard error (bytes read of the total, events/s, time left).\n",
		REPORT_DEFAULT_TOP);
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

/* ---- reading ---- */

/* One trace file into the report.  -1 with a one-line reason in err. */
static int read_trace(struct report_session *s, const char *path, struct progress *progress,
		      char *err, size_t errlen)
{
	struct trace_read_status status;
	struct event_consumer *c = report_session__begin_trace(s, path);

	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (trace_file_read_progress(path, c, &status, progress)) {
		snprintf(err, errlen, "%s", status.error);
		return -1;
	}
	report_session__end_trace(s, &status);
	return 0;
}

static int read_traces(struct report_session *s, char **files, int n)
{
	struct progress *progress;
	int64_t origin = INT64_MAX;
	char err[400];

	for (int i = 0; i < n; i++) {
		int64_t start;

		if (!strcmp(files[i], "-"))
			continue;
		if (kineto_file_is(files[i])) {
			fprintf(
			    stderr,
			    "dltrace report: %s: not a dltrace trace: a JSON object, as a "
			    "PyTorch profiler trace is (give one with --kineto FILE, or merge it "
			    "with the trace: dltrace merge)\n",
			    files[i]);
			return 1;
		}
		if (trace_file_start(files[i], &start, err, sizeof(err))) {
			fprintf(stderr, "dltrace report: %s: %s\n", files[i], err);
			return 1;
		}
		if (start < origin)
			origin = start;
	}
	if (origin != INT64_MAX)
		report_session__set_origin(s, origin);
	progress = progress__new("dltrace report", progress_file_sizes(files, n));
	for (int i = 0; i < n; i++) {
		if (read_trace(s, files[i], progress, err, sizeof(err))) {
			progress__done(progress);
			fprintf(stderr, "dltrace report: %s: %s\n", files[i], err);
			return 1;
		}
	}
	progress__done(progress);
	return 0;
}

/* A profiler event to the GPU join: its slices and their times (relative to the base). */
static void kineto_event(void *ctx, const struct kineto_event *ev)
{
	struct rs_gpu_profile_event e = {.name = ev->name, .cat = ev->cat};

	if (ev->malformed || !ev->has_ts || (ev->ph.len == 1 && ev->ph.s[0] == 'M'))
		return;
	e.complete = ev->ph.len == 1 && ev->ph.s[0] == 'X';
	e.start = ev->ts_ns;
	e.end = ev->ts_ns + (ev->has_dur && ev->dur_ns > 0 ? ev->dur_ns : 0);
	e.has_pid = ev->pid.present && !ev->pid.is_str;
	e.pid = ev->pid.v;
	e.has_tid = ev->tid.present && !ev->tid.is_str;
	e.tid = ev->tid.v;
	e.args = ev->args;
	e.nargs = ev->nargs;
	rs_gpu_profile__add(ctx, &e);
}

/* A PyTorch profiler trace (--kineto) joined to the traces read.  -1 with a one-line reason. */
static int read_kineto(struct report_session *s, const char *path, char *err, size_t errlen)
{
	struct rs_gpu_profile *p = report_session__gpu_profile(s);
	struct kineto_header h;
	struct kineto_status st;

	if (!p) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (kineto_file_read(path, kineto_event, p, &h, &st)) {
		snprintf(err, errlen, "%s", st.error);
		rs_gpu_profile__free(p);
		return -1;
	}
	rs_gpu_profile__end(p, path, h.base_ns, st.elements);
	return 0;
}

/* ---- output ---- */

static bool want_color(FILE *out)
{
	const char *nc = getenv("NO_COLOR");

	return isatty(fileno(out)) && !(nc && *nc);
}

struct html_page {
	const struct report_session *s;
	unsigned top;
};

static void html_page(FILE *f, const void *arg)
{
	const struct html_page *p = arg;

	report_session__html(p->s, f, p->top);
}

static int write_html(const struct report_session *s, unsigned top, const char *path)
{
	return cli_write_page("report", path, html_page, &(struct html_page){s, top});
}

/* --list-findings: the rules table (report/report_findings.c), one rule a line. */
static void list_findings(void)
{
	char sev[32], doc[1024];

	for (int i = 0; i < finding_rules_count; i++) {
		const struct finding_rule *r = &finding_rules[i];

		printf("%s\t%s\t%s\t%s\n", r->id, finding_rule_severities(r, sev, sizeof(sev)),
		       finding_rule_doc(r, doc, sizeof(doc)), r->needs);
	}
}

int report_main(int argc, char **argv)
{
	enum { OPT_JSON = 256, OPT_HTML, OPT_TOP, OPT_RAM, OPT_KINETO, OPT_LIST };
	static const struct option longopts[] = {
	    {"json", no_argument, NULL, OPT_JSON},
	    {"html", required_argument, NULL, OPT_HTML},
	    {"top", required_argument, NULL, OPT_TOP},
	    {"ram", required_argument, NULL, OPT_RAM},
	    {"kineto", required_argument, NULL, OPT_KINETO},
	    {"list-findings", no_argument, NULL, OPT_LIST},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct report_options o = {false, false, NULL, REPORT_DEFAULT_TOP, 0, {NULL}, 0};
	struct report_session *s;
	char *end;
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
		case OPT_KINETO:
			if (!*optarg)
				return cli_usage_error("report", "--kineto needs a file name",
						       NULL);
			if (o.nkineto == KINETO_MAX)
				return cli_usage_error("report", "too many --kineto files", NULL);
			o.kineto[o.nkineto++] = optarg;
			break;
		case OPT_LIST:
			list_findings();
			return 0;
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

	s = report_session__new();
	if (!s) {
		fprintf(stderr, "dltrace report: out of memory\n");
		return 1;
	}
	if (o.nkineto)
		report_session__expect_kineto(s); /* keep the data waits to join */
	rc = read_traces(s, argv + optind, argc - optind);
	for (unsigned k = 0; !rc && k < o.nkineto; k++) {
		char err[400];

		if (read_kineto(s, o.kineto[k], err, sizeof(err))) {
			fprintf(stderr, "dltrace report: %s: %s\n", o.kineto[k], err);
			rc = 1;
		}
	}
	if (!rc) {
		report_session__finish(s, o.ram);
		/* the terminal report says them itself, near its top: once */
		if (o.json || o.quiet)
			report_session__warnings(s, stderr, "dltrace report: ");
		if (o.html)
			rc = write_html(s, o.top, o.html);
		if (o.json)
			report_session__json(s, stdout, o.top);
		else if (!o.quiet)
			report_session__terminal(s, stdout, o.top, want_color(stdout));
		if (fflush(stdout) && errno != EPIPE) {
			fprintf(stderr, "dltrace report: writing the report failed: %s\n",
				strerror(errno));
			rc = 1;
		}
		if (o.html && !rc && !o.json)
			fprintf(stderr, "dltrace report: wrote %s\n", o.html);
	}
	report_session__free(s);
	return rc;
}
