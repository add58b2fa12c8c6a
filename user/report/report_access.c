// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Darshan's counters of each access to an application file, per file, per
 * (process, file) pair and in total: reads and writes, their sizes (bins and
 * exact counts), sequential, consecutive and random accesses, read/write
 * switches; and the open-file sessions that tell the bytes read again
 * while a file stayed open.
 */
#include "report/report_stats_internal.h"

#include <string.h>

/* ---- sizes ---- */

const char *const rs_size_bin_names[SIZE_BINS] = {
    "0-100", "100-1K", "1K-10K",   "10K-100K", "100K-1M",
    "1M-4M", "4M-10M", "10M-100M", "100M-1G",  "1G+",
};

int rs_size_bin(uint64_t b)
{
	/* Darshan's DARSHAN_BUCKET_INC: upper bounds inclusive */
	static const uint64_t upper[SIZE_BINS - 1] = {
	    100, 1024, 10240, 102400, 1048576, 4194304, 10485760, 104857600, 1073741824,
	};

	for (int i = 0; i < SIZE_BINS - 1; i++)
		if (b <= upper[i])
			return i;
	return SIZE_BINS - 1;
}

static void count_size(struct report_stats *st, int dir, uint64_t bytes, uint64_t n)
{
	uint64_t key = (uint64_t)dir << 63 | (bytes & ~(1ull << 63));
	uint32_t i = u64_index_get(&st->size_ix, key);

	if (i == U64_NONE) {
		if (st->nsizes >= SIZE_KEYS_MAX) {
			st->sizes_uncounted += n;
			return;
		}
		if (!GROW(st, st->sizes, st->cap_sizes, st->nsizes))
			return;
		if (u64_index_put(&st->size_ix, key, st->nsizes)) {
			st->oom = true;
			return;
		}
		i = st->nsizes++;
		st->sizes[i].key = key;
		st->sizes[i].count = 0;
	}
	st->sizes[i].count += n;
}

/* The calls an access stands for, and their time. */
static uint64_t access_calls(const struct rs_access *a)
{
	return a->calls ? a->calls : 1;
}

static uint64_t access_ns(const struct rs_access *a)
{
	return a->async ? 0 : a->calls ? a->dur : a->end - a->start;
}

/* ---- data accesses (application files) ---- */

static void session_add(struct rs_pair *p, int64_t off, uint64_t bytes)
{
	int64_t end = off + (int64_t)bytes;

	if (!p->sess_on) {
		p->sess_on = true;
		p->sess_min = off;
		p->sess_end = end;
		p->sess_bytes = 0;
	}
	if (off < p->sess_min)
		p->sess_min = off;
	if (end > p->sess_end)
		p->sess_end = end;
	p->sess_bytes += bytes;
}

/*
 * The session of a run's accesses: their offsets only go one way (stride
 * 0 or the size), so the first and the last bound it.
 */
static void session_add_run(struct rs_pair *p, const struct rs_access *a, int64_t last)
{
	uint64_t n = access_calls(a);

	session_add(p, a->offset, a->bytes);
	if (n > 1) {
		session_add(p, last, a->bytes);
		p->sess_bytes += (n - 2) * a->bytes;
	}
}

/*
 * A run's calls after its first (Darshan's counters of one direction):
 * each right after the one before (stride: the size), or at its offset
 * again (stride 0).
 */
static void run_others(const struct rs_access *a, uint64_t *seq, uint64_t *consec, uint64_t *random)
{
	uint64_t others = access_calls(a) - 1;

	if (a->stride) {
		*seq += others;
		*consec += others;
	} else {
		*random += others;
	}
}

void rs_session_end(struct report_stats *st, struct rs_pair *p)
{
	uint64_t span;

	if (!p->sess_on)
		return;
	p->sess_on = false;
	span = p->sess_end > p->sess_min ? (uint64_t)(p->sess_end - p->sess_min) : 0;
	if (p->sess_bytes > span) {
		st->files[p->file].reread_within_open += p->sess_bytes - span;
		p->reread += p->sess_bytes - span;
	}
}

