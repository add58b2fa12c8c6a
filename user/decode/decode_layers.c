// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The records of the layers beyond syscalls: page faults, block requests,
 * VFS calls and opens (files named by inode), library calls and markers.
 */
#include "decode/decode_emit.h"
#include "decode/record_decoder_internal.h"
#include "decode/span_records.h"

void decoder__emit_block(void *ctx, struct event *e)
{
	emit(ctx, e);
}

void decoder__handle_fault(struct record_decoder *d, const struct dl_fault *f)
{
	struct event e = {
	    .type = EV_FAULT, .ts = rel(d, f->h.ts), .pid = f->h.tgid, .tid = f->h.tid};

	decoder__proc_for(d, &f->h);
	e.fault.write = f->flags & DL_FAULT_WRITE;
	e.fault.exec = f->flags & DL_FAULT_EXEC;
	e.fault.cow = f->flags & DL_FAULT_COW;
	e.fault.size = d->page_size;
	e.fault.offset = f->offset;
	e.fault.address = f->address;
	e.fault.ino = f->ino;
	e.fault.dev = f->dev;
	e.fault.path =
	    ev_path(inode_paths_get(&d->inodes, f->dev, f->ino, d->offline ? 0 : f->h.tgid));
	emit(d, &e);
}

void decoder__handle_vfs(struct record_decoder *d, const struct dl_vfs *v)
{
	struct event e = {.type = EV_VFS, .ts = rel(d, v->h.ts), .pid = v->h.tgid, .tid = v->h.tid};

	decoder__proc_for(d, &v->h);
	e.vfs.op = v->op;
	e.vfs.write = v->write;
	e.vfs.dur = v->dur;
	e.vfs.ret = v->ret;
	e.vfs.offset = v->offset;
	e.vfs.size = v->size;
	e.vfs.ino = v->ino;
	e.vfs.dev = v->dev;
	e.vfs.fs_magic = v->fs_magic;
	e.vfs.path =
	    ev_path(inode_paths_get(&d->inodes, v->dev, v->ino, d->offline ? 0 : v->h.tgid));
	emit(d, &e);
}

void decoder__handle_vfs_open(struct record_decoder *d, const struct dl_path *rec, size_t size)
{
	size_t off = 0;
	struct path_ref *path;

	decoder__proc_for(d, &rec->io.h);
	path = decoder__slot_path(rec, size, 0, &off);
	if (path && rec->io.ret >= 0)
		inode_paths_set(&d->inodes, rec->dev, rec->ino, path);
	{
		struct event e = {.type = EV_VFS_OPEN,
				  .ts = rel(d, rec->io.h.ts),
				  .pid = rec->io.h.tgid,
				  .tid = rec->io.h.tid};

		e.vfs_open.ret = rec->io.ret;
		e.vfs_open.ino = rec->ino;
		e.vfs_open.file_size = rec->file_size;
		e.vfs_open.dev = rec->dev;
		e.vfs_open.fs_magic = rec->fs_magic;
		e.vfs_open.path = ev_path(path);
		emit(d, &e);
	}
	path_put(path);
}

static bool opens_file(unsigned func)
{
	return func == DL_FN_FOPEN || func == DL_FN_FOPEN64 || func == DL_FN_FDOPEN ||
	       func == DL_FN_H5FCREATE || func == DL_FN_H5FOPEN || func == DL_FN_MPI_FILE_OPEN;
}

/*
 * A library call, or a marked region, instant or counter: one EV_SPAN.  A
 * call is named after the objects it works on (the handle table), and its
 * file is made absolute: a stream's from its descriptor, a relative HDF5 or
 * MPI-IO file name from the open the call made.
 */
void decoder__handle_span(struct record_decoder *d, const void *rec, size_t size)
{
	struct span_view v, named;
	const struct dl_span *s;
	struct process *p;
	const struct path_ref *file = NULL;
	const struct span_name *n;
	struct sys_totals enclosed;
	struct span_context c = {0};
	struct ev_path path = {{NULL, 0}, NULL};
	struct event e = {.type = EV_SPAN};
	bool library, ok;

	if (span_view(rec, size, &v)) {
		d->malformed++;
		return;
	}
	s = v.rec;
	p = decoder__proc_for(d, &s->h);
	library = s->level != DL_LAYER_MARKERS;
	named = v;
	if (library) {
		c.enclosed = &enclosed;
		c.enclosed_partial =
		    !span_threads_enclosed(&d->span_threads, s->h.tid, s->h.ts, &enclosed);
		ok = s->level == DL_LAYER_STDIO ? s->ret != 0 : (int64_t)s->ret >= 0;
		if (s->flags & DL_SPAN_FD) /* a descriptor opened by the call exists at its end */
			file =
			    fd_path(p, s->h.fd, opens_file(s->func) ? s->h.ts + s->dur : s->h.ts);
		else if (opens_file(s->func) && ok && v.str_len && v.str[0] != '/')
			file = span_threads_opened(&d->span_threads, s->h.tid, s->h.ts, v.str,
						   v.str_len);
		if (file && opens_file(s->func)) { /* the handle table keeps the absolute name */
			named.str = file->raw;
			named.str_len = file->len;
		}
	}
	n = span_handles_apply(&d->span_names, &named);
	if (file) {
		path = ev_path(file);
	} else if (library && opens_file(s->func)) {
		path.name = (struct ev_str){v.str, v.str_len};
	} else if (n) {
		const char *f = s->level == DL_LAYER_HDF5 ? n->file : n->name;

		path.name = ev_cstr(f);
	}
	c.path = &path;
	if (n && s->level == DL_LAYER_HDF5 && !opens_file(s->func))
		c.object = n->name;
	e.ts = rel(d, s->h.ts);
	e.pid = s->h.tgid;
	e.tid = s->h.tid;
	span_event(&v, &c, &e.span, d->span_args, d->span_scratch);
	emit(d, &e);
	if (library && s->depth == 0)
		span_threads_reset(&d->span_threads, s->h.tid);
}
