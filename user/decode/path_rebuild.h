/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Turning the kernel's path slots (struct dl_path) back into absolute
 * paths: reverse the walked components, join the name the program passed,
 * and resolve "." and ".." lexically.
 */
#ifndef PATH_REBUILD_H
#define PATH_REBUILD_H

#include <stddef.h>
#include <stdint.h>

/* Room needed in `out` for path_rebuild(). */
#define PATH_REBUILD_MAX (2 * 4096 + 8)

/*
 * base: reversed walk "leaf/dir/top/" (may be empty); name: the string the
 * program passed (may be empty); how: DL_PATH_* bits of the slot.
 * Returns the length written to out (NUL-terminated).
 */
size_t path_rebuild(const char *base, size_t base_len, const char *name, size_t name_len,
		    uint8_t how, char *out);

/* Lexically normalize an absolute path in place ("//", ".", ".."). */
size_t path_normalize(char *path, size_t len);

#endif
