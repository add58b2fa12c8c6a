// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* `dltrace report`: the report as text for a terminal (colors only on request). */
#define _GNU_SOURCE
#include <langinfo.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "lib/human_format.h"
#include "report/render/report_output.h"
#include "report/report_warnings.h"
#include "event/syscall_table.h"

#define TERM_ROWS 10 /* rows of each list */

struct term {
	FILE *f;
	bool color, utf8;
	int width; /* columns for wrapped text */
};

static const char *c_on(const struct term *t, const char *code)
{
	return t->color ? code : "";
}
#define BOLD(t)	  c_on((t), "\033[1m")
#define DIM(t)	  c_on((t), "\033[2m")
#define RED(t)	  c_on((t), "\033[1;31m")
#define YELLOW(t) c_on((t), "\033[1;33m")
#define CYAN(t)	  c_on((t), "\033[36m")
#define GREEN(t)  c_on((t), "\033[32m")
#define RESET(t)  c_on((t), "\033[0m")

/*
 * Print text wrapped at the terminal's width: the first line after `first`
 * (already printed, `col` columns wide), the others indented by `indent`.
 */
static void wrapped(const struct term *t, int col, int indent, const char *text)
{
	const char *p = text;

	while (*p) {
		const char *word = p, *end;
		int len = 0;

		while (*p == ' ')
			p++;
		word = p;
		for (end = p; *end && *end != ' '; end++)
			len += ((unsigned char)*end & 0xc0) != 0x80;
		if (end == word)
			break;
		if (col > indent && col + 1 + len > t->width) {
			fprintf(t->f, "\n%*s", indent, "");
			col = indent;
		} else if (word != text && col > indent) {
			fputc(' ', t->f);
			col++;
		}
		fwrite(word, 1, end - word, t->f);
		col += len;
		p = end;
	}
	fputc('\n', t->f);
}

static void heading(const struct term *t, const char *title)
{
	fprintf(t->f, "\n%s%s%s\n", BOLD(t), title, RESET(t));
}

static const char *shown(const struct report_stats *st, uint32_t id, char *buf, size_t size,
			 size_t cols)
{
	return display_text(buf, size, rs_str(st, id), rs_strlen(st, id), cols);
}

static double share(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0;
}

static void header(const struct term *t, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX], buf[400];
	uint64_t lost = 0, failed = 0;
	char lines[WARNING_MAX][WARNING_LINE];

	for (uint32_t i = 0; i < st->ntraces; i++)
		lost += st->traces[i].lost_events;
	for (int s = 0; s < SCOPE_COUNT; s++)
		failed += st->tot[s].failed;
	fprintf(t->f,
		"%sdltrace report%s  %s%u trace%s, %u host%s, wall %s, %s events, %s lost%s\n",
		BOLD(t), RESET(t), DIM(t), st->ntraces, st->ntraces == 1 ? "" : "s", st->nhosts,
		st->nhosts == 1 ? "" : "s", human_ns(a, st->wall_ns), human_count(b, st->events),
		human_count(c, lost), RESET(t));
	for (uint32_t i = 0; i < st->ntraces; i++) {
		const struct rs_trace *tr = &st->traces[i];

		fprintf(t->f, "  %s  %s  %s\n", shown(st, tr->hostname, a, sizeof(a), 20),
			tr->start_wall != NONE32 ? rs_str(st, tr->start_wall) : "",
			shown(st, tr->target, buf, sizeof(buf), 90));
	}
	fprintf(t->f, "  %u processes, %u threads, %s file syscalls (%s failed)\n",
		st->nprocs_active, st->nthreads, human_count(a, st->syscalls),
		human_count(d, failed));
	for (uint32_t i = 0; i < st->ntraces; i++) {
		int n = report_trace_warnings(st, i, lines);

		for (int k = 0; k < n; k++)
			fprintf(t->f, "  %swarning:%s %s\n", YELLOW(t), RESET(t), lines[k]);
	}
}

static void time_row(const struct term *t, const char *label, uint64_t wall, uint64_t data,
		     uint64_t meta, uint64_t sync)
{
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX], e[HUMAN_MAX], p[HUMAN_MAX];
	uint64_t io = data + meta + sync;

	fprintf(t->f, "  %-34s %9s %9s %9s %9s %9s %7s\n", label, human_ns(a, wall),
		human_ns(b, io), human_ns(c, data), human_ns(d, meta), human_ns(e, sync),
		human_pct(p, share(io, wall)));
}

/* Where the training thread's I/O time went: its files, the environment, pipes. */
static void time_split(const struct term *t, const struct report_stats *st,
		       const struct rs_thread *th)
{
	uint64_t wall = rs_thread_wall(st, th);
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX];

	fprintf(t->f,
		"  %s  of its wall time: %s in application files, %s in the environment, %s in "
		"pipes and sockets (e.g. batches from DataLoader workers)%s\n",
		DIM(t), human_pct(a, share(th->scope_ns[SCOPE_APP], wall)),
		human_pct(b, share(th->scope_ns[SCOPE_ENV], wall)),
		human_pct(c, share(th->scope_ns[SCOPE_OTHER], wall)), RESET(t));
}

static void time_section(const struct term *t, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	uint32_t *order;
	char label[128], name[64];

	heading(t, "Time in I/O system calls (all files)");
	fprintf(t->f, "  %s%-34s %9s %9s %9s %9s %9s %7s%s\n", DIM(t), "", "wall", "in I/O", "data",
		"metadata", "sync", "of wall", RESET(t));
	if (st->training_thread != NONE32) {
		const struct rs_thread *th = &st->threads[st->training_thread];

		if (th->comm != NONE32)
			shown(st, th->comm, name, sizeof(name), 14);
		else
			snprintf(name, sizeof(name), "pid %u", st->procs[th->proc].pid);
		snprintf(label, sizeof(label), "training thread %u (%s)", th->tid, name);
		time_row(t, label, rs_thread_wall(st, th), th->io_ns[CLS_DATA], th->io_ns[CLS_META],
			 th->io_ns[CLS_SYNC]);
		time_split(t, st, th);
	}
	order = rs_sorted(st->nprocs, key_proc_io, st);
	for (uint32_t k = 0; order && k < st->nprocs && k < TERM_ROWS; k++) {
		const struct rs_proc *p = &st->procs[order[k]];
		uint64_t cls[CLS_COUNT] = {0};

		for (int s = 0; s < SCOPE_COUNT; s++)
			for (int c = 0; c < CLS_COUNT; c++)
				cls[c] += p->io_ns[s][c];
		display_command(name, sizeof(name), rs_str(st, p->name), rs_strlen(st, p->name),
				23);
		snprintf(label, sizeof(label), "pid %-7u %s", p->pid, name);
		time_row(t, label, rs_proc_wall(st, p), cls[CLS_DATA], cls[CLS_META],
			 cls[CLS_SYNC]);
	}
	if (st->nprocs > TERM_ROWS)
		fprintf(t->f, "  %s... %u more processes%s\n", DIM(t), st->nprocs - TERM_ROWS,
			RESET(t));
	free(order);
}

