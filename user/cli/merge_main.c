// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `dltrace merge`: read every input's first line (the earliest start is
 * the merged trace's time 0), then stream the inputs one after the other
 * through trace_merge into one output, with the merged metadata first and
 * the merged summary last.  Memory is bounded by the longest line and the
 * number of processes and threads, not by events.
 */
#define _GNU_SOURCE
#include "cli/merge_main.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "merge/merge_meta.h"
#include "cli/cli_usage.h"
#include "io/output_file.h"
#include "merge/trace_merge.h"

struct merge_options {
	const char *output;
	int gzip_level;
	bool quiet;
};

static void merge_usage(FILE *out)
{
	fprintf(out,
		"Usage: dltrace merge [OPTIONS] TRACE [TRACE...] -o OUTPUT\n"
		"\n"
		"Merge dltrace traces of several hosts (.json or .json.gz), e.g. one per node\n"
		"of a job, into one trace for Perfetto.  Times are aligned by each trace's\n"
		"wall-clock start (time 0 is the earliest start), pids and tids are made\n"
		"unique across traces, and every process is named '<host>: <command>'.\n"
		"\n"
		"Options:\n"
		"  -o, --output FILE      the merged trace; .gz compresses; '-' is standard\n"
		"                         output (required)\n"
		"      --gzip-level N     compression level 1-9 for .gz output (default 1)\n"
		"  -q, --quiet            print nothing but errors and warnings\n"
		"  -h, --help             this help\n"
		"\n"
		"Traces cut short (a crash, a full disk) are merged with a warning.  The\n"
		"inputs are read twice (first lines, then everything): they must be files.\n"
		"Exit status: 0; 1 when a trace cannot be read (empty, not a dltrace trace,\n"
		"corrupt gzip data) or the output cannot be written; 2 on usage errors.\n");
}

/* Returns 0 to go on, 1 after --help, or the usage error's status; *first: first input. */
static int parse_args(int argc, char **argv, struct merge_options *o, int *first)
{
	enum { OPT_GZIP = 256 };
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"gzip-level", required_argument, NULL, OPT_GZIP},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	char *end;
	long v;
	int c;

	*o = (struct merge_options){NULL, 1, false};
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!*optarg)
				return cli_usage_error("merge", "--output needs a file name", NULL);
			o->output = optarg;
			break;
		case OPT_GZIP:
			v = strtol(optarg, &end, 10);
			if (*end || v < 1 || v > 9)
				return cli_usage_error("merge", "--gzip-level needs 1 to 9, not",
						       optarg);
			o->gzip_level = v;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			merge_usage(stdout);
			return 1;
		case ':':
			return cli_usage_error("merge", "missing argument for", argv[optind - 1]);
		default:
			return cli_usage_error("merge", "unknown option", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_usage_error("merge", "no trace given", NULL);
	if (!o->output)
		return cli_usage_error(
		    "merge", "no output given (-o FILE, or -o - for standard output)", NULL);
	for (int i = optind; i < argc; i++)
		if (!strcmp(argv[i], "-"))
			return cli_usage_error(
			    "merge", "the traces must be files ('-' cannot be read twice)", NULL);
	*first = optind;
	return 0;
}

/* Never write over an input (the output is truncated when it is opened). */
static int check_output(const char *output, const struct merge_input *in, uint32_t n)
{
	struct stat out, st;

	if (!strcmp(output, "-") || stat(output, &out))
		return 0;
	for (uint32_t i = 0; i < n; i++)
		if (!stat(in[i].path, &st) && st.st_dev == out.st_dev && st.st_ino == out.st_ino) {
			fprintf(stderr, "dltrace merge: the output %s is the input %s\n", output,
				in[i].path);
			return 1;
		}
	return 0;
}

