// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `dltrace report --html FILE`: the report as one self-contained page
 * (inline CSS, SVG charts drawn here, a little JavaScript to sort tables);
 * it loads nothing from the network.  Every chart is an <svg> with a
 * data-chart attribute and one element per data point (class "bar", "pt"
 * or "burst"), so that tests can check that it rendered.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json_string.h"
#include "lib/human_format.h"
#include "report/render/report_output.h"
#include "report/report_warnings.h"
#include "event/syscall_table.h"

#define CHART_W 900
#define CHART_H 220

static void esc_n(FILE *f, const char *s, size_t len)
{
	report_html_text(f, s, len);
}

static void esc(FILE *f, const char *s)
{
	esc_n(f, s, strlen(s));
}

static void esc_id(FILE *f, const struct report_stats *st, uint32_t id)
{
	if (id != NONE32)
		esc_n(f, rs_str(st, id), rs_strlen(st, id));
}

static const char *css =
    ":root{--fg:#1d232b;--mut:#5d6875;--bg:#f6f7f9;--card:#fff;--line:#dde2e8;"
    "--read:#2f74c0;--write:#d9822b;--meta:#8a63c8;--sync:#c23b3b;--high:#c62828;"
    "--warn:#b26a00;--info:#1f7a8c;--ok:#2e7d32}"
    "*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,'Segoe "
    "UI',Roboto,sans-serif;color:var(--fg);background:var(--bg)}"
    "header{background:#1d232b;color:#fff;padding:18px 28px}header h1{margin:0;font-size:"
    "20px}header p{margin:4px 0 0;color:#c9d1da;font-size:13px}"
    "main{max-width:1200px;margin:0 auto;padding:18px 28px 60px}"
    "section{background:var(--card);border:1px solid var(--line);border-radius:8px;"
    "padding:14px 18px;margin:16px 0}h2{font-size:16px;margin:0 0 10px}"
    "h3{font-size:14px;margin:14px 0 6px;color:var(--mut)}"
    ".cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));gap:10px}"
    ".card{border:1px solid var(--line);border-radius:6px;padding:8px 10px}"
    ".card b{display:block;font-size:18px}.card span{color:var(--mut);font-size:12px}"
    ".finding{border-left:5px solid var(--info);padding:8px 12px;margin:10px 0;"
    "background:#fafbfc;border-radius:4px}.finding.high{border-color:var(--high)}"
    ".finding.warn{border-color:var(--warn)}.finding h3{margin:0;color:var(--fg)}"
    ".lvl{display:inline-block;font-size:11px;font-weight:700;color:#fff;border-radius:3px;"
    "padding:1px 6px;margin-right:6px;background:var(--info)}.high .lvl{background:"
    "var(--high)}.warn .lvl{background:var(--warn)}.rule{color:var(--mut);font-size:12px}"
    ".rec{background:#eef6ee;border-radius:4px;padding:6px 8px;margin-top:6px}"
    ".ok{color:var(--ok)}.warnline{color:var(--warn)}"
    "table{border-collapse:collapse;width:100%;font-size:12.5px}"
    "th,td{padding:4px 8px;border-bottom:1px solid var(--line);text-align:right;"
    "white-space:nowrap}th{cursor:pointer;color:var(--mut);font-weight:600;user-select:none}"
    "th:hover{color:var(--fg)}td.l,th.l{text-align:left}td.path{max-width:420px;overflow:"
    "hidden;text-overflow:ellipsis;text-align:left}"
    ".scroll{overflow-x:auto}svg{width:100%;height:auto;display:block}"
    "svg text{font:11px system-ui,sans-serif;fill:var(--mut)}"
    ".legend span{display:inline-block;margin-right:14px;font-size:12px}"
    ".legend i{display:inline-block;width:10px;height:10px;margin-right:4px;border-radius:2px}"
    "footer{color:var(--mut);font-size:12px;text-align:center;margin-top:20px}";

static const char *script =
    "(function(){'use strict';"
    "function val(td){var v=td.getAttribute('data-v');return v===null?td.textContent:"
    "parseFloat(v);}"
    "document.querySelectorAll('table.sortable').forEach(function(t){"
    "t.querySelectorAll('th').forEach(function(th,i){th.addEventListener('click',function(){"
    "var tb=t.tBodies[0],rows=Array.prototype.slice.call(tb.rows),"
    "asc=th.getAttribute('data-asc')!=='1';th.setAttribute('data-asc',asc?'1':'0');"
    "rows.sort(function(a,b){var x=val(a.cells[i]),y=val(b.cells[i]);"
    "if(typeof x==='number'&&typeof y==='number')return asc?x-y:y-x;"
    "return asc?String(x).localeCompare(String(y)):String(y).localeCompare(String(x));});"
    "rows.forEach(function(r){tb.appendChild(r);});});});});"
    "var n=document.querySelectorAll('svg[data-chart]').length;"
    "document.body.setAttribute('data-charts',String(n));"
    "document.body.setAttribute('data-ready','1');})();";

static double frac(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0;
}

static void card(FILE *f, const char *value, const char *label)
{
	fprintf(f, "<div class=\"card\"><b>");
	esc(f, value);
	fprintf(f, "</b><span>%s</span></div>", label);
}

static void summary(FILE *f, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	const struct rs_totals *a = &st->tot[SCOPE_APP];
	char b[HUMAN_MAX], lines[WARNING_MAX][WARNING_LINE];
	uint64_t io = 0, lost = 0;

	for (int s = 0; s < SCOPE_COUNT; s++)
		io += st->tot[s].io_ns[0] + st->tot[s].io_ns[1] + st->tot[s].io_ns[2];
	for (uint32_t t = 0; t < st->ntraces; t++)
		lost += st->traces[t].lost_events;
	fprintf(f, "<section id=\"job\"><h2>Job</h2>");
	/* first: a trace cut short or damaged changes how every figure below reads */
	for (uint32_t t = 0; t < st->ntraces; t++) {
		int n = report_trace_warnings(st, t, lines);

		for (int k = 0; k < n; k++) {
			fprintf(f, "<p class=\"warnline\">Warning: ");
			esc(f, lines[k]);
			fprintf(f, "</p>");
		}
	}
	fprintf(f, "<div class=\"cards\">");
	card(f, human_ns(b, st->wall_ns), "wall time");
	card(f, human_count(b, st->events), "events");
	card(f, human_count(b, lost), "events lost");
	card(f, human_count(b, st->nprocs_active), "processes");
	card(f, human_count(b, st->nthreads), "threads");
	card(f, human_count(b, st->nhosts), "hosts");
	card(f, human_bytes(b, a->bytes_read), "application bytes read");
	card(f, human_bytes(b, a->bytes_written), "application bytes written");
	card(f, human_ns(b, io), "time in file syscalls (all threads)");
	if (st->training_thread != NONE32) {
		const struct rs_thread *t = &st->threads[st->training_thread];

		card(f, human_pct(b, frac(rs_thread_io(t), rs_thread_wall(st, t))),
		     "of the training thread's time in I/O");
		card(f, human_pct(b, frac(t->scope_ns[SCOPE_OTHER], rs_thread_wall(st, t))),
		     "of it waiting on pipes and sockets (e.g. DataLoader workers)");
	}
	fprintf(f, "</div><h3>Traces</h3><div class=\"scroll\"><table><thead><tr>"
		   "<th class=\"l\">file</th><th class=\"l\">host</th><th class=\"l\">start</th>"
		   "<th class=\"l\">command</th><th>events</th><th>lost</th></tr></thead><tbody>");
	for (uint32_t t = 0; t < st->ntraces; t++) {
		const struct rs_trace *tr = &st->traces[t];

		fprintf(f, "<tr><td class=\"path\">");
		esc(f, tr->file ? tr->file : "");
		fprintf(f, "</td><td class=\"l\">");
		esc_id(f, st, tr->hostname);
		fprintf(f, "</td><td class=\"l\">");
		esc_id(f, st, tr->start_wall);
		fprintf(f, "</td><td class=\"path\">");
		esc_id(f, st, tr->target);
		fprintf(f, "</td><td>%llu</td><td>%llu</td></tr>", (unsigned long long)tr->events,
			(unsigned long long)tr->lost_events);
	}
	fprintf(f, "</tbody></table></div>");
	fprintf(f, "</section>\n");
}

