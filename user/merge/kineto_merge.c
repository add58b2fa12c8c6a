// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "merge/kineto_merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "format/chrome/chrome_format.h"
#include "event/kineto_names.h"
#include "format/kineto/kineto_reader.h"
#include "lib/json_string.h"
#include "lib/string_index.h"
#include "lib/u64_index.h"

#define NONE32		   UINT32_MAX
#define FLOW_KINDS	   256
#define FLOW_ID_BITS	   44 /* a flow's own id: correlation ids are far below */
#define CATEGORY_KEEP	   64 /* categories of unplaced events counted by name */
#define NAME_MAX_LEN	   512
#define SUMMARY_CATEGORIES 10 /* "kineto_unplaced.<category>" keys of the summary */

/* A pid of the profiler trace. */
struct kpid {
	uint64_t id;
	uint64_t events; /* its events other than metadata */
	bool gpu;	 /* a device: labelled "GPU N", or with work on a GPU */
	uint32_t name;	 /* its process_name (string id, NONE32) */
};

struct unplaced {
	char cat[64]; /* "(none)": no category; "(malformed)": not an event */
	uint64_t count;
};

struct kineto_input {
	const char *path;
	uint32_t index;
	struct kineto_header h;
	struct kineto_status st;
	struct kpid *pids;
	uint32_t npids, cap_pids;
	struct u64_index pid_ix;    /* Kineto pid -> pids[] */
	struct u64_index thread_ix; /* Kineto pid << 32 | tid -> tnames[] */
	uint32_t *tnames;	    /* a thread's last thread_name (string id) */
	uint32_t ntnames, cap_tnames;
	struct string_index names;
	uint32_t main; /* the CPU process: most events (NONE32: none) */
	int64_t first_wall, last_wall;
	char why[400];
	bool why_times; /* why says its pid was found (a stronger reason than none) */

	/* placing */
	bool placed, joined, failed;
	char trace_file[256]; /* the dltrace trace it joined */
	struct event_merge *m;
	int64_t origin_wall;
	uint32_t proc; /* output pid of the tracks it adds (GPU streams, the profiler's) */
	char label[160];
	struct u64_index track_ix; /* device << 32 | stream -> output tid; string pids: ~0 */
	struct u64_index named_ix; /* output tids already named */
	char *kinds[FLOW_KINDS];   /* categories of flows, by kind */
	uint32_t nkinds;
	char name_buf[NAME_MAX_LEN + 256];
	struct ev_arg args[EV_ARGS_MAX];
	uint64_t placed_events, names_used, args_dropped;
	struct unplaced unplaced[CATEGORY_KEEP];
	uint32_t nunplaced;
	uint64_t unplaced_total;
};

static bool is(struct ev_str s, const char *lit)
{
	size_t n = strlen(lit);

	return s.len == n && !memcmp(s.s, lit, n);
}

static bool prefix(struct ev_str s, const char *lit)
{
	size_t n = strlen(lit);

	return s.len >= n && !memcmp(s.s, lit, n);
}

struct kineto_input *kineto_input__new(const char *path, uint32_t index)
{
	struct kineto_input *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->path = path;
	k->index = index;
	k->main = NONE32;
	k->first_wall = INT64_MAX;
	k->last_wall = INT64_MIN;
	u64_index_init(&k->pid_ix);
	u64_index_init(&k->thread_ix);
	u64_index_init(&k->track_ix);
	u64_index_init(&k->named_ix);
	string_index_init(&k->names);
	return k;
}

void kineto_input__free(struct kineto_input *k)
{
	if (!k)
		return;
	free(k->pids);
	free(k->tnames);
	u64_index_free(&k->pid_ix);
	u64_index_free(&k->thread_ix);
	u64_index_free(&k->track_ix);
	u64_index_free(&k->named_ix);
	string_index_free(&k->names);
	for (uint32_t i = 0; i < k->nkinds; i++)
		free(k->kinds[i]);
	free(k);
}

