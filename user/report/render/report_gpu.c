// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The report's section on the GPU's idle time and the data waits it
 * overlaps (report/report_gpu_idle.h), in the three renderings.  A figure
 * of a layer that was off is "(layer off)" in text and null in JSON,
 * never 0.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "lib/html_text.h"
#include "lib/human_format.h"
#include "lib/json_string.h"
#include "lib/json_value.h"
#include "report/render/report_output.h"
#include "report/report_gpu_idle.h"

#define TOP_STEPS 5 /* steps named for the most (un)explained idle time */
#define TERM_ROWS 10

static uint64_t unexplained(const struct rs_gpu_row *r)
{
	return r->idle_ns > r->explained_ns ? r->idle_ns - r->explained_ns : 0;
}

/* Rows by a key, largest first (ties: in time order); only those with key > 0. */
static uint32_t top_rows(const struct rs_gpu *g, bool by_explained, uint32_t *out, uint32_t max)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < g->nrows; i++) {
		uint64_t v = by_explained ? g->rows[i].explained_ns : unexplained(&g->rows[i]);
		uint32_t k;

		if (!v)
			continue;
		for (k = n; k > 0; k--) {
			const struct rs_gpu_row *x = &g->rows[out[k - 1]];

			if ((by_explained ? x->explained_ns : unexplained(x)) >= v)
				break;
		}
		if (k == max)
			continue;
		if (n < max)
			n++;
		memmove(out + k + 1, out + k, (n - 1 - k) * sizeof(*out));
		out[k] = i;
	}
	return n;
}

static const char *layer_ns(char *buf, bool on, uint64_t ns)
{
	return on ? human_ns(buf, ns) : "(layer off)";
}

static const char *batch_from(const struct rs_gpu_dev *d)
{
	return d->batch_from == GW_FETCH  ? "fetch regions"
	       : d->batch_from == GW_PIPE ? "reads of pipes and sockets"
					  : "no training thread in the traces";
}

static double share(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0;
}

/* ---- terminal ---- */

void report_gpu_terminal(FILE *f, const struct report_stats *st, unsigned top, bool color)
{
	const struct rs_gpu *g = rs_gpu_of(st);
	const char *bold = color ? "\033[1m" : "", *dim = color ? "\033[2m" : "",
		   *reset = color ? "\033[0m" : "", *yellow = color ? "\033[1;33m" : "";
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX], e[HUMAN_MAX], h[HUMAN_MAX],
	    i2[HUMAN_MAX], j[HUMAN_MAX], label[64], name[256];
	uint32_t order[TOP_STEPS], n;

	if (!g)
		return;
	fprintf(f, "\n%sGPU idle time and data waits (steps: %s)%s\n", bold,
		g->marker_steps ? "dltrace's step markers" : "the profiler's ProfilerStep#N",
		reset);
	for (uint32_t k = 0; k < g->ndevs; k++) {
		const struct rs_gpu_dev *x = &g->devs[k];

		if (!x->steps)
			continue;
		fprintf(
		    f,
		    "  GPU %lld of pid %u: %u steps of %s, busy %s, idle %s; data waits overlap %s "
		    "of it (%s)\n",
		    (long long)x->device, x->pid, x->steps, human_ns(a, x->window_ns),
		    human_ns(b, x->busy_ns), human_ns(c, x->idle_ns), human_ns(d, x->explained_ns),
		    human_pct(e, share(x->explained_ns, x->idle_ns)));
		fprintf(f,
			"    batch waits %s (%s), file reads %s, cache misses %s, block I/O %s\n",
			human_ns(a, x->overlap_ns[GO_BATCH]), batch_from(x),
			human_ns(b, x->overlap_ns[GO_READS]),
			layer_ns(c, g->cache_layer, x->overlap_ns[GO_MISSES]),
			layer_ns(d, g->block_layer, x->overlap_ns[GO_BLOCK]));
	}
	if (g->nrows) {
		fprintf(f, "  %s%-22s %4s %10s %10s %10s %10s %10s %10s %10s %10s%s\n", dim, "step",
			"gpu", "window", "idle", "batch", "reads", "misses", "block", "explained",
			"other", reset);
		for (uint32_t k = 0; k < g->nrows && k < TERM_ROWS && k < top; k++) {
			const struct rs_gpu_row *r = &g->rows[k];
			const struct rs_gpu_step *s = &g->steps[r->step];

			fprintf(f, "  %-22s %4lld %10s %10s %10s %10s %10s %10s %10s %10s\n",
				rs_gpu_step_label(g, s, label, sizeof(label)),
				(long long)g->devs[r->dev].device, human_ns(a, s->end - s->start),
				human_ns(b, r->idle_ns), human_ns(c, r->overlap_ns[GO_BATCH]),
				human_ns(d, r->overlap_ns[GO_READS]),
				g->cache_layer ? human_ns(e, r->overlap_ns[GO_MISSES]) : "-",
				g->block_layer ? human_ns(h, r->overlap_ns[GO_BLOCK]) : "-",
				human_ns(i2, r->explained_ns), human_ns(j, unexplained(r)));
		}
		if (g->nrows > TERM_ROWS && top > TERM_ROWS)
			fprintf(f, "  %s(%u more: --json)%s\n", dim, g->nrows - TERM_ROWS, reset);
	}
	for (int by = 0; by < 2; by++) {
		n = top_rows(g, by == 1, order, TOP_STEPS);
		if (!n)
			continue;
		fprintf(f, "  most %s idle time:", by ? "I/O-explained" : "unexplained");
		for (uint32_t k = 0; k < n; k++) {
			const struct rs_gpu_row *r = &g->rows[order[k]];

			fprintf(f, "%s %s %s", k ? "," : "",
				rs_gpu_step_label(g, &g->steps[r->step], label, sizeof(label)),
				human_ns(a, by ? r->explained_ns : unexplained(r)));
		}
		fputc('\n', f);
	}
	if (g->nfiles) {
		fprintf(f, "  files whose reads overlap the idle time:\n");
		for (uint32_t k = 0; k < g->nfiles && k < TERM_ROWS && k < top; k++) {
			const struct rs_file *x = &st->files[g->files[k].file];

			fprintf(f, "    %-72s %10s\n",
				display_text(name, sizeof(name), rs_str(st, x->name),
					     rs_strlen(st, x->name), 72),
				human_ns(a, g->files[k].idle_ns));
		}
	}
	for (uint32_t k = 0; k < g->nwarnings; k++)
		fprintf(f, "  %swarning:%s %s\n", yellow, reset, g->warnings[k]);
}