static void findings(const struct term *t, const struct report_view *v)
{
	const struct findings *fi = v->fi;
	int counts[3] = {0, 0, 0};
	char title[120];

	for (int i = 0; i < fi->n; i++)
		counts[fi->items[i].severity]++;
	snprintf(title, sizeof(title), "Findings (%d high, %d warn, %d info)",
		 counts[SEVERITY_HIGH], counts[SEVERITY_WARN], counts[SEVERITY_INFO]);
	heading(t, title);
	if (!fi->n)
		fprintf(t->f, "  %sno finding: nothing in this trace matches a rule%s\n", GREEN(t),
			RESET(t));
	for (int i = 0; i < fi->n; i++) {
		const struct finding *f = &fi->items[i];
		const char *col = f->severity == SEVERITY_HIGH	 ? RED(t)
				  : f->severity == SEVERITY_WARN ? YELLOW(t)
								 : CYAN(t);

		fprintf(t->f, "  %s[%s]%s %s%s%s  %s(%s)%s\n", col,
			f->severity == SEVERITY_HIGH   ? "HIGH"
			: f->severity == SEVERITY_WARN ? "WARN"
						       : "INFO",
			RESET(t), BOLD(t), f->title, RESET(t), DIM(t), f->id, RESET(t));
		fprintf(t->f, "    %srule:%s ", DIM(t), RESET(t));
		wrapped(t, 10, 10, f->rule);
		for (int k = 0; k < f->nevidence; k++) {
			fprintf(t->f, "    - ");
			wrapped(t, 6, 6, f->evidence[k]);
		}
		fprintf(t->f, "    %s=>%s ", GREEN(t), RESET(t));
		wrapped(t, 7, 7, f->recommendation);
	}
}

static void syscall_table(const struct term *t, const struct report_stats *st)
{
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX], e[HUMAN_MAX], g[HUMAN_MAX],
	    h[HUMAN_MAX], i1[HUMAN_MAX], j[HUMAN_MAX], k1[HUMAN_MAX], l[HUMAN_MAX], m[HUMAN_MAX];

	fprintf(t->f, "  %s%-16s %9s %7s %10s | %-7s %7s %7s %7s %7s %7s | %-8s %8s %8s%s\n",
		DIM(t), "syscall", "calls", "failed", "bytes", "size:min", "p25", "median", "mean",
		"p75", "max", "lat:p50", "p99", "max", RESET(t));
	for (int k = 0; k < DL_SYS_COUNT; k++) {
		const struct rs_syscall *sc = &st->sys[SCOPE_APP][k];
		bool sized = sc->size.n > 0;

		if (!sc->calls)
			continue;
		fprintf(t->f, "  %-16s %9s %7s %10s | %7s %7s %7s %7s %7s %7s | %8s %8s %8s\n",
			syscall_info(k)->name, human_count(a, sc->calls),
			human_count(b, sc->failed), sized ? human_bytes(c, sc->bytes) : "-",
			sized ? human_bytes(d, sc->size.min) : "-",
			sized ? human_bytes(e, sketch_quantile(&sc->size, 0.25)) : "-",
			sized ? human_bytes(g, sketch_quantile(&sc->size, 0.5)) : "-",
			sized ? human_bytes(h, sc->size.sum / sc->size.n) : "-",
			sized ? human_bytes(i1, sketch_quantile(&sc->size, 0.75)) : "-",
			sized ? human_bytes(j, sc->size.max) : "-",
			human_ns(k1, sketch_quantile(&sc->lat, 0.5)),
			human_ns(l, sketch_quantile(&sc->lat, 0.99)), human_ns(m, sc->lat.max));
	}
}

static void bar(const struct term *t, uint64_t v, uint64_t max, int width)
{
	int n = max ? (int)((double)v * width / max + 0.5) : 0;

	if (v && !n)
		n = 1;
	fputs(CYAN(t), t->f);
	for (int i = 0; i < n; i++)
		fputs(t->utf8 ? "\xe2\x96\x88" : "#", t->f);
	fputs(RESET(t), t->f);
}

static void sizes(const struct term *t, const struct report_stats *st)
{
	uint64_t max = 1, size[4], count[4];
	char a[HUMAN_MAX], b[HUMAN_MAX];
	int n;

	for (int d = 0; d < 2; d++)
		for (int i = 0; i < SIZE_BINS; i++)
			if (st->hist[d][i] > max)
				max = st->hist[d][i];
	fprintf(t->f, "\n  %saccess sizes (Darshan bins)   reads      writes%s\n", DIM(t),
		RESET(t));
	for (int i = 0; i < SIZE_BINS; i++) {
		if (!st->hist[0][i] && !st->hist[1][i])
			continue;
		fprintf(t->f, "  %-28s %9s  %9s  ", rs_size_bin_names[i],
			human_count(a, st->hist[0][i]), human_count(b, st->hist[1][i]));
		bar(t, st->hist[0][i], max, 20);
		fputc('\n', t->f);
	}
	n = common_sizes(st, -1, size, count);
	if (n) {
		fprintf(t->f, "  most common sizes:");
		for (int i = 0; i < n; i++)
			fprintf(t->f, "%s %s (%s)", i ? "," : "", human_bytes(a, size[i]),
				human_count(b, count[i]));
		fputc('\n', t->f);
	}
}

/* Where the reads, writes and syncs above came from, when not all from syscalls. */
static void origins(const struct term *t, const struct report_stats *st)
{
	static const char *const names[ORG_COUNT] = {"syscalls", "io_uring", "AIO",
						     "mmap page faults"};
	char b1[HUMAN_MAX], b2[HUMAN_MAX], b3[HUMAN_MAX], b4[HUMAN_MAX], b5[HUMAN_MAX];
	const struct rs_origin *g;

	for (int i = 1; i < ORG_COUNT; i++) {
		g = &st->origin[i];
		if (g->reads || g->writes || g->syncs)
			break;
		if (i == ORG_COUNT - 1)
			return;
	}
	for (int i = 0; i < ORG_COUNT; i++) {
		g = &st->origin[i];
		if (!g->reads && !g->writes && !g->syncs)
			continue;
		fprintf(t->f, "  from %s: %s reads (%s), %s writes (%s), %s syncs\n", names[i],
			human_count(b1, g->reads), human_bytes(b2, g->bytes_read),
			human_count(b3, g->writes), human_bytes(b4, g->bytes_written),
			human_count(b5, g->syncs));
	}
}