int64_t kineto_input__first_wall(const struct kineto_input *k)
{
	return k->first_wall;
}

int64_t kineto_input__last_wall(const struct kineto_input *k)
{
	return k->last_wall;
}

bool kineto_input__placed(const struct kineto_input *k)
{
	return k->placed;
}

/* ---- the first reading ---- */

static struct kpid *kpid_get(struct kineto_input *k, uint64_t id)
{
	uint32_t i = u64_index_get(&k->pid_ix, id);
	struct kpid *p;

	if (i != U64_NONE)
		return &k->pids[i];
	if (k->npids == k->cap_pids) {
		uint32_t cap = k->cap_pids ? 2 * k->cap_pids : 16;
		struct kpid *a = realloc(k->pids, cap * sizeof(*a));

		if (!a)
			return NULL;
		k->pids = a;
		k->cap_pids = cap;
	}
	if (u64_index_put(&k->pid_ix, id, k->npids))
		return NULL;
	p = &k->pids[k->npids++];
	*p = (struct kpid){id, 0, false, NONE32};
	return p;
}

static const struct ev_arg *arg_of(const struct kineto_event *ev, const char *key)
{
	for (uint32_t i = 0; i < ev->nargs; i++)
		if (is(ev->args[i].key, key))
			return &ev->args[i];
	return NULL;
}

static uint32_t name_id(struct kineto_input *k, const struct kineto_event *ev, const char *key)
{
	const struct ev_arg *a = arg_of(ev, key);

	if (!a || a->type != EV_ARG_STR || !a->s.len)
		return NONE32;
	return string_index_put(&k->names, a->s.s,
				a->s.len > NAME_MAX_LEN ? NAME_MAX_LEN : a->s.len);
}

static void scan_meta(struct kineto_input *k, const struct kineto_event *ev)
{
	struct kpid *p;
	const struct ev_arg *a;
	uint32_t id;

	if (ev->pid.is_str || !ev->pid.present)
		return;
	p = kpid_get(k, ev->pid.v);
	if (!p)
		return;
	if (is(ev->name, "process_labels")) {
		a = arg_of(ev, "labels");
		if (a && a->type == EV_ARG_STR && prefix(a->s, "GPU"))
			p->gpu = true;
	} else if (is(ev->name, "process_name")) {
		id = name_id(k, ev, "name");
		if (id != NONE32)
			p->name = id;
	} else if (is(ev->name, "thread_name") && ev->tid.present && !ev->tid.is_str &&
		   ev->tid.v <= UINT32_MAX && ev->pid.v <= UINT32_MAX) {
		uint64_t key = ev->pid.v << 32 | ev->tid.v;
		uint32_t slot = u64_index_get(&k->thread_ix, key);

		/* the last name a thread got (a thread's name changes: "python3", "pt_autograd_0")
		 */
		id = name_id(k, ev, "name");
		if (id == NONE32)
			return;
		if (slot == U64_NONE) {
			if (k->ntnames == k->cap_tnames) {
				uint32_t cap = k->cap_tnames ? 2 * k->cap_tnames : 16;
				uint32_t *a = realloc(k->tnames, cap * sizeof(*a));

				if (!a)
					return;
				k->tnames = a;
				k->cap_tnames = cap;
			}
			if (u64_index_put(&k->thread_ix, key, k->ntnames))
				return;
			slot = k->ntnames++;
		}
		k->tnames[slot] = id;
	}
}

/* An event's wall-clock start and end; false when it has no time. */
static bool wall_of(const struct kineto_input *k, const struct kineto_event *ev, int64_t *start,
		    int64_t *end)
{
	if (!ev->has_ts)
		return false;
	*start = k->h.base_ns + ev->ts_ns;
	*end = *start + (ev->has_dur && ev->dur_ns > 0 ? ev->dur_ns : 0);
	return true;
}

