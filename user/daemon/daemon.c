// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `dltrace daemon`: always on, one set of BPF programs, one trace per job.
 *
 * A job is a cgroup v2 directory whose path matches a configured pattern
 * (Slurm's job_<id>).  The kernel reports cgroup directories as they are
 * made and removed (cgroup_probes.bpf.c); a new job gets a job slot, its
 * cgroup becomes that slot's filter and its records go to its own trace;
 * when the cgroup is removed the trace is finished, summarized, renamed for
 * the job's user and handed over.  While no job runs the syscall probes are
 * detached (after idle_detach_s), leaving only the cgroup probes.
 */
#define _GNU_SOURCE
#include "daemon/daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "live/cgroup_lookup.h"
#include "lib/json_value.h"
#include "daemon/control_socket.h"
#include "daemon/ctl_top.h"
#include "daemon/daemon_config.h"
#include "daemon/job_files.h"
#include "live/job_trace.h"
#include "report/report_session.h"
#include "report/render/report_render.h"
#include "probe/probe_loader.h"
#include "probe/python_probe.h"
#include "decode/python_frames.h"
#include "probe/system_checks.h"
#include "event/version.h"
#include "metrics/http_server.h"
#include "metrics/openmetrics.h"
#include "view/live_snapshot_json.h"
#include "view/live_stats.h"
#include "lib/clock_ns.h"

#define DEFAULT_CONFIG	"/etc/dltrace/dltrace.conf"
#define LOOP_MS		50
#define FINISH_DELAY_NS 50000000ull /* let records already on their way arrive */

struct job {
	bool used;
	bool ending;
	uint32_t slot;
	uint32_t id;
	char jobid[64];
	char cgroup[PATH_MAX]; /* below the cgroup v2 mount */
	uint64_t cgroup_id;
	int cgroup_fd;
	struct job_files files;
	struct job_trace trace;
	struct report_session *report; /* the job's summary, from its whole event stream */
	struct live_stats *live;       /* ctl top and /metrics */
	double start_time;	       /* Unix time tracing began */
	struct lost_counts lost0;      /* the slot's counters when the job started */
	uint64_t end_at;
	const char *stop_reason;
	time_t started;
};

struct daemon {
	struct daemon_config cfg;
	const char *config_path;
	struct probes probes;
	bool attached; /* the tracing programs (not only the cgroup ones) */
	struct job jobs[DL_MAX_JOBS];
	uint32_t next_id;
	uint64_t idle_since;
	char mount[PATH_MAX];
	char host[65];
	int listen_fd;
	time_t last_expiry;
	uint64_t jobs_done;
	struct http_server *metrics;	 /* /metrics (NULL: off) */
	uint64_t events_done, lost_done; /* of the finished jobs, for /metrics */
	double start_time;
	/* python_stacks: the interpreters of the jobs' processes, and the frames' rules */
	struct py_probe py;
	bool py_on;
	struct py_rules py_rules;
};

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...)
{
	char when[32];
	time_t t = time(NULL);
	struct tm tm;
	va_list ap;

	localtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(stderr, "%s dltrace: ", when);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}

/* Python stacks: one line per interpreter it cannot read */
static void py_log(void *ctx, const char *line)
{
	(void)ctx;
	logf_("%s", line);
}

static int64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static bool is_cgroup_program(const struct bpf_program *prog)
{
	return strncmp(bpf_program__name(prog), "cgroup_", 7) == 0;
}

static bool is_tracing_program(const struct bpf_program *prog)
{
	return !is_cgroup_program(prog);
}

static int attach_tracing(struct daemon *d)
{
	char err[512];
	uint64_t t = mono_ns();

	if (d->attached)
		return 0;
	if (probes_attach_where(&d->probes, is_tracing_program, err, sizeof(err))) {
		logf_("%s", err);
		return -1;
	}
	d->attached = true;
	logf_("probes attached (%zu links, %.0f ms)", d->probes.nlinks, (mono_ns() - t) / 1e6);
	return 0;
}

static struct job *job_by_slot(struct daemon *d, uint32_t slot)
{
	return slot < DL_MAX_JOBS && d->jobs[slot].used ? &d->jobs[slot] : NULL;
}

