// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "format/perfetto/pftrace_writer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/perfetto/pftrace_fields.h"
#include "io/output_sink.h"
#include "lib/hash.h"
#include "lib/pb_writer.h"

/* Room before a packet for its frame: the key of Trace.packet and a length. */
#define FRAME_ROOM 8

static const uint8_t interned_field[PFT_INTERN_KINDS] = {
    [PFT_INTERN_CATEGORY] = PF_INTERNED_CATEGORIES,
    [PFT_INTERN_EVENT_NAME] = PF_INTERNED_EVENT_NAMES,
    [PFT_INTERN_ARG_NAME] = PF_INTERNED_ARG_NAMES,
    [PFT_INTERN_ARG_STRING] = PF_INTERNED_ARG_STRINGS,
};

/* ---- packets ---- */

struct packet {
	struct pb_writer pb;
	struct pft_seq *seq;
	uint64_t saved_ts;
};

static void packet_begin(struct pftrace_writer *w, struct packet *p, struct pft_seq *seq)
{
	pb_writer__init(&p->pb, w->buf + FRAME_ROOM, PFT_PACKET_MAX);
	p->seq = seq;
	p->saved_ts = seq->last_ts;
	w->nfresh = 0;
}

/* The packet's InternedData: the strings it used first. */
static void put_fresh(struct pftrace_writer *w, struct pb_writer *pb)
{
	if (!w->nfresh)
		return;
	pb_writer__begin(pb, PF_PACKET_INTERNED_DATA);
	for (uint32_t i = 0; i < w->nfresh; i++) {
		const struct pft_new_string *f = &w->fresh[i];

		pb_writer__begin(pb, interned_field[f->kind]);
		pb_writer__varint(pb, PF_INTERNED_IID, f->iid);
		pb_writer__bytes(pb, PF_INTERNED_STR, f->str.s, f->str.len);
		pb_writer__end(pb);
	}
	pb_writer__end(pb);
}

static void packet_write(struct pftrace_writer *w, struct packet *p)
{
	uint8_t head[1 + PB_VARINT_MAX];
	size_t len, n;

	put_fresh(w, &p->pb);
	if (p->pb.overflow) {
		/* Not written: its strings were not either, nor its timestamp. */
		w->dropped++;
		p->seq->last_ts = p->saved_ts;
		if (w->nfresh)
			p->seq->dirty = true;
		w->nfresh = 0;
		return;
	}
	w->nfresh = 0;
	len = pb_writer__size(&p->pb);
	head[0] = pb__key(PF_TRACE_PACKET, PB_WT_LEN);
	n = 1 + pb__varint_put(head + 1, len);
	memcpy(w->buf + FRAME_ROOM - n, head, n);
	sink_write(w->sink, w->buf + FRAME_ROOM - n, n + len);
	w->packets++;
}

static void put_timestamp(struct pb_writer *pb, struct pft_seq *seq, uint64_t ts)
{
	/* A delta; a negative one wraps, as trace processor adds it as int64. */
	pb_writer__varint(pb, PF_PACKET_TIMESTAMP, ts - seq->last_ts);
	seq->last_ts = ts;
}

static void put_sequence(struct pb_writer *pb, const struct pft_seq *seq, uint32_t flags)
{
	pb_writer__varint(pb, PF_PACKET_SEQUENCE_ID, seq->id);
	if (flags)
		pb_writer__varint(pb, PF_PACKET_SEQUENCE_FLAGS, flags);
}

static void put_clock(struct pb_writer *pb, uint32_t id, uint64_t ts, bool incremental)
{
	pb_writer__begin(pb, PF_CLOCKS_CLOCK);
	pb_writer__varint(pb, PF_CLOCK_ID, id);
	pb_writer__varint(pb, PF_CLOCK_TIMESTAMP, ts);
	if (incremental)
		pb_writer__varint(pb, PF_CLOCK_INCREMENTAL, 1);
	pb_writer__end(pb);
}

/*
 * (Re)start a sequence: clear its incremental state, set its defaults (the
 * track, the clock) and tie its clock's current value to CLOCK_MONOTONIC.
 */
