// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Replayed against recorded (replay_report.h).  Both sides add up the same
 * calls: those the replay issued.  An op that never ran (Ctrl-C) counts on
 * neither side; the totals say how many ran.
 */
#define _GNU_SOURCE
#include "replay/replay_report.h"

#include <stdlib.h>
#include <string.h>

#include "event/lost_counts.h"
#include "event/syscall_table.h"
#include "lib/html_text.h"
#include "lib/human_format.h"
#include "lib/json_string.h"
#include "lib/string_index.h"
#include "replay/replay_issue.h"

#define EXAMPLES 5

struct row {
	uint32_t key;
	uint64_t calls, bytes;
	uint64_t rec_ns, rep_ns;
	uint64_t differ; /* results unlike the recorded */
};

struct step_row {
	int64_t number, epoch;
	uint64_t rec_iter, rep_iter, rec_stall, rep_stall;
	bool replayed;
};

struct epoch_row {
	int64_t number;
	uint64_t rec_ns, rep_ns, rec_stall, rep_stall;
	uint32_t steps;
	bool replayed;
};

struct replay_report {
	const struct replay_plan *p;
	const struct replay_outcome *out;
	const struct replay_prep *prep;
	struct replay_report_info info;
	struct row *files, *procs, *dirs, kinds[DL_SYS_COUNT + 1], total;
	uint32_t ndirs;
	struct string_index dir_names;
	uint64_t not_issued[DL_SYS_COUNT + 1];
	uint32_t examples[EXAMPLES], nexamples;
	uint64_t io_planned, io_run, ops_run;
	uint64_t wall_rec, wall_rep;
	uint64_t partial;
	/* the training loop (marks) */
	struct step_row *steps;
	uint32_t nsteps;
	struct epoch_row *epochs;
	uint32_t nepochs;
	uint32_t loop_thread;
	bool stall_from_fetch;
	uint64_t stall_rec, stall_rep, iter_rec, iter_rep;
	uint32_t steps_replayed;
};

/* Kinds whose result is a value to compare (bytes, an offset), not only success. */
static bool value_kind(unsigned k)
{
	const struct syscall_info *si = syscall_info(k);

	if (si && (si->reads || si->writes))
		return true;
	switch (k) {
	case DL_SYS_LSEEK:
	case DL_SYS_GETDENTS64:
	case DL_SYS_READLINK:
	case DL_SYS_READLINKAT:
	case DL_SYS_GETXATTR:
	case DL_SYS_LGETXATTR:
	case DL_SYS_FGETXATTR:
	case DL_SYS_LISTXATTR:
	case DL_SYS_LLISTXATTR:
	case DL_SYS_FLISTXATTR:
		return true;
	default:
		return false;
	}
}

static bool differs(const struct rp_op *o, int64_t rep)
{
	if (o->type == RP_OP_FAULT)
		return rep < 0;
	if ((o->ret < 0) != (rep < 0))
		return true;
	if (o->ret < 0)
		return o->ret != rep;
	return value_kind(o->sys) && o->ret != rep;
}

static uint64_t moved(const struct rp_op *o, int64_t ret)
{
	if (o->type == RP_OP_FAULT)
		return ret >= 0 ? o->size : 0;
	if (!value_kind(o->sys) || o->sys == DL_SYS_LSEEK || ret <= 0)
		return 0;
	{
		const struct syscall_info *si = syscall_info(o->sys);

		return si && (si->reads || si->writes) ? (uint64_t)ret : 0;
	}
}

static void add(struct row *r, uint64_t bytes, uint64_t rec, uint64_t rep, bool diff)
{
	r->calls++;
	r->bytes += bytes;
	r->rec_ns += rec;
	r->rep_ns += rep;
	r->differ += diff;
}

static uint32_t dir_of(struct replay_report *r, uint32_t file)
{
	const char *s = rp_str(r->p, r->p->files[file].name);
	size_t n = strlen(s);
	uint32_t id;

	while (n > 1 && s[n - 1] != '/')
		n--;
	if (n > 1)
		n--;
	id = string_index_put(&r->dir_names, s, n);
	if (id == STRING_NONE)
		return RP_NONE;
	if (id >= r->ndirs) {
		uint32_t cap = r->ndirs ? r->ndirs : 16;
		struct row *q;

		while (cap <= id)
			cap *= 2;
		q = realloc(r->dirs, cap * sizeof(*q));
		if (!q)
			return RP_NONE;
		memset(q + r->ndirs, 0, (cap - r->ndirs) * sizeof(*q));
		for (uint32_t i = r->ndirs; i < cap; i++)
			q[i].key = i;
		r->dirs = q;
		r->ndirs = cap;
	}
	return id;
}

static int mark_end_cmp(const void *a, const void *b, void *ctx)
{
	const struct replay_plan *p = ctx;
	const struct rp_mark *x = &p->marks[*(const uint32_t *)a],
			     *y = &p->marks[*(const uint32_t *)b];

	return x->end < y->end ? -1 : x->end > y->end;
}

static uint64_t rep_at(const struct replay_report *r, uint32_t op)
{
	return r->out && r->out->res ? r->out->res[op].end : 0;
}