static void findings(FILE *f, const struct report_view *v)
{
	const struct findings *fi = v->fi;

	fprintf(f, "<section id=\"findings\"><h2>Findings</h2>");
	if (!fi->n)
		fprintf(f, "<p class=\"ok\">No finding: nothing in this trace matches a rule.</p>");
	for (int i = 0; i < fi->n; i++) {
		const struct finding *x = &fi->items[i];
		const char *sev = finding_severity_name(x->severity);

		fprintf(
		    f, "<div class=\"finding %s\" data-id=\"%s\"><h3><span class=\"lvl\">%s</span>",
		    sev, x->id, sev);
		esc(f, x->title);
		fprintf(f, "</h3><div class=\"rule\">Rule: ");
		esc(f, x->rule);
		fprintf(f, "</div><ul>");
		for (int k = 0; k < x->nevidence; k++) {
			fprintf(f, "<li>");
			esc(f, x->evidence[k]);
			fprintf(f, "</li>");
		}
		fprintf(f, "</ul><div class=\"rec\"><b>Recommendation:</b> ");
		esc(f, x->recommendation);
		fprintf(f, "</div></div>");
	}
	fprintf(f, "</section>\n");
}

/* ---- charts ---- */

static double nice_max(double v)
{
	double p, m;

	if (v <= 0)
		return 1;
	p = pow(10, floor(log10(v)));
	m = v / p;
	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

static void axis_y(FILE *f, double max, int x0, int y0, int h, const char *(*label)(char *, double))
{
	char b[HUMAN_MAX];

	for (int i = 0; i <= 4; i++) {
		int y = y0 + h - h * i / 4;

		fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#e3e7ec\"/>", x0,
			y, CHART_W - 10, y);
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>", x0 - 6, y + 4,
			label(b, max * i / 4));
	}
}

static const char *label_rate(char *b, double v)
{
	char t[HUMAN_MAX];

	snprintf(b, HUMAN_MAX, "%s/s", human_bytes(t, clamp_u64(v)));
	return b;
}

static const char *label_count(char *b, double v)
{
	return human_count(b, clamp_u64(v));
}

static const char *label_ns(char *b, double v)
{
	return human_ns(b, clamp_u64(v));
}

static void timeline_chart(FILE *f, const struct report_stats *st)
{
	const int x0 = 80, y0 = 10, w = CHART_W - x0 - 10, h = CHART_H - 40;
	double max = 0, scale = 1e9 / st->tl_width;
	uint64_t t0;
	uint32_t first, n;
	char b[HUMAN_MAX];

	rs_timeline_range(st, &first, &n);
	t0 = (uint64_t)first * st->tl_width;
	for (uint32_t i = first; i < first + n; i++) {
		if (st->tl_read[i] * scale > max)
			max = st->tl_read[i] * scale;
		if (st->tl_write[i] * scale > max)
			max = st->tl_write[i] * scale;
	}
	max = nice_max(max);
	fprintf(f,
		"<svg data-chart=\"timeline\" viewBox=\"0 0 %d %d\" role=\"img\" "
		"aria-label=\"bandwidth over time\">",
		CHART_W, CHART_H);
	axis_y(f, max, x0, y0, h, label_rate);
	/* bursts behind the lines */
	for (uint32_t k = 0; k < st->nbursts_kept; k++) {
		const struct rs_burst *bu = &st->top_bursts[k];
		double bx = x0 + (double)w * (double)(bu->start_ns > t0 ? bu->start_ns - t0 : 0) /
				     (n * (double)st->tl_width);
		double bw = (double)w * (bu->end_ns - bu->start_ns) / (n * (double)st->tl_width);

		if (bw < 2)
			bw = 2;
		fprintf(f,
			"<rect class=\"burst\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
			"fill=\"#c23b3b\" fill-opacity=\"0.13\"><title>write burst: %s",
			bx, y0, bw, h, human_bytes(b, bu->bytes));
		fprintf(f, " in %s", human_ns(b, bu->end_ns - bu->start_ns));
		fprintf(f, ", blocked %s</title></rect>", human_ns(b, bu->blocked_ns));
	}
	for (int dir = 0; dir < 2; dir++) {
		const uint64_t *bins = (dir ? st->tl_write : st->tl_read) + first;

		fprintf(f, "<polyline fill=\"none\" stroke-width=\"1.6\" stroke=\"%s\" points=\"",
			dir ? "#d9822b" : "#2f74c0");
		for (uint32_t i = 0; i < n; i++)
			fprintf(f, "%.1f,%.1f ", x0 + (double)w * (i + 0.5) / n,
				y0 + h - h * (bins[i] * scale / max));
		fprintf(f, "\"/>");
		for (uint32_t i = 0; i < n; i++) {
			if (!bins[i])
				continue;
			fprintf(
			    f,
			    "<circle class=\"pt\" r=\"1.6\" cx=\"%.1f\" cy=\"%.1f\" fill=\"%s\">"
			    "<title>%s: ",
			    x0 + (double)w * (i + 0.5) / n, y0 + h - h * (bins[i] * scale / max),
			    dir ? "#d9822b" : "#2f74c0", dir ? "write" : "read");
			fprintf(f, "%s at ", label_rate(b, bins[i] * scale));
			fprintf(f, "%s</title></circle>", human_ns(b, i * st->tl_width));
		}
	}
	for (int i = 0; i <= 4; i++)
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>",
			x0 + w * i / 4, CHART_H - 12,
			human_ns(b, clamp_u64((double)n * st->tl_width * i / 4)));
	fprintf(f, "</svg><div class=\"legend\"><span><i style=\"background:#2f74c0\"></i>read"
		   "</span><span><i style=\"background:#d9822b\"></i>write</span><span><i "
		   "style=\"background:#f3d6d6\"></i>write burst (checkpoint)</span></div>");
}

/* Grouped bars: one group per label, one bar per series. */
static void bar_chart(FILE *f, const char *id, const char *const *labels, int ngroups,
		      const uint64_t *values, int nseries, const char *const *colors,
		      const char *const *series, const char *(*label)(char *, double))
{
	const int x0 = 80, y0 = 10, w = CHART_W - x0 - 10, h = CHART_H - 40;
	double max = 0, gw = (double)w / (ngroups ? ngroups : 1);
	char b[HUMAN_MAX];

	for (int i = 0; i < ngroups * nseries; i++)
		if (values[i] > max)
			max = values[i];
	max = nice_max(max);
	fprintf(f, "<svg data-chart=\"%s\" viewBox=\"0 0 %d %d\" role=\"img\">", id, CHART_W,
		CHART_H);
	axis_y(f, max, x0, y0, h, label);
	for (int g = 0; g < ngroups; g++) {
		for (int s = 0; s < nseries; s++) {
			uint64_t val = values[g * nseries + s];
			double bh = h * (val / max), bw = gw * 0.8 / nseries;
			double bx = x0 + g * gw + gw * 0.1 + s * bw;

			fprintf(f,
				"<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
				"height=\"%.1f\" fill=\"%s\"><title>",
				bx, y0 + h - bh, bw > 1 ? bw - 1 : bw, bh, colors[s]);
			esc(f, labels[g]);
			fprintf(f, " %s: %s</title></rect>", series[s], label(b, (double)val));
		}
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", x0 + (g + 0.5) * gw,
			CHART_H - 12);
		esc(f, labels[g]);
		fprintf(f, "</text>");
	}
	fprintf(f, "</svg><div class=\"legend\">");
	for (int s = 0; s < nseries; s++)
		fprintf(f, "<span><i style=\"background:%s\"></i>%s</span>", colors[s], series[s]);
	fprintf(f, "</div>");
}