static void warn_input(const struct merge_input *in)
{
	const struct trace_read_status *s = &in->status;
	char why[200];

	if (trace_read_truncated(s)) {
		trace_read_damage(s, why, sizeof(why));
		fprintf(stderr,
			"dltrace merge: warning: %s: the trace is incomplete (%s); merged the %llu "
			"events it holds\n",
			in->path, why, (unsigned long long)s->events);
	}
	if (s->malformed)
		fprintf(stderr,
			"dltrace merge: warning: %s: %llu lines are not events and were left out "
			"(the first, line %llu: %s)\n",
			in->path, (unsigned long long)s->malformed,
			(unsigned long long)s->first_malformed_line,
			s->first_malformed_why ? s->first_malformed_why : "malformed");
	if (in->summary.lost_events)
		fprintf(stderr,
			"dltrace merge: warning: %s: its tracer lost %llu events (counted in the "
			"merged summary)\n",
			in->path, (unsigned long long)in->summary.lost_events);
}

/* Stream every input into the sink; 0, or 1 after an error (already printed). */
static int merge_inputs(struct trace_merge *m, struct merge_input *in, uint32_t n,
			const char *output)
{
	for (uint32_t i = 0; i < n; i++) {
		trace_merge_begin(m, i, in[i].shift_ns, in[i].hostname.s, in[i].hostname.len);
		if (trace_read_file(in[i].path, trace_merge_event, m, &in[i].status)) {
			fprintf(stderr, "dltrace merge: %s: %s; %s holds only what came before\n",
				in[i].path, in[i].status.error,
				strcmp(output, "-") ? output : "the output");
			return 1;
		}
		trace_merge_end(m);
		in[i].summary = m->summary;
		warn_input(&in[i]);
	}
	if (m->unmerged)
		fprintf(stderr,
			"dltrace merge: warning: %llu events could not be rewritten and "
			"were left out\n",
			(unsigned long long)m->unmerged);
	return 0;
}

static int write_merged(const struct merge_options *o, struct merge_input *in, uint32_t n)
{
	struct file_owner owner = invoking_user();
	struct output_sink sink;
	struct trace_merge m;
	char err[600], tail[MERGE_TAIL_MAX];
	uint32_t origin = merge_align(in, n);
	size_t tail_len;
	int fd, rc, werr;

	if (check_output(o->output, in, n))
		return 1;
	fd = output_open(o->output, &owner, 0600, err, sizeof(err));
	if (fd < 0) {
		fprintf(stderr, "dltrace merge: %s\n", err);
		return 1;
	}
	if (sink_init(&sink, fd, output_wants_gzip(o->output), o->gzip_level)) {
		fprintf(stderr, "dltrace merge: out of memory\n");
		return 1;
	}
	merge_write_header(&sink, in, n, origin);
	sink_flush(&sink); /* the header is its own chunk: it survives a full disk */
	trace_merge_init(&m, &sink, n);
	rc = merge_inputs(&m, in, n, o->output);
	tail_len =
	    merge_summary_tail(tail, sizeof(tail), in, n, m.events + 2, sink.error != 0 || rc != 0);
	werr = sink_close(&sink, tail, tail_len);
	if (werr) {
		fprintf(stderr, "dltrace merge: writing %s failed: %s\n", o->output,
			strerror(-werr));
		rc = 1;
	} else if (!rc && !o->quiet) {
		fprintf(stderr, "dltrace merge: wrote %llu events of %u trace%s to %s\n",
			(unsigned long long)m.events + 2, n, n == 1 ? "" : "s",
			strcmp(o->output, "-") ? o->output : "standard output");
	}
	trace_merge_free(&m);
	return rc;
}

int merge_main(int argc, char **argv)
{
	struct merge_options o;
	struct merge_input *in;
	char err[400];
	int first = 0, rc;
	uint32_t n;

	rc = parse_args(argc, argv, &o, &first);
	if (rc)
		return rc == 1 ? 0 : rc;
	n = argc - first;
	in = calloc(n, sizeof(*in));
	if (!in) {
		fprintf(stderr, "dltrace merge: out of memory\n");
		return 1;
	}
	for (uint32_t i = 0; i < n && !rc; i++) {
		in[i].path = argv[first + i];
		if (trace_read_header(in[i].path, merge_input_header, &in[i], err, sizeof(err))) {
			fprintf(stderr, "dltrace merge: %s: %s\n", in[i].path, err);
			rc = 1;
		}
	}
	if (!rc)
		rc = write_merged(&o, in, n);
	for (uint32_t i = 0; i < n; i++)
		merge_input_free(&in[i]);
	free(in);
	return rc;
}