void rs_app_read(struct report_stats *st, const struct rs_access *a)
{
	struct rs_file *f = &st->files[a->file];
	struct rs_pair *p = a->pair != NONE32 ? &st->pairs[a->pair] : NULL;
	struct rs_totals *t = &st->tot[SCOPE_APP];
	struct rs_thread *th = &st->threads[a->ti];
	struct rs_proc *pr = &st->procs[th->proc];
	uint64_t dur = access_ns(a), n = access_calls(a), bytes = a->bytes * n;

	st->origin[a->origin].reads += n;
	st->origin[a->origin].bytes_read += bytes;
	f->origins |= 1u << a->origin;
	pr->origins |= 1u << a->origin;
	f->reads += n;
	f->bytes_read += bytes;
	f->read_ns += dur;
	t->reads += n;
	t->bytes_read += bytes;
	t->read_ns += dur;
	st->hist[IO_DIR_READ][rs_size_bin(a->bytes)] += n;
	count_size(st, IO_DIR_READ, a->bytes, n);
	rs_python_what(st, PYW_READS, bytes, dur);
	if (a->bytes < SMALL_IO) {
		f->small_reads += n;
		t->small_reads += n;
		rs_python_what(st, PYW_SMALL_READS, bytes, dur);
	}
	th->app_read_ns += dur;
	th->app_bytes_read += bytes;
	th->app_reads += n;
	pr->app_bytes_read += bytes;
	pr->app_reads += n;
	pr->app_read_ns += dur;
	rs_timeline_add(st, st->tl_read, a->start, a->end, bytes);
	if (!p)
		return;
	if (!p->has_read) {
		f->readers++;
		p->first_read_ns = a->start;
	}
	p->last_read_ns = a->end;
	p->bytes_read += bytes;
	if (p->last_io == 2) {
		f->rw_switches++;
		t->rw_switches++;
	}
	p->last_io = 1;
	if (!a->has_offset) {
		t->no_offset += n;
	} else {
		bool seq = a->offset > p->last_byte_read;
		int64_t last = a->offset + (int64_t)((n - 1) * a->stride);

		if (seq) {
			f->seq_reads++;
			t->seq_reads++;
		}
		if (a->offset == p->last_byte_read + 1) {
			f->consec_reads++;
			t->consec_reads++;
		}
		if (!seq && !(!p->has_read && a->offset == 0)) {
			f->random_reads++;
			t->random_reads++;
			rs_python_what(st, PYW_RANDOM_READS, a->bytes, dur);
		}
		run_others(a, &f->seq_reads, &f->consec_reads, &f->random_reads);
		run_others(a, &t->seq_reads, &t->consec_reads, &t->random_reads);
		p->last_byte_read = last + (int64_t)a->bytes - 1;
		if (a->bytes && p->last_byte_read > f->max_byte_read)
			f->max_byte_read = p->last_byte_read;
		session_add_run(p, a, last);
	}
	p->has_read = true;
}

void rs_app_write(struct report_stats *st, const struct rs_access *a)
{
	struct rs_file *f = &st->files[a->file];
	struct rs_pair *p = a->pair != NONE32 ? &st->pairs[a->pair] : NULL;
	struct rs_totals *t = &st->tot[SCOPE_APP];
	struct rs_thread *th = &st->threads[a->ti];
	struct rs_proc *pr = &st->procs[th->proc];
	uint64_t dur = access_ns(a), n = access_calls(a), bytes = a->bytes * n;
	int64_t last;

	st->origin[a->origin].writes += n;
	st->origin[a->origin].bytes_written += bytes;
	f->origins |= 1u << a->origin;
	pr->origins |= 1u << a->origin;
	f->writes += n;
	f->bytes_written += bytes;
	f->write_ns += dur;
	t->writes += n;
	t->bytes_written += bytes;
	t->write_ns += dur;
	st->hist[IO_DIR_WRITE][rs_size_bin(a->bytes)] += n;
	count_size(st, IO_DIR_WRITE, a->bytes, n);
	rs_python_what(st, PYW_WRITES, bytes, dur);
	if (a->bytes < SMALL_IO) {
		f->small_writes += n;
		t->small_writes += n;
		rs_python_what(st, PYW_SMALL_WRITES, bytes, dur);
	}
	pr->app_bytes_written += bytes;
	pr->app_writes += n;
	pr->app_write_ns += dur;
	rs_timeline_add(st, st->tl_write, a->start, a->end, bytes);
	if (!p)
		return;
	if (p->last_io == 1) {
		f->rw_switches++;
		t->rw_switches++;
	}
	p->last_io = 2;
	if (!a->has_offset) {
		t->no_offset += n;
		return;
	}
	if (a->offset > p->last_byte_written) {
		f->seq_writes++;
		t->seq_writes++;
	} else if (!(!p->has_written && a->offset == 0)) {
		f->random_writes++;
		t->random_writes++;
		rs_python_what(st, PYW_RANDOM_WRITES, a->bytes, dur);
	}
	if (a->offset == p->last_byte_written + 1) {
		f->consec_writes++;
		t->consec_writes++;
	}
	run_others(a, &f->seq_writes, &f->consec_writes, &f->random_writes);
	run_others(a, &t->seq_writes, &t->consec_writes, &t->random_writes);
	last = a->offset + (int64_t)((n - 1) * a->stride);
	p->last_byte_written = last + (int64_t)a->bytes - 1;
	if (a->bytes && p->last_byte_written > f->max_byte_written)
		f->max_byte_written = p->last_byte_written;
	p->has_written = true;
}
