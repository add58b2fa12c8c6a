// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "format/chrome/trace_reader.h"
#include "io/progress.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/chrome/trace_line_parser.h"

#define READ_BYTES (1u << 20)

static int reader_fail(struct trace_reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int reader_fail(struct trace_reader *r, const char *fmt, ...)
{
	va_list ap;

	if (!r->failed) {
		va_start(ap, fmt);
		vsnprintf(r->st.error, sizeof(r->st.error), fmt, ap);
		va_end(ap);
		r->failed = true;
	}
	return -1;
}

static int text_out(void *ctx, const char *p, size_t len);

void trace_reader_init(struct trace_reader *r, trace_event_fn fn, void *ctx)
{
	memset(r, 0, sizeof(*r));
	r->fn = fn;
	r->ctx = ctx;
	input_stream_init(&r->in, text_out, r);
}

void trace_reader_free(struct trace_reader *r)
{
	input_stream_free(&r->in);
	free(r->line);
	free(r->scratch);
	r->line = r->scratch = NULL;
}

static bool blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
}

static void malformed(struct trace_reader *r, const char *why)
{
	if (!r->st.malformed) {
		r->st.first_malformed_line = r->st.lines;
		r->st.first_malformed_why = why;
	}
	r->st.malformed++;
	r->last_bad = true;
}

static int parse_and_deliver(struct trace_reader *r, const char *text, size_t len,
			     struct trace_event *ev, const char **why, size_t *used)
{
	size_t need = TRACE_SCRATCH(len);

	if (need > r->scratch_cap) {
		size_t cap = r->scratch_cap ? r->scratch_cap : 4096;
		char *s;

		while (cap < need)
			cap *= 2;
		s = realloc(r->scratch, cap);
		if (!s)
			return reader_fail(r, "out of memory");
		r->scratch = s;
		r->scratch_cap = cap;
	}
	return trace_parse_first_event(text, len, r->scratch, ev, why, used) ? 1 : 0;
}

/* The first line: `[` and dltrace's metadata event. */
static int header_line(struct trace_reader *r, const char *p, size_t len)
{
	struct trace_event ev;
	const struct ev_arg *format;
	struct ev_str f = {"", 0};
	const char *why = NULL;
	size_t used = 0;
	int rc;

	if (*p == '{')
		return reader_fail(r, "not a dltrace trace: a JSON object (dltrace writes a JSON "
				      "array, one event per line)");
	if (*p != '[')
		return reader_fail(r, "not a dltrace trace (it does not start with '[')");
	p++;
	len--;
	while (len && blank(*p)) {
		p++;
		len--;
	}
	if (!len)
		return reader_fail(r, "not a dltrace trace: the first line does not hold "
				      "dltrace's metadata event");
	rc = parse_and_deliver(r, p, len, &ev, &why, &used);
	if (rc < 0)
		return rc;
	if (rc)
		return reader_fail(r, "not a dltrace trace: the first line is not an event (%s)",
				   why);
	if (ev.type != TEV_HEADER)
		return reader_fail(r, "not a dltrace trace: a Chrome trace without dltrace's "
				      "metadata event");
	if (used != len)
		return reader_fail(r, "not a dltrace trace: more than one event on the first line");
	format = trace_event_arg(&ev, "format");
	if (format && format->type == EV_ARG_STR)
		f = format->s;
	if (f.len != 16 || memcmp(f.s, "dltrace-chrome-1", 16)) {
		char quoted[4 * 40 + 4];

		trace_read_quote(f.s, f.len, 40, quoted, sizeof(quoted));
		return reader_fail(r,
				   "unsupported trace format '%s' (this dltrace reads "
				   "dltrace-chrome-1)",
				   quoted);
	}
	r->st.header = true;
	r->st.events++;
	r->state = 1;
	ev.raw = (struct trace_str){p, len};
	r->fn(r->ctx, &ev);
	return 0;
}

static int handle_line(struct trace_reader *r, const char *p, size_t len)
{
	struct trace_event ev;
	const char *why = NULL;
	int rc;

	r->st.lines++;
	while (len && blank(*p)) {
		p++;
		len--;
	}
	while (len && blank(p[len - 1]))
		len--;
	if (!len)
		return 0;
	if (r->state == 0)
		return header_line(r, p, len);
	if (r->state == 2) {
		r->st.trailing_garbage = true;
		return 0;
	}
	r->last_bad = false;
	if (len == 1 && *p == ']') {
		r->st.closed = true;
		r->state = 2;
		return 0;
	}
	if (*p != ',') {
		malformed(r, "a line that does not start with ','");
		return 0;
	}
	rc = parse_and_deliver(r, p + 1, len - 1, &ev, &why, NULL);
	if (rc < 0)
		return rc;
	if (rc) {
		malformed(r, why);
		return 0;
	}
	if (ev.type == TEV_HEADER) {
		malformed(r, "a second metadata event");
		return 0;
	}
	if (ev.type == TEV_SUMMARY)
		r->st.summary = true;
	r->st.events++;
	ev.raw = (struct trace_str){p + 1, len - 1};
	r->fn(r->ctx, &ev);
	return 0;
}

/* Before the first newline: reject what cannot be a trace without waiting for it. */
static int early_check(struct trace_reader *r, const char *p, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (blank(p[i]))
			continue;
		r->first_checked = true;
		if (p[i] == '[' || p[i] == '{') /* '{': its line gives the better message */
			return 0;
		return reader_fail(r, "not a dltrace trace (it does not start with '[')");
	}
	return 0;
}