static void application(const struct term *t, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	const struct rs_totals *a = &st->tot[SCOPE_APP];
	char b1[HUMAN_MAX], b2[HUMAN_MAX], b3[HUMAN_MAX], b4[HUMAN_MAX], b5[HUMAN_MAX],
	    b6[HUMAN_MAX];

	heading(t, "Application I/O (environment and pipes excluded)");
	if (!a->calls && !a->reads && !a->writes && !a->syncs) {
		fprintf(t->f, "  no system call on application files\n");
		return;
	}
	fprintf(t->f, "  reads  %s, %s: %s sequential, %s consecutive, %s random, %s small\n",
		human_count(b1, a->reads), human_bytes(b2, a->bytes_read),
		human_count(b3, a->seq_reads), human_count(b4, a->consec_reads),
		human_count(b5, a->random_reads), human_count(b6, a->small_reads));
	fprintf(t->f, "  writes %s, %s: %s sequential, %s consecutive, %s random, %s small\n",
		human_count(b1, a->writes), human_bytes(b2, a->bytes_written),
		human_count(b3, a->seq_writes), human_count(b4, a->consec_writes),
		human_count(b5, a->random_writes), human_count(b6, a->small_writes));
	fprintf(t->f, "  %s seeks, %s read/write switches, %s opens, %s stats, %s syncs, %s mmaps",
		human_count(b1, a->seeks), human_count(b2, a->rw_switches),
		human_count(b3, a->opens), human_count(b4, a->stats), human_count(b5, a->syncs),
		human_count(b6, a->mmaps));
	fprintf(t->f, ", %s hints\n", human_count(b1, a->hints));
	origins(t, st);
	fprintf(t->f, "\n");
	syscall_table(t, st);
	sizes(t, st);
}

static void files(const struct term *t, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	uint32_t *order = rs_sorted(st->nfiles, key_file_bytes, st), count = 0;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX], e[HUMAN_MAX], name[400];

	for (uint32_t i = 0; i < st->nfiles; i++)
		count += st->files[i].scope == SCOPE_APP;
	heading(t, "Files");
	if (!count) {
		fprintf(t->f, "  no application file\n");
		free(order);
		return;
	}
	fprintf(t->f,
		"  %s application files: %s read (%s once, %s re-read), %s written; data read "
		"spans %s\n",
		human_count(a, count), human_count(b, st->files_read),
		human_count(c, st->files_read_once), human_count(d, st->files_reread),
		human_count(e, st->files_written), human_bytes(name, st->dataset_bytes));
	fprintf(t->f,
		"  redundant reads: %s read again within an open, %s read at the same time by "
		"several processes\n",
		human_bytes(a, st->redundant_in_open), human_bytes(b, st->concurrent_dup));
	fprintf(t->f, "  file sizes:");
	for (int i = 0; i < SIZE_BINS; i++)
		if (st->size_bins_files[i])
			fprintf(t->f, " %s: %u", rs_size_bin_names[i], st->size_bins_files[i]);
	fprintf(t->f, "\n\n  %s%-44s %9s %9s %7s %7s %5s %5s %6s %6s%s\n", DIM(t), "file", "read",
		"written", "reads", "writes", "opens", "procs", "seq%", "passes", RESET(t));
	for (uint32_t k = 0; order && k < st->nfiles && k < TERM_ROWS; k++) {
		const struct rs_file *f = &st->files[order[k]];

		if (f->scope != SCOPE_APP)
			break;
		fprintf(t->f, "  %-44s %9s %9s %7s %7s %5llu %5u %6s %6.2f\n",
			shown(st, f->name, name, sizeof(name), 44), human_bytes(a, f->bytes_read),
			human_bytes(b, f->bytes_written), human_count(c, f->reads),
			human_count(d, f->writes), (unsigned long long)f->opens, f->procs,
			human_pct(e, share(f->seq_reads + f->seq_writes, f->reads + f->writes)),
			f->passes);
	}
	free(order);

	order = rs_sorted(st->ndirs, key_dir_bytes, st);
	fprintf(t->f, "\n  %s%-44s %7s %9s %9s %9s %9s%s\n", DIM(t), "directory", "files", "read",
		"written", "metadata", "I/O time", RESET(t));
	for (uint32_t k = 0; order && k < st->ndirs && k < TERM_ROWS; k++) {
		const struct rs_dir *d = &st->dirs[order[k]];

		if (d->scope != SCOPE_APP)
			break;
		fprintf(t->f, "  %-44s %7u %9s %9s %9s %9s\n",
			shown(st, d->name, name, sizeof(name), 44), d->files,
			human_bytes(a, d->bytes_read), human_bytes(b, d->bytes_written),
			human_count(c, d->meta_ops), human_ns(e, d->io_ns));
	}
	free(order);

	order = rs_sorted(st->nmounts, key_mount_bytes, st);
	fprintf(t->f, "\n  %s%-10s %-10s %-30s %7s %9s %9s %9s%s\n", DIM(t), "device", "fs",
		"files under", "files", "read", "written", "I/O time", RESET(t));
	for (uint32_t k = 0; order && k < st->nmounts && k < TERM_ROWS; k++) {
		const struct rs_mount *m = &st->mounts[order[k]];
		char dev[32], fs[32];

		fprintf(t->f, "  %-10s %-10s %-30s %7u %9s %9s %9s\n",
			shown(st, m->dev, dev, sizeof(dev), 10),
			shown(st, m->fs, fs, sizeof(fs), 10),
			shown(st, m->prefix, name, sizeof(name), 30), m->files,
			human_bytes(a, m->bytes_read), human_bytes(b, m->bytes_written),
			human_ns(c, m->io_ns));
	}
	free(order);
}