static void seq_start(struct pftrace_writer *w, struct pft_seq *seq, uint32_t id)
{
	struct packet p;
	bool meta = seq == &w->meta;
	pftrace_seen__clear(&seq->seen);
	seq->generation = w->generation;
	seq->dirty = false;
	seq->id = id;
	packet_begin(w, &p, seq);
	put_sequence(&p.pb, seq, PFT_SEQ_INCREMENTAL_STATE_CLEARED);
	pb_writer__begin(&p.pb, PF_PACKET_DEFAULTS);
	pb_writer__varint(&p.pb, PF_DEFAULTS_CLOCK_ID, PFT_CLOCK_ID);
	pb_writer__begin(&p.pb, PF_DEFAULTS_TRACK_EVENT);
	pb_writer__varint(&p.pb, PF_TE_DEFAULTS_TRACK_UUID, seq->track);
	pb_writer__end(&p.pb);
	pb_writer__end(&p.pb);
	pb_writer__begin(&p.pb, PF_PACKET_CLOCK_SNAPSHOT);
	put_clock(&p.pb, PFT_CLOCK_ID, seq->last_ts, true);
	put_clock(&p.pb, PFT_BUILTIN_MONOTONIC, w->start_mono_ns + seq->last_ts, false);
	if (meta) {
		put_clock(&p.pb, PFT_BUILTIN_REALTIME, w->start_wall_ns + seq->last_ts, false);
		pb_writer__varint(&p.pb, PF_CLOCKS_PRIMARY, PFT_BUILTIN_MONOTONIC);
	}
	pb_writer__end(&p.pb);
	packet_write(w, &p);
}

/* The sequence, ready for a packet that may add strings. */
static struct pft_seq *seq_ready(struct pftrace_writer *w, struct pft_seq *seq)
{
	if (pftrace_intern__full(&w->intern)) {
		/* Every sequence clears its state before it uses the new numbers. */
		pftrace_intern__clear(&w->intern);
		w->generation++;
	}
	if (!seq->id)
		seq_start(w, seq, seq == &w->meta ? PFT_META_SEQ : w->next_seq++);
	else if (seq->dirty || seq->generation != w->generation)
		seq_start(w, seq, seq->id);
	return seq;
}

/* ---- interning ---- */

/* iid, numbered in the table, as seq will know it: written with the packet if seq has not seen it.
 */
static uint32_t intern_seen(struct pftrace_writer *w, struct pft_seq *seq,
			    enum pft_intern_kind kind, struct pft_str s, uint32_t iid)
{
	int fresh = pftrace_seen__add(&seq->seen, kind, iid);

	if (fresh < 0) {
		seq->dirty = true;
		return 0;
	}
	if (!fresh)
		return iid;
	if (w->nfresh == w->fresh_cap) {
		uint32_t n = w->fresh_cap ? 2 * w->fresh_cap : 64;
		struct pft_new_string *f = realloc(w->fresh, n * sizeof(*f));

		if (!f) {
			/* Never written, so not usable: clear the sequence's state. */
			seq->dirty = true;
			return 0;
		}
		w->fresh = f;
		w->fresh_cap = n;
	}
	w->fresh[w->nfresh++] = (struct pft_new_string){kind, iid, s};
	return iid;
}

static uint32_t intern(struct pftrace_writer *w, struct pft_seq *seq, enum pft_intern_kind kind,
		       struct pft_str s)
{
	bool added;
	uint32_t iid = pftrace_intern__get(&w->intern, kind, s.s, s.len, &added);

	return iid ? intern_seen(w, seq, kind, s, iid) : 0;
}

/* An argument name whose bytes never change at its address: the memo spares the table's lookup. */
static uint32_t intern_static_key(struct pftrace_writer *w, struct pft_seq *seq, struct pft_str s)
{
	struct pft_key_memo *m = &w->key_memo[fib_hash((uintptr_t)s.s ^ (uint64_t)s.len << 48) >>
					      (64 - PFT_KEY_MEMO_BITS)];
	uint32_t iid;

	if (m->s == s.s && m->len == s.len && m->generation == w->generation)
		return intern_seen(w, seq, PFT_INTERN_ARG_NAME, s, m->iid);
	iid = intern(w, seq, PFT_INTERN_ARG_NAME, s);
	if (iid)
		*m = (struct pft_key_memo){s.s, s.len, iid, w->generation};
	return iid;
}

/* ---- tracks ---- */

static void put_track_descriptor_begin(struct pftrace_writer *w, struct packet *p, uint64_t uuid)
{
	packet_begin(w, p, &w->meta);
	put_sequence(&p->pb, &w->meta, 0);
	pb_writer__begin(&p->pb, PF_PACKET_TRACK_DESCRIPTOR);
	pb_writer__varint(&p->pb, PF_TD_UUID, uuid);
}

static void put_track_descriptor_end(struct pftrace_writer *w, struct packet *p)
{
	pb_writer__end(&p->pb);
	packet_write(w, p);
}

