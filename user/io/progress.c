// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "io/progress.h"
#include "lib/clock_ns.h"
#include "lib/human_format.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SHOW_AFTER_NS 1000000000ull /* nothing for runs shorter than this */
#define REDRAW_NS     200000000ull
/* For tests only (see progress.h): the line's first showing, in ms, instead of the second. */
#define SHOW_AFTER_ENV "DLTRACE_PROGRESS_AFTER_MS"

struct progress {
	char what[64];
	uint64_t total, bytes, events;
	uint64_t start, next;
	bool drawn;
};

/* SHOW_AFTER_ENV's delay when it holds a number of ms (0 to 1 hour), else the second. */
static uint64_t show_after_ns(void)
{
	const char *s = getenv(SHOW_AFTER_ENV);
	unsigned long ms;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return SHOW_AFTER_NS;
	errno = 0;
	ms = strtoul(s, &end, 10);
	if (errno || *end || ms > 3600000)
		return SHOW_AFTER_NS;
	return (uint64_t)ms * 1000000ull;
}

struct progress *progress__new(const char *what, uint64_t total_bytes)
{
	const char *term = getenv("TERM");
	struct progress *p;

	if (!isatty(STDERR_FILENO) || (term && !strcmp(term, "dumb")))
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	snprintf(p->what, sizeof(p->what), "%s", what);
	p->total = total_bytes;
	p->start = mono_ns();
	p->next = p->start + show_after_ns();
	return p;
}

static void human(char *out, size_t size, double v, const char *unit)
{
	static const char *prefix[] = {"", "Ki", "Mi", "Gi", "Ti"};
	unsigned i = human_scale(&v, 1024, 4);

	snprintf(out, size, i ? "%.1f %s%s" : "%.0f %s%s", v, prefix[i], unit);
}

static void draw(struct progress *p, uint64_t now)
{
	double secs = (now - p->start) / 1e9, rate = p->events / (secs > 0 ? secs : 1);
	char done[32], total[32], line[256];
	int n;

	human(done, sizeof(done), (double)p->bytes, "B");
	if (p->total) {
		double share = p->bytes < p->total ? (double)p->bytes / p->total : 1;
		double left = share > 0 ? secs / share - secs : 0;

		human(total, sizeof(total), (double)p->total, "B");
		n = snprintf(line, sizeof(line),
			     "%s: %s of %s (%.0f%%), %.2f M events/s, %d:%02d left", p->what, done,
			     total, 100 * share, rate / 1e6, (int)left / 60, (int)left % 60);
	} else {
		n = snprintf(line, sizeof(line), "%s: %s read, %.2f M events/s", p->what, done,
			     rate / 1e6);
	}
	if (n > 0) {
		fprintf(stderr, "\r%s\x1b[K", line);
		fflush(stderr);
		p->drawn = true;
	}
}

void progress__add(struct progress *p, uint64_t bytes, uint64_t events)
{
	uint64_t now;

	if (!p)
		return;
	p->bytes += bytes;
	p->events += events;
	now = mono_ns();
	if (now < p->next)
		return;
	p->next = now + REDRAW_NS;
	draw(p, now);
}

void progress__done(struct progress *p)
{
	if (!p)
		return;
	if (p->drawn) {
		fputs("\r\x1b[K", stderr);
		fflush(stderr);
	}
	free(p);
}

uint64_t progress_file_size(const char *path)
{
	struct stat st;

	if (!strcmp(path, "-") || stat(path, &st) || !S_ISREG(st.st_mode))
		return 0;
	return (uint64_t)st.st_size;
}

uint64_t progress_file_sizes(char *const *paths, int n)
{
	uint64_t total = 0;

	for (int i = 0; i < n; i++) {
		uint64_t size = progress_file_size(paths[i]);

		if (!size)
			return 0;
		total += size;
	}
	return total;
}
