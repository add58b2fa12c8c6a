// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `dltrace merge`: read every input's metadata (the earliest start is the
 * merged trace's time 0), then stream the inputs one after the other into
 * one output, with the merged metadata first and the merged summary last.
 * Two paths, chosen by the formats:
 *   - JSON inputs into a JSON output: a text-level rewrite of each line
 *     (merge/trace_merge.h), which keeps every other byte as it was;
 *   - any .pftrace input or output: typed events (merge/event_merge.h)
 *     from the format's reader into the output format's writer.
 * Memory is bounded by the longest line (packet) and the number of
 * processes and threads, not by events.
 */
#define _GNU_SOURCE
#include "cli/merge_main.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli_usage.h"
#include "event/version.h"
#include "format/trace_format.h"
#include "io/output_file.h"
#include "io/progress.h"
#include "merge/event_merge.h"
#include "merge/merge_meta.h"
#include "merge/trace_merge.h"

struct merge_options {
	const char *output;
	int gzip_level;
	bool quiet;
};

static void merge_usage(FILE *out)
{
	char text[1024], sfx[128];
	size_t n;

	fprintf(out, "Usage: dltrace merge [OPTIONS] TRACE [TRACE...] -o OUTPUT\n"
		     "\n");
	snprintf(text, sizeof(text), "Merge dltrace traces of several hosts (%s, plain or gzip),",
		 cli_format_suffixes(sfx, sizeof(sfx)));
	cli_wrap(out, 0, 0, text);
	/* the output's name: each format but the first by its suffixes, else the first */
	n = snprintf(text, sizeof(text),
		     "'<host>: <command>'.  The output's format comes from its name (");
	for (int f = 1; f < TRACE_FORMAT_COUNT && n < sizeof(text); f++)
		n += snprintf(text + n, sizeof(text) - n, "%s and %s.gz: %s; ",
			      trace_format_ops(f)->suffix, trace_format_ops(f)->suffix,
			      trace_format_ops(f)->title);
	if (n < sizeof(text))
		snprintf(text + n, sizeof(text) - n, "else %s).", trace_format_ops(0)->noun);
	fprintf(out, "e.g. one per node of a job, into one trace for Perfetto.  Times are aligned\n"
		     "by each trace's wall-clock start (time 0 is the earliest start), pids and\n"
		     "tids are made unique across traces, and every process is named\n");
	cli_wrap(out, 0, 0, text);
	fprintf(out, "\n"
		     "Options:\n"
		     "  -o, --output FILE      the merged trace; .gz compresses; '-' is standard\n"
		     "                         output (required)\n");
	cli_gzip_level_help(out);
	fprintf(out,
		"  -q, --quiet            print nothing but errors and warnings\n"
		"  -h, --help             this help\n"
		"\n"
		"Traces cut short (a crash, a full disk) are merged with a warning.  The\n"
		"inputs are read twice (first lines, then everything): they must be files.\n"
		"Exit status: 0; 1 when a trace cannot be read (empty, not a dltrace trace,\n"
		"corrupt gzip data) or the output cannot be written; 2 on usage errors.\n"
		"On a terminal, reading for more than a second shows its progress on\n"
		"standard error (bytes read of the total, events/s, time left; not with -q).\n");
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
	int c;

	*o = (struct merge_options){NULL, 0, false};
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
			o->gzip_level = cli_gzip_level(optarg);
			if (o->gzip_level < 0)
				return cli_usage_error("merge", "--gzip-level needs 1 to 9, not",
						       optarg);
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

/* The progress line of the inputs' bytes (NULL: -q, or not on a terminal). */
static struct progress *merge_progress(const struct merge_options *o, const struct merge_input *in,
				       uint32_t n)
{
	uint64_t total = 0;

	if (o->quiet)
		return NULL;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t size = progress_file_size(in[i].path);

		if (!size) { /* one cannot be sized: no total */
			total = 0;
			break;
		}
		total += size;
	}
	return progress__new("dltrace merge", total);
}