/* Steps and epochs of the thread with the most steps. */
static int loop_figures(struct replay_report *r)
{
	const struct replay_plan *p = r->p;
	uint32_t *idx, n = 0, *count = calloc(p->nthreads ? p->nthreads : 1, sizeof(*count));
	uint32_t best = RP_NONE, fetches = 0, last_step_end_op = RP_NONE;
	uint64_t rec_last = 0, rep_last = 0;
	bool rep_last_ok = false;
	struct {
		uint64_t rec_b, rec_e, rep_b, rep_e;
		bool ok;
	} pend[64];
	uint32_t npend = 0, epoch_steps = 0;
	uint64_t ep_rec_stall = 0, ep_rep_stall = 0;

	if (!count)
		return -1;
	for (uint32_t i = 0; i < p->nmarks; i++)
		if (p->marks[i].kind == RP_MARK_STEP || p->marks[i].kind == RP_MARK_EPOCH)
			count[p->marks[i].thread]++;
	for (uint32_t t = 0; t < p->nthreads; t++)
		if (count[t] && (best == RP_NONE || count[t] > count[best]))
			best = t;
	free(count);
	r->loop_thread = best;
	if (best == RP_NONE)
		return 0;
	idx = malloc(p->nmarks * sizeof(*idx));
	r->steps = calloc(p->nmarks, sizeof(*r->steps));
	r->epochs = calloc(p->nmarks, sizeof(*r->epochs));
	if (!idx || !r->steps || !r->epochs) {
		free(idx);
		return -1;
	}
	for (uint32_t i = 0; i < p->nmarks; i++)
		if (p->marks[i].thread == best) {
			idx[n++] = i;
			fetches += p->marks[i].kind == RP_MARK_FETCH;
		}
	r->stall_from_fetch = fetches > 0;
	qsort_r(idx, n, sizeof(*idx), mark_end_cmp, (void *)p);
	for (uint32_t k = 0; k < n; k++) {
		const struct rp_mark *m = &p->marks[idx[k]];
		uint64_t rb = rep_at(r, m->begin), re = rep_at(r, m->end);

		if (m->kind == RP_MARK_FETCH) {
			if (npend < 64)
				pend[npend++] =
				    (typeof(pend[0])){m->ts, m->ts + m->dur, rb, re, rb && re};
			continue;
		}
		if (m->kind == RP_MARK_STEP) {
			struct step_row *s = &r->steps[r->nsteps++];
			uint64_t rec_start = m->ts, rep_start = rb;
			bool ok = rb && re;

			s->number = m->number;
			s->epoch = r->nepochs;
			if (r->stall_from_fetch) {
				for (uint32_t j = 0; j < npend; j++) {
					s->rec_stall += pend[j].rec_e - pend[j].rec_b;
					if (pend[j].rec_b < rec_start)
						rec_start = pend[j].rec_b;
					if (pend[j].ok) {
						s->rep_stall += pend[j].rep_e - pend[j].rep_b;
						if (pend[j].rep_b < rep_start)
							rep_start = pend[j].rep_b;
					} else {
						ok = false;
					}
				}
			} else {
				/* the loop thread's pipe reads since the last step: its waits */
				uint32_t from = last_step_end_op == RP_NONE ? p->threads[best].op
									    : last_step_end_op;

				for (uint32_t o = from; o < m->end; o++) {
					const struct rp_op *op = &p->ops[o];

					if (op->type != RP_OP_PIPE_READ)
						continue;
					s->rec_stall += op->dur;
					if (rep_at(r, o))
						s->rep_stall +=
						    r->out->res[o].end - r->out->res[o].start;
				}
				if (last_step_end_op != RP_NONE) {
					rec_start = rec_last;
					rep_start = rep_last;
					ok = ok && rep_last_ok;
				}
			}
			s->rec_iter = m->ts + m->dur - rec_start;
			s->replayed = ok;
			if (ok)
				s->rep_iter = re - rep_start;
			npend = 0;
			last_step_end_op = m->end;
			rec_last = m->ts + m->dur;
			rep_last = re;
			rep_last_ok = re != 0;
			r->iter_rec += s->rec_iter;
			r->stall_rec += s->rec_stall;
			ep_rec_stall += s->rec_stall;
			if (ok) {
				r->iter_rep += s->rep_iter;
				r->stall_rep += s->rep_stall;
				ep_rep_stall += s->rep_stall;
				r->steps_replayed++;
			}
			epoch_steps++;
			continue;
		}
		/* an epoch: the steps that ended since the last */
		{
			struct epoch_row *e = &r->epochs[r->nepochs++];

			e->number = m->number;
			e->rec_ns = m->dur;
			e->replayed = rb && re;
			e->rep_ns = e->replayed ? re - rb : 0;
			e->rec_stall = ep_rec_stall;
			e->rep_stall = ep_rep_stall;
			e->steps = epoch_steps;
			ep_rec_stall = ep_rep_stall = 0;
			epoch_steps = 0;
		}
	}
	free(idx);
	return 0;
}

struct replay_report *replay_report__new(const struct replay_plan *p,
					 const struct replay_outcome *out,
					 const struct replay_prep *prep,
					 const struct replay_report_info *info)
{
	struct replay_report *r = calloc(1, sizeof(*r));
	uint64_t last = 0;

	if (!r)
		return NULL;
	r->p = p;
	r->out = out;
	r->prep = prep;
	r->info = *info;
	string_index_init(&r->dir_names);
	r->files = calloc(p->nfiles ? p->nfiles : 1, sizeof(*r->files));
	r->procs = calloc(p->nprocs ? p->nprocs : 1, sizeof(*r->procs));
	if (!r->files || !r->procs)
		goto oom;
	for (uint32_t i = 0; i < p->nfiles; i++)
		r->files[i].key = i;
	for (uint32_t i = 0; i < p->nprocs; i++)
		r->procs[i].key = i;
	for (unsigned k = 0; k <= DL_SYS_COUNT; k++)
		r->kinds[k].key = k;
	for (uint32_t t = 0; t < p->nthreads; t++) {
		const struct rp_thread *th = &p->threads[t];

		for (uint32_t i = th->op; i < th->op + th->nops; i++) {
			const struct rp_op *o = &p->ops[i];
			const struct rp_result *res = out ? &out->res[i] : NULL;
			unsigned kind = o->type == RP_OP_FAULT ? RP_FAULT_KIND : o->sys;
			uint64_t rep, bytes;
			bool diff;
			uint32_t d;

			if (res && res->end > last)
				last = res->end;
			if (!rp_op_is_io(o))
				continue;
			r->io_planned++;
			if (o->flags & RPO_PARTIAL)
				r->partial++;
			if (!res || !res->end)
				continue;
			if (res->ret == RP_NOT_ISSUED) {
				r->not_issued[kind]++;
				continue;
			}
			r->io_run++;
			rep = res->end - res->start;
			bytes = moved(o, res->ret);
			diff = differs(o, res->ret);
			if (diff && r->nexamples < EXAMPLES)
				r->examples[r->nexamples++] = i;
			add(&r->total, bytes, o->dur, rep, diff);
			add(&r->kinds[kind], bytes, o->dur, rep, diff);
			add(&r->procs[th->proc], bytes, o->dur, rep, diff);
			if (o->file != RP_NONE) {
				add(&r->files[o->file], bytes, o->dur, rep, diff);
				d = dir_of(r, o->file);
				if (d != RP_NONE)
					add(&r->dirs[d], bytes, o->dur, rep, diff);
			}
		}
	}
	r->wall_rec = p->end > p->origin ? p->end - p->origin : 0;
	r->wall_rep = out && out->t0 && last > out->t0 ? last - out->t0 : 0;
	if (out)
		r->ops_run = out->ops_done;
	if (loop_figures(r))
		goto oom;
	return r;
oom:
	replay_report__free(r);
	return NULL;
}