static void time_chart(FILE *f, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	static const char *const colors[] = {"#2f74c0", "#8a63c8", "#c23b3b"};
	static const char *const series[] = {"data", "metadata", "sync"};
	uint32_t *order = rs_sorted(st->nprocs, key_proc_io, st), n = 0;
	char labels[12][48];
	const char *lp[12];
	uint64_t values[12 * 3];

	if (!order)
		return;
	if (st->training_thread != NONE32) {
		const struct rs_thread *t = &st->threads[st->training_thread];

		snprintf(labels[n], sizeof(labels[0]), "training %u", t->tid);
		for (int c = 0; c < CLS_COUNT; c++)
			values[n * 3 + c] = t->io_ns[c];
		lp[n] = labels[n];
		n++;
	}
	for (uint32_t k = 0; k < st->nprocs && n < 12; k++) {
		const struct rs_proc *p = &st->procs[order[k]];

		if (!rs_proc_io(p))
			break;
		snprintf(labels[n], sizeof(labels[0]), "pid %u", p->pid);
		for (int c = 0; c < CLS_COUNT; c++)
			values[n * 3 + c] = p->io_ns[0][c] + p->io_ns[1][c] + p->io_ns[2][c];
		lp[n] = labels[n];
		n++;
	}
	free(order);
	bar_chart(f, "time", lp, n, values, 3, colors, series, label_ns);
}

static void td_num(FILE *f, uint64_t v, const char *text)
{
	fprintf(f, "<td data-v=\"%llu\">", (unsigned long long)v);
	esc(f, text);
	fprintf(f, "</td>");
}

static void time_section(FILE *f, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	uint32_t *order;
	char a[HUMAN_MAX];

	fprintf(f, "<section id=\"time\"><h2>Time in I/O system calls</h2>");
	time_chart(f, v);
	fprintf(f, "<h3>Processes</h3><div class=\"scroll\"><table class=\"sortable\"><thead><tr>"
		   "<th>pid</th><th>ppid</th><th class=\"l\">command</th><th>threads</th>"
		   "<th>wall</th><th>in I/O</th><th>data</th><th>metadata</th><th>sync</th>"
		   "<th>share</th><th>app read</th><th>app written</th></tr></thead><tbody>");
	order = rs_sorted(st->nprocs, key_proc_io, st);
	for (uint32_t k = 0; order && k < st->nprocs && k < v->top; k++) {
		const struct rs_proc *p = &st->procs[order[k]];
		uint64_t cls[CLS_COUNT] = {0}, io = rs_proc_io(p), wall = rs_proc_wall(st, p);

		for (int s = 0; s < SCOPE_COUNT; s++)
			for (int c = 0; c < CLS_COUNT; c++)
				cls[c] += p->io_ns[s][c];
		fprintf(f, "<tr><td>%u</td><td>%u</td><td class=\"path\">", p->pid, p->ppid);
		esc_id(f, st, p->name);
		fprintf(f, "</td><td>%u</td>", p->threads);
		td_num(f, wall, human_ns(a, wall));
		td_num(f, io, human_ns(a, io));
		td_num(f, cls[0], human_ns(a, cls[0]));
		td_num(f, cls[1], human_ns(a, cls[1]));
		td_num(f, cls[2], human_ns(a, cls[2]));
		td_num(f, clamp_u64(frac(io, wall) * 1e6), human_pct(a, frac(io, wall)));
		td_num(f, p->app_bytes_read, human_bytes(a, p->app_bytes_read));
		td_num(f, p->app_bytes_written, human_bytes(a, p->app_bytes_written));
		fprintf(f, "</tr>");
	}
	free(order);
	fprintf(f, "</tbody></table></div><h3>Threads</h3><div class=\"scroll\"><table "
		   "class=\"sortable\"><thead><tr><th>pid</th><th>tid</th><th class=\"l\">name</th>"
		   "<th>wall</th><th>in I/O</th><th>data</th><th>metadata</th><th>sync</th>"
		   "<th>share</th><th>app read</th></tr></thead><tbody>");
	order = rs_sorted(st->nthreads, key_thread_io, st);
	for (uint32_t k = 0; order && k < st->nthreads && k < v->top; k++) {
		const struct rs_thread *t = &st->threads[order[k]];
		uint64_t io = rs_thread_io(t), wall = rs_thread_wall(st, t);

		fprintf(f, "<tr><td>%u</td><td>%u</td><td class=\"l\">", st->procs[t->proc].pid,
			t->tid);
		esc_id(f, st, t->comm);
		if (order[k] == st->training_thread)
			fprintf(f, " (training)");
		fprintf(f, "</td>");
		td_num(f, wall, human_ns(a, wall));
		td_num(f, io, human_ns(a, io));
		td_num(f, t->io_ns[0], human_ns(a, t->io_ns[0]));
		td_num(f, t->io_ns[1], human_ns(a, t->io_ns[1]));
		td_num(f, t->io_ns[2], human_ns(a, t->io_ns[2]));
		td_num(f, clamp_u64(frac(io, wall) * 1e6), human_pct(a, frac(io, wall)));
		td_num(f, t->app_bytes_read, human_bytes(a, t->app_bytes_read));
		fprintf(f, "</tr>");
	}
	free(order);
	fprintf(f, "</tbody></table></div></section>\n");
}

static void syscalls(FILE *f, const struct report_stats *st)
{
	char a[HUMAN_MAX];

	fprintf(f, "<h3>Per system call (application files)</h3><div class=\"scroll\"><table "
		   "class=\"sortable\"><thead><tr><th class=\"l\">syscall</th><th>calls</th>"
		   "<th>failed</th><th>bytes</th><th>size min</th><th>p25</th><th>median</th>"
		   "<th>mean</th><th>p75</th><th>max</th><th>latency p50</th><th>p99</th>"
		   "<th>max</th></tr></thead><tbody>");
	for (int k = 0; k < DL_SYS_COUNT; k++) {
		const struct rs_syscall *sc = &st->sys[SCOPE_APP][k];
		const struct quantile_sketch *z = &sc->size;
		uint64_t q[4] = {sketch_quantile(z, 0.25), sketch_quantile(z, 0.5),
				 z->n ? z->sum / z->n : 0, sketch_quantile(z, 0.75)};

		if (!sc->calls)
			continue;
		fprintf(f, "<tr><td class=\"l\">%s</td>", syscall_info(k)->name);
		td_num(f, sc->calls, human_count(a, sc->calls));
		td_num(f, sc->failed, human_count(a, sc->failed));
		td_num(f, sc->bytes, human_bytes(a, sc->bytes));
		td_num(f, z->min, z->n ? human_bytes(a, z->min) : "-");
		for (int i = 0; i < 4; i++)
			td_num(f, q[i], z->n ? human_bytes(a, q[i]) : "-");
		td_num(f, z->max, z->n ? human_bytes(a, z->max) : "-");
		td_num(f, sketch_quantile(&sc->lat, 0.5),
		       human_ns(a, sketch_quantile(&sc->lat, 0.5)));
		td_num(f, sketch_quantile(&sc->lat, 0.99),
		       human_ns(a, sketch_quantile(&sc->lat, 0.99)));
		td_num(f, sc->lat.max, human_ns(a, sc->lat.max));
		fprintf(f, "</tr>");
	}
	fprintf(f, "</tbody></table></div>");
}

static void application(FILE *f, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	const struct rs_totals *t = &st->tot[SCOPE_APP];
	static const char *const colors[] = {"#2f74c0", "#d9822b"};
	static const char *const series[] = {"reads", "writes"};
	uint64_t values[SIZE_BINS * 2], size[4], count[4];
	char a[HUMAN_MAX], b[HUMAN_MAX];
	int n;

	fprintf(f, "<section id=\"application\"><h2>Application I/O <small>(environment and "
		   "pipes excluded)</small></h2><div class=\"cards\">");
	card(f, human_count(a, t->reads), "reads");
	card(f, human_count(a, t->writes), "writes");
	card(f, human_count(a, t->seq_reads), "sequential reads");
	card(f, human_count(a, t->consec_reads), "consecutive reads");
	card(f, human_count(a, t->seq_writes), "sequential writes");
	card(f, human_count(a, t->consec_writes), "consecutive writes");
	card(f, human_count(a, t->random_reads), "random reads");
	card(f, human_count(a, t->seeks), "seeks");
	card(f, human_count(a, t->rw_switches), "read/write switches");
	card(f, human_count(a, t->opens), "opens");
	card(f, human_count(a, t->stats), "stats");
	card(f, human_count(a, t->syncs), "syncs");
	fprintf(f, "</div><h3>Access sizes (Darshan's bins)</h3>");
	for (int i = 0; i < SIZE_BINS; i++) {
		values[2 * i] = st->hist[0][i];
		values[2 * i + 1] = st->hist[1][i];
	}
	bar_chart(f, "sizes", rs_size_bin_names, SIZE_BINS, values, 2, colors, series, label_count);
	n = common_sizes(st, -1, size, count);
	fprintf(f, "<p>Most common access sizes:");
	for (int i = 0; i < n; i++)
		fprintf(f, "%s %s (%s)", i ? "," : "", human_bytes(a, size[i]),
			human_count(b, count[i]));
	fprintf(f, "%s</p>", n ? "" : " none");
	syscalls(f, st);
	fprintf(f, "</section>\n");
}

