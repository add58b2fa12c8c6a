/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the files of `dltrace report --json` share: the values, the frame
 * and the helpers of several sections (report_json_build.c), and each
 * file's sections, which report_json() calls in the document's order.
 *
 *   report_json.c           the keys, the document's order
 *   report_json_build.c     the frame and helpers of several sections (a leaf)
 *   report_json_summary.c   traces, job, time, syscalls, access_sizes, pattern
 *   report_json_lists.c     files, directories, filesystems, balance, timeline,
 *                           bursts
 *   report_json_layers.c    environment, other, layers, levels, python
 *   report_json_phases.c    phases
 *   report_gpu.c            gpu_idle (report_output.h)
 *   report_json_findings.c  errors, findings
 */
#ifndef REPORT_JSON_INTERNAL_H
#define REPORT_JSON_INTERNAL_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/json_value.h"
#include "report/render/report_output.h"

#define JS_DEPTH 4

struct jstream {
	FILE *f;
	int depth;
	bool first[JS_DEPTH];
};

/* ---- values: json-c objects (NULL is null) ---- */

static inline struct json_object *j_u64(uint64_t v)
{
	return json_object_new_uint64(v);
}

static inline struct json_object *j_i64(int64_t v)
{
	return json_object_new_int64(v);
}

/* A number: integral values without a fraction, the others with 17 digits. */
static inline struct json_object *j_num(double v)
{
	char text[32];

	if (!isfinite(v))
		v = 0;
	if (v == floor(v) && fabs(v) < 9e15)
		snprintf(text, sizeof(text), "%.0f", v);
	else
		snprintf(text, sizeof(text), "%.17g", v);
	return json_object_new_double_s(v, text);
}

/* a ratio in [0, 1], or null when it is negative (not known) */
static inline struct json_object *j_ratio(double v)
{
	return v < 0 ? NULL : j_num(v);
}

static inline struct json_object *j_bool(bool v)
{
	return json_object_new_boolean(v);
}

static inline struct json_object *j_str(const char *s)
{
	return jv_string(s, strlen(s));
}

/* A rank, or null when unknown. */
static inline struct json_object *j_rank(int64_t r)
{
	return r >= 0 ? j_u64((uint64_t)r) : NULL;
}

/* an interned string, or null */
static inline struct json_object *j_sid(const struct report_stats *st, uint32_t id)
{
	return id == NONE32 ? NULL : jv_string(rs_str(st, id), rs_strlen(st, id));
}

/* ---- the frame: written as it goes (report_json_build.c) ---- */

/* Write v as the next member and free it. */
void js_put(struct jstream *s, const char *key, struct json_object *v);
/* Open an object ('{') or array ('[') whose members follow one by one. */
void js_open(struct jstream *s, const char *key, char brace);
void js_close(struct jstream *s, char brace);

/* ---- helpers of several sections (report_json_build.c) ---- */

extern const char *const j_scope_names[SCOPE_COUNT]; /* "application", "environment", "other" */
extern const char *const j_origin_names[ORG_COUNT];  /* "syscall", "io_uring", "aio", "mmap" */
/* The layers a file's or a process's I/O came from: ["syscall", "io_uring", ...] */
struct json_object *j_origin_list(uint8_t origins);
struct json_object *j_u64_array(const uint64_t *v, uint32_t n);
/* {p50, p99, max} */
struct json_object *j_latency(const struct quantile_sketch *q);

/*
 * ---- the sections ----
 * The rj_* that take the stream write their section themselves (it holds a
 * long list); the others return it as a new object.
 */

/* report_json_summary.c */
void rj_traces(struct jstream *s, const struct report_stats *st);
struct json_object *rj_job(const struct report_stats *st);
void rj_time(struct jstream *s, const struct report_view *v);
struct json_object *rj_syscalls(const struct report_stats *st);
struct json_object *rj_access_sizes(const struct report_stats *st);
struct json_object *rj_pattern(const struct report_stats *st);

/* report_json_lists.c */
void rj_files(struct jstream *s, const struct report_view *v);
void rj_directories(struct jstream *s, const struct report_view *v);
void rj_filesystems(struct jstream *s, const struct report_view *v);
void rj_balance(struct jstream *s, const struct report_view *v);
struct json_object *rj_timeline(const struct report_stats *st);
struct json_object *rj_bursts(const struct report_stats *st);

/* report_json_layers.c */
struct json_object *rj_environment(const struct report_stats *st);
struct json_object *rj_other(const struct report_stats *st);
struct json_object *rj_layers(const struct report_stats *st);
struct json_object *rj_levels(const struct report_view *v);
struct json_object *rj_python(const struct report_view *v);

/* report_json_phases.c */
void rj_phases(struct jstream *s, const struct report_view *v);

/* report_json_findings.c */
struct json_object *rj_errors(const struct report_stats *st);
struct json_object *rj_findings(const struct findings *fi);

#endif
