// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "format/chrome/chrome_writer.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "format/chrome/chrome_format.h"
#include "lib/fs_names.h"
#include "lib/json_string.h"
#include "event/syscall_table.h"

/* Largest line: two escaped paths with their hex, plus the fixed fields. */
#define LINE_MAX_BYTES (2 * (JSON_ESCAPED_MAX(DL_PATH_MAX) + 2 * DL_PATH_MAX + 64) + 1024)

static char *fmt_wall(char *p, int64_t wall_ns)
{
	time_t sec = wall_ns / 1000000000;
	struct tm tm;

	gmtime_r(&sec, &tm);
	p += strftime(p, 32, "%Y-%m-%dT%H:%M:%S", &tm);
	p += sprintf(p, ".%09lldZ", (long long)(wall_ns % 1000000000));
	return p;
}

void cw_begin(struct chrome_writer *w, struct output_sink *sink, const struct trace_meta *m)
{
	char *start, *p;

	w->sink = sink;
	w->t0 = m->start_mono_ns;
	w->events = 0;
	w->next_flow = 1;
	w->page_size = sysconf(_SC_PAGESIZE);
	start = p = sink_space(sink, LINE_MAX_BYTES);
	PUT(p, "[{\"name\":\"dltrace\",\"ph\":\"M\",\"pid\":0,\"tid\":0,\"args\":{\"format\":"
	       "\"dltrace-chrome-1\"");
	p = put_key_str(p, "version", m->version);
	p = put_key_str(p, "kernel", m->kernel);
	p = put_key_str(p, "hostname", m->hostname);
	p = put_key_str(p, "target", m->target);
	p = put_key_str(p, "layers", m->layers ? m->layers : "syscall");
	if (m->layers_off && *m->layers_off)
		p = put_key_str(p, "layers_unavailable", m->layers_off);
	p = put_key_str(p, "clock", "CLOCK_MONOTONIC");
	p = put_key_u64(p, "start_mono_ns", m->start_mono_ns);
	p = put_key_i64(p, "start_wall_ns", m->start_wall_ns);
	PUT(p, ",\"start_wall\":\"");
	p = fmt_wall(p, m->start_wall_ns);
	*p++ = '"';
	p = put_key_u64(p, "tracer_pid", m->tracer_pid);
	PUT(p, "}}");
	line_end(w, start, p);
}

static char *put_file_identity(char *p, const struct dl_path *rec)
{
	if (!rec->dev && !rec->ino)
		return p;
	p = put_identity(p, rec->ino, rec->dev, rec->fs_magic);
	return put_key_u64(p, "file_size", rec->file_size);
}

static char *put_kind_args(char *p, const struct dl_io *io, const struct dl_path *rec)
{
	char buf[256];
	uint32_t lo = io->arg & 0xffffffff, hi = io->arg >> 32;

	switch (io->h.kind) {
	case DL_SYS_OPEN:
	case DL_SYS_OPENAT:
	case DL_SYS_OPENAT2:
	case DL_SYS_CREAT:
		format_open_flags(lo, buf, sizeof(buf));
		p = put_key_str(p, "flags", buf);
		if ((lo & O_CREAT) || (lo & O_TMPFILE) == O_TMPFILE) {
			snprintf(buf, sizeof(buf), "0%o", hi);
			p = put_key_str(p, "mode", buf);
		}
		if (rec && io->ret >= 0)
			p = put_file_identity(p, rec);
		break;
	case DL_SYS_LSEEK:
		p = put_key_i64(p, "offset", (int64_t)io->offset);
		format_whence(lo, buf, sizeof(buf));
		p = put_key_str(p, "whence", buf);
		break;
	case DL_SYS_MMAP:
		format_mmap_prot(lo, buf, sizeof(buf));
		p = put_key_str(p, "prot", buf);
		format_mmap_flags(hi, buf, sizeof(buf));
		p = put_key_str(p, "flags", buf);
		break;
	case DL_SYS_CLOSE_RANGE:
		p = put_key_u64(p, "last", lo);
		if (hi)
			p = put_key_u64(p, "flags", hi);
		break;
	case DL_SYS_DUP2:
	case DL_SYS_DUP3:
		p = put_key_u64(p, "newfd", lo);
		if (io->h.kind == DL_SYS_DUP3 && hi)
			p = put_key_str(p, "flags", "O_CLOEXEC");
		break;
	case DL_SYS_FCNTL:
		p = put_key_str(p, "cmd", lo == F_DUPFD ? "F_DUPFD" : "F_DUPFD_CLOEXEC");
		p = put_key_u64(p, "minfd", hi);
		break;
	case DL_SYS_SENDFILE:
	case DL_SYS_COPY_FILE_RANGE:
		p = put_key_u64(p, "out_fd", lo);
		break;
	case DL_SYS_FALLOCATE:
	case DL_SYS_SYNC_FILE_RANGE:
		if (io->arg)
			p = put_key_u64(p, io->h.kind == DL_SYS_FALLOCATE ? "mode" : "flags",
					io->arg);
		break;
	case DL_SYS_MKDIR:
	case DL_SYS_MKDIRAT:
		snprintf(buf, sizeof(buf), "0%o", hi);
		p = put_key_str(p, "mode", buf);
		break;
	case DL_SYS_NEWFSTATAT:
	case DL_SYS_STATX:
	case DL_SYS_UNLINKAT:
	case DL_SYS_RENAMEAT2:
		if (rec && rec->flags) {
			snprintf(buf, sizeof(buf), "0x%x", rec->flags);
			p = put_key_str(p, "flags", buf);
		}
		break;
	default:
		break;
	}
	return p;
}