static void process_descriptor(struct pftrace_writer *w, uint64_t uuid, uint32_t pid,
			       const struct pft_str *name, const struct pft_str *labels,
			       uint32_t nlabels)
{
	struct packet p;

	put_track_descriptor_begin(w, &p, uuid);
	pb_writer__begin(&p.pb, PF_TD_PROCESS);
	pb_writer__varint(&p.pb, PF_PROCESS_PID, pid);
	if (name)
		pb_writer__bytes(&p.pb, PF_PROCESS_NAME, name->s, name->len);
	for (uint32_t i = 0; i < nlabels; i++)
		pb_writer__bytes(&p.pb, PF_PROCESS_LABELS, labels[i].s, labels[i].len);
	pb_writer__end(&p.pb);
	put_track_descriptor_end(w, &p);
}

static void thread_descriptor(struct pftrace_writer *w, const struct pft_thread *t, uint64_t parent,
			      const struct pft_str *name)
{
	struct packet p;

	put_track_descriptor_begin(w, &p, t->track);
	pb_writer__varint(&p.pb, PF_TD_PARENT_UUID, parent);
	pb_writer__begin(&p.pb, PF_TD_THREAD);
	pb_writer__varint(&p.pb, PF_THREAD_PID, t->pid);
	pb_writer__varint(&p.pb, PF_THREAD_TID, t->tid);
	if (name)
		pb_writer__bytes(&p.pb, PF_THREAD_NAME, name->s, name->len);
	pb_writer__end(&p.pb);
	put_track_descriptor_end(w, &p);
}

/* The process's track, described when first seen; 0 when out of memory. */
static uint64_t process_track(struct pftrace_writer *w, uint32_t pid)
{
	uint32_t at = u64_index_get(&w->process_at, pid);
	uint64_t uuid;

	if (at != U64_NONE)
		return (uint64_t)at + 2;
	/* values are uuid - 2, so they stay 32-bit */
	uuid = w->next_track++;
	if (u64_index_put(&w->process_at, pid, uuid - 2))
		return 0;
	process_descriptor(w, uuid, pid, NULL, NULL, 0);
	return uuid;
}

static struct pft_thread *thread_get(struct pftrace_writer *w, uint32_t pid, uint32_t tid)
{
	uint64_t key = (uint64_t)pid << 32 | tid;
	uint32_t at = u64_index_get(&w->thread_at, key);
	struct pft_thread *t;
	uint64_t parent;

	if (at != U64_NONE)
		return &w->threads[at];
	parent = process_track(w, pid);
	if (!parent)
		return NULL;
	if (w->nthreads == w->threads_cap) {
		uint32_t n = w->threads_cap ? 2 * w->threads_cap : 64;
		struct pft_thread *a = realloc(w->threads, n * sizeof(*a));

		if (!a)
			return NULL;
		w->threads = a;
		w->threads_cap = n;
	}
	if (u64_index_put(&w->thread_at, key, w->nthreads))
		return NULL;
	t = &w->threads[w->nthreads++];
	*t = (struct pft_thread){.pid = pid, .tid = tid, .track = w->next_track++};
	return t;
}

/*
 * The thread's sequence, ready to write; NULL when out of memory.  on_track:
 * the event goes on the thread's own track, so the track is described (a
 * sequence that only writes on other tracks, as a block device's, leaves
 * no empty thread track).
 */
static struct pft_seq *thread_seq(struct pftrace_writer *w, uint32_t pid, uint32_t tid,
				  bool on_track)
{
	struct pft_thread *t = thread_get(w, pid, tid);

	if (!t)
		return NULL;
	if (on_track && !t->described) {
		thread_descriptor(w, t, process_track(w, pid), NULL);
		t->described = true;
	}
	if (!t->seq) {
		t->seq = calloc(1, sizeof(*t->seq));
		if (!t->seq)
			return NULL;
		t->seq->track = t->track;
	}
	return seq_ready(w, t->seq);
}

void pftrace_thread_release(struct pftrace_writer *w, uint32_t pid, uint32_t tid)
{
	uint32_t at = u64_index_get(&w->thread_at, (uint64_t)pid << 32 | tid);
	struct pft_thread *t;

	if (at == U64_NONE)
		return;
	t = &w->threads[at];
	if (t->seq) {
		pftrace_seen__free(&t->seq->seen);
		free(t->seq);
		t->seq = NULL;
	}
}

void pftrace_process_name_labels(struct pftrace_writer *w, uint32_t pid, struct pft_str name,
				 const struct pft_str *labels, uint32_t nlabels)
{
	uint64_t uuid = process_track(w, pid);

	if (uuid)
		process_descriptor(w, uuid, pid, &name, labels, nlabels);
}

void pftrace_process_name(struct pftrace_writer *w, uint32_t pid, struct pft_str name)
{
	pftrace_process_name_labels(w, pid, name, NULL, 0);
}

