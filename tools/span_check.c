// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * span_check: what the library layers and markers recorded, from the raw
 * records `dltrace --save-records FILE` saved, before the span records
 * have a place in the trace.  For each library call and region: its
 * function, the object it worked on (named from the open that returned its
 * handle), its arguments, and the syscalls it encloses on its thread; and
 * whether every slice nests properly with the syscalls and with the other
 * slices of its thread (no partial overlap).
 *
 * Usage: span_check [-l | --json] RECORDS
 *   (default)  calls per function, per object, and regions per name and arguments
 *   -l         also every span, one line each
 *   --json     every span as one JSON object per line, then a summary object
 * Exit status: 0, 1 when a slice overlaps another partially, 2 on errors.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/dltrace_events.h"
#include "decode/span_records.h"
#include "event/syscall_table.h"
#include "io/record_file.h"
#include "lib/json_string.h"

struct sys {
	uint32_t tid;
	uint16_t kind;
	uint64_t ts, end;
	uint64_t size;
	int64_t ret;
};

struct span {
	uint32_t pid, tid;
	uint16_t level, func, flags, depth;
	uint64_t ts, end;
	int64_t ret;
	uint64_t handle, offset, size, count;
	uint32_t arg;
	int32_t fd;
	char *str, *str2;   /* the record's strings */
	char *obj, *file;   /* the object it works on, and its file (HDF5) */
	uint32_t enclosed;  /* syscalls inside it on its thread */
	uint64_t enc_bytes; /* their bytes: the return values of reads and writes */
	uint32_t enc_kind[DL_SYS_COUNT];
	bool partial; /* overlaps a syscall or another slice partially */
};

static struct sys *sys;
static size_t nsys, sys_cap;
static struct span *spans;
static size_t nspans, span_cap;
static uint64_t t0;

static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : 1024;
	p = realloc(p, *cap * size);
	if (!p) {
		fprintf(stderr, "span_check: out of memory\n");
		exit(2);
	}
	return p;
}

static char *dup_or_null(const char *s, size_t len)
{
	return s ? strndup(s, len) : NULL;
}

static void add_record(struct span_handles *names, const void *rec, size_t size)
{
	const struct dl_hdr *h = rec;
	struct span_view v;
	const struct span_name *n;
	struct span *s;

	if (size < sizeof(*h))
		return;
	if (!t0 || h->ts < t0)
		t0 = h->ts;
	if (h->kind < DL_SYS_COUNT) {
		const struct dl_io *io = rec;

		if ((h->flags & DL_F_BATCH) && size > sizeof(*io)) {
			for (size_t off = 0; off + sizeof(*io) <= size; off += sizeof(*io))
				add_record(names, (const char *)rec + off, sizeof(*io));
			return;
		}
		if (size < sizeof(*io))
			return;
		sys = grow(sys, &sys_cap, nsys, sizeof(*sys));
		sys[nsys++] =
		    (struct sys){h->tid, h->kind, h->ts, h->ts + io->dur, io->size, io->ret};
		return;
	}
	if (h->kind == DL_EV_EXIT && (h->flags & DL_F_GROUP_DEAD)) {
		span_handles_forget_process(names, h->tgid);
		return;
	}
	if (h->kind != DL_EV_SPAN)
		return;
	if (span_view(rec, size, &v)) {
		fprintf(stderr, "span_check: a malformed span record\n");
		return;
	}
	n = span_handles_apply(names, &v);
	spans = grow(spans, &span_cap, nspans, sizeof(*spans));
	s = &spans[nspans++];
	memset(s, 0, sizeof(*s));
	s->pid = h->tgid;
	s->tid = h->tid;
	s->level = v.rec->level;
	s->func = v.rec->func;
	s->flags = v.rec->flags;
	s->depth = v.rec->depth;
	s->ts = h->ts;
	s->end = h->ts + v.rec->dur;
	s->ret = v.rec->ret;
	s->handle = v.rec->handle;
	s->offset = v.rec->offset;
	s->size = v.rec->size;
	s->count = v.rec->count;
	s->arg = v.rec->arg;
	s->fd = v.rec->flags & DL_SPAN_FD ? h->fd : -1;
	s->str = dup_or_null(v.str, v.str_len);
	s->str2 = dup_or_null(v.str2, v.str2_len);
	if (n) {
		s->obj = n->name ? strdup(n->name) : NULL;
		s->file = n->file ? strdup(n->file) : NULL;
	}
}

