// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * clock_pairs MARKERS_LIB KINETO_OUT N GAP_MS: the same instants written to
 * both traces that `dltrace merge` aligns, for bench/clock_alignment.py.
 *
 * N times, GAP_MS apart, it reads CLOCK_MONOTONIC, CLOCK_REALTIME and
 * CLOCK_MONOTONIC again, then
 *   - marks the instant with a dltrace marker (dltrace_instant "clock_pair",
 *     args {"i", "mono0", "wall", "mono1"}: dltrace stamps it with its own
 *     CLOCK_MONOTONIC reading in the kernel, and places it on the wall
 *     clock through the one pair of readings it took at its start);
 *   - writes a PyTorch profiler (Kineto) event of the REALTIME reading, as
 *     torch.profiler does: ts in microseconds with ns decimals since
 *     baseTimeNanoseconds (the clock of std::chrono::system_clock).
 * The markers library is opened with dlopen, as a job's Python would.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int64_t now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	void (*instant)(const char *, const char *);
	int64_t base = -1;
	FILE *out;
	void *lib;
	long n, gap_ms;

	if (argc != 5) {
		fprintf(stderr, "usage: clock_pairs MARKERS_LIB KINETO_OUT N GAP_MS\n");
		return 2;
	}
	n = atol(argv[3]);
	gap_ms = atol(argv[4]);
	lib = dlopen(argv[1], RTLD_NOW);
	if (!lib || !(instant = (void (*)(const char *, const char *))dlsym(lib, "dltrace_instant"))) {
		fprintf(stderr, "clock_pairs: %s\n", dlerror());
		return 1;
	}
	out = fopen(argv[2], "w");
	if (!out) {
		perror(argv[2]);
		return 1;
	}
	fprintf(out, "{\n  \"schemaVersion\": 1,\n  \"traceEvents\": [\n");
	for (long i = 0; i < n; i++) {
		int64_t mono0 = now(CLOCK_MONOTONIC), wall = now(CLOCK_REALTIME),
			mono1 = now(CLOCK_MONOTONIC), ts;
		char args[160];

		snprintf(args, sizeof(args),
			 "{\"i\":%ld,\"mono0\":%lld,\"wall\":%lld,\"mono1\":%lld}", i,
			 (long long)mono0, (long long)wall, (long long)mono1);
		instant("clock_pair", args);
		if (base < 0)
			base = wall / 1000000000 * 1000000000; /* a whole second, as any base */
		ts = wall - base;
		fprintf(out,
			"%s  {\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"name\": "
			"\"clock_pair\", \"pid\": %d, \"tid\": %d, \"ts\": %lld.%03lld, \"s\": \"t\", "
			"\"args\": {\"i\": %ld}}",
			i ? ",\n" : "", getpid(), gettid(), (long long)(ts / 1000),
			(long long)(ts % 1000), i);
		usleep(gap_ms * 1000);
	}
	fprintf(out, "\n  ],\n  \"traceName\": \"clock_pairs\",\n  \"baseTimeNanoseconds\": %lld\n}\n",
		(long long)base);
	return fclose(out) ? 1 : 0;
}