/* ---- JSON ---- */

static struct json_object *j_u64(uint64_t v)
{
	return json_object_new_uint64(v);
}

static struct json_object *j_layer(bool on, uint64_t v)
{
	return on ? j_u64(v) : NULL;
}

static struct json_object *j_share(uint64_t a, uint64_t b)
{
	char text[32];
	double v = share(a, b);

	snprintf(text, sizeof(text), "%.17g", v);
	return b ? json_object_new_double_s(v, text) : NULL;
}

static struct json_object *j_text(const char *s)
{
	return jv_string(s, strlen(s));
}

static struct json_object *step_ref(const struct rs_gpu *g, const struct rs_gpu_row *r)
{
	struct json_object *o = json_object_new_object();
	char label[64];

	jv_add(o, "step", j_text(rs_gpu_step_label(g, &g->steps[r->step], label, sizeof(label))));
	jv_add(o, "device", json_object_new_int64(g->devs[r->dev].device));
	jv_add(o, "idle_ns", j_u64(r->idle_ns));
	jv_add(o, "explained_ns", j_u64(r->explained_ns));
	jv_add(o, "unexplained_ns", j_u64(unexplained(r)));
	return o;
}

struct json_object *report_gpu_json(const struct report_stats *st, unsigned top)
{
	const struct rs_gpu *g = rs_gpu_of(st);
	struct json_object *o, *list;
	uint32_t order[TOP_STEPS], n;
	char label[64];

