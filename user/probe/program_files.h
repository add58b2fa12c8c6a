/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The files a command will run, found before it runs: the program
 * execvp() would execute (through PATH and "#!" lines, `env` included)
 * and the shared libraries it needs, found the way the dynamic loader
 * finds them.  Called by python_probe.c so that the kernel side knows an
 * interpreter's files before the command's first exec (dltrace -- CMD).
 *
 * Best effort and read only: a file not found here is found later, when
 * the process maps it.
 */
#ifndef PROGRAM_FILES_H
#define PROGRAM_FILES_H

#include <stddef.h>

/*
 * The ELF executable `argv0` runs as, following up to 4 "#!" lines
 * ("#!/usr/bin/env python3" resolves python3 through PATH): its real path
 * in out.  0, or -1 when none is found.
 */
int program_resolve(const char *argv0, char *out, size_t len);

/*
 * The first DT_NEEDED library of the ELF file `path` whose name starts with
 * `prefix`, searched in DT_RPATH (when there is no DT_RUNPATH),
 * LD_LIBRARY_PATH, DT_RUNPATH ($ORIGIN expanded) and the default
 * directories: its real path in out.  0, or -1 when none is found.
 */
int program_needed_find(const char *path, const char *prefix, char *out, size_t len);

#endif