/* Per node, and how far the nodes are apart. */
static void hosts(const struct term *t, const struct report_stats *st)
{
	const struct rs_spread *s = &st->host_spread;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX], e[HUMAN_MAX], f1[HUMAN_MAX],
	    name[64], other[64];

	uint32_t *procs = malloc((st->nprocs ? st->nprocs : 1) * sizeof(*procs));

	for (uint32_t h = 0; h < st->nhosts && h < TERM_ROWS; h++) {
		const struct rs_host *x = &st->hosts[h];
		char ranks[160] = "";
		uint32_t n = 0;

		/* the ranks each node ran, where the processes had them */
		for (uint32_t i = 0; procs && i < st->nprocs; i++)
			if (st->host_of_trace[st->procs[i].trace] == h && st->procs[i].threads)
				procs[n++] = i;
		if (procs && n)
			rank_set(st, procs, n, ranks, sizeof(ranks));
		fprintf(t->f,
			"  host %s%s%s%s: read %s, wrote %s, %s in application I/O, wall %s; %u "
			"processes, "
			"%s calls, %s events, %s lost\n",
			shown(st, x->hostname, name, sizeof(name), 30), ranks[0] ? " (" : "", ranks,
			ranks[0] ? ")" : "", human_bytes(a, x->bytes_read),
			human_bytes(b, x->bytes_written), human_ns(c, x->io_ns),
			human_ns(d, x->last_ns - x->first_ns), x->procs, human_count(e, x->calls),
			human_count(f1, x->events), human_count(other, x->lost_events));
	}
	if (st->nhosts > TERM_ROWS)
		fprintf(t->f, "  %s... %u more hosts%s\n", DIM(t), st->nhosts - TERM_ROWS,
			RESET(t));
	fprintf(t->f,
		"  across %u hosts: bytes %s..%s (%s apart), I/O time %s..%s (%s apart); "
		"slowest host %s",
		st->nhosts, human_bytes(a, s->bytes_min), human_bytes(b, s->bytes_max),
		human_pct(c, s->bytes_imbalance), human_ns(d, s->io_min), human_ns(e, s->io_max),
		human_pct(f1, s->time_imbalance),
		shown(st, st->hosts[s->slowest].hostname, name, sizeof(name), 30));
	fprintf(t->f, ", fastest host %s\n",
		shown(st, st->hosts[s->fastest].hostname, other, sizeof(other), 30));
	free(procs);
}

static void balance(const struct term *t, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX], e[HUMAN_MAX], f1[HUMAN_MAX],
	    name[64];

	if (st->nhosts > 1) {
		heading(t, "Balance across hosts");
		hosts(t, st);
	}
	if (st->ngroups)
		heading(t, "Balance across processes (same parent and command)");
	for (uint32_t g = 0; g < st->ngroups && g < TERM_ROWS; g++) {
		const struct rs_group *x = &st->groups[g];
		char ranks[128], w1[64], w2[64];
		bool ranked;

		display_command(name, sizeof(name), rs_str(st, x->name), rs_strlen(st, x->name),
				30);
		rank_set(st, st->group_members + x->first, x->members, ranks, sizeof(ranks));
		ranked = ranks[0] != '\0';
		fprintf(t->f,
			"  %u x %s%s%s%s: bytes %s..%s (%s apart), I/O time %s..%s (%s apart); "
			"slowest %s, fastest %s\n",
			x->members, name, ranked ? " (" : "", ranks, ranked ? ")" : "",
			human_bytes(a, x->spread.bytes_min), human_bytes(b, x->spread.bytes_max),
			human_pct(c, x->spread.bytes_imbalance), human_ns(d, x->spread.io_min),
			human_ns(e, x->spread.io_max), human_pct(f1, x->spread.time_imbalance),
			proc_who(st, x->spread.slowest, ranked, w1, sizeof(w1)),
			proc_who(st, x->spread.fastest, ranked, w2, sizeof(w2)));
		if (ranked && x->spread.bytes_min && x->spread.bytes_max > x->spread.bytes_min)
			fprintf(t->f, "    %s moved %s more bytes than %s\n",
				proc_who(st, x->spread.most, true, w1, sizeof(w1)),
				human_pct(a, (double)(x->spread.bytes_max - x->spread.bytes_min) /
						 (double)x->spread.bytes_min),
				proc_who(st, x->spread.least, true, w2, sizeof(w2)));
	}
}

static void sparkline(const struct term *t, const uint64_t *bins, uint32_t n)
{
	static const char *const blocks[] = {" ",
					     "\xe2\x96\x81",
					     "\xe2\x96\x82",
					     "\xe2\x96\x83",
					     "\xe2\x96\x84",
					     "\xe2\x96\x85",
					     "\xe2\x96\x86",
					     "\xe2\x96\x87",
					     "\xe2\x96\x88"};
	static const char ascii[] = " .:-=+*#@";
	uint64_t max = 0;
	uint32_t step = (n + 63) / 64;

	if (!step)
		step = 1;
	for (uint32_t i = 0; i < n; i += step) {
		uint64_t s = 0;

		for (uint32_t k = i; k < i + step && k < n; k++)
			s += bins[k];
		if (s > max)
			max = s;
	}
	fputs(CYAN(t), t->f);
	for (uint32_t i = 0; i < n; i += step) {
		uint64_t s = 0;
		int level;

		for (uint32_t k = i; k < i + step && k < n; k++)
			s += bins[k];
		level = max ? (int)((double)s * 8 / max + 0.999) : 0;
		if (level > 8)
			level = 8;
		if (t->utf8)
			fputs(blocks[level], t->f);
		else
			fputc(ascii[level], t->f);
	}
	fputs(RESET(t), t->f);
}

static void timeline(const struct term *t, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	uint32_t first, n;
	uint64_t peak_r = 0, peak_w = 0;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX], name[200];
	int shown_n = 0;

	rs_timeline_range(st, &first, &n);
	for (uint32_t i = first; i < first + n; i++) {
		if (st->tl_read[i] > peak_r)
			peak_r = st->tl_read[i];
		if (st->tl_write[i] > peak_w)
			peak_w = st->tl_write[i];
	}
	heading(t, "Timeline (application bytes)");
	fprintf(t->f, "  read  |");
	sparkline(t, st->tl_read + first, n);
	fprintf(t->f, "| peak %s/s\n", human_bytes(a, clamp_u64(peak_r * 1e9 / st->tl_width)));
	fprintf(t->f, "  write |");
	sparkline(t, st->tl_write + first, n);
	fprintf(t->f, "| peak %s/s\n", human_bytes(a, clamp_u64(peak_w * 1e9 / st->tl_width)));
	fprintf(t->f, "  %sfrom the job's first event, 0 .. %s, %s per column%s\n", DIM(t),
		human_ns(a, st->wall_ns), human_ns(b, st->tl_width * ((n + 63) / 64)), RESET(t));
	fprintf(t->f,
		"  write bursts (>= 1 MiB, writes < 1 s apart): %llu, %s, writers blocked %s\n",
		(unsigned long long)st->bursts, human_bytes(a, st->burst_bytes),
		human_ns(b, st->burst_blocked_ns));
	for (uint32_t k = 0; k < st->nbursts_kept && shown_n < 5; k++, shown_n++) {
		const struct rs_burst *bu = &st->top_bursts[k];
		const struct rs_thread *th = &st->threads[bu->thread];

		fprintf(t->f, "    at %-9s tid %-7u %s%-9s in %-9s blocked %-9s %s\n",
			human_ns(a, rs_since_job(st, bu->start_ns)), th->tid,
			bu->thread == st->training_thread ? "(training) " : "",
			human_bytes(b, bu->bytes), human_ns(c, bu->end_ns - bu->start_ns),
			human_ns(d, bu->blocked_ns),
			bu->file != NONE32
			    ? shown(st, st->files[bu->file].name, name, sizeof(name), 50)
			    : "");
	}
}