static void scan_event(void *ctx, const struct kineto_event *ev)
{
	struct kineto_input *k = ctx;
	int64_t start, end;
	struct kpid *p;

	if (ev->malformed)
		return;
	if (is(ev->ph, "M")) {
		scan_meta(k, ev);
		return;
	}
	if (ev->pid.present && !ev->pid.is_str && (p = kpid_get(k, ev->pid.v))) {
		p->events++;
		if (kineto_gpu_category(ev->cat))
			p->gpu = true;
	}
	/* relative times: the base comes at the end of the file */
	if (wall_of(k, ev, &start, &end)) {
		if (start < k->first_wall)
			k->first_wall = start;
		if (end > k->last_wall)
			k->last_wall = end;
	}
}

int kineto_input__scan(struct kineto_input *k, char *err, size_t errlen)
{
	/* the base comes last: read once with base 0, then move the range */
	if (kineto_file_read(k->path, scan_event, k, &k->h, &k->st)) {
		snprintf(err, errlen, "%s", k->st.error);
		return -1;
	}
	if (k->first_wall != INT64_MAX) {
		k->first_wall += k->h.base_ns;
		k->last_wall += k->h.base_ns;
	}
	for (uint32_t i = 0; i < k->npids; i++) {
		const struct kpid *p = &k->pids[i];

		if (!p->gpu && p->events && p->id <= UINT32_MAX &&
		    (k->main == NONE32 || p->events > k->pids[k->main].events))
			k->main = i;
	}
	if (k->h.has_rank)
		snprintf(k->label, sizeof(k->label), "PyTorch profiler rank %lld",
			 (long long)k->h.rank);
	else
		snprintf(k->label, sizeof(k->label), "PyTorch profiler %s",
			 strrchr(k->path, '/') ? strrchr(k->path, '/') + 1 : k->path);
	return 0;
}

/* ---- joining ---- */