void replay_report__free(struct replay_report *r)
{
	if (!r)
		return;
	free(r->files);
	free(r->procs);
	free(r->dirs);
	free(r->steps);
	free(r->epochs);
	string_index_free(&r->dir_names);
	free(r);
}

/* ---- rendering helpers ---- */

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	uint64_t mx = x->rec_ns > x->rep_ns ? x->rec_ns : x->rep_ns;
	uint64_t my = y->rec_ns > y->rep_ns ? y->rec_ns : y->rep_ns;

	if (mx != my)
		return mx > my ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* The rows that have calls, by time (the larger of both sides), at most top. */
static struct row *sorted(const struct row *rows, uint32_t n, unsigned top, uint32_t *out_n)
{
	struct row *s = malloc((n ? n : 1) * sizeof(*s));
	uint32_t k = 0;

	if (!s) {
		*out_n = 0;
		return NULL;
	}
	for (uint32_t i = 0; i < n; i++)
		if (rows[i].calls)
			s[k++] = rows[i];
	qsort(s, k, sizeof(*s), row_cmp);
	*out_n = k < top ? k : top;
	return s;
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? (double)part / (double)whole : 0;
}

/* "1.20 s (31.3%)" or "-0.20 s (-3.1%)": what the replay's side saves of the recorded. */
static char *saving_text(char *buf, size_t size, uint64_t rec, uint64_t rep)
{
	char h[HUMAN_MAX], pc[HUMAN_MAX];

	if (rec >= rep)
		snprintf(buf, size, "%s (%s)", human_ns(h, rec - rep),
			 human_pct(pc, share(rec - rep, rec)));
	else
		snprintf(buf, size, "-%s (-%s)", human_ns(h, rep - rec),
			 human_pct(pc, share(rep - rec, rec)));
	return buf;
}

static const char *proc_label(const struct replay_plan *p, uint32_t i, char *buf, size_t size)
{
	const struct rp_proc *pr = &p->procs[i];
	char cmd[80];

	if (pr->name != RP_NONE)
		display_command(cmd, sizeof(cmd), rp_str(p, pr->name),
				string_len(&p->strings, pr->name), 40);
	else
		snprintf(cmd, sizeof(cmd), "?");
	snprintf(buf, size, "%u %s", pr->pid, cmd);
	return buf;
}

enum table { T_KIND, T_PROC, T_DIR, T_FILE };

static const char *row_name(const struct replay_report *r, enum table t, const struct row *row,
			    char *buf, size_t size)
{
	switch (t) {
	case T_KIND:
		return rp_kind_name(row->key);
	case T_PROC:
		return proc_label(r->p, row->key, buf, size);
	case T_DIR:
		return string_at(&r->dir_names, row->key);
	default:
		return rp_str(r->p, r->p->files[row->key].name);
	}
}

/* ---- terminal ---- */

static void term_table(const struct replay_report *r, FILE *f, enum table t, const char *title,
		       const struct row *rows, uint32_t n, unsigned top, bool color)
{
	uint32_t k;
	struct row *s = sorted(rows, n, top, &k);

	if (!s || !k) {
		free(s);
		return;
	}
	fprintf(f, "\n%s%s%s\n", color ? "\033[1m" : "", title, color ? "\033[0m" : "");
	fprintf(f, "  %-44s %9s %10s %10s %10s  %s\n", "", "calls", "bytes", "recorded", "replayed",
		"saving");
	for (uint32_t i = 0; i < k; i++) {
		char name[512], disp[64], c[HUMAN_MAX], b[HUMAN_MAX], a1[HUMAN_MAX], a2[HUMAN_MAX],
		    sv[64];
		const char *nm = row_name(r, t, &s[i], name, sizeof(name));

		display_text(disp, sizeof(disp), nm, strlen(nm), 44);
		fprintf(f, "  %-44s %9s %10s %10s %10s  %s\n", disp, human_count(c, s[i].calls),
			human_bytes(b, s[i].bytes), human_ns(a1, s[i].rec_ns),
			human_ns(a2, s[i].rep_ns),
			saving_text(sv, sizeof(sv), s[i].rec_ns, s[i].rep_ns));
	}
	free(s);
}

static const char *where_text(const struct replay_report *r, char *buf, size_t size)
{
	if (r->info.stage)
		snprintf(buf, size, "staged in %s", r->info.stage);
	else if (r->info.nrules)
		snprintf(buf, size, "%s -> %s%s", r->info.rules[0].from, r->info.rules[0].to,
			 r->info.nrules > 1 ? ", ..." : "");
	else
		snprintf(buf, size, "in place");
	return buf;
}