static struct job *find_job(struct daemon *d, const char *what)
{
	for (uint32_t s = 1; s < DL_MAX_JOBS; s++) {
		struct job *j = &d->jobs[s];

		if (j->used && (!strcmp(j->jobid, what) || !strcmp(j->cgroup, what)))
			return j;
	}
	return NULL;
}

/*
 * Start job j's slot: without a trace file (trace_format = none) its data
 * calls alike are counted in runs, which its summary and metrics count.
 */
static int job_attach(struct daemon *d, struct job *j)
{
	probes_set_counting(&d->probes, j->slot, d->cfg.trace_format == CONFIG_TRACE_NONE);
	return probes_set_job(&d->probes, j->slot, j->id, j->cgroup_fd);
}

static int job_start(struct daemon *d, const char *rel, const char *jobid, char *err, size_t errlen)
{
	char path[PATH_MAX + 64], target[PATH_MAX + 128], suffix[16];
	struct trace_meta m = {0};
	struct utsname u;
	struct stat st;
	struct job *j = NULL;
	int fd;

	if (find_job(d, rel)) {
		snprintf(err, errlen, "%s is already traced", rel);
		return -1;
	}
	for (uint32_t s = 1; s < DL_MAX_JOBS && !j; s++)
		if (!d->jobs[s].used)
			j = &d->jobs[s];
	if (!j) {
		snprintf(err, errlen, "too many jobs at once (%d)", DL_MAX_JOBS - 1);
		return -1;
	}
	memset(j, 0, sizeof(*j));
	j->slot = j - d->jobs;
	j->id = ++d->next_id ? d->next_id : ++d->next_id;
	snprintf(j->jobid, sizeof(j->jobid), "%s", jobid);
	snprintf(j->cgroup, sizeof(j->cgroup), "%s", rel);
	snprintf(path, sizeof(path), "%s%s", d->mount, rel);
	j->cgroup_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (j->cgroup_fd < 0 || fstat(j->cgroup_fd, &st)) {
		snprintf(err, errlen, "cannot open %.900s: %s", path, strerror(errno));
		if (j->cgroup_fd >= 0)
			close(j->cgroup_fd);
		return -1;
	}
	j->cgroup_id = st.st_ino;
	j->started = time(NULL);
	j->start_time = wall_ns() / 1e9;
	if (d->cfg.trace_format == CONFIG_TRACE_NONE)
		suffix[0] = '\0';
	else
		snprintf(suffix, sizeof(suffix), "%s.gz",
			 trace_format_ops(d->cfg.trace_format)->suffix);
	fd = job_files_create(&j->files, d->cfg.log_dir, j->started, jobid, d->host, suffix, err,
			      errlen);
	if (fd < 0) {
		close(j->cgroup_fd);
		return -1;
	}
	uname(&u);
	snprintf(target, sizeof(target), "job %s cgroup %s", jobid, path);
	m.version = DLTRACE_VERSION;
	m.kernel = u.release;
	m.hostname = d->host;
	m.target = target;
	m.start_mono_ns = mono_ns();
	m.start_wall_ns = wall_ns();
	m.tracer_pid = getpid();
	{
		char active[128], missing[1024], methods[1024];

		layers_describe(&d->probes.plan, active, sizeof(active), missing, sizeof(missing));
		layers_attach_methods(&d->probes.plan, methods, sizeof(methods));
		m.layers = active;
		m.layers_off = missing;
		m.layers_attach = methods;
		struct event_consumer *c = NULL;
		char tmp_path[PATH_MAX + 600];
		struct job_output out = {
		    .fd = fd,
		    .format = d->cfg.trace_format == CONFIG_TRACE_NONE ? TRACE_FORMAT_JSON
								       : d->cfg.trace_format,
		    .gzip = true,
		    .size_cap = d->cfg.max_trace_bytes,
		};

		out.level =
		    d->cfg.gzip_level ? d->cfg.gzip_level : trace_format_gzip_level(out.format);
		if (d->cfg.trace_format == CONFIG_TRACE_NONE) {
			/* the summary alone: the empty file goes at the end */
			close(fd);
			out.fd = -1;
		}

		/* the summary covers the whole job, whatever the size cap keeps of the trace */
		snprintf(tmp_path, sizeof(tmp_path), "%s/%s/%s", d->cfg.log_dir, j->files.day,
			 j->files.tmp_name);
		j->report = report_session__new();
		if (j->report)
			c = report_session__begin_trace(j->report, tmp_path);
		j->live = live_stats__new(0);
		if (!c || !j->live || job_trace_init(&j->trace, &out)) {
			snprintf(err, errlen, "out of memory");
			report_session__free(j->report);
			j->report = NULL;
			live_stats__free(j->live);
			j->live = NULL;
			job_files_abandon(&j->files);
			close(j->cgroup_fd);
			return -1;
		}
		job_trace_add_consumer(&j->trace, c);
		job_trace_add_consumer(&j->trace, live_stats__consumer(j->live));
		if (d->py_on && decoder_python(&j->trace.decoder, &d->py_rules,
					       d->cfg.python_stacks == DAEMON_PYTHON_FULL))
			logf_("job %s: no Python stacks (out of memory)", jobid);
		job_trace_begin(&j->trace, &m);
	}
	probes_lost(&d->probes, j->slot, &j->lost0);
	j->used = true;
	if (attach_tracing(d) || job_attach(d, j)) {
		snprintf(err, errlen, "cannot start tracing %.900s", path);
		j->stop_reason = "could not attach";
		j->ending = true;
		j->end_at = 0;
		return -1;
	}
	logf_("job %s: tracing %s (slot %u%s)", jobid, path, j->slot,
	      d->cfg.trace_format == CONFIG_TRACE_NONE ? ", counting" : "");
	/* its processes are traced by the filter; their interpreters are found here */
	if (d->py_on)
		cgroup_for_each_process(path, py_probe_visit, &d->py);
	return 0;
}

