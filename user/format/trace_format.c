// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "format/trace_format.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/chrome/chrome_events.h"
#include "format/chrome/chrome_writer.h"
#include "format/perfetto/pftrace_consumer.h"
#include "format/perfetto/pftrace_events.h"
#include "io/input_stream.h"
#include "io/progress.h"

#define READ_BYTES (1u << 20)
#define PEEK_BYTES 64 /* read before choosing the reader */

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

enum trace_format trace_format_of_name(const char *path)
{
	return ends_with(path, ".pftrace") || ends_with(path, ".pftrace.gz") ? TRACE_FORMAT_PFTRACE
									     : TRACE_FORMAT_JSON;
}

const char *trace_format_name(enum trace_format f)
{
	return f == TRACE_FORMAT_PFTRACE ? "pftrace" : "json";
}

int trace_format_gzip_level(enum trace_format f)
{
	/*
	 * JSON: level 1, the cheapest (level 5 saves 12% for 1.7x the CPU).
	 * .pftrace: level 5 (measured: on the micro workload and
	 * the PyTorch example it costs less CPU than level 1 does on the JSON,
	 * for 15-17% less than level 1 of the same .pftrace).
	 */
	return f == TRACE_FORMAT_PFTRACE ? 5 : 1;
}

/* ---- writing ---- */

struct trace_writer {
	enum trace_format format;
	struct chrome_writer *chrome;
	struct pftrace_consumer *pftrace;
};

struct trace_writer *trace_writer__new(enum trace_format f, struct output_sink *sink,
				       uint64_t size_cap)
{
	struct trace_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->format = f;
	if (f == TRACE_FORMAT_PFTRACE) {
		sink_frame_packets(sink);
		w->pftrace = pftrace_consumer__new(sink, size_cap);
	} else {
		w->chrome = chrome_writer__new(sink, size_cap);
	}
	if (!w->chrome && !w->pftrace) {
		free(w);
		return NULL;
	}
	return w;
}

void trace_writer__free(struct trace_writer *w)
{
	if (!w)
		return;
	chrome_writer__free(w->chrome);
	pftrace_consumer__free(w->pftrace);
	free(w);
}

struct event_consumer *trace_writer__consumer(struct trace_writer *w)
{
	return w->chrome ? chrome_writer__consumer(w->chrome)
			 : pftrace_consumer__consumer(w->pftrace);
}

const char *trace_writer__tail(const struct trace_writer *w, size_t *len)
{
	return w->chrome ? chrome_writer__tail(w->chrome, len)
			 : pftrace_consumer__tail(w->pftrace, len);
}

uint64_t trace_writer__events(const struct trace_writer *w)
{
	return w->chrome ? chrome_writer__events(w->chrome) : pftrace_consumer__events(w->pftrace);
}

uint64_t trace_writer__capped(const struct trace_writer *w)
{
	return w->chrome ? chrome_writer__capped(w->chrome) : pftrace_consumer__capped(w->pftrace);
}

/* ---- reading ---- */

/* Which reader the first plain bytes call for (nothing read yet: JSON, whose reader says why). */
static enum trace_format format_of_bytes(const char *p, size_t n)
{
	/* Trace.packet's key; a JSON file that starts with a blank line goes on with '[' or blanks
	 */
	if (n >= 2 && p[0] == 0x0a && !strchr(" \t\r\n[{", p[1]))
		return TRACE_FORMAT_PFTRACE;
	return TRACE_FORMAT_JSON;
}

/* A reader of either format, fed raw file bytes. */
struct any_reader {
	enum trace_format format;
	struct trace_reader chrome;
	struct chrome_events *lines;
	struct pftrace_events *pftrace;
};

static int any_init(struct any_reader *r, enum trace_format f, struct event_consumer *c)
{
	memset(r, 0, sizeof(*r));
	r->format = f;
	if (f == TRACE_FORMAT_PFTRACE)
		return (r->pftrace = pftrace_events__new(c)) ? 0 : -1;
	if (!(r->lines = chrome_events__new(c)))
		return -1;
	trace_reader_init(&r->chrome, chrome_events__line, r->lines);
	return 0;
}

static int any_feed(struct any_reader *r, const void *data, size_t len)
{
	if (r->pftrace)
		return pftrace_events__feed(r->pftrace, data, len);
	return trace_reader_feed(&r->chrome, data, len);
}

static int any_finish(struct any_reader *r)
{
	if (r->pftrace)
		return pftrace_events__finish(r->pftrace);
	return trace_reader_finish(&r->chrome);
}

static const struct trace_read_status *any_status(const struct any_reader *r)
{
	return r->pftrace ? pftrace_events__status(r->pftrace) : &r->chrome.st;
}