static void environment(const struct term *t, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	const struct rs_totals *e = &st->tot[SCOPE_ENV], *o = &st->tot[SCOPE_OTHER];
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX];

	heading(t, "Environment I/O (reported apart: imports, libraries, /proc, /sys, /dev)");
	fprintf(t->f, "  %s calls (%s failed), %s read, %s in I/O\n", human_count(a, e->calls),
		human_count(b, e->failed), human_bytes(c, e->bytes_read),
		human_ns(d, e->io_ns[0] + e->io_ns[1] + e->io_ns[2]));
	for (int k = 1; k < ENV_COUNT; k++) {
		const struct rs_env_kind *x = &st->env[k];

		if (!x->calls)
			continue;
		fprintf(t->f, "    %-10s %9s calls %8s failed %6u files %10s read %10s\n",
			env_kind_name(k), human_count(a, x->calls), human_count(b, x->failed),
			x->files, human_bytes(c, x->bytes_read), human_ns(d, x->io_ns));
	}
	fprintf(t->f, "  pipes, sockets, unnamed, shared memory: %s calls, %s read, %s written\n",
		human_count(a, o->calls), human_bytes(b, o->bytes_read),
		human_bytes(c, o->bytes_written));
	if (st->shm.calls)
		fprintf(t->f,
			"    of them shared memory (segments in /dev/shm, SysV, memfd): %s calls, "
			"%s read, %s written\n",
			human_count(a, st->shm.calls), human_bytes(b, st->shm.bytes_read),
			human_bytes(c, st->shm.bytes_written));
	if (st->nerrnos) {
		fprintf(t->f, "  errors:");
		for (uint32_t i = 0; i < st->nerrnos && i < 8; i++)
			fprintf(t->f, " %s %s", st->errnos[i].name,
				human_count(a, st->errnos[i].count[0] + st->errnos[i].count[1] +
						   st->errnos[i].count[2]));
		fputc('\n', t->f);
	}
}

/* The page cache's hit ratio, overall and for the files with the most misses. */
static void cache_misses(const struct term *t, const struct report_stats *st)
{
	const struct rs_layers *l = &st->layers;
	double hit = rs_cache_hit_ratio(l->cache_miss[SCOPE_APP], l->cache_read_bytes[SCOPE_APP]);
	uint32_t *order;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], name[400];

	if (hit < 0) {
		fprintf(t->f, "  page cache: no application file was read\n");
		return;
	}
	fprintf(t->f,
		"  page cache: hit ratio %s; %s of the %s read from application files came "
		"from storage (misses, readahead included)\n",
		human_pct(a, hit), human_bytes(b, l->cache_miss[SCOPE_APP]),
		human_bytes(c, l->cache_read_bytes[SCOPE_APP]));
	order = rs_sorted(st->nfiles, key_file_cache_miss, st);
	for (uint32_t k = 0; order && k < st->nfiles && k < TERM_ROWS; k++) {
		const struct rs_file *f = &st->files[order[k]];

		if (f->scope != SCOPE_APP || !f->cache_miss)
			break;
		if (!k)
			fprintf(t->f, "  %s%-44s %9s %12s %9s%s\n", DIM(t), "file", "read",
				"from storage", "hit ratio", RESET(t));
		fprintf(t->f, "  %-44s %9s %12s %9s\n", shown(st, f->name, name, sizeof(name), 44),
			human_bytes(a, f->cache_read_bytes), human_bytes(b, f->cache_miss),
			human_pct(c, rs_cache_hit_ratio(f->cache_miss, f->cache_read_bytes)));
	}
	free(order);
}

static void layers(const struct term *t, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	const struct rs_layers *l = &st->layers;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX], e[HUMAN_MAX], g[HUMAN_MAX];

	if (l->active == NONE32 || !strcmp(rs_str(st, l->active), "syscall"))
		return;
	heading(t, "Other capture layers");
	fprintf(t->f, "  layers traced: %s\n", rs_str(st, l->active));
	fprintf(t->f,
		"  page faults on mapped files: %s on application files, %s on the environment\n",
		human_count(a, l->faults[SCOPE_APP]), human_count(b, l->faults[SCOPE_ENV]));
	if (l->cache_reads)
		cache_misses(t, st);
	if (l->block_requests[0] + l->block_requests[1] + l->block_requests[2])
		fprintf(t->f,
			"  block devices: %s reads (%s), %s writes (%s); latency p50 %s, p99 %s\n",
			human_count(a, l->block_requests[0]), human_bytes(b, l->block_bytes[0]),
			human_count(c, l->block_requests[1]), human_bytes(d, l->block_bytes[1]),
			human_ns(e, sketch_quantile(&l->block_lat, 0.5)),
			human_ns(g, sketch_quantile(&l->block_lat, 0.99)));
	if (l->uring_requests)
		fprintf(
		    t->f,
		    "  io_uring requests: %s (their reads, writes and syncs are in the figures)\n",
		    human_count(a, l->uring_requests));
	if (l->aio_requests)
		fprintf(t->f,
			"  AIO requests: %s (their reads, writes and syncs are in the figures)\n",
			human_count(a, l->aio_requests));
}

/* ---- levels above the syscalls, and phases ---- */