/* Stop recording a job; it is finished once records on their way are in. */
static void job_end(struct daemon *d, struct job *j, const char *reason)
{
	if (j->ending)
		return;
	probes_set_job(&d->probes, j->slot, 0, -1);
	j->ending = true;
	j->stop_reason = reason;
	j->end_at = mono_ns() + FINISH_DELAY_NS;
}

static void job_finish(struct daemon *d, struct job *j)
{
	struct trace_summary sum = {0};
	char trace_path[PATH_MAX], summary_path[PATH_MAX], err[512];
	char *summary = NULL, user[64], lost_kinds[256];
	int64_t uid = j->trace.decoder.user_uid;
	struct passwd *pw;
	size_t n = 0;
	uid_t owner = 0;
	gid_t group = 0;
	int werr;

	probes_lost(&d->probes, j->slot, &sum.lost);
	lost_counts_sub(&sum.lost, &j->lost0);
	lost_counts_describe(&sum.lost, 4, lost_kinds, sizeof(lost_kinds));
	sum.stop_reason = j->stop_reason;
	werr = job_trace_finish(&j->trace, &sum);
	if (werr)
		logf_("job %s: writing its trace failed: %s", j->jobid, strerror(-werr));
	/* the job's user: the first non-root process seen in it */
	if (uid > 0 && (pw = getpwuid(uid))) {
		snprintf(user, sizeof(user), "%s", pw->pw_name);
		owner = pw->pw_uid;
		group = pw->pw_gid;
	} else if (uid > 0) {
		snprintf(user, sizeof(user), "%lld", (long long)uid);
		owner = group = uid;
	} else {
		snprintf(user, sizeof(user), "root");
	}
	report_session__end_trace(j->report, NULL);
	report_session__finish(j->report, 0);
	summary = report_session__json_text(j->report, &n);
	report_session__free(j->report);
	j->report = NULL;
	if (!summary)
		logf_("job %s: no summary: out of memory", j->jobid);
	if (job_files_finish(&j->files, user, owner, group, summary ? summary : "{}\n",
			     summary ? n : 3, trace_path, summary_path, sizeof(trace_path), err,
			     sizeof(err)))
		logf_("job %s: %s", j->jobid, err);
	else
		logf_("job %s: %llu events, %llu lost%s%s%s -> %s/%s", j->jobid,
		      (unsigned long long)job_trace_events(&j->trace),
		      (unsigned long long)sum.lost.events, sum.lost.events ? " (" : "", lost_kinds,
		      sum.lost.events ? ")" : "", d->cfg.log_dir,
		      *trace_path ? trace_path : summary_path);
	free(summary);
	close(j->cgroup_fd);
	{ /* its counts stay in the node's totals */
		struct live_totals t;

		live_stats__totals(j->live, &t);
		d->events_done += t.events;
		d->lost_done += sum.lost.events;
	}
	live_stats__free(j->live);
	j->live = NULL;
	j->used = false;
	d->jobs_done++;
}

