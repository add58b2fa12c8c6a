// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `dltrace merge`: read every input's metadata (the earliest start is the
 * merged trace's time 0), then stream the inputs one after the other into
 * one output, with the merged metadata first and the merged summary last.
 * Two paths, chosen by the formats:
 *   - JSON inputs into a JSON output: a text-level rewrite of each line
 *     (merge/trace_merge.h), which keeps every other byte as it was;
 *   - any .pftrace input or output: typed events (merge/event_merge.h)
 *     from the format's reader into the output format's writer;
 *   - any PyTorch profiler trace (a JSON object, not an array): typed
 *     events, each profiler trace placed after the dltrace trace it joins
 *     (merge/kineto_merge.h), or after all of them as its own group.
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
#include "format/kineto/kineto_reader.h"
#include "format/trace_format.h"
#include "io/output_file.h"
#include "io/progress.h"
#include "merge/event_merge.h"
#include "merge/kineto_merge.h"
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
		     "A TRACE may also be a PyTorch profiler (Kineto) trace, as torch.profiler's\n"
		     "export_chrome_trace writes it: its events are placed by wall clock\n"
		     "(baseTimeNanoseconds + ts), its CPU ops on the tracks of the traced process\n"
		     "with the same pid, its GPU streams on tracks 'GPU N stream S' under that\n"
		     "process.  One from another host or boot is merged as its own process group,\n"
		     "with a warning saying why.  What cannot be placed is counted in the summary.\n"
		     "\n"
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
		"corrupt gzip data, a profiler trace cut short or without its base time) or\n"
		"the output cannot be written; 2 on usage errors.\n"
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

