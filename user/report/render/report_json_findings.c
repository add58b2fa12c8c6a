// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* `--json`, the verdict at the end of the document: errors by errno, and the findings. */
#include "report/render/report_json_internal.h"

struct json_object *rj_errors(const struct report_stats *st)
{
	struct json_object *list = json_object_new_array();

	for (uint32_t i = 0; i < st->nerrnos; i++) {
		const struct rs_errno *e = &st->errnos[i];
		struct json_object *o = json_object_new_object();

		jv_add(o, "errno", j_str(e->name));
		jv_add(o, "count", j_u64(e->count[0] + e->count[1] + e->count[2]));
		jv_add(o, "application", j_u64(e->count[SCOPE_APP]));
		jv_add(o, "environment", j_u64(e->count[SCOPE_ENV]));
		jv_add(o, "other", j_u64(e->count[SCOPE_OTHER]));
		jv_push(list, o);
	}
	return list;
}

struct json_object *rj_findings(const struct findings *fi)
{
	struct json_object *list = json_object_new_array();

	for (int i = 0; i < fi->n; i++) {
		const struct finding *f = &fi->items[i];
		struct json_object *o = json_object_new_object(),
				   *evidence = json_object_new_array(),
				   *metrics = json_object_new_object();

		jv_add(o, "id", j_str(f->id));
		jv_add(o, "level", j_str(finding_severity_name(f->severity)));
		jv_add(o, "title", j_str(f->title));
		jv_add(o, "rule", j_str(f->rule));
		for (int k = 0; k < f->nevidence; k++)
			jv_push(evidence, j_str(f->evidence[k]));
		jv_add(o, "evidence", evidence);
		for (int k = 0; k < f->nmetrics; k++)
			jv_add(metrics, f->metrics[k].key, j_num(f->metrics[k].value));
		jv_add(o, "metrics", metrics);
		jv_add(o, "recommendation", j_str(f->recommendation));
		if (f->npy) {
			struct json_object *pl = json_object_new_array();

			for (int k = 0; k < f->npy; k++) {
				struct json_object *x = json_object_new_object();

				jv_add(x, "location", j_str(f->py[k].location));
				jv_add(x, "calls", j_u64(f->py[k].calls));
				jv_add(x, "bytes", j_u64(f->py[k].bytes));
				jv_add(x, "io_ns", j_u64(f->py[k].io_ns));
				jv_push(pl, x);
			}
			jv_add(o, "python_by", j_str(f->py_what));
			jv_add(o, "python_locations", pl);
		}
		jv_push(list, o);
	}
	return list;
}