static int by_tid_ts(const void *a, const void *b)
{
	const struct sys *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* Slices of a thread by start, the longer first when they start together. */
static int span_order(const void *a, const void *b)
{
	const struct span *x = *(struct span *const *)a, *y = *(struct span *const *)b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->end > y->end ? -1 : x->end < y->end;
}

/* The first syscall of tid starting at or after ts. */
static size_t first_sys(uint32_t tid, uint64_t ts)
{
	size_t lo = 0, hi = nsys;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (sys[mid].tid < tid || (sys[mid].tid == tid && sys[mid].ts < ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static size_t check_nesting(void)
{
	struct span **order = malloc((nspans ? nspans : 1) * sizeof(*order));
	struct span **stack = malloc((nspans ? nspans : 1) * sizeof(*stack));
	size_t n = 0, depth = 0, bad = 0;

	if (!order || !stack)
		exit(2);
	qsort(sys, nsys, sizeof(*sys), by_tid_ts);
	for (size_t i = 0; i < nspans; i++) {
		struct span *s = &spans[i];
		size_t k = first_sys(s->tid, s->ts);

		if (span_phase(s->func) != 'X')
			continue;
		order[n++] = s;
		/* the syscall before it on its thread must end before it starts */
		if (k > 0 && sys[k - 1].tid == s->tid && sys[k - 1].end > s->ts)
			s->partial = true;
		for (; k < nsys && sys[k].tid == s->tid && sys[k].ts < s->end; k++) {
			const struct syscall_info *si = syscall_info(sys[k].kind);

			if (sys[k].end > s->end) {
				s->partial = true;
				continue;
			}
			s->enclosed++;
			s->enc_kind[sys[k].kind]++;
			if (si && (si->reads || si->writes) && sys[k].ret > 0)
				s->enc_bytes += sys[k].ret;
		}
	}
	/* slices of one thread: nested or apart */
	qsort(order, n, sizeof(*order), span_order);
	for (size_t i = 0; i < n; i++) {
		struct span *s = order[i];

		while (depth && (stack[depth - 1]->tid != s->tid || stack[depth - 1]->end <= s->ts))
			depth--;
		if (depth && s->end > stack[depth - 1]->end) {
			s->partial = true;
			stack[depth - 1]->partial = true;
		}
		stack[depth++] = s;
	}
	for (size_t i = 0; i < nspans; i++)
		bad += spans[i].partial;
	free(order);
	free(stack);
	return bad;
}

static void json_str(const char *key, const char *s)
{
	char out[JSON_ESCAPED_MAX(DL_SPAN_STR_MAX) + 8];
	bool lossy;
	size_t len;

	if (!s)
		return;
	len = strlen(s);
	if (len > DL_SPAN_STR_MAX)
		len = DL_SPAN_STR_MAX;
	out[json_escape(out, s, len, &lossy)] = '\0';
	printf(",\"%s\":\"%s\"", key, out);
}

static void print_json(const struct span *s)
{
	const char *sep = "";

	printf("{\"pid\":%u,\"tid\":%u,\"ts\":%llu,\"dur\":%llu,\"level\":\"%s\",\"func\":\"%s\","
	       "\"ph\":\"%c\",\"depth\":%u,\"flags\":%u",
	       s->pid, s->tid, (unsigned long long)(s->ts - t0),
	       (unsigned long long)(s->end - s->ts), span_level_name(s->level),
	       span_func_name(s->func), span_phase(s->func), s->depth, s->flags);
	if (!(s->flags & DL_SPAN_NO_RET))
		printf(",\"ret\":%lld", (long long)s->ret);
	if (s->flags & DL_SPAN_HANDLE)
		printf(",\"handle\":%llu", (unsigned long long)s->handle);
	if (s->flags & DL_SPAN_OFFSET)
		printf(",\"offset\":%llu", (unsigned long long)s->offset);
	if (s->flags & DL_SPAN_SIZE)
		printf(",\"size\":%llu", (unsigned long long)s->size);
	if (s->flags & DL_SPAN_COUNT)
		printf(",\"count\":%llu", (unsigned long long)s->count);
	if (s->flags & DL_SPAN_ARG)
		printf(",\"arg\":%u", s->arg);
	if (s->fd >= 0)
		printf(",\"fd\":%d", s->fd);
	if (s->str && *s->str)
		json_str("str", s->str);
	if (s->str2 && *s->str2)
		json_str("str2", s->str2);
	json_str("object", s->obj);
	json_str("file", s->file);
	if (span_phase(s->func) == 'X') {
		printf(",\"enclosed\":%u,\"enclosed_bytes\":%llu,\"enclosed_by_kind\":{",
		       s->enclosed, (unsigned long long)s->enc_bytes);
		for (unsigned k = 0; k < DL_SYS_COUNT; k++) {
			if (!s->enc_kind[k])
				continue;
			printf("%s\"%s\":%u", sep, record_kind_name(k), s->enc_kind[k]);
			sep = ",";
		}
		printf("},\"partial_overlap\":%s", s->partial ? "true" : "false");
	}
	printf("}\n");
}

static void print_line(const struct span *s)
{
	printf("  %10.3f ms  tid %-7u %-6s %-22s dur %9.1f us", (s->ts - t0) / 1e6, s->tid,
	       span_level_name(s->level), span_func_name(s->func), (s->end - s->ts) / 1e3);
	if (s->obj)
		printf("  %s", s->obj);
	else if (s->str && *s->str)
		printf("  %s", s->str);
	if (s->file && (!s->obj || strcmp(s->file, s->obj)))
		printf(" in %s", s->file);
	if (s->str2 && *s->str2)
		printf("  %s", s->str2);
	if (s->flags & DL_SPAN_OFFSET)
		printf("  offset %llu", (unsigned long long)s->offset);
	if (s->flags & DL_SPAN_SIZE)
		printf("  size %llu", (unsigned long long)s->size);
	if (!(s->flags & DL_SPAN_NO_RET))
		printf("  ret %lld", (long long)s->ret);
	if (span_phase(s->func) == 'X')
		printf("  [%u syscalls, %llu B]", s->enclosed, (unsigned long long)s->enc_bytes);
	if (s->partial)
		printf("  PARTIAL OVERLAP");
	printf("\n");
}

/* Groups for the summary: same level, function, object (or name) and arguments. */
static int group_order(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	const char *xo = x->obj ? x->obj : x->str ? x->str : "";
	const char *yo = y->obj ? y->obj : y->str ? y->str : "";
	int c;

	if (x->level != y->level)
		return x->level < y->level ? -1 : 1;
	if (x->func != y->func)
		return x->func < y->func ? -1 : 1;
	if ((c = strcmp(xo, yo)))
		return c;
	if (x->level == DL_LAYER_MARKERS &&
	    (c = strcmp(x->str2 ? x->str2 : "", y->str2 ? y->str2 : "")))
		return c;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static void print_summary(void)
{
	struct span *g = malloc((nspans ? nspans : 1) * sizeof(*g));

	if (!g)
		exit(2);
	memcpy(g, spans, nspans * sizeof(*g));
	qsort(g, nspans, sizeof(*g), group_order);
	printf("%-6s %-22s %7s %9s %12s  %s\n", "level", "function", "calls", "syscalls",
	       "syscall B", "object / name [args]");
	for (size_t i = 0; i < nspans;) {
		size_t j = i;
		uint64_t enclosed = 0, bytes = 0;
		const char *obj = g[i].obj ? g[i].obj : g[i].str ? g[i].str : "";

		for (; j < nspans; j++) {
			const char *o = g[j].obj ? g[j].obj : g[j].str ? g[j].str : "";

			if (g[j].level != g[i].level || g[j].func != g[i].func || strcmp(o, obj) ||
			    (g[i].level == DL_LAYER_MARKERS &&
			     strcmp(g[j].str2 ? g[j].str2 : "", g[i].str2 ? g[i].str2 : "")))
				break;
			enclosed += g[j].enclosed;
			bytes += g[j].enc_bytes;
		}
		printf("%-6s %-22s %7zu %9llu %12llu  %s", span_level_name(g[i].level),
		       span_func_name(g[i].func), j - i, (unsigned long long)enclosed,
		       (unsigned long long)bytes, obj);
		if (g[i].file && strcmp(g[i].file, obj))
			printf(" in %s", g[i].file);
		if (g[i].level == DL_LAYER_MARKERS && g[i].str2 && *g[i].str2)
			printf(" %s", g[i].str2);
		printf("\n");
		i = j;
	}
	free(g);
}

int main(int argc, char **argv)
{
	struct span_handles names;
	bool lines = false, json = false;
	const char *path = NULL;
	char err[512], *buf;
	size_t len, off = 0, bad;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-l"))
			lines = true;
		else if (!strcmp(argv[i], "--json"))
			json = true;
		else
			path = argv[i];
	}
	if (!path) {
		fprintf(stderr, "usage: span_check [-l | --json] RECORDS\n");
		return 2;
	}
	if (record_file_load(path, &buf, &len, err, sizeof(err))) {
		fprintf(stderr, "span_check: %s\n", err);
		return 2;
	}
	span_handles_init(&names);
	while (off + 4 <= len) {
		uint32_t n;

		memcpy(&n, buf + off, 4);
		if (off + 4 + n > len)
			break;
		add_record(&names, buf + off + 4, n);
		off += 4 + n;
	}
	bad = check_nesting();
	if (json) {
		for (size_t i = 0; i < nspans; i++)
			print_json(&spans[i]);
		printf(
		    "{\"summary\":true,\"spans\":%zu,\"syscalls\":%zu,\"partial_overlaps\":%zu}\n",
		    nspans, nsys, bad);
	} else {
		if (lines)
			for (size_t i = 0; i < nspans; i++)
				print_line(&spans[i]);
		print_summary();
		printf("%zu spans, %zu syscalls; %zu slices overlap another partially\n", nspans,
		       nsys, bad);
	}
	span_handles_free(&names);
	free(buf);
	return bad ? 1 : 0;
}