static void level_amplification(const struct term *t, const char *what,
				const struct rs_level_dir *d)
{
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], e[HUMAN_MAX], g[HUMAN_MAX],
	    r[64] = "", ask[2 * HUMAN_MAX + 16] = "";
	bool known = d->calls && d->requested_calls == d->calls;

	if (!d->calls)
		return;
	if (known && d->requested)
		snprintf(r, sizeof(r), " (%s the bytes asked)",
			 human_ratio(g, (double)d->sys_bytes / (double)d->requested));
	if (known) /* exact bytes: what a program's own count can be checked against */
		snprintf(ask, sizeof(ask), " asking %s bytes (%s)", human_count(g, d->requested),
			 human_bytes(b, d->requested));
	fprintf(t->f, "    %s: %s calls%s%s -> %s %s syscalls (%.2f per call) that %s %s%s\n", what,
		human_count(a, d->calls), ask, known ? "" : " (bytes asked not known)",
		human_count(c, d->syscalls), strcmp(what, "reads") ? "write" : "read",
		(double)d->syscalls / (double)d->calls, strcmp(what, "reads") ? "wrote" : "read",
		human_bytes(e, d->sys_bytes), r);
}

/* Bytes asked on one side of an object (exact), "unknown" unless every call's is known. */
static const char *asked(char *buf, const struct rs_level_side *sd)
{
	if (sd->asked_calls != sd->calls)
		return strcpy(buf, "unknown");
	return human_count(buf, sd->asked);
}

/* A side's selection kinds and most common sizes asked, on one line. */
static void obj_detail(const struct term *t, const struct rs_level_side *o)
{
	char line[512], a[HUMAN_MAX], b[HUMAN_MAX];
	uint32_t top[4], n = rs_level_top_sizes(o, top, 4);
	size_t k = 0;

	for (int i = 0; i < LV_SEL_COUNT; i++)
		if (o->sel_calls[i])
			k += snprintf(line + k, sizeof(line) - k, "%s%s %s (%s)",
				      k ? ", " : "selections: ", rs_sel_names[i],
				      human_count(a, o->sel_calls[i]),
				      human_bytes(b, o->sel_bytes[i]));
	for (uint32_t i = 0; i < n && k < sizeof(line); i++)
		k += snprintf(line + k, sizeof(line) - k, "%s%s x %s",
			      i	  ? ", "
			      : k ? "; sizes asked: "
				  : "sizes asked: ",
			      human_bytes(a, o->sizes[top[i]].key),
			      human_count(b, o->sizes[top[i]].count));
	if (o->sizes_other && k < sizeof(line))
		snprintf(line + k, sizeof(line) - k, ", %s calls of other sizes",
			 human_count(a, o->sizes_other));
	if (k)
		fprintf(t->f, "      %s%s%s\n", DIM(t), line, RESET(t));
}

/*
 * Per HDF5 dataset and per file: the bytes asked against what the
 * syscalls the calls enclosed read, and what storage gave the page cache.
 */
static void level_objects(const struct term *t, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	const struct rs_levels *lv = &st->levels;
	uint32_t *order = rs_sorted(lv->nobjs, key_level_obj, st), shown_n = 0, writes = 0;
	char name[1024], nm[80], a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX],
	    e[HUMAN_MAX], g[HUMAN_MAX];

	if (!order || !lv->nobjs) {
		free(order);
		return;
	}
	fprintf(t->f,
		"    %sreads per dataset and file: bytes asked, bytes the read syscalls they "
		"enclose read, bytes storage gave the page cache%s\n",
		DIM(t), RESET(t));
	fprintf(t->f, "    %s%-6s %-40s %8s %7s %13s %13s %10s %10s%s\n", DIM(t), "level",
		"dataset or file", "reads", "opens", "bytes asked", "bytes read", "x asked",
		"storage", RESET(t));
	/* datasets and stdio/MPI-IO files first, then the HDF5 files' rows (their sums) */
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t k = 0; k < lv->nobjs && shown_n < v->top; k++) {
			const struct rs_level_obj *o = &lv->objs[order[k]];

			if ((o->level == DL_LAYER_HDF5 && o->object == NONE32) != (pass == 1))
				continue;
			writes += o->wr.calls > 0;
			if (!o->rd.calls)
				continue;
			rs_level_obj_name(st, o, name, sizeof(name));
			fprintf(t->f, "    %-6s %-40s %8s %7s %13s %13s %10s %10s\n",
				rs_level_names[o->level],
				display_text(nm, sizeof(nm), name, strlen(name), 40),
				human_count(a, o->rd.calls), human_count(b, o->opens),
				asked(c, &o->rd), human_count(d, o->rd.sys_bytes),
				human_ratio(e, rs_level_ratio(&o->rd)),
				o->rd.cache_reads ? human_bytes(g, o->rd.cache_miss) : "unknown");
			obj_detail(t, &o->rd);
			shown_n++;
		}
	if (writes) {
		fprintf(t->f,
			"    %swrites per dataset and file: bytes asked, bytes the write "
			"syscalls of the writes, flushes and closes wrote%s\n",
			DIM(t), RESET(t));
		fprintf(t->f, "    %s%-6s %-40s %8s %7s %13s %13s %10s%s\n", DIM(t), "level",
			"dataset or file", "writes", "", "bytes asked", "written", "x asked",
			RESET(t));
		shown_n = 0;
		for (uint32_t k = 0; k < lv->nobjs && shown_n < v->top; k++) {
			const struct rs_level_obj *o = &lv->objs[order[k]];

			if (!o->wr.calls)
				continue;
			rs_level_obj_name(st, o, name, sizeof(name));
			fprintf(t->f, "    %-6s %-40s %8s %7s %13s %13s %10s\n",
				rs_level_names[o->level],
				display_text(nm, sizeof(nm), name, strlen(name), 40),
				human_count(a, o->wr.calls), "", asked(c, &o->wr),
				human_count(d, o->wr.sys_bytes),
				human_ratio(e, rs_level_ratio(&o->wr)));
			obj_detail(t, &o->wr);
			shown_n++;
		}
	}
	free(order);
}

/* A function's bytes asked: "-" for calls that ask none, "unknown" unless all are known. */
static const char *fn_asked(const struct rs_level_fn *f, char *buf)
{
	if (f->dir != LV_DIR_READ && f->dir != LV_DIR_WRITE && !f->requested_calls)
		return "-";
	if (f->requested_calls != f->calls)
		return strcpy(buf, "unknown");
	return human_bytes(buf, f->bytes_requested);
}