	if (!g)
		return NULL;
	o = json_object_new_object();
	jv_add(o, "steps_from", j_text(g->marker_steps ? "markers" : "ProfilerStep"));
	jv_add(o, "cache_layer", json_object_new_boolean(g->cache_layer));
	jv_add(o, "block_layer", json_object_new_boolean(g->block_layer));
	list = json_object_new_array();
	for (uint32_t k = 0; k < g->ndevs; k++) {
		const struct rs_gpu_dev *x = &g->devs[k];
		struct json_object *d = json_object_new_object();

		jv_add(d, "pid", j_u64(x->pid));
		jv_add(d, "device", json_object_new_int64(x->device));
		jv_add(d, "steps", j_u64(x->steps));
		jv_add(d, "window_ns", j_u64(x->window_ns));
		jv_add(d, "busy_ns", j_u64(x->busy_ns));
		jv_add(d, "idle_ns", j_u64(x->idle_ns));
		jv_add(d, "explained_ns", j_u64(x->explained_ns));
		jv_add(d, "unexplained_ns", j_u64(x->idle_ns - x->explained_ns));
		jv_add(d, "explained_share", j_share(x->explained_ns, x->idle_ns));
		jv_add(d, "batch_wait_ns", j_u64(x->overlap_ns[GO_BATCH]));
		jv_add(d, "batch_from",
		       x->batch_from == GW_FETCH  ? j_text("fetch")
		       : x->batch_from == GW_PIPE ? j_text("pipe")
						  : NULL);
		jv_add(d, "file_read_ns", j_u64(x->overlap_ns[GO_READS]));
		jv_add(d, "cache_miss_ns", j_layer(g->cache_layer, x->overlap_ns[GO_MISSES]));
		jv_add(d, "block_io_ns", j_layer(g->block_layer, x->overlap_ns[GO_BLOCK]));
		jv_push(list, d);
	}
	jv_add(o, "devices", list);
	list = json_object_new_array();
	for (uint32_t k = 0; k < g->nrows && k < top; k++) {
		const struct rs_gpu_row *r = &g->rows[k];
		const struct rs_gpu_step *s = &g->steps[r->step];
		struct json_object *x = json_object_new_object();

		jv_add(x, "step", j_text(rs_gpu_step_label(g, s, label, sizeof(label))));
		jv_add(x, "index", s->index >= 0 ? json_object_new_int64(s->index) : NULL);
		jv_add(x, "pid", j_u64(s->pid));
		jv_add(x, "tid", j_u64(s->tid));
		jv_add(x, "device", json_object_new_int64(g->devs[r->dev].device));
		jv_add(x, "start_ns", j_u64(s->start));
		jv_add(x, "end_ns", j_u64(s->end));
		jv_add(x, "busy_ns", j_u64(r->busy_ns));
		jv_add(x, "idle_ns", j_u64(r->idle_ns));
		jv_add(x, "batch_wait_ns", j_u64(r->overlap_ns[GO_BATCH]));
		jv_add(x, "file_read_ns", j_u64(r->overlap_ns[GO_READS]));
		jv_add(x, "cache_miss_ns", j_layer(g->cache_layer, r->overlap_ns[GO_MISSES]));
		jv_add(x, "block_io_ns", j_layer(g->block_layer, r->overlap_ns[GO_BLOCK]));
		jv_add(x, "explained_ns", j_u64(r->explained_ns));
		jv_add(x, "unexplained_ns", j_u64(unexplained(r)));
		jv_push(list, x);
	}
	jv_add(o, "steps", list);
	for (int by = 0; by < 2; by++) {
		list = json_object_new_array();
		n = top_rows(g, by == 1, order, TOP_STEPS);
		for (uint32_t k = 0; k < n; k++)
			jv_push(list, step_ref(g, &g->rows[order[k]]));
		jv_add(o, by ? "most_explained" : "most_unexplained", list);
	}
	list = json_object_new_array();
	for (uint32_t k = 0; k < g->nfiles && k < top; k++) {
		const struct rs_file *x = &st->files[g->files[k].file];
		const char *name = rs_str(st, x->name);
		uint32_t len = rs_strlen(st, x->name);
		struct json_object *e = json_object_new_object();

		jv_add(e, "path", jv_string(name, len));
		if (!utf8_valid(name, len)) {
			char *hex = malloc(2 * (size_t)len + 1);

			if (hex)
				jv_add(e, "path_hex", jv_string(hex, json_hex(hex, name, len)));
			free(hex);
		}
		jv_add(e, "idle_ns", j_u64(g->files[k].idle_ns));
		jv_push(list, e);
	}
	jv_add(o, "files", list);
	jv_add(o, "waits_dropped", j_u64(g->waits_dropped));
	list = json_object_new_array();
	for (uint32_t k = 0; k < g->nwarnings; k++)
		jv_push(list, j_text(g->warnings[k]));
	jv_add(o, "warnings", list);
	return o;
}

/* ---- HTML ---- */

static void td(FILE *f, uint64_t sort, const char *text)
{
	fprintf(f, "<td data-v=\"%llu\">", (unsigned long long)sort);
	html_text(f, text, strlen(text));
	fputs("</td>", f);
}

