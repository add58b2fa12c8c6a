// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "event/event_args.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bpf/dltrace_events.h"
#include "event/syscall_table.h"
#include "lib/decimal.h"
#include "lib/fs_names.h"

/* A small writer of args and of the scratch strings they point to. */
struct args_out {
	struct ev_arg *a;
	unsigned n;
	char *scratch;
};

static struct ev_arg *add(struct args_out *o, const char *key, size_t key_len, uint8_t type)
{
	struct ev_arg *a = &o->a[o->n++];

	a->key = (struct ev_str){key, key_len};
	a->type = type;
	a->key_named = 1; /* a literal of this file */
	return a;
}

#define KEYLEN(lit) (lit), sizeof(lit) - 1

#define ADD_U64(o, k, v)   (add((o), KEYLEN(k), EV_ARG_U64)->u = (v))
#define ADD_I64(o, k, v)   (add((o), KEYLEN(k), EV_ARG_I64)->i = (v))
#define ADD_STR(o, k, str) (add((o), KEYLEN(k), EV_ARG_STR)->s = (str))

/* A symbol that lives as long as the program (a name from a table). */
static void add_sym(struct args_out *o, const char *key, size_t key_len, const char *s)
{
	add(o, key, key_len, EV_ARG_SYMBOL)->s = (struct ev_str){s, strlen(s)};
}
#define ADD_SYM(o, k, s) add_sym((o), KEYLEN(k), (s))

/* A symbol made in scratch, from start to end. */
static void add_made(struct args_out *o, const char *key, size_t key_len, char *end)
{
	add(o, key, key_len, EV_ARG_SYMBOL)->s = (struct ev_str){o->scratch, end - o->scratch};
	o->scratch = end;
}

/* A symbol copied into scratch (from a buffer of the caller's). */
static void add_copy(struct args_out *o, const char *key, size_t key_len, const char *s)
{
	size_t n = strlen(s);

	memcpy(o->scratch, s, n);
	add_made(o, key, key_len, o->scratch + n);
}
#define ADD_COPY(o, k, s) add_copy((o), KEYLEN(k), (s))

/* What errno_name(), whence_name() and sym_name() return: a static name, or the number in buf. */
static void add_name(struct args_out *o, const char *key, size_t key_len, const char *s,
		     const char *buf)
{
	if (s == buf)
		add_copy(o, key, key_len, s);
	else
		add_sym(o, key, key_len, s);
}
#define ADD_NAME(o, k, s, buf) add_name((o), KEYLEN(k), (s), (buf))

/*
 * A text that may not be valid UTF-8 (a command line, a process's or
 * thread's name): written like a path, so that "<key>_hex" holds its exact
 * bytes when it is not; its struct ev_path lives in scratch.
 */
static void add_exact(struct args_out *o, const char *key, size_t key_len, struct ev_str s)
{
	struct ev_path *p = (struct ev_path *)(((uintptr_t)o->scratch + 7) & ~(uintptr_t)7);

	p->name = s;
	p->ref = NULL;
	o->scratch = (char *)(p + 1);
	add(o, key, key_len, EV_ARG_PATH)->path = p;
}
#define ADD_EXACT(o, k, s) add_exact((o), KEYLEN(k), (s))

static void add_path(struct args_out *o, const char *key, size_t key_len, const struct ev_path *p)
{
	if (p->name.len)
		add(o, key, key_len, EV_ARG_PATH)->path = p;
}
#define ADD_PATH(o, k, p) add_path((o), KEYLEN(k), (p))

/* "ret", and "errno" when the value is an error. */
static void add_ret(struct args_out *o, int64_t ret)
{
	if (ret < 0 && ret >= -4095) {
		char buf[16];

		ADD_I64(o, "ret", -1);
		ADD_NAME(o, "errno", errno_name(-ret, buf, sizeof(buf)), buf);
		return;
	}
	ADD_I64(o, "ret", ret);
}

/* "major:minor" */
static void add_dev(struct args_out *o, uint32_t dev)
{
	char *p = dec_u64(o->scratch, dev >> 20);

	*p++ = ':';
	add_made(o, KEYLEN("dev"), dec_u64(p, dev & 0xfffff));
}

/* 0x1f (each writer writes it in hex: the JSON as the string "0x1f") */
static void add_hex(struct args_out *o, const char *key, size_t key_len, uint64_t v)
{
	add(o, key, key_len, EV_ARG_HEX)->u = v;
}

