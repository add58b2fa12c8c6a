/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Perfetto's protobuf trace format (.pftrace): the same events as the
 * Chrome JSON trace, a few bytes each.
 *
 * Design
 * ------
 * File.  A Perfetto trace is a `Trace` message: nothing but its repeated
 * field 1, one TracePacket each, so the file is written packet by packet
 * (key 0x0a, varint length, packet) and any prefix of whole packets is a
 * valid trace.  Each event is one or two packets holding a TrackEvent.
 *
 * Tracks.  Every process is a process track (TrackDescriptor.process: pid,
 * process_name = its command line), every thread a thread track under it
 * (TrackDescriptor.thread: pid, tid, thread_name).  The descriptors are
 * written before the first event on the track and again when it is named.
 * Block devices are processes as in the JSON (their pseudo pid), with no
 * thread track.  One global track named "dltrace" holds the trace's
 * metadata and summary.
 *
 * Events.  A syscall, a VFS call, a fork and a complete span are slices:
 * TYPE_SLICE_BEGIN (name, category, arguments) then a nameless
 * TYPE_SLICE_END, written together when the slice is delivered (at its
 * end), so they are adjacent in the file.  A span's separate begin ('B')
 * is a lone SLICE_BEGIN, its end ('E') a SLICE_END that carries its name:
 * that is how a reader tells the three apart.  Exec, exit, page faults,
 * vfs_open and rw checks are TYPE_INSTANT on the thread track.  A fork's
 * arrow is a flow: flow_ids on the parent's "fork"/"thread_create" slice,
 * terminating_flow_ids on the child's "process_start"/"thread_start".
 * Block and io_uring requests overlap, so they cannot share one slice
 * track; each goes on a "lane": a track named after the operation (e.g.
 * "read"), under the process (device) track, that no other request
 * overlaps while it runs.  A request's begin takes a lane that every
 * earlier request has left, its end (found by the request's id) frees it
 * at its time; the begin carries the id as its correlation_id.  Lanes are
 * reused; Perfetto merges same-named sibling tracks into one row, as it
 * does for the JSON's async events.  Counters (block throughput) are
 * counter tracks named "NAME KEY" (the JSON importer's names): the first
 * value is the TYPE_COUNTER value, the others ride along as
 * extra_double_counter_values; the event also carries its name, category
 * and values as annotations, for readers.  Arguments are debug annotations,
 * in the order the event lists them.
 *
 * Metadata.  The trace's metadata is an instant "dltrace" at ts 0 and its
 * summary an instant "dltrace_summary" at the trace's end, both on the
 * "dltrace" track, with the JSON's metadata and summary keys as arguments
 * (lost_by_kind as a dictionary).  The summary is one self-contained
 * packet (no interning, its own track and an absolute CLOCK_MONOTONIC
 * time), so the output sink can write it last even after a failed write.
 * Instants of other names on that track are events of no known kind.
 *
 * Sequences.  Each thread (pid, tid) writes on its own packet sequence
 * (trusted_packet_sequence_id), the metadata and all track descriptors on
 * sequence 1.  A sequence's first packet clears its incremental state and
 * sets its defaults: the thread's track (so events name no track) and the
 * sequence's incremental clock.  Per thread, events arrive in completion
 * order, so on a thread's sequence timestamps mostly grow: one sequence
 * per process would interleave threads and make deltas negative.
 *
 * Timestamps.  Clock 64 is a sequence-scoped incremental clock in ns: each
 * packet's timestamp is the difference to the previous timestamped packet
 * of its sequence.  A ClockSnapshot on each sequence ties its value 0 to
 * CLOCK_MONOTONIC = start_mono_ns (the trace's primary clock), and on
 * sequence 1 also to CLOCK_REALTIME = start_wall_ns.  Trace processor adds
 * deltas as signed 64-bit values, so a negative delta (an event that
 * starts before the previous packet of its thread: a syscall delivered
 * after the VFS call nested in it, a span after the calls it encloses) is
 * valid; it costs 10 bytes.  Packets need no order: trace processor sorts
 * the whole file by timestamp, keeping file order between equal
 * timestamps.  So a slice's END may follow later-starting events of other
 * threads, and a zero-length slice stays BEGIN then END.  One case needs
 * care by the source: a slice that starts at the same nanosecond as a
 * slice nested in it and is delivered after it would sort after the child.
 *
 * Interning.  Event names, categories, argument names and string values
 * (paths, flags, ...) are interned: a string is written once per sequence,
 * in the InternedData of the packet that first uses it there, then named by
 * its iid.  The iids come from one table for the whole trace
 * (pftrace_intern.h), so a string has the same iid on every sequence and
 * the same event on two threads is the same bytes; each sequence keeps the
 * set of iids it has written.  A full table is cleared, and every sequence
 * then clears its incremental state (a packet with
 * SEQ_INCREMENTAL_STATE_CLEARED that re-emits its defaults and clock)
 * before its next packet; packets that use interned data or defaults set
 * SEQ_NEEDS_INCREMENTAL_STATE.  File names are bytes: any byte survives.
 *
 * The functions take plain values (pid, tid, ts, name, arguments), so a
 * consumer of the event stream maps each event kind to one call.
 */
#ifndef PFTRACE_WRITER_H
#define PFTRACE_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/perfetto/pftrace_intern.h"
#include "lib/string_index.h"
#include "lib/u64_index.h"

struct output_sink;

/* Exact bytes, not NUL-terminated (the event stream's ev_str). */
struct pft_str {
	const char *s;
	uint32_t len;
};

#define PFT_STR(lit) ((struct pft_str){(lit), sizeof(lit) - 1})

/* An argument: the event stream's ev_arg (a path is given as its name). */
enum pft_arg_type {
	PFT_ARG_U64,
	PFT_ARG_I64,
	PFT_ARG_STR,
	PFT_ARG_PATH,
	PFT_ARG_BOOL,
	PFT_ARG_DOUBLE,
	PFT_ARG_US,   /* u: nanoseconds, written as microseconds (a double) */
	PFT_ARG_DICT, /* dict: nested arguments (lost_by_kind) */
	PFT_ARG_HEX,  /* u: an address or opaque value the JSON shows in hex */
};

struct pft_arg {
	struct pft_str key;
	uint8_t type;	    /* enum pft_arg_type */
	uint8_t key_static; /* key's bytes live as long as the program (event_args()'s own) */
	union {
		uint64_t u;
		int64_t i;
		struct pft_str s; /* STR and PATH */
		bool b;
		double d;
		struct {
			const struct pft_arg *args;
			uint32_t n;
		} dict;
	};
};

/* TracePacket.sequence_flags */
#define PFT_SEQ_INCREMENTAL_STATE_CLEARED 1
#define PFT_SEQ_NEEDS_INCREMENTAL_STATE	  2

/* The sequence-scoped incremental clock of every sequence. */
#define PFT_CLOCK_ID	      64
#define PFT_BUILTIN_REALTIME  1
#define PFT_BUILTIN_MONOTONIC 3

/* Track uuid and sequence id of the trace's metadata. */
#define PFT_META_TRACK 1
#define PFT_META_SEQ   1

/* Largest packet: the longest arguments of an event, interned and not. */
#define PFT_PACKET_MAX (1u << 20)

#define PFT_KEY_MEMO_BITS 7 /* slots: more than event_args() has names */
#define PFT_KEY_MEMO	  (1u << PFT_KEY_MEMO_BITS)

struct pft_seq {
	uint32_t id;		  /* trusted_packet_sequence_id; 0: not started */
	uint64_t track;		  /* the default track */
	uint64_t last_ts;	  /* the incremental clock's value */
	bool dirty;		  /* interned state not as written: clear it */
	uint32_t generation;	  /* of the writer's string table it started in */
	struct pftrace_seen seen; /* strings it has written */
};

struct pft_thread {
	uint32_t pid, tid;
	uint64_t track;
	bool described;	     /* its TrackDescriptor written */
	struct pft_seq *seq; /* NULL until it writes (and after release) */
};

struct pft_lane {
	uint64_t track;
	uint64_t end; /* the latest end of a request on it */
};

struct pft_lane_group {
	uint64_t parent;
	struct pft_lane *lanes;
	uint32_t n, cap;
};

/* A request whose end has not come yet: its lane. */
struct pft_pending {
	uint32_t group_pid;
	uint32_t group, lane; /* indexes */
	uint64_t id;
};

struct pftrace_writer {
	struct output_sink *sink;
	uint64_t start_mono_ns;
	int64_t start_wall_ns;
	uint8_t *buf;		      /* the packet being built (PFT_PACKET_MAX + a frame header) */
	struct pftrace_intern intern; /* the strings, numbered for all sequences */
	uint32_t generation;	      /* times the table was cleared */
	/*
	 * Static argument names (pft_arg.key_static) by address: their number in
	 * this generation of the table, found without hashing or comparing bytes.
	 */
	struct pft_key_memo {
		const char *s;
		uint32_t len, iid, generation;
	} key_memo[PFT_KEY_MEMO];
	struct pft_seq meta;
	struct pft_thread *threads;
	uint32_t nthreads, threads_cap;
	struct u64_index thread_at;  /* pid << 32 | tid -> threads[] */
	struct u64_index process_at; /* pid -> its track uuid */
	struct string_index groups;  /* parent uuid + name -> lane group */
	struct pft_lane_group *group;
	uint32_t ngroups;
	struct string_index counter_names; /* parent uuid + "NAME KEY" -> counter */
	uint64_t *counter_track;
	uint32_t ncounters;
	struct pft_pending *pending;
	uint32_t npending, pending_cap;
	uint64_t next_track;
	uint32_t next_seq;
	uint64_t next_flow;
	/* strings first used by the packet being built */
	struct pft_new_string {
		uint8_t kind;
		uint32_t iid;
		struct pft_str str;
	} * fresh;
	uint32_t nfresh, fresh_cap;
	uint64_t packets;
	uint64_t dropped; /* events that did not fit a packet, or no memory */
};

/*
 * Start a trace on sink: sequence 1 with its clock snapshot, and the
 * "dltrace" track.  Timestamps given to the writer are ns since
 * start_mono_ns (the event stream's ts).  0, or -ENOMEM.
 */
int pftrace_writer_init(struct pftrace_writer *w, struct output_sink *sink, uint64_t start_mono_ns,
			int64_t start_wall_ns);
void pftrace_writer_free(struct pftrace_writer *w);

/* An instant on the "dltrace" track: the metadata, events of no known kind. */
void pftrace_meta(struct pftrace_writer *w, uint64_t ts, struct pft_str name, struct pft_str cat,
		  const struct pft_arg *args, uint32_t nargs);
/*
 * The same as one self-contained packet in out (no interned strings, its
 * track and an absolute CLOCK_MONOTONIC timestamp), not written: the
 * summary, which the output sink writes last, even after a failed write
 * (sink_close's tail).  Returns its bytes (the frame included), 0 when it
 * does not fit in size.
 */
size_t pftrace_meta_packet(struct pftrace_writer *w, uint64_t ts, struct pft_str name,
			   const struct pft_arg *args, uint32_t nargs, uint8_t *out, size_t size);

/* Name a process (its command line) or a thread (its comm). */
void pftrace_process_name(struct pftrace_writer *w, uint32_t pid, struct pft_str name);
/* The same, with process labels ("rank=3": the process's ranks, as dltrace gives them). */
void pftrace_process_name_labels(struct pftrace_writer *w, uint32_t pid, struct pft_str name,
				 const struct pft_str *labels, uint32_t nlabels);
void pftrace_thread_name(struct pftrace_writer *w, uint32_t pid, uint32_t tid, struct pft_str name);

/*
 * A complete slice on the thread's track.  flow_out != 0: an arrow starts
 * here (flow_ids); flow_in != 0: the arrow ends here (terminating_flow_ids).
 */
void pftrace_slice(struct pftrace_writer *w, uint32_t pid, uint32_t tid, uint64_t ts, uint64_t dur,
		   struct pft_str name, struct pft_str cat, const struct pft_arg *args,
		   uint32_t nargs, uint64_t flow_out, uint64_t flow_in);
/*
 * A slice whose end comes later on the same thread (B), and that end (E),
 * which carries its own name and category (a complete slice's END never
 * does: that is how a reader tells them apart).
 */
void pftrace_slice_begin(struct pftrace_writer *w, uint32_t pid, uint32_t tid, uint64_t ts,
			 struct pft_str name, struct pft_str cat, const struct pft_arg *args,
			 uint32_t nargs);
void pftrace_slice_end(struct pftrace_writer *w, uint32_t pid, uint32_t tid, uint64_t ts,
		       struct pft_str name, struct pft_str cat, const struct pft_arg *args,
		       uint32_t nargs);
/* An instant on the thread's track. */
void pftrace_instant(struct pftrace_writer *w, uint32_t pid, uint32_t tid, uint64_t ts,
		     struct pft_str name, struct pft_str cat, const struct pft_arg *args,
		     uint32_t nargs);
/*
 * A profiler trace's arrow end (the JSON's "s" and "f" events): an instant
 * on the thread's track that starts the flow (flow_out, flow_ids) or ends
 * it (flow_in, terminating_flow_ids); the reader tells them from other
 * instants by those ids.
 */
void pftrace_flow(struct pftrace_writer *w, uint32_t pid, uint32_t tid, uint64_t ts,
		  struct pft_str name, struct pft_str cat, const struct pft_arg *args,
		  uint32_t nargs, uint64_t flow_out, uint64_t flow_in);
/*
 * An asynchronous request (block, io_uring): its begin, on a lane named
 * `name` under group_pid's process track, written on the (pid, tid)
 * sequence, with id as its correlation_id; then its end, found by
 * (group_pid, id).  thread_track: the thread is a real one, whose track is
 * described (not a block device's).  An end with no begin is not written
 * (false).
 */
void pftrace_async_begin(struct pftrace_writer *w, uint32_t pid, uint32_t tid, uint32_t group_pid,
			 bool thread_track, uint64_t ts, struct pft_str name, struct pft_str cat,
			 const struct pft_arg *args, uint32_t nargs, uint64_t id);
bool pftrace_async_end(struct pftrace_writer *w, uint32_t pid, uint32_t tid, uint32_t group_pid,
		       uint64_t ts, const struct pft_arg *args, uint32_t nargs, uint64_t id);
/*
 * Counter values at ts: one counter track "NAME KEY" per numeric argument,
 * under pid.  The event also carries its name, category and the values as
 * debug annotations (trace processor takes the values from the counter
 * fields; readers of the file get the event back from these).
 */
void pftrace_counter(struct pftrace_writer *w, uint32_t pid, uint32_t tid, bool thread_track,
		     uint64_t ts, struct pft_str name, struct pft_str cat,
		     const struct pft_arg *values, uint32_t nvalues);

/* The thread exited: forget its sequence's state (a later event starts a new one). */
void pftrace_thread_release(struct pftrace_writer *w, uint32_t pid, uint32_t tid);

#endif
