// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `dltrace convert IN OUT`: a trace file as a source of events, straight
 * into the writer of the other (or the same) format.
 *
 *   IN (.json, .json.gz, .pftrace, .pftrace.gz) -> trace_file_read -> events
 *      -> [watch: the summary, the last time] -> trace_writer (OUT's format) -> sink
 *
 * The summary is the input's own (events recounted by the writer).  An
 * input cut short gets one (truncated), as dltrace report would read it.
 */
#define _GNU_SOURCE
#include "cli/convert_cmd.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli_usage.h"
#include "event/event_tee.h"
#include "format/trace_format.h"
#include "io/output_file.h"
#include "io/output_sink.h"
#include "io/progress.h"

struct convert_options {
	const char *in, *out;
	int gzip_level; /* 0: the output format's default */
	bool quiet;
};

static void convert_usage(FILE *out)
{
	const struct trace_format_ops *def = trace_format_ops(0);
	char text[1024];
	size_t n = snprintf(text, sizeof(text), "Convert a dltrace trace between");

	/* every format with its suffixes; the output's name picks one, else the first */
	for (int f = 0; f < TRACE_FORMAT_COUNT && n < sizeof(text); f++)
		n += snprintf(text + n, sizeof(text) - n, "%s %s (%s, %s.gz)",
			      !f			    ? ""
			      : f == TRACE_FORMAT_COUNT - 1 ? " and"
							    : ",",
			      trace_format_ops(f)->title, trace_format_ops(f)->suffix,
			      trace_format_ops(f)->suffix);
	n += snprintf(text + n, n < sizeof(text) ? sizeof(text) - n : 0,
		      "; both hold the same events.\nThe input's format is read from its bytes; "
		      "the output's comes from its name:\n");
	for (int f = 1; f < TRACE_FORMAT_COUNT && n < sizeof(text); f++)
		n += snprintf(text + n, sizeof(text) - n, "%s and %s.gz are %s, ",
			      trace_format_ops(f)->suffix, trace_format_ops(f)->suffix,
			      trace_format_ops(f)->noun);
	if (n < sizeof(text))
		snprintf(text + n, sizeof(text) - n,
			 "any other name %s; .gz compresses;\n'-' is standard output (%s).  IN may "
			 "be '-' (standard input).",
			 def->noun, def->noun);
	fprintf(out, "Usage: dltrace convert [OPTIONS] IN OUT\n"
		     "\n");
	cli_wrap(out, 0, 0, text);
	fprintf(out, "\n"
		     "Options:\n");
	cli_gzip_level_help(out);
	fprintf(out,
		"  -q, --quiet            print nothing but errors and warnings\n"
		"  -h, --help             this help\n"
		"\n"
		"A trace cut short (a crash, a full disk) is converted with a warning, and\n"
		"its summary says it was truncated.  Exit status: 0; 1 when the input cannot\n"
		"be read (empty, not a dltrace trace, corrupt gzip data) or the output cannot\n"
		"be written; 2 on usage errors.  On a terminal, reading for more than a\n"
		"second shows its progress on standard error (bytes read of the total,\n"
		"events/s, time left; not with -q).\n");
}

static int parse_args(int argc, char **argv, struct convert_options *o)
{
	enum { OPT_GZIP = 256 };
	static const struct option longopts[] = {
	    {"gzip-level", required_argument, NULL, OPT_GZIP},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	int c;

	*o = (struct convert_options){NULL, NULL, 0, false};
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_GZIP:
			o->gzip_level = cli_gzip_level(optarg);
			if (o->gzip_level < 0)
				return cli_usage_error("convert", "--gzip-level needs 1 to 9, not",
						       optarg);
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			convert_usage(stdout);
			return 1;
		case ':':
			return cli_usage_error("convert", "missing argument for", argv[optind - 1]);
		default:
			return cli_usage_error("convert", "unknown option", argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		return cli_usage_error("convert", "needs an input and an output: IN OUT", NULL);
	o->in = argv[optind];
	o->out = argv[optind + 1];
	if (!*o->in || !*o->out)
		return cli_usage_error("convert", "file names cannot be empty", NULL);
	return 0;
}

/* What the converter needs to know of the stream besides writing it. */
struct watch {
	struct event_consumer c;
	bool begun, ended;
	int64_t start_wall_ns;
	uint64_t last_ns; /* the latest time an event reached */
};

static void watch_event(struct event_consumer *c, const struct event *e)
{
	struct watch *w = container_of(c, struct watch, c);
	uint64_t end = e->ts;

	if (e->type == EV_TRACE_BEGIN) {
		w->begun = true;
		w->start_wall_ns = e->begin.start_wall_ns;
	} else if (e->type == EV_TRACE_END) {
		w->ended = true;
		return;
	}
	if (e->type == EV_SYSCALL)
		end += e->sys.dur;
	if (end > w->last_ns)
		w->last_ns = end;
}

/* Never write over the input (the output is truncated when it is opened). */
static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return strcmp(a, "-") && strcmp(b, "-") && !stat(a, &sa) && !stat(b, &sb) &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static void warn_damage(const char *path, const struct trace_read_status *st)
{
	char why[200];

	if (trace_read_truncated(st)) {
		trace_read_damage(st, why, sizeof(why));
		fprintf(stderr,
			"dltrace convert: warning: %s: the trace is incomplete (%s); converted the "
			"%llu events it holds\n",
			path, why, (unsigned long long)st->events);
	}
	if (st->malformed)
		fprintf(stderr,
			"dltrace convert: warning: %s: %llu records are not events and were left "
			"out (the first, %llu: %s)\n",
			path, (unsigned long long)st->malformed,
			(unsigned long long)st->first_malformed_line,
			st->first_malformed_why ? st->first_malformed_why : "malformed");
}

static int convert(const struct convert_options *o)
{
	struct file_owner owner = invoking_user();
	enum trace_format format = trace_format_of_name(o->out);
	struct trace_read_status *st = calloc(1, sizeof(*st));
	struct watch watch = {0};
	struct output_sink sink;
	struct trace_writer *w;
	struct event_tee tee;
	struct progress *progress;
	char err[600];
	const char *tail;
	size_t tail_len;
	int fd, rc = 0, werr;

	if (!st) {
		fprintf(stderr, "dltrace convert: out of memory\n");
		return 1;
	}
	if (same_file(o->in, o->out)) {
		fprintf(stderr, "dltrace convert: the output %s is the input\n", o->out);
		free(st);
		return 1;
	}
	fd = output_open(o->out, &owner, 0600, err, sizeof(err));
	if (fd < 0) {
		fprintf(stderr, "dltrace convert: %s\n", err);
		free(st);
		return 1;
	}
	if (sink_init(&sink, fd, output_wants_gzip(o->out),
		      o->gzip_level ? o->gzip_level : trace_format_gzip_level(format)) ||
	    !(w = trace_writer__new(format, &sink, 0))) {
		fprintf(stderr, "dltrace convert: out of memory\n");
		free(st);
		return 1;
	}
	event_consumer_init(&watch.c);
	event_consumer_fill(&watch.c, watch_event);
	event_tee_init(&tee);
	event_tee_add(&tee, &watch.c);
	event_tee_add(&tee, trace_writer__consumer(w));
	progress = o->quiet ? NULL : progress__new("dltrace convert", progress_file_size(o->in));
	rc = trace_file_read_progress(o->in, &tee.consumer, st, progress);
	progress__done(progress);
	if (rc) {
		fprintf(stderr, "dltrace convert: %s: %s", o->in, st->error);
		if (watch.begun)
			fprintf(stderr, "; %s holds only what came before",
				strcmp(o->out, "-") ? o->out : "the output");
		fputc('\n', stderr);
		rc = 1;
	} else {
		warn_damage(o->in, st);
	}
	if (watch.begun && !watch.ended) {
		/* cut short: a summary that says so */
		struct event end = {.type = EV_TRACE_END, .ts = watch.last_ns};

		end.end.duration_ns = watch.last_ns;
		end.end.end_wall_ns = watch.start_wall_ns + (int64_t)watch.last_ns;
		end.end.truncated = true;
		event_deliver(&tee.consumer, &end);
	}
	tail = trace_writer__tail(w, &tail_len);
	werr = sink_close(&sink, tail, tail_len);
	if (werr) {
		fprintf(stderr, "dltrace convert: writing %s failed: %s\n", o->out,
			strerror(-werr));
		rc = 1;
	} else if (!rc && watch.begun && !o->quiet) {
		fprintf(stderr, "dltrace convert: wrote %llu events to %s (%s)\n",
			(unsigned long long)trace_writer__events(w),
			strcmp(o->out, "-") ? o->out : "standard output",
			trace_format_name(format));
	}
	if (!watch.begun) {
		/* nothing was converted: leave no file behind */
		if (!rc)
			fprintf(stderr, "dltrace convert: %s: no events\n", o->in);
		if (strcmp(o->out, "-"))
			unlink(o->out);
		rc = 1;
	}
	trace_writer__free(w);
	free(st);
	return rc;
}

int convert_main(int argc, char **argv)
{
	struct convert_options o;
	int rc = parse_args(argc, argv, &o);

	if (rc)
		return rc == 1 ? 0 : rc;
	return convert(&o);
}