/* ino, dev and fs (its name, else its magic in hex) */
static void add_identity(struct args_out *o, uint64_t ino, uint32_t dev, uint32_t fs_magic)
{
	const char *fs = fs_name(fs_magic);

	ADD_U64(o, "ino", ino);
	add_dev(o, dev);
	if (fs)
		ADD_SYM(o, "fs", fs);
	else
		add_hex(o, KEYLEN("fs"), fs_magic);
}

/* "rdev": "major:minor" of mknod's device, in the kernel's new_decode_dev() encoding */
static void add_rdev(struct args_out *o, const char *key, size_t key_len, uint32_t dev)
{
	char *p = dec_u64(o->scratch, (dev & 0xfff00) >> 8);

	*p++ = ':';
	add_made(o, key, key_len, dec_u64(p, (dev & 0xff) | ((dev >> 12) & 0xfff00)));
}

/* "0644" */
static void add_octal(struct args_out *o, const char *key, size_t key_len, uint32_t mode)
{
	char *p = o->scratch;

	*p++ = '0';
	add_made(o, key, key_len, oct_u64(p, mode));
}

/* The fcntl command, and what its argument was. */
static void fcntl_args(struct args_out *o, const struct ev_syscall *s, char *buf, size_t size)
{
	uint32_t cmd = s->arg_lo, arg = s->arg_hi;

	ADD_NAME(o, "cmd", sym_name(SYM_FCNTL_CMD, cmd, buf, size), buf);
	switch (fcntl_arg_of(cmd)) {
	case FCNTL_ARG_DUP:
		ADD_U64(o, "minfd", arg);
		break;
	case FCNTL_ARG_FD_FLAGS:
		format_flag_set(FLAGS_FD, arg, buf, size);
		ADD_COPY(o, "arg", buf);
		break;
	case FCNTL_ARG_FILE_FLAGS:
		format_open_flags(arg, buf, size);
		ADD_COPY(o, "arg", buf);
		break;
	case FCNTL_ARG_INT:
		ADD_I64(o, "arg", (int32_t)arg);
		break;
	case FCNTL_ARG_LOCK:
		ADD_NAME(o, "lock", sym_name(SYM_LOCK_TYPE, arg & 0xffff, buf, size), buf);
		ADD_NAME(o, "whence", whence_name(arg >> 16, buf, size), buf);
		ADD_I64(o, "start", (int64_t)s->offset);
		ADD_I64(o, "len", (int64_t)s->size);
		break;
	default:
		break;
	}
}

/* The value of a field of the show column (syscall_table.h). */
static uint64_t show_value(const struct ev_syscall *s, unsigned field)
{
	switch (field) {
	case SF_LO:
		return s->arg_lo;
	case SF_HI:
		return s->arg_hi;
	case SF_ARG:
		return (uint64_t)s->arg_hi << 32 | s->arg_lo;
	case SF_OFFSET:
		return s->offset;
	case SF_SIZE:
		return s->size;
	case SF_ATFLAGS:
		return s->at_flags;
	case SF_ADDR:
		return s->addr;
	case SF_RET:
		return (uint64_t)s->ret;
	default:
		return 0;
	}
}

