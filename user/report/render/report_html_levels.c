// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The HTML report's sections on the levels above the system calls (library
 * calls, datasets, Python lines) and on the phases and training loops.
 */
#include <math.h>
#include <stdlib.h>

#include "lib/human_format.h"
#include "report/render/report_html_internal.h"

void html_python_locations(FILE *f, const struct report_view *v)
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

void html_levels(FILE *f, const struct report_view *v)
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
		html_stall_chart(f, st, oi);
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

			rs_step_label(st, s, label, sizeof(label));
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

void html_phases(FILE *f, const struct report_view *v)
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
