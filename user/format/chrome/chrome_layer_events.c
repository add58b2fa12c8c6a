// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "format/chrome/chrome_layer_events.h"

#include <stdio.h>

#include "format/chrome/chrome_format.h"
#include "lib/json_string.h"

#define LINE_BYTES (JSON_ESCAPED_MAX(DL_PATH_MAX) + 2 * DL_PATH_MAX + 1024)

static char *put_hex(char *p, const char *key, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
	return put_key_str(p, key, buf);
}

void cw_fault(struct chrome_writer *w, const struct dl_fault *f, const struct path_ref *path)
{
	char *start, *p;

	start = p = sink_space(w->sink, LINE_BYTES);
	p = line_begin(w, p, "page_fault", "mmap", 'i', f->h.ts, f->h.tgid, f->h.tid);
	PUT(p, ",\"s\":\"t\",\"args\":{\"offset\":");
	p = fmt_u64(p, f->offset);
	p = put_path(p, "path", path);
	p = put_key_str(p, "access", f->flags & DL_FAULT_WRITE ? "write" : "read");
	if (f->address)
		p = put_hex(p, "address", f->address);
	p = put_key_u64(p, "ino", f->ino);
	p = put_dev(p, "dev", f->dev);
	PUT(p, "}}");
	line_end(w, start, p);
}

static const char *block_op_name(uint32_t op)
{
	static const char *const names[] = {"read", "write", "flush", "discard"};

	return op < 4 ? names[op] : "other";
}

/* {"id2":{"local":"0x.."} */
static char *put_local_id(char *p, uint64_t seq)
{
	PUT(p, ",\"id2\":{\"local\":\"0x");
	p += sprintf(p, "%llx", (unsigned long long)seq);
	PUT(p, "\"}");
	return p;
}

void cw_block(struct chrome_writer *w, const struct dl_block *b, uint32_t pid, uint64_t seq)
{
	const char *name = block_op_name(b->op);
	char *start, *p;

	start = p = sink_space(w->sink, 1024);
	p = line_begin(w, p, name, "block", 'b', b->h.ts, pid, pid);
	p = put_local_id(p, seq);
	PUT(p, ",\"args\":{\"sector\":");
	p = fmt_u64(p, b->sector);
	p = put_key_u64(p, "bytes", b->bytes);
	p = put_dev(p, "dev", b->dev);
	if (b->h.tgid)
		p = put_key_u64(p, "issuer_pid", b->h.tgid);
	PUT(p, "}}");
	line_end(w, start, p);

	start = p = sink_space(w->sink, 1024);
	p = line_begin(w, p, name, "block", 'e', b->h.ts + b->dur, pid, pid);
	p = put_local_id(p, seq);
	PUT(p, ",\"args\":{\"latency_us\":");
	p = fmt_us(p, b->dur);
	if (b->error)
		p = put_key_i64(p, "error", b->error);
	PUT(p, "}}");
	line_end(w, start, p);
}

void cw_block_throughput(struct chrome_writer *w, uint64_t ts, uint32_t pid, double read_mbps,
			 double write_mbps)
{
	char *start, *p;

	start = p = sink_space(w->sink, 512);
	p = line_begin(w, p, "throughput_MBps", "block", 'C', ts, pid, pid);
	p += sprintf(p, ",\"args\":{\"read\":%.3f,\"write\":%.3f}}", read_mbps, write_mbps);
	line_end(w, start, p);
}

