// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The findings on the levels above the system calls: reads of HDF5 datasets,
 * stdio and MPI-IO that read far more than they asked, and the Python lines
 * behind each finding.
 */
#include "report/report_findings_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/human_format.h"

/*
 * The rules' constants besides the thresholds of their rows (the doc of each
 * row states them).
 */
#define AMPLIFY_RATIO 2.0
#define AMPLIFY_SHOWN 6 /* entries with their evidence */

/* Why a dataset's or file's reads read more than they asked, as far as the trace tells. */
enum amplify_cause {
	AMP_REOPEN,  /* an HDF5 dataset opened again for each read: its caches start empty */
	AMP_STRIDED, /* many read syscalls per call: a selection of small pieces */
	AMP_BLOCK,   /* a chunk, sieve or stream buffer larger than what a call asks */
	AMP_COUNT,
};

static enum amplify_cause amplify_cause(const struct rs_level_obj *o)
{
	if (o->level == DL_LAYER_HDF5 && o->rd.calls >= 2 && o->opens >= o->rd.calls)
		return AMP_REOPEN;
	if (o->rd.syscalls >= 4 * o->rd.calls)
		return AMP_STRIDED;
	return AMP_BLOCK;
}

static const char *amplify_advice(int level, enum amplify_cause c)
{
	if (c == AMP_REOPEN)
		return "Keep the dataset open (open it once per worker, e.g. in the Dataset's "
		       "__init__ or on first use, and index the open object), or read it once "
		       "into memory when it is small: each open starts with empty caches, so "
		       "HDF5 reads its sieve buffer or chunk again for every element.";
	if (c == AMP_STRIDED)
		return level == DL_LAYER_MPIIO
			   ? "Read contiguous pieces: describe the access with a file view and "
			     "one collective call (MPI_File_read_all) instead of many small "
			     "noncontiguous reads."
			   : "Read contiguous slices: one selection of adjacent elements "
			     "(d[i:j]) instead of strided or scattered points, then index the "
			     "array in memory.";
	if (level == DL_LAYER_STDIO)
		return "Ask the stream for what is read: each small fread after a seek refills "
		       "the stream's whole buffer; read the record with one fread of its size, "
		       "or give the stream a buffer the size of the reads (setvbuf).";
	if (level == DL_LAYER_MPIIO)
		return "Turn off data sieving for these reads (the ROMIO hint romio_ds_read="
		       "disable) or read with collective calls: ROMIO reads whole extents for "
		       "noncontiguous requests.";
	return "Rechunk the dataset to the access pattern (chunks of what one read asks, "
	       "h5repack -l), or raise the chunk cache (rdcc_nbytes in h5py.File, "
	       "H5Pset_chunk_cache) so that a chunk read once serves the reads after it.";
}

/*
 * read_amplification: per HDF5 dataset and per file read through stdio or
 * MPI-IO, the bytes the enclosed read syscalls read against the bytes the
 * calls asked for (report_levels.c); worst first, by the bytes read beyond
 * those asked.
 */
