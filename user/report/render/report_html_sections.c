// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The HTML report's sections on the system calls: the job, the findings, the
 * timeline, time per process and thread, application I/O, files, balance
 * across processes and hosts, environment I/O.
 */
#include <stdlib.h>
#include <string.h>

#include "event/syscall_table.h"
#include "lib/human_format.h"
#include "report/render/report_html_internal.h"
#include "report/report_warnings.h"

void html_summary(FILE *f, const struct report_view *v)
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

void html_findings(FILE *f, const struct report_view *v)
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
	html_bar_chart(f, "time", lp, n, values, 3, colors, series, html_label_ns);
}

void html_time_section(FILE *f, const struct report_view *v)
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

void html_application(FILE *f, const struct report_view *v)
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
	html_bar_chart(f, "sizes", rs_size_bin_names, SIZE_BINS, values, 2, colors, series,
		       html_label_count);
	n = common_sizes(st, -1, size, count);
	fprintf(f, "<p>Most common access sizes:");
	for (int i = 0; i < n; i++)
		fprintf(f, "%s %s (%s)", i ? "," : "", human_bytes(a, size[i]),
			human_count(b, count[i]));
	fprintf(f, "%s</p>", n ? "" : " none");
	syscalls(f, st);
	fprintf(f, "</section>\n");
}

void html_files(FILE *f, const struct report_view *v)
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
	html_bar_chart(f, "file-sizes", rs_size_bin_names, SIZE_BINS, values, 1, colors, series,
		       html_label_count);
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
		html_bar_chart(f, "hosts", lp, st->nhosts, values, 1, colors, series,
			       html_label_count);
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

void html_balance(FILE *f, const struct report_view *v)
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
		html_bar_chart(f, "balance", lp, worst->members, values, 1, colors, series,
			       html_label_count);
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

void html_timeline(FILE *f, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX];

	fprintf(f, "<section id=\"timeline\"><h2>Timeline: application bandwidth and write "
		   "bursts</h2>");
	html_timeline_chart(f, st);
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

void html_environment(FILE *f, const struct report_view *v)
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