static bool any_job(const struct daemon *d)
{
	for (uint32_t s = 1; s < DL_MAX_JOBS; s++)
		if (d->jobs[s].used)
			return true;
	return false;
}

static void on_cgroup(struct daemon *d, const struct dl_cgroup *c, size_t size)
{
	char rel[DL_PATH_MAX + 1], jobid[64], err[512];
	size_t n = c->path_len;

	if (sizeof(*c) + n > size || n >= sizeof(rel))
		return;
	memcpy(rel, c->path, n);
	rel[n] = '\0';
	if (c->op == DL_CGROUP_MKDIR) {
		if (config_job_of(&d->cfg, rel, jobid, sizeof(jobid)) &&
		    job_start(d, rel, jobid, err, sizeof(err)))
			logf_("job %s: %s", jobid, err);
		return;
	}
	for (uint32_t s = 1; s < DL_MAX_JOBS; s++) {
		struct job *j = &d->jobs[s];

		if (j->used && j->cgroup_id == c->id)
			job_end(d, j, "cgroup removed");
	}
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct daemon *d = ctx;
	const struct dl_hdr *h = data;
	struct job *j;

	if (size < sizeof(*h))
		return 0;
	if (h->kind == DL_EV_CGROUP) {
		if (size >= sizeof(struct dl_cgroup))
			on_cgroup(d, data, size);
		return 0;
	}
	if (h->kind == DL_EV_BLOCK) { /* device tracks: in every job's trace */
		for (uint32_t s = 1; s < DL_MAX_JOBS; s++)
			if (d->jobs[s].used && !d->jobs[s].ending)
				job_trace_record(&d->jobs[s].trace, data, size);
		return 0;
	}
	j = job_by_slot(d, h->job);
	if (j)
		job_trace_record(&j->trace, data, size);
	/* a program just executed may be an interpreter not seen before */
	if (j && d->py_on && h->kind == DL_EV_EXEC && size >= sizeof(struct dl_proc))
		py_probe_exec(&d->py, data, size);
	return 0;
}

/* Jobs already running when the daemon starts: their cgroups match a pattern. */
static char scan_mount[PATH_MAX];
static struct daemon *scan_daemon;

#include <ftw.h>
static int scan_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	char jobid[64], err[512];
	const char *rel = path + strlen(scan_mount);

	(void)st;
	(void)ftw;
	if (type == FTW_D && *rel && config_job_of(&scan_daemon->cfg, rel, jobid, sizeof(jobid)) &&
	    !find_job(scan_daemon, rel) && job_start(scan_daemon, rel, jobid, err, sizeof(err)))
		logf_("job %s: %s", jobid, err);
	return 0;
}

static void scan_existing_jobs(struct daemon *d)
{
	snprintf(scan_mount, sizeof(scan_mount), "%s", d->mount);
	scan_daemon = d;
	nftw(d->mount, scan_entry, 32, FTW_PHYS | FTW_MOUNT);
}

static struct json_object *str_value(const char *s)
{
	return jv_string(s, strlen(s));
}

/* "ok\n" and the daemon's state as one JSON object (dltrace ctl status). */
static void status_json(struct daemon *d, char *reply, size_t size)
{
	struct json_object *o = json_object_new_object(), *jobs = json_object_new_array();
	const char *text;
	size_t len = 0;

	jv_add(o, "version", str_value(DLTRACE_VERSION));
	jv_add(o, "host", str_value(d->host));
	jv_add(o, "probes", str_value(d->attached ? "attached" : "detached"));
	jv_add(o, "log_dir", str_value(d->cfg.log_dir));
	jv_add(o, "jobs_finished", json_object_new_uint64(d->jobs_done));
	for (uint32_t s = 1; s < DL_MAX_JOBS; s++) {
		struct job *j = &d->jobs[s];
		struct json_object *x;

		if (!j->used)
			continue;
		x = json_object_new_object();
		jv_add(x, "job", str_value(j->jobid));
		jv_add(x, "cgroup", str_value(j->cgroup));
		jv_add(x, "slot", json_object_new_uint64(j->slot));
		jv_add(x, "events", json_object_new_uint64(job_trace_events(&j->trace)));
		jv_add(x, "state", str_value(j->ending ? "finishing" : "tracing"));
		jv_push(jobs, x);
	}
	jv_add(o, "jobs", jobs);
	text = json_object_to_json_string_length(o, JV_TO_STRING, &len);
	if (!text)
		snprintf(reply, size, "error: out of memory\n");
	else if (len + 5 > size)
		snprintf(reply, size, "error: the status does not fit in a reply\n");
	else
		snprintf(reply, size, "ok\n%s\n", text);
	json_object_put(o);
}

