// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Test and measurement driver of format/perfetto/pftrace_writer.
 *
 *   pftrace_encode [-z LEVEL] IN OUT     encode an event list (below) into OUT
 *   pftrace_encode [-z LEVEL] -s N OUT   N synthetic pread64 events (the micro
 *                                        workload's shape) into OUT
 *
 * -z LEVEL gzips OUT (through io/output_sink, as dltrace does); -t N makes
 * the string table full at N strings (tests of its clearing).  Prints
 * events, bytes and the writer's CPU time per event on stderr.
 *
 * Event list (tests/perfetto/pftrace_events.py writes it from a JSON
 * trace), little-endian records until the end of the file:
 *   u8 op ('M' meta, 'P' process name, 'T' thread name, 'X' slice, 'B', 'E',
 *          'i' instant, 'A' async begin+end, 'C' counter)
 *   u32 pid, tid, group_pid; u64 ts, dur, flow_out, flow_in
 *   str name, cat (str: u32 length, bytes)
 *   args ('A': begin args, then end args)
 * args: u16 count, then each: str key, u8 type (enum pft_arg_type), value:
 *   u64 (U64, I64, US, HEX), str (STR, PATH), u8 (BOOL), f64 (DOUBLE), args (DICT)
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

#include "format/perfetto/pftrace_writer.h"
#include "io/output_sink.h"

#define ARGS_MAX 4096

struct reader {
	const uint8_t *p, *end;
	bool bad;
	struct pft_arg pool[ARGS_MAX];
	uint32_t used;
};

static const void *take(struct reader *r, size_t n)
{
	const void *p = r->p;

	if ((size_t)(r->end - r->p) < n) {
		r->bad = true;
		return NULL;
	}
	r->p += n;
	return p;
}

static uint64_t get_u(struct reader *r, size_t n)
{
	const uint8_t *p = take(r, n);
	uint64_t v = 0;

	for (size_t i = 0; p && i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static struct pft_str get_str(struct reader *r)
{
	uint32_t n = get_u(r, 4);
	const char *s = take(r, n);

	return s ? (struct pft_str){s, n} : (struct pft_str){"", 0};
}

static const struct pft_arg *get_args(struct reader *r, uint32_t *n)
{
	uint32_t count = get_u(r, 2), first = r->used;

	if (r->used + count > ARGS_MAX) {
		r->bad = true;
		*n = 0;
		return r->pool;
	}
	r->used += count;
	for (uint32_t i = 0; i < count && !r->bad; i++) {
		struct pft_arg *a = &r->pool[first + i];
		uint64_t bits;

		a->key = get_str(r);
		a->type = get_u(r, 1);
		switch (a->type) {
		case PFT_ARG_U64:
		case PFT_ARG_I64:
		case PFT_ARG_US:
		case PFT_ARG_HEX:
			a->u = get_u(r, 8);
			break;
		case PFT_ARG_STR:
		case PFT_ARG_PATH:
			a->s = get_str(r);
			break;
		case PFT_ARG_BOOL:
			a->b = get_u(r, 1);
			break;
		case PFT_ARG_DOUBLE:
			bits = get_u(r, 8);
			memcpy(&a->d, &bits, sizeof(bits));
			break;
		case PFT_ARG_DICT:
			a->dict.args = get_args(r, &a->dict.n);
			break;
		default:
			r->bad = true;
		}
	}
	*n = count;
	return &r->pool[first];
}

static int encode_list(struct pftrace_writer *w, const char *path, uint64_t *events)
{
	struct reader r = {0};
	struct stat st;
	int fd = open(path, O_RDONLY);
	void *map;

	if (fd < 0 || fstat(fd, &st)) {
		perror(path);
		return -1;
	}
	map = st.st_size ? mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
	close(fd);
	if (map == MAP_FAILED) {
		perror(path);
		return -1;
	}
	r.p = map;
	r.end = r.p + st.st_size;
	while (r.p < r.end && !r.bad) {
		uint8_t op = get_u(&r, 1);
		uint32_t pid = get_u(&r, 4), tid = get_u(&r, 4), group = get_u(&r, 4);
		uint64_t ts = get_u(&r, 8), dur = get_u(&r, 8);
		uint64_t flow_out = get_u(&r, 8), flow_in = get_u(&r, 8);
		struct pft_str name = get_str(&r), cat = get_str(&r);
		const struct pft_arg *args, *eargs = NULL;
		uint32_t n, ne = 0;

		r.used = 0;
		args = get_args(&r, &n);
		if (op == 'A')
			eargs = get_args(&r, &ne);
		if (r.bad)
			break;
		switch (op) {
		case 'M':
			pftrace_meta(w, ts, name, args, n);
			break;
		case 'P':
			pftrace_process_name(w, pid, name);
			break;
		case 'T':
			pftrace_thread_name(w, pid, tid, name);
			break;
		case 'X':
			pftrace_slice(w, pid, tid, ts, dur, name, cat, args, n, flow_out, flow_in);
			break;
		case 'B':
			pftrace_slice_begin(w, pid, tid, ts, name, cat, args, n);
			break;
		case 'E':
			pftrace_slice_end(w, pid, tid, ts, args, n);
			break;
		case 'i':
			pftrace_instant(w, pid, tid, ts, name, cat, args, n);
			break;
		case 'A':
			pftrace_async(w, pid, tid, group, ts, dur, name, cat, args, n, eargs, ne);
			break;
		case 'C':
			pftrace_counter(w, pid, tid, ts, name, args, n);
			break;
		default:
			r.bad = true;
			break;
		}
		++*events;
	}
	if (map)
		munmap(map, st.st_size);
	if (r.bad) {
		fprintf(stderr, "%s: malformed event list\n", path);
		return -1;
	}
	return 0;
}

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

int main(int argc, char **argv)
{
	int level = 0, opt, fd;
	uint64_t synthetic = 0, events = 0, table = 0;
	struct output_sink sink;
	struct pftrace_writer w;
	struct timespec t0, t1;
	struct stat st;
	uint64_t dropped;
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
	if (fd < 0 || sink_init(&sink, fd, level > 0, level) ||
	    pftrace_writer_init(&w, &sink, 1000000000, 1700000000000000000)) {
		perror(argv[argc - 1]);
		return 1;
	}
	if (table)
		w.intern.max_strings = table;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	if (synthetic)
		encode_synthetic(&w, synthetic, &events);
	else if (encode_list(&w, argv[optind], &events))
		return 1;
	if (sink_close(&sink, NULL, 0)) {
		perror(argv[argc - 1]);
		return 1;
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	ns = (t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec);
	stat(argv[argc - 1], &st);
	fprintf(stderr,
		"pftrace_encode: %llu events, %llu packets, %llu dropped, %lld bytes, %.2f "
		"bytes/event, %.0f ns/event\n",
		(unsigned long long)events, (unsigned long long)w.packets,
		(unsigned long long)w.dropped, (long long)st.st_size,
		events ? (double)st.st_size / events : 0.0, events ? ns / events : 0.0);
	dropped = w.dropped;
	pftrace_writer_free(&w);
	return dropped ? 1 : 0;
}
