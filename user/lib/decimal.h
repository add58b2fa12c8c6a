/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Numbers as text, fast (no printf): each writes at p and returns the end;
 * no terminating NUL.  At most 20 bytes (dec_i64: 20, hex_u64: 16).
 */
#ifndef DECIMAL_H
#define DECIMAL_H

#include <stdint.h>

char *dec_u64(char *p, uint64_t v);
char *dec_i64(char *p, int64_t v);
/* lower-case hex digits, no prefix */
char *hex_u64(char *p, uint64_t v);
char *oct_u64(char *p, uint64_t v);

#endif