static void files(FILE *f, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	static const char *const colors[] = {"#5b8c5a"};
	static const char *const series[] = {"files"};
	uint64_t values[SIZE_BINS];
	uint32_t *order;
	char a[HUMAN_MAX];

	fprintf(f, "<section id=\"files\"><h2>Files</h2><div class=\"cards\">");
	card(f, human_count(a, st->files_read), "files read");
	card(f, human_count(a, st->files_read_once), "read once");
	card(f, human_count(a, st->files_reread), "re-read (1.5+ passes)");
	card(f, human_count(a, st->files_written), "files written");
	card(f, human_bytes(a, st->dataset_bytes), "data read spans");
	card(f, human_bytes(a, st->redundant_in_open), "re-read within an open");
	card(f, human_bytes(a, st->concurrent_dup), "read by several processes at once");
	fprintf(f, "</div><h3>Sizes of the files touched</h3>");
	for (int i = 0; i < SIZE_BINS; i++)
		values[i] = st->size_bins_files[i];
	bar_chart(f, "file-sizes", rs_size_bin_names, SIZE_BINS, values, 1, colors, series,
		  label_count);
	fprintf(f, "<h3>Files (by bytes moved)</h3><div class=\"scroll\"><table class=\"sortable\">"
		   "<thead><tr><th class=\"l\">path</th><th>read</th><th>written</th><th>reads</th>"
		   "<th>writes</th><th>opens</th><th>stats</th><th>seeks</th><th>seq reads</th>"
		   "<th>consec reads</th><th>seq writes</th><th>consec writes</th><th>switches</th>"
		   "<th>procs</th><th>size</th><th>highest byte read</th><th>passes</th>"
		   "<th>re-read in open</th><th>I/O time</th></tr></thead><tbody>");
	order = rs_sorted(st->nfiles, key_file_bytes, st);
	for (uint32_t k = 0; order && k < st->nfiles && k < v->top; k++) {
		const struct rs_file *x = &st->files[order[k]];
		uint64_t io = x->io_ns[0] + x->io_ns[1] + x->io_ns[2];

		if (x->scope != SCOPE_APP)
			break;
		fprintf(f, "<tr><td class=\"path\" title=\"");
		esc_id(f, st, x->name);
		fprintf(f, "\">");
		esc_id(f, st, x->name);
		fprintf(f, "</td>");
		td_num(f, x->bytes_read, human_bytes(a, x->bytes_read));
		td_num(f, x->bytes_written, human_bytes(a, x->bytes_written));
		td_num(f, x->reads, human_count(a, x->reads));
		td_num(f, x->writes, human_count(a, x->writes));
		td_num(f, x->opens, human_count(a, x->opens));
		td_num(f, x->stats, human_count(a, x->stats));
		td_num(f, x->seeks, human_count(a, x->seeks));
		td_num(f, x->seq_reads, human_count(a, x->seq_reads));
		td_num(f, x->consec_reads, human_count(a, x->consec_reads));
		td_num(f, x->seq_writes, human_count(a, x->seq_writes));
		td_num(f, x->consec_writes, human_count(a, x->consec_writes));
		td_num(f, x->rw_switches, human_count(a, x->rw_switches));
		td_num(f, x->procs, human_count(a, x->procs));
		td_num(f, x->extent, human_bytes(a, x->extent));
		td_num(f, x->max_byte_read + 1,
		       x->max_byte_read >= 0 ? human_count(a, (uint64_t)x->max_byte_read) : "-");
		snprintf(a, sizeof(a), "%.2f", x->passes);
		td_num(f, clamp_u64(x->passes * 1000), a);
		td_num(f, x->reread_within_open, human_bytes(a, x->reread_within_open));
		td_num(f, io, human_ns(a, io));
		fprintf(f, "</tr>");
	}
	free(order);
	fprintf(f, "</tbody></table></div><h3>Directories</h3><div class=\"scroll\"><table "
		   "class=\"sortable\"><thead><tr><th class=\"l\">directory</th><th>files</th>"
		   "<th>read</th><th>written</th><th>metadata calls</th><th>failed</th>"
		   "<th>I/O time</th></tr></thead><tbody>");
	order = rs_sorted(st->ndirs, key_dir_bytes, st);
	for (uint32_t k = 0; order && k < st->ndirs && k < v->top; k++) {
		const struct rs_dir *d = &st->dirs[order[k]];

		if (d->scope != SCOPE_APP)
			break;
		fprintf(f, "<tr><td class=\"path\">");
		esc_id(f, st, d->name);
		fprintf(f, "</td>");
		td_num(f, d->files, human_count(a, d->files));
		td_num(f, d->bytes_read, human_bytes(a, d->bytes_read));
		td_num(f, d->bytes_written, human_bytes(a, d->bytes_written));
		td_num(f, d->meta_ops, human_count(a, d->meta_ops));
		td_num(f, d->failed, human_count(a, d->failed));
		td_num(f, d->io_ns, human_ns(a, d->io_ns));
		fprintf(f, "</tr>");
	}
	free(order);
	fprintf(f, "</tbody></table></div><h3>File systems (device of the opened files)</h3><div "
		   "class=\"scroll\"><table class=\"sortable\"><thead><tr><th class=\"l\">device"
		   "</th><th class=\"l\">type</th><th class=\"l\">files under</th><th>files</th>"
		   "<th>read</th><th>written</th><th>I/O time</th></tr></thead><tbody>");
	order = rs_sorted(st->nmounts, key_mount_bytes, st);
	for (uint32_t k = 0; order && k < st->nmounts && k < v->top; k++) {
		const struct rs_mount *m = &st->mounts[order[k]];

		fprintf(f, "<tr><td class=\"l\">");
		esc_id(f, st, m->dev);
		fprintf(f, "</td><td class=\"l\">");
		esc_id(f, st, m->fs);
		fprintf(f, "</td><td class=\"path\">");
		esc_id(f, st, m->prefix);
		fprintf(f, "</td>");
		td_num(f, m->files, human_count(a, m->files));
		td_num(f, m->bytes_read, human_bytes(a, m->bytes_read));
		td_num(f, m->bytes_written, human_bytes(a, m->bytes_written));
		td_num(f, m->io_ns, human_ns(a, m->io_ns));
		fprintf(f, "</tr>");
	}
	free(order);
	fprintf(f, "</tbody></table></div></section>\n");
}

