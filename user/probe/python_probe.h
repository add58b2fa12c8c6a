/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Python stacks, user-space side of the probes: give the BPF programs the
 * CPython layouts, and tell them which traced processes are interpreters
 * and where their runtime is.  The kernel side finds forked children,
 * exec'd known executables and known libpython mappings by itself
 * (bpf/python_probes.bpf.c); this is for what it cannot know: a process
 * running before tracing started (--pid), and the first run of an
 * interpreter file not seen before (each file becomes known to the kernel
 * side here, so its next processes are found there).
 */
#ifndef PYTHON_PROBE_H
#define PYTHON_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "probe/probe_loader.h"
#include "probe/python_offsets.h"

/* Syscall kinds that get a stack by default (lseek, close and dup-like calls do not). */
uint64_t py_probe_default_kinds(void);

/* Fill o's python fields (kinds, glibc calibration); -1 with err when stacks cannot work. */
int py_probe_options(struct probe_options *o, uint64_t kinds, char *err, size_t errlen);

struct py_probe_file; /* an interpreter file seen, and what was said about it */

#define PY_PROBE_PEND_MAX 256
#define PY_PROBE_PEND_NS  2000000000ull /* look for a libpython this long after an exec */

struct py_probe_pending {
	pid_t pid;
	uint64_t until; /* CLOCK_MONOTONIC ns */
};

struct py_probe {
	struct probes *probes;
	/* one line per problem (an unsupported interpreter): never NULL after init */
	void (*warn)(void *ctx, const char *line);
	void *warn_ctx;
	struct dl_py_layout slots[DL_PY_LAYOUTS]; /* what py_layouts holds */
	unsigned nslots;
	struct py_probe_file *files;
	size_t nfiles, capfiles;
	unsigned processes; /* CPython processes handed to the kernel side */
	struct py_probe_pending pend[PY_PROBE_PEND_MAX]; /* execs to look at */
	int npend;
};

/* After probes_load(): load the layouts into the kernel side. */
int py_probe_init(struct py_probe *pp, struct probes *p, void (*warn)(void *, const char *),
		  void *warn_ctx, char *err, size_t errlen);
/*
 * dltrace -- CMD, before CMD runs: when the program argv0 runs is a
 * supported CPython executable, or needs a libpython that is one, the
 * kernel side knows the file from the start, so that the first run's
 * first syscalls have stacks too (without this, they would until user
 * space had looked at the process after its exec).  An unsupported one is
 * said here, in one line, however short the command's life (pid: the held
 * command's).
 */
void py_probe_command(struct py_probe *pp, const char *argv0, pid_t pid);
/*
 * Look at process pid (found at --pid, or after an exec): when it runs a
 * supported CPython, the kernel side walks its stacks from now on.
 * Returns 1 when it does, 0 when pid is no supported CPython (yet: the
 * library may not be mapped), -1 when the process is gone.
 */
int py_probe_process(struct py_probe *pp, pid_t pid);
/*
 * A traced process executed a program: look at it now and, while its
 * libpython may not be mapped yet, at each py_probe_poll() for
 * PY_PROBE_PEND_NS (the kernel side follows the interpreter files it
 * knows by itself; this is for a file's first run).  The program's name
 * in the exec record (a struct dl_proc of size bytes) is looked at at
 * once, so that an unsupported interpreter is said even when its process
 * is gone before /proc is read.
 */
void py_probe_exec(struct py_probe *pp, const void *exec_record, size_t size);
/* py_probe_process(pp, pid) as a callback of process walks (ctx: the struct py_probe). */
void py_probe_visit(pid_t pid, void *pp);
void py_probe_poll(struct py_probe *pp);
void py_probe_free(struct py_probe *pp);

#endif
