// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * micro: cached 4 KiB preads of one file from THREADS threads, timed inside.
 *
 * Usage: micro_pread FILE THREADS CALLS        CALLS preads per thread
 *        micro_pread FILE THREADS --seconds S  every thread until S seconds pass
 *
 * Offsets cycle through the file's first 256 pages (the file must have them).
 * Prints one JSON object: "calls" (all threads), "elapsed_ns" (first start to
 * last end), "ns_per_call" (mean of each thread's time per call); with
 * --seconds also "per_second" (calls completed in each second) and
 * "max_gap_ns" (longest time any thread went without finishing 1024 calls).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 64
#define MAX_SECONDS 3600
#define BATCH	    1024 /* calls between clock reads in --seconds mode */
#define PAGES	    256

struct worker {
	pthread_t thread;
	uint64_t calls, start_ns, end_ns, max_gap_ns;
	uint64_t per_second[MAX_SECONDS + 1];
};

static int fd;
static uint64_t calls_per_thread, seconds;
static pthread_barrier_t barrier;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void read_page(uint64_t i, char *buf)
{
	if (pread(fd, buf, 4096, (off_t)(i % PAGES) * 4096) != 4096) {
		perror("pread");
		exit(1);
	}
}

static void run_count(struct worker *w, char *buf)
{
	for (uint64_t i = 0; i < calls_per_thread; i++)
		read_page(i, buf);
	w->calls = calls_per_thread;
}

static void run_timed(struct worker *w, char *buf)
{
	uint64_t end = w->start_ns + seconds * 1000000000ull, last = w->start_ns, i = 0;

	for (;;) {
		uint64_t t;

		for (int k = 0; k < BATCH; k++)
			read_page(i++, buf);
		t = now_ns();
		if (t - last > w->max_gap_ns)
			w->max_gap_ns = t - last;
		last = t;
		w->per_second[(t - w->start_ns) / 1000000000ull > MAX_SECONDS
				  ? MAX_SECONDS
				  : (t - w->start_ns) / 1000000000ull] += BATCH;
		if (t >= end)
			break;
	}
	w->calls = i;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	char buf[4096];

	pthread_barrier_wait(&barrier);
	w->start_ns = now_ns();
	if (seconds)
		run_timed(w, buf);
	else
		run_count(w, buf);
	w->end_ns = now_ns();
	return NULL;
}

static void print_result(struct worker *w, int threads)
{
	uint64_t calls = 0, start = UINT64_MAX, end = 0, gap = 0;
	double ns_per_call = 0;

	for (int t = 0; t < threads; t++) {
		calls += w[t].calls;
		start = w[t].start_ns < start ? w[t].start_ns : start;
		end = w[t].end_ns > end ? w[t].end_ns : end;
		gap = w[t].max_gap_ns > gap ? w[t].max_gap_ns : gap;
		ns_per_call += (double)(w[t].end_ns - w[t].start_ns) / w[t].calls / threads;
	}
	printf("{\"workload\":\"micro\",\"threads\":%d,\"calls\":%llu,\"elapsed_ns\":%llu,"
	       "\"ns_per_call\":%.1f",
	       threads, (unsigned long long)calls, (unsigned long long)(end - start), ns_per_call);
	if (seconds) {
		printf(",\"max_gap_ns\":%llu,\"per_second\":[", (unsigned long long)gap);
		for (uint64_t s = 0; s <= seconds && s <= MAX_SECONDS; s++) {
			uint64_t n = 0;

			for (int t = 0; t < threads; t++)
				n += w[t].per_second[s];
			printf("%s%llu", s ? "," : "", (unsigned long long)n);
		}
		printf("]");
	}
	printf("}\n");
}

int main(int argc, char **argv)
{
	struct worker *w;
	int threads;

	if (argc != 4 && !(argc == 5 && !strcmp(argv[3], "--seconds"))) {
		fprintf(stderr, "usage: micro_pread FILE THREADS CALLS|--seconds S\n");
		return 2;
	}
	threads = atoi(argv[2]);
	if (threads < 1 || threads > MAX_THREADS) {
		fprintf(stderr, "micro_pread: THREADS must be 1 to %d\n", MAX_THREADS);
		return 2;
	}
	if (argc == 5)
		seconds = strtoull(argv[4], NULL, 10);
	else
		calls_per_thread = strtoull(argv[3], NULL, 10);
	if ((argc == 5 && (seconds < 1 || seconds > MAX_SECONDS)) ||
	    (argc == 4 && calls_per_thread < 1)) {
		fprintf(stderr, "micro_pread: CALLS and S must be positive (S at most %d)\n",
			MAX_SECONDS);
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	w = calloc(threads, sizeof(*w));
	if (fd < 0 || !w) {
		perror(argv[1]);
		return 1;
	}
	pthread_barrier_init(&barrier, NULL, threads);
	for (int t = 0; t < threads; t++) {
		if (pthread_create(&w[t].thread, NULL, worker_main, &w[t])) {
			fprintf(stderr, "micro_pread: cannot create threads\n");
			return 1;
		}
	}
	for (int t = 0; t < threads; t++)
		pthread_join(w[t].thread, NULL);
	print_result(w, threads);
	return 0;
}