static void iso(char *out, size_t size, int64_t ns)
{
	time_t sec = ns / 1000000000;
	struct tm tm;

	gmtime_r(&sec, &tm);
	strftime(out, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

bool kineto_input__joins(struct kineto_input *k, const struct event_merge *m,
			 const char *trace_file, int64_t start_wall_ns, int64_t end_wall_ns)
{
	char a[32], b[32], c[32], d[32];
	struct merge_id e;
	uint64_t pid;

	if (k->main == NONE32) {
		snprintf(k->why, sizeof(k->why), "it has no CPU process to join a traced one");
		return false;
	}
	pid = k->pids[k->main].id;
	if (!merge_ids_find(&m->ids, (uint32_t)pid, &e) || !(e.flags & MERGE_ID_PROCESS)) {
		if (!k->why_times)
			snprintf(k->why, sizeof(k->why),
				 "no process of the dltrace traces has its pid %llu",
				 (unsigned long long)pid);
		return false;
	}
	if (k->last_wall < start_wall_ns || k->first_wall > end_wall_ns) {
		iso(a, sizeof(a), k->first_wall);
		iso(b, sizeof(b), k->last_wall);
		iso(c, sizeof(c), start_wall_ns);
		iso(d, sizeof(d), end_wall_ns);
		snprintf(k->why, sizeof(k->why),
			 "its pid %llu is a process of %s, but its events (%s to %s) are outside "
			 "that trace (%s to %s): another boot or host",
			 (unsigned long long)pid, trace_file, a, b, c, d);
		k->why_times = true;
		return false;
	}
	snprintf(k->trace_file, sizeof(k->trace_file), "%s", trace_file);
	return true;
}

const char *kineto_input__why_alone(const struct kineto_input *k)
{
	return k->why[0] ? k->why : "there is no dltrace trace to join it to";
}

/* ---- placing ---- */

static void unplaced(struct kineto_input *k, const struct kineto_event *ev)
{
	const char *cat = "(none)";
	char buf[64];
	uint32_t i;

	if (ev->malformed) {
		cat = "(malformed)";
	} else if (ev->cat.len) {
		snprintf(buf, sizeof(buf), "%.*s", (int)ev->cat.len, ev->cat.s);
		cat = buf;
	}
	k->unplaced_total++;
	for (i = 0; i < k->nunplaced && strcmp(k->unplaced[i].cat, cat); i++)
		;
	if (i == k->nunplaced) {
		if (i == CATEGORY_KEEP) {
			i = CATEGORY_KEEP - 1; /* the last slot counts every other category */
			snprintf(k->unplaced[i].cat, sizeof(k->unplaced[i].cat), "(other)");
		} else {
			k->nunplaced++;
			snprintf(k->unplaced[i].cat, sizeof(k->unplaced[i].cat), "%s", cat);
		}
	}
	k->unplaced[i].count++;
}

static void deliver(struct kineto_input *k, struct event *x)
{
	k->m->events++;
	event_deliver(k->m->out, x);
}

static void name_thread(struct kineto_input *k, uint32_t pid, uint32_t tid, const char *name,
			size_t len)
{
	struct event x = {.type = EV_THREAD_NAME, .pid = pid, .tid = tid};

	if (u64_index_get(&k->named_ix, tid) != U64_NONE)
		return;
	u64_index_put(&k->named_ix, tid, 0);
	x.name.name = (struct ev_str){name, (uint32_t)len};
	deliver(k, &x);
}

/* "<label>: <name> (pid N)", "<label>: pid N": the name of a process of its own group */
static void name_process(struct kineto_input *k, uint32_t out, const char *name, size_t len,
			 uint64_t pid, bool with_pid)
{
	struct event x = {.type = EV_PROCESS_NAME, .pid = out, .tid = out};
	int n;

	if (!name) {
		snprintf(k->name_buf, sizeof(k->name_buf), "%s: pid %llu", k->label,
			 (unsigned long long)pid);
		with_pid = false;
		n = 0;
	} else {
		n = snprintf(k->name_buf, sizeof(k->name_buf), "%s: %.*s", k->label,
			     (int)(len > NAME_MAX_LEN ? NAME_MAX_LEN : len), name);
	}
	if (with_pid && n > 0 && (size_t)n < sizeof(k->name_buf))
		snprintf(k->name_buf + n, sizeof(k->name_buf) - n, " (pid %llu)",
			 (unsigned long long)pid);
	x.name.name = (struct ev_str){k->name_buf, (uint32_t)strlen(k->name_buf)};
	deliver(k, &x);
}

/* The output pid of a CPU process of the trace (the trace's ids: joined or its own group). */
static uint32_t cpu_pid(struct kineto_input *k, uint64_t kpid)
{
	struct merge_id e;
	bool seen = merge_ids_find(&k->m->ids, (uint32_t)kpid, &e);
	uint32_t out = merge_ids_map(&k->m->ids, (uint32_t)kpid,
				     MERGE_ID_PROCESS | (k->joined ? 0 : MERGE_ID_NAMED));
	uint32_t i = u64_index_get(&k->pid_ix, kpid);
	const char *name = NULL;

	/* joined: the dltrace trace names it; its own group: named once, when first used */
	if (!k->joined && !(seen && (e.flags & MERGE_ID_NAMED))) {
		if (i != U64_NONE && k->pids[i].name != NONE32)
			name = string_at(&k->names, k->pids[i].name);
		name_process(k, out, name, name ? strlen(name) : 0, kpid, true);
	}
	return out;
}

static uint32_t cpu_tid(struct kineto_input *k, uint64_t kpid, uint32_t pid, uint64_t ktid)
{
	struct merge_id e;
	bool seen = merge_ids_find(&k->m->ids, (uint32_t)ktid, &e);
	uint32_t out = merge_ids_map(&k->m->ids, (uint32_t)ktid, 0);
	uint32_t slot, name;

	/* a thread the dltrace trace never showed (or of its own group): the profiler's name */
	if (!seen && kpid <= UINT32_MAX &&
	    (slot = u64_index_get(&k->thread_ix, kpid << 32 | ktid)) != U64_NONE) {
		name = k->tnames[slot];
		name_thread(k, pid, out, string_at(&k->names, name), string_len(&k->names, name));
	}
	return out;
}

/* The thread of a GPU stream (device, stream), or of the profiler's own events (device ~0). */
static uint32_t added_track(struct kineto_input *k, uint64_t device, uint64_t stream)
{
	uint64_t key = device == UINT64_MAX ? UINT64_MAX : device << 32 | (stream & 0xffffffff);
	uint32_t tid = u64_index_get(&k->track_ix, key);
	char name[96];

	if (tid != U64_NONE)
		return tid;
	tid = merge_ids_take(&k->m->ids, EV_GPU_TRACK_BASE);
	u64_index_put(&k->track_ix, key, tid);
	if (device == UINT64_MAX)
		snprintf(name, sizeof(name), "PyTorch profiler");
	else
		snprintf(name, sizeof(name), "GPU %llu stream %llu", (unsigned long long)device,
			 (unsigned long long)stream);
	name_thread(k, k->proc, tid, name, strlen(name));
	return tid;
}

/* The flow id of the merged trace: unique across inputs and kinds, apart from fork arrows. */
static bool flow_id(struct kineto_input *k, const struct kineto_event *ev, uint64_t *out)
{
	uint32_t kind;

	if (!ev->has_id || ev->id >> FLOW_ID_BITS)
		return false;
	for (kind = 0; kind < k->nkinds; kind++)
		if (strlen(k->kinds[kind]) == ev->cat.len &&
		    !memcmp(k->kinds[kind], ev->cat.s, ev->cat.len))
			break;
	if (kind == k->nkinds) {
		if (kind == FLOW_KINDS || !(k->kinds[kind] = strndup(ev->cat.s, ev->cat.len)))
			return false;
		k->nkinds++;
	}
	*out = 1ull << 63 | (uint64_t)(k->index & 0x7ff) << 52 | (uint64_t)kind << FLOW_ID_BITS |
	       ev->id;
	return true;
}

static void place_meta(struct kineto_input *k, const struct kineto_event *ev)
{
	(void)ev;
	/* process and thread names, labels, sort indexes: read in the first pass */
	k->names_used++;
}

/* A pid or tid that is not a track's, as an arg: its text, or its number. */
static bool id_arg(struct ev_arg *a, const char *key, const struct kineto_id *id)
{
	if (!id->present)
		return false;
	*a = (struct ev_arg){.key = {key, (uint32_t)strlen(key)}};
	if (id->is_str) {
		a->type = EV_ARG_STR;
		a->s = id->s;
	} else {
		a->type = EV_ARG_U64;
		a->u = id->v;
	}
	return true;
}

static char phase_of(const struct kineto_event *ev)
{
	if (ev->ph.len != 1)
		return 0;
	switch (ev->ph.s[0]) {
	case 'X':
	case 'i':
	case 'B':
	case 'E':
	case 'C':
	case 's':
	case 'f':
		return ev->ph.s[0];
	case 'I': /* the instant's older letter */
		return 'i';
	default:
		return 0;
	}
}

static void place_event(void *ctx, const struct kineto_event *ev)
{
	struct kineto_input *k = ctx;
	struct event x = {.type = EV_SPAN};
	struct ev_span *sp = &x.span;
	int64_t start, end;
	uint32_t n = 0;
	char ph;

	if (k->failed)
		return;
	if (ev->malformed) {
		unplaced(k, ev);
		return;
	}
	if (is(ev->ph, "M")) {
		place_meta(k, ev);
		return;
	}
	ph = phase_of(ev);
	if (!ph || !wall_of(k, ev, &start, &end) || start < k->origin_wall ||
	    (ph == 'X' && ev->has_dur && ev->dur_ns < 0) ||
	    ((ph == 's' || ph == 'f') && !flow_id(k, ev, &sp->flow))) {
		unplaced(k, ev);
		return;
	}
	x.ts = (uint64_t)(start - k->origin_wall);
	sp->phase = ph;
	sp->name = ev->name;
	sp->cat = ev->cat;
	sp->dur = ph == 'X' ? (uint64_t)(end - start) : 0;
	if (ev->pid.present && !ev->pid.is_str && ev->pid.v <= UINT32_MAX) {
		uint32_t i = u64_index_get(&k->pid_ix, ev->pid.v);
		uint64_t tid = ev->tid.present && !ev->tid.is_str ? ev->tid.v : 0;

		if (i != U64_NONE && k->pids[i].gpu) {
			x.pid = k->proc;
			x.tid = added_track(k, ev->pid.v, tid);
		} else {
			x.pid = cpu_pid(k, ev->pid.v);
			x.tid = cpu_tid(k, ev->pid.v, x.pid,
					ev->tid.present && !ev->tid.is_str && tid <= UINT32_MAX
					    ? tid
					    : ev->pid.v);
		}
	} else {
		/* the profiler's own events ("Spans", "Traces"), or ids beyond 32 bits: in args */
		x.pid = k->proc;
		x.tid = added_track(k, UINT64_MAX, 0);
		n = id_arg(&k->args[n], "kineto_pid", &ev->pid) ? n + 1 : n;
		n = id_arg(&k->args[n], "kineto_tid", &ev->tid) ? n + 1 : n;
	}
	for (uint32_t i = 0; i < ev->nargs; i++) {
		if (n == EV_ARGS_MAX) {
			k->args_dropped += ev->nargs - i;
			break;
		}
		k->args[n++] = ev->args[i];
	}
	k->args_dropped += ev->args_dropped;
	sp->args = k->args;
	sp->nargs = n;
	k->placed_events++;
	deliver(k, &x);
}

int kineto_input__place(struct kineto_input *k, struct event_merge *m, int64_t origin_wall_ns,
			bool joined, char *err, size_t errlen)
{
	struct kineto_header h;
	struct kineto_status st;

	k->m = m;
	k->origin_wall = origin_wall_ns;
	k->joined = joined;
	k->placed = true;
	if (!joined)
		event_merge_begin(m, k->index, 0, k->label, strlen(k->label));
	if (k->main != NONE32) {
		k->proc = cpu_pid(k, k->pids[k->main].id);
	} else {
		/* no CPU process: the tracks it adds belong to a process of their own */
		k->proc = merge_ids_take(&m->ids, MERGE_IDS_FRESH);
		name_process(k, k->proc, "GPU", 3, 0, false);
	}
	if (kineto_file_read(k->path, place_event, k, &h, &st)) {
		snprintf(err, errlen, "%s", st.error);
		return -1;
	}
	if (!joined)
		event_merge_end(m);
	return 0;
}

void kineto_input__unplaced_warning(const struct kineto_input *k, char *out, size_t size)
{
	size_t o;

	out[0] = '\0';
	if (!k->unplaced_total && !k->args_dropped)
		return;
	o = snprintf(out, size, "%llu profiler events could not be placed",
		     (unsigned long long)k->unplaced_total);
	for (uint32_t i = 0; i < k->nunplaced && o < size; i++)
		o += snprintf(out + o, size - o, "%s %s %llu",
			      i ? "," : " (by category:", k->unplaced[i].cat,
			      (unsigned long long)k->unplaced[i].count);
	if (k->nunplaced && o < size)
		o += snprintf(out + o, size - o, ")");
	if (k->args_dropped && o < size)
		o += snprintf(out + o, size - o, "; %llu args beyond %d per event were left out",
			      (unsigned long long)k->args_dropped, EV_ARGS_MAX);
	if (o < size)
		snprintf(out + o, size - o, " (counted in the merged summary)");
}

/* ---- its record and the summary ---- */

size_t kineto_input__line_max(const struct kineto_input *k)
{
	return 1024 + JSON_ESCAPED_MAX(strlen(k->path)) + JSON_ESCAPED_MAX(sizeof(k->why)) +
	       JSON_ESCAPED_MAX(sizeof(k->trace_file));
}

size_t kineto_input__line(const struct kineto_input *k, char *out)
{
	char *p = out;

	PUT(p, "{\"name\":\"kineto_input\",\"ph\":\"M\",\"pid\":0,\"tid\":0,\"args\":{\"file\":");
	p = fmt_str(p, k->path, strlen(k->path));
	p = put_key_i64(p, "base_time_ns", k->h.base_ns);
	if (k->h.has_rank)
		p = put_key_i64(p, "rank", k->h.rank);
	p = put_key_str(p, "placement", k->joined ? "joined" : "own group");
	if (k->joined) {
		PUT(p, ",\"trace\":");
		p = fmt_str(p, k->trace_file, strlen(k->trace_file));
	} else {
		p = put_key_str(p, "why", kineto_input__why_alone(k));
	}
	if (k->main != NONE32)
		p = put_key_u64(p, "pid", k->pids[k->main].id);
	if (k->first_wall != INT64_MAX) {
		p = put_key_i64(p, "first_wall_ns", k->first_wall);
		p = put_key_i64(p, "last_wall_ns", k->last_wall);
	}
	p = put_key_u64(p, "events", k->st.elements);
	p = put_key_u64(p, "placed", k->placed_events);
	p = put_key_u64(p, "names", k->names_used);
	p = put_key_u64(p, "unplaced", k->unplaced_total);
	PUT(p, "}}");
	return p - out;
}

uint32_t kineto_summary_args(struct kineto_input *const *k, uint32_t n, struct ev_arg *args,
			     uint32_t max, char *scratch, size_t size)
{
	struct unplaced cats[CATEGORY_KEEP];
	uint64_t events = 0, placed = 0, names = 0, total = 0, dropped = 0;
	uint32_t ncats = 0, a = 0;

	for (uint32_t i = 0; i < n; i++) {
		events += k[i]->st.elements;
		placed += k[i]->placed_events;
		names += k[i]->names_used;
		total += k[i]->unplaced_total;
		dropped += k[i]->args_dropped;
		for (uint32_t j = 0; j < k[i]->nunplaced; j++) {
			const struct unplaced *u = &k[i]->unplaced[j];
			uint32_t c;

			for (c = 0; c < ncats && strcmp(cats[c].cat, u->cat); c++)
				;
			if (c == ncats) {
				if (c == CATEGORY_KEEP) {
					c = CATEGORY_KEEP - 1;
					snprintf(cats[c].cat, sizeof(cats[c].cat), "(other)");
				} else {
					cats[ncats++] = (struct unplaced){.count = 0};
					memcpy(cats[c].cat, u->cat, sizeof(cats[c].cat));
				}
			}
			cats[c].count += u->count;
		}
	}
#define SUM_ARG(k, v)                                                                              \
	do {                                                                                       \
		if (a < max)                                                                       \
			args[a++] =                                                                \
			    (struct ev_arg){.key = EV_STR(k), .type = EV_ARG_U64, .u = (v)};       \
	} while (0)
	SUM_ARG("kineto_events", events);
	SUM_ARG("kineto_placed", placed);
	SUM_ARG("kineto_names", names);
	SUM_ARG("kineto_unplaced", total);
	if (dropped)
		SUM_ARG("kineto_args_dropped", dropped);
#undef SUM_ARG
	/* the categories that do not fit are added up as "(other)" */
	if (ncats > SUMMARY_CATEGORIES) {
		for (uint32_t c = SUMMARY_CATEGORIES; c < ncats; c++)
			cats[SUMMARY_CATEGORIES - 1].count += cats[c].count;
		snprintf(cats[SUMMARY_CATEGORIES - 1].cat, sizeof(cats[0].cat), "(other)");
		ncats = SUMMARY_CATEGORIES;
	}
	for (uint32_t c = 0; c < ncats && a < max; c++) {
		int len = snprintf(scratch, size, "kineto_unplaced.%s", cats[c].cat);

		if (len < 0 || (size_t)len >= size)
			break;
		args[a++] = (struct ev_arg){
		    .key = {scratch, (uint32_t)len}, .type = EV_ARG_U64, .u = cats[c].count};
		scratch += len;
		size -= len;
	}
	return a;
}