void report_gpu_html(FILE *f, const struct report_stats *st, unsigned top)
{
	const struct rs_gpu *g = rs_gpu_of(st);
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX], e[HUMAN_MAX], label[64];
	uint32_t order[TOP_STEPS], n;

	if (!g)
		return;
	fprintf(f, "<section id=\"gpu-idle\"><h2>GPU idle time and data waits</h2><p>Steps: %s.",
		g->marker_steps ? "dltrace's step markers" : "the profiler's ProfilerStep#N");
	for (uint32_t k = 0; k < g->ndevs; k++) {
		const struct rs_gpu_dev *x = &g->devs[k];

		if (!x->steps)
			continue;
		fprintf(f,
			" GPU %lld of pid %u: %u steps of %s, idle %s; data waits overlap %s of it "
			"(%s): batch waits %s (",
			(long long)x->device, x->pid, x->steps, human_ns(a, x->window_ns),
			human_ns(b, x->idle_ns), human_ns(c, x->explained_ns),
			human_pct(d, share(x->explained_ns, x->idle_ns)),
			human_ns(e, x->overlap_ns[GO_BATCH]));
		html_text(f, batch_from(x), strlen(batch_from(x)));
		fprintf(f, "), file reads %s, cache misses %s, block I/O %s.",
			human_ns(a, x->overlap_ns[GO_READS]),
			layer_ns(b, g->cache_layer, x->overlap_ns[GO_MISSES]),
			layer_ns(c, g->block_layer, x->overlap_ns[GO_BLOCK]));
	}
	fputs("</p>", f);
	for (int by = 0; by < 2; by++) {
		n = top_rows(g, by == 1, order, TOP_STEPS);
		if (!n)
			continue;
		fprintf(f, "<p>Most %s idle time:", by ? "I/O-explained" : "unexplained");
		for (uint32_t k = 0; k < n; k++) {
			const struct rs_gpu_row *r = &g->rows[order[k]];

			fprintf(f, "%s ", k ? "," : "");
			rs_gpu_step_label(g, &g->steps[r->step], label, sizeof(label));
			html_text(f, label, strlen(label));
			fprintf(f, " %s", human_ns(a, by ? r->explained_ns : unexplained(r)));
		}
		fputs(".</p>", f);
	}
	fputs("<div class=\"scroll\"><table class=\"sortable\"><thead><tr><th class=\"l\">step</th>"
	      "<th>GPU</th><th>window</th><th>idle</th><th>batch wait</th><th>file reads</th>"
	      "<th>cache misses</th><th>block I/O</th><th>explained</th><th>unexplained</th>"
	      "</tr></thead><tbody>",
	      f);
	for (uint32_t k = 0; k < g->nrows && k < top; k++) {
		const struct rs_gpu_row *r = &g->rows[k];
		const struct rs_gpu_step *s = &g->steps[r->step];

		fputs("<tr><td class=\"l\">", f);
		rs_gpu_step_label(g, s, label, sizeof(label));
		html_text(f, label, strlen(label));
		fprintf(f, "</td><td>%lld</td>", (long long)g->devs[r->dev].device);
		td(f, s->end - s->start, human_ns(a, s->end - s->start));
		td(f, r->idle_ns, human_ns(a, r->idle_ns));
		td(f, r->overlap_ns[GO_BATCH], human_ns(a, r->overlap_ns[GO_BATCH]));
		td(f, r->overlap_ns[GO_READS], human_ns(a, r->overlap_ns[GO_READS]));
		td(f, r->overlap_ns[GO_MISSES],
		   g->cache_layer ? human_ns(a, r->overlap_ns[GO_MISSES]) : "-");
		td(f, r->overlap_ns[GO_BLOCK],
		   g->block_layer ? human_ns(a, r->overlap_ns[GO_BLOCK]) : "-");
		td(f, r->explained_ns, human_ns(a, r->explained_ns));
		td(f, unexplained(r), human_ns(a, unexplained(r)));
		fputs("</tr>", f);
	}
	fputs("</tbody></table></div>", f);
	if (g->nfiles) {
		fputs("<div class=\"scroll\"><table class=\"sortable\"><thead><tr><th class=\"l\">"
		      "file</th><th>idle time its reads overlap</th></tr></thead><tbody>",
		      f);
		for (uint32_t k = 0; k < g->nfiles && k < top; k++) {
			const struct rs_file *x = &st->files[g->files[k].file];

			fputs("<tr><td class=\"l\">", f);
			html_text(f, rs_str(st, x->name), rs_strlen(st, x->name));
			fputs("</td>", f);
			td(f, g->files[k].idle_ns, human_ns(a, g->files[k].idle_ns));
			fputs("</tr>", f);
		}
		fputs("</tbody></table></div>", f);
	}
	for (uint32_t k = 0; k < g->nwarnings; k++) {
		fputs("<p class=\"warnline\">warning: ", f);
		html_text(f, g->warnings[k], strlen(g->warnings[k]));
		fputs("</p>", f);
	}
	fputs("</section>\n", f);
}