/* One argument of the kind's own (bpf/syscalls.def, the show column). */
static void show_arg(struct args_out *o, const struct ev_syscall *s, const struct syscall_show *sh,
		     char *buf, size_t size)
{
	uint64_t v = show_value(s, sh->field);
	const char *key = sh->key;
	size_t key_len = sh->key_len;

	switch (sh->when) {
	case SW_NONZERO:
		if (!v)
			return;
		break;
	case SW_OK:
		if (s->ret < 0)
			return;
		break;
	case SW_CREATE:
		if (!(s->arg_lo & O_CREAT) && (s->arg_lo & O_TMPFILE) != O_TMPFILE)
			return;
		break;
	default:
		break;
	}
	switch (sh->format) {
	case SH_U64:
		add(o, key, key_len, EV_ARG_U64)->u = v;
		break;
	case SH_I64:
		add(o, key, key_len, EV_ARG_I64)->i = (int64_t)v;
		break;
	case SH_I32:
		add(o, key, key_len, EV_ARG_I64)->i = (int32_t)v;
		break;
	case SH_HEX:
		add_hex(o, key, key_len, v);
		break;
	case SH_OCTAL:
		add_octal(o, key, key_len, v);
		break;
	case SH_RDEV:
		add_rdev(o, key, key_len, v);
		break;
	case SH_STR:
		add(o, key, key_len, EV_ARG_STR)->s = s->text;
		break;
	case SH_UTIME: {
		int i = sh->field == SF_MTIME;

		format_utime(s->times.sec[i], s->times.nsec[i], buf, size);
		add_copy(o, key, key_len, buf);
		break;
	}
	case SH_OPEN_FLAGS:
		format_open_flags(v, buf, size);
		add_copy(o, key, key_len, buf);
		break;
	case SH_WHENCE:
		add_name(o, key, key_len, whence_name(v, buf, size), buf);
		break;
	case SH_PROT:
		format_mmap_prot(v, buf, size);
		add_copy(o, key, key_len, buf);
		break;
	case SH_MMAP_FLAGS:
		format_mmap_flags(v, buf, size);
		add_copy(o, key, key_len, buf);
		break;
	case SH_CLOEXEC:
		add_sym(o, key, key_len, "O_CLOEXEC");
		break;
	case SH_FCNTL:
		fcntl_args(o, s, buf, size);
		break;
	case SH_FLAGS:
		format_flag_set(sh->set, v, buf, size);
		add_copy(o, key, key_len, buf);
		break;
	case SH_SYM:
		add_name(o, key, key_len, sym_name(sh->set, v, buf, size), buf);
		break;
	case SH_IDENTITY: /* an opened file */
		if (s->flags & EVS_IDENTITY) {
			add_identity(o, s->ino, s->dev, s->fs_magic);
			ADD_U64(o, "file_size", s->file_size);
		}
		break;
	default:
		break;
	}
}

static void syscall_args(struct args_out *o, const struct ev_syscall *s)
{
	const struct syscall_info *si = syscall_info(s->sys);

	add_ret(o, s->ret);
	if (si->opens && s->ret >= 0)
		ADD_I64(o, "fd", s->ret);
	else if (si->fd_key == FD_KEY_FD)
		ADD_I64(o, "fd", s->fd);
	else if (si->fd_key == FD_KEY_DIRFD && s->fd != -100) /* AT_FDCWD: not shown */
		ADD_I64(o, "dirfd", s->fd);
	ADD_PATH(o, "path", &s->path);
	if (s->sock_family) {
		char buf[32];

		ADD_NAME(o, "socket_family", sym_name(SYM_FAMILY, s->sock_family, buf, sizeof(buf)),
			 buf);
	}
	if (s->flags & EVS_PATH_UNKNOWN)
		add(o, KEYLEN("path_unknown"), EV_ARG_BOOL)->b = true;
	if (si->out_fd)
		ADD_PATH(o, "out_path", &s->path2);
	else
		ADD_PATH(o, "new_path", &s->path2);
	if (s->flags & EVS_PATH2_UNKNOWN)
		add(o, KEYLEN("out_path_unknown"), EV_ARG_BOOL)->b = true;
	if ((s->flags & EVS_OFFSET) && si->offset_shown) {
		if (s->flags & EVS_OUT_OFFSET)
			ADD_U64(o, "out_offset", s->offset);
		else
			add(o, si->offset_key, si->offset_key_len, EV_ARG_U64)->u = s->offset;
	}
	if (si->size_shown)
		ADD_U64(o, "size", s->size);
	if (s->flags & EVS_CACHE)
		ADD_U64(o, "cache_miss_bytes", s->cache_miss_bytes);
	if (s->flags & EVS_IOV_TRUNC)
		add(o, KEYLEN("size_partial"), EV_ARG_BOOL)->b = true;
	if (si->nshow) {
		char buf[256];

		for (unsigned i = 0; i < si->nshow; i++)
			show_arg(o, s, &si->show[i], buf, sizeof(buf));
	}
	if (s->py.len)
		ADD_STR(o, "py", s->py);
	if (s->py_stack.len)
		ADD_STR(o, "py_stack", s->py_stack);
}