void pftrace_thread_name(struct pftrace_writer *w, uint32_t pid, uint32_t tid, struct pft_str name)
{
	struct pft_thread *t = thread_get(w, pid, tid);

	if (t) {
		thread_descriptor(w, t, process_track(w, pid), &name);
		t->described = true;
	}
}

/* ---- track events ---- */

static void put_args(struct pftrace_writer *w, struct packet *p, const struct pft_arg *args,
		     uint32_t nargs, uint32_t field);

static void put_arg(struct pftrace_writer *w, struct packet *p, const struct pft_arg *a,
		    uint32_t field)
{
	struct pb_writer *pb = &p->pb;
	uint32_t iid;

	pb_writer__begin(pb, field);
	iid = a->key_static ? intern_static_key(w, p->seq, a->key)
			    : intern(w, p->seq, PFT_INTERN_ARG_NAME, a->key);
	if (iid)
		pb_writer__varint(pb, PF_DA_NAME_IID, iid);
	else
		pb_writer__bytes(pb, PF_DA_NAME, a->key.s, a->key.len);
	switch (a->type) {
	case PFT_ARG_U64:
		pb_writer__varint(pb, PF_DA_UINT, a->u);
		break;
	case PFT_ARG_I64:
		pb_writer__varint(pb, PF_DA_INT, (uint64_t)a->i);
		break;
	case PFT_ARG_STR:
	case PFT_ARG_PATH:
		iid = intern(w, p->seq, PFT_INTERN_ARG_STRING, a->s);
		if (iid)
			pb_writer__varint(pb, PF_DA_STRING_IID, iid);
		else
			pb_writer__bytes(pb, PF_DA_STRING, a->s.s, a->s.len);
		break;
	case PFT_ARG_BOOL:
		pb_writer__varint(pb, PF_DA_BOOL, a->b);
		break;
	case PFT_ARG_DOUBLE:
		pb_writer__double(pb, PF_DA_DOUBLE, a->d);
		break;
	case PFT_ARG_US:
		pb_writer__double(pb, PF_DA_DOUBLE, a->u / 1e3);
		break;
	case PFT_ARG_DICT:
		put_args(w, p, a->dict.args, a->dict.n, PF_DA_DICT_ENTRIES);
		break;
	case PFT_ARG_HEX:
		pb_writer__varint(pb, PF_DA_POINTER, a->u);
		break;
	}
	pb_writer__end(pb);
}

static void put_args(struct pftrace_writer *w, struct packet *p, const struct pft_arg *args,
		     uint32_t nargs, uint32_t field)
{
	for (uint32_t i = 0; i < nargs; i++)
		put_arg(w, p, &args[i], field);
}

/* The head of a TrackEvent: type, track (when not the sequence's), category, name. */
static void put_event_head(struct pftrace_writer *w, struct packet *p, uint32_t type,
			   uint64_t track, const struct pft_str *name, const struct pft_str *cat)
{
	struct pb_writer *pb = &p->pb;

	pb_writer__begin(pb, PF_PACKET_TRACK_EVENT);
	pb_writer__varint(pb, PF_TE_TYPE, type);
	if (track != p->seq->track)
		pb_writer__varint(pb, PF_TE_TRACK_UUID, track);
	if (cat && cat->len) {
		uint32_t iid = intern(w, p->seq, PFT_INTERN_CATEGORY, *cat);

		if (iid)
			pb_writer__varint(pb, PF_TE_CATEGORY_IIDS, iid);
		else
			pb_writer__bytes(pb, PF_TE_CATEGORIES, cat->s, cat->len);
	}
	if (name) {
		uint32_t iid = intern(w, p->seq, PFT_INTERN_EVENT_NAME, *name);

		if (iid)
			pb_writer__varint(pb, PF_TE_NAME_IID, iid);
		else
			pb_writer__bytes(pb, PF_TE_NAME, name->s, name->len);
	}
}

/*
 * One TrackEvent packet on seq.  Protobuf fields may come in any order:
 * the timestamp comes first, except in a slice's END (ts_last), where it
 * comes last.  Then an END's duration and the next BEGIN's delta sit
 * together with the few bytes between them, and gzip sees one run of
 * changing bytes per event instead of two.
 */