/* "ok\n" and a snapshot of a job's live statistics (dltrace ctl top). */
static void top_json(struct daemon *d, struct job *j, bool rows, char *reply, size_t size)
{
	uint64_t now = mono_ns() - j->trace.decoder.t0;
	struct live_snapshot snap;
	struct lost_counts lost;
	char *text;
	size_t len = 0;

	if (rows ? live_stats__snapshot(j->live, now, &snap)
		 : live_stats__snapshot_totals(j->live, now, &snap)) {
		snprintf(reply, size, "error: out of memory\n");
		return;
	}
	probes_lost(&d->probes, j->slot, &lost);
	lost_counts_sub(&lost, &j->lost0);
	snap.lost = lost.events;
	text = live_snapshot_json(&snap, &len);
	live_snapshot_free(&snap);
	if (!text)
		snprintf(reply, size, "error: out of memory\n");
	else if (len + 5 > size)
		snprintf(reply, size, "error: the job's snapshot does not fit in a reply\n");
	else
		snprintf(reply, size, "ok\n%s\n", text);
	free(text);
}

static void on_control(void *ctx, const char *req, char *reply, size_t size)
{
	struct daemon *d = ctx;
	char path[PATH_MAX], jobid[64], err[1024];
	struct job *j;

	if (!strcmp(req, "status")) {
		status_json(d, reply, size);
	} else if (!strncmp(req, "start ", 6)) {
		if (cgroup_resolve(req + 6, path, sizeof(path), err, sizeof(err))) {
			snprintf(reply, size, "error: %s\n", err);
			return;
		}
		const char *rel = path + strlen(d->mount);

		if (!config_job_of(&d->cfg, rel, jobid, sizeof(jobid)))
			snprintf(jobid, sizeof(jobid), "manual%u", d->next_id + 1);
		if (job_start(d, rel[0] ? rel : "/", jobid, err, sizeof(err)))
			snprintf(reply, size, "error: %s\n", err);
		else
			snprintf(reply, size, "ok\ntracing job %s (%s)\n", jobid, path);
	} else if (!strncmp(req, "stop ", 5)) {
		j = find_job(d, req + 5);
		if (!j) {
			snprintf(reply, size, "error: no traced job '%s'\n", req + 5);
			return;
		}
		job_end(d, j, "stopped by dltrace ctl");
		snprintf(reply, size, "ok\nstopping job %s\n", j->jobid);
	} else if (!strncmp(req, "top ", 4) || !strncmp(req, "top-totals ", 11)) {
		bool rows = req[3] == ' ';
		const char *what = req + (rows ? 4 : 11);

		j = find_job(d, what);
		if (!j) {
			snprintf(reply, size, "error: no traced job '%s'\n", what);
			return;
		}
		top_json(d, j, rows, reply, size);
	} else {
		snprintf(reply, size,
			 "error: unknown request '%.100s' (status, start CGROUP, "
			 "stop JOB, top JOB)\n",
			 req);
	}
}