static void begin_args(struct args_out *o, const struct ev_trace_begin *b)
{
	time_t sec = b->start_wall_ns / 1000000000;
	struct tm tm;

	if (b->format.len)
		ADD_STR(o, "format", b->format);
	else
		ADD_SYM(o, "format", "dltrace-chrome-1");
	ADD_STR(o, "version", b->version);
	ADD_STR(o, "kernel", b->kernel);
	ADD_STR(o, "hostname", b->hostname);
	ADD_EXACT(o, "target", b->target);
	if (b->layers.len)
		ADD_STR(o, "layers", b->layers);
	else
		ADD_SYM(o, "layers", "syscall");
	if (b->layers_off.len)
		ADD_STR(o, "layers_unavailable", b->layers_off);
	if (b->layers_attach.len)
		ADD_STR(o, "layers_attach", b->layers_attach);
	if (b->clock.len)
		ADD_STR(o, "clock", b->clock);
	else
		ADD_SYM(o, "clock", "CLOCK_MONOTONIC");
	ADD_U64(o, "start_mono_ns", b->start_mono_ns);
	ADD_I64(o, "start_wall_ns", b->start_wall_ns);
	if (b->start_wall.len) {
		ADD_STR(o, "start_wall", b->start_wall);
	} else {
		char when[32];

		gmtime_r(&sec, &tm);
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
		char *p = o->scratch;

		p +=
		    snprintf(p, 48, "%s.%09lldZ", when, (long long)(b->start_wall_ns % 1000000000));
		add_made(o, KEYLEN("start_wall"), p);
	}
	ADD_U64(o, "tracer_pid", b->tracer_pid);
	if (b->profiler_traces)
		ADD_U64(o, "profiler_traces", b->profiler_traces);
}

static void end_args(struct args_out *o, const struct ev_trace_end *s)
{
	ADD_U64(o, "events", s->events);
	ADD_U64(o, "lost_events", s->lost_events);
	ADD_U64(o, "lost_bytes", s->lost_bytes);
	if (s->lost_events && s->lost)
		add(o, KEYLEN("lost_by_kind"), EV_ARG_LOST_KINDS)->lost = s->lost;
	ADD_U64(o, "duration_ns", s->duration_ns);
	ADD_I64(o, "end_wall_ns", s->end_wall_ns);
	if (s->stop_reason.len)
		ADD_STR(o, "stop_reason", s->stop_reason);
	if (s->capped_events)
		ADD_U64(o, "capped_events", s->capped_events);
	if (s->paths_unknown)
		ADD_U64(o, "paths_unknown", s->paths_unknown);
	if (s->truncated)
		add(o, KEYLEN("truncated"), EV_ARG_BOOL)->b = true;
	if (s->write_error.len)
		ADD_STR(o, "write_error", s->write_error);
	/* a merge's own keys (merge/kineto_merge.h), of any name */
	for (uint32_t i = 0; i < s->nextra && o->n < EV_ARGS_MAX; i++) {
		o->a[o->n] = s->extra[i];
		o->a[o->n++].key_named = 0;
	}
}

static void vfs_args(struct args_out *o, const struct ev_vfs *v)
{
	if (v->op == DL_VFS_RW_CHECK)
		ADD_U64(o, "write", v->write);
	else
		add_ret(o, v->ret);
	ADD_PATH(o, "path", &v->path);
	ADD_U64(o, "offset", v->offset);
	ADD_U64(o, "size", v->size);
	add_identity(o, v->ino, v->dev, v->fs_magic);
}