static void track_event(struct pftrace_writer *w, struct pft_seq *seq, uint64_t ts, uint32_t type,
			uint64_t track, const struct pft_str *name, const struct pft_str *cat,
			const struct pft_arg *args, uint32_t nargs, uint64_t flow_out,
			uint64_t flow_in, uint64_t correlation)
{
	bool ts_last = type != PF_TYPE_SLICE_END;
	struct packet p;

	packet_begin(w, &p, seq);
	if (!ts_last)
		put_timestamp(&p.pb, seq, ts);
	put_sequence(&p.pb, seq, PFT_SEQ_NEEDS_INCREMENTAL_STATE);
	put_event_head(w, &p, type, track, name, cat);
	if (flow_out)
		pb_writer__fixed64(&p.pb, PF_TE_FLOW_IDS, flow_out);
	if (flow_in)
		pb_writer__fixed64(&p.pb, PF_TE_TERMINATING_FLOW_IDS, flow_in);
	if (correlation)
		pb_writer__varint(&p.pb, PF_TE_CORRELATION_ID, correlation);
	put_args(w, &p, args, nargs, PF_TE_DEBUG_ANNOTATIONS);
	pb_writer__end(&p.pb);
	if (ts_last)
		put_timestamp(&p.pb, seq, ts);
	packet_write(w, &p);
}

void pftrace_slice(struct pftrace_writer *w, uint32_t pid, uint32_t tid, uint64_t ts, uint64_t dur,
		   struct pft_str name, struct pft_str cat, const struct pft_arg *args,
		   uint32_t nargs, uint64_t flow_out, uint64_t flow_in)
{
	struct pft_seq *seq = thread_seq(w, pid, tid, true);

	if (!seq) {
		w->dropped++;
		return;
	}
	track_event(w, seq, ts, PF_TYPE_SLICE_BEGIN, seq->track, &name, &cat, args, nargs, flow_out,
		    flow_in, 0);
	track_event(w, seq, ts + dur, PF_TYPE_SLICE_END, seq->track, NULL, NULL, NULL, 0, 0, 0, 0);
}

void pftrace_slice_begin(struct pftrace_writer *w, uint32_t pid, uint32_t tid, uint64_t ts,
			 struct pft_str name, struct pft_str cat, const struct pft_arg *args,
			 uint32_t nargs)
{
	struct pft_seq *seq = thread_seq(w, pid, tid, true);

	if (!seq) {
		w->dropped++;
		return;
	}
	track_event(w, seq, ts, PF_TYPE_SLICE_BEGIN, seq->track, &name, &cat, args, nargs, 0, 0, 0);
}

void pftrace_slice_end(struct pftrace_writer *w, uint32_t pid, uint32_t tid, uint64_t ts,
		       struct pft_str name, struct pft_str cat, const struct pft_arg *args,
		       uint32_t nargs)
{
	struct pft_seq *seq = thread_seq(w, pid, tid, true);

	if (!seq) {
		w->dropped++;
		return;
	}
	track_event(w, seq, ts, PF_TYPE_SLICE_END, seq->track, &name, &cat, args, nargs, 0, 0, 0);
}

void pftrace_instant(struct pftrace_writer *w, uint32_t pid, uint32_t tid, uint64_t ts,
		     struct pft_str name, struct pft_str cat, const struct pft_arg *args,
		     uint32_t nargs)
{
	struct pft_seq *seq = thread_seq(w, pid, tid, true);

	if (!seq) {
		w->dropped++;
		return;
	}
	track_event(w, seq, ts, PF_TYPE_INSTANT, seq->track, &name, &cat, args, nargs, 0, 0, 0);
}

void pftrace_flow(struct pftrace_writer *w, uint32_t pid, uint32_t tid, uint64_t ts,
		  struct pft_str name, struct pft_str cat, const struct pft_arg *args,
		  uint32_t nargs, uint64_t flow_out, uint64_t flow_in)
{
	struct pft_seq *seq = thread_seq(w, pid, tid, true);

	if (!seq) {
		w->dropped++;
		return;
	}
	track_event(w, seq, ts, PF_TYPE_INSTANT, seq->track, &name, &cat, args, nargs, flow_out,
		    flow_in, 0);
}

void pftrace_meta(struct pftrace_writer *w, uint64_t ts, struct pft_str name, struct pft_str cat,
		  const struct pft_arg *args, uint32_t nargs)
{
	struct pft_seq *seq = seq_ready(w, &w->meta);

	track_event(w, seq, ts, PF_TYPE_INSTANT, PFT_META_TRACK, &name, &cat, args, nargs, 0, 0, 0);
}