const char *uring_op_name(unsigned opcode, char *buf, size_t size)
{
	static const char *const names[] = {
	    "NOP",
	    "READV",
	    "WRITEV",
	    "FSYNC",
	    "READ_FIXED",
	    "WRITE_FIXED",
	    "POLL_ADD",
	    "POLL_REMOVE",
	    "SYNC_FILE_RANGE",
	    "SENDMSG",
	    "RECVMSG",
	    "TIMEOUT",
	    "TIMEOUT_REMOVE",
	    "ACCEPT",
	    "ASYNC_CANCEL",
	    "LINK_TIMEOUT",
	    "CONNECT",
	    "FALLOCATE",
	    "OPENAT",
	    "CLOSE",
	    "FILES_UPDATE",
	    "STATX",
	    "READ",
	    "WRITE",
	    "FADVISE",
	    "MADVISE",
	    "SEND",
	    "RECV",
	    "OPENAT2",
	    "EPOLL_CTL",
	    "SPLICE",
	    "PROVIDE_BUFFERS",
	    "REMOVE_BUFFERS",
	    "TEE",
	    "SHUTDOWN",
	    "RENAMEAT",
	    "UNLINKAT",
	    "MKDIRAT",
	    "SYMLINKAT",
	    "LINKAT",
	    "MSG_RING",
	    "FSETXATTR",
	    "SETXATTR",
	    "FGETXATTR",
	    "GETXATTR",
	    "SOCKET",
	    "URING_CMD",
	    "SEND_ZC",
	    "SENDMSG_ZC",
	    "READ_MULTISHOT",
	    "WAITID",
	    "FUTEX_WAIT",
	    "FUTEX_WAKE",
	    "FUTEX_WAITV",
	    "FIXED_FD_INSTALL",
	    "FTRUNCATE",
	};

	if (opcode < sizeof(names) / sizeof(names[0]))
		return names[opcode];
	snprintf(buf, size, "OP_%u", opcode);
	return buf;
}

void cw_uring(struct chrome_writer *w, const struct dl_uring *u, const struct path_ref *path,
	      uint64_t seq)
{
	char op[16], *start, *p;
	const char *name = uring_op_name(u->opcode, op, sizeof(op));

	start = p = sink_space(w->sink, LINE_BYTES);
	p = line_begin(w, p, name, "uring", 'b', u->h.ts, u->h.tgid, u->h.tid);
	p = put_local_id(p, seq);
	PUT(p, ",\"args\":{\"fd\":");
	p = fmt_i64(p, u->h.fd);
	p = put_path(p, "path", path);
	p = put_key_u64(p, "offset", u->offset);
	p = put_key_u64(p, "len", u->len);
	p = put_hex(p, "user_data", u->user_data);
	PUT(p, "}}");
	line_end(w, start, p);

	start = p = sink_space(w->sink, 512);
	p = line_begin(w, p, name, "uring", 'e', u->h.ts + u->dur, u->h.tgid, u->h.tid);
	p = put_local_id(p, seq);
	PUT(p, ",\"args\":{");
	p = put_errno_or_ret(p, u->res);
	PUT(p, "}}");
	line_end(w, start, p);
}

const char *vfs_op_name(unsigned op)
{
	static const char *const names[DL_VFS_OP_COUNT] = {
	    "vfs_read",	      "vfs_write",	 "vfs_iter_read",
	    "vfs_iter_write", "vfs_fsync_range", "rw_verify_area",
	};

	return op < DL_VFS_OP_COUNT ? names[op] : "vfs";
}

void cw_vfs(struct chrome_writer *w, const struct dl_vfs *v, const struct path_ref *path)
{
	char *start, *p;
	bool check = v->op == DL_VFS_RW_CHECK;

	start = p = sink_space(w->sink, LINE_BYTES);
	p = line_begin(w, p, vfs_op_name(v->op), "vfs", check ? 'i' : 'X', v->h.ts, v->h.tgid,
		       v->h.tid);
	if (check) {
		PUT(p, ",\"s\":\"t\",\"args\":{\"write\":");
		p = fmt_u64(p, v->write);
	} else {
		PUT(p, ",\"dur\":");
		p = fmt_us(p, v->dur);
		PUT(p, ",\"args\":{");
		p = put_errno_or_ret(p, v->ret);
	}
	p = put_path(p, "path", path);
	p = put_key_u64(p, "offset", v->offset);
	p = put_key_u64(p, "size", v->size);
	p = put_identity(p, v->ino, v->dev, v->fs_magic);
	PUT(p, "}}");
	line_end(w, start, p);
}

void cw_vfs_open(struct chrome_writer *w, const struct dl_path *rec, const struct path_ref *path)
{
	char *start, *p;

	start = p = sink_space(w->sink, LINE_BYTES);
	p = line_begin(w, p, "vfs_open", "vfs", 'i', rec->io.h.ts, rec->io.h.tgid, rec->io.h.tid);
	PUT(p, ",\"s\":\"t\",\"args\":{");
	p = put_errno_or_ret(p, rec->io.ret);
	p = put_path(p, "path", path);
	p = put_identity(p, rec->ino, rec->dev, rec->fs_magic);
	p = put_key_u64(p, "file_size", rec->file_size);
	PUT(p, "}}");
	line_end(w, start, p);
}
