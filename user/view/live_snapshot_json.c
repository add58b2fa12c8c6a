// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "view/live_snapshot_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json_value.h"

/* The counters of each struct, by name: one list for both directions. */
// clang-format off
#define COUNTS(X) \
	X(ops) X(rd_ops) X(wr_ops) X(meta_ops) X(sync_ops) X(failed) X(rd_bytes) X(wr_bytes) \
	X(io_ns)
#define LAYERS(X) \
	X(faults) X(write_faults) X(fault_bytes) X(cache_reads) X(cache_read_bytes) \
	X(cache_miss_bytes) X(block_reqs) X(block_rd_bytes) X(block_wr_bytes) X(block_done) \
	X(block_ns) X(uring_reqs) X(uring_rd_bytes) X(uring_wr_bytes) X(uring_ns) X(vfs_calls) \
	X(vfs_ns) X(marker_regions)
#define PHASES(X)   X(fetches) X(fetch_ns) X(steps) X(step_ns)
#define TRAINING(X) X(pid) X(tid) X(ops) X(io_ns)
// clang-format on

static const char *table_keys[LIVE_TABLES] = {"process_rows", "file_rows", "directory_rows"};

/* ---- writing ---- */

static struct json_object *u64(uint64_t v)
{
	return json_object_new_uint64(v);
}

static struct json_object *str(const char *s, size_t len)
{
	return jv_string(s ? s : "", s ? len : 0);
}

static struct json_object *lat_json(const uint32_t *lat)
{
	struct json_object *a = json_object_new_array();

	for (unsigned b = 0; b < LIVE_LAT_BUCKETS; b++) {
		struct json_object *pair;

		if (!lat[b])
			continue;
		pair = json_object_new_array();
		jv_push(pair, u64(b));
		jv_push(pair, u64(lat[b]));
		jv_push(a, pair);
	}
	return a;
}

static struct json_object *counts_json(const struct live_counts *c)
{
	struct json_object *o = json_object_new_object();

#define PUT(f) jv_add(o, #f, u64(c->f));
	COUNTS(PUT)
#undef PUT
	jv_add(o, "lat", lat_json(c->lat));
	return o;
}

static struct json_object *row_json(const struct live_row *r)
{
	struct json_object *o = json_object_new_object();

	jv_add(o, "serial", u64(r->serial));
	jv_add(o, "pid", u64(r->pid));
	jv_add(o, "ppid", u64(r->ppid));
	jv_add(o, "threads", u64(r->threads));
	jv_add(o, "alive", json_object_new_boolean(r->alive));
	jv_add(o, "name", str(r->name, r->name_len));
	jv_add(o, "c", counts_json(&r->c));
	return o;
}

char *live_snapshot_json(const struct live_snapshot *s, size_t *len)
{
	struct json_object *o = json_object_new_object(), *x;
	const char *text;
	char *out = NULL;

	jv_add(o, "now_ns", u64(s->now_ns));
	jv_add(o, "start_wall_ns", json_object_new_int64(s->start_wall_ns));
	jv_add(o, "target", str(s->target, s->target ? strlen(s->target) : 0));
	jv_add(o, "host", str(s->host, s->host ? strlen(s->host) : 0));
	jv_add(o, "layers", str(s->layers, s->layers ? strlen(s->layers) : 0));
	jv_add(o, "events", u64(s->events));
	jv_add(o, "lost", u64(s->lost));
	jv_add(o, "processes", u64(s->processes));
	jv_add(o, "threads", u64(s->threads));
	jv_add(o, "processes_seen", u64(s->processes_seen));
	jv_add(o, "total", counts_json(&s->total));
	x = json_object_new_array();
	for (int k = 0; k < LIVE_CLASSES; k++)
		jv_push(x, u64(s->class_ns[k]));
	jv_add(o, "class_ns", x);
	x = json_object_new_object();
#define PUT(f) jv_add(x, #f, u64(s->layers_n.f));
	LAYERS(PUT)
#undef PUT
	jv_add(x, "block_lat", lat_json(s->layers_n.block_lat));
	jv_add(x, "uring_lat", lat_json(s->layers_n.uring_lat));
	{
		struct json_object *calls = json_object_new_array(), *ns = json_object_new_array();

		for (int k = 0; k < 3; k++) {
			jv_push(calls, u64(s->layers_n.lib_calls[k]));
			jv_push(ns, u64(s->layers_n.lib_ns[k]));
		}
		jv_add(x, "lib_calls", calls);
		jv_add(x, "lib_ns", ns);
	}
	jv_add(o, "layer_counts", x);
	x = json_object_new_object();
#define PUT(f) jv_add(x, #f, u64(s->phases.f));
	PHASES(PUT)
#undef PUT
	jv_add(o, "phases", x);
	x = json_object_new_object();
#define PUT(f) jv_add(x, #f, u64(s->training.f));
	TRAINING(PUT)
#undef PUT
	jv_add(o, "training", x);
	for (int t = 0; t < LIVE_TABLES; t++) {
		x = json_object_new_array();
		for (uint32_t i = 0; i < s->nrows[t]; i++)
			jv_push(x, row_json(&s->rows[t][i]));
		jv_add(o, table_keys[t], x);
	}
	text = json_object_to_json_string_length(o, JV_TO_STRING, len);
	if (text)
		out = strndup(text, *len);
	json_object_put(o);
	return out;
}

/* ---- reading ---- */

static uint64_t get_u64(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_uint64(v) : 0;
}

static const char *get_str(struct json_object *o, const char *key, size_t *len)
{
	struct json_object *v;

	*len = 0;
	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return "";
	*len = json_object_get_string_len(v);
	return json_object_get_string(v);
}