/* Arguments with their names and strings written out (no interning). */
static void put_plain_args(struct pb_writer *pb, const struct pft_arg *args, uint32_t nargs,
			   uint32_t field)
{
	for (uint32_t i = 0; i < nargs; i++) {
		const struct pft_arg *a = &args[i];

		pb_writer__begin(pb, field);
		pb_writer__bytes(pb, PF_DA_NAME, a->key.s, a->key.len);
		switch (a->type) {
		case PFT_ARG_U64:
			pb_writer__varint(pb, PF_DA_UINT, a->u);
			break;
		case PFT_ARG_I64:
			pb_writer__varint(pb, PF_DA_INT, (uint64_t)a->i);
			break;
		case PFT_ARG_STR:
		case PFT_ARG_PATH:
			pb_writer__bytes(pb, PF_DA_STRING, a->s.s, a->s.len);
			break;
		case PFT_ARG_BOOL:
			pb_writer__varint(pb, PF_DA_BOOL, a->b);
			break;
		case PFT_ARG_DOUBLE:
			pb_writer__double(pb, PF_DA_DOUBLE, a->d);
			break;
		case PFT_ARG_US:
			pb_writer__double(pb, PF_DA_DOUBLE, a->u / 1e3);
			break;
		case PFT_ARG_DICT:
			put_plain_args(pb, a->dict.args, a->dict.n, PF_DA_DICT_ENTRIES);
			break;
		case PFT_ARG_HEX:
			pb_writer__varint(pb, PF_DA_POINTER, a->u);
			break;
		}
		pb_writer__end(pb);
	}
}

/*
 * The summary's packet:
 *
 *   0a LEN                                   Trace.packet
 *      50 01                                 trusted_packet_sequence_id 1 (metadata)
 *      d0 03 03                              timestamp_clock_id 3 (CLOCK_MONOTONIC)
 *      40 <start_mono_ns + ts>               timestamp, absolute
 *      5a LEN                                track_event
 *         48 03                              type INSTANT
 *         58 01                              track_uuid 1 ("dltrace")
 *         ba 01 LEN "dltrace_summary"        name
 *         22 LEN { 52 LEN key, 18 value }    debug_annotations, names and strings inline
 *
 * It needs nothing of the sequence's incremental state, so it stays right
 * wherever the sink puts it.
 */
size_t pftrace_meta_packet(struct pftrace_writer *w, uint64_t ts, struct pft_str name,
			   const struct pft_arg *args, uint32_t nargs, uint8_t *out, size_t size)
{
	uint8_t head[1 + PB_VARINT_MAX];
	struct pb_writer pb;
	size_t len, n;

	if (size <= FRAME_ROOM)
		return 0;
	pb_writer__init(&pb, out + FRAME_ROOM, size - FRAME_ROOM);
	pb_writer__varint(&pb, PF_PACKET_SEQUENCE_ID, PFT_META_SEQ);
	pb_writer__varint(&pb, PF_PACKET_CLOCK_ID, PFT_BUILTIN_MONOTONIC);
	pb_writer__varint(&pb, PF_PACKET_TIMESTAMP, w->start_mono_ns + ts);
	pb_writer__begin(&pb, PF_PACKET_TRACK_EVENT);
	pb_writer__varint(&pb, PF_TE_TYPE, PF_TYPE_INSTANT);
	pb_writer__varint(&pb, PF_TE_TRACK_UUID, PFT_META_TRACK);
	pb_writer__bytes(&pb, PF_TE_NAME, name.s, name.len);
	put_plain_args(&pb, args, nargs, PF_TE_DEBUG_ANNOTATIONS);
	pb_writer__end(&pb);
	if (pb.overflow)
		return 0;
	len = pb_writer__size(&pb);
	head[0] = pb__key(PF_TRACE_PACKET, PB_WT_LEN);
	n = 1 + pb__varint_put(head + 1, len);
	memmove(out + n, out + FRAME_ROOM, len);
	memcpy(out, head, n);
	return n + len;
}

/* ---- lanes and counters ---- */

/* The id of parent + text in idx (NUL-separated key); STRING_NONE when out of memory. */
static uint32_t keyed(struct string_index *idx, uint64_t parent, struct pft_str a,
		      const struct pft_str *b, bool *added)
{
	char stack[256], *key = stack;
	size_t n = sizeof(parent) + a.len + (b ? 1 + b->len : 0);
	uint32_t before = idx->count, id;

	if (n > sizeof(stack) && !(key = malloc(n)))
		return STRING_NONE;
	memcpy(key, &parent, sizeof(parent));
	memcpy(key + sizeof(parent), a.s, a.len);
	if (b) {
		key[sizeof(parent) + a.len] = 0;
		memcpy(key + sizeof(parent) + a.len + 1, b->s, b->len);
	}
	id = string_index_put(idx, key, n);
	*added = id != STRING_NONE && idx->count != before;
	if (key != stack)
		free(key);
	return id;
}

static void named_track(struct pftrace_writer *w, uint64_t uuid, uint64_t parent,
			struct pft_str name, const struct pft_str *suffix, bool counter)
{
	struct packet p;
	char stack[256], *s = stack;
	size_t n = name.len + (suffix ? 1 + suffix->len : 0);