static void levels(const struct term *t, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	const struct rs_levels *lv = &st->levels;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX], e[HUMAN_MAX], g[HUMAN_MAX],
	    h[HUMAN_MAX], i1[HUMAN_MAX], j[HUMAN_MAX], k1[HUMAN_MAX];

	struct rs_layer_hint hint[2];
	bool hints = rs_layer_hint(st, DL_LAYER_HDF5, &hint[0]) |
		     rs_layer_hint(st, DL_LAYER_MPIIO, &hint[1]);

	if (!lv->calls[DL_LAYER_STDIO] && !lv->calls[DL_LAYER_HDF5] && !lv->calls[DL_LAYER_MPIIO] &&
	    !hints)
		return;
	heading(t, "Library calls (the levels above the syscalls)");
	for (int i = 0; i < 2; i++) {
		const struct rs_layer_hint *h = &hint[i];
		char lib[200];

		if (!h->layer)
			continue;
		fprintf(t->f,
			"  %s%s layer off%s: %s was loaded by %s process%s; --layers +%s would "
			"show %s calls",
			BOLD(t), h->layer, RESET(t), shown(st, h->library, lib, sizeof(lib), 80),
			human_count(a, h->procs), h->procs == 1 ? "" : "es", h->layer,
			i == 0 ? "its HDF5" : "their MPI-IO");
		if (i == 0)
			fprintf(t->f, " and explain the %s reads (%s) of %s .h5 file%s\n",
				human_count(b, h->reads), human_bytes(c, h->bytes),
				human_count(d, h->files), h->files == 1 ? "" : "s");
		else
			fprintf(t->f, " behind their %s reads (%s) of application files\n",
				human_count(b, h->reads), human_bytes(c, h->bytes));
	}
	for (int l = DL_LAYER_STDIO; l < DL_LEVEL_COUNT; l++) {
		struct rs_level_dir rd, wr;

		if (!lv->calls[l])
			continue;
		fprintf(t->f, "  %s%s%s: %s call%s, %s\n", BOLD(t), rs_level_names[l], RESET(t),
			human_count(a, lv->calls[l]), lv->calls[l] == 1 ? "" : "s",
			human_ns(b, lv->time_ns[l]));
		fprintf(t->f, "    %s%-22s %9s %6s %10s | %-8s %8s %8s | %10s %9s %10s %10s%s\n",
			DIM(t), "function", "calls", "failed", "time", "lat:p50", "p99", "max",
			"bytes asked", "syscalls", "read", "written", RESET(t));
		for (uint32_t i = 0; i < lv->nfn; i++) {
			const struct rs_level_fn *f = &lv->fn[i];
			char name[64];

			if (f->level != l)
				continue;
			fprintf(t->f, "    %-22s %9s %6s %10s | %8s %8s %8s | %10s %9s %10s %10s\n",
				shown(st, f->name, name, sizeof(name), 22),
				human_count(a, f->calls), human_count(b, f->failed),
				human_ns(c, f->time_ns), human_ns(d, sketch_quantile(&f->lat, 0.5)),
				human_ns(e, sketch_quantile(&f->lat, 0.99)),
				human_ns(g, f->lat.max), fn_asked(f, h),
				human_count(i1, f->syscalls), human_bytes(j, f->sys_read_bytes),
				human_bytes(k1, f->sys_write_bytes));
		}
		rs_level_dirs(st, l, &rd, &wr);
		level_amplification(t, "reads", &rd);
		level_amplification(t, "writes", &wr);
	}
	level_objects(t, v);
}

static void loop(const struct term *t, const struct report_stats *st, uint32_t oi)
{
	const struct rs_phases *ph = &st->phases;
	const struct rs_owner *o = &ph->owners[oi];
	const struct rs_thread *th = &st->threads[o->thread];
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX], e[HUMAN_MAX], g[HUMAN_MAX],
	    h[HUMAN_MAX], name[64], label[64];
	struct rs_stall_bar bars[64];
	uint64_t shares[64] = {0};
	uint32_t nbars;

	fprintf(
	    t->f,
	    "  training loop: thread %u (pid %u%s%s): %u step%s, %u epoch%s; batch waits from %s\n",
	    th->tid, st->procs[th->proc].pid, th->comm != NONE32 ? ", " : "",
	    th->comm != NONE32 ? shown(st, th->comm, name, sizeof(name), 16) : "", o->steps,
	    o->steps == 1 ? "" : "s", o->epochs, o->epochs == 1 ? "" : "s",
	    o->fetch_seen ? "fetch regions" : "reads of pipes and sockets (no fetch regions)");
	if (o->steps) {
		fprintf(
		    t->f,
		    "    iteration (fetch + step): median %s, p99 %s, worst %s (%s); step alone: "
		    "median %s, p99 %s\n",
		    human_ns(a, o->sum.iter_p50), human_ns(b, o->sum.iter_p99),
		    human_ns(c, o->sum.iter_max),
		    o->sum.worst != NONE32
			? rs_step_label(st, &ph->steps[o->sum.worst], label, sizeof(label))
			: "-",
		    human_ns(d, o->sum.step_p50), human_ns(e, o->sum.step_p99));
		fprintf(t->f,
			"    data stall: %s of %s (%s); per step median %s (%s), p99 %s (%s)\n",
			human_ns(a, o->sum.stall_ns), human_ns(b, o->sum.iter_ns),
			human_pct(c, share(o->sum.stall_ns, o->sum.iter_ns)),
			human_ns(d, o->sum.stall_p50), human_pct(e, o->sum.share_p50),
			human_ns(g, o->sum.stall_p99), human_pct(h, o->sum.share_p99));
		fprintf(t->f,
			"    I/O per iteration (the job's, by start): read median %s, p99 %s, max "
			"%s; in all %s read, %s written\n",
			human_bytes(a, o->sum.read_p50), human_bytes(b, o->sum.read_p99),
			human_bytes(c, o->sum.read_max), human_bytes(d, o->sum.bytes_read),
			human_bytes(e, o->sum.bytes_written));
		nbars = rs_stall_bars(st, oi, bars, 64);
		for (uint32_t k = 0; k < nbars; k++)
			shares[k] = bars[k].iter_ns ? bars[k].stall_ns * 1000 / bars[k].iter_ns : 0;
		fprintf(t->f, "    stall share per step |");
		sparkline(t, shares, nbars);
		fprintf(t->f, "| %u step%s per column\n", nbars ? bars[0].steps : 0,
			nbars && bars[0].steps == 1 ? "" : "s");
	}
	if (o->epochs) {
		fprintf(t->f, "    %s%6s %6s %10s %10s %6s %10s %10s %10s %10s%s\n", DIM(t),
			"epoch", "steps", "time", "stall", "share", "read", "written", "I/O time",
			"worst step", RESET(t));
		for (uint32_t k = 0; k < ph->nepochs; k++) {
			const struct rs_epoch *ep = &ph->epochs[k];
			char idx[24];

			if (ep->owner != oi)
				continue;
			snprintf(idx, sizeof(idx), "%lld", (long long)ep->index);
			fprintf(
			    t->f, "    %6s %6u %10s %10s %6s %10s %10s %10s %10s\n", idx, ep->steps,
			    human_ns(a, ep->end - ep->start), human_ns(b, ep->stall_ns),
			    human_pct(c, share(ep->stall_ns, ep->iter_ns)),
			    human_bytes(d, ep->io.bytes_read), human_bytes(e, ep->io.bytes_written),
			    human_ns(g, ep->io.io_ns), human_ns(h, ep->step_max_ns));
		}
	}
	uint32_t order[SLOW_KEEP];

	rs_slow_order(st, o, order);
	for (uint32_t k = 0; k < o->nslow && k < 3; k++) {
		const struct rs_slow *sl = &o->slow[order[k]];
		const struct rs_step *s = &ph->steps[sl->step];
		uint32_t top = NONE32;

		for (uint32_t i = 0; i < sl->nfiles; i++)
			if (top == NONE32 || sl->files[i].io_ns > sl->files[top].io_ns)
				top = i;
		fprintf(t->f, "    %s %s: %s, %s waiting",
			k ? "        " : "slowest:", rs_step_label(st, s, label, sizeof(label)),
			human_ns(a, rs_step_iter_ns(s)), human_pct(b, rs_step_stall_share(s)));
		for (int l = 0; l < DL_LEVEL_COUNT; l++)
			if (rs_is_level(l) && s->io.level_ns[l])
				fprintf(t->f, "; %s %s", rs_level_names[l],
					human_ns(c, s->io.level_ns[l]));
		if (top != NONE32) {
			char fn[80];

			fprintf(t->f, "; most: %s (%s, %s)",
				shown(st, st->files[sl->files[top].file].name, fn, sizeof(fn), 40),
				human_bytes(d, sl->files[top].bytes),
				human_ns(e, sl->files[top].io_ns));
		}
		fputc('\n', t->f);
	}
}