/* Per node, and how far the nodes are apart. */
static void hosts(FILE *f, const struct report_stats *st)
{
	static const char *const colors[] = {"#2f74c0"};
	static const char *const series[] = {"bytes moved"};
	const struct rs_spread *s = &st->host_spread;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX];

	fprintf(f,
		"<h3>Hosts</h3><p>Across %u hosts: application bytes %s..%s (%s apart), "
		"I/O time %s..%s (",
		st->nhosts, human_bytes(a, s->bytes_min), human_bytes(b, s->bytes_max),
		human_pct(c, s->bytes_imbalance), human_ns(d, s->io_min), human_ns(a, s->io_max));
	fprintf(f, "%s apart); slowest host ", human_pct(b, s->time_imbalance));
	esc_id(f, st, st->hosts[s->slowest].hostname);
	fprintf(f, ", fastest host ");
	esc_id(f, st, st->hosts[s->fastest].hostname);
	fprintf(f, ".</p>");
	if (st->nhosts <= 64) {
		const char *lp[64];
		uint64_t values[64];

		for (uint32_t h = 0; h < st->nhosts; h++) {
			lp[h] = rs_str(st, st->hosts[h].hostname);
			values[h] = st->hosts[h].bytes_read + st->hosts[h].bytes_written;
		}
		bar_chart(f, "hosts", lp, st->nhosts, values, 1, colors, series, label_count);
	}
	fprintf(f, "<div class=\"scroll\"><table class=\"sortable\"><thead><tr><th class=\"l\">"
		   "host</th><th>traces</th><th>processes</th><th>threads</th><th>bytes read</th>"
		   "<th>bytes written</th><th>I/O time</th><th>calls</th><th>failed</th>"
		   "<th>wall time</th><th>events</th><th>lost</th></tr></thead><tbody>");
	for (uint32_t h = 0; h < st->nhosts; h++) {
		const struct rs_host *x = &st->hosts[h];

		fprintf(f, "<tr><td class=\"l\">");
		esc_id(f, st, x->hostname);
		fprintf(f, "</td><td>%u</td><td>%u</td><td>%u</td>", x->traces, x->procs,
			x->threads);
		td_num(f, x->bytes_read, human_bytes(a, x->bytes_read));
		td_num(f, x->bytes_written, human_bytes(a, x->bytes_written));
		td_num(f, x->io_ns, human_ns(a, x->io_ns));
		td_num(f, x->calls, human_count(a, x->calls));
		td_num(f, x->failed, human_count(a, x->failed));
		td_num(f, x->last_ns - x->first_ns, human_ns(a, x->last_ns - x->first_ns));
		td_num(f, x->events, human_count(a, x->events));
		td_num(f, x->lost_events, human_count(a, x->lost_events));
		fprintf(f, "</tr>");
	}
	fprintf(f, "</tbody></table></div>");
}

static void balance(FILE *f, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	static const char *const colors[] = {"#2f74c0"};
	static const char *const series[] = {"bytes moved"};
	char a[HUMAN_MAX], b[HUMAN_MAX];
	const struct rs_group *worst = NULL;

	fprintf(f, "<section id=\"balance\"><h2>Balance across processes</h2>");
	if (!st->ngroups && st->nhosts < 2)
		fprintf(f, "<p>No group of peer processes (same parent and command) moved "
			   "application data.</p>");
	for (uint32_t g = 0; g < st->ngroups; g++)
		if (!worst || st->groups[g].spread.bytes_imbalance > worst->spread.bytes_imbalance)
			worst = &st->groups[g];
	if (worst && worst->members <= 64) {
		const char *lp[64];
		char labels[64][24];
		uint64_t values[64];

		for (uint32_t k = 0; k < worst->members; k++) {
			const struct rs_proc *p = &st->procs[st->group_members[worst->first + k]];

			snprintf(labels[k], sizeof(labels[0]), "%u", p->pid);
			lp[k] = labels[k];
			values[k] = p->app_bytes_read + p->app_bytes_written;
		}
		fprintf(f, "<h3>Most unbalanced group: bytes per process</h3>");
		bar_chart(f, "balance", lp, worst->members, values, 1, colors, series, label_count);
	}
	if (st->ngroups) {
		fprintf(f, "<div class=\"scroll\"><table class=\"sortable\"><thead><tr>"
			   "<th>parent pid</th><th class=\"l\">command</th><th>members</th>"
			   "<th>bytes min</th><th>bytes max</th><th>imbalance</th><th>I/O time min"
			   "</th><th>I/O time max</th><th>time imbalance</th><th>slowest</th>"
			   "<th>most bytes</th></tr></thead><tbody>");
		for (uint32_t g = 0; g < st->ngroups && g < v->top; g++) {
			const struct rs_group *x = &st->groups[g];
			char ranks[128], who[64];

			rank_set(st, st->group_members + x->first, x->members, ranks,
				 sizeof(ranks));
			fprintf(f, "<tr><td>%u</td><td class=\"path\">",
				x->parent != NONE32 ? st->procs[x->parent].pid : 0);
			esc_id(f, st, x->name);
			if (ranks[0]) {
				fprintf(f, " (");
				esc(f, ranks);
				fprintf(f, ")");
			}
			fprintf(f, "</td><td>%u</td>", x->members);
			td_num(f, x->spread.bytes_min, human_bytes(a, x->spread.bytes_min));
			td_num(f, x->spread.bytes_max, human_bytes(a, x->spread.bytes_max));
			td_num(f, clamp_u64(x->spread.bytes_imbalance * 1e6),
			       human_pct(b, x->spread.bytes_imbalance));
			td_num(f, x->spread.io_min, human_ns(a, x->spread.io_min));
			td_num(f, x->spread.io_max, human_ns(a, x->spread.io_max));
			td_num(f, clamp_u64(x->spread.time_imbalance * 1e6),
			       human_pct(b, x->spread.time_imbalance));
			fprintf(f, "<td>");
			esc(f, proc_who(st, x->spread.slowest, ranks[0], who, sizeof(who)));
			fprintf(f, "</td><td>");
			esc(f, proc_who(st, x->spread.most, ranks[0], who, sizeof(who)));
			fprintf(f, "</td></tr>");
		}
		fprintf(f, "</tbody></table></div>");
	}
	if (st->nhosts > 1)
		hosts(f, st);
	fprintf(f, "</section>\n");
}

static void timeline(FILE *f, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX];

	fprintf(f, "<section id=\"timeline\"><h2>Timeline: application bandwidth and write "
		   "bursts</h2>");
	timeline_chart(f, st);
	fprintf(f,
		"<p>%llu write bursts of 1 MiB or more (writes and syncs less than 1 s apart): "
		"%s written, writers blocked %s in total.</p>",
		(unsigned long long)st->bursts, human_bytes(a, st->burst_bytes),
		human_ns(b, st->burst_blocked_ns));
	if (st->nbursts_kept) {
		fprintf(f, "<div class=\"scroll\"><table class=\"sortable\"><thead><tr><th>start"
			   "</th><th>pid</th><th>tid</th><th>bytes</th><th>duration</th><th>blocked"
			   "</th><th>calls</th><th class=\"l\">file</th></tr></thead><tbody>");
		for (uint32_t k = 0; k < st->nbursts_kept; k++) {
			const struct rs_burst *bu = &st->top_bursts[k];
			const struct rs_thread *t = &st->threads[bu->thread];

			fprintf(f, "<tr>");
			td_num(f, rs_since_job(st, bu->start_ns),
			       human_ns(a, rs_since_job(st, bu->start_ns)));
			fprintf(f, "<td>%u</td><td>%u%s</td>", st->procs[t->proc].pid, t->tid,
				bu->thread == st->training_thread ? " (training)" : "");
			td_num(f, bu->bytes, human_bytes(a, bu->bytes));
			td_num(f, bu->end_ns - bu->start_ns,
			       human_ns(b, bu->end_ns - bu->start_ns));
			td_num(f, bu->blocked_ns, human_ns(c, bu->blocked_ns));
			fprintf(f, "<td>%u</td><td class=\"path\">", bu->ops);
			if (bu->file != NONE32)
				esc_id(f, st, st->files[bu->file].name);
			fprintf(f, "</td></tr>");
		}
		fprintf(f, "</tbody></table></div>");
	}
	fprintf(f, "</section>\n");
}

