// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Test and measurement driver of the .pftrace writer (format/perfetto/).
 *
 *   pftrace_encode [-z LEVEL] [-t N] IN OUT   a dltrace trace (JSON or .pftrace) through
 *                                             the .pftrace consumer into OUT (what
 *                                             `dltrace convert` does, with -t)
 *   pftrace_encode [-z LEVEL] -s N OUT        N synthetic pread64 events (the micro
 *                                             workload's shape) into OUT
 *
 * -z LEVEL gzips OUT (through io/output_sink, as dltrace does); -t N makes
 * the string table full at N strings (tests of its clearing).  Prints
 * events, bytes and the writer's CPU time per event on stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "format/perfetto/pftrace_consumer.h"
#include "format/perfetto/pftrace_writer.h"
#include "format/trace_format.h"
#include "io/output_sink.h"

/* The micro workload: pread64 of 4 KiB at growing offsets, one thread, one file. */
static void encode_synthetic(struct pftrace_writer *w, uint64_t n, uint64_t *events)
{
	static const char path[] = "/home/user/dltrace/bench/data/micro.bin";
	uint64_t ts = 1000000, seed = 42;
	struct pft_arg args[5] = {
	    {.key = PFT_STR("ret"), .type = PFT_ARG_I64, .i = 4096},
	    {.key = PFT_STR("fd"), .type = PFT_ARG_I64, .i = 3},
	    {.key = PFT_STR("path"), .type = PFT_ARG_PATH, .s = {path, sizeof(path) - 1}},
	    {.key = PFT_STR("offset"), .type = PFT_ARG_U64},
	    {.key = PFT_STR("size"), .type = PFT_ARG_U64, .u = 4096},
	};

	pftrace_process_name(w, 1000, PFT_STR("micro_pread micro.bin 1 1000000"));
	pftrace_thread_name(w, 1000, 1000, PFT_STR("micro_pread"));
	for (uint64_t i = 0; i < n; i++) {
		uint64_t dur, gap;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		/* about the measured spread: 300-1000 ns in the call, 200-700 between */
		dur = 300 + (seed >> 33) % 700;
		gap = 200 + (seed >> 13) % 500;
		args[3].u = (i % 256) * 4096;
		pftrace_slice(w, 1000, 1000, ts, dur, PFT_STR("pread64"), PFT_STR("data"), args, 5,
			      0, 0);
		ts += dur + gap;
		++*events;
	}
}

/* A trace file through the consumer; the events it wrote. */
static int encode_file(struct output_sink *sink, const char *in, uint32_t table, uint64_t *events,
		       uint64_t *dropped)
{
	struct pftrace_consumer *c = pftrace_consumer__new(sink, 0);
	struct trace_read_status st;
	const char *tail;
	size_t len;
	int rc;

	if (!c)
		return -1;
	sink_frame_packets(sink);
	if (table)
		pftrace_consumer__limit_strings(c, table);
	rc = trace_file_read(in, pftrace_consumer__consumer(c), &st);
	if (rc)
		fprintf(stderr, "pftrace_encode: %s: %s\n", in, st.error);
	tail = pftrace_consumer__tail(c, &len);
	if (sink_close(sink, tail, len))
		rc = -1;
	*events = pftrace_consumer__events(c);
	*dropped = st.events - *events;
	pftrace_consumer__free(c);
	return rc;
}

int main(int argc, char **argv)
{
	int level = 0, opt, fd;
	uint64_t synthetic = 0, events = 0, table = 0, dropped = 0;
	struct output_sink sink;
	struct timespec t0, t1;
	struct stat st;
	double ns;

	while ((opt = getopt(argc, argv, "z:s:t:")) != -1) {
		if (opt == 'z')
			level = atoi(optarg);
		else if (opt == 't')
			table = strtoull(optarg, NULL, 10);
		else if (opt == 's')
			synthetic = strtoull(optarg, NULL, 10);
		else
			return 2;
	}
	if (argc - optind != (synthetic ? 1 : 2)) {
		fprintf(stderr, "usage: pftrace_encode [-z LEVEL] [-t N] (IN | -s N) OUT\n");
		return 2;
	}
	fd = open(argv[argc - 1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || sink_init(&sink, fd, level > 0, level)) {
		perror(argv[argc - 1]);
		return 1;
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	if (synthetic) {
		struct pftrace_writer w;

		if (pftrace_writer_init(&w, &sink, 1000000000, 1700000000000000000))
			return 1;
		encode_synthetic(&w, synthetic, &events);
		dropped = w.dropped;
		if (sink_close(&sink, NULL, 0)) {
			perror(argv[argc - 1]);
			return 1;
		}
		pftrace_writer_free(&w);
	} else if (encode_file(&sink, argv[optind], table, &events, &dropped)) {
		return 1;
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	ns = (t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec);
	stat(argv[argc - 1], &st);
	fprintf(stderr,
		"pftrace_encode: %llu events, %llu dropped, %lld bytes, %.2f bytes/event, %.0f "
		"ns/event\n",
		(unsigned long long)events, (unsigned long long)dropped, (long long)st.st_size,
		events ? (double)st.st_size / events : 0.0, events ? ns / events : 0.0);
	return dropped ? 1 : 0;
}