/* Stream every input into the sink; 0, or 1 after an error (already printed). */
static int merge_inputs(struct trace_merge *m, struct merge_input *in, uint32_t n,
			const char *output, struct progress *progress)
{
	for (uint32_t i = 0; i < n; i++) {
		trace_merge_begin(m, i, in[i].shift_ns, in[i].hostname.s, in[i].hostname.len);
		if (trace_read_file_progress(in[i].path, trace_merge_event, m, &in[i].status,
					     progress)) {
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
	struct progress *progress;
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
	if (sink_init(&sink, fd, output_wants_gzip(o->output),
		      o->gzip_level ? o->gzip_level : trace_format_gzip_level(TRACE_FORMAT_JSON))) {
		fprintf(stderr, "dltrace merge: out of memory\n");
		return 1;
	}
	merge_write_header(&sink, in, n, origin);
	sink_flush(&sink); /* the header is its own chunk: it survives a full disk */
	trace_merge_init(&m, &sink, n);
	progress = merge_progress(o, in, n);
	rc = merge_inputs(&m, in, n, o->output, progress);
	progress__done(progress);
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

/* ---- typed events: .pftrace inputs or output ---- */

struct header_in {
	struct event_consumer c;
	struct merge_input *in;
};

static void header_in(struct event_consumer *c, const struct event *e)
{
	merge_input_begin(container_of(c, struct header_in, c)->in, &e->begin);
}

static int read_header(struct merge_input *in, char *err, size_t errlen)
{
	struct header_in h = {.in = in};

	event_consumer_init(&h.c);
	h.c.trace_begin = header_in;
	return trace_file_header(in->path, &h.c, err, errlen);
}

static struct ev_str ev(struct trace_str s)
{
	return (struct ev_str){s.s, s.len};
}

/* The merged metadata: hosts and layers of all inputs, the earliest start. */
static void merged_begin(struct event_consumer *out, const struct merge_input *in, uint32_t n,
			 uint32_t origin)
{
	struct trace_str hosts = merge_hosts(in, n), layers = merge_layers(in, n);
	struct event e = {.type = EV_TRACE_BEGIN};
	char target[64];

	snprintf(target, sizeof(target), "merge of %u trace%s", n, n == 1 ? "" : "s");
	e.begin.version = EV_STR(DLTRACE_VERSION);
	e.begin.hostname = ev(hosts);
	e.begin.target = (struct ev_str){target, strlen(target)};
	e.begin.layers = ev(layers);
	/* every input's monotonic times, moved onto the earliest wall-clock start */
	e.begin.clock = EV_STR("CLOCK_REALTIME");
	e.begin.start_wall_ns = in[origin].start_wall_ns;
	e.begin.start_wall = ev(in[origin].start_wall);
	event_deliver(out, &e);
	free((char *)hosts.s);
	free((char *)layers.s);
}

/* Each input as an event of no dltrace kind (its file, host, start, shift), then the summary. */
static void merged_end(struct event_consumer *out, const struct merge_input *in, uint32_t n,
		       bool output_error)
{
	struct merge_totals t;
	struct event e = {.type = EV_TRACE_END};

	for (uint32_t i = 0; i < n; i++) {
		char *line = malloc(merge_input_line_max(&in[i]));
		struct event x = {.type = EV_OTHER};

		if (!line)
			abort();
		x.raw = (struct ev_str){line, merge_input_line(line, &in[i])};
		x.other.name = EV_STR("dltrace_input");
		x.other.phase = 'M';
		event_deliver(out, &x);
		free(line);
	}
	merge_totals(in, n, output_error, &t);
	e.ts = t.duration_ns;
	e.end.lost = &t.lost;
	e.end.lost_events = t.lost.events;
	e.end.lost_bytes = t.lost.bytes;
	e.end.duration_ns = t.duration_ns;
	e.end.end_wall_ns = t.end_wall_ns;
	e.end.stop_reason = EV_STR("merged");
	e.end.truncated = t.truncated;
	event_deliver(out, &e);
}

static int write_merged_events(const struct merge_options *o, struct merge_input *in, uint32_t n)
{
	struct file_owner owner = invoking_user();
	enum trace_format format = trace_format_of_name(o->output);
	uint32_t origin = merge_align(in, n);
	struct output_sink sink;
	struct trace_writer *w;
	struct event_merge m;
	struct progress *progress;
	char err[600];
	const char *tail;
	size_t tail_len;
	int fd, rc = 0, werr;

	if (check_output(o->output, in, n))
		return 1;
	fd = output_open(o->output, &owner, 0600, err, sizeof(err));
	if (fd < 0) {
		fprintf(stderr, "dltrace merge: %s\n", err);
		return 1;
	}
	if (sink_init(&sink, fd, output_wants_gzip(o->output),
		      o->gzip_level ? o->gzip_level : trace_format_gzip_level(format)) ||
	    !(w = trace_writer__new(format, &sink, 0))) {
		fprintf(stderr, "dltrace merge: out of memory\n");
		return 1;
	}
	merged_begin(trace_writer__consumer(w), in, n, origin);
	sink_flush(&sink); /* the header is its own chunk: it survives a full disk */
	event_merge_init(&m, trace_writer__consumer(w), n);
	progress = merge_progress(o, in, n);
	for (uint32_t i = 0; i < n && !rc; i++) {
		event_merge_begin(&m, i, in[i].shift_ns, in[i].hostname.s, in[i].hostname.len);
		if (trace_file_read_progress(in[i].path, &m.consumer, &in[i].status, progress)) {
			fprintf(stderr, "dltrace merge: %s: %s; %s holds only what came before\n",
				in[i].path, in[i].status.error,
				strcmp(o->output, "-") ? o->output : "the output");
			rc = 1;
		}
		event_merge_end(&m);
		in[i].summary = m.summary;
		if (!rc)
			warn_input(&in[i]);
	}
	progress__done(progress);
	merged_end(trace_writer__consumer(w), in, n, sink.error != 0 || rc != 0);
	tail = trace_writer__tail(w, &tail_len);
	werr = sink_close(&sink, tail, tail_len);
	if (werr) {
		fprintf(stderr, "dltrace merge: writing %s failed: %s\n", o->output,
			strerror(-werr));
		rc = 1;
	} else if (!rc && !o->quiet) {
		fprintf(stderr, "dltrace merge: wrote %llu events of %u trace%s to %s\n",
			(unsigned long long)trace_writer__events(w), n, n == 1 ? "" : "s",
			strcmp(o->output, "-") ? o->output : "standard output");
	}
	event_merge_free(&m);
	trace_writer__free(w);
	return rc;
}

int merge_main(int argc, char **argv)
{
	struct merge_options o;
	struct merge_input *in;
	char err[400];
	int first = 0, rc;
	bool typed;
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
	/* JSON into JSON: the text rewrite; any .pftrace: typed events */
	typed = trace_format_of_name(o.output) != TRACE_FORMAT_JSON;
	for (uint32_t i = 0; i < n && !rc; i++) {
		enum trace_format f;

		in[i].path = argv[first + i];
		if (trace_file_format(in[i].path, &f, err, sizeof(err))) {
			fprintf(stderr, "dltrace merge: %s: %s\n", in[i].path, err);
			rc = 1;
		}
		typed |= f != TRACE_FORMAT_JSON;
	}
	for (uint32_t i = 0; i < n && !rc; i++) {
		if (typed ? read_header(&in[i], err, sizeof(err))
			  : trace_read_header(in[i].path, merge_input_header, &in[i], err,
					      sizeof(err))) {
			fprintf(stderr, "dltrace merge: %s: %s\n", in[i].path, err);
			rc = 1;
		}
	}
	if (!rc)
		rc = typed ? write_merged_events(&o, in, n) : write_merged(&o, in, n);
	for (uint32_t i = 0; i < n; i++)
		merge_input_free(&in[i]);
	free(in);
	return rc;
}