static char *dup_key(struct json_object *o, const char *key)
{
	size_t len;
	const char *s = get_str(o, key, &len);

	return strndup(s, len);
}

static void lat_parse(struct json_object *a, uint32_t *lat)
{
	size_t n = a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;

	for (size_t i = 0; i < n; i++) {
		struct json_object *pair = json_object_array_get_idx(a, i);
		uint64_t b;

		if (!json_object_is_type(pair, json_type_array) ||
		    json_object_array_length(pair) != 2)
			continue;
		b = json_object_get_uint64(json_object_array_get_idx(pair, 0));
		if (b < LIVE_LAT_BUCKETS)
			lat[b] =
			    (uint32_t)json_object_get_uint64(json_object_array_get_idx(pair, 1));
	}
}

static void counts_parse(struct json_object *o, struct live_counts *c)
{
	struct json_object *lat = NULL;

	memset(c, 0, sizeof(*c));
	if (!o)
		return;
#define GET(f) c->f = get_u64(o, #f);
	COUNTS(GET)
#undef GET
	json_object_object_get_ex(o, "lat", &lat);
	lat_parse(lat, c->lat);
}

static struct json_object *member(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	json_object_object_get_ex(o, key, &v);
	return v;
}

int live_snapshot_parse(const char *text, size_t len, struct live_snapshot *out, char *err,
			size_t errlen)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o, *x;
	size_t names = 0, used = 0;

	memset(out, 0, sizeof(*out));
	if (!tok) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	o = json_tokener_parse_ex(tok, text, (int)len);
	json_tokener_free(tok);
	if (!o || !json_object_is_type(o, json_type_object)) {
		snprintf(err, errlen, "the daemon's reply is not a snapshot");
		json_object_put(o);
		return -1;
	}
	out->now_ns = get_u64(o, "now_ns");
	out->start_wall_ns = json_object_get_int64(member(o, "start_wall_ns"));
	out->target = dup_key(o, "target");
	out->host = dup_key(o, "host");
	out->layers = dup_key(o, "layers");
	out->events = get_u64(o, "events");
	out->lost = get_u64(o, "lost");
	out->processes = (uint32_t)get_u64(o, "processes");
	out->threads = (uint32_t)get_u64(o, "threads");
	out->processes_seen = (uint32_t)get_u64(o, "processes_seen");
	counts_parse(member(o, "total"), &out->total);
	x = member(o, "class_ns");
	for (int k = 0; k < LIVE_CLASSES && x && json_object_is_type(x, json_type_array); k++)
		out->class_ns[k] = json_object_get_uint64(json_object_array_get_idx(x, k));
	if ((x = member(o, "layer_counts"))) {
		struct json_object *calls = member(x, "lib_calls"), *ns = member(x, "lib_ns");

#define GET(f) out->layers_n.f = get_u64(x, #f);
		LAYERS(GET)
#undef GET
		lat_parse(member(x, "block_lat"), out->layers_n.block_lat);
		lat_parse(member(x, "uring_lat"), out->layers_n.uring_lat);
		for (int k = 0; k < 3; k++) {
			out->layers_n.lib_calls[k] =
			    calls ? json_object_get_uint64(json_object_array_get_idx(calls, k)) : 0;
			out->layers_n.lib_ns[k] =
			    ns ? json_object_get_uint64(json_object_array_get_idx(ns, k)) : 0;
		}
	}
	if ((x = member(o, "phases"))) {
#define GET(f) out->phases.f = get_u64(x, #f);
		PHASES(GET)
#undef GET
	}
	if ((x = member(o, "training"))) {
#define GET(f) out->training.f = get_u64(x, #f);
		TRAINING(GET)
#undef GET
	}
	/* the rows: names in one block, as live_stats__snapshot makes them */
	for (int t = 0; t < LIVE_TABLES; t++) {
		x = member(o, table_keys[t]);
		for (size_t i = 0; x && i < json_object_array_length(x); i++) {
			size_t n;

			get_str(json_object_array_get_idx(x, i), "name", &n);
			names += n + 1;
		}
	}
	out->text = malloc(names + 1);
	if (!out->text || !out->target || !out->host || !out->layers)
		goto oom;
	for (int t = 0; t < LIVE_TABLES; t++) {
		size_t n;

		x = member(o, table_keys[t]);
		n = x && json_object_is_type(x, json_type_array) ? json_object_array_length(x) : 0;
		if (!n) { /* at least the "other" row */
			out->rows[t] = calloc(1, sizeof(struct live_row));
			if (!out->rows[t])
				goto oom;
			out->rows[t][0].name = "";
			out->nrows[t] = 1;
			continue;
		}
		out->rows[t] = calloc(n, sizeof(struct live_row));
		if (!out->rows[t])
			goto oom;
		for (size_t i = 0; i < n; i++) {
			struct json_object *r = json_object_array_get_idx(x, i);
			struct live_row *row = &out->rows[t][i];
			const char *name;
			size_t nl;

			row->serial = get_u64(r, "serial");
			row->pid = (uint32_t)get_u64(r, "pid");
			row->ppid = (uint32_t)get_u64(r, "ppid");
			row->threads = (uint32_t)get_u64(r, "threads");
			row->alive = json_object_get_boolean(member(r, "alive"));
			name = get_str(r, "name", &nl);
			memcpy(out->text + used, name, nl);
			row->name = out->text + used;
			row->name_len = (uint32_t)nl;
			used += nl;
			out->text[used++] = '\0';
			counts_parse(member(r, "c"), &row->c);
		}
		out->nrows[t] = (uint32_t)n;
	}
	json_object_put(o);
	return 0;
oom:
	json_object_put(o);
	live_snapshot_free(out);
	snprintf(err, errlen, "out of memory");
	return -1;
}
