// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "cli/trace_options.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_usage.h"
#include "format/trace_format.h"
#include "io/output_file.h"
#include "probe/library_probes.h"
#include "probe/probe_layers.h"
#include "probe/system_checks.h"
#include "event/syscall_table.h"
#include "event/version.h"
#include "bpf/dltrace_events.h"

/* -o: each format by its suffix (format/trace_formats.def); the first is the default. */
static void output_help(FILE *out)
{
	const struct trace_format_ops *def = trace_format_ops(0);
	char text[1024];
	size_t n = snprintf(text, sizeof(text), "trace file:");

	for (int f = 0; f < TRACE_FORMAT_COUNT && n < sizeof(text); f++) {
		const struct trace_format_ops *t = trace_format_ops(f);

		n += snprintf(text + n, sizeof(text) - n, "%s %s (%s%s)",
			      !f			    ? ""
			      : f == TRACE_FORMAT_COUNT - 1 ? " or"
							    : ",",
			      t->suffix, t->title, t->note);
	}
	if (n < sizeof(text))
		snprintf(text + n, sizeof(text) - n,
			 "; .gz compresses;\n'-' is standard output (%s)\n"
			 "(default: dltrace-YYYYmmdd-HHMMSS%s)",
			 def->noun, def->suffix);
	cli_option(out, "  -o, --output FILE", text);
}

/* What the trace is: every format's title. */
static const char *formats_text(char *buf, size_t size)
{
	size_t n = snprintf(buf, size,
			    "Trace the file I/O of a process tree with eBPF and write a trace that "
			    "opens\nin Perfetto (https://ui.perfetto.dev):");

	for (int f = 0; f < TRACE_FORMAT_COUNT && n < size; f++)
		n += snprintf(buf + n, size - n, "%s %s",
			      !f			    ? ""
			      : f == TRACE_FORMAT_COUNT - 1 ? " or"
							    : ",",
			      trace_format_ops(f)->title);
	if (n < size)
		snprintf(buf + n, size - n, ".");
	return buf;
}

/* --layers: the layers' table (probe/probe_layers.c) by name, and those off by default. */
static void layers_help(FILE *out)
{
	char text[1024];
	size_t n = snprintf(text, sizeof(text), "capture layers, comma separated:");
	int off = 0;

	for (int i = 0; i < DL_LAYER_COUNT && n < sizeof(text); i++)
		n += snprintf(text + n, sizeof(text) - n, "%s %s", i ? "," : "",
			      layer_table[i].name);
	n +=
	    snprintf(text + n, n < sizeof(text) ? sizeof(text) - n : 0, ";\nall; default (all but");
	for (int i = 0; i < DL_LAYER_COUNT && n < sizeof(text); i++)
		if (!layer_table[i].on)
			n += snprintf(text + n, sizeof(text) - n, "%s %s", off++ ? "," : "",
				      layer_table[i].name);
	if (n < sizeof(text))
		snprintf(text + n, sizeof(text) - n,
			 ", where the kernel offers them); +LAYER/-LAYER change the default");
	cli_option(out, "      --layers LIST", text);
}

