/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Field numbers of the Perfetto trace messages dltrace writes (and reads):
 * those of Perfetto's protos/perfetto/trace/ (trace_packet.proto,
 * track_event/, interned_data/, clock_snapshot.proto).  The tests' own
 * .proto (tests/perfetto/dltrace_trace.proto) declares the same numbers.
 */
#ifndef PFTRACE_FIELDS_H
#define PFTRACE_FIELDS_H

/* Trace */
#define PF_TRACE_PACKET 1

/* TracePacket */
#define PF_PACKET_CLOCK_SNAPSHOT   6
#define PF_PACKET_TIMESTAMP	   8
#define PF_PACKET_SEQUENCE_ID	   10 /* trusted_packet_sequence_id */
#define PF_PACKET_TRACK_EVENT	   11
#define PF_PACKET_INTERNED_DATA	   12
#define PF_PACKET_SEQUENCE_FLAGS   13
#define PF_PACKET_CLOCK_ID	   58 /* timestamp_clock_id: this packet's clock */
#define PF_PACKET_DEFAULTS	   59 /* trace_packet_defaults */
#define PF_PACKET_TRACK_DESCRIPTOR 60

/* TracePacketDefaults */
#define PF_DEFAULTS_TRACK_EVENT 11 /* track_event_defaults */
#define PF_DEFAULTS_CLOCK_ID	58 /* timestamp_clock_id */
/* TrackEventDefaults */
#define PF_TE_DEFAULTS_TRACK_UUID 11

/* ClockSnapshot, ClockSnapshot.Clock */
#define PF_CLOCKS_CLOCK	     1
#define PF_CLOCKS_PRIMARY    2
#define PF_CLOCK_ID	     1
#define PF_CLOCK_TIMESTAMP   2
#define PF_CLOCK_INCREMENTAL 3

/* TrackEvent */
#define PF_TE_CATEGORY_IIDS		  3
#define PF_TE_DEBUG_ANNOTATIONS		  4
#define PF_TE_TYPE			  9
#define PF_TE_NAME_IID			  10
#define PF_TE_TRACK_UUID		  11
#define PF_TE_CATEGORIES		  22 /* not interned */
#define PF_TE_NAME			  23 /* not interned */
#define PF_TE_DOUBLE_COUNTER_VALUE	  44
#define PF_TE_EXTRA_DOUBLE_COUNTER_TRACKS 45
#define PF_TE_EXTRA_DOUBLE_COUNTER_VALUES 46
#define PF_TE_FLOW_IDS			  47 /* fixed64 */
#define PF_TE_TERMINATING_FLOW_IDS	  48 /* fixed64 */
#define PF_TE_CORRELATION_ID		  52
/* TrackEvent.Type */
#define PF_TYPE_SLICE_BEGIN 1
#define PF_TYPE_SLICE_END   2
#define PF_TYPE_INSTANT	    3
#define PF_TYPE_COUNTER	    4

/* DebugAnnotation */
#define PF_DA_NAME_IID	   1
#define PF_DA_BOOL	   2
#define PF_DA_UINT	   3
#define PF_DA_INT	   4
#define PF_DA_DOUBLE	   5
#define PF_DA_STRING	   6
#define PF_DA_POINTER	   7 /* shown in hex */
#define PF_DA_NAME	   10
#define PF_DA_DICT_ENTRIES 11
#define PF_DA_STRING_IID   17

/* InternedData; each entry is {iid = 1, name/str = 2} */
#define PF_INTERNED_CATEGORIES	1
#define PF_INTERNED_EVENT_NAMES 2
#define PF_INTERNED_ARG_NAMES	3
#define PF_INTERNED_ARG_STRINGS 29
#define PF_INTERNED_IID		1
#define PF_INTERNED_STR		2

/* TrackDescriptor, ProcessDescriptor, ThreadDescriptor */
#define PF_TD_UUID	  1
#define PF_TD_NAME	  2
#define PF_TD_PROCESS	  3
#define PF_TD_THREAD	  4
#define PF_TD_PARENT_UUID 5
#define PF_TD_COUNTER	  8
#define PF_PROCESS_PID	  1
#define PF_PROCESS_NAME	  6
#define PF_PROCESS_LABELS 8 /* repeated string: dltrace's "rank=3", "world_size=8", ... */
#define PF_THREAD_PID	  1
#define PF_THREAD_TID	  2
#define PF_THREAD_NAME	  5

#endif