unsigned event_args(const struct event *e, struct ev_arg *args, char *scratch)
{
	struct args_out o = {args, 0, scratch};

	switch (e->type) {
	case EV_TRACE_BEGIN:
		begin_args(&o, &e->begin);
		break;
	case EV_TRACE_END:
		end_args(&o, &e->end);
		break;
	case EV_SYSCALL:
		syscall_args(&o, &e->sys);
		break;
	case EV_FORK:
		if (e->fork.thread)
			ADD_U64(&o, "child_tid", e->fork.child);
		else
			ADD_U64(&o, "child_pid", e->fork.child);
		break;
	case EV_START:
		if (e->fork.thread)
			ADD_U64(&o, "creator_tid", e->fork.parent_tid);
		else
			ADD_U64(&o, "parent_pid", e->fork.parent_pid);
		break;
	case EV_EXEC:
		ADD_STR(&o, "file", e->exec.file);
		if (e->exec.cmdline.len)
			ADD_EXACT(&o, "cmdline", e->exec.cmdline);
		break;
	case EV_EXIT:
		if (e->exit.signaled)
			ADD_U64(&o, "signal", (uint32_t)e->exit.code);
		else
			ADD_U64(&o, "exit_code", (uint32_t)e->exit.code);
		break;
	case EV_PROCESS_NAME:
	case EV_THREAD_NAME:
		ADD_EXACT(&o, "name", e->name.name);
		if (e->name.ranks & EV_RANK) {
			ADD_U64(&o, "rank", e->name.rank);
			ADD_EXACT(&o, "rank_from", e->name.rank_from);
		} else if (e->name.ranks & EV_RANKS_READ) {
			ADD_SYM(&o, "rank", "unknown");
		}
		if (e->name.ranks & EV_LOCAL_RANK)
			ADD_U64(&o, "local_rank", e->name.local_rank);
		if (e->name.ranks & EV_WORLD_SIZE)
			ADD_U64(&o, "world_size", e->name.world_size);
		break;
	case EV_FAULT:
		ADD_U64(&o, "offset", e->fault.offset);
		if (e->fault.size)
			ADD_U64(&o, "size", e->fault.size);
		ADD_PATH(&o, "path", &e->fault.path);
		ADD_SYM(&o, "access", e->fault.write ? "write" : "read");
		if (e->fault.exec)
			add(&o, KEYLEN("exec"), EV_ARG_BOOL)->b = true;
		if (e->fault.cow)
			add(&o, KEYLEN("cow"), EV_ARG_BOOL)->b = true;
		if (e->fault.address)
			add_hex(&o, KEYLEN("address"), e->fault.address);
		ADD_U64(&o, "ino", e->fault.ino);
		add_dev(&o, e->fault.dev);
		break;
	case EV_BLOCK:
		if (e->block.phase == EV_PH_BEGIN) {
			ADD_U64(&o, "sector", e->block.sector);
			ADD_U64(&o, "bytes", e->block.bytes);
			add_dev(&o, e->block.dev);
			if (e->block.issuer_pid)
				ADD_U64(&o, "issuer_pid", e->block.issuer_pid);
		} else {
			add(&o, KEYLEN("latency_us"), EV_ARG_US)->u = e->block.latency_ns;
			if (e->block.error)
				ADD_I64(&o, "error", e->block.error);
		}
		break;
	case EV_BLOCK_RATE:
		add(&o, KEYLEN("read"), EV_ARG_DOUBLE)->d = e->rate.read_mbps;
		add(&o, KEYLEN("write"), EV_ARG_DOUBLE)->d = e->rate.write_mbps;
		break;
	case EV_URING:
		if (e->uring.phase == EV_PH_BEGIN) {
			if (e->uring.fixed)
				ADD_I64(&o, "fixed_file", e->uring.fd);
			else
				ADD_I64(&o, "fd", e->uring.fd);
			ADD_PATH(&o, "path", &e->uring.path);
			if (e->uring.path_unknown)
				add(&o, KEYLEN("path_unknown"), EV_ARG_BOOL)->b = true;
			ADD_U64(&o, "offset", e->uring.offset);
			ADD_U64(&o, "len", e->uring.len);
			add_hex(&o, KEYLEN("user_data"), e->uring.user_data);
			if (e->uring.has_file) {
				ADD_U64(&o, "ino", e->uring.ino);
				add_dev(&o, e->uring.dev);
			}
		} else {
			add_ret(&o, e->uring.res);
		}
		break;
	case EV_AIO:
		if (e->aio.phase == EV_PH_BEGIN) {
			ADD_I64(&o, "fd", e->aio.fd);
			ADD_PATH(&o, "path", &e->aio.path);
			if (e->aio.submission_unknown) {
				add(&o, KEYLEN("submission_unknown"), EV_ARG_BOOL)->b = true;
			} else {
				ADD_U64(&o, "offset", e->aio.offset);
				ADD_U64(&o, "len", e->aio.len);
				if (e->aio.size_partial)
					add(&o, KEYLEN("size_partial"), EV_ARG_BOOL)->b = true;
			}
			add_hex(&o, KEYLEN("data"), e->aio.data);
			add_hex(&o, KEYLEN("iocb"), e->aio.iocb);
			add_hex(&o, KEYLEN("ctx"), e->aio.ctx);
		} else if (!e->aio.reaped) {
			add(&o, KEYLEN("reaped"), EV_ARG_BOOL)->b = false;
		} else {
			add_ret(&o, e->aio.res);
			if (e->aio.res2)
				ADD_I64(&o, "res2", e->aio.res2);
		}
		break;
	case EV_VFS:
		vfs_args(&o, &e->vfs);
		break;
	case EV_VFS_OPEN:
		add_ret(&o, e->vfs_open.ret);
		ADD_PATH(&o, "path", &e->vfs_open.path);
		add_identity(&o, e->vfs_open.ino, e->vfs_open.dev, e->vfs_open.fs_magic);
		ADD_U64(&o, "file_size", e->vfs_open.file_size);
		break;
	case EV_SPAN:
		for (uint32_t i = 0; i < e->span.nargs && o.n < EV_ARGS_MAX; i++) {
			args[o.n] = e->span.args[i];
			args[o.n++].key_named = 0; /* the span's own keys: anything */
		}
		break;
	default:
		break;
	}
	return o.n;
}