void trace_usage(FILE *out)
{
	char text[512];

	fprintf(out, "Usage: dltrace [OPTIONS] --pid PID\n"
		     "       dltrace [OPTIONS] --cgroup CGROUP\n"
		     "       dltrace [OPTIONS] -- COMMAND [ARGS...]\n"
		     "       dltrace top [OPTIONS] --pid PID|--cgroup CGROUP|-- COMMAND\n"
		     "       dltrace report [--json] [--html FILE] TRACE...\n"
		     "       dltrace merge TRACE... -o OUTPUT\n"
		     "       dltrace convert IN OUT\n"
		     "       dltrace replay [--map OLD=NEW] [--stage DIR] [--dry-run] TRACE\n"
		     "       dltrace daemon [--config FILE] [--foreground]\n"
		     "       dltrace ctl status|start --cgroup CGROUP|stop JOB|top JOB\n"
		     "\n");
	cli_wrap(out, 0, 0, formats_text(text, sizeof(text)));
	fprintf(out, "\n"
		     "Targets (one kind):\n"
		     "  -p, --pid PID          a running process (all its threads and the\n"
		     "                         processes it spawns); may be repeated\n"
		     "  -c, --cgroup CGROUP    every process in a cgroup v2 and its descendants:\n"
		     "                         an absolute directory or a name under the mount\n"
		     "  -- COMMAND [ARGS...]   run COMMAND (as the invoking user under sudo),\n"
		     "                         traced from its first instruction\n"
		     "\n"
		     "Options:\n");
	output_help(out);
	fprintf(out,
		"  -d, --duration SECS    stop after SECS seconds\n"
		"      --live             show the live view (as dltrace top) while tracing\n"
		"  -i, --interval SECS    seconds between two screens of the live view\n"
		"                         (default 1)\n"
		"      --report           print the I/O report when tracing ends\n"
		"      --report-json FILE write the report as JSON to FILE ('-': standard\n"
		"                         output) when tracing ends\n"
		"      --summary-only[=counts|events]  write no trace, only the report as\n"
		"                         JSON, into -o's file (default\n"
		"                         dltrace-YYYYmmdd-HHMMSS.summary.json): the cheapest\n"
		"                         way to watch a job; counts (the default): the kernel\n"
		"                         sends each thread's data calls alike (one file, size\n"
		"                         and kind, one after another) as one record, the same\n"
		"                         counts; events: a record per call, for the exact time\n"
		"                         of each call in the latency percentiles and timeline\n");
	layers_help(out);
	fprintf(out,
		"      --lib PATH         a library for the hdf5, mpiio, stdio or markers\n"
		"                         layer besides those found (repeatable)\n"
		"      --vfs-attach HOW   vfs layer: auto (fentry, else kprobes), fentry, kprobe\n"
		"      --ring-size MIB    kernel ring buffer size in MiB (default 16)\n");
	cli_gzip_level_help(out);
	fprintf(out,
		"      --python-stacks[=off|on|full]  the Python line behind each syscall of\n"
		"                         a CPython 3.10-3.13 process, read by the kernel\n"
		"                         (args.py \"file.py:LINE function\", the innermost\n"
		"                         frame of the application; full: also every frame,\n"
		"                         args.py_stack); default off\n"
		"      --python-skip PATTERN  frames whose file matches PATTERN (fnmatch) are\n"
		"                         not the application's ('!PATTERN' keeps them, 'none'\n"
		"                         drops the defaults: the standard library,\n"
		"                         site-packages, dist-packages, <frozen ...>)\n"
		"      --save-records FILE  also save the kernel's raw records to FILE\n"
		"                         (input of the benchmark's decode replay; developers)\n"
		"      --list-syscalls[=FORMAT]  print the syscalls dltrace traces (name,\n"
		"                         category, tracepoint, program, whether this kernel\n"
		"                         has it); FORMAT man or markdown: the docs' list,\n"
		"                         by category\n"
		"      --list-layers      print the capture layers, one a line: name, on or off\n"
		"                         by default, what it records, what it attaches to,\n"
		"                         what it costs (tabs between them)\n"
		"  -q, --quiet            print nothing but errors\n"
		"  -v, --verbose          libbpf's messages and the verifier log; at the end,\n"
		"                         what the kernel side's caches spared (paths, faults)\n"
		"  -h, --help             this help\n"
		"  -V, --version          print the version\n"
		"\n"
		"Tracing stops when the traced processes have all exited, when the\n"
		"cgroup is removed, after --duration, or on Ctrl-C, SIGTERM or SIGHUP.\n"
		"Exit status: the command's status with '--', else 0; 1 on errors, 2 on\n"
		"usage errors.  See dltrace(8).\n");
}

/*
 * --list-syscalls: one line per syscall kind,
 *   NAME CATEGORY TRACEPOINT PROGRAM PRESENT
 * PROGRAM: the enter program (dl_enter_<tracepoint>, or dl_enter_shared for
 * the kinds whose programs are shared); PRESENT: yes/no, "?" when tracefs
 * cannot be read.
 */
static void list_syscalls(void)
{
	char err[256], tp[96];
	bool tracefs = ensure_tracefs(err, sizeof(err)) == 0;

	for (unsigned k = 0; k < DL_SYS_COUNT; k++) {
		const struct syscall_info *si = syscall_info(k);

		snprintf(tp, sizeof(tp), "sys_enter_%s", si->tracepoint);
		printf("%s %s %s dl_enter_%s %s\n", si->name, io_class_name(si->io_class), tp,
		       si->shared ? "shared" : si->tracepoint,
		       !tracefs				   ? "?"
		       : tracepoint_exists("syscalls", tp) ? "yes"
							   : "no");
	}
}