void replay_report__terminal(const struct replay_report *r, FILE *f, bool color)
{
	const struct replay_plan *p = r->p;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[64], sv[64], where[600];
	const char *bold = color ? "\033[1m" : "", *off = color ? "\033[0m" : "";

	fprintf(f, "%sdltrace replay%s of %s: %s; %s cache, think times %s\n", bold, off,
		r->info.trace, where_text(r, where, sizeof(where)),
		r->info.cold   ? "cold"
		: r->info.warm ? "warm"
			       : "unchanged",
		r->info.no_think ? "dropped (--no-think)" : "kept");
	fprintf(f, "  %s of %s calls and faults replayed, by %u threads in %u processes",
		human_count(a, r->io_run), human_count(b, r->io_planned), p->nthreads, p->nprocs);
	if (r->out && r->out->stopped)
		fprintf(f, " (stopped)");
	fputc('\n', f);
	fprintf(f, "\n  %-20s %12s %12s   %s\n", "", "recorded", "replayed", "saving");
	fprintf(f, "  %-20s %12s %12s   %s\n", "wall time", human_ns(a, r->wall_rec),
		human_ns(b, r->wall_rep), saving_text(sv, sizeof(sv), r->wall_rec, r->wall_rep));
	fprintf(f, "  %-20s %12s %12s   %s\n", "I/O time", human_ns(a, r->total.rec_ns),
		human_ns(b, r->total.rep_ns),
		saving_text(sv, sizeof(sv), r->total.rec_ns, r->total.rep_ns));
	if (r->nsteps) {
		fprintf(f, "  %-20s %12s %12s   %s   (%u steps, %s)\n", "data stall",
			human_ns(a, r->stall_rec), human_ns(b, r->stall_rep),
			saving_text(sv, sizeof(sv), r->stall_rec, r->stall_rep), r->nsteps,
			r->stall_from_fetch ? "fetch regions" : "pipe reads");
		fprintf(f, "  %-20s %12s %12s   %s\n", "step iterations", human_ns(a, r->iter_rec),
			human_ns(b, r->iter_rep),
			saving_text(sv, sizeof(sv), r->iter_rec, r->iter_rep));
	}
	if (r->info.no_think)
		fprintf(f,
			"  I/O alone (--no-think): the replay's wall time is its calls' and "
			"waits', not the job's; its I/O time would save %s\n",
			saving_text(sv, sizeof(sv), r->total.rec_ns, r->total.rep_ns));
	else
		fprintf(f, "  %s would save %s of the job's wall time (%s of its I/O time)\n",
			r->info.stage ? "staging" : "this file system",
			saving_text(sv, sizeof(sv), r->wall_rec, r->wall_rep),
			saving_text(c, sizeof(c), r->total.rec_ns, r->total.rep_ns));
	term_table(r, f, T_KIND, "By syscall kind", r->kinds, DL_SYS_COUNT + 1, r->info.top, color);
	term_table(r, f, T_PROC, "By process", r->procs, p->nprocs, r->info.top, color);
	term_table(r, f, T_DIR, "By directory", r->dirs, r->ndirs, r->info.top, color);
	term_table(r, f, T_FILE, "By file", r->files, p->nfiles, r->info.top, color);
	if (r->nepochs) {
		fprintf(f, "\n%sEpochs%s (training loop: thread %u)\n", bold, off,
			p->threads[r->loop_thread].tid);
		fprintf(f, "  %6s %6s %12s %12s %12s %12s\n", "epoch", "steps", "recorded",
			"replayed", "stall rec", "stall rep");
		for (uint32_t i = 0; i < r->nepochs; i++) {
			const struct epoch_row *e = &r->epochs[i];
			char d[HUMAN_MAX];

			fprintf(f, "  %6lld %6u %12s %12s %12s %12s\n", (long long)e->number,
				e->steps, human_ns(a, e->rec_ns),
				e->replayed ? human_ns(b, e->rep_ns) : "-",
				human_ns(c, e->rec_stall), human_ns(d, e->rep_stall));
		}
	}
	if (r->out && r->out->stopped)
		fprintf(f, "\nStopped before the end: %s of %u ops ran.\n",
			human_count(a, r->ops_run), p->nops);
}

/* ---- JSON ---- */

static void jstr(FILE *f, const char *s)
{
	size_t n = strlen(s);
	char *buf = malloc(JSON_ESCAPED_MAX(n));
	bool lossy;

	fputc('"', f);
	if (buf) {
		fwrite(buf, 1, json_escape(buf, s, n, &lossy), f);
		free(buf);
	}
	fputc('"', f);
}

static void json_rows(const struct replay_report *r, FILE *f, enum table t, const char *key,
		      const struct row *rows, uint32_t n)
{
	uint32_t k;
	struct row *s = sorted(rows, n, r->info.top, &k);

	fprintf(f, ",\"%s\":[", key);
	for (uint32_t i = 0; s && i < k; i++) {
		char name[512];

		fputs(i ? ",{" : "{", f);
		if (t == T_PROC) {
			fprintf(f, "\"pid\":%u,\"command\":", r->p->procs[s[i].key].pid);
			jstr(f, r->p->procs[s[i].key].name != RP_NONE
				    ? rp_str(r->p, r->p->procs[s[i].key].name)
				    : "");
		} else {
			fputs(t == T_KIND ? "\"kind\":" : "\"path\":", f);
			jstr(f, row_name(r, t, &s[i], name, sizeof(name)));
		}
		if (t == T_FILE) {
			const struct rp_file *fl = &r->p->files[s[i].key];

			fputs(",\"replayed_path\":", f);
			jstr(f, rp_str(r->p, fl->replay));
			fprintf(f, ",\"staged\":%s,\"scratch\":%s",
				(fl->flags & RPF_STAGED) ? "true" : "false",
				(fl->flags & RPF_WRITTEN) ? "true" : "false");
		}
		fprintf(f,
			",\"calls\":%llu,\"bytes\":%llu,\"recorded_ns\":%llu,\"replayed_ns\":%llu,"
			"\"saving_ns\":%lld,\"results_differ\":%llu}",
			(unsigned long long)s[i].calls, (unsigned long long)s[i].bytes,
			(unsigned long long)s[i].rec_ns, (unsigned long long)s[i].rep_ns,
			(long long)(s[i].rec_ns - s[i].rep_ns), (unsigned long long)s[i].differ);
	}
	fputc(']', f);
	free(s);
}

static void json_pair(FILE *f, const char *key, uint64_t rec, uint64_t rep, bool known)
{
	fprintf(f, ",\"%s\":{\"recorded\":%llu,\"replayed\":", key, (unsigned long long)rec);
	if (known)
		fprintf(f, "%llu,\"saving\":%lld}", (unsigned long long)rep,
			(long long)(rec - rep));
	else
		fputs("null,\"saving\":null}", f);
}