static void any_free(struct any_reader *r)
{
	if (r->pftrace) {
		pftrace_events__free(r->pftrace);
	} else {
		trace_reader_free(&r->chrome);
		chrome_events__free(r->lines);
	}
}

/* Read up to n bytes (fewer only at the end of the file); -1 on errors. */
static ssize_t read_some(int fd, char *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = read(fd, buf + got, n - got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0)
			break;
		got += k;
		if (got >= PEEK_BYTES)
			break;
	}
	return got;
}

struct header_only {
	struct event_consumer filter;
	struct event_consumer *out;
	bool seen;
};

static void header_only(struct event_consumer *c, const struct event *e)
{
	struct header_only *h = container_of(c, struct header_only, filter);

	if (e->type == EV_TRACE_BEGIN && !h->seen) {
		h->seen = true;
		event_deliver(h->out, e);
	}
}

/*
 * Read path into c; *stop (when given) ends the reading early (the
 * header was seen).  -1 with st->error.
 */
static int read_path(const char *path, struct event_consumer *c, struct trace_read_status *st,
		     const bool *stop, enum trace_format *format_out, struct progress *progress)
{
	uint64_t events = 0;
	struct any_reader r;
	char peek[PEEK_BYTES];
	char *buf;
	ssize_t n;
	int fd, rc = 0;

	memset(st, 0, sizeof(*st));
	fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : dup(0);
	if (fd < 0) {
		snprintf(st->error, sizeof(st->error), "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	buf = malloc(READ_BYTES);
	if (!buf) {
		close(fd);
		snprintf(st->error, sizeof(st->error), "out of memory");
		return -1;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	n = read_some(fd, buf, READ_BYTES);
	if (n < 0) {
		snprintf(st->error, sizeof(st->error), "cannot read %s: %s", path, strerror(errno));
		free(buf);
		close(fd);
		return -1;
	}
	if (any_init(&r, format_of_bytes(peek, input_stream_peek(buf, n, peek, sizeof(peek))), c)) {
		snprintf(st->error, sizeof(st->error), "out of memory");
		free(buf);
		close(fd);
		return -1;
	}
	if (format_out)
		*format_out = r.format;
	for (;;) {
		if (n > 0 && any_feed(&r, buf, n)) {
			rc = -1;
			break;
		}
		if (progress) {
			progress__add(progress, (uint64_t)n, any_status(&r)->events - events);
			events = any_status(&r)->events;
		}
		if (n == 0 || (stop && *stop))
			break;
		do
			n = read(fd, buf, READ_BYTES);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			break;
	}
	if (n < 0) {
		*st = *any_status(&r);
		snprintf(st->error, sizeof(st->error), "cannot read %s: %s", path, strerror(errno));
		rc = -1;
	} else if (!rc && !(stop && *stop)) {
		rc = any_finish(&r);
	}
	if (n >= 0)
		*st = *any_status(&r);
	any_free(&r);
	free(buf);
	close(fd);
	return rc;
}

int trace_file_read(const char *path, struct event_consumer *c, struct trace_read_status *st)
{
	return read_path(path, c, st, NULL, NULL, NULL);
}

int trace_file_read_progress(const char *path, struct event_consumer *c,
			     struct trace_read_status *st, struct progress *progress)
{
	return read_path(path, c, st, NULL, NULL, progress);
}

int trace_file_format(const char *path, enum trace_format *f, char *err, size_t errlen)
{
	char buf[PEEK_BYTES * 4], peek[PEEK_BYTES];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	n = read_some(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	*f = format_of_bytes(peek, input_stream_peek(buf, n, peek, sizeof(peek)));
	return 0;
}

int trace_file_header(const char *path, struct event_consumer *c, char *err, size_t errlen)
{
	struct header_only h = {.out = c};
	struct trace_read_status *st = malloc(sizeof(*st));
	int rc;

	if (!st) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	event_consumer_init(&h.filter);
	event_consumer_fill(&h.filter, header_only);
	rc = read_path(path, &h.filter, st, &h.seen, NULL, NULL);
	if (rc)
		snprintf(err, errlen, "%s", st->error);
	else if (!h.seen) {
		snprintf(err, errlen, "empty file (no events)");
		rc = -1;
	}
	free(st);
	return rc;
}

struct start_of {
	struct event_consumer c;
	int64_t start;
};

static void start_of(struct event_consumer *c, const struct event *e)
{
	container_of(c, struct start_of, c)->start = e->begin.start_wall_ns;
}

int trace_file_start(const char *path, int64_t *start_wall_ns, char *err, size_t errlen)
{
	struct start_of s = {.start = 0};
	int rc;

	event_consumer_init(&s.c);
	s.c.trace_begin = start_of;
	rc = trace_file_header(path, &s.c, err, errlen);
	*start_wall_ns = s.start;
	return rc;
}
