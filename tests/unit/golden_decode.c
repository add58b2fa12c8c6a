// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The decoder on saved records, with nothing of this machine in the result:
 * ring records saved by `dltrace --save-records` go through the decoder
 * (offline: /proc is never read) into the Chrome JSON writer, with fixed
 * metadata and a summary made from the records alone, so that the same
 * records always give the same trace, byte for byte (tests/unit/golden).
 *
 * Usage: golden_decode [--start NS] RECORDS OUT.json
 *   --start NS  the trace's origin (CLOCK_MONOTONIC ns), as the trace
 *               recorded with the records had it; default: the first
 *               record's time
 * Prints "records N events M".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode/record_decoder.h"
#include "format/trace_format.h"
#include "io/output_sink.h"
#include "io/record_file.h"

#define S(lit) ((struct ev_str){(lit), sizeof(lit) - 1})

/* A fixed wall clock: the records carry none. */
#define START_WALL_NS 1700000000000000000ll

int main(int argc, char **argv)
{
	struct ev_trace_begin meta = {
	    .version = S("golden"),
	    .kernel = S("golden"),
	    .hostname = S("golden"),
	    .target = S("golden"),
	    .layers = S("syscall,cache,uring"),
	    .start_wall_ns = START_WALL_NS,
	    .tracer_pid = 1,
	};
	static struct lost_counts lost;
	struct ev_trace_end end = {.lost = &lost, .stop_reason = S("golden")};
	struct record_decoder d;
	struct output_sink sink;
	struct trace_writer *w;
	uint64_t records = 0, start = 0;
	bool have_start = false;
	const char *tail;
	char *buf, err[512];
	size_t len, off = 0, tail_len;
	int fd, arg = 1;
	uint64_t *rec = NULL;
	uint32_t rec_cap = 0;

	if (argc == 5 && !strcmp(argv[1], "--start")) {
		start = strtoull(argv[2], NULL, 10);
		have_start = true;
		arg = 3;
	}
	if (argc - arg != 2) {
		fprintf(stderr, "usage: golden_decode [--start NS] RECORDS OUT.json\n");
		return 2;
	}
	if (record_file_load(argv[arg], &buf, &len, err, sizeof(err))) {
		fprintf(stderr, "golden_decode: %s\n", err);
		return 1;
	}
	if (!have_start && len >= 4 + 8) /* the first record's time (struct dl_hdr.ts) */
		memcpy(&start, buf + 4, 8);
	fd = open(argv[arg + 1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || sink_init(&sink, fd, false, 0)) {
		perror(argv[arg + 1]);
		return 1;
	}
	w = trace_writer__new(TRACE_FORMAT_JSON, &sink, 0);
	if (!w)
		return 1;
	decoder_init(&d, trace_writer__consumer(w));
	d.offline = true;
	d.page_size = 4096; /* the cache layer counts pages: those of the machine that saved them */
	meta.start_mono_ns = start;
	decoder_begin(&d, &meta);
	while (off + 4 <= len) {
		uint32_t n;

		memcpy(&n, buf + off, 4);
		if (off + 4 + n > len) {
			fprintf(stderr, "golden_decode: %s: the last record is cut\n", argv[arg]);
			return 1;
		}
		/* the ring buffer hands the decoder 8-byte aligned records; the file's are not */
		if (n > rec_cap) {
			free(rec);
			rec_cap = n;
			rec = malloc(((size_t)n + 7) / 8 * 8);
			if (!rec)
				return 1;
		}
		memcpy(rec, buf + off + 4, n);
		decoder_handle(&d, rec, n);
		off += 4 + n;
		records++;
	}
	end.duration_ns = d.last_ts > start ? d.last_ts - start : 0;
	end.end_wall_ns = START_WALL_NS + (int64_t)end.duration_ns;
	decoder_finish(&d, &end);
	tail = trace_writer__tail(w, &tail_len);
	if (sink_close(&sink, tail, tail_len)) {
		fprintf(stderr, "golden_decode: writing %s failed\n", argv[arg + 1]);
		return 1;
	}
	printf("records %llu events %llu\n", (unsigned long long)records,
	       (unsigned long long)trace_writer__events(w));
	if (d.malformed) {
		fprintf(stderr, "golden_decode: %llu records too short for their kind\n",
			(unsigned long long)d.malformed);
		return 1;
	}
	trace_writer__free(w);
	decoder_free(&d);
	free(buf);
	free(rec);
	return 0;
}
