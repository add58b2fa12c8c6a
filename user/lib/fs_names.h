/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* File system names from superblock magic numbers (statfs f_type). */
#ifndef FS_NAMES_H
#define FS_NAMES_H

#include <stdint.h>

/* "ext4", "tmpfs", ...; NULL when unknown. */
const char *fs_name(uint32_t magic);

#endif