/*
 * --list-syscalls=man|markdown: the docs' list, the names by category
 * (make syscall-docs puts it in the man page): man, a count and one .TP per
 * category, its names wrapped; markdown, a table of one row per category.
 */
static int list_syscalls_docs(const char *format)
{
	static const enum io_class order[] = {IO_DATA, IO_METADATA, IO_SYNC, IO_HINT};
	bool man = !strcmp(format, "man");

	if (!man && strcmp(format, "markdown"))
		return -1;
	if (man)
		printf("The %d syscalls, by category:\n", DL_SYS_COUNT);
	else
		printf("| category | syscalls |\n| --- | --- |\n");
	for (size_t c = 0; c < sizeof(order) / sizeof(order[0]); c++) {
		size_t col = 0;

		if (man)
			printf(".TP\n.B %s\n", io_class_name(order[c]));
		else
			printf("| `%s` |", io_class_name(order[c]));
		for (unsigned k = 0, n = 0; k < DL_SYS_COUNT; k++) {
			const struct syscall_info *si = syscall_info(k);
			size_t len = strlen(si->name);

			if (si->io_class != order[c])
				continue;
			if (man && n && col + 2 + len > 74) {
				printf(",\n");
				col = 0;
			} else if (n) {
				printf(", ");
				col += 2;
			} else if (!man) {
				printf(" ");
			}
			printf("%s", si->name);
			col += len;
			n++;
		}
		printf(man ? ".\n" : " |\n");
	}
	return 0;
}

/*
 * --list-layers: one line per capture layer, in --layers order,
 *   NAME on|off RECORDS ATTACHES COST   (tab-separated)
 */
static void list_layers(void)
{
	for (int i = 0; i < DL_LAYER_COUNT; i++) {
		const struct layer_info *l = &layer_table[i];

		printf("%s\t%s\t%s\t%s\t%s\n", l->name, l->on ? "on" : "off", l->records,
		       l->attaches, l->cost);
	}
}

static void top_usage(FILE *out)
{
	fprintf(out,
		"Usage: dltrace top [OPTIONS] --pid PID\n"
		"       dltrace top [OPTIONS] --cgroup CGROUP\n"
		"       dltrace top [OPTIONS] -- COMMAND [ARGS...]\n"
		"\n"
		"Trace a job and show its I/O live: per process (as a tree), per file, per\n"
		"directory and per capture layer, rates over the last interval and totals\n"
		"since the start, lost events, the training thread's time in I/O and its data\n"
		"stall (with dltrace markers).  On a terminal, a full screen:\n"
		"  p f d l   processes, files, directories, layers (Tab: the next one)\n"
		"  < >       sort by the column to the left or right (r: reverse order)\n"
		"  t         processes as a tree or a list\n"
		"  space     pause (tracing goes on)\n"
		"  q         stop tracing, as Ctrl-C: a command started with -- gets SIGINT\n"
		"Otherwise one line per interval (a header line first): the counts of the\n"
		"interval, for logs and scripts.\n"
		"\n"
		"  -i, --interval SECS    seconds between two screens (default 1)\n"
		"  -o, --output FILE      also write the trace (none without -o)\n"
		"\n"
		"Every option of 'dltrace --help' applies.  See dltrace(8).\n");
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "dltrace: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'dltrace --help' for more information.\n");
	return 2;
}

static int parse_pid(const char *s, pid_t *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v <= 0 || v > INT_MAX)
		return -1;
	*out = v;
	return 0;
}