/* Kinds whose h.fd is a file descriptor worth showing. */
static bool shows_fd(const struct dl_io *io)
{
	switch (io->h.kind) {
	case DL_SYS_OPEN:
	case DL_SYS_CREAT:
	case DL_SYS_STAT:
	case DL_SYS_LSTAT:
	case DL_SYS_UNLINK:
	case DL_SYS_RENAME:
	case DL_SYS_MKDIR:
	case DL_SYS_RMDIR:
		return false;
	case DL_SYS_OPENAT:
	case DL_SYS_OPENAT2:
	case DL_SYS_NEWFSTATAT:
	case DL_SYS_STATX:
	case DL_SYS_UNLINKAT:
	case DL_SYS_RENAMEAT:
	case DL_SYS_RENAMEAT2:
	case DL_SYS_MKDIRAT:
		return io->h.fd != -100; /* AT_FDCWD */
	default:
		return true;
	}
}

void cw_syscall(struct chrome_writer *w, const struct dl_io *io, const struct io_names *names,
		const struct dl_path *rec)
{
	const struct syscall_info *si = syscall_info(io->h.kind);
	const bool opens = si->opens;
	char *start, *p;

	static char heads[DL_SYS_COUNT][64];
	static uint8_t head_len[DL_SYS_COUNT];

	if (!head_len[io->h.kind])
		head_len[io->h.kind] =
		    line_head(heads[io->h.kind], si->name, io_class_name(si->io_class), 'X');
	start = p = sink_space(w->sink, LINE_MAX_BYTES);
	p = line_begin_head(w, p, heads[io->h.kind], head_len[io->h.kind], io->h.ts, io->h.tgid,
			    io->h.tid);
	PUT(p, ",\"dur\":");
	p = fmt_us(p, io->dur);
	PUT(p, ",\"args\":{");
	p = put_errno_or_ret(p, io->ret);
	if (opens && io->ret >= 0)
		p = put_key_i64(p, "fd", io->ret);
	else if (shows_fd(io))
		p = put_key_i64(p, rec ? "dirfd" : "fd", io->h.fd);
	p = put_path(p, "path", names->path);
	p = put_path(p,
		     io->h.kind == DL_SYS_SENDFILE || io->h.kind == DL_SYS_COPY_FILE_RANGE
			 ? "out_path"
			 : "new_path",
		     names->path2);
	if ((io->h.flags & DL_F_OFFSET) && io->h.kind != DL_SYS_LSEEK)
		p = put_key_u64(p, io->h.kind == DL_SYS_FTRUNCATE ? "length" : "offset",
				io->offset);
	if (si->reads || si->writes || io->h.kind == DL_SYS_MMAP ||
	    io->h.kind == DL_SYS_GETDENTS64 || io->h.kind == DL_SYS_FALLOCATE ||
	    io->h.kind == DL_SYS_SYNC_FILE_RANGE)
		p = put_key_u64(p, "size", io->size);
	if (io->h.flags & DL_F_CACHE)
		p = put_key_u64(p, "cache_miss_bytes", io->arg * w->page_size);
	if (io->h.flags & DL_F_IOV_TRUNC)
		PUT(p, ",\"size_partial\":true");
	p = put_kind_args(p, io, rec);
	if (io->h.kind == DL_SYS_MMAP && io->ret >= 0) {
		char addr[24];

		snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)io->ret);
		p = put_key_str(p, "addr", addr);
	}
	PUT(p, "}}");
	line_end(w, start, p);
}

