// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `dltrace replay TRACE`: the trace's application I/O issued again, where
 * --map and --stage say, and what that file system would save.
 *
 *   TRACE -> replay_plan (the trace's events) -> replay_plan__map
 *         -> --fio DIR: replay_fio_write, done
 *         -> replay_prepare (checks, staging, scratch, cache)
 *         -> --dry-run: the plan, done
 *         -> replay_run -> replay_report (terminal, --json, --html) -> cleanup
 */
#define _GNU_SOURCE
#include "cli/replay_cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_usage.h"
#include "format/trace_format.h"
#include "io/input_stream.h"
#include "io/output_file.h"
#include "io/progress.h"
#include "replay/replay_fio.h"
#include "replay/replay_plan.h"
#include "replay/replay_prepare.h"
#include "replay/replay_report.h"
#include "replay/replay_run.h"

#define DEFAULT_TOP 20
#define MAX_RULES   64

struct replay_cli {
	const char *trace, *stage, *scratch, *html, *trace_out, *fio;
	struct replay_map_rule rules[MAX_RULES];
	unsigned nrules, top;
	bool cold, warm, no_think, dry_run, json, quiet;
};

static void replay_usage(FILE *out)
{
	fprintf(out,
		"Usage: dltrace replay [OPTIONS] TRACE\n"
		"\n"
		"Replay the application I/O of a dltrace trace (.json or .pftrace, plain or\n"
		"gzip) on another file system, and say what it would save: each traced\n"
		"thread's calls on the job's files (not its environment, pipes or sockets)\n"
		"are issued again in their recorded order, by one thread per traced thread\n"
		"in one process per traced process, with the recorded time between calls;\n"
		"then the replayed I/O is set against the recorded, per file, directory,\n"
		"process and syscall kind, with the wall time and the data stall.\n"
		"\n"
		"Options:\n"
		"      --map OLD=NEW    replay the files below OLD from below NEW (repeatable;\n"
		"                       the longest OLD wins)\n"
		"      --stage DIR      copy the files the job read into DIR first (checking\n"
		"                       its free space) and replay them there\n"
		"      --scratch DIR    where the files the job changed are replayed: every\n"
		"                       write, unlink, rename, O_CREAT and O_TRUNC goes there;\n"
		"                       empty or new, emptied afterwards (default: a new\n"
		"                       directory under the stage, the first --map's NEW, or\n"
		"                       the files' directory)\n"
		"      --cold           drop the replayed files from the page cache first\n"
		"      --warm           read them into the page cache first\n"
		"      --no-think       drop the recorded time between calls: I/O alone\n"
		"      --dry-run        print the plan (files, threads, calls, bytes, what\n"
		"                       would be staged); touch nothing\n"
		"      --json           print the comparison (with --dry-run: the plan) as JSON\n"
		"      --html FILE      also write it as one HTML page\n"
		"      --top N          rows of each table (default %d)\n"
		"      --trace OUT      trace the replay itself with dltrace into OUT (root)\n"
		"      --fio DIR        write fio iolog v3 files (one per thread) and a job\n"
		"                       file into DIR instead of replaying\n"
		"  -q, --quiet          no progress line, no terminal comparison\n"
		"  -h, --help           this help\n"
		"\n"
		"Under sudo the replay runs as the invoking user.  Nothing is written outside\n"
		"the scratch and stage directories and the files named by --html, --trace and\n"
		"--fio.  A file the job read that is missing stops the replay before it\n"
		"starts; a file shorter than the trace's reads is reported and read as far as\n"
		"it goes.  Ctrl-C stops the replay and reports what was replayed.  Exit\n"
		"status: 0; 1 on errors; 2 on usage errors; 130 when stopped.\n",
		DEFAULT_TOP);
}

static int parse_args(int argc, char **argv, struct replay_cli *o)
{
	enum {
		OPT_MAP = 256,
		OPT_STAGE,
		OPT_SCRATCH,
		OPT_COLD,
		OPT_WARM,
		OPT_NO_THINK,
		OPT_DRY_RUN,
		OPT_JSON,
		OPT_HTML,
		OPT_TOP,
		OPT_TRACE,
		OPT_FIO,
	};
	static const struct option longopts[] = {
	    {"map", required_argument, NULL, OPT_MAP},
	    {"stage", required_argument, NULL, OPT_STAGE},
	    {"scratch", required_argument, NULL, OPT_SCRATCH},
	    {"cold", no_argument, NULL, OPT_COLD},
	    {"warm", no_argument, NULL, OPT_WARM},
	    {"no-think", no_argument, NULL, OPT_NO_THINK},
	    {"dry-run", no_argument, NULL, OPT_DRY_RUN},
	    {"json", no_argument, NULL, OPT_JSON},
	    {"html", required_argument, NULL, OPT_HTML},
	    {"top", required_argument, NULL, OPT_TOP},
	    {"trace", required_argument, NULL, OPT_TRACE},
	    {"fio", required_argument, NULL, OPT_FIO},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	char *end, *eq;
	long n;
	int c;

	memset(o, 0, sizeof(*o));
	o->top = DEFAULT_TOP;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_MAP:
			eq = strchr(optarg, '=');
			if (!eq || eq == optarg || !eq[1] || optarg[0] != '/' || eq[1] != '/')
				return cli_usage_error(
				    "replay", "--map needs OLD=NEW, two absolute paths, not",
				    optarg);
			if (o->nrules == MAX_RULES)
				return cli_usage_error("replay", "too many --map rules", NULL);
			*eq = '\0';
			o->rules[o->nrules++] = (struct replay_map_rule){optarg, eq + 1};
			break;
		case OPT_STAGE:
		case OPT_SCRATCH:
		case OPT_HTML:
		case OPT_TRACE:
		case OPT_FIO:
			if (!*optarg)
				return cli_usage_error("replay", "an empty name for",
						       argv[optind - 1]);
			*(c == OPT_STAGE     ? &o->stage
			  : c == OPT_SCRATCH ? &o->scratch
			  : c == OPT_HTML    ? &o->html
			  : c == OPT_TRACE   ? &o->trace_out
					     : &o->fio) = optarg;
			break;
		case OPT_COLD:
			o->cold = true;
			break;
		case OPT_WARM:
			o->warm = true;
			break;
		case OPT_NO_THINK:
			o->no_think = true;
			break;
		case OPT_DRY_RUN:
			o->dry_run = true;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_TOP:
			errno = 0;
			n = strtol(optarg, &end, 10);
			if (errno || *end || n < 1 || n > 1000000)
				return cli_usage_error(
				    "replay", "--top needs a number from 1 to 1000000, not",
				    optarg);
			o->top = (unsigned)n;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			replay_usage(stdout);
			return 1;
		case ':':
			return cli_usage_error("replay", "missing argument for", argv[optind - 1]);
		default:
			return cli_usage_error("replay", "unknown option", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_usage_error("replay", "no trace given", NULL);
	if (argc - optind > 1)
		return cli_usage_error("replay", "one trace at a time, not also", argv[optind + 1]);
	o->trace = argv[optind];
	if (o->cold && o->warm)
		return cli_usage_error("replay", "--cold and --warm are each other's opposite",
				       NULL);
	if (o->fio && (o->dry_run || o->trace_out || o->json || o->html))
		return cli_usage_error("replay",
				       "--fio writes files for fio and replays nothing: not with",
				       o->dry_run     ? "--dry-run"
				       : o->trace_out ? "--trace"
				       : o->json      ? "--json"
						      : "--html");
	if (o->stage && o->stage[0] != '/')
		return cli_usage_error("replay", "--stage needs an absolute path, not", o->stage);
	if (o->scratch && o->scratch[0] != '/')
		return cli_usage_error("replay", "--scratch needs an absolute path, not",
				       o->scratch);
	return 0;
}

/* A --summary-only report is JSON of another kind: say what it is, before the reader does. */
static bool is_summary(const char *path)
{
	char raw[4096], plain[512];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	const char *s;
	ssize_t n;
	size_t k;

	if (fd < 0)
		return false;
	n = read(fd, raw, sizeof(raw));
	close(fd);
	if (n <= 0)
		return false;
	k = input_stream_peek(raw, (size_t)n, plain, sizeof(plain) - 1);
	plain[k] = '\0';
	if (!k || plain[0] != '{' || !(s = strstr(plain, "\"schema\"")))
		return false;
	s += 8;
	s += strspn(s, " \t\r\n");
	if (*s++ != ':')
		return false;
	s += strspn(s, " \t\r\n");
	return !strncmp(s, "\"dltrace-report", 15);
}

/* Root through sudo: files are made as the invoking user (effective ids, undone after). */
static bool as_user(bool on)
{
	static bool active;
	struct file_owner u = invoking_user();

	if (geteuid() != 0 && !active)
		return false;
	if (u.uid == 0)
		return false;
	if (on && !active) {
		if (setegid(u.gid) || seteuid(u.uid))
			return false;
		active = true;
	} else if (!on && active) {
		if (seteuid(0) || setegid(0))
			return false;
		active = false;
	}
	return true;
}

/* The directory the replay's files are in (after --map): where the scratch goes by default. */
static char *default_scratch(const struct replay_cli *o, const struct replay_plan *p)
{
	const char *base = o->stage ? o->stage : o->nrules ? o->rules[0].to : NULL;
	char *common = NULL, *out = NULL, cwd[PATH_MAX];
	size_t clen = 0;

	if (o->fio) {
		if (asprintf(&out, "%s/scratch", o->fio) < 0)
			return NULL;
		return out;
	}
	if (!base) {
		for (uint32_t i = 0; i < p->nfiles; i++) {
			const struct rp_file *f = &p->files[i];
			const char *s = rp_str(p, f->source);
			size_t n = strlen(s);

			/* the data: files the job read bytes of */
			if ((f->flags & RPF_WRITTEN) || !f->bytes_read)
				continue;
			if (!(f->flags & RPF_DIR))
				while (n > 1 && s[n - 1] != '/')
					n--;
			if (n > 1 && s[n - 1] == '/')
				n--;
			if (!common) {
				common = strndup(s, n);
				clen = n;
				continue;
			}
			{
				size_t k = 0;

				while (k < clen && k < n && common[k] == s[k])
					k++;
				if (!((k == clen || common[k] == '/') && (k == n || s[k] == '/')))
					while (k > 1 && common[k - 1] != '/')
						k--;
				if (k > 1 && common[k - 1] == '/')
					k--;
				clen = k;
			}
		}
		if (common && clen > 1) {
			common[clen] = '\0';
			base = common;
		} else {
			base = getcwd(cwd, sizeof(cwd)) ? cwd : "/tmp";
		}
	}
	if (asprintf(&out, "%s%s.dltrace-replay-%d", base, base[strlen(base) - 1] == '/' ? "" : "/",
		     (int)getpid()) < 0)
		out = NULL;
	free(common);
	return out;
}

static int read_plan(const struct replay_cli *o, struct replay_plan *p)
{
	struct trace_read_status *st = calloc(1, sizeof(*st));
	struct progress *progress;
	char why[200];
	int rc;

	if (!st) {
		fprintf(stderr, "dltrace replay: out of memory\n");
		return -1;
	}
	progress = o->quiet ? NULL : progress__new("dltrace replay", progress_file_size(o->trace));
	rc = trace_file_read_progress(o->trace, replay_plan__consumer(p), st, progress);
	progress__done(progress);
	if (rc) {
		fprintf(stderr, "dltrace replay: %s: %s\n", o->trace, st->error);
		free(st);
		return -1;
	}
	if (!p->begun) {
		fprintf(stderr, "dltrace replay: %s: no events\n", o->trace);
		free(st);
		return -1;
	}
	if (trace_read_truncated(st)) {
		trace_read_damage(st, why, sizeof(why));
		fprintf(stderr,
			"dltrace replay: warning: %s: the trace is incomplete (%s); replaying the "
			"%llu events it holds\n",
			o->trace, why, (unsigned long long)st->events);
	}
	if (st->malformed)
		fprintf(stderr,
			"dltrace replay: warning: %s: %llu records are not events and were left "
			"out (the first, %llu: %s)\n",
			o->trace, (unsigned long long)st->malformed,
			(unsigned long long)st->first_malformed_line,
			st->first_malformed_why ? st->first_malformed_why : "malformed");
	free(st);
	return 0;
}

static void html_page(FILE *f, const void *r)
{
	replay_report__html(r, f);
}

static int write_html(const struct replay_report *r, const char *path)
{
	return cli_write_page("replay", path, html_page, r);
}

static void on_stop(int sig)
{
	(void)sig;
	replay_prepare_stop = 1;
}

static int replay(struct replay_cli *o)
{
	struct replay_plan *p = replay_plan__new();
	struct replay_prepare_options po = {0};
	struct replay_run_options ro = {0};
	struct replay_outcome out = {0};
	struct replay_prep prep = {0};
	struct replay_report_info info;
	struct replay_report *r = NULL;
	char err[1024], self[PATH_MAX];
	char *scratch = NULL;
	bool user = false;
	int rc = 1, stop;

	if (!p) {
		fprintf(stderr, "dltrace replay: out of memory\n");
		return 1;
	}
	if (is_summary(o->trace)) {
		fprintf(
		    stderr,
		    "dltrace replay: %s: a --summary-only report holds no calls to replay; trace "
		    "the job without --summary-only (dltrace -o trace.json -- COMMAND)\n",
		    o->trace);
		goto out;
	}
	if (read_plan(o, p))
		goto out;
	if (p->refused) {
		fprintf(stderr, "dltrace replay: %s: %s\n", o->trace, p->refusal);
		goto out;
	}
	if (replay_plan__finish(p)) {
		fprintf(stderr, "dltrace replay: out of memory\n");
		goto out;
	}
	replay_plan_warnings(p, stderr, "dltrace replay: ");
	if (!p->nthreads) {
		fprintf(stderr,
			"dltrace replay: %s: no application I/O to replay (%llu calls of the "
			"environment, pipes and sockets are not replayed)\n",
			o->trace, (unsigned long long)p->other_calls);
		goto out;
	}
	/* where each file goes: sources first (they place the default scratch) */
	if (replay_plan__map(p, o->rules, o->nrules, o->stage, "/")) {
		fprintf(stderr, "dltrace replay: out of memory\n");
		goto out;
	}
	if (!o->scratch) {
		scratch = default_scratch(o, p);
		if (!scratch) {
			fprintf(stderr, "dltrace replay: out of memory\n");
			goto out;
		}
		o->scratch = scratch;
	}
	if (replay_plan__map(p, o->rules, o->nrules, o->stage, o->scratch)) {
		fprintf(stderr, "dltrace replay: out of memory\n");
		goto out;
	}
	info = (struct replay_report_info){o->trace,	o->stage, o->scratch, o->rules, o->nrules,
					   o->no_think, o->cold,  o->warm,    o->top};
	if (o->fio) {
		user = as_user(true);
		unsigned logs = 0;

		if (replay_fio_write(p, o->fio, &logs, err, sizeof(err))) {
			fprintf(stderr, "dltrace replay: %s\n", err);
			goto out;
		}
		if (!o->quiet)
			fprintf(stderr,
				"dltrace replay: wrote %u fio iologs and %s/replay.fio (run: cd %s "
				"&& fio replay.fio)\n",
				logs, o->fio, o->fio);
		rc = 0;
		goto out;
	}
	if (o->trace_out && geteuid() != 0) {
		fprintf(stderr, "dltrace replay: --trace needs root, as dltrace does (sudo)\n");
		goto out;
	}
	po = (struct replay_prepare_options){o->stage, o->scratch, o->cold, o->warm, o->dry_run};
	user = as_user(true);
	/* Ctrl-C while staging: stop, and remove the scratch directory */
	signal(SIGINT, on_stop);
	signal(SIGTERM, on_stop);
	stop = replay_prepare(p, &po, &prep, err, sizeof(err));
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (stop) {
		fprintf(stderr, "dltrace replay: %s\n", err);
		replay_cleanup(&po, &prep, err, sizeof(err));
		if (replay_prepare_stop)
			rc = 130;
		goto out;
	}
	for (uint32_t i = 0; i < prep.nshorts; i++) {
		const struct rp_short_file *s = &prep.shorts[i];

		fprintf(stderr,
			"dltrace replay: warning: %s is %llu bytes; the trace reads it up to byte "
			"%llu: those reads return less\n",
			rp_str(p, p->files[s->file].replay), (unsigned long long)s->size,
			(unsigned long long)s->read_end);
	}
	if (o->dry_run) {
		if (o->json)
			replay_plan_json(p, &prep, &info, stdout);
		else
			replay_plan_print(p, &prep, &info, stdout);
		rc = 0;
		goto out;
	}
	if (user)
		as_user(false);
	user = false;
	{
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		self[n > 0 ? n : 0] = '\0';
	}
	ro = (struct replay_run_options){o->no_think, !o->quiet && isatty(2), o->trace_out, self,
					 geteuid() == 0 && invoking_user().uid != 0};
	if (replay_run(p, &ro, &out, err, sizeof(err))) {
		fprintf(stderr, "dltrace replay: %s\n", err);
		user = as_user(true);
		replay_cleanup(&po, &prep, err, sizeof(err));
		goto out;
	}
	user = as_user(true);
	if (replay_cleanup(&po, &prep, err, sizeof(err)))
		fprintf(stderr, "dltrace replay: warning: %s\n", err);
	if (out.released)
		fprintf(stderr,
			"dltrace replay: warning: %u waits between threads could never end (a "
			"damaged trace) and were given up\n",
			out.released);
	if (out.spawn_failed)
		fprintf(stderr,
			"dltrace replay: warning: %u threads or processes could not be "
			"started; their calls were not replayed\n",
			out.spawn_failed);
	r = replay_report__new(p, &out, &prep, &info);
	if (!r) {
		fprintf(stderr, "dltrace replay: out of memory\n");
		goto out;
	}
	rc = 0;
	if (o->html && write_html(r, o->html))
		rc = 1;
	if (o->json)
		replay_report__json(r, stdout);
	else if (!o->quiet)
		replay_report__terminal(r, stdout,
					isatty(1) && !(getenv("NO_COLOR") && *getenv("NO_COLOR")));
	if (fflush(stdout) && errno != EPIPE) {
		fprintf(stderr, "dltrace replay: writing the comparison failed: %s\n",
			strerror(errno));
		rc = 1;
	}
	if (o->html && !rc && !o->json)
		fprintf(stderr, "dltrace replay: wrote %s\n", o->html);
	if (out.stopped) {
		fprintf(stderr, "dltrace replay: stopped: %llu of %u ops replayed\n",
			(unsigned long long)out.ops_done, p->nops);
		rc = 130;
	}
out:
	if (user)
		as_user(false);
	replay_report__free(r);
	replay_outcome_free(&out, p);
	replay_prep_free(&prep);
	replay_plan__free(p);
	free(scratch);
	return rc;
}

int replay_main(int argc, char **argv)
{
	struct replay_cli o;
	int rc;

	setlocale(LC_CTYPE, "");
	rc = parse_args(argc, argv, &o);
	if (rc)
		return rc == 1 ? 0 : rc;
	return replay(&o);
}