	if (n > sizeof(stack) && !(s = malloc(n)))
		return;
	memcpy(s, name.s, name.len);
	if (suffix) {
		s[name.len] = ' ';
		memcpy(s + name.len + 1, suffix->s, suffix->len);
	}
	put_track_descriptor_begin(w, &p, uuid);
	pb_writer__bytes(&p.pb, PF_TD_NAME, s, n);
	pb_writer__varint(&p.pb, PF_TD_PARENT_UUID, parent);
	if (counter) {
		pb_writer__begin(&p.pb, PF_TD_COUNTER);
		pb_writer__end(&p.pb);
	}
	put_track_descriptor_end(w, &p);
	if (s != stack)
		free(s);
}

/*
 * A lane of group (parent, name) free at ts, reserved until its request
 * ends (pftrace_async_end); its indexes into req.  0 when out of memory.
 */
static uint64_t lane_reserve(struct pftrace_writer *w, uint64_t parent, struct pft_str name,
			     uint64_t ts, struct pft_pending *req)
{
	bool added;
	uint32_t id = keyed(&w->groups, parent, name, NULL, &added);
	struct pft_lane_group *g;
	struct pft_lane *l;

	if (id == STRING_NONE)
		return 0;
	if (added) {
		struct pft_lane_group *a = realloc(w->group, (w->ngroups + 1) * sizeof(*a));

		if (!a)
			return 0;
		w->group = a;
		w->group[w->ngroups++] = (struct pft_lane_group){.parent = parent};
	}
	g = &w->group[id];
	req->group = id;
	for (uint32_t i = 0; i < g->n; i++) {
		/* Only after every request on it: then none can overlap. */
		if (g->lanes[i].end <= ts) {
			g->lanes[i].end = UINT64_MAX;
			req->lane = i;
			return g->lanes[i].track;
		}
	}
	if (g->n == g->cap) {
		uint32_t n = g->cap ? 2 * g->cap : 4;
		struct pft_lane *a = realloc(g->lanes, n * sizeof(*a));

		if (!a)
			return 0;
		g->lanes = a;
		g->cap = n;
	}
	req->lane = g->n;
	l = &g->lanes[g->n++];
	l->track = w->next_track++;
	l->end = UINT64_MAX;
	named_track(w, l->track, parent, name, NULL, false);
	return l->track;
}

void pftrace_async_begin(struct pftrace_writer *w, uint32_t pid, uint32_t tid, uint32_t group_pid,
			 bool thread_track, uint64_t ts, struct pft_str name, struct pft_str cat,
			 const struct pft_arg *args, uint32_t nargs, uint64_t id)
{
	struct pft_seq *seq = thread_seq(w, pid, tid, thread_track);
	uint64_t parent = process_track(w, group_pid), lane = 0;
	struct pft_pending req = {.group_pid = group_pid, .id = id};

	if (w->npending == w->pending_cap) {
		uint32_t n = w->pending_cap ? 2 * w->pending_cap : 16;
		struct pft_pending *a = realloc(w->pending, n * sizeof(*a));

		if (a) {
			w->pending = a;
			w->pending_cap = n;
		}
	}
	if (seq && parent && w->npending < w->pending_cap)
		lane = lane_reserve(w, parent, name, ts, &req);
	if (!lane) {
		w->dropped++;
		return;
	}
	w->pending[w->npending++] = req;
	track_event(w, seq, ts, PF_TYPE_SLICE_BEGIN, lane, &name, &cat, args, nargs, 0, 0, id);
}

bool pftrace_async_end(struct pftrace_writer *w, uint32_t pid, uint32_t tid, uint32_t group_pid,
		       uint64_t ts, const struct pft_arg *args, uint32_t nargs, uint64_t id)
{
	struct pft_seq *seq;
	struct pft_lane *lane;
	uint32_t i;

	/* the latest request first: an end mostly follows its begin */
	for (i = w->npending; i-- > 0;)
		if (w->pending[i].id == id && w->pending[i].group_pid == group_pid)
			break;
	if (i == UINT32_MAX)
		return false;
	if (!(seq = thread_seq(w, pid, tid, false))) {
		w->dropped++;
		return true;
	}
	lane = &w->group[w->pending[i].group].lanes[w->pending[i].lane];
	lane->end = ts;
	w->pending[i] = w->pending[--w->npending];
	track_event(w, seq, ts, PF_TYPE_SLICE_END, lane->track, NULL, NULL, args, nargs, 0, 0, 0);
	return true;
}

static uint64_t counter_track(struct pftrace_writer *w, uint64_t parent, struct pft_str name,
			      struct pft_str key)
{
	bool added;
	uint32_t id = keyed(&w->counter_names, parent, name, &key, &added);