static void environment(FILE *f, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	const struct rs_totals *o = &st->tot[SCOPE_OTHER];
	char a[HUMAN_MAX];

	fprintf(f, "<section id=\"environment\"><h2>Environment I/O <small>(Python imports, "
		   "libraries, /proc, /sys, /dev, system files)</small></h2><table "
		   "class=\"sortable\"><thead><tr><th class=\"l\">kind</th><th>calls</th>"
		   "<th>failed</th><th>files</th><th>read</th><th>written</th><th>I/O time</th>"
		   "</tr></thead><tbody>");
	for (int k = 1; k < ENV_COUNT; k++) {
		const struct rs_env_kind *e = &st->env[k];

		if (!e->calls)
			continue;
		fprintf(f, "<tr><td class=\"l\">%s</td>", env_kind_name(k));
		td_num(f, e->calls, human_count(a, e->calls));
		td_num(f, e->failed, human_count(a, e->failed));
		td_num(f, e->files, human_count(a, e->files));
		td_num(f, e->bytes_read, human_bytes(a, e->bytes_read));
		td_num(f, e->bytes_written, human_bytes(a, e->bytes_written));
		td_num(f, e->io_ns, human_ns(a, e->io_ns));
		fprintf(f, "</tr>");
	}
	fprintf(f, "<tr><td class=\"l\">pipes, sockets, unnamed, shared memory</td>");
	td_num(f, o->calls, human_count(a, o->calls));
	td_num(f, o->failed, human_count(a, o->failed));
	fprintf(f, "<td>-</td>");
	td_num(f, o->bytes_read, human_bytes(a, o->bytes_read));
	td_num(f, o->bytes_written, human_bytes(a, o->bytes_written));
	td_num(f, o->io_ns[0] + o->io_ns[1] + o->io_ns[2],
	       human_ns(a, o->io_ns[0] + o->io_ns[1] + o->io_ns[2]));
	fprintf(f, "</tr>");
	if (st->shm.calls) {
		fprintf(f, "<tr><td class=\"l\">of them shared memory (segments in /dev/shm, SysV, "
			   "memfd)</td>");
		td_num(f, st->shm.calls, human_count(a, st->shm.calls));
		td_num(f, st->shm.failed, human_count(a, st->shm.failed));
		fprintf(f, "<td>-</td>");
		td_num(f, st->shm.bytes_read, human_bytes(a, st->shm.bytes_read));
		td_num(f, st->shm.bytes_written, human_bytes(a, st->shm.bytes_written));
		td_num(f, st->shm.io_ns, human_ns(a, st->shm.io_ns));
		fprintf(f, "</tr>");
	}
	fprintf(f, "</tbody></table>");
	if (st->nerrnos) {
		fprintf(f, "<h3>Errors</h3><table class=\"sortable\"><thead><tr><th class=\"l\">"
			   "errno</th><th>application</th><th>environment</th><th>other</th></tr>"
			   "</thead><tbody>");
		for (uint32_t i = 0; i < st->nerrnos; i++) {
			fprintf(f, "<tr><td class=\"l\">");
			esc(f, st->errnos[i].name);
			fprintf(f, "</td><td>%llu</td><td>%llu</td><td>%llu</td></tr>",
				(unsigned long long)st->errnos[i].count[0],
				(unsigned long long)st->errnos[i].count[1],
				(unsigned long long)st->errnos[i].count[2]);
		}
		fprintf(f, "</tbody></table>");
	}
	if (st->layers.active != NONE32 && strcmp(rs_str(st, st->layers.active), "syscall")) {
		const struct rs_layers *l = &st->layers;

		fprintf(f, "<h3>Other capture layers (");
		esc_id(f, st, l->active);
		fprintf(f, ")</h3><div class=\"cards\">");
		card(f, human_count(a, l->faults[SCOPE_APP]), "page faults on application files");
		card(f, human_count(a, l->faults[SCOPE_ENV]), "page faults on the environment");
		if (l->cache_reads) {
			double hit = rs_cache_hit_ratio(l->cache_miss[SCOPE_APP],
							l->cache_read_bytes[SCOPE_APP]);

			if (hit >= 0)
				card(f, human_pct(a, hit),
				     "page-cache hit ratio (application bytes read)");
			card(f, human_bytes(a, l->cache_miss[SCOPE_APP]),
			     "application bytes read from storage (page-cache misses)");
		}
		card(f, human_count(a, l->block_requests[0]), "block reads");
		card(f, human_bytes(a, l->block_bytes[0]), "block bytes read");
		card(f, human_count(a, l->block_requests[1]), "block writes");
		card(f, human_bytes(a, l->block_bytes[1]), "block bytes written");
		card(f, human_ns(a, sketch_quantile(&l->block_lat, 0.99)), "block latency p99");
		card(f, human_count(a, l->uring_requests), "io_uring requests");
		card(f, human_count(a, l->aio_requests), "AIO requests");
		fprintf(f, "</div>");
	}
	fprintf(f, "</section>\n");
}

/* ---- levels above the syscalls, and phases ---- */

static void python_locations(FILE *f, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	const struct rs_python *py = &st->python;
	char a[HUMAN_MAX];
	uint32_t *order;

	if (!py->n)
		return;
	fprintf(f,
		"<section id=\"python\"><h2>Python locations</h2><p>%s syscalls with the "
		"Python line behind them (--python-stacks: the innermost frame of the "
		"application), ",
		human_count(a, py->calls));
	fprintf(f, "%s, ", human_ns(a, py->io_ns));
	fprintf(f,
		"at %s locations.</p><div class=\"scroll\"><table class=\"sortable\"><thead>"
		"<tr><th class=\"l\">file:line function</th><th>calls</th><th>failed</th>"
		"<th>reads</th><th>read</th><th>writes</th><th>written</th><th>time</th>"
		"</tr></thead><tbody>",
		human_count(a, py->n));
	order = rs_sorted(py->n, key_py_loc, st);
	for (uint32_t k = 0; order && k < py->n && k < v->top; k++) {
		const struct rs_py_loc *l = &py->locs[order[k]];

		fprintf(f, "<tr><td class=\"l\">");
		esc_id(f, st, l->loc);
		fprintf(f, "</td>");
		td_num(f, l->calls, human_count(a, l->calls));
		td_num(f, l->failed, human_count(a, l->failed));
		td_num(f, l->reads, human_count(a, l->reads));
		td_num(f, l->read_bytes, human_bytes(a, l->read_bytes));
		td_num(f, l->writes, human_count(a, l->writes));
		td_num(f, l->write_bytes, human_bytes(a, l->write_bytes));
		td_num(f, l->io_ns, human_ns(a, l->io_ns));
		fprintf(f, "</tr>");
	}
	free(order);
	fprintf(f, "</tbody></table></div></section>\n");
}

/* Per HDF5 dataset and per file: the bytes asked against what the enclosed syscalls read. */
static void level_objects(FILE *f, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	uint32_t *order = rs_sorted(st->levels.nobjs, key_level_obj, st);
	char a[HUMAN_MAX], name[1024];

	if (!order || !st->levels.nobjs) {
		free(order);
		return;
	}
	fprintf(f, "<h3>Reads per dataset and file</h3><p>The bytes the calls asked for, the "
		   "bytes the read syscalls they enclose read, and what storage gave the page "
		   "cache for them.</p><div class=\"scroll\"><table class=\"sortable\"><thead>"
		   "<tr><th class=\"l\">level</th><th class=\"l\">dataset or file</th>"
		   "<th>reads</th><th>opens</th><th>bytes asked</th><th>read syscalls</th>"
		   "<th>bytes read</th><th>x asked</th><th>from storage</th>"
		   "<th class=\"l\">selections</th></tr></thead><tbody>");
	for (uint32_t k = 0; k < st->levels.nobjs && k < v->top; k++) {
		const struct rs_level_obj *o = &st->levels.objs[order[k]];
		double r = rs_level_ratio(&o->rd);
		bool first = true;

		if (!o->rd.calls)
			continue;
		fprintf(f, "<tr><td class=\"l\">%s</td><td class=\"l\">", rs_level_names[o->level]);
		esc(f, rs_level_obj_name(st, o, name, sizeof(name)));
		fprintf(f, "</td>");
		td_num(f, o->rd.calls, human_count(a, o->rd.calls));
		td_num(f, o->opens, human_count(a, o->opens));
		td_num(f, o->rd.asked,
		       o->rd.asked_calls == o->rd.calls ? human_count(a, o->rd.asked) : "unknown");
		td_num(f, o->rd.syscalls, human_count(a, o->rd.syscalls));
		td_num(f, o->rd.sys_bytes, human_count(a, o->rd.sys_bytes));
		td_num(f, r >= 0 && isfinite(r) ? clamp_u64(r * 100) : 0, human_ratio(a, r));
		td_num(f, o->rd.cache_miss,
		       o->rd.cache_reads ? human_bytes(a, o->rd.cache_miss) : "unknown");
		fprintf(f, "<td class=\"l\">");
		for (int i = 0; i < LV_SEL_COUNT; i++)
			if (o->rd.sel_calls[i]) {
				fprintf(f, "%s%s %s", first ? "" : ", ", rs_sel_names[i],
					human_count(a, o->rd.sel_calls[i]));
				first = false;
			}
		fprintf(f, "</td></tr>");
	}
	free(order);
	fprintf(f, "</tbody></table></div>");
}

