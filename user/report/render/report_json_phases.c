// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* `--json`, the phases: regions, and per training loop its steps, epochs and stalls. */
#include <stdlib.h>

#include "report/render/report_json_internal.h"

static struct json_object *levels_ns(const uint64_t v[DL_LEVEL_COUNT])
{
	struct json_object *o = json_object_new_object();

	for (int l = 0; l < DL_LEVEL_COUNT; l++)
		if (rs_is_level(l))
			jv_add(o, rs_level_names[l], j_u64(v[l]));
	return o;
}

static struct json_object *phase_io(const struct rs_phase_io *io)
{
	struct json_object *o = json_object_new_object();

	jv_add(o, "bytes_read", j_u64(io->bytes_read));
	jv_add(o, "bytes_written", j_u64(io->bytes_written));
	jv_add(o, "calls", j_u64(io->calls));
	jv_add(o, "io_ns", j_u64(io->io_ns));
	jv_add(o, "levels_ns", levels_ns(io->level_ns));
	return o;
}

static struct json_object *epoch_of(const struct report_stats *st, const struct rs_step *s)
{
	return s->epoch == NONE32 ? NULL : j_i64(st->phases.epochs[s->epoch].index);
}

/* A step: its epoch and index, times, stall, and the I/O of its iteration. */
static struct json_object *step_entry(const struct report_stats *st, const struct rs_step *s)
{
	struct json_object *o = json_object_new_object();

	jv_add(o, "epoch", epoch_of(st, s));
	jv_add(o, "step", s->index >= 0 ? j_i64(s->index) : NULL);
	jv_add(o, "start_ns", j_u64(s->istart));
	jv_add(o, "iteration_ns", j_u64(rs_step_iter_ns(s)));
	jv_add(o, "step_ns", j_u64(s->end - s->start));
	jv_add(o, "stall_ns", j_u64(s->stall_ns));
	jv_add(o, "stall_share", j_num(rs_step_stall_share(s)));
	jv_add(o, "bytes_read", j_u64(s->io.bytes_read));
	jv_add(o, "bytes_written", j_u64(s->io.bytes_written));
	jv_add(o, "calls", j_u64(s->io.calls));
	jv_add(o, "io_ns", j_u64(s->io.io_ns));
	jv_add(o, "levels_ns", levels_ns(s->io.level_ns));
	return o;
}

static struct json_object *quantiles3(uint64_t p50, uint64_t p99, uint64_t max)
{
	struct json_object *o = json_object_new_object();

	jv_add(o, "median", j_u64(p50));
	jv_add(o, "p99", j_u64(p99));
	jv_add(o, "max", j_u64(max));
	return o;
}

#define STALL_BARS 200

static struct json_object *loop_entry(const struct report_stats *st, uint32_t oi, unsigned top)
{
	const struct rs_phases *ph = &st->phases;
	const struct rs_owner *w = &ph->owners[oi];
	const struct rs_thread *t = &st->threads[w->thread];
	struct json_object *o = json_object_new_object(), *x, *list, *a, *b;
	struct rs_stall_bar bars[STALL_BARS];
	uint32_t nbars, shown = 0;