int trace_options_parse(struct trace_options *o, int argc, char **argv)
{
	enum {
		OPT_REPORT = 256,
		OPT_REPORT_JSON,
		OPT_RING,
		OPT_GZIP,
		OPT_LAYERS,
		OPT_VFS,
		OPT_SAVE_RECORDS,
		OPT_LIB,
		OPT_LIST_SYSCALLS,
		OPT_LIST_LAYERS,
		OPT_SUMMARY_ONLY,
		OPT_LIVE,
		OPT_PYTHON_STACKS,
		OPT_PYTHON_SKIP
	};
	static const struct option longopts[] = {
	    {"pid", required_argument, NULL, 'p'},
	    {"cgroup", required_argument, NULL, 'c'},
	    {"output", required_argument, NULL, 'o'},
	    {"duration", required_argument, NULL, 'd'},
	    {"report", no_argument, NULL, OPT_REPORT},
	    {"live", no_argument, NULL, OPT_LIVE},
	    {"interval", required_argument, NULL, 'i'},
	    {"report-json", required_argument, NULL, OPT_REPORT_JSON},
	    {"summary-only", optional_argument, NULL, OPT_SUMMARY_ONLY},
	    {"ring-size", required_argument, NULL, OPT_RING},
	    {"gzip-level", required_argument, NULL, OPT_GZIP},
	    {"layers", required_argument, NULL, OPT_LAYERS},
	    {"vfs-attach", required_argument, NULL, OPT_VFS},
	    {"save-records", required_argument, NULL, OPT_SAVE_RECORDS},
	    {"lib", required_argument, NULL, OPT_LIB},
	    {"list-syscalls", optional_argument, NULL, OPT_LIST_SYSCALLS},
	    {"list-layers", no_argument, NULL, OPT_LIST_LAYERS},
	    {"python-stacks", optional_argument, NULL, OPT_PYTHON_STACKS},
	    {"python-skip", required_argument, NULL, OPT_PYTHON_SKIP},
	    {"quiet", no_argument, NULL, 'q'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {0},
	};
	bool layers_given = false;
	char *end;
	long v;
	int c;

	memset(o, 0, sizeof(*o));
	o->ring_bytes = 16ull << 20;
	o->layers = layers_default();
	o->vfs_attach = VFS_ATTACH_AUTO;
	o->interval = 0;
	o->top = o->live = argc > 0 && !strcmp(argv[0], "top");
	o->python_stacks = PY_STACKS_DEFAULT;
	py_rules_init(&o->python_skip);
	optind = 1;
	opterr = 0;
	/* '+': stop at the first non-option so that COMMAND's own options are its own */
	while ((c = getopt_long(argc, argv, "+:p:c:o:d:i:qvhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (o->npids == MAX_PIDS)
				return usage_error("too many --pid options (at most 64)%s", "");
			if (parse_pid(optarg, &o->pids[o->npids]))
				return usage_error("--pid needs a positive process id, not '%s'",
						   optarg);
			o->npids++;
			break;
		case 'c':
			o->cgroup = optarg;
			break;
		case 'o':
			if (!*optarg)
				return usage_error("--output needs a file name%s", "");
			o->output = optarg;
			break;
		case 'd':
			errno = 0;
			o->duration = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(o->duration > 0) ||
			    o->duration > 1e9 || isnan(o->duration))
				return usage_error(
				    "--duration needs a positive number of seconds, not '%s'",
				    optarg);
			break;
		case OPT_REPORT:
			o->report = true;
			break;
		case OPT_SUMMARY_ONLY:
			o->summary_only = true;
			o->counts = !optarg || !strcmp(optarg, "counts");
			if (optarg && !o->counts && strcmp(optarg, "events"))
				return usage_error(
				    "--summary-only takes counts or events, not '%s'", optarg);
			break;
		case OPT_LIVE:
			o->live = true;
			break;
		case 'i':
			errno = 0;
			o->interval = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(o->interval >= 0.1) ||
			    o->interval > 86400)
				return usage_error("--interval needs a number of seconds from 0.1 "
						   "to 86400, not '%s'",
						   optarg);
			break;
		case OPT_REPORT_JSON:
			if (!*optarg)
				return usage_error("--report-json needs a file name%s", "");
			o->report_json = optarg;
			break;
		case OPT_RING:
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || *end || v < 1 || v > 4096 || (v & (v - 1)))
				return usage_error(
				    "--ring-size needs a power of two from 1 to 4096 (MiB), "
				    "not '%s'",
				    optarg);
			o->ring_bytes = (uint64_t)v << 20;
			break;
		case OPT_GZIP:
			o->gzip_level = cli_gzip_level(optarg);
			if (o->gzip_level < 0)
				return usage_error("--gzip-level needs 1 to 9, not '%s'", optarg);
			break;
		case OPT_LAYERS: {
			char err[256];

			if (layers_parse(optarg, &o->layers, err, sizeof(err)))
				return usage_error("%s", err);
			layers_given = true;
			break;
		}
		case OPT_LIB: {
			char err[PATH_MAX + 256], real[PATH_MAX];

			if (o->nlibs == MAX_LIBS)
				return usage_error("--lib: at most 16 libraries%s", "");
			if (library_probes_check_path(optarg, real, err, sizeof(err)))
				return usage_error("%s", err);
			o->libs[o->nlibs] = strdup(real);
			if (!o->libs[o->nlibs])
				return usage_error("%s", "out of memory");
			o->nlibs++;
			break;
		}
		case OPT_VFS:
			if (strcmp(optarg, "auto") == 0)
				o->vfs_attach = VFS_ATTACH_AUTO;
			else if (strcmp(optarg, "fentry") == 0)
				o->vfs_attach = VFS_ATTACH_FENTRY;
			else if (strcmp(optarg, "kprobe") == 0)
				o->vfs_attach = VFS_ATTACH_KPROBE;
			else
				return usage_error(
				    "--vfs-attach needs auto, fentry or kprobe, not '%s'", optarg);
			break;
		case OPT_SAVE_RECORDS:
			if (!*optarg)
				return usage_error("--save-records needs a file name%s", "");
			o->save_records = optarg;
			break;
		case OPT_PYTHON_STACKS:
			if (!optarg || !strcmp(optarg, "on"))
				o->python_stacks = PY_STACKS_ON;
			else if (!strcmp(optarg, "off"))
				o->python_stacks = PY_STACKS_OFF;
			else if (!strcmp(optarg, "full"))
				o->python_stacks = PY_STACKS_FULL;
			else
				return usage_error(
				    "--python-stacks takes off, on or full, not '%s'", optarg);
			o->python_stacks_asked = true;
			break;
		case OPT_PYTHON_SKIP: {
			char err[128];

			if (py_rules_add(&o->python_skip, optarg, err, sizeof(err)))
				return usage_error("%s", err);
			break;
		}
		case 'q':
			o->quiet = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			if (o->top)
				top_usage(stdout);
			else
				trace_usage(stdout);
			return 1;
		case OPT_LIST_SYSCALLS:
			if (optarg && list_syscalls_docs(optarg))
				return usage_error("--list-syscalls=%s: FORMAT is man or markdown",
						   optarg);
			if (!optarg)
				list_syscalls();
			return 1;
		case OPT_LIST_LAYERS:
			list_layers();
			return 1;
		case 'V':
			printf("dltrace %s\n", DLTRACE_VERSION);
			return 1;
		case ':':
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc) {
		if (strcmp(argv[optind - 1], "--") != 0)
			return usage_error("unexpected argument '%s' (put the command after '--')",
					   argv[optind]);
		o->command = &argv[optind];
	} else if (optind > 0 && strcmp(argv[optind - 1], "--") == 0) {
		return usage_error("no command after '--'%s", "");
	}
	if (o->report_json && o->output && !strcmp(o->report_json, "-") && !strcmp(o->output, "-"))
		return usage_error("the trace and the --report-json report cannot both go to "
				   "standard output%s",
				   "");
	if (o->summary_only && o->report_json)
		return usage_error("--summary-only writes the report's JSON into -o's file: "
				   "--report-json is not needed%s",
				   "");
	if (o->summary_only && o->output && strcmp(o->output, "-") &&
	    (trace_format_of_name(o->output) != TRACE_FORMAT_JSON || output_wants_gzip(o->output)))
		return usage_error("--summary-only writes the report as JSON, not a trace: give -o "
				   "a .json file, not '%s'",
				   o->output);
	if (o->counts && !layers_given)
		o->layers = layers_default_counted();
	if (o->interval && !o->live)
		return usage_error("--interval is for the live view (--live or dltrace top)%s", "");
	if (!o->interval)
		o->interval = 1;
	if ((o->npids > 0) + (o->cgroup != NULL) + (o->command != NULL) != 1)
		return usage_error("give exactly one target kind: --pid, --cgroup or -- COMMAND%s",
				   "");
	return 0;
}

void trace_options_free(struct trace_options *o)
{
	for (size_t i = 0; i < o->nlibs; i++)
		free(o->libs[i]);
	o->nlibs = 0;
}