/* The daemon's CPU time (user + system) and resident memory. */
static void own_usage(double *cpu, uint64_t *rss)
{
	struct rusage ru;
	unsigned long long size, resident = 0;
	FILE *f = fopen("/proc/self/statm", "re");

	*cpu = 0;
	if (!getrusage(RUSAGE_SELF, &ru))
		*cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
		       ru.ru_stime.tv_usec / 1e6;
	if (f) {
		if (fscanf(f, "%llu %llu", &size, &resident) != 2)
			resident = 0;
		fclose(f);
	}
	*rss = resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* GET /metrics: every job being traced, and the node. */
static void on_http(void *ctx, const struct http_request *req, struct http_reply *reply)
{
	struct daemon *d = ctx;
	struct metrics_job jobs[DL_MAX_JOBS];
	struct metrics_node n = {0};
	bool om = metrics_wants_openmetrics(req->accept);
	FILE *f;

	if (strcmp(req->path, "/metrics")) {
		static const char root[] = "dltrace daemon: metrics at /metrics\n";

		reply->status = strcmp(req->path, "/") ? 404 : 200;
		reply->body = strdup(reply->status == 200 ? root : "not found\n");
		reply->len = reply->body ? strlen(reply->body) : 0;
		return;
	}
	n.host = d->host;
	n.jobs = jobs;
	for (uint32_t s = 1; s < DL_MAX_JOBS; s++) {
		struct job *j = &d->jobs[s];
		struct lost_counts lost;

		if (!j->used || !j->live)
			continue;
		probes_lost(&d->probes, j->slot, &lost);
		lost_counts_sub(&lost, &j->lost0);
		jobs[n.njobs++] =
		    (struct metrics_job){j->jobid, j->cgroup, j->live, lost.events, j->start_time};
	}
	n.jobs_finished = d->jobs_done;
	n.events_done = d->events_done;
	n.lost_done = d->lost_done;
	n.probes_attached = d->attached;
	n.start_time = d->start_time;
	own_usage(&n.cpu_seconds, &n.rss_bytes);
	f = open_memstream(&reply->body, &reply->len);
	if (!f)
		return;
	metrics_write(f, &n, om);
	if (fclose(f)) {
		free(reply->body);
		reply->body = NULL;
		reply->len = 0;
		return;
	}
	reply->status = 200;
	reply->content_type = om ? OPENMETRICS_TYPE : PROMETHEUS_TYPE;
}

static void daemon_usage(FILE *out)
{
	fprintf(out, "Usage: dltrace daemon [--config FILE] [--foreground]\n"
		     "\n"
		     "Trace every job (a cgroup v2 matching the configured patterns, Slurm's\n"
		     "job_<id> by default) into LOGDIR/YYYY/MM/DD/<user>_<jobid>_<host>.json.gz\n"
		     "and a .summary.json next to it.  SIGHUP reloads the configuration;\n"
		     "SIGTERM finishes every open trace and exits.\n"
		     "\n"
		     "  -c, --config FILE   configuration (default " DEFAULT_CONFIG ")\n"
		     "  -f, --foreground    stay in the foreground, log to standard error\n"
		     "      --check         check the configuration and exit\n"
		     "  -h, --help          this help\n");
}

static int setup_signals(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

static int go_background(const char *log_dir)
{
	char log[PATH_MAX + 32];
	int fd;

	snprintf(log, sizeof(log), "%s/dltrace-daemon.log", log_dir);
	mkdir(log_dir, 0755);
	fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (fd < 0) {
		fprintf(stderr, "dltrace: cannot open %s: %s\n", log, strerror(errno));
		return -1;
	}
	if (daemon(0, 1))
		return -1;
	dup2(fd, STDERR_FILENO);
	close(fd);
	fd = open("/dev/null", O_RDWR);
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	if (fd > 2)
		close(fd);
	return 0;
}

static void reload(struct daemon *d)
{
	struct daemon_config c;
	char err[1024];

	if (config_load(&c, d->config_path, err, sizeof(err))) {
		logf_("reload: %s; keeping the running configuration", err);
		return;
	}
	if (c.layers != d->cfg.layers || c.ring_bytes != d->cfg.ring_bytes ||
	    strcmp(c.socket, d->cfg.socket) || strcmp(c.metrics_listen, d->cfg.metrics_listen))
		logf_("reload: layers, ring_size_mb, socket and metrics_listen take effect at the "
		      "next start");
	c.layers = d->cfg.layers;
	c.ring_bytes = d->cfg.ring_bytes;
	memcpy(c.socket, d->cfg.socket, sizeof(c.socket));
	memcpy(c.metrics_listen, d->cfg.metrics_listen, sizeof(c.metrics_listen));
	d->cfg = c;
	logf_("configuration reloaded (%d job patterns, log dir %s)", c.npatterns, c.log_dir);
}

int daemon_main(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"config", required_argument, NULL, 'c'},
	    {"foreground", no_argument, NULL, 'f'},
	    {"check", no_argument, NULL, 'k'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct daemon *d = calloc(1, sizeof(*d));
	struct probe_options po = {0};
	bool foreground = false, stopping = false, check_only = false;
	char err[2048];
	int c, sfd, rc = 1;

	if (!d)
		return 1;
	d->config_path = NULL;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:fkh", longopts, NULL)) != -1) {
		switch (c) {
		case 'k':
			check_only = true;
			break;
		case 'c':
			d->config_path = optarg;
			break;
		case 'f':
			foreground = true;
			break;
		case 'h':
			daemon_usage(stdout);
			free(d);
			return 0;
		default:
			fprintf(stderr,
				"dltrace daemon: bad option '%s'\nTry 'dltrace daemon --help'.\n",
				argv[optind - 1]);
			free(d);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "dltrace daemon: unexpected argument '%s'\n", argv[optind]);
		free(d);
		return 2;
	}
	if (d->config_path) {
		if (config_load(&d->cfg, d->config_path, err, sizeof(err)))
			goto fail;
	} else if (access(DEFAULT_CONFIG, F_OK) == 0) {
		d->config_path = DEFAULT_CONFIG;
		if (config_load(&d->cfg, d->config_path, err, sizeof(err)))
			goto fail;
	} else {
		config_defaults(&d->cfg);
	}
	if (check_only) {
		printf("%s: %d job pattern%s, log dir %s\n",
		       d->config_path ? d->config_path : "built-in defaults", d->cfg.npatterns,
		       d->cfg.npatterns == 1 ? "" : "s", d->cfg.log_dir);
		free(d);
		return 0;
	}
	if (check_privileges(err, sizeof(err)) || check_btf(err, sizeof(err)) ||
	    ensure_tracefs(err, sizeof(err)))
		goto fail;
	raise_memlock_limit();
	if (cgroup2_mount(d->mount, sizeof(d->mount))) {
		snprintf(err, sizeof(err), "no cgroup v2 hierarchy is mounted");
		goto fail;
	}
	{
		struct utsname u;

		uname(&u);
		snprintf(d->host, sizeof(d->host), "%s", u.nodename);
	}
	d->listen_fd = control_listen(d->cfg.socket, err, sizeof(err));
	if (d->listen_fd < 0)
		goto fail;
	if (d->cfg.metrics_listen[0] &&
	    !(d->metrics = http_server__new(d->cfg.metrics_listen, err, sizeof(err))))
		goto fail;
	d->start_time = wall_ns() / 1e9;
	if (!foreground && go_background(d->cfg.log_dir))
		goto fail;
	sfd = setup_signals();
	po.ring_bytes = d->cfg.ring_bytes;
	po.layers = d->cfg.layers;
	po.cgroup_events = true;
	po.live = true; /* /metrics and the job summaries count as calls are made */
	if (d->cfg.python_stacks != DAEMON_PYTHON_OFF) {
		py_rules_init(&d->py_rules);
		if (py_probe_options(&po, py_probe_default_kinds(), err, sizeof(err)))
			goto fail;
	}
	if (probes_load(&d->probes, &po, on_record, d, err, sizeof(err)) ||
	    (po.python_stacks && py_probe_init(&d->py, &d->probes, py_log, d, err, sizeof(err))) ||
	    probes_attach_where(&d->probes, is_cgroup_program, err, sizeof(err)))
		goto fail;
	d->py_on = po.python_stacks;
	logf_("daemon %s started (config %s, log dir %s, cgroup v2 at %s)", DLTRACE_VERSION,
	      d->config_path ? d->config_path : "built-in defaults", d->cfg.log_dir, d->mount);
	if (d->metrics)
		logf_("metrics on %s, port %d: GET /metrics", d->cfg.metrics_listen,
		      http_server__port(d->metrics));
	else
		logf_("metrics off");
	scan_existing_jobs(d);
	d->idle_since = mono_ns();

	for (;;) {
		struct pollfd fds[3 + 1 + HTTP_MAX_CONNS] = {
		    {ring_buffer__epoll_fd(d->probes.rb), POLLIN, 0},
		    {d->listen_fd, POLLIN, 0},
		    {sfd, POLLIN, 0},
		};
		int nhttp =
		    d->metrics ? http_server__fds(d->metrics, fds + 3, 1 + HTTP_MAX_CONNS) : 0;
		uint64_t now;

		poll(fds, 3 + nhttp, LOOP_MS);
		probes_drain(&d->probes);
		if (d->py_on)
			py_probe_poll(&d->py);
		if (nhttp) /* after the drain: the figures are as fresh as they can be */
			http_server__serve(d->metrics, fds + 3, nhttp, on_http, d);
		if (fds[2].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGHUP)
					reload(d);
				else if (!stopping) {
					stopping = true;
					logf_("stopping: finishing every open trace");
					for (uint32_t s = 1; s < DL_MAX_JOBS; s++)
						if (d->jobs[s].used)
							job_end(d, &d->jobs[s], "daemon stopped");
				}
			}
		}
		if (fds[1].revents & POLLIN)
			control_serve_one(d->listen_fd, on_control, d);
		now = mono_ns();
		for (uint32_t s = 1; s < DL_MAX_JOBS; s++) {
			struct job *j = &d->jobs[s];

			if (j->used && j->ending && now >= j->end_at) {
				probes_flush_batches(&d->probes);
				probes_drain_backlog(&d->probes);
				job_finish(d, j);
			}
		}
		if (any_job(d)) {
			d->idle_since = now;
		} else if (stopping) {
			break;
		} else if (d->attached && d->cfg.idle_detach_s >= 0 &&
			   now - d->idle_since >= (uint64_t)d->cfg.idle_detach_s * 1000000000ull) {
			size_t n = probes_detach_where_async(&d->probes, is_tracing_program);

			d->attached = false;
			logf_("no job for %d s: detaching %zu probes", d->cfg.idle_detach_s, n);
		}
		if (time(NULL) - d->last_expiry >= 3600) {
			int n = job_files_expire(d->cfg.log_dir, d->cfg.retention_days, time(NULL));

			d->last_expiry = time(NULL);
			if (n)
				logf_("removed %d traces older than %d days", n,
				      d->cfg.retention_days);
		}
	}
	logf_("daemon stopped");
	rc = 0;
	unlink(d->cfg.socket);
	http_server__free(d->metrics);
	probes_release_and_exit_soon(&d->probes);
	probes_destroy(&d->probes);
	py_probe_free(&d->py);
	free(d);
	return rc;