void cw_fork(struct chrome_writer *w, uint64_t ts, uint32_t ppid, uint32_t ptid, uint32_t pid,
	     bool thread)
{
	char *start, *p;
	uint64_t id = w->next_flow++;

	start = p = sink_space(w->sink, 1024);
	p = line_begin(w, p, thread ? "thread_create" : "fork", "process", 'X', ts, ppid, ptid);
	PUT(p, ",\"dur\":0.000,\"bind_id\":");
	p = fmt_u64(p, id);
	PUT(p, ",\"flow_out\":true,\"args\":{");
	p = stpcpy(p, thread ? "\"child_tid\":" : "\"child_pid\":");
	p = fmt_u64(p, pid);
	PUT(p, "}}");
	line_end(w, start, p);

	start = p = sink_space(w->sink, 1024);
	p = line_begin(w, p, thread ? "thread_start" : "process_start", "process", 'X', ts,
		       thread ? ppid : pid, pid);
	PUT(p, ",\"dur\":0.000,\"bind_id\":");
	p = fmt_u64(p, id);
	PUT(p, ",\"flow_in\":true,\"args\":{");
	p = stpcpy(p, thread ? "\"creator_tid\":" : "\"parent_pid\":");
	p = fmt_u64(p, thread ? ptid : ppid);
	PUT(p, "}}");
	line_end(w, start, p);
}

void cw_exec(struct chrome_writer *w, uint64_t ts, uint32_t pid, uint32_t tid, const char *file,
	     size_t file_len, const char *cmdline)
{
	char *start, *p;
	size_t n = cmdline ? strlen(cmdline) : 0;

	start = p = sink_space(w->sink, JSON_ESCAPED_MAX(file_len + n) + 1024);
	p = line_begin(w, p, "exec", "process", 'i', ts, pid, tid);
	PUT(p, ",\"s\":\"t\",\"args\":{\"file\":");
	p = fmt_str(p, file, file_len);
	if (cmdline) {
		PUT(p, ",\"cmdline\":");
		p = fmt_str(p, cmdline, n);
	}
	PUT(p, "}}");
	line_end(w, start, p);
}

void cw_exit(struct chrome_writer *w, uint64_t ts, uint32_t pid, uint32_t tid, int status,
	     bool group_dead)
{
	char *start, *p;

	start = p = sink_space(w->sink, 1024);
	p = line_begin(w, p, group_dead ? "process_exit" : "thread_exit", "process", 'i', ts, pid,
		       tid);
	PUT(p, ",\"s\":\"t\",\"args\":{");
	if ((status & 0x7f) == 0) {
		PUT(p, "\"exit_code\":");
		p = fmt_u64(p, (status >> 8) & 0xff);
	} else {
		PUT(p, "\"signal\":");
		p = fmt_u64(p, status & 0x7f);
	}
	PUT(p, "}}");
	line_end(w, start, p);
}

static void name_event(struct chrome_writer *w, const char *kind, uint32_t pid, uint32_t tid,
		       const char *name)
{
	size_t n = strlen(name);
	char *start, *p;

	if (!n)
		return;
	if (w->map_ids)
		w->map_ids(w->map_ctx, &pid, &tid);
	start = p = sink_space(w->sink, JSON_ESCAPED_MAX(n) + 256);
	if (w->events)
		PUT(p, "\n,");
	PUT(p, "{\"name\":\"");
	p = stpcpy(p, kind);
	PUT(p, "\",\"ph\":\"M\",\"pid\":");
	p = fmt_u64(p, pid);
	PUT(p, ",\"tid\":");
	p = fmt_u64(p, tid);
	PUT(p, ",\"args\":{\"name\":");
	p = fmt_str(p, name, n);
	PUT(p, "}}");
	line_end(w, start, p);
}

void cw_process_name(struct chrome_writer *w, uint32_t pid, const char *name)
{
	name_event(w, "process_name", pid, pid, name);
}

void cw_thread_name(struct chrome_writer *w, uint32_t pid, uint32_t tid, const char *name)
{
	name_event(w, "thread_name", pid, tid, name);
}

void cw_end(struct chrome_writer *w, const struct trace_summary *s, char *tail, size_t *tail_len,
	    size_t tail_cap)
{
	char *p = tail;

	if (tail_cap < CW_TAIL_MAX) {
		*tail_len = 0;
		return;
	}
	PUT(p, "\n,{\"name\":\"dltrace_summary\",\"ph\":\"M\",\"pid\":0,\"tid\":0,\"args\":{");
	PUT(p, "\"events\":");
	p = fmt_u64(p, w->events + 1);
	p = put_key_u64(p, "lost_events", s->lost.events);
	p = put_key_u64(p, "lost_bytes", s->lost.bytes);
	if (s->lost.events) {
		PUT(p, ",\"lost_by_kind\":{");
		p = lost_counts_json(&s->lost, p);
		*p++ = '}';
	}
	p = put_key_u64(p, "duration_ns", s->end_mono_ns > w->t0 ? s->end_mono_ns - w->t0 : 0);
	p = put_key_i64(p, "end_wall_ns", s->end_wall_ns);
	if (s->stop_reason)
		p = put_key_str(p, "stop_reason", s->stop_reason);
	if (s->capped_events)
		p = put_key_u64(p, "capped_events", s->capped_events);
	if (s->output_error)
		PUT(p, ",\"truncated\":true");
	PUT(p, "}}\n]\n");
	*tail_len = p - tail;
}