static void phases(const struct term *t, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	const struct rs_phases *ph = &st->phases;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX], e[HUMAN_MAX], name[64];
	uint32_t n, *order;

	if (!ph->nregions && !ph->instants && !ph->counters)
		return;
	heading(t, "Phases (dltrace markers)");
	fprintf(t->f, "  %s%-20s %9s %10s %10s %10s %10s%s\n", DIM(t), "region", "count", "time",
		"p50", "p99", "max", RESET(t));
	for (uint32_t k = 0; k < ph->nregions; k++) {
		const struct rs_region *r = &ph->regions[k];

		fprintf(t->f, "  %-20s %9s %10s %10s %10s %10s\n",
			shown(st, r->name, name, sizeof(name), 20), human_count(a, r->count),
			human_ns(b, r->time_ns), human_ns(c, sketch_quantile(&r->dur, 0.5)),
			human_ns(d, sketch_quantile(&r->dur, 0.99)), human_ns(e, r->dur.max));
	}
	if (ph->instants || ph->counters)
		fprintf(t->f, "  %s instants, %s counter values\n", human_count(a, ph->instants),
			human_count(b, ph->counters));
	order = rs_phase_owners(st, &n);
	for (uint32_t k = 0; order && k < n && k < TERM_ROWS; k++)
		loop(t, st, order[k]);
	free(order);
}

/* A location's text in at most cols columns: its end (line and function) is kept. */
static const char *py_shown(const struct report_stats *st, uint32_t id, char *buf, size_t size,
			    size_t cols)
{
	const char *s = rs_str(st, id);
	size_t len = rs_strlen(st, id);

	if (len <= cols)
		return display_text(buf, size, s, len, cols);
	s += len - (cols - 3);
	while ((*s & 0xc0) == 0x80) /* not inside a UTF-8 character */
		s++;
	buf[0] = buf[1] = buf[2] = '.';
	display_text(buf + 3, size - 3, s, strlen(s), cols - 3);
	return buf;
}

static void python_locations(const struct term *t, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	const struct rs_python *py = &st->python;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX], e[HUMAN_MAX], g[HUMAN_MAX],
	    loc[256];
	uint32_t *order;

	if (!py->n)
		return;
	heading(t, "Python locations (--python-stacks: the application's line behind the calls)");
	fprintf(t->f, "  %s syscall%s with a Python location, %s, at %s location%s\n",
		human_count(a, py->calls), py->calls == 1 ? "" : "s", human_ns(b, py->io_ns),
		human_count(c, py->n), py->n == 1 ? "" : "s");
	fprintf(t->f, "    %s%-52s %9s %6s %10s %10s %10s%s\n", DIM(t), "file:line function",
		"calls", "failed", "read", "written", "time", RESET(t));
	order = rs_sorted(py->n, key_py_loc, st);
	for (uint32_t k = 0; order && k < py->n && k < v->top; k++) {
		const struct rs_py_loc *l = &py->locs[order[k]];

		fprintf(t->f, "    %-52s %9s %6s %10s %10s %10s\n",
			py_shown(st, l->loc, loc, sizeof(loc), 52), human_count(a, l->calls),
			human_count(b, l->failed), human_bytes(c, l->read_bytes),
			human_bytes(d, l->write_bytes), human_ns(e, l->io_ns));
	}
	if (py->n > v->top)
		fprintf(t->f, "    %s(%s more)%s\n", DIM(t), human_count(g, py->n - v->top),
			RESET(t));
	free(order);
}

void report_terminal(FILE *out, const struct report_view *v)
{
	const char *cs = nl_langinfo(CODESET);
	struct term t = {out, v->color, cs && !strcmp(cs, "UTF-8"), 100};
	struct winsize ws;

	if (isatty(fileno(out)) && !ioctl(fileno(out), TIOCGWINSZ, &ws) && ws.ws_col >= 60)
		t.width = ws.ws_col < 160 ? ws.ws_col : 160;

	header(&t, v);
	findings(&t, v);
	time_section(&t, v);
	application(&t, v);
	files(&t, v);
	balance(&t, v);
	timeline(&t, v);
	environment(&t, v);
	layers(&t, v);
	levels(&t, v);
	python_locations(&t, v);
	phases(&t, v);
	report_gpu_terminal(t.f, v->st, v->top, t.color); /* with a profiler trace (report_gpu.c) */
}
