/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One line of a Chrome trace as the tokenizer (trace_line_parser.c) reads
 * it: the event's head (name, category, phase, times, ids) and its args as
 * typed values, what event_parse() (event/event_parse.h) turns into a
 * typed event; merge rewrites the line as text.  Strings point into the
 * reader's line buffer or scratch and are valid only during the callback
 * that receives the line; they are the unescaped bytes (not NUL-terminated,
 * may hold any byte).
 */
#ifndef TRACE_EVENT_H
#define TRACE_EVENT_H

#include <stdbool.h>
#include <stdint.h>

#include "event/event.h"

/* What merge and the reader tell apart; everything else is event_parse()'s. */
enum trace_event_type {
	TEV_OTHER,
	TEV_HEADER,	  /* M "dltrace": the first event, args.format */
	TEV_SUMMARY,	  /* M "dltrace_summary" */
	TEV_PROCESS_NAME, /* M "process_name" (args.name: the command line) */
};

struct trace_str {
	const char *s;
	uint32_t len;
};

/* trace_event.has bits: which optional fields were present */
#define TE_TS	   (1u << 0)
#define TE_DUR	   (1u << 1)
#define TE_PID	   (1u << 2)
#define TE_TID	   (1u << 3)
#define TE_BIND_ID (1u << 4)
#define TE_ID2	   (1u << 5)
#define TE_ID	   (1u << 6)

struct trace_event {
	struct trace_str raw; /* the event's JSON object as it is in the file (escaped) */
	enum trace_event_type type;
	struct trace_str event_name; /* "name" */
	struct trace_str category;   /* "cat" */
	char ph;		     /* 'X', 'M', 'i', ... (0: none or longer than one byte) */
	uint32_t has;
	uint64_t ts_ns, dur_ns; /* ts and dur (microseconds in the file) in ns */
	uint32_t pid, tid;
	uint64_t bind_id; /* flow id (fork arrows) */
	uint64_t id2;	  /* id2.local of async events */
	uint64_t id;	  /* "id": a flow's (s, f: a profiler trace's arrows) */

	/*
	 * "args", in order (up to EV_ARGS_MAX), typed as JSON has them: an
	 * integer is EV_ARG_I64 (EV_ARG_U64 above INT64_MAX), a number with a
	 * fraction or an exponent EV_ARG_DOUBLE, a string EV_ARG_STR
	 * (unescaped), true and false EV_ARG_BOOL.  A string "K" followed by
	 * "K_hex" (a file name that is not UTF-8) is one EV_ARG_PATH with the
	 * exact bytes; "lost_by_kind" is EV_ARG_LOST_KINDS pointing to lost.
	 * Other objects, arrays and null are left out.
	 */
	struct ev_arg args[EV_ARGS_MAX];
	uint32_t nargs;
	struct ev_path paths[EV_ARGS_MAX]; /* of EV_ARG_PATH args, by arg index */
	struct lost_counts lost;	   /* by_kind only: lost_by_kind's counts */
};

#endif