static void json_counts(FILE *f, const char *key, const uint64_t *counts)
{
	bool first = true;

	fprintf(f, ",\"%s\":{", key);
	for (unsigned k = 0; k <= DL_SYS_COUNT; k++) {
		if (!counts[k])
			continue;
		fprintf(f, "%s\"%s\":%llu", first ? "" : ",", rp_kind_name(k),
			(unsigned long long)counts[k]);
		first = false;
	}
	fputc('}', f);
}

void replay_report__json(const struct replay_report *r, FILE *f)
{
	const struct replay_plan *p = r->p;
	uint64_t planned[DL_SYS_COUNT + 1], kinds[DL_SYS_COUNT + 1];
	static const char *const reasons[RP_SKIP_REASONS] = {
	    "kind", "path_unknown", "opened_before_trace", "mapped_before_trace",
	    "outside_application"};

	replay_plan__count(p, planned);
	fputs("{\"schema\":\"dltrace-replay-1\",\"trace\":", f);
	jstr(f, r->info.trace);
	fputs(",\"target\":{\"stage\":", f);
	if (r->info.stage)
		jstr(f, r->info.stage);
	else
		fputs("null", f);
	fputs(",\"scratch\":", f);
	jstr(f, r->info.scratch ? r->info.scratch : "");
	fputs(",\"maps\":[", f);
	for (unsigned i = 0; i < r->info.nrules; i++) {
		fputs(i ? ",{\"from\":" : "{\"from\":", f);
		jstr(f, r->info.rules[i].from);
		fputs(",\"to\":", f);
		jstr(f, r->info.rules[i].to);
		fputc('}', f);
	}
	fprintf(f, "]},\"think_times\":%s,\"cache\":\"%s\"", r->info.no_think ? "false" : "true",
		r->info.cold   ? "cold"
		: r->info.warm ? "warm"
			       : "unchanged");
	fprintf(f, ",\"processes\":%u,\"threads\":%u,\"ops\":%u,\"ops_run\":%llu", p->nprocs,
		p->nthreads, p->nops, (unsigned long long)r->ops_run);
	fprintf(f, ",\"calls_planned\":%llu,\"calls_replayed\":%llu,\"stopped\":%s",
		(unsigned long long)r->io_planned, (unsigned long long)r->io_run,
		r->out && r->out->stopped ? "true" : "false");
	json_pair(f, "wall_ns", r->wall_rec, r->wall_rep, r->wall_rep != 0);
	json_pair(f, "io_ns", r->total.rec_ns, r->total.rep_ns, true);
	if (r->nsteps) {
		json_pair(f, "stall_ns", r->stall_rec, r->stall_rep,
			  r->steps_replayed == r->nsteps);
		json_pair(f, "iteration_ns", r->iter_rec, r->iter_rep,
			  r->steps_replayed == r->nsteps);
		fprintf(f, ",\"stall_from\":\"%s\"", r->stall_from_fetch ? "fetch" : "pipe_reads");
	} else {
		fputs(",\"stall_ns\":null", f);
	}
	fprintf(f, ",\"results_differ\":%llu,\"partial_calls\":%llu",
		(unsigned long long)r->total.differ, (unsigned long long)r->partial);
	json_counts(f, "planned_by_kind", planned);
	for (unsigned k = 0; k <= DL_SYS_COUNT; k++)
		kinds[k] = r->kinds[k].calls;
	json_counts(f, "replayed_by_kind", kinds);
	json_counts(f, "not_issued", r->not_issued);
	fputs(",\"skipped\":{", f);
	for (unsigned s = 0; s < RP_SKIP_REASONS; s++) {
		fprintf(f, "%s\"%s\":{", s ? "," : "", reasons[s]);
		for (unsigned k = 0, first = 1; k <= DL_SYS_COUNT; k++) {
			if (!p->skipped[s][k])
				continue;
			fprintf(f, "%s\"%s\":%llu", first ? "" : ",", rp_kind_name(k),
				(unsigned long long)p->skipped[s][k]);
			first = 0;
		}
		fputc('}', f);
	}
	fputc('}', f);
	fputs(",\"lost\":{", f);
	{
		unsigned it = 0;
		const char *name;
		uint64_t n;
		bool first = true;

		while (lost_counts_next(&p->lost, &it, &name, &n)) {
			fprintf(f, "%s", first ? "" : ",");
			jstr(f, name);
			fprintf(f, ":%llu", (unsigned long long)n);
			first = false;
		}
	}
	fprintf(f, "},\"lost_events\":%llu", (unsigned long long)p->lost_events);
	fputs(",\"short_files\":[", f);
	for (uint32_t i = 0; r->prep && i < r->prep->nshorts; i++) {
		const struct rp_short_file *s = &r->prep->shorts[i];

		fputs(i ? ",{\"path\":" : "{\"path\":", f);
		jstr(f, rp_str(p, p->files[s->file].replay));
		fprintf(f, ",\"size\":%llu,\"read_end\":%llu}", (unsigned long long)s->size,
			(unsigned long long)s->read_end);
	}
	fputc(']', f);
	if (r->prep)
		fprintf(f,
			",\"staged\":{\"files\":%llu,\"bytes\":%llu,\"reused\":%llu},"
			"\"scratch_copies\":{\"files\":%llu,\"bytes\":%llu,\"made_empty\":%llu}",
			(unsigned long long)r->prep->stage_files,
			(unsigned long long)r->prep->stage_bytes,
			(unsigned long long)r->prep->stage_reused,
			(unsigned long long)r->prep->scratch_files,
			(unsigned long long)r->prep->scratch_bytes,
			(unsigned long long)r->prep->scratch_empty);
	if (r->out)
		fprintf(f, ",\"waits_released\":%u,\"spawn_failed\":%u,\"faults_past_eof\":%u",
			r->out->released, r->out->spawn_failed, r->out->faults_bus);
	json_rows(r, f, T_KIND, "kinds", r->kinds, DL_SYS_COUNT + 1);
	json_rows(r, f, T_PROC, "processes_io", r->procs, p->nprocs);
	json_rows(r, f, T_DIR, "directories", r->dirs, r->ndirs);
	json_rows(r, f, T_FILE, "files", r->files, p->nfiles);
	fputs(",\"epochs\":[", f);
	for (uint32_t i = 0; i < r->nepochs; i++) {
		const struct epoch_row *e = &r->epochs[i];

		fprintf(f, "%s{\"epoch\":%lld,\"steps\":%u,\"recorded_ns\":%llu,\"replayed_ns\":",
			i ? "," : "", (long long)e->number, e->steps,
			(unsigned long long)e->rec_ns);
		if (e->replayed)
			fprintf(f, "%llu", (unsigned long long)e->rep_ns);
		else
			fputs("null", f);
		fprintf(f, ",\"stall_recorded_ns\":%llu,\"stall_replayed_ns\":%llu}",
			(unsigned long long)e->rec_stall, (unsigned long long)e->rep_stall);
	}
	fputs("],\"steps\":[", f);
	for (uint32_t i = 0; i < r->nsteps && i < r->info.top; i++) {
		const struct step_row *s = &r->steps[i];

		fprintf(f,
			"%s{\"step\":%lld,\"epoch_index\":%lld,\"iteration_recorded_ns\":%llu,"
			"\"stall_recorded_ns\":%llu,",
			i ? "," : "", (long long)s->number, (long long)s->epoch,
			(unsigned long long)s->rec_iter, (unsigned long long)s->rec_stall);
		if (s->replayed)
			fprintf(f, "\"iteration_replayed_ns\":%llu,\"stall_replayed_ns\":%llu}",
				(unsigned long long)s->rep_iter, (unsigned long long)s->rep_stall);
		else
			fputs("\"iteration_replayed_ns\":null,\"stall_replayed_ns\":null}", f);
	}
	fputs("],\"differing_results\":[", f);
	for (uint32_t i = 0; i < r->nexamples; i++) {
		const struct rp_op *o = &p->ops[r->examples[i]];

		fprintf(f, "%s{\"kind\":\"%s\",\"path\":", i ? "," : "",
			rp_kind_name(o->type == RP_OP_FAULT ? RP_FAULT_KIND : o->sys));
		jstr(f, o->file == RP_NONE ? "" : rp_str(p, p->files[o->file].replay));
		fprintf(f, ",\"recorded\":%lld,\"replayed\":%lld}", (long long)o->ret,
			(long long)r->out->res[r->examples[i]].ret);
	}
	fputs("]}\n", f);
}