	if (id == STRING_NONE)
		return 0;
	if (added) {
		uint64_t *a = realloc(w->counter_track, (w->ncounters + 1) * sizeof(*a));

		if (!a)
			return 0;
		w->counter_track = a;
		a[w->ncounters++] = w->next_track++;
		named_track(w, a[id], parent, name, &key, true);
	}
	return w->counter_track[id];
}

static double arg_number(const struct pft_arg *a)
{
	switch (a->type) {
	case PFT_ARG_U64:
	case PFT_ARG_HEX:
		return a->u;
	case PFT_ARG_I64:
		return a->i;
	case PFT_ARG_DOUBLE:
		return a->d;
	case PFT_ARG_US:
		return a->u / 1e3;
	case PFT_ARG_BOOL:
		return a->b;
	default:
		return 0;
	}
}

void pftrace_counter(struct pftrace_writer *w, uint32_t pid, uint32_t tid, bool thread_track,
		     uint64_t ts, struct pft_str name, struct pft_str cat,
		     const struct pft_arg *values, uint32_t nvalues)
{
	struct pft_seq *seq = thread_seq(w, pid, tid, thread_track);
	uint64_t parent = process_track(w, pid), first = 0, track;
	struct packet p;

	if (!seq || !parent || !nvalues) {
		w->dropped++;
		return;
	}
	/* Every track described before the packet that uses them. */
	for (uint32_t i = 0; i < nvalues; i++) {
		if (!(track = counter_track(w, parent, name, values[i].key))) {
			w->dropped++;
			return;
		}
		if (!i)
			first = track;
	}
	packet_begin(w, &p, seq);
	put_event_head(w, &p, PF_TYPE_COUNTER, first, &name, &cat);
	pb_writer__double(&p.pb, PF_TE_DOUBLE_COUNTER_VALUE, arg_number(&values[0]));
	for (uint32_t i = 1; i < nvalues; i++)
		pb_writer__varint(&p.pb, PF_TE_EXTRA_DOUBLE_COUNTER_TRACKS,
				  counter_track(w, parent, name, values[i].key));
	for (uint32_t i = 1; i < nvalues; i++)
		pb_writer__double(&p.pb, PF_TE_EXTRA_DOUBLE_COUNTER_VALUES, arg_number(&values[i]));
	/* the values as the event gave them, for readers (typed, named) */
	put_args(w, &p, values, nvalues, PF_TE_DEBUG_ANNOTATIONS);
	pb_writer__end(&p.pb);
	put_timestamp(&p.pb, seq, ts);
	put_sequence(&p.pb, seq, PFT_SEQ_NEEDS_INCREMENTAL_STATE);
	packet_write(w, &p);
}

/* ---- the writer ---- */

int pftrace_writer_init(struct pftrace_writer *w, struct output_sink *sink, uint64_t start_mono_ns,
			int64_t start_wall_ns)
{
	struct packet p;

	memset(w, 0, sizeof(*w));
	w->sink = sink;
	w->start_mono_ns = start_mono_ns;
	w->start_wall_ns = start_wall_ns;
	w->buf = malloc(FRAME_ROOM + PFT_PACKET_MAX);
	if (!w->buf)
		return -ENOMEM;
	u64_index_init(&w->thread_at);
	u64_index_init(&w->process_at);
	string_index_init(&w->groups);
	string_index_init(&w->counter_names);
	pftrace_intern__init(&w->intern);
	w->meta.track = PFT_META_TRACK;
	w->next_track = PFT_META_TRACK + 1;
	w->next_seq = PFT_META_SEQ + 1;
	seq_ready(w, &w->meta);
	put_track_descriptor_begin(w, &p, PFT_META_TRACK);
	pb_writer__bytes(&p.pb, PF_TD_NAME, "dltrace", 7);
	put_track_descriptor_end(w, &p);
	return 0;
}

void pftrace_writer_free(struct pftrace_writer *w)
{
	for (uint32_t i = 0; i < w->nthreads; i++)
		pftrace_thread_release(w, w->threads[i].pid, w->threads[i].tid);
	for (uint32_t i = 0; i < w->ngroups; i++)
		free(w->group[i].lanes);
	pftrace_intern__free(&w->intern);
	pftrace_seen__free(&w->meta.seen);
	u64_index_free(&w->thread_at);
	u64_index_free(&w->process_at);
	string_index_free(&w->groups);
	string_index_free(&w->counter_names);
	free(w->group);
	free(w->pending);
	free(w->counter_track);
	free(w->threads);
	free(w->fresh);
	free(w->buf);
	memset(w, 0, sizeof(*w));
}