	jv_add(o, "pid", j_u64(st->procs[t->proc].pid));
	jv_add(o, "tid", j_u64(t->tid));
	jv_add(o, "host", j_sid(st, st->traces[st->procs[t->proc].trace].hostname));
	jv_add(o, "name", j_sid(st, t->comm));
	jv_add(o, "steps", j_u64(w->steps));
	jv_add(o, "epochs", j_u64(w->epochs));
	jv_add(o, "stall_from", j_str(w->fetch_seen ? "fetch" : "pipe_reads"));
	jv_add(o, "nested_steps", j_u64(w->nested));
	x = quantiles3(w->sum.iter_p50, w->sum.iter_p99, w->sum.iter_max);
	jv_add(x, "total", j_u64(w->sum.iter_ns));
	jv_add(o, "iteration_ns", x);
	jv_add(o, "step_ns", quantiles3(w->sum.step_p50, w->sum.step_p99, w->sum.step_max));
	x = quantiles3(w->sum.stall_p50, w->sum.stall_p99, w->sum.stall_max);
	jv_add(x, "total", j_u64(w->sum.stall_ns));
	jv_add(o, "stall_ns", x);
	jv_add(o, "stall_share",
	       j_num(w->sum.iter_ns ? (double)w->sum.stall_ns / w->sum.iter_ns : 0));
	x = json_object_new_object();
	jv_add(x, "median", j_num(w->sum.share_p50));
	jv_add(x, "p99", j_num(w->sum.share_p99));
	jv_add(x, "max", j_num(w->sum.share_max));
	jv_add(o, "stall_share_per_step", x);
	jv_add(o, "bytes_read_per_step",
	       quantiles3(w->sum.read_p50, w->sum.read_p99, w->sum.read_max));
	jv_add(o, "bytes_read", j_u64(w->sum.bytes_read));
	jv_add(o, "bytes_written", j_u64(w->sum.bytes_written));
	jv_add(o, "worst_step",
	       w->sum.worst == NONE32 ? NULL : step_entry(st, &ph->steps[w->sum.worst]));
	list = json_object_new_array();
	for (uint32_t e = 0; e < ph->nepochs; e++) {
		const struct rs_epoch *ep = &ph->epochs[e];

		if (ep->owner != oi)
			continue;
		x = phase_io(&ep->io);
		jv_add(x, "epoch", j_i64(ep->index));
		jv_add(x, "start_ns", j_u64(ep->start));
		jv_add(x, "dur_ns", j_u64(ep->end - ep->start));
		jv_add(x, "steps", j_u64(ep->steps));
		jv_add(x, "iteration_ns", j_u64(ep->iter_ns));
		jv_add(x, "stall_ns", j_u64(ep->stall_ns));
		jv_add(x, "stall_share",
		       j_num(ep->iter_ns ? (double)ep->stall_ns / ep->iter_ns : 0));
		jv_add(x, "step_max_ns", j_u64(ep->step_max_ns));
		jv_push(list, x);
	}
	jv_add(o, "epoch_list", list);
	list = json_object_new_array();
	for (uint32_t k = 0; k < w->nmarks && shown < top; k++)
		if (!w->marks[k].epoch) {
			jv_push(list, step_entry(st, &ph->steps[w->marks[k].index]));
			shown++;
		}
	jv_add(o, "step_list", list);
	list = json_object_new_array();
	{
		uint32_t order[SLOW_KEEP], n = rs_slow_order(st, w, order);

		for (uint32_t k = 0; k < n; k++) {
			const struct rs_slow *sl = &w->slow[order[k]];
			struct json_object *files = json_object_new_array();

			x = step_entry(st, &ph->steps[sl->step]);
			for (uint32_t f = 0; f < sl->nfiles; f++) {
				struct json_object *y = json_object_new_object();
				const struct rs_file *file = &st->files[sl->files[f].file];

				jv_add(y, "path", j_sid(st, file->name));
				jv_add(y, "bytes", j_u64(sl->files[f].bytes));
				jv_add(y, "io_ns", j_u64(sl->files[f].io_ns));
				jv_push(files, y);
			}
			jv_add(x, "files", files);
			jv_push(list, x);
		}
	}
	jv_add(o, "slowest", list);
	nbars = rs_stall_bars(st, oi, bars, STALL_BARS);
	x = json_object_new_object();
	a = json_object_new_array();
	b = json_object_new_array();
	for (uint32_t k = 0; k < nbars; k++) {
		jv_push(a, j_u64(bars[k].iter_ns));
		jv_push(b, j_u64(bars[k].stall_ns));
	}
	jv_add(x, "steps_per_bar", j_u64(nbars ? bars[0].steps : 0));
	jv_add(x, "iteration_ns", a);
	jv_add(x, "stall_ns", b);
	jv_add(o, "stall_chart", x);
	x = json_object_new_object();
	jv_add(x, "before_first_step", phase_io(&w->before));
	jv_add(x, "between_epochs", phase_io(&w->between));
	jv_add(x, "after_last_step", phase_io(&w->after));
	jv_add(x, "dropped_calls", j_u64(w->dropped));
	jv_add(o, "outside_steps", x);
	return o;
}

void rj_phases(struct jstream *s, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	const struct rs_phases *ph = &st->phases;
	struct json_object *list = json_object_new_array();
	uint32_t n, *order = rs_phase_owners(st, &n);

	js_open(s, "phases", '{');
	for (uint32_t k = 0; k < ph->nregions; k++) {
		const struct rs_region *r = &ph->regions[k];
		struct json_object *o = json_object_new_object();

		jv_add(o, "name", j_sid(st, r->name));
		jv_add(o, "count", j_u64(r->count));
		jv_add(o, "time_ns", j_u64(r->time_ns));
		jv_add(o, "dur_ns", j_latency(&r->dur));
		jv_push(list, o);
	}
	js_put(s, "regions", list);
	js_put(s, "other_regions", j_u64(ph->other_regions));
	js_put(s, "instants", j_u64(ph->instants));
	js_put(s, "counters", j_u64(ph->counters));
	js_open(s, "loops", '[');
	for (uint32_t k = 0; order && k < n && k < v->top; k++)
		js_put(s, NULL, loop_entry(st, order[k], v->top));
	js_close(s, ']');
	js_put(s, "unowned", phase_io(&ph->unowned));
	js_close(s, '}');
	free(order);
}
