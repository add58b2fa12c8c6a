/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the decoder's files give each other: record_decoder.c's dispatch
 * calls each kind's handler, in the file of its concern (decode_*.c), and
 * they call down to process_seed.c.  Declarations only: decode_emit.h has
 * the struct's helpers.
 */
#ifndef RECORD_DECODER_INTERNAL_H
#define RECORD_DECODER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/dltrace_events.h"
#include "event/event.h"

struct record_decoder;
struct process;
struct path_ref;
struct aio_req;

/* process_seed.c: a record's process and thread, and a process first seen */
struct process *decoder__proc_for(struct record_decoder *d, const struct dl_hdr *h);
void decoder__seed_process(struct record_decoder *d, uint32_t pid, bool fds);
void decoder__learn_user(struct record_decoder *d, uint32_t uid);

/* decode_syscall.c: syscalls, and the files their descriptors, cookies and paths name */
void decoder__handle_syscall(struct record_decoder *d, const void *data, size_t size);
/* A run (counting mode): the syscall event of its calls. */
void decoder__handle_run(struct record_decoder *d, const struct dl_io *rec, size_t size);
void decoder__handle_file(struct record_decoder *d, const struct dl_file *rec, size_t size);
struct path_ref *decoder__slot_path(const struct dl_path *rec, size_t size, int i, size_t *offset);

/* decode_process.c: fork, exec, exit, and the names of processes and threads */
void decoder__handle_fork(struct record_decoder *d, const struct dl_proc *e);
void decoder__handle_exec(struct record_decoder *d, const struct dl_proc *e, size_t size);
void decoder__handle_exit(struct record_decoder *d, const struct dl_proc *e);
void decoder__emit_name(struct record_decoder *d, enum event_type type, uint32_t pid, uint32_t tid,
			const char *name);
void decoder__name_process(struct record_decoder *d, const struct process *p);

/* decode_async.c: asynchronous I/O, io_uring's and native AIO's requests */
void decoder__handle_uring(struct record_decoder *d, const struct dl_uring *u);
void decoder__handle_aio(struct record_decoder *d, const struct dl_aio *a);
void decoder__aio_submitted(struct record_decoder *d, const struct dl_io *io);
void decoder__aio_forget(struct record_decoder *d, uint32_t tgid, uint64_t ctx, uint64_t ts);
void decoder__aio_end(struct record_decoder *d, const struct aio_req *r, const struct dl_aio *ev,
		      uint64_t ts);

/* decode_layers.c: the layers beyond syscalls (page faults, block, VFS, library calls) */
void decoder__emit_block(void *ctx, struct event *e);
void decoder__handle_fault(struct record_decoder *d, const struct dl_fault *f);
void decoder__handle_vfs(struct record_decoder *d, const struct dl_vfs *v);
void decoder__handle_vfs_open(struct record_decoder *d, const struct dl_path *rec, size_t size);
void decoder__handle_span(struct record_decoder *d, const void *rec, size_t size);

#endif