/* ---- HTML ---- */

/* a C string as HTML text */
static void hstr(FILE *f, const char *s)
{
	html_text(f, s, strlen(s));
}

static void html_table(const struct replay_report *r, FILE *f, enum table t, const char *title,
		       const struct row *rows, uint32_t n)
{
	uint32_t k;
	struct row *s = sorted(rows, n, r->info.top, &k);

	if (!s || !k) {
		free(s);
		return;
	}
	fprintf(f,
		"<h2>%s</h2>\n<table><tr><th></th><th>calls</th><th>bytes</th><th>recorded</th>"
		"<th>replayed</th><th>saving</th><th>bar</th></tr>\n",
		title);
	for (uint32_t i = 0; i < k; i++) {
		char name[512], c[HUMAN_MAX], b[HUMAN_MAX], a1[HUMAN_MAX], a2[HUMAN_MAX], sv[64];
		uint64_t mx = s[0].rec_ns > s[0].rep_ns ? s[0].rec_ns : s[0].rep_ns;

		fputs("<tr><td class=n>", f);
		hstr(f, row_name(r, t, &s[i], name, sizeof(name)));
		fprintf(f,
			"</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>"
			"<div class=rec style=\"width:%.0fpx\"></div><div class=rep "
			"style=\"width:%.0fpx\"></div></td></tr>\n",
			human_count(c, s[i].calls), human_bytes(b, s[i].bytes),
			human_ns(a1, s[i].rec_ns), human_ns(a2, s[i].rep_ns),
			saving_text(sv, sizeof(sv), s[i].rec_ns, s[i].rep_ns),
			200.0 * share(s[i].rec_ns, mx), 200.0 * share(s[i].rep_ns, mx));
	}
	fputs("</table>\n", f);
	free(s);
}

void replay_report__html(const struct replay_report *r, FILE *f)
{
	char a[HUMAN_MAX], b[HUMAN_MAX], sv[64], where[600];

	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>dltrace replay</title>"
	      "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
	      "td,th{padding:2px 8px;text-align:right}td.n{text-align:left;font-family:monospace}"
	      ".rec,.rep{height:6px}.rec{background:#c66}.rep{background:#6a6}</style></head>"
	      "<body>\n<h1>dltrace replay</h1>\n<p>",
	      f);
	hstr(f, r->info.trace);
	fputs(": ", f);
	hstr(f, where_text(r, where, sizeof(where)));
	fprintf(f, "; %s cache; think times %s.</p>\n",
		r->info.cold   ? "cold"
		: r->info.warm ? "warm"
			       : "unchanged",
		r->info.no_think ? "dropped" : "kept");
	fputs("<table><tr><th></th><th>recorded</th><th>replayed</th><th>saving</th></tr>\n", f);
	fprintf(f, "<tr><td class=n>wall time</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
		human_ns(a, r->wall_rec), human_ns(b, r->wall_rep),
		saving_text(sv, sizeof(sv), r->wall_rec, r->wall_rep));
	fprintf(f, "<tr><td class=n>I/O time</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
		human_ns(a, r->total.rec_ns), human_ns(b, r->total.rep_ns),
		saving_text(sv, sizeof(sv), r->total.rec_ns, r->total.rep_ns));
	if (r->nsteps)
		fprintf(f,
			"<tr><td class=n>data stall (%u steps)</td><td>%s</td><td>%s</td>"
			"<td>%s</td></tr>\n",
			r->nsteps, human_ns(a, r->stall_rec), human_ns(b, r->stall_rep),
			saving_text(sv, sizeof(sv), r->stall_rec, r->stall_rep));
	fputs("</table>\n<p>Bars: recorded (red) and replayed (green) I/O time.</p>\n", f);
	html_table(r, f, T_KIND, "By syscall kind", r->kinds, DL_SYS_COUNT + 1);
	html_table(r, f, T_PROC, "By process", r->procs, r->p->nprocs);
	html_table(r, f, T_DIR, "By directory", r->dirs, r->ndirs);
	html_table(r, f, T_FILE, "By file", r->files, r->p->nfiles);
	if (r->nepochs) {
		fputs("<h2>Epochs</h2>\n<table><tr><th>epoch</th><th>steps</th><th>recorded</th>"
		      "<th>replayed</th><th>stall recorded</th><th>stall replayed</th></tr>\n",
		      f);
		for (uint32_t i = 0; i < r->nepochs; i++) {
			const struct epoch_row *e = &r->epochs[i];
			char c[HUMAN_MAX], d[HUMAN_MAX];

			fprintf(f,
				"<tr><td>%lld</td><td>%u</td><td>%s</td><td>%s</td><td>%s</td>"
				"<td>%s</td></tr>\n",
				(long long)e->number, e->steps, human_ns(a, e->rec_ns),
				e->replayed ? human_ns(b, e->rep_ns) : "-",
				human_ns(c, e->rec_stall), human_ns(d, e->rep_stall));
		}
		fputs("</table>\n", f);
	}
	fputs("</body></html>\n", f);
}