fail:
	fprintf(stderr, "dltrace daemon: %s\n", err);
	free(d);
	return 1;
}

int ctl_main(int argc, char **argv)
{
	const char *socket_path = "/run/dltrace.sock";
	char req[PATH_MAX + 16], err[1024];
	int i = 1;

	if (i < argc && !strncmp(argv[i], "--socket=", 9))
		socket_path = argv[i++] + 9;
	else if (i + 1 < argc && !strcmp(argv[i], "--socket")) {
		socket_path = argv[i + 1];
		i += 2;
	}
	if (i < argc && !strcmp(argv[i], "top"))
		return ctl_top_main(socket_path, argc - i, argv + i);
	if (i < argc && !strcmp(argv[i], "status") && i + 1 == argc) {
		snprintf(req, sizeof(req), "status");
	} else if (i < argc && !strcmp(argv[i], "start") && i + 3 == argc &&
		   !strcmp(argv[i + 1], "--cgroup")) {
		snprintf(req, sizeof(req), "start %s", argv[i + 2]);
	} else if (i < argc && !strcmp(argv[i], "stop") && i + 2 == argc) {
		snprintf(req, sizeof(req), "stop %s", argv[i + 1]);
	} else {
		fprintf(
		    i < argc && !strcmp(argv[i], "--help") ? stdout : stderr,
		    "Usage: dltrace ctl [--socket PATH] status\n"
		    "       dltrace ctl [--socket PATH] start --cgroup CGROUP\n"
		    "       dltrace ctl [--socket PATH] stop JOB|CGROUP\n"
		    "       dltrace ctl [--socket PATH] top JOB|CGROUP [-i SECONDS] [-n COUNT]\n");
		return i < argc && !strcmp(argv[i], "--help") ? 0 : 2;
	}
	if (strchr(req, '\n')) {
		fprintf(stderr, "dltrace ctl: newline in argument\n");
		return 2;
	}
	if (control_request(socket_path, req, err, sizeof(err))) {
		fprintf(stderr, "dltrace ctl: %s\n", err);
		return 1;
	}
	return 0;
}
