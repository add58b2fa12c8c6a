// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The JSON building helpers of `--json` that the section files share: the frame
 * written as it goes (struct jstream), and values several sections build.
 */
#include "report/render/report_json_internal.h"

/* ---- the frame: written as it goes ---- */

/* The comma and "key": of the next member (key NULL: an array element). */
static void js_key(struct jstream *s, const char *key)
{
	if (!s->first[s->depth])
		fputc(',', s->f);
	s->first[s->depth] = false;
	if (key)
		fprintf(s->f, "\"%s\":", key); /* this file's own keys: plain ASCII */
}

/* Write v as the next member and free it. */
void js_put(struct jstream *s, const char *key, struct json_object *v)
{
	size_t len = 0;
	const char *text = json_object_to_json_string_length(v, JV_TO_STRING, &len);

	js_key(s, key);
	if (text)
		fwrite(text, 1, len, s->f);
	else
		fputs("null", s->f); /* out of memory */
	json_object_put(v);
}

/* Open an object ('{') or array ('[') whose members follow one by one. */
void js_open(struct jstream *s, const char *key, char brace)
{
	js_key(s, key);
	fputc(brace, s->f);
	if (s->depth < JS_DEPTH - 1)
		s->depth++;
	s->first[s->depth] = true;
}

void js_close(struct jstream *s, char brace)
{
	fputc(brace, s->f);
	if (s->depth)
		s->depth--;
}

/* ---- helpers of several sections ---- */

const char *const j_scope_names[SCOPE_COUNT] = {"application", "environment", "other"};

const char *const j_origin_names[ORG_COUNT] = {"syscall", "io_uring", "aio", "mmap"};

/* The layers a file's or a process's I/O came from: ["syscall", "io_uring", ...] */
struct json_object *j_origin_list(uint8_t origins)
{
	struct json_object *a = json_object_new_array();

	for (int i = 0; i < ORG_COUNT; i++)
		if (origins & (1u << i))
			json_object_array_add(a, json_object_new_string(j_origin_names[i]));
	return a;
}

struct json_object *j_u64_array(const uint64_t *v, uint32_t n)
{
	struct json_object *a = json_object_new_array_ext(n ? (int)n : 1);

	for (uint32_t i = 0; i < n; i++)
		jv_push(a, j_u64(v[i]));
	return a;
}

struct json_object *j_latency(const struct quantile_sketch *q)
{
	struct json_object *o = json_object_new_object();

	jv_add(o, "p50", j_u64(sketch_quantile(q, 0.5)));
	jv_add(o, "p99", j_u64(sketch_quantile(q, 0.99)));
	jv_add(o, "max", j_u64(q->max));
	return o;
}