static void levels(FILE *f, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	const struct rs_levels *lv = &st->levels;
	char a[HUMAN_MAX], b[HUMAN_MAX];
	struct rs_layer_hint hint[2];
	bool hints = rs_layer_hint(st, DL_LAYER_HDF5, &hint[0]) |
		     rs_layer_hint(st, DL_LAYER_MPIIO, &hint[1]);

	if (!lv->calls[DL_LAYER_STDIO] && !lv->calls[DL_LAYER_HDF5] && !lv->calls[DL_LAYER_MPIIO] &&
	    !hints)
		return;
	fprintf(f, "<section id=\"levels\"><h2>Library calls (the levels above the syscalls)"
		   "</h2>");
	for (int i = 0; i < 2; i++) {
		const struct rs_layer_hint *h = &hint[i];

		if (!h->layer)
			continue;
		fprintf(f, "<p><b>%s layer off</b>: ", h->layer);
		esc_id(f, st, h->library);
		fprintf(
		    f, " was loaded by %s process%s; <code>--layers +%s</code> would show %s calls",
		    human_count(a, h->procs), h->procs == 1 ? "" : "es", h->layer,
		    i == 0 ? "its HDF5" : "their MPI-IO");
		if (i == 0)
			fprintf(f, " and explain the %s reads (%s) of .h5 files.</p>",
				human_count(a, h->reads), human_bytes(b, h->bytes));
		else
			fprintf(f, " behind their %s reads (%s) of application files.</p>",
				human_count(a, h->reads), human_bytes(b, h->bytes));
	}
	if (!lv->calls[DL_LAYER_STDIO] && !lv->calls[DL_LAYER_HDF5] && !lv->calls[DL_LAYER_MPIIO]) {
		fprintf(f, "</section>\n");
		return;
	}
	fprintf(f, "<div class=\"scroll\"><table class=\"sortable\"><thead><tr>"
		   "<th class=\"l\">level</th><th class=\"l\">function</th><th>calls</th>"
		   "<th>failed</th><th>time</th><th>p50</th><th>p99</th><th>max</th>"
		   "<th>bytes asked</th><th>syscalls</th><th>read syscalls</th><th>read</th>"
		   "<th>write syscalls</th><th>written</th></tr></thead><tbody>");
	for (uint32_t i = 0; i < lv->nfn; i++) {
		const struct rs_level_fn *fn = &lv->fn[i];

		fprintf(f, "<tr><td class=\"l\">%s</td><td class=\"l\">",
			rs_level_names[fn->level]);
		esc_id(f, st, fn->name);
		fprintf(f, "</td>");
		td_num(f, fn->calls, human_count(a, fn->calls));
		td_num(f, fn->failed, human_count(a, fn->failed));
		td_num(f, fn->time_ns, human_ns(a, fn->time_ns));
		td_num(f, sketch_quantile(&fn->lat, 0.5),
		       human_ns(a, sketch_quantile(&fn->lat, 0.5)));
		td_num(f, sketch_quantile(&fn->lat, 0.99),
		       human_ns(a, sketch_quantile(&fn->lat, 0.99)));
		td_num(f, fn->lat.max, human_ns(a, fn->lat.max));
		td_num(f, fn->bytes_requested,
		       fn->dir != LV_DIR_READ && fn->dir != LV_DIR_WRITE && !fn->requested_calls
			   ? "-"
		       : fn->requested_calls != fn->calls ? "unknown"
							  : human_bytes(a, fn->bytes_requested));
		td_num(f, fn->syscalls, human_count(a, fn->syscalls));
		td_num(f, fn->sys_reads, human_count(a, fn->sys_reads));
		td_num(f, fn->sys_read_bytes, human_bytes(a, fn->sys_read_bytes));
		td_num(f, fn->sys_writes, human_count(a, fn->sys_writes));
		td_num(f, fn->sys_write_bytes, human_bytes(a, fn->sys_write_bytes));
		fprintf(f, "</tr>");
	}
	fprintf(f, "</tbody></table></div><ul>");
	for (int l = DL_LAYER_STDIO; l < DL_LEVEL_COUNT; l++) {
		struct rs_level_dir d[2];

		rs_level_dirs(st, l, &d[0], &d[1]);
		for (int w = 0; w < 2; w++) {
			char b[HUMAN_MAX], c[HUMAN_MAX];
			bool known = d[w].calls && d[w].requested_calls == d[w].calls;

			if (!d[w].calls)
				continue;
			fprintf(f, "<li>%s %s: %s calls", rs_level_names[l], w ? "writes" : "reads",
				human_count(a, d[w].calls));
			if (known)
				fprintf(f, " asking %s", human_bytes(b, d[w].requested));
			fprintf(f, " &rarr; %s %s syscalls (%.2f per call) that %s %s",
				human_count(c, d[w].syscalls), w ? "write" : "read",
				(double)d[w].syscalls / (double)d[w].calls, w ? "wrote" : "read",
				human_bytes(a, d[w].sys_bytes));
			if (known && d[w].requested)
				fprintf(f, " (%.2fx the bytes asked)",
					(double)d[w].sys_bytes / (double)d[w].requested);
			fprintf(f, "</li>");
		}
	}
	fprintf(f, "</ul>");
	level_objects(f, v);
	fprintf(f, "</section>\n");
}

static void step_label(const struct report_stats *st, const struct rs_step *s, char *buf,
		       size_t size)
{
	size_t o = 0;

	buf[0] = '\0';
	if (s->epoch != NONE32)
		o = snprintf(buf, size, "epoch %lld ",
			     (long long)st->phases.epochs[s->epoch].index);
	if (s->index >= 0)
		snprintf(buf + o, size - o, "step %lld", (long long)s->index);
	else
		snprintf(buf + o, size - o, "step at %.3f s", rs_since_job(st, s->end) / 1e9);
}

#define STALL_BARS 200

/* Per step (or group of steps): the wait for the batch under the rest of the iteration. */
static void stall_chart(FILE *f, const struct report_stats *st, uint32_t oi)
{
	const int x0 = 80, y0 = 10, w = CHART_W - x0 - 10, h = CHART_H - 40;
	struct rs_stall_bar bars[STALL_BARS];
	uint32_t n = rs_stall_bars(st, oi, bars, STALL_BARS);
	double max = 0, gw = (double)w / (n ? n : 1);
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], label[64];

	for (uint32_t k = 0; k < n; k++)
		if ((double)bars[k].iter_ns / bars[k].steps > max)
			max = (double)bars[k].iter_ns / bars[k].steps;
	max = nice_max(max);
	fprintf(f,
		"<svg data-chart=\"stall\" viewBox=\"0 0 %d %d\" role=\"img\" "
		"aria-label=\"data stall per step\">",
		CHART_W, CHART_H);
	axis_y(f, max, x0, y0, h, label_ns);
	for (uint32_t k = 0; k < n; k++) {
		double iter = (double)bars[k].iter_ns / bars[k].steps,
		       stall = (double)bars[k].stall_ns / bars[k].steps;
		double bw = gw * 0.8, bx = x0 + k * gw + gw * 0.1;
		double hs = h * stall / max, hi = h * iter / max;

		step_label(st, &st->phases.steps[bars[k].first], label, sizeof(label));
		for (int part = 0; part < 2; part++) {
			double y = part ? y0 + h - hi : y0 + h - hs, bh = part ? hi - hs : hs;

			fprintf(f,
				"<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
				"height=\"%.1f\" fill=\"%s\"><title>",
				bx, y, bw > 1 ? bw - 1 : bw, bh > 0 ? bh : 0,
				part ? "#2f74c0" : "#d9822b");
			esc(f, label);
			if (bars[k].steps > 1)
				fprintf(f, " and the next %u (mean)", bars[k].steps - 1);
			fprintf(f, ": %s, %s waiting for the batch (%s)</title></rect>",
				human_ns(a, (uint64_t)iter), human_ns(b, (uint64_t)stall),
				human_pct(c, iter > 0 ? stall / iter : 0));
		}
	}
	for (int i = 0; i <= 4 && n; i++) {
		uint32_t k = i == 4 ? n - 1 : n * i / 4;

		step_label(st, &st->phases.steps[bars[k].first], label, sizeof(label));
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", x0 + (k + 0.5) * gw,
			CHART_H - 12);
		esc(f, label);
		fprintf(f, "</text>");
	}
	fprintf(f,
		"</svg><div class=\"legend\"><span><i style=\"background:#d9822b\"></i>"
		"waiting for the batch (data stall)</span><span><i style=\"background:#2f74c0"
		"\"></i>rest of the iteration (the step)</span>%s</div>",
		n && bars[0].steps > 1 ? "<span>bars: consecutive steps, mean</span>" : "");
}

