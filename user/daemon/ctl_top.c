// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "daemon/ctl_top.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/control_socket.h"
#include "view/live_snapshot_json.h"
#include "view/top_ui.h"

struct ctl_top {
	const char *socket;
	char job[256];
	unsigned long count; /* snapshots taken */
	bool gone;	     /* the daemon no longer traces the job */
	char err[1024];
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int fetch(void *ctx, bool rows, struct live_snapshot *out)
{
	struct ctl_top *t = ctx;
	char request[sizeof(t->job) + 16], *body;
	size_t len;

	/* "top JOB", or "top-totals JOB" for the lines, which need no rows */
	snprintf(request, sizeof(request), "top%s %s", rows ? "" : "-totals", t->job);
	if (control_request_reply(t->socket, request, &body, &len, t->err, sizeof(t->err))) {
		t->gone = true;
		return -1;
	}
	if (live_snapshot_parse(body, len, out, t->err, sizeof(t->err))) {
		free(body);
		t->gone = true;
		return -1;
	}
	free(body);
	t->count++;
	return 0;
}

static int usage(FILE *out, int rc)
{
	fprintf(out, "Usage: dltrace ctl [--socket PATH] top JOB|CGROUP [-i SECONDS] [-n COUNT]\n"
		     "\n"
		     "The live view of a job the daemon traces (see dltrace top): a full screen\n"
		     "on a terminal (q quits; tracing goes on), else one line per interval.\n"
		     "  -i SECONDS   seconds between two screens (default 1)\n"
		     "  -n COUNT     stop after COUNT intervals\n");
	return rc;
}

int ctl_top_main(const char *socket_path, int argc, char **argv)
{
	struct ctl_top t = {.socket = socket_path};
	struct sigaction sa = {0};
	const char *job = NULL;
	unsigned long max = 0;
	double interval = 1;
	struct top_ui *ui;
	char title[160];
	int rc = 0;

	for (int i = 1; i < argc; i++) {
		char *end;

		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return usage(stdout, 0);
		if (!strcmp(argv[i], "-i") && i + 1 < argc) {
			interval = strtod(argv[++i], &end);
			if (*end || !(interval >= 0.1) || interval > 86400) {
				fprintf(stderr, "dltrace ctl top: -i needs 0.1 to 86400 seconds\n");
				return 2;
			}
		} else if (!strcmp(argv[i], "-n") && i + 1 < argc) {
			errno = 0;
			max = strtoul(argv[++i], &end, 10);
			if (errno || *end || !max) {
				fprintf(stderr, "dltrace ctl top: -n needs a positive count\n");
				return 2;
			}
		} else if (!job && argv[i][0] != '-') {
			job = argv[i];
		} else {
			return usage(stderr, 2);
		}
	}
	if (!job || strchr(job, '\n') || strlen(job) > 200)
		return usage(stderr, 2);
	snprintf(t.job, sizeof(t.job), "%s", job);
	/* the job must be there before the screen takes over */
	{
		struct live_snapshot s;

		if (fetch(&t, false, &s)) {
			fprintf(stderr, "dltrace ctl: %s\n", t.err);
			return 1;
		}
		live_snapshot_free(&s);
		t.count = 0;
	}
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	snprintf(title, sizeof(title), "dltrace ctl top %s", job);
	ui = top_ui__new(stdout, interval, title, fetch, &t);
	if (!ui) {
		fprintf(stderr, "dltrace ctl: out of memory\n");
		return 1;
	}
	while (!stop && !t.gone && !(max && t.count >= max)) {
		struct pollfd p = {top_ui__key_fd(ui), POLLIN, 0};

		poll(&p, p.fd >= 0, top_ui__timeout_ms(ui));
		if (stop || top_ui__step(ui))
			break;
	}
	top_ui__free(ui);
	if (t.gone) {
		fprintf(stderr, "dltrace ctl: %s\n", t.err);
		rc = strstr(t.err, "no traced job") ? 0 : 1;
	}
	return rc;
}
