// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The trace readers (JSON and .pftrace, plain or gzip) on every damage of
 * one good trace that a crash, a full disk or a bad copy leaves: the file
 * cut after each of its bytes, and each of its bytes flipped (xor 0xff).
 * Each read must end, with no crash (run it under the sanitizers too), as
 * either a trace cut short (a warning: trace_read_truncated) or an error of
 * one line of printable text; a cut file is never read as whole, and a longer cut never
 * gives fewer events, and once a cut is read as a trace (its metadata
 * whole), every longer cut is.
 *
 * Usage: trace_damage FILE
 * Prints "events N", then "prefixes P: W whole, C cut, E errors; read from H
 * bytes on" (whole: a JSON trace but for its last newline)
 * and "flips F: R read, E errors", then each error message with its count
 * ("error N: MESSAGE"), and one line per broken rule; exit 1 on any.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "event/event.h"
#include "format/trace_format.h"

static unsigned broken;

struct counter {
	struct event_consumer c;
	uint64_t n;
};

static void count(struct event_consumer *c, const struct event *e)
{
	(void)e;
	container_of(c, struct counter, c)->n++;
}

/* Distinct error messages, counted. */
#define MAX_MESSAGES 64
static struct {
	char text[sizeof(((struct trace_read_status *)0)->error)];
	unsigned n;
} messages[MAX_MESSAGES];
static unsigned nmessages;

static void note_error(const char *text)
{
	for (unsigned i = 0; i < nmessages; i++)
		if (!strcmp(messages[i].text, text)) {
			messages[i].n++;
			return;
		}
	if (nmessages < MAX_MESSAGES) {
		snprintf(messages[nmessages].text, sizeof(messages[0].text), "%s", text);
		messages[nmessages++].n = 1;
	}
}

enum outcome { WHOLE, CUT, ERROR };

/* Read path; the events delivered in *events. */
static enum outcome read_trace(const char *path, uint64_t *events, const char *what, size_t at)
{
	struct counter k = {.n = 0};
	struct trace_read_status st;
	int rc;

	event_consumer_init(&k.c);
	event_consumer_fill(&k.c, count);
	rc = trace_file_read(path, &k.c, &st);
	*events = k.n;
	if (rc) {
		bool printable = st.error[0];

		for (const char *c = st.error; *c; c++)
			printable &= *c >= 0x20 && *c < 0x7f;
		if (!printable) { /* a file's bytes would reach the terminal as they are */
			printf("%s %zu: an error that is not one line of printable text: \"%s\"\n",
			       what, at, st.error);
			broken++;
		}
		note_error(st.error);
		return ERROR;
	}
	return trace_read_truncated(&st) ? CUT : WHOLE;
}

/*
 * The damaged copy lives in memory (a memfd, read through /proc/self/fd):
 * thousands of copies, and no file system's cost in each.
 */
static int copy_fd = -1;
static char copy_path[64];

static int write_copy(const char *data, size_t n)
{
	if (copy_fd < 0) {
		copy_fd = memfd_create("damaged-trace", MFD_CLOEXEC);
		if (copy_fd < 0)
			return -1;
		snprintf(copy_path, sizeof(copy_path), "/proc/self/fd/%d", copy_fd);
	}
	if (ftruncate(copy_fd, 0) || pwrite(copy_fd, data, n, 0) != (ssize_t)n)
		return -1;
	return 0;
}

static char *load(const char *path, size_t *n)
{
	FILE *f = fopen(path, "re");
	char *buf;
	long size;

	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		return NULL;
	buf = malloc(size ? size : 1);
	if (!buf || fread(buf, 1, size, f) != (size_t)size)
		return NULL;
	fclose(f);
	*n = size;
	return buf;
}

/* Only whitespace from n on: what a cut there loses is no part of an event. */
static bool only_space_after(const char *data, size_t n, size_t size)
{
	for (size_t i = n; i < size; i++)
		if (data[i] != '\n' && data[i] != ' ')
			return false;
	return true;
}

int main(int argc, char **argv)
{
	const char *name;
	size_t size;
	char *data;
	uint64_t whole, events, last = 0;
	size_t readable = SIZE_MAX; /* the shortest prefix read (as a cut trace) */
	unsigned cut = 0, errors = 0, read_ok = 0, flip_errors = 0, whole_prefixes = 0;
	bool json;

	if (argc != 2) {
		fprintf(stderr, "usage: trace_damage FILE\n");
		return 2;
	}
	data = load(argv[1], &size);
	if (!data) {
		perror(argv[1]);
		return 1;
	}
	name = strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1];
	json = !strstr(name, ".pftrace");
	if (read_trace(argv[1], &whole, "whole", size) != WHOLE) {
		printf("the whole file is not read as a whole trace\n");
		return 1;
	}
	printf("events %llu\n", (unsigned long long)whole);

	for (size_t n = 0; n < size; n++) {
		enum outcome o;

		if (write_copy(data, n)) {
			perror("memfd");
			return 1;
		}
		o = read_trace(copy_path, &events, "prefix", n);
		if (o == ERROR) {
			/* once the metadata is whole, what is cut after it is a warning */
			if (readable <= n) {
				printf("prefix %zu: an error, after prefix %zu was read\n", n,
				       readable);
				broken++;
			}
			errors++;
			continue;
		}
		if (readable > n)
			readable = n;
		if (o == WHOLE && !(json && only_space_after(data, n, size))) {
			printf("prefix %zu: read as a whole trace (%llu events)\n", n,
			       (unsigned long long)events);
			broken++;
		}
		cut += o == CUT;
		whole_prefixes += o == WHOLE;
		if (events < last || events > whole) {
			printf("prefix %zu: %llu events (the prefix before gave %llu, the whole "
			       "%llu)\n",
			       n, (unsigned long long)events, (unsigned long long)last,
			       (unsigned long long)whole);
			broken++;
		}
		last = events;
	}
	printf("prefixes %zu: %u whole, %u cut, %u errors; read from %zu bytes on\n", size,
	       whole_prefixes, cut, errors, readable);

	for (size_t i = 0; i < size; i++) {
		data[i] ^= 0xff;
		if (write_copy(data, size)) {
			perror("memfd");
			return 1;
		}
		if (read_trace(copy_path, &events, "flip", i) == ERROR)
			flip_errors++;
		else
			read_ok++;
		data[i] ^= 0xff;
	}
	printf("flips %zu: %u read, %u errors\n", size, read_ok, flip_errors);
	for (unsigned i = 0; i < nmessages; i++)
		printf("error %u: %s\n", messages[i].n, messages[i].text);
	free(data);
	return broken ? 1 : 0;
}
