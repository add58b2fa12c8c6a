/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Chrome-trace events of the layers beyond syscalls: page faults (instant
 * events on the thread), block requests (async slices on a per-device
 * track, plus a throughput counter), io_uring requests (async slices under
 * the submitting process) and VFS calls (slices on the thread).
 */
#ifndef CHROME_LAYER_EVENTS_H
#define CHROME_LAYER_EVENTS_H

#include <stdint.h>

#include "bpf/dltrace_events.h"
#include "format/chrome/chrome_writer.h"
#include "decode/path_table.h"

void cw_fault(struct chrome_writer *w, const struct dl_fault *f, const struct path_ref *path);
/* A block request on the device track `pid`; seq makes its async id. */
void cw_block(struct chrome_writer *w, const struct dl_block *b, uint32_t pid, uint64_t seq);
/* Throughput of a device track over [ts, ts + interval): MB/s read and written. */
void cw_block_throughput(struct chrome_writer *w, uint64_t ts, uint32_t pid, double read_mbps,
			 double write_mbps);
void cw_uring(struct chrome_writer *w, const struct dl_uring *u, const struct path_ref *path,
	      uint64_t seq);
void cw_vfs(struct chrome_writer *w, const struct dl_vfs *v, const struct path_ref *path);
void cw_vfs_open(struct chrome_writer *w, const struct dl_path *rec, const struct path_ref *path);

/* "READ", "WRITEV", ...: the IORING_OP_ name without its prefix. */
const char *uring_op_name(unsigned opcode, char *buf, size_t size);
/* "vfs_read", ... */
const char *vfs_op_name(unsigned op);

#endif
