/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kernel's raw ring-buffer records, saved as they arrive
 * (`dltrace --save-records FILE`) and read back by the benchmark's decode replay,
 * which feeds them through the decoder and the consumers with no kernel
 * involved.
 *
 *   +---------------------+  file header: 8 bytes
 *   | "DLREC02\n"         |  02: kinds renumbered (DL_EV_FORK = 128); 01 is refused
 *   +---------+-----------+  then one entry per record, in arrival order:
 *   | u32 len | len bytes |  len: the record's size (host byte order),
 *   +---------+-----------+  bytes: the record as the ring buffer held it
 */
#ifndef RECORD_FILE_H
#define RECORD_FILE_H

#include <stddef.h>
#include <stdio.h>

#define RECORD_FILE_MAGIC "DLREC02\n"

/* Create path for writing (NULL with errno on failure). */
FILE *record_file_create(const char *path);
/* Append one record; -1 with errno on a write error. */
int record_file_append(FILE *f, const void *data, size_t size);

/*
 * Read every record of path into memory: *buf holds them back to back,
 * each preceded by its u32 length, as in the file.  -1 with a reason in err.
 */
int record_file_load(const char *path, char **buf, size_t *len, char *err, size_t errlen);

#endif
