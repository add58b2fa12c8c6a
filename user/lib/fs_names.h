/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* File system names from superblock magic numbers (statfs f_type). */
#ifndef FS_NAMES_H
#define FS_NAMES_H

#include <stddef.h>
#include <stdint.h>

/* "ext4", "tmpfs", ...; NULL when unknown. */
const char *fs_name(uint32_t magic);
/* The reverse: a name, or "0x..." for a magic with no name; -1 if neither. */
int fs_magic(const char *name, size_t len, uint32_t *magic);

#endif
