// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One tracing run: check the machine, open the output, load and attach the
 * probes, name the target, drain the ring buffer into the trace until the
 * target is gone (or a signal, or --duration), then detach, drain the rest
 * and close the trace with its summary.
 */
#define _GNU_SOURCE
#include "live/trace_session.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <locale.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "live/cgroup_lookup.h"
#include "live/job_trace.h"
#include "live/command_launcher.h"
#include "io/output_file.h"
#include "io/output_sink.h"
#include "io/record_file.h"
#include "probe/probe_loader.h"
#include "probe/python_probe.h"
#include "lib/proc_scan.h"
#include "decode/record_decoder.h"
#include "report/report_session.h"
#include "report/render/report_render.h"
#include "probe/system_checks.h"
#include "event/version.h"
#include "view/live_stats.h"
#include "view/top_ui.h"
#include "lib/clock_ns.h"

#define POLL_MS	 50
#define SWEEP_NS 1000000000ull /* liveness check of traced processes */
#define JOB_SLOT 1

static volatile sig_atomic_t stop_signal;   /* last stop signal received */
static volatile sig_atomic_t stop_count;    /* how many */
static volatile sig_atomic_t stop_from_tty; /* sent by the terminal (si_code SI_KERNEL) */
static volatile sig_atomic_t child_changed;

static void on_stop_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	stop_signal = sig;
	stop_count++;
	stop_from_tty = si && si->si_code == SI_KERNEL;
}

static void on_sigchld(int sig)
{
	(void)sig;
	child_changed = 1;
}