/* The same for the profiler traces. */
static int check_output_paths(const char *output, const char **paths, uint32_t n)
{
	struct stat out, st;

	if (!strcmp(output, "-") || stat(output, &out))
		return 0;
	for (uint32_t i = 0; i < n; i++)
		if (!stat(paths[i], &st) && st.st_dev == out.st_dev && st.st_ino == out.st_ino) {
			fprintf(stderr, "dltrace merge: the output %s is the input %s\n", output,
				paths[i]);
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

/* The merged metadata: hosts and layers of all inputs, the earliest start (origin_wall). */
static void merged_begin(struct event_consumer *out, const struct merge_input *in, uint32_t n,
			 uint32_t origin, int64_t origin_wall, uint32_t nk)
{
	struct trace_str hosts = merge_hosts(in, n), layers = merge_layers(in, n);
	struct event e = {.type = EV_TRACE_BEGIN};
	char target[96];
	int len = snprintf(target, sizeof(target), "merge of %u trace%s", n, n == 1 ? "" : "s");

	if (nk)
		snprintf(target + len, sizeof(target) - len, " and %u profiler trace%s", nk,
			 nk == 1 ? "" : "s");
	e.begin.version = EV_STR(DLTRACE_VERSION);
	e.begin.hostname = ev(hosts);
	e.begin.target = (struct ev_str){target, strlen(target)};
	e.begin.layers = ev(layers);
	/* every input's monotonic times, moved onto the earliest wall-clock start */
	e.begin.clock = EV_STR("CLOCK_REALTIME");
	e.begin.profiler_traces = nk;
	e.begin.start_wall_ns = origin_wall;
	/* a profiler trace that starts earlier: the writer spells its start */
	if (n && in[origin].start_wall_ns == origin_wall)
		e.begin.start_wall = ev(in[origin].start_wall);
	event_deliver(out, &e);
	free((char *)hosts.s);
	free((char *)layers.s);
}

/* An input's record line, an event of no dltrace kind. */
static void record_line(struct event_consumer *out, const char *name, char *line, size_t len)
{
	struct event x = {.type = EV_OTHER};

	x.raw = (struct ev_str){line, len};
	x.other.name = (struct ev_str){name, strlen(name)};
	x.other.phase = 'M';
	event_deliver(out, &x);
	free(line);
}

/* Each input as an event of no dltrace kind (its file, host, start, shift), then the summary. */
static void merged_end(struct event_consumer *out, const struct merge_input *in, uint32_t n,
		       struct kineto_input *const *kin, uint32_t nk, int64_t origin_wall,
		       bool output_error)
{
	struct merge_totals t;
	struct event e = {.type = EV_TRACE_END};
	struct ev_arg extra[EV_ARGS_MAX];
	char keys[2048];

	for (uint32_t i = 0; i < n; i++) {
		char *line = malloc(merge_input_line_max(&in[i]));

		if (!line)
			abort();
		record_line(out, "dltrace_input", line, merge_input_line(line, &in[i]));
	}
	for (uint32_t k = 0; k < nk; k++) {
		char *line = malloc(kineto_input__line_max(kin[k]));

		if (!line)
			abort();
		record_line(out, "kineto_input", line, kineto_input__line(kin[k], line));
	}
	if (nk) {
		/* the summary's counts of what the profiler traces held and what was placed */
		e.end.extra = extra;
		e.end.nextra = kineto_summary_args(kin, nk, extra, EV_ARGS_MAX - 16, keys,
						   sizeof(keys));
	}
	merge_totals(in, n, output_error, &t);
	/* the profiler traces' events may end after every dltrace trace */
	for (uint32_t k = 0; k < nk; k++) {
		int64_t last = kineto_input__last_wall(kin[k]);

		if (last != INT64_MIN && last - origin_wall > (int64_t)t.duration_ns)
			t.duration_ns = (uint64_t)(last - origin_wall);
		if (last > t.end_wall_ns)
			t.end_wall_ns = last;
	}
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

/* The earliest start of all inputs (profiler traces' first events too); shifts set from it. */
static int64_t merge_origin(struct merge_input *in, uint32_t n, struct kineto_input *const *kin,
			    uint32_t nk, uint32_t *origin)
{
	int64_t wall = INT64_MAX;

	*origin = n ? merge_align(in, n) : 0;
	if (n)
		wall = in[*origin].start_wall_ns;
	for (uint32_t k = 0; k < nk; k++)
		if (kineto_input__first_wall(kin[k]) < wall)
			wall = kineto_input__first_wall(kin[k]);
	if (wall == INT64_MAX)
		return 0;
	for (uint32_t i = 0; i < n; i++)
		in[i].shift_ns += (uint64_t)(in[*origin].start_wall_ns - wall);
	return wall;
}

/* The profiler traces that belong to the dltrace trace m merged last: placed after it. */
static int join_profiles(struct event_merge *m, const struct merge_input *in,
			 struct kineto_input *const *kin, uint32_t nk, int64_t origin_wall)
{
	uint64_t dur = m->summary.duration_ns > m->last_ts ? m->summary.duration_ns : m->last_ts;
	char err[400];

	for (uint32_t k = 0; k < nk; k++) {
		if (kineto_input__placed(kin[k]) ||
		    !kineto_input__joins(kin[k], m, in->path, in->start_wall_ns,
					 in->start_wall_ns + (int64_t)dur))
			continue;
		if (kineto_input__place(kin[k], m, origin_wall, true, err, sizeof(err))) {
			fprintf(stderr, "dltrace merge: %s\n", err);
			return 1;
		}
	}
	return 0;
}

/* The profiler traces no dltrace trace took: each its own process group, with a warning. */
static int place_alone(struct event_merge *m, struct kineto_input *const *kin, const char **paths,
		       uint32_t nk, int64_t origin_wall)
{
	char err[400], why[1024];

	for (uint32_t k = 0; k < nk; k++) {
		if (!kineto_input__placed(kin[k])) {
			fprintf(stderr, "dltrace merge: warning: %s: merged as its own process group: "
					"%s\n",
				paths[k], kineto_input__why_alone(kin[k]));
			if (kineto_input__place(kin[k], m, origin_wall, false, err, sizeof(err))) {
				fprintf(stderr, "dltrace merge: %s: %s\n", paths[k], err);
				return 1;
			}
		}
		kineto_input__unplaced_warning(kin[k], why, sizeof(why));
		if (why[0])
			fprintf(stderr, "dltrace merge: warning: %s: %s\n", paths[k], why);
	}
	return 0;
}

static int write_merged_events(const struct merge_options *o, struct merge_input *in, uint32_t n,
			       struct kineto_input *const *kin, const char **kpaths, uint32_t nk)
{
	struct file_owner owner = invoking_user();
	enum trace_format format = trace_format_of_name(o->output);
	uint32_t origin;
	int64_t origin_wall = merge_origin(in, n, kin, nk, &origin);
	struct output_sink sink;
	struct trace_writer *w;
	struct event_merge m;
	struct progress *progress;
	char err[600];
	const char *tail;
	size_t tail_len;
	int fd, rc = 0, werr;

	if (check_output(o->output, in, n) || check_output_paths(o->output, kpaths, nk))
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
	merged_begin(trace_writer__consumer(w), in, n, origin, origin_wall, nk);
	sink_flush(&sink); /* the header is its own chunk: it survives a full disk */
	event_merge_init(&m, trace_writer__consumer(w), n + nk);
	progress = merge_progress(o, in, n);
	for (uint32_t i = 0; i < n && !rc; i++) {
		event_merge_begin(&m, i, in[i].shift_ns, in[i].hostname.s, in[i].hostname.len);
		if (trace_file_read_progress(in[i].path, &m.consumer, &in[i].status, progress)) {
			fprintf(stderr, "dltrace merge: %s: %s; %s holds only what came before\n",
				in[i].path, in[i].status.error,
				strcmp(o->output, "-") ? o->output : "the output");
			rc = 1;
		}
		if (!rc)
			rc = join_profiles(&m, &in[i], kin, nk, origin_wall);
		event_merge_end(&m);
		in[i].summary = m.summary;
		if (!rc)
			warn_input(&in[i]);
	}
	progress__done(progress);
	if (!rc)
		rc = place_alone(&m, kin, kpaths, nk, origin_wall);
	merged_end(trace_writer__consumer(w), in, n, kin, nk, origin_wall, sink.error != 0 || rc != 0);
	tail = trace_writer__tail(w, &tail_len);
	werr = sink_close(&sink, tail, tail_len);
	if (werr) {
		fprintf(stderr, "dltrace merge: writing %s failed: %s\n", o->output,
			strerror(-werr));
		rc = 1;
	} else if (!rc && !o->quiet) {
		fprintf(stderr, "dltrace merge: wrote %llu events of %u trace%s to %s\n",
			(unsigned long long)trace_writer__events(w), n + nk, n + nk == 1 ? "" : "s",
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
	struct kineto_input **kin;
	const char **kpaths;
	char err[400];
	int first = 0, rc;
	bool typed;
	uint32_t n, total, nk = 0;

	rc = parse_args(argc, argv, &o, &first);
	if (rc)
		return rc == 1 ? 0 : rc;
	total = argc - first;
	in = calloc(total, sizeof(*in));
	kin = calloc(total, sizeof(*kin));
	kpaths = calloc(total, sizeof(*kpaths));
	if (!in || !kin || !kpaths) {
		fprintf(stderr, "dltrace merge: out of memory\n");
		return 1;
	}
	/* JSON into JSON: the text rewrite; any .pftrace or profiler trace: typed events */
	typed = trace_format_of_name(o.output) != TRACE_FORMAT_JSON;
	n = 0;
	for (uint32_t i = 0; i < total && !rc; i++) {
		const char *path = argv[first + i];
		enum trace_format f;

		if (kineto_file_is(path)) { /* a JSON object: a PyTorch profiler trace */
			kpaths[nk++] = path;
			continue;
		}
		in[n].path = path;
		if (trace_file_format(path, &f, err, sizeof(err))) {
			fprintf(stderr, "dltrace merge: %s: %s\n", path, err);
			rc = 1;
		}
		typed |= f != TRACE_FORMAT_JSON;
		n++;
	}
	typed |= nk > 0;
	for (uint32_t i = 0; i < n && !rc; i++) {
		if (typed ? read_header(&in[i], err, sizeof(err))
			  : trace_read_header(in[i].path, merge_input_header, &in[i], err,
					      sizeof(err))) {
			fprintf(stderr, "dltrace merge: %s: %s\n", in[i].path, err);
			rc = 1;
		}
	}
	/* the profiler traces' first reading: their base times, processes and times */
	for (uint32_t k = 0; k < nk && !rc; k++) {
		kin[k] = kineto_input__new(kpaths[k], n + k);
		if (!kin[k]) {
			fprintf(stderr, "dltrace merge: out of memory\n");
			rc = 1;
		} else if (kineto_input__scan(kin[k], err, sizeof(err))) {
			fprintf(stderr, "dltrace merge: %s: %s\n", kpaths[k], err);
			rc = 1;
		}
	}
	if (!rc)
		rc = typed ? write_merged_events(&o, in, n, kin, kpaths, nk)
			   : write_merged(&o, in, n);
	for (uint32_t i = 0; i < n; i++)
		merge_input_free(&in[i]);
	for (uint32_t k = 0; k < nk; k++)
		kineto_input__free(kin[k]);
	free(in);
	free(kin);
	free(kpaths);
	return rc;
}