/* ---- warnings and the plan ---- */

void replay_plan_warnings(const struct replay_plan *p, FILE *f, const char *prefix)
{
	static const char *const why[RP_SKIP_REASONS] = {
	    "kinds the replay does not issue", "their file is not known (records lost)",
	    "their descriptor was opened before the trace or received from another process",
	    "their mapping is not replayed (made before the trace, or on a descriptor the "
	    "replay does not have)",
	    "they connect the application's files with others"};
	char buf[512];

	if (p->lost_events) {
		lost_counts_describe(&p->lost, 12, buf, sizeof(buf));
		fprintf(f, "%swarning: the trace lost %llu events%s%s%s: the replay lacks them\n",
			prefix, (unsigned long long)p->lost_events, buf[0] ? " (" : "", buf,
			buf[0] ? ")" : "");
	}
	for (unsigned s = 0; s < RP_SKIP_REASONS; s++) {
		uint64_t n = 0;
		size_t len = 0;

		buf[0] = '\0';
		for (unsigned k = 0; k <= DL_SYS_COUNT; k++) {
			if (!p->skipped[s][k])
				continue;
			n += p->skipped[s][k];
			if (len < sizeof(buf) - 64)
				len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s %llu",
							len ? ", " : "", rp_kind_name(k),
							(unsigned long long)p->skipped[s][k]);
		}
		if (n)
			fprintf(f,
				"%s%llu calls of the application's files not replayed: %s (%s)\n",
				prefix, (unsigned long long)n, why[s], buf);
	}
}

void replay_plan_print(const struct replay_plan *p, const struct replay_prep *prep,
		       const struct replay_report_info *info, FILE *f)
{
	uint64_t counts[DL_SYS_COUNT + 1], rbytes = 0, wbytes = 0, calls = 0;
	uint32_t written = 0, read_only = 0, staged = 0, pipes = p->npipes;
	char a[HUMAN_MAX], b[HUMAN_MAX], where[600];
	struct replay_report r = {.p = p, .info = *info};

	replay_plan__count(p, counts);
	for (unsigned k = 0; k <= DL_SYS_COUNT; k++)
		calls += counts[k];
	for (uint32_t i = 0; i < p->nfiles; i++) {
		const struct rp_file *fl = &p->files[i];

		rbytes += fl->bytes_read;
		wbytes += fl->bytes_written;
		if (fl->flags & RPF_WRITTEN)
			written++;
		else
			read_only++;
		staged += (fl->flags & RPF_STAGED) != 0;
	}
	fprintf(f, "dltrace replay --dry-run of %s: %s\n", info->trace,
		where_text(&r, where, sizeof(where)));
	fprintf(f,
		"  processes %u, threads %u, calls and faults %s, ops %u (with marks, pipes, "
		"starts and exits), waits between threads %u\n",
		p->nprocs, p->nthreads, human_count(a, calls), p->nops, p->ndeps);
	fprintf(f, "  bytes: %s read, %s written; pipes between threads: %u\n",
		human_bytes(a, rbytes), human_bytes(b, wbytes), pipes);
	fprintf(f,
		"  files: %u (%u read where they are, %u changed: replayed in the scratch "
		"directory %s)\n",
		p->nfiles, read_only, written, info->scratch ? info->scratch : "-");
	if (prep) {
		fprintf(f, "  the replay reads %llu files, %s\n",
			(unsigned long long)prep->read_files, human_bytes(a, prep->read_bytes));
		if (info->stage)
			fprintf(f, "  staging: %u files (%s) into %s (%s free)\n", staged,
				human_bytes(a, prep->stage_bytes), info->stage,
				human_bytes(b, prep->stage_free));
		if (prep->scratch_files)
			fprintf(f,
				"  scratch copies: %llu files the job changed, as it found them\n",
				(unsigned long long)prep->scratch_files);
	}
	fprintf(f, "\n  %-20s %10s\n", "kind", "calls");
	for (unsigned k = 0; k <= DL_SYS_COUNT; k++)
		if (counts[k])
			fprintf(f, "  %-20s %10s\n", rp_kind_name(k), human_count(a, counts[k]));
	fprintf(f, "\n  %-8s %-8s %8s %10s  %s\n", "pid", "tid", "ops", "start", "name");
	for (uint32_t t = 0; t < p->nthreads && t < info->top; t++) {
		const struct rp_thread *th = &p->threads[t];

		fprintf(f, "  %-8u %-8u %8u %10s  %s\n", p->procs[th->proc].pid, th->tid, th->nops,
			human_ns(a, th->start_ts > p->origin ? th->start_ts - p->origin : 0),
			th->comm);
	}
	fprintf(f, "\n  %-10s %s\n", "file", "replayed as");
	for (uint32_t i = 0, shown = 0; i < p->nfiles && shown < info->top; i++, shown++) {
		const struct rp_file *fl = &p->files[i];
		char n1[256], n2[256];
		const char *name = rp_str(p, fl->name), *rep = rp_str(p, fl->replay);

		display_text(n1, sizeof(n1), name, strlen(name), 60);
		display_text(n2, sizeof(n2), rep, strlen(rep), 80);
		fprintf(f, "  %-10s %s -> %s\n",
			(fl->flags & RPF_WRITTEN)  ? "scratch"
			: (fl->flags & RPF_STAGED) ? "staged"
						   : "read",
			n1, n2);
	}
	if (p->nfiles > info->top)
		fprintf(f, "  ... and %u more\n", p->nfiles - info->top);
}