bool detect_read_amplification(RULE_ARGS)
{
	uint32_t *order = rs_sorted(st->levels.nobjs, key_level_obj, st), n = 0;
	uint64_t excess = 0, asked = 0, read = 0, worst_excess = 0;
	double worst_ratio = 0;
	int cause_level[AMP_COUNT] = {-1, -1, -1}; /* the level of the first entry of a cause */
	int first_level = DL_LAYER_HDF5, first_cause = -1;
	char rec[2 * FINDING_LINE];
	size_t k = 0;

	(void)opt;
	if (!order)
		return false;
	for (uint32_t i = 0; i < st->levels.nobjs; i++) {
		const struct rs_level_obj *o = &st->levels.objs[order[i]];
		uint64_t ex = rs_level_excess(&o->rd);

		if (o->level == DL_LAYER_HDF5 && o->object == NONE32)
			continue; /* an HDF5 file's row sums its datasets' */
		if (ex <= r->min || (double)o->rd.sys_bytes < AMPLIFY_RATIO * o->rd.asked)
			continue;
		order[n++] = order[i];
		excess += ex;
		asked += o->rd.asked;
		read += o->rd.sys_bytes;
	}
	if (!n) {
		free(order);
		return false;
	}
	if ((double)excess >= r->high * st->tot[SCOPE_APP].bytes_read)
		f->severity = SEVERITY_HIGH;
	finding__rule(
	    f,
	    "the reads of an HDF5 dataset, or a file's stdio or MPI-IO reads, made read "
	    "syscalls that read >= %.0fx the bytes asked and > 1 MiB more; high when that "
	    "excess is >= %.0f%% of the application's bytes read",
	    AMPLIFY_RATIO, r->high * 100);
	for (uint32_t i = 0; i < n; i++) {
		const struct rs_level_obj *o = &st->levels.objs[order[i]];
		enum amplify_cause c = amplify_cause(o);
		char name[1024], nm[200], a[HUMAN_MAX], b[HUMAN_MAX], d[HUMAN_MAX], e[HUMAN_MAX],
		    g[HUMAN_MAX], h[HUMAN_MAX], x[HUMAN_MAX], why[160], from[96] = "";
		uint32_t top[1];

		if (i == 0) {
			first_level = o->level;
			first_cause = c;
			worst_excess = rs_level_excess(&o->rd);
			worst_ratio = o->rd.asked ? (double)o->rd.sys_bytes / o->rd.asked : 0;
		}
		if (cause_level[c] < 0)
			cause_level[c] = o->level;
		if (i >= AMPLIFY_SHOWN)
			continue;
		rs_level_obj_name(st, o, name, sizeof(name));
		if (c == AMP_REOPEN)
			snprintf(why, sizeof(why),
				 "opened again for each read (%s opens for %s reads)",
				 human_count(a, o->opens), human_count(b, o->rd.calls));
		else if (c == AMP_STRIDED)
			snprintf(why, sizeof(why), "%.1f read syscalls per call: small pieces",
				 (double)o->rd.syscalls / o->rd.calls);
		else
			snprintf(why, sizeof(why),
				 "%s (%s opens for %s reads): each call read a block larger than "
				 "its selection",
				 o->level == DL_LAYER_HDF5 ? "kept open" : "buffered",
				 human_count(a, o->opens), human_count(b, o->rd.calls));
		if (o->rd.cache_reads)
			snprintf(from, sizeof(from), "; %s of it came from storage",
				 human_bytes(a, o->rd.cache_miss));
		rs_level_top_sizes(&o->rd, top, 1);
		finding__evidence(
		    f,
		    "%s (%s): %s reads asked %s bytes (most often %s per call); the %s read "
		    "syscalls they enclosed read %s bytes (%s), %s%s; %s",
		    display_text(nm, sizeof(nm), name, strlen(name), 96), rs_level_names[o->level],
		    human_count(a, o->rd.calls), human_count(b, o->rd.asked),
		    o->rd.nsizes ? human_bytes(d, o->rd.sizes[top[0]].key) : "-",
		    human_count(e, o->rd.syscalls), human_count(g, o->rd.sys_bytes),
		    human_bytes(h, o->rd.sys_bytes), human_ratio(x, rs_level_ratio(&o->rd)), from,
		    why);
	}
	if (n > AMPLIFY_SHOWN) {
		char a[HUMAN_MAX];

		finding__evidence(f, "and %s more datasets or files",
				  human_count(a, n - AMPLIFY_SHOWN));
	}
	finding__metric(f, "objects", n);
	finding__metric(f, "asked_bytes", asked);
	finding__metric(f, "syscall_read_bytes", read);
	finding__metric(f, "excess_bytes", excess);
	finding__metric(f, "worst_excess_bytes", worst_excess);
	finding__metric(f, "worst_ratio", worst_ratio);
	finding__metric(f, "share_of_bytes_read",
			finding__ratio(excess, st->tot[SCOPE_APP].bytes_read));
	/* the worst entry's advice first, then the other causes' */
	k = snprintf(rec, sizeof(rec), "%s", amplify_advice(first_level, first_cause));
	for (int c = 0; c < AMP_COUNT && k < sizeof(rec); c++)
		if (cause_level[c] >= 0 && c != first_cause)
			k += snprintf(rec + k, sizeof(rec) - k, " %s",
				      amplify_advice(cause_level[c], c));
	finding__recommend(f, rec);
	free(order);
	return true;
}

/*
 * The Python locations behind each finding (--python-stacks): per finding, the
 * calls it is about (report_python.c counts them per location, over the
 * application's files as the findings do; its row says which), the top 3
 * locations by calls, bytes or time.
 */
static uint64_t py_key(const struct rs_py_count *c, enum py_rank r)
{
	return r == PY_BY_CALLS ? c->calls : r == PY_BY_BYTES ? c->bytes : c->ns;
}

void python_behind(const struct finding_rule *r, const struct report_stats *st, struct finding *f)
{
	const struct rs_python *py = &st->python;
	uint32_t best[FINDING_PY];
	char line[FINDING_LINE], name[200], a[HUMAN_MAX], b[HUMAN_MAX];
	size_t o;
	int n = 0;

	if (!r->py_label)
		return;
	/* the top locations; ties: the first seen */
	for (uint32_t i = 0; i < py->n; i++) {
		const struct rs_py_count *c = &py->locs[i].what[r->py_what];
		uint64_t v = py_key(c, r->py_rank);
		int k;

		if (!c->calls)
			continue;
		for (k = n; k > 0; k--) {
			const struct rs_py_count *x = &py->locs[best[k - 1]].what[r->py_what];

			if (py_key(x, r->py_rank) >= v)
				break;
		}
		if (k == FINDING_PY)
			continue;
		if (n < FINDING_PY)
			n++;
		memmove(best + k + 1, best + k, (n - 1 - k) * sizeof(best[0]));
		best[k] = i;
	}
	if (!n)
		return;
	f->py_what = r->py_label;
	o = (size_t)snprintf(line, sizeof(line), "Python lines by %s:", r->py_label);
	for (int k = 0; k < n; k++) {
		const struct rs_py_loc *l = &py->locs[best[k]];
		const struct rs_py_count *c = &l->what[r->py_what];
		struct finding_py *p = &f->py[f->npy++];

		*p = (struct finding_py){rs_str(st, l->loc), c->calls, c->bytes, c->ns};
		if (o < sizeof(line))
			o += (size_t)snprintf(line + o, sizeof(line) - o, "%s %s (%s calls, %s)",
					      k ? ";" : "",
					      display_text(name, sizeof(name), rs_str(st, l->loc),
							   rs_strlen(st, l->loc), 96),
					      human_count(a, c->calls),
					      r->py_rank == PY_BY_TIME || (!c->bytes && c->ns)
						  ? human_ns(b, c->ns)
						  : human_bytes(b, c->bytes));
	}
	finding__evidence(f, "%s", line);
}
