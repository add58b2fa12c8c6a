/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * CPython line tables: which source line an instruction of a code object
 * belongs to, from co_linetable as the interpreter keeps it.
 *
 *   3.10        pairs of bytes (bytecode bytes covered, signed line delta;
 *               -128: no line), the format of PEP 626.
 *   3.11-3.13   the location table (Objects/locations.md in CPython): one
 *               entry per run of code units, each with a line delta and
 *               columns, in five encodings.
 *
 * Pure functions of the bytes; no interpreter needed.
 */
#ifndef PY_LINETABLE_H
#define PY_LINETABLE_H

#include <stddef.h>
#include <stdint.h>

/*
 * The line of instruction `lasti` (in code units of 2 bytes) of a code
 * object of CPython 3.<minor> whose first line is firstlineno.  Returns the
 * line, 0 when the instruction has no line (or lies past a cut table), -1
 * for a table in a format not known.
 */
int py_line_of(const uint8_t *table, size_t len, int minor, int firstlineno, int lasti);

#endif
