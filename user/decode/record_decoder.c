// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The decoder's lifecycle and its dispatch on a record's kind; each kind's
 * handler is in the file of its concern (record_decoder_internal.h).
 */
#define _GNU_SOURCE
#include "decode/record_decoder.h"

#include <string.h>
#include <unistd.h>

#include "decode/record_decoder_internal.h"

void decoder_init(struct record_decoder *d, struct event_consumer *out)
{
	memset(d, 0, sizeof(*d));
	process_table_init(&d->procs);
	inode_paths_init(&d->inodes);
	file_names_init(&d->files);
	span_handles_init(&d->span_names);
	span_threads_init(&d->span_threads);
	d->out = out;
	d->user_uid = -1;
	d->page_size = sysconf(_SC_PAGESIZE);
}

int decoder_python(struct record_decoder *d, const struct py_rules *rules, bool full)
{
	if (!d->py)
		d->py = py_frames_new();
	d->py_rules = rules;
	d->py_full = full;
	return d->py ? 0 : -1;
}

/* Whether the comma-separated list has word. */
static bool has_word(struct ev_str list, const char *word)
{
	size_t n = strlen(word);

	for (size_t i = 0; i + n <= list.len;) {
		const char *comma = memchr(list.s + i, ',', list.len - i);
		size_t len = comma ? (size_t)(comma - (list.s + i)) : list.len - i;

		if (len == n && !memcmp(list.s + i, word, n))
			return true;
		i += len + 1;
	}
	return false;
}

void decoder_begin(struct record_decoder *d, const struct ev_trace_begin *meta)
{
	struct event e = {.type = EV_TRACE_BEGIN, .begin = *meta};

	d->t0 = meta->start_mono_ns;
	/* library calls say what their syscalls did: keep each thread's totals */
	d->span_threads.on = has_word(meta->layers, "stdio") || has_word(meta->layers, "hdf5") ||
			     has_word(meta->layers, "mpiio");
	d->emitted++;
	event_deliver(d->out, &e);
}

void decoder_free(struct record_decoder *d)
{
	process_table_free(&d->procs);
	inode_paths_free(&d->inodes);
	file_names_free(&d->files);
	block_tracks_free(&d->blocks);
	span_handles_free(&d->span_names);
	span_threads_free(&d->span_threads);
	aio_requests_free(&d->aio);
	py_frames_free(d->py);
	d->py = NULL;
}

/* Smallest record of each kind beyond the syscalls. */
static size_t min_size(unsigned kind)
{
	switch (kind) {
	case DL_EV_FAULT:
		return sizeof(struct dl_fault);
	case DL_EV_BLOCK:
		return sizeof(struct dl_block);
	case DL_EV_URING:
		return sizeof(struct dl_uring);
	case DL_EV_VFS:
		return sizeof(struct dl_vfs);
	case DL_EV_VFS_OPEN:
		return sizeof(struct dl_path);
	case DL_EV_CGROUP:
		return sizeof(struct dl_cgroup);
	case DL_EV_SPAN:
		return sizeof(struct dl_span);
	case DL_EV_FILE:
		return sizeof(struct dl_file);
	case DL_EV_AIO:
		return sizeof(struct dl_aio);
	default:
		return sizeof(struct dl_proc);
	}
}

void decoder_handle(struct record_decoder *d, const void *rec, size_t size)
{
	const struct dl_hdr *h = rec;
	unsigned kind;

	if (size < sizeof(*h)) {
		d->malformed++;
		return;
	}
	kind = h->kind & DL_KIND_RUN ? h->kind & ~(DL_KIND_RUN | DL_KIND_RUN_SAME) : h->kind;
	if (kind >= DL_KIND_COUNT || (kind != h->kind && kind >= DL_SYS_COUNT)) {
		d->malformed++;
		return;
	}
	if (kind < DL_SYS_COUNT && (h->flags & DL_F_BATCH) && size > sizeof(struct dl_io)) {
		/* a task's batch of data records */
		for (size_t off = 0; off + sizeof(struct dl_io) <= size;
		     off += sizeof(struct dl_io))
			decoder_handle(d, (const char *)rec + off, sizeof(struct dl_io));
		return;
	}
	d->records++;
	d->by_kind[kind]++;
	if (h->ts > d->last_ts)
		d->last_ts = h->ts;
	if (kind != h->kind) {
		decoder__handle_run(d, rec, size);
		return;
	}
	if (h->kind < DL_SYS_COUNT) {
		decoder__handle_syscall(d, rec, size);
		return;
	}
	if (h->kind == DL_EV_PY_STACK || h->kind == DL_EV_PY_CODE) {
		/* sent before the first syscall record that uses them */
		if (d->py && py_frames_record(d->py, rec, size))
			d->malformed++;
		return;
	}
	if (size < min_size(h->kind)) {
		d->malformed++;
		return;
	}
	switch (h->kind) {
	case DL_EV_FAULT:
		decoder__handle_fault(d, rec);
		break;
	case DL_EV_BLOCK:
		block_tracks_add(&d->blocks, rec, d->t0, decoder__emit_block, d);
		break;
	case DL_EV_URING:
		decoder__handle_uring(d, rec);
		break;
	case DL_EV_VFS:
		decoder__handle_vfs(d, rec);
		break;
	case DL_EV_VFS_OPEN:
		decoder__handle_vfs_open(d, rec, size);
		break;
	case DL_EV_CGROUP: /* the daemon's business */
		break;
	case DL_EV_SPAN:
		decoder__handle_span(d, rec, size);
		break;
	case DL_EV_FILE:
		decoder__handle_file(d, rec, size);
		break;
	case DL_EV_AIO:
		decoder__handle_aio(d, rec);
		break;
	case DL_EV_FORK:
		decoder__handle_fork(d, rec);
		break;
	case DL_EV_EXEC:
		decoder__handle_exec(d, rec, size);
		break;
	case DL_EV_EXIT:
		decoder__handle_exit(d, rec);
		break;
	default:
		d->malformed++;
	}
}

void decoder_finish(struct record_decoder *d, struct ev_trace_end *end)
{
	struct event e = {.type = EV_TRACE_END};
	uint32_t key;
	void *v;

	block_tracks_finish(&d->blocks, d->t0, decoder__emit_block, d);
	while (d->aio.n) { /* requests still in flight: unreaped at the trace's end */
		struct aio_req *r = &d->aio.v[d->aio.n - 1];

		if (r->seq)
			decoder__aio_end(d, r, NULL, d->last_ts > r->ts ? d->last_ts : r->ts);
		aio_requests_remove(&d->aio, r);
	}
	for (size_t i = 0; id_map_next(&d->procs.procs, &i, &key, &v);)
		decoder__name_process(d, v);
	for (size_t i = 0; id_map_next(&d->procs.threads, &i, &key, &v);) {
		struct thread *t = v;

		decoder__emit_name(d, EV_THREAD_NAME, t->pid, t->tid, t->comm);
	}
	end->events = ++d->emitted;
	end->paths_unknown = d->paths_unknown;
	e.end = *end;
	event_deliver(d->out, &e);
}