static void loop_html(FILE *f, const struct report_view *v, uint32_t oi)
{
	const struct report_stats *st = v->st;
	const struct rs_phases *ph = &st->phases;
	const struct rs_owner *o = &ph->owners[oi];
	const struct rs_thread *th = &st->threads[o->thread];
	char a[HUMAN_MAX], b[HUMAN_MAX], label[64];

	fprintf(f, "<h3>Training loop: thread %u (pid %u, ", th->tid, st->procs[th->proc].pid);
	esc_id(f, st, th->comm);
	fprintf(f, ")</h3><div class=\"cards\">");
	card(f, human_count(a, o->steps), "steps");
	card(f, human_count(a, o->epochs), "epochs");
	card(f, human_pct(a, frac(o->sum.stall_ns, o->sum.iter_ns)),
	     o->fetch_seen ? "data stall (fetch regions)" : "data stall (pipe and socket reads)");
	card(f, human_ns(a, o->sum.iter_p50), "median iteration (fetch + step)");
	card(f, human_ns(a, o->sum.iter_p99), "p99 iteration");
	card(f, human_ns(a, o->sum.iter_max), "worst iteration");
	card(f, human_ns(a, o->sum.stall_p50), "median wait per step");
	card(f, human_bytes(a, o->sum.read_p50), "median bytes read per iteration (the job's)");
	fprintf(f, "</div>");
	if (o->steps)
		stall_chart(f, st, oi);
	if (o->epochs) {
		fprintf(f, "<div class=\"scroll\"><table class=\"sortable\"><thead><tr>"
			   "<th>epoch</th><th>steps</th><th>time</th><th>data stall</th>"
			   "<th>share</th><th>read</th><th>written</th><th>I/O time</th>"
			   "<th>worst iteration</th></tr></thead><tbody>");
		for (uint32_t k = 0; k < ph->nepochs; k++) {
			const struct rs_epoch *ep = &ph->epochs[k];

			if (ep->owner != oi)
				continue;
			fprintf(f, "<tr><td>%lld</td><td>%u</td>", (long long)ep->index, ep->steps);
			td_num(f, ep->end - ep->start, human_ns(a, ep->end - ep->start));
			td_num(f, ep->stall_ns, human_ns(a, ep->stall_ns));
			fprintf(f, "<td>%s</td>", human_pct(b, frac(ep->stall_ns, ep->iter_ns)));
			td_num(f, ep->io.bytes_read, human_bytes(a, ep->io.bytes_read));
			td_num(f, ep->io.bytes_written, human_bytes(a, ep->io.bytes_written));
			td_num(f, ep->io.io_ns, human_ns(a, ep->io.io_ns));
			td_num(f, ep->step_max_ns, human_ns(a, ep->step_max_ns));
			fprintf(f, "</tr>");
		}
		fprintf(f, "</tbody></table></div>");
	}
	if (o->nslow) {
		fprintf(f,
			"<h3>Slowest iterations and what was behind them</h3><div "
			"class=\"scroll\"><table class=\"sortable\"><thead><tr><th class=\"l\">"
			"step</th><th>iteration</th><th>waiting</th><th>read</th><th>syscall</th>"
			"<th>stdio</th><th>hdf5</th><th>mpiio</th><th class=\"l\">files "
			"(bytes, I/O time)</th></tr></thead><tbody>");
		uint32_t order[SLOW_KEEP];

		rs_slow_order(st, o, order);
		for (uint32_t k = 0; k < o->nslow; k++) {
			const struct rs_slow *sl = &o->slow[order[k]];
			const struct rs_step *s = &ph->steps[sl->step];

			step_label(st, s, label, sizeof(label));
			fprintf(f, "<tr><td class=\"l\">");
			esc(f, label);
			fprintf(f, "</td>");
			td_num(f, rs_step_iter_ns(s), human_ns(a, rs_step_iter_ns(s)));
			td_num(f, s->stall_ns, human_ns(a, s->stall_ns));
			td_num(f, s->io.bytes_read, human_bytes(a, s->io.bytes_read));
			for (int l = 0; l < DL_LEVEL_COUNT; l++)
				if (rs_is_level(l))
					td_num(f, s->io.level_ns[l],
					       human_ns(a, s->io.level_ns[l]));
			fprintf(f, "<td class=\"path\">");
			for (uint32_t i = 0; i < sl->nfiles; i++) {
				esc_id(f, st, st->files[sl->files[i].file].name);
				fprintf(f, " (%s, %s)%s", human_bytes(a, sl->files[i].bytes),
					human_ns(b, sl->files[i].io_ns),
					i + 1 < sl->nfiles ? "<br>" : "");
			}
			fprintf(f, "</td></tr>");
		}
		fprintf(f, "</tbody></table></div>");
	}
}

static void phases(FILE *f, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	const struct rs_phases *ph = &st->phases;
	char a[HUMAN_MAX];
	uint32_t n, *order;

	if (!ph->nregions)
		return;
	fprintf(f, "<section id=\"phases\"><h2>Phases (dltrace markers)</h2><div "
		   "class=\"scroll\"><table class=\"sortable\"><thead><tr><th class=\"l\">"
		   "region</th><th>count</th><th>time</th><th>p50</th><th>p99</th><th>max</th>"
		   "</tr></thead><tbody>");
	for (uint32_t k = 0; k < ph->nregions; k++) {
		const struct rs_region *r = &ph->regions[k];

		fprintf(f, "<tr><td class=\"l\">");
		esc_id(f, st, r->name);
		fprintf(f, "</td>");
		td_num(f, r->count, human_count(a, r->count));
		td_num(f, r->time_ns, human_ns(a, r->time_ns));
		td_num(f, sketch_quantile(&r->dur, 0.5),
		       human_ns(a, sketch_quantile(&r->dur, 0.5)));
		td_num(f, sketch_quantile(&r->dur, 0.99),
		       human_ns(a, sketch_quantile(&r->dur, 0.99)));
		td_num(f, r->dur.max, human_ns(a, r->dur.max));
		fprintf(f, "</tr>");
	}
	fprintf(f, "</tbody></table></div>");
	order = rs_phase_owners(st, &n);
	for (uint32_t k = 0; order && k < n && k < 4; k++)
		loop_html(f, v, order[k]);
	free(order);
	fprintf(f, "</section>\n");
}

void report_html(FILE *f, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	char a[HUMAN_MAX];

	fprintf(f,
		"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
		"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		"style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
		"<title>dltrace report</title><style>%s</style></head><body>\n",
		css);
	fprintf(f, "<header><h1>dltrace report</h1><p>");
	for (uint32_t t = 0; t < st->ntraces && t < 4; t++) {
		esc_id(f, st, st->traces[t].target);
		fprintf(f, " &middot; ");
		esc_id(f, st, st->traces[t].hostname);
		fprintf(f, "%s", t + 1 < st->ntraces ? "<br>" : "");
	}
	fprintf(f, " &middot; wall %s</p></header><main>\n", human_ns(a, st->wall_ns));
	summary(f, v);
	findings(f, v);
	report_gpu_html(f, st, v->top); /* with a profiler trace (report_gpu.c) */
	phases(f, v);
	timeline(f, v);
	time_section(f, v);
	application(f, v);
	files(f, v);
	balance(f, v);
	levels(f, v);
	python_locations(f, v);
	environment(f, v);
	fprintf(f, "<footer>");
	esc(f, v->generator);
	fprintf(f,
		" &middot; times are of the file system calls seen by the kernel; application "
		"figures exclude environment I/O</footer></main><script>%s</script></body></html>"
		"\n",
		script);
}