static void json_skipped(const struct replay_plan *p, FILE *f)
{
	static const char *const reasons[RP_SKIP_REASONS] = {
	    "kind", "path_unknown", "opened_before_trace", "mapped_before_trace",
	    "outside_application"};

	fputs(",\"skipped\":{", f);
	for (unsigned s = 0; s < RP_SKIP_REASONS; s++) {
		fprintf(f, "%s\"%s\":{", s ? "," : "", reasons[s]);
		for (unsigned k = 0, first = 1; k <= DL_SYS_COUNT; k++) {
			if (!p->skipped[s][k])
				continue;
			fprintf(f, "%s\"%s\":%llu", first ? "" : ",", rp_kind_name(k),
				(unsigned long long)p->skipped[s][k]);
			first = 0;
		}
		fputc('}', f);
	}
	fputc('}', f);
}

void replay_plan_json(const struct replay_plan *p, const struct replay_prep *prep,
		      const struct replay_report_info *info, FILE *f)
{
	static const char *const types[RP_OP_TYPES] = {"call",	     "fault", "start", "pipe_read",
						       "pipe_write", "mark",  "exit"};
	uint64_t counts[DL_SYS_COUNT + 1], rbytes = 0, wbytes = 0;

	replay_plan__count(p, counts);
	for (uint32_t i = 0; i < p->nfiles; i++) {
		rbytes += p->files[i].bytes_read;
		wbytes += p->files[i].bytes_written;
	}
	fputs("{\"schema\":\"dltrace-replay-plan-1\",\"trace\":", f);
	jstr(f, info->trace);
	fputs(",\"scratch\":", f);
	jstr(f, info->scratch ? info->scratch : "");
	fputs(",\"stage\":", f);
	if (info->stage)
		jstr(f, info->stage);
	else
		fputs("null", f);
	fprintf(f,
		",\"processes\":%u,\"threads\":%u,\"ops\":%u,\"deps\":%u,\"pipes\":%u,"
		"\"bytes_read\":%llu,\"bytes_written\":%llu,\"lost_events\":%llu",
		p->nprocs, p->nthreads, p->nops, p->ndeps, p->npipes, (unsigned long long)rbytes,
		(unsigned long long)wbytes, (unsigned long long)p->lost_events);
	json_counts(f, "calls_by_kind", counts);
	json_skipped(p, f);
	if (prep)
		fprintf(f,
			",\"staged\":{\"files\":%llu,\"bytes\":%llu,\"free\":%llu},"
			"\"scratch_copies\":%llu,\"reads\":{\"files\":%llu,\"bytes\":%llu}",
			(unsigned long long)prep->stage_files,
			(unsigned long long)prep->stage_bytes, (unsigned long long)prep->stage_free,
			(unsigned long long)prep->scratch_files,
			(unsigned long long)prep->read_files, (unsigned long long)prep->read_bytes);
	fputs(",\"files\":[", f);
	for (uint32_t i = 0; i < p->nfiles; i++) {
		const struct rp_file *fl = &p->files[i];

		fputs(i ? ",{\"path\":" : "{\"path\":", f);
		jstr(f, rp_str(p, fl->name));
		fputs(",\"replayed_path\":", f);
		jstr(f, rp_str(p, fl->replay));
		fprintf(f, ",\"role\":\"%s\",\"bytes_read\":%llu,\"bytes_written\":%llu}",
			(fl->flags & RPF_WRITTEN)  ? "scratch"
			: (fl->flags & RPF_STAGED) ? "staged"
						   : "read",
			(unsigned long long)fl->bytes_read, (unsigned long long)fl->bytes_written);
	}
	fputs("],\"thread_list\":[", f);
	for (uint32_t t = 0; t < p->nthreads; t++) {
		const struct rp_thread *th = &p->threads[t];
		unsigned shown = 0;

		fprintf(
		    f, "%s{\"pid\":%u,\"tid\":%u,\"start_ns\":%llu,\"ops\":[", t ? "," : "",
		    p->procs[th->proc].pid, th->tid,
		    (unsigned long long)(th->start_ts > p->origin ? th->start_ts - p->origin : 0));
		for (uint32_t i = th->op; i < th->op + th->nops && shown < info->top;
		     i++, shown++) {
			const struct rp_op *o = &p->ops[i];

			fprintf(f, "%s{\"type\":\"%s\"", shown ? "," : "", types[o->type]);
			if (rp_op_is_io(o)) {
				fprintf(
				    f, ",\"kind\":\"%s\",\"path\":",
				    rp_kind_name(o->type == RP_OP_FAULT ? RP_FAULT_KIND : o->sys));
				jstr(f,
				     o->file == RP_NONE ? "" : rp_str(p, p->files[o->file].replay));
				fprintf(f, ",\"offset\":%llu,\"size\":%llu",
					(unsigned long long)o->offset, (unsigned long long)o->size);
			}
			if (o->type == RP_OP_SPAWN && o->target != RP_NONE)
				fprintf(f, ",\"tid\":%u", p->threads[o->target].tid);
			fprintf(f, ",\"gap_ns\":%llu,\"waits\":%u}", (unsigned long long)o->gap,
				o->ndeps);
		}
		fputs("]}", f);
	}
	fputs("]}\n", f);
}
