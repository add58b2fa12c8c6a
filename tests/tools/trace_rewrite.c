// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A trace read into typed events (format/chrome/chrome_events.c) and
 * written again by the Chrome writer: what event_args() lists and what
 * the reader takes back must be the same, so that every syscall line comes
 * out byte for byte as it went in (tests/test_syscall_capture.py).
 *
 * Usage: trace_rewrite TRACE OUTPUT
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "format/chrome/chrome_events.h"
#include "format/chrome/chrome_writer.h"
#include "io/output_sink.h"

int main(int argc, char **argv)
{
	struct trace_read_status st;
	struct output_sink sink;
	struct chrome_writer *w;
	const char *tail;
	size_t n;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: trace_rewrite TRACE OUTPUT\n");
		return 2;
	}
	fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || sink_init(&sink, fd, false, 0)) {
		perror(argv[2]);
		return 1;
	}
	w = chrome_writer__new(&sink, 0);
	if (!w || chrome_read_events(argv[1], chrome_writer__consumer(w), &st)) {
		fprintf(stderr, "trace_rewrite: %s\n", w ? st.error : "out of memory");
		return 1;
	}
	tail = chrome_writer__tail(w, &n);
	if (sink_close(&sink, tail, n)) {
		perror(argv[2]);
		return 1;
	}
	chrome_writer__free(w);
	return 0;
}