void event_head(const struct event *e, struct ev_head *h, char *scratch)
{
	static const struct ev_str process = EV_STR("process");
	const char *name = "";

	h->cat = (struct ev_str){"", 0};
	h->ph = 'i';
	switch (e->type) {
	case EV_TRACE_BEGIN:
		name = "dltrace";
		h->ph = 'M';
		break;
	case EV_TRACE_END:
		name = "dltrace_summary";
		h->ph = 'M';
		break;
	case EV_SYSCALL: {
		const struct syscall_info *si = syscall_info(e->sys.sys);

		name = si->name;
		h->cat = (struct ev_str){io_class_name(si->io_class),
					 strlen(io_class_name(si->io_class))};
		h->ph = 'X';
		break;
	}
	case EV_FORK:
		name = e->fork.thread ? "thread_create" : "fork";
		h->cat = process;
		h->ph = 'X';
		break;
	case EV_START:
		name = e->fork.thread ? "thread_start" : "process_start";
		h->cat = process;
		h->ph = 'X';
		break;
	case EV_EXEC:
		name = "exec";
		h->cat = process;
		break;
	case EV_EXIT:
		name = e->exit.group_dead ? "process_exit" : "thread_exit";
		h->cat = process;
		break;
	case EV_PROCESS_NAME:
		name = "process_name";
		h->ph = 'M';
		break;
	case EV_THREAD_NAME:
		name = "thread_name";
		h->ph = 'M';
		break;
	case EV_FAULT:
		name = "page_fault";
		h->cat = EV_STR("mmap");
		break;
	case EV_BLOCK:
		name = block_op_name(e->block.op);
		h->cat = EV_STR("block");
		h->ph = e->block.phase;
		break;
	case EV_BLOCK_RATE:
		name = "throughput_MBps";
		h->cat = EV_STR("block");
		h->ph = 'C';
		break;
	case EV_URING:
		name = uring_op_name(e->uring.opcode, scratch, 16);
		h->cat = EV_STR("uring");
		h->ph = e->uring.phase;
		break;
	case EV_AIO:
		name = aio_op_name(e->aio.opcode, scratch, 16);
		h->cat = EV_STR("aio");
		h->ph = e->aio.phase;
		break;
	case EV_VFS:
		name = vfs_op_name(e->vfs.op);
		h->cat = EV_STR("vfs");
		h->ph = e->vfs.op == DL_VFS_RW_CHECK ? 'i' : 'X';
		break;
	case EV_VFS_OPEN:
		name = "vfs_open";
		h->cat = EV_STR("vfs");
		break;
	case EV_SPAN:
		h->name = e->span.name;
		h->cat = e->span.cat;
		h->ph = e->span.phase;
		return;
	case EV_OTHER:
		h->name = e->other.name;
		h->ph = e->other.phase;
		return;
	default:
		break;
	}
	h->name = (struct ev_str){name, strlen(name)};
}

const char *block_op_name(unsigned op)
{
	static const char *const names[] = {"read", "write", "flush", "discard"};

	return op < 4 ? names[op] : "other";
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

uint64_t event_async_id(const struct event *e)
{
	switch (e->type) {
	case EV_BLOCK:
		return e->block.seq;
	case EV_URING:
		return e->uring.seq;
	case EV_AIO:
		return e->aio.seq;
	default:
		return 0;
	}
}

/* IOCB_CMD_* (linux/aio_abi.h); a submission that was not seen: UNKNOWN */
const char *aio_op_name(unsigned opcode, char *buf, size_t size)
{
	static const char *const names[] = {"PREAD", "PWRITE", "FSYNC",	 "FDSYNC", NULL,
					    "POLL",  "NOOP",   "PREADV", "PWRITEV"};

	if (opcode == AIO_OP_UNKNOWN)
		return "UNKNOWN";
	if (opcode < sizeof(names) / sizeof(names[0]) && names[opcode])
		return names[opcode];
	snprintf(buf, size, "OP_%u", opcode);
	return buf;
}

const char *vfs_op_name(unsigned op)
{
	static const char *const names[DL_VFS_OP_COUNT] = {
	    "vfs_read",	      "vfs_write",	 "vfs_iter_read",
	    "vfs_iter_write", "vfs_fsync_range", "rw_verify_area",
	};

	return op < DL_VFS_OP_COUNT ? names[op] : "vfs";
}
