/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef TRACE_SESSION_H
#define TRACE_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "decode/python_frames.h"

#define MAX_PIDS 64
#define MAX_LIBS 16

/* --python-stacks */
enum python_stacks {
	PY_STACKS_OFF,
	PY_STACKS_ON,	/* each syscall of a CPython thread: its application frame ("py") */
	PY_STACKS_FULL, /* and every frame walked ("py_stack") */
};
/* Off by default: docs/performance.md "What the measurements decided". */
#define PY_STACKS_DEFAULT PY_STACKS_OFF

/* What a trace run does: the command line fills it (cli/trace_options.c). */
struct trace_options {
	pid_t pids[MAX_PIDS];
	int npids;
	const char *cgroup;
	char **command; /* argv after "--", NULL-terminated */
	const char *output;
	double duration; /* seconds; 0 = until the target ends or a signal */
	uint64_t ring_bytes;
	int gzip_level;		  /* 0: the format's default */
	const char *save_records; /* --save-records: raw ring records (bench decode replay) */
	unsigned layers;	  /* bit set of enum dl_layer */
	char *libs[MAX_LIBS];	  /* --lib, real paths (malloc'd) */
	size_t nlibs;
	int vfs_attach;		 /* enum vfs_attach */
	bool report;		 /* --report: the terminal report */
	bool live;		 /* --live, or `dltrace top`: the live view */
	bool top;		 /* `dltrace top`: a trace file only with -o */
	double interval;	 /* -i: seconds between two screens of the live view */
	const char *report_json; /* --report-json FILE */
	bool summary_only;	 /* --summary-only: no trace, the report's JSON into -o's file */
	bool counts;		 /* --summary-only=counts: data calls alike counted as runs */
	bool quiet;
	bool verbose;
	enum python_stacks python_stacks;
	bool python_stacks_asked;    /* given on the command line (else the default) */
	struct py_rules python_skip; /* --python-skip */
};

/* Trace as the options say; returns the process exit status. */
int trace_run(const struct trace_options *o);

#endif
