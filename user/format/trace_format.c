// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "format/trace_format.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/input_stream.h"
#include "io/progress.h"

#define READ_BYTES (1u << 20)
#define PEEK_BYTES 64 /* read before choosing the reader */

#define TRACE_FORMAT(id, ops) extern const struct trace_format_ops ops;
#include "format/trace_formats.def"
#undef TRACE_FORMAT

static const struct trace_format_ops *const formats[TRACE_FORMAT_COUNT] = {
#define TRACE_FORMAT(id, ops) [TRACE_FORMAT_##id] = &ops,
#include "format/trace_formats.def"
#undef TRACE_FORMAT
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

const struct trace_format_ops *trace_format_ops(enum trace_format f)
{
	return formats[f];
}

enum trace_format trace_format_of_name(const char *path)
{
	size_t n = strlen(path);

	for (int f = 0; f < TRACE_FORMAT_COUNT; f++) {
		const char *sfx = formats[f]->suffix;
		size_t m = strlen(sfx);

		if (ends_with(path, sfx) ||
		    (ends_with(path, ".gz") && n >= m + 3 && !strncmp(path + n - 3 - m, sfx, m)))
			return f;
	}
	return 0;
}

int trace_format_by_name(const char *name)
{
	for (int f = 0; f < TRACE_FORMAT_COUNT; f++)
		if (!strcmp(name, formats[f]->name))
			return f;
	return -1;
}

const char *trace_format_name(enum trace_format f)
{
	return formats[f]->name;
}

int trace_format_gzip_level(enum trace_format f)
{
	return formats[f]->gzip_level;
}

/* ---- writing ---- */

struct trace_writer {
	const struct trace_format_ops *ops;
	void *w;
};

struct trace_writer *trace_writer__new(enum trace_format f, struct output_sink *sink,
				       uint64_t size_cap)
{
	struct trace_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->ops = formats[f];
	if (!(w->w = w->ops->open(sink, size_cap))) {
		free(w);
		return NULL;
	}
	return w;
}

void trace_writer__free(struct trace_writer *w)
{
	if (!w)
		return;
	w->ops->close(w->w);
	free(w);
}

struct event_consumer *trace_writer__consumer(struct trace_writer *w)
{
	return w->ops->consumer(w->w);
}

const char *trace_writer__tail(const struct trace_writer *w, size_t *len)
{
	return w->ops->tail(w->w, len);
}

uint64_t trace_writer__events(const struct trace_writer *w)
{
	return w->ops->events(w->w);
}

uint64_t trace_writer__capped(const struct trace_writer *w)
{
	return w->ops->capped(w->w);
}

/* ---- reading ---- */

/* Which reader the first plain bytes call for (nothing read yet: the first, whose reader says why).
 */
static enum trace_format format_of_bytes(const char *p, size_t n)
{
	for (int f = 1; f < TRACE_FORMAT_COUNT; f++)
		if (formats[f]->claims(p, n))
			return f;
	return 0;
}

/* A reader of some format, fed raw file bytes. */
struct any_reader {
	enum trace_format format;
	const struct trace_format_ops *ops;
	void *r;
};

static int any_init(struct any_reader *r, enum trace_format f, struct event_consumer *c)
{
	r->format = f;
	r->ops = formats[f];
	r->r = r->ops->reader_new(c);
	return r->r ? 0 : -1;
}

static int any_feed(struct any_reader *r, const void *data, size_t len)
{
	return r->ops->feed(r->r, data, len);
}

static int any_finish(struct any_reader *r)
{
	return r->ops->finish(r->r);
}

static const struct trace_read_status *any_status(const struct any_reader *r)
{
	return r->ops->status(r->r);
}

static void any_free(struct any_reader *r)
{
	r->ops->reader_free(r->r);
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