static int line_append(struct trace_reader *r, const char *p, size_t n)
{
	if (r->skipping)
		return 0;
	if (r->line_len + n > TRACE_LINE_MAX) {
		if (r->state == 0)
			return reader_fail(r,
					   "not a dltrace trace: the first line is longer than "
					   "%u MiB",
					   TRACE_LINE_MAX >> 20);
		r->st.lines++;
		malformed(r, "a line longer than the longest event");
		r->line_len = 0;
		r->skipping = true;
		return 0;
	}
	if (r->line_len + n > r->line_cap) {
		size_t cap = r->line_cap ? r->line_cap : 65536;
		char *l;

		while (cap < r->line_len + n)
			cap *= 2;
		l = realloc(r->line, cap);
		if (!l)
			return reader_fail(r, "out of memory");
		r->line = l;
		r->line_cap = cap;
	}
	memcpy(r->line + r->line_len, p, n);
	r->line_len += n;
	return 0;
}

/* Trace text (decompressed). */
static int text_feed(struct trace_reader *r, const char *p, size_t len)
{
	const char *end = p + len;

	r->st.bytes += len;
	if (!r->first_checked && early_check(r, p, len))
		return -1;
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);

		if (!nl)
			return line_append(r, p, end - p);
		if (r->skipping) {
			r->skipping = false;
		} else if (r->line_len) {
			if (line_append(r, p, nl - p))
				return -1;
			if (r->skipping) {
				r->skipping = false;
			} else if (handle_line(r, r->line, r->line_len)) {
				return -1;
			}
			r->line_len = 0;
		} else if (handle_line(r, p, nl - p)) {
			return -1;
		}
		p = nl + 1;
	}
	return 0;
}

static int text_out(void *ctx, const char *p, size_t len)
{
	struct trace_reader *r = ctx;

	r->st.gzip = r->in.gzip;
	return text_feed(r, p, len);
}

int trace_reader_feed(struct trace_reader *r, const void *data, size_t len)
{
	if (r->failed)
		return -1;
	if (input_stream_feed(&r->in, data, len)) {
		if (!r->failed) /* the gzip data, not a line */
			reader_fail(r, "%s", r->in.error);
		return -1;
	}
	return 0;
}

int trace_reader_finish(struct trace_reader *r)
{
	if (r->failed)
		return -1;
	if (input_stream_finish(&r->in))
		return -1;
	r->st.gzip = r->in.gzip;
	r->st.gzip_unfinished = r->in.gzip_unfinished;
	r->st.trailing_garbage |= r->in.trailing_garbage;
	if (r->line_len && !r->skipping) {
		/* the last line has no newline: what a crash leaves */
		if (handle_line(r, r->line, r->line_len))
			return -1;
		r->line_len = 0;
	}
	if (r->in.mode == 0)
		return reader_fail(r, "empty file");
	if (!r->st.header) {
		if (r->st.gzip && !r->st.bytes)
			return reader_fail(r, r->st.gzip_unfinished
						  ? "truncated gzip file: no data could be read"
						  : "empty file (after decompression)");
		return reader_fail(r, "empty file (no events)");
	}
	if (r->last_bad && !r->st.closed) {
		/* the final line was cut in the middle of an event */
		r->st.malformed--;
		if (!r->st.malformed)
			r->st.first_malformed_why = NULL;
		r->st.cut_event = true;
	}
	return 0;
}

struct header_only {
	trace_event_fn fn;
	void *ctx;
	bool seen;
};

static void header_only_event(void *ctx, const struct trace_event *ev)
{
	struct header_only *h = ctx;

	if (ev->type == TEV_HEADER && !h->seen) {
		h->seen = true;
		h->fn(h->ctx, ev);
	}
}

int trace_read_header(const char *path, trace_event_fn fn, void *ctx, char *err, size_t errlen)
{
	struct header_only h = {fn, ctx, false};
	struct trace_reader r;
	char buf[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0;

	if (fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	trace_reader_init(&r, header_only_event, &h);
	while (!h.seen) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
			rc = -1;
			break;
		}
		if (n == 0 ? trace_reader_finish(&r) : trace_reader_feed(&r, buf, n)) {
			snprintf(err, errlen, "%s", r.st.error);
			rc = -1;
			break;
		}
		if (n == 0)
			break;
	}
	if (!rc && !h.seen) {
		snprintf(err, errlen, "empty file (no events)");
		rc = -1;
	}
	trace_reader_free(&r);
	close(fd);
	return rc;
}

int trace_read_file(const char *path, trace_event_fn fn, void *ctx, struct trace_read_status *st)
{
	return trace_read_file_progress(path, fn, ctx, st, NULL);
}

int trace_read_file_progress(const char *path, trace_event_fn fn, void *ctx,
			     struct trace_read_status *st, struct progress *progress)
{
	struct trace_reader r;
	uint64_t events = 0;
	char *buf;
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
	trace_reader_init(&r, fn, ctx);
	for (;;) {
		ssize_t n = read(fd, buf, READ_BYTES);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			reader_fail(&r, "cannot read %s: %s", path, strerror(errno));
			rc = -1;
			break;
		}
		if (n == 0) {
			rc = trace_reader_finish(&r);
			break;
		}
		if (trace_reader_feed(&r, buf, n)) {
			rc = -1;
			break;
		}
		progress__add(progress, (uint64_t)n, r.st.events - events);
		events = r.st.events;
	}
	*st = r.st;
	trace_reader_free(&r);
	free(buf);
	close(fd);
	return rc;
}