static void install_signals(void)
{
	struct sigaction sa = {0};

	sa.sa_sigaction = on_stop_signal;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_flags = 0;
	sa.sa_handler = on_sigchld;
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

struct session {
	const struct trace_options *opt;
	struct probes probes;
	struct job_trace trace;
	struct command cmd;
	int cmd_status;
	bool cmd_reaped;
	int cgroup_fd;
	char cgroup_path[PATH_MAX];
	char output[PATH_MAX];
	char target[PATH_MAX + 64];
	char layers[128];	  /* active layers, "syscall,mmap,..." */
	char layers_off[1024];	  /* "vfs: reason; ..." */
	char layers_attach[1024]; /* "syscall: syscall tracepoints; ..." */
	char err[2 * PATH_MAX + 256];
	const char *stop_reason;
	struct report_session *report; /* --report, --report-json, --summary-only */
	int summary_fd;		       /* --summary-only: -o's file, for the report */
	FILE *records;		       /* --save-records */
	struct live_stats *live;       /* --live, dltrace top */
	struct top_ui *ui;
	uint64_t t0;
	struct py_probe py; /* --python-stacks */
	bool py_on;
};

static int ring_record(void *ctx, void *data, size_t size)
{
	struct session *s = ctx;

	if (s->records && record_file_append(s->records, data, size)) {
		fclose(s->records);
		s->records = NULL;
		fprintf(stderr, "dltrace: writing %s failed; records no longer saved\n",
			s->opt->save_records);
	}
	job_trace_record(&s->trace, data, size);
	/* python stacks: a program just executed may be an interpreter not seen before */
	if (s->py_on && size >= sizeof(struct dl_proc) &&
	    ((const struct dl_hdr *)data)->kind == DL_EV_EXEC)
		py_probe_exec(&s->py, data, size);
	return 0;
}

static void say(const struct session *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void say(const struct session *s, const char *fmt, ...)
{
	va_list ap;

	if (s->opt->quiet)
		return;
	va_start(ap, fmt);
	fputs("dltrace: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void py_warn(void *ctx, const char *line)
{
	say(ctx, "%s", line);
}

static void default_output(char *out, size_t size, bool summary)
{
	time_t t = time(NULL);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(out, size,
		 summary ? "dltrace-%Y%m%d-%H%M%S.summary.json" : "dltrace-%Y%m%d-%H%M%S.json",
		 &tm);
}

/* Everything that can be refused before anything is attached. */
static int prepare(struct session *s)
{
	const struct trace_options *o = s->opt;
	struct file_owner owner = invoking_user();
	struct job_output out = {0};
	int fd;

	if (check_privileges(s->err, sizeof(s->err)) || check_btf(s->err, sizeof(s->err)) ||
	    ensure_tracefs(s->err, sizeof(s->err)))
		return -1;
	raise_memlock_limit();

	for (int i = 0; i < o->npids; i++) {
		if (!proc_exists(o->pids[i])) {
			snprintf(s->err, sizeof(s->err), "no process with pid %d", (int)o->pids[i]);
			return -1;
		}
	}
	if (o->npids)
		snprintf(s->target, sizeof(s->target), "pid %d%s", (int)o->pids[0],
			 o->npids > 1 ? " and others" : "");
	if (o->cgroup) {
		if (cgroup_resolve(o->cgroup, s->cgroup_path, sizeof(s->cgroup_path), s->err,
				   sizeof(s->err)))
			return -1;
		s->cgroup_fd = open(s->cgroup_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (s->cgroup_fd < 0) {
			snprintf(s->err, sizeof(s->err), "cannot open %s: %s", s->cgroup_path,
				 strerror(errno));
			return -1;
		}
		snprintf(s->target, sizeof(s->target), "cgroup %s", s->cgroup_path);
	}
	if (o->command) {
		size_t n = snprintf(s->target, sizeof(s->target), "command");

		for (char **a = o->command; *a && n < sizeof(s->target); a++)
			n += snprintf(s->target + n, sizeof(s->target) - n, " %s", *a);
	}

	if (o->output)
		snprintf(s->output, sizeof(s->output), "%s", o->output);
	else if (!o->top)
		default_output(s->output, sizeof(s->output), o->summary_only);
	if (o->save_records && !(s->records = record_file_create(o->save_records))) {
		snprintf(s->err, sizeof(s->err), "cannot create %s: %s", o->save_records,
			 strerror(errno));
		return -1;
	}
	fd = s->output[0] ? output_open(s->output, &owner, 0600, s->err, sizeof(s->err)) : -1;
	if (fd < 0 && s->output[0])
		return -1;
	out.format = trace_format_of_name(s->output);
	out.gzip = output_wants_gzip(s->output);
	out.level = o->gzip_level ? o->gzip_level : trace_format_gzip_level(out.format);
	if (o->summary_only) {
		/* no trace: the file takes the report's JSON at the end */
		s->summary_fd = fd;
		out.fd = -1;
	} else {
		out.fd = fd;
	}
	if (job_trace_init(&s->trace, &out)) {
		snprintf(s->err, sizeof(s->err), "out of memory");
		return -1;
	}
	return 0;
}

static void seed_pid(pid_t pid, void *ctx)
{
	struct session *s = ctx;

	if (proc_find(&s->trace.decoder.procs, pid))
		return;
	probes_add_process(&s->probes, pid, JOB_SLOT);
	decoder_seed_process(&s->trace.decoder, pid);
	if (s->py_on)
		py_probe_process(&s->py, pid);
}

/* --pid: the processes and their descendants, rescanned until stable. */
static void seed_targets(struct session *s)
{
	for (int round = 0; round < 3; round++) {
		uint32_t before = s->trace.decoder.procs.procs.count;

		for (int i = 0; i < s->opt->npids; i++)
			proc_for_each_descendant(s->opt->pids[i], seed_pid, s);
		if (round && s->trace.decoder.procs.procs.count == before)
			break;
	}
}

static void start_trace(struct session *s, uint64_t t0, int64_t wall0)
{
	struct utsname u;
	struct trace_meta m = {0};

	uname(&u);
	m.version = DLTRACE_VERSION;
	m.kernel = u.release;
	m.hostname = u.nodename;
	m.target = s->target;
	m.layers = s->layers;
	m.layers_off = s->layers_off;
	m.layers_attach = s->layers_attach;
	m.start_mono_ns = t0;
	m.start_wall_ns = wall0;
	m.tracer_pid = getpid();
	job_trace_begin(&s->trace, &m);
}

/* Reap children (dltrace is their subreaper); remember the command's status. */
static void reap(struct session *s)
{
	int status;
	pid_t pid;

	child_changed = 0;
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (pid == s->cmd.pid) {
			s->cmd_status = status;
			s->cmd_reaped = true;
		}
	}
}

/* Traced processes that vanished without an exit record (e.g. lost). */
static void sweep(struct session *s, uint32_t *suspects)
{
	struct id_map *m = &s->trace.decoder.procs.procs;
	uint32_t key, dead = 0;
	void *v;

	for (size_t i = 0; id_map_next(m, &i, &key, &v);) {
		struct process *p = v;

		if (p->live && !proc_exists(p->pid))
			dead++;
	}
	/* act only when seen twice: an exit record may still be in the ring */
	if (dead && *suspects) {
		for (size_t i = 0; id_map_next(m, &i, &key, &v);) {
			struct process *p = v;

			if (p->live && !proc_exists(p->pid))
				proc_mark_exited(&s->trace.decoder.procs, p, 0);
		}
	}
	*suspects = dead;
}

/* The live view's snapshot of the job now, with the records lost so far. */
static int live_snapshot(void *ctx, bool rows, struct live_snapshot *out)
{
	struct session *s = ctx;
	uint64_t now = clock_ns(CLOCK_MONOTONIC) - s->t0;
	struct lost_counts lost;

	if (rows ? live_stats__snapshot(s->live, now, out)
		 : live_stats__snapshot_totals(s->live, now, out))
		return -1;
	probes_lost(&s->probes, JOB_SLOT, &lost);
	out->lost = lost.events;
	return 0;
}

static bool cgroup_gone(struct session *s)
{
	return faccessat(s->cgroup_fd, "cgroup.procs", F_OK, 0) != 0;
}

static void run_loop(struct session *s, uint64_t t0)
{
	const struct trace_options *o = s->opt;
	uint64_t deadline = o->duration > 0 ? t0 + (uint64_t)(o->duration * 1e9) : 0;
	uint64_t next_sweep = t0 + SWEEP_NS;
	uint32_t suspects = 0;
	int handled_signals = 0;

	for (;;) {
		int n = probes_poll(&s->probes, POLL_MS);
		uint64_t now = clock_ns(CLOCK_MONOTONIC);

		if (n < 0) {
			s->stop_reason = "ring buffer error";
			break;
		}
		if (job_trace_error(&s->trace)) {
			s->stop_reason = "output write error";
			break;
		}
		if (child_changed)
			reap(s);
		if (s->ui && top_ui__step(s->ui)) { /* q: as a SIGINT that is not the terminal's */
			stop_signal = SIGINT;
			stop_from_tty = 0;
			stop_count++;
		}
		if (s->py_on)
			py_probe_poll(&s->py);
		if (stop_count > handled_signals) {
			handled_signals = stop_count;
			if (!o->command || stop_count > 1 || s->cmd_reaped) {
				s->stop_reason = "signal";
				break;
			}
			/* first signal with a command: let it end, keep tracing */
			if (!stop_from_tty)
				kill(s->cmd.pid, stop_signal);
			if (s->ui && top_ui__screen(s->ui))
				top_ui__message(s->ui,
						"waiting for the command to exit; press q or "
						"Ctrl-C again to stop tracing now");
			else
				say(s,
				    "waiting for the command to exit; press Ctrl-C again to stop "
				    "tracing now");
		}
		if (deadline && now >= deadline) {
			s->stop_reason = "duration";
			break;
		}
		if (o->cgroup) {
			if (cgroup_gone(s)) {
				s->stop_reason = "cgroup removed";
				break;
			}
			continue;
		}
		if (now >= next_sweep) {
			next_sweep = now + SWEEP_NS;
			sweep(s, &suspects);
		}
		if (s->trace.decoder.procs.live_procs == 0 && (!o->command || s->cmd_reaped)) {
			s->stop_reason = "target exited";
			break;
		}
	}
}

static int finish(struct session *s)
{
	struct trace_summary sum = {0};
	uint64_t events;
	int err;

	/* Stop recording: no task belongs to the job any more. */
	probes_set_job(&s->probes, JOB_SLOT, 0, -1);
	usleep(20000); /* let programs already past the filter finish */
	probes_flush_batches(&s->probes);
	probes_drain_backlog(&s->probes);
	probes_lost(&s->probes, JOB_SLOT, &sum.lost);
	if (s->opt->verbose) {
		struct probe_caches c;

		probes_caches(&s->probes, &c);
		fprintf(stderr, "dltrace: path cache: %llu directory walks served, %llu walked\n",
			(unsigned long long)c.dir_hits, (unsigned long long)c.dir_misses);
		fprintf(stderr,
			"dltrace: page faults: %llu file faults served from the thread's memory, "
			"%llu mappings looked up\n",
			(unsigned long long)c.fault_served, (unsigned long long)c.fault_lookups);
		if (s->opt->counts)
			fprintf(stderr, "dltrace: counting: %llu data calls in %llu run records\n",
				(unsigned long long)s->trace.decoder.run_calls,
				(unsigned long long)s->trace.decoder.runs);
	}
	if (s->records && fclose(s->records))
		fprintf(stderr, "dltrace: writing %s failed\n", s->opt->save_records);
	s->records = NULL;
	sum.stop_reason = s->stop_reason;
	err = job_trace_finish(&s->trace, &sum);
	events = job_trace_events(&s->trace);
	if (s->ui) { /* the view's last interval, the terminal back as it was */
		top_ui__finish(s->ui);
		top_ui__free(s->ui);
		s->ui = NULL;
	}
	if (s->opt->summary_only) {
		say(s, "traced %llu events (%s); the report goes to %s", (unsigned long long)events,
		    s->stop_reason ? s->stop_reason : "done",
		    strcmp(s->output, "-") ? s->output : "standard output");
	} else if (!s->output[0]) {
		say(s, "traced %llu events (%s); no trace file (-o FILE writes one)",
		    (unsigned long long)events, s->stop_reason ? s->stop_reason : "done");
	} else if (err) {
		fprintf(stderr,
			"dltrace: writing %s failed: %s; tracing stopped, the trace holds what "
			"was written before\n",
			s->output, strerror(-err));
	} else {
		say(s, "wrote %llu events to %s (%s)", (unsigned long long)events,
		    strcmp(s->output, "-") ? s->output : "standard output",
		    s->stop_reason ? s->stop_reason : "done");
		if (strcmp(s->output, "-"))
			say(s, "open it in https://ui.perfetto.dev (Open trace file)");
	}
	if (sum.lost.events) {
		char kinds[512];

		lost_counts_describe(&sum.lost, 6, kinds, sizeof(kinds));
		fprintf(stderr,
			"dltrace: WARNING: %llu events were lost (ring buffer full: %s); try a "
			"larger --ring-size\n",
			(unsigned long long)sum.lost.events, kinds);
	}
	return err ? 1 : 0;
}

/* --report-json FILE, or -o FILE with --summary-only: 0, or 1 with a message. */
static int write_report_json(struct session *s)
{
	const char *path = s->opt->summary_only ? s->output : s->opt->report_json;
	struct file_owner owner = invoking_user();
	char err[PATH_MAX + 256];
	FILE *f = stdout;
	int fd = -1;

	if (s->opt->summary_only && s->summary_fd >= 0 && s->summary_fd != 1) {
		fd = s->summary_fd;
		s->summary_fd = -1;
		if (!(f = fdopen(fd, "w"))) {
			fprintf(stderr, "dltrace: %s\n", strerror(errno));
			close(fd);
			return 1;
		}
	} else if (strcmp(path, "-")) {
		fd = output_open(path, &owner, 0600, err, sizeof(err));
		if (fd < 0 || !(f = fdopen(fd, "w"))) {
			fprintf(stderr, "dltrace: %s\n", fd < 0 ? err : strerror(errno));
			if (fd >= 0)
				close(fd);
			return 1;
		}
	}
	report_session__json(s->report, f, REPORT_DEFAULT_TOP);
	if (fflush(f) || ferror(f)) {
		fprintf(stderr, "dltrace: writing %s failed: %s\n", path, strerror(errno));
		if (f != stdout)
			fclose(f);
		return 1;
	}
	if (f != stdout)
		fclose(f);
	return 0;
}

/*
 * --report: the report, on standard output unless the trace went there;
 * --report-json: as JSON into its file.  Returns 1 when that failed.
 */
static int print_report(struct session *s)
{
	FILE *out = strcmp(s->output, "-") ? stdout : stderr;
	const char *nc = getenv("NO_COLOR");

	report_session__end_trace(s->report, NULL);
	report_session__finish(s->report, 0);
	if (s->opt->report) {
		setlocale(LC_CTYPE, "");
		fputc('\n', out);
		report_session__terminal(s->report, out, REPORT_DEFAULT_TOP,
					 isatty(fileno(out)) && !(nc && *nc));
		fflush(out);
	}
	return s->opt->report_json || s->opt->summary_only ? write_report_json(s) : 0;
}

int trace_run(const struct trace_options *o)
{
	struct session *s = calloc(1, sizeof(*s));
	struct probe_options po = {
	    .ring_bytes = o->ring_bytes,
	    .verbose = o->verbose,
	    .layers = o->layers,
	    .vfs_attach = o->vfs_attach,
	    .lib_paths = o->libs,
	    .nlib_paths = o->nlibs,
	};
	uint64_t t0;
	int64_t wall0;
	int rc = 1;

	if (!s)
		return 1;
	s->opt = o;
	s->cgroup_fd = -1;
	s->summary_fd = -1;
	s->cmd.pid = -1;
	s->cmd.release_fd = s->cmd.error_fd = -1;
	install_signals();
	if (prepare(s))
		goto fail;
	if (o->python_stacks != PY_STACKS_OFF) {
		char err[256];

		if (py_probe_options(&po, py_probe_default_kinds(), err, sizeof(err))) {
			if (o->python_stacks_asked) {
				snprintf(s->err, sizeof(s->err), "%s", err);
				goto fail;
			}
			say(s, "%s; tracing without Python stacks", err);
		} else if (decoder_python(&s->trace.decoder, &o->python_skip,
					  o->python_stacks == PY_STACKS_FULL)) {
			snprintf(s->err, sizeof(s->err), "out of memory");
			goto fail;
		}
	}
	if (o->report || o->report_json || o->summary_only) {
		/* the report is a consumer of the events as they are decoded */
		struct event_consumer *c = NULL;

		s->report = report_session__new();
		if (s->report)
			c = report_session__begin_trace(
			    s->report, o->summary_only || !s->output[0] ? "(no trace file)"
				       : strcmp(s->output, "-")		? s->output
									: "standard output");
		if (!c || job_trace_add_consumer(&s->trace, c)) {
			snprintf(s->err, sizeof(s->err), "out of memory");
			goto fail;
		}
	}
	if (o->live) {
		s->live = live_stats__new(0);
		if (!s->live || job_trace_add_consumer(&s->trace, live_stats__consumer(s->live))) {
			snprintf(s->err, sizeof(s->err), "out of memory");
			goto fail;
		}
	}
	if (o->command) {
		prctl(PR_SET_CHILD_SUBREAPER, 1);
		if (command_prepare(&s->cmd, o->command, s->err, sizeof(s->err)))
			goto fail;
	}

	t0 = clock_ns(CLOCK_MONOTONIC);
	wall0 = clock_ns(CLOCK_REALTIME);
	po.live = s->live != NULL;
	if (probes_load(&s->probes, &po, ring_record, s, s->err, sizeof(s->err)) ||
	    (po.python_stacks &&
	     py_probe_init(&s->py, &s->probes, py_warn, s, s->err, sizeof(s->err))) ||
	    probes_attach(&s->probes, s->err, sizeof(s->err)))
		goto fail;
	s->py_on = po.python_stacks;
	layers_describe(&s->probes.plan, s->layers, sizeof(s->layers), s->layers_off,
			sizeof(s->layers_off));
	layers_attach_methods(&s->probes.plan, s->layers_attach, sizeof(s->layers_attach));
	start_trace(s, t0, wall0);
	probes_set_counting(&s->probes, JOB_SLOT, o->counts);
	if (probes_set_job(&s->probes, JOB_SLOT, 1, s->cgroup_fd)) {
		snprintf(s->err, sizeof(s->err), "cannot configure the cgroup filter: %s",
			 strerror(errno));
		goto fail;
	}
	if (o->npids)
		seed_targets(s);
	/* the cgroup's processes are traced by the filter; their interpreters are found here */
	if (o->cgroup && s->py_on)
		cgroup_for_each_process(s->cgroup_path, py_probe_visit, &s->py);
	if (o->command) {
		if (s->py_on)
			py_probe_command(&s->py, o->command[0], s->cmd.pid);
		/* the held child joins at its exec: its remaining dltrace code is not traced */
		probes_add_process(&s->probes, s->cmd.pid, JOB_SLOT | DL_SEED_AT_EXEC);
		decoder_seed_process(&s->trace.decoder, s->cmd.pid);
		if (command_release(&s->cmd, s->err, sizeof(s->err))) {
			fprintf(stderr, "dltrace: %s\n", s->err);
			waitpid(s->cmd.pid, &s->cmd_status, 0);
			s->cmd_reaped = true;
			s->stop_reason = "command failed to start";
			finish(s);
			rc = command_exit_code(s->cmd_status);
			goto out;
		}
	}
	say(s, "tracing %s (layers %s; %zu probes%s%s%s); %s%s", s->target, s->layers,
	    s->probes.nlinks, s->probes.skipped ? "; not on this kernel: " : "",
	    s->probes.skipped_names, s->probes.skipped > 8 ? ", ..." : "",
	    s->output[0] ? "writing " : "no trace file", s->output);
	if (s->layers_off[0])
		say(s, "layers unavailable: %s", s->layers_off);
	if (s->live) {
		/* the view goes where the trace does not */
		s->t0 = t0;
		s->ui = top_ui__new(strcmp(s->output, "-") ? stdout : stderr, o->interval,
				    "dltrace top", live_snapshot, s);
		if (!s->ui)
			say(s, "no live view: out of memory");
	}

	run_loop(s, t0);
	rc = finish(s);
	if (o->command) {
		if (!s->cmd_reaped) {
			say(s, "tracing stopped; waiting for the command (pid %d) to exit",
			    (int)s->cmd.pid);
			while (waitpid(s->cmd.pid, &s->cmd_status, 0) < 0 && errno == EINTR)
				;
		}
		if (rc == 0)
			rc = command_exit_code(s->cmd_status);
	}
	if ((o->report || o->report_json || o->summary_only) && print_report(s) && rc == 0)
		rc = 1;
	goto out;

fail:
	fprintf(stderr, "dltrace: %s\n", s->err);
	if (s->cmd.pid > 0)
		command_abort(&s->cmd);
	if (s->trace.ready && !s->trace.open) {
		/* leave no half-written file behind on a start-up failure */
		job_trace_abandon(&s->trace);
		if (strcmp(s->output, "-"))
			unlink(s->output);
	}
	if (s->summary_fd >= 0 && s->summary_fd != 1)
		close(s->summary_fd);
	s->summary_fd = -1;
	rc = 1;
out:
	top_ui__free(s->ui);
	report_session__free(s->report);
	py_probe_free(&s->py);
	probes_release_and_exit_soon(&s->probes);
	probes_destroy(&s->probes);
	if (s->trace.ready) /* a failure after the header: close it as it is */
		job_trace_finish(&s->trace, &(const struct trace_summary){.stop_reason = "error"});
	live_stats__free(s->live);
	if (s->cgroup_fd >= 0)
		close(s->cgroup_fd);
	free(s);
	return rc;
}
