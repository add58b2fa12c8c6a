// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "format/chrome/chrome_events.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/dltrace_events.h"
#include "event/event_args.h"
#include "event/syscall_table.h"
#include "format/chrome/trace_line_parser.h"
#include "lib/fs_names.h"

/* What the events of one line point into. */
struct chrome_events {
	struct event_consumer *out;
	/*
	 * Three regions of TRACE_SCRATCH(line length) bytes: the strings the
	 * event points to (from `next` on), then the scratch of the members of
	 * the line, then that of the members of its args (EV_SPAN).
	 */
	char *scratch;
	size_t scratch_cap;
	char *next;
	struct ev_arg span_args[EV_ARGS_MAX];
	struct ev_path span_paths[EV_ARGS_MAX];
	struct lost_counts lost;
	bool failed; /* out of memory */
};

static bool name_is(const struct trace_str *s, const char *lit)
{
	return s->len == strlen(lit) && !memcmp(s->s, lit, s->len);
}

static struct ev_str str(const struct trace_str *s)
{
	return (struct ev_str){s->s, s->len};
}

static struct ev_path path(const struct trace_str *s)
{
	return (struct ev_path){{s->s, s->len}, NULL};
}

/* ---- the args the tokenizer kept raw ---- */

static const struct trace_str *extra(const struct trace_event *l, const char *key)
{
	for (uint32_t i = 0; i < l->nextra; i++)
		if (name_is(&l->extra[i].key, key))
			return &l->extra[i].value;
	return NULL;
}

static bool extra_u64(const struct trace_event *l, const char *key, uint64_t *out)
{
	const struct trace_str *v = extra(l, key);
	bool neg;

	return v && !trace_json_number(v, NULL, out, &neg) && !neg;
}

static bool extra_i64(const struct trace_event *l, const char *key, int64_t *out)
{
	const struct trace_str *v = extra(l, key);

	return v && !trace_json_number(v, out, NULL, NULL);
}

static bool extra_str(struct chrome_events *s, const struct trace_event *l, const char *key,
		      struct trace_str *out)
{
	const struct trace_str *v = extra(l, key);

	if (!v || !v->len || v->s[0] != '"')
		return false;
	if (trace_json_string(v, s->next, out))
		return false;
	if (out->s == s->next)
		s->next += out->len;
	return true;
}

/* "0x1f" -> 0x1f */
static bool hex_u64(const struct trace_str *v, uint64_t *out)
{
	uint64_t x = 0;

	if (v->len < 3 || v->len > 18 || v->s[0] != '0' || v->s[1] != 'x')
		return false;
	for (uint32_t i = 2; i < v->len; i++) {
		char c = v->s[i];
		int d = c >= '0' && c <= '9'   ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10
					       : -1;

		if (d < 0)
			return false;
		x = x << 4 | d;
	}
	*out = x;
	return true;
}

static bool extra_hex(struct chrome_events *s, const struct trace_event *l, const char *key,
		      uint64_t *out)
{
	struct trace_str v;

	return extra_str(s, l, key, &v) && hex_u64(&v, out);
}

/* "254:0" -> the kernel's encoding, major << 20 | minor */
static bool parse_dev(const struct trace_str *v, uint32_t *dev)
{
	uint32_t major = 0, minor = 0, i = 0;

	if (!v->len)
		return false;
	for (; i < v->len && v->s[i] >= '0' && v->s[i] <= '9'; i++)
		major = major * 10 + (v->s[i] - '0');
	if (i == 0 || i >= v->len || v->s[i] != ':')
		return false;
	for (i++; i < v->len && v->s[i] >= '0' && v->s[i] <= '9'; i++)
		minor = minor * 10 + (v->s[i] - '0');
	*dev = major << 20 | (minor & 0xfffff);
	return i == v->len;
}

/* "0644" (octal text) or a number */
static bool extra_mode(struct chrome_events *s, const struct trace_event *l, uint64_t *out)
{
	struct trace_str v;
	uint64_t m = 0;

	if (extra_u64(l, "mode", out))
		return true;
	if (!extra_str(s, l, "mode", &v) || !v.len)
		return false;
	for (uint32_t i = 0; i < v.len; i++) {
		if (v.s[i] < '0' || v.s[i] > '7')
			return false;
		m = m << 3 | (v.s[i] - '0');
	}
	*out = m;
	return true;
}

/* ret, or -errno when "errno" names one */
static int64_t ret_of(const struct trace_event *l)
{
	int64_t ret = (l->has & TE_RET) ? l->ret : 0;

	if (l->err.len)
		return -(int64_t)errno_number(l->err.s, l->err.len);
	if (ret < 0 && ret >= -4095) /* a failure whose errno the trace does not name */
		return -ERRNO_UNKNOWN;
	return ret;
}

static void identity(const struct trace_event *l, uint64_t *ino, uint32_t *dev, uint32_t *fs)
{
	uint64_t v;

	if (extra_u64(l, "ino", &v))
		*ino = v;
	parse_dev(&l->dev, dev);
	if (l->fs.len)
		fs_magic(l->fs.s, l->fs.len, fs);
}

/* ---- syscalls ---- */

/* fcntl: the command and its argument (event_args.c, fcntl_args) */
static void fcntl_args(struct chrome_events *s, const struct trace_event *l, struct ev_syscall *sc)
{
	struct trace_str text;
	uint32_t v32;
	uint64_t v;
	int64_t i;

	if (extra_str(s, l, "cmd", &text))
		parse_sym(SYM_FCNTL_CMD, text.s, text.len, &sc->arg_lo);
	switch (fcntl_arg_of(sc->arg_lo)) {
	case FCNTL_ARG_DUP:
		if (extra_u64(l, "minfd", &v))
			sc->arg_hi = v;
		break;
	case FCNTL_ARG_FD_FLAGS:
		if (extra_str(s, l, "arg", &text))
			parse_flag_set(FLAGS_FD, text.s, text.len, &sc->arg_hi);
		break;
	case FCNTL_ARG_FILE_FLAGS:
		if (extra_str(s, l, "arg", &text))
			parse_open_flags(text.s, text.len, &sc->arg_hi);
		break;
	case FCNTL_ARG_INT:
		if (extra_i64(l, "arg", &i))
			sc->arg_hi = (uint32_t)i;
		break;
	case FCNTL_ARG_LOCK:
		if (extra_str(s, l, "lock", &text) &&
		    !parse_sym(SYM_LOCK_TYPE, text.s, text.len, &v32))
			sc->arg_hi = v32 & 0xffff;
		if (!parse_whence(l->whence.s, l->whence.len, &v32))
			sc->arg_hi |= v32 << 16;
		if (extra_i64(l, "start", &i))
			sc->offset = i;
		if (extra_i64(l, "len", &i))
			sc->size = i;
		break;
	default:
		break;
	}
}

/* The kinds from DL_SYS_ACCESS on (event_args.c, meta_kind_args) */
static void meta_kind_args(struct chrome_events *s, const struct trace_event *l,
			   struct ev_syscall *sc)
{
	const struct trace_str *flags = &l->flags;
	struct trace_str text;
	uint64_t v;
	int64_t i;

	switch (sc->sys) {
	case DL_SYS_ACCESS:
	case DL_SYS_FACCESSAT:
	case DL_SYS_FACCESSAT2:
		if (extra_str(s, l, "mode", &text))
			parse_flag_set(FLAGS_ACCESS, text.s, text.len, &sc->arg_lo);
		break;
	case DL_SYS_CHMOD:
	case DL_SYS_FCHMOD:
	case DL_SYS_FCHMODAT:
	case DL_SYS_FCHMODAT2:
		if (extra_mode(s, l, &v))
			sc->arg_lo = v;
		break;
	case DL_SYS_CHOWN:
	case DL_SYS_FCHOWN:
	case DL_SYS_LCHOWN:
	case DL_SYS_FCHOWNAT:
		if (extra_i64(l, "uid", &i))
			sc->arg_lo = (uint32_t)i;
		if (extra_i64(l, "gid", &i))
			sc->arg_hi = (uint32_t)i;
		break;
	case DL_SYS_UTIME:
	case DL_SYS_UTIMES:
	case DL_SYS_FUTIMESAT:
	case DL_SYS_UTIMENSAT:
		if (extra_str(s, l, "atime", &text))
			parse_utime(text.s, text.len, &sc->times.sec[0], &sc->times.nsec[0]);
		if (extra_str(s, l, "mtime", &text))
			parse_utime(text.s, text.len, &sc->times.sec[1], &sc->times.nsec[1]);
		break;
	case DL_SYS_SYMLINK:
	case DL_SYS_SYMLINKAT:
		sc->text =
		    str(&l->target); /* the tokenizer keeps "target" (the header's key too) */
		break;
	case DL_SYS_MKNOD:
	case DL_SYS_MKNODAT: {
		uint32_t rdev;

		if (extra_mode(s, l, &v))
			sc->arg_hi = v;
		if (extra_str(s, l, "rdev", &text) && parse_dev(&text, &rdev)) {
			uint32_t major = rdev >> 20, minor = rdev & 0xfffff;

			/* the kernel's new_encode_dev() */
			sc->arg_lo = (minor & 0xff) | (major << 8) | ((minor & ~0xffu) << 12);
		}
		break;
	}
	case DL_SYS_SETXATTR:
	case DL_SYS_LSETXATTR:
	case DL_SYS_FSETXATTR:
	case DL_SYS_SETXATTRAT:
		if (extra_str(s, l, "xattr_flags", &text))
			parse_flag_set(FLAGS_XATTR, text.s, text.len, &sc->arg_lo);
		sc->text = str(&l->name); /* tokenized: process names use the key too */
		break;
	case DL_SYS_GETXATTR:
	case DL_SYS_LGETXATTR:
	case DL_SYS_FGETXATTR:
	case DL_SYS_GETXATTRAT:
	case DL_SYS_REMOVEXATTR:
	case DL_SYS_LREMOVEXATTR:
	case DL_SYS_FREMOVEXATTR:
	case DL_SYS_REMOVEXATTRAT:
		sc->text = str(&l->name);
		break;
	case DL_SYS_FLOCK:
		if (extra_str(s, l, "operation", &text))
			parse_flag_set(FLAGS_FLOCK, text.s, text.len, &sc->arg_lo);
		break;
	case DL_SYS_FADVISE64:
		if (extra_str(s, l, "advice", &text))
			parse_sym(SYM_FADVISE, text.s, text.len, &sc->arg_lo);
		break;
	case DL_SYS_MADVISE:
		if (extra_str(s, l, "advice", &text))
			parse_sym(SYM_MADVISE, text.s, text.len, &sc->arg_lo);
		break;
	case DL_SYS_MSYNC:
		parse_flag_set(FLAGS_MSYNC, flags->s, flags->len, &sc->arg_lo);
		break;
	case DL_SYS_SPLICE:
	case DL_SYS_TEE:
		if (extra_u64(l, "out_fd", &v))
			sc->arg_lo = v;
		if (flags->len)
			parse_flag_set(FLAGS_SPLICE, flags->s, flags->len, &sc->arg_hi);
		if (extra_u64(l, "out_offset", &v)) {
			sc->offset = v;
			sc->flags |= EVS_OFFSET | EVS_OUT_OFFSET;
		}
		break;
	case DL_SYS_VMSPLICE:
		if (flags->len)
			parse_flag_set(FLAGS_SPLICE, flags->s, flags->len, &sc->arg_lo);
		break;
	case DL_SYS_IO_SETUP:
	case DL_SYS_IO_SUBMIT:
	case DL_SYS_IO_GETEVENTS:
	case DL_SYS_IO_PGETEVENTS:
	case DL_SYS_IO_CANCEL:
	case DL_SYS_IO_DESTROY:
		if (extra_hex(s, l, "ctx", &v)) {
			sc->arg_lo = v & 0xffffffff;
			sc->arg_hi = v >> 32;
		}
		if (extra_u64(l, "nr_events", &v))
			sc->size = v;
		if (extra_i64(l, "nr", &i))
			sc->size = i;
		if (extra_i64(l, "min_nr", &i))
			sc->offset = i;
		if (extra_hex(s, l, "iocb", &v))
			sc->offset = v;
		break;
	case DL_SYS_IO_URING_SETUP:
		if (extra_u64(l, "entries", &v))
			sc->size = v;
		parse_flag_set(FLAGS_URING_SETUP, flags->s, flags->len, &sc->arg_lo);
		break;
	case DL_SYS_IO_URING_ENTER:
		if (extra_u64(l, "to_submit", &v))
			sc->size = v;
		if (extra_u64(l, "min_complete", &v))
			sc->offset = v;
		parse_flag_set(FLAGS_URING_ENTER, flags->s, flags->len, &sc->arg_lo);
		break;
	case DL_SYS_IO_URING_REGISTER:
		if (extra_str(s, l, "opcode", &text))
			parse_sym(SYM_URING_REGISTER, text.s, text.len, &sc->arg_lo);
		if (extra_u64(l, "nr_args", &v))
			sc->size = v;
		break;
	default:
		break;
	}
	switch (sc->sys) { /* the *at flags */
	case DL_SYS_FACCESSAT2:
	case DL_SYS_FCHMODAT2:
	case DL_SYS_FCHOWNAT:
	case DL_SYS_UTIMENSAT:
	case DL_SYS_LINKAT:
	case DL_SYS_SETXATTRAT:
	case DL_SYS_GETXATTRAT:
	case DL_SYS_LISTXATTRAT:
	case DL_SYS_REMOVEXATTRAT:
		if (hex_u64(flags, &v))
			sc->at_flags = v;
		break;
	default:
		break;
	}
	if (dl_kind_maps(sc->sys))
		extra_hex(s, l, "addr", &sc->addr);
}

static void syscall_kind_args(struct chrome_events *s, const struct trace_event *l,
			      struct ev_syscall *sc)
{
	const struct trace_str *flags = &l->flags;
	struct trace_str text;
	uint64_t v;

	switch (sc->sys) {
	case DL_SYS_OPEN:
	case DL_SYS_OPENAT:
	case DL_SYS_OPENAT2:
	case DL_SYS_CREAT:
		parse_open_flags(flags->s, flags->len, &sc->arg_lo);
		if (extra_mode(s, l, &v))
			sc->arg_hi = v;
		if (l->dev.len) {
			sc->flags |= EVS_IDENTITY;
			identity(l, &sc->ino, &sc->dev, &sc->fs_magic);
			sc->file_size = l->file_size;
		}
		break;
	case DL_SYS_LSEEK:
		parse_whence(l->whence.s, l->whence.len, &sc->arg_lo);
		break;
	case DL_SYS_MMAP:
		if (extra_str(s, l, "prot", &text))
			parse_mmap_prot(text.s, text.len, &sc->arg_lo);
		parse_mmap_flags(flags->s, flags->len, &sc->arg_hi);
		break;
	case DL_SYS_CLOSE_RANGE:
		if (extra_u64(l, "last", &v))
			sc->arg_lo = v;
		if (extra_u64(l, "flags", &v))
			sc->arg_hi = v;
		break;
	case DL_SYS_DUP2:
	case DL_SYS_DUP3:
		if (extra_u64(l, "newfd", &v))
			sc->arg_lo = v;
		if (sc->sys == DL_SYS_DUP3 && name_is(flags, "O_CLOEXEC"))
			sc->arg_hi = O_CLOEXEC;
		break;
	case DL_SYS_FCNTL:
		fcntl_args(s, l, sc);
		break;
	case DL_SYS_SENDFILE:
	case DL_SYS_COPY_FILE_RANGE:
		if (extra_u64(l, "out_fd", &v))
			sc->arg_lo = v;
		break;
	case DL_SYS_FALLOCATE:
		if (extra_u64(l, "mode", &v)) {
			sc->arg_lo = v & 0xffffffff;
			sc->arg_hi = v >> 32;
		}
		break;
	case DL_SYS_SYNC_FILE_RANGE:
		if (extra_u64(l, "flags", &v)) {
			sc->arg_lo = v & 0xffffffff;
			sc->arg_hi = v >> 32;
		}
		break;
	case DL_SYS_MKDIR:
	case DL_SYS_MKDIRAT:
		if (extra_mode(s, l, &v))
			sc->arg_hi = v;
		break;
	case DL_SYS_NEWFSTATAT:
	case DL_SYS_STATX:
	case DL_SYS_UNLINKAT:
	case DL_SYS_RENAMEAT2:
		if (hex_u64(flags, &v))
			sc->at_flags = v;
		break;
	default:
		meta_kind_args(s, l, sc);
		break;
	}
}

static void syscall_event(struct chrome_events *s, const struct trace_event *l, struct event *e)
{
	struct ev_syscall *sc = &e->sys;
	const struct syscall_info *si;
	const struct trace_str *partial;
	int64_t v;

	e->type = EV_SYSCALL;
	sc->sys = l->sys;
	si = syscall_info(sc->sys);
	sc->dur = l->dur_ns;
	sc->ret = ret_of(l);
	if (extra_i64(l, "dirfd", &v))
		sc->fd = v;
	else if (dl_kind_maps(sc->sys))
		sc->fd = -1; /* an address, no descriptor */
	else if (dl_kind_has_path(sc->sys) && !dl_kind_names_fd(sc->sys))
		sc->fd = -100; /* AT_FDCWD: not shown */
	else if ((l->has & TE_FD) && !(si->opens && sc->ret >= 0))
		sc->fd = l->fd;
	else
		sc->fd = -1;
	sc->path = path(&l->path);
	sc->path2 = path(&l->path2);
	if (l->has & (TE_OFFSET | TE_LENGTH)) {
		sc->offset = (uint64_t)l->offset;
		if (sc->sys != DL_SYS_LSEEK)
			sc->flags |= EVS_OFFSET;
	}
	if (l->has & TE_SIZE)
		sc->size = l->size;
	if (l->has & TE_CACHE_MISS) {
		sc->flags |= EVS_CACHE;
		sc->cache_miss_bytes = l->cache_miss;
	}
	partial = extra(l, "size_partial");
	if (partial && trace_json_true(partial))
		sc->flags |= EVS_IOV_TRUNC;
	syscall_kind_args(s, l, sc);
}

/* ---- the trace's first and last events ---- */

static void begin_event(struct chrome_events *s, const struct trace_event *l, struct event *e)
{
	struct ev_trace_begin *b = &e->begin;
	struct trace_str v;
	uint64_t pid;

	e->type = EV_TRACE_BEGIN;
	b->format = str(&l->format);
	b->version = str(&l->version);
	b->kernel = str(&l->kernel);
	b->hostname = str(&l->hostname);
	b->target = str(&l->target);
	b->layers = str(&l->layers);
	b->start_wall = str(&l->start_wall);
	b->start_mono_ns = l->start_mono_ns;
	b->start_wall_ns = l->start_wall_ns;
	if (extra_str(s, l, "layers_unavailable", &v))
		b->layers_off = str(&v);
	if (extra_str(s, l, "clock", &v))
		b->clock = str(&v);
	if (extra_u64(l, "tracer_pid", &pid))
		b->tracer_pid = pid;
}

/* "lost_by_kind":{"pread64":12,...} */
static int lost_member(void *ctx, const struct json_member *m)
{
	struct lost_counts *lost = ctx;
	struct trace_str v = {m->value, m->value_len};
	uint64_t n;
	bool neg;

	if (trace_json_number(&v, NULL, &n, &neg) || neg)
		return 0;
	lost_counts_add_named(lost, m->key.s, m->key.len, n);
	return 0;
}

static void end_event(struct chrome_events *s, const struct trace_event *l, struct event *e)
{
	struct ev_trace_end *end = &e->end;
	const struct trace_str *kinds = extra(l, "lost_by_kind");

	e->type = EV_TRACE_END;
	end->events = l->events;
	end->lost_events = l->lost_events;
	end->lost_bytes = l->lost_bytes;
	end->duration_ns = l->duration_ns;
	end->end_wall_ns = l->end_wall_ns;
	end->stop_reason = str(&l->stop_reason);
	end->truncated = l->truncated;
	extra_u64(l, "capped_events", &end->capped_events);
	if (kinds) {
		memset(&s->lost, 0, sizeof(s->lost));
		s->lost.events = l->lost_events;
		s->lost.bytes = l->lost_bytes;
		if (!trace_object_members(kinds->s, kinds->len, s->next, lost_member, &s->lost))
			end->lost = &s->lost;
	}
}

/* ---- the layers ---- */

static unsigned block_op(const struct trace_str *name)
{
	for (unsigned op = 0; op < 4; op++)
		if (name_is(name, block_op_name(op)))
			return op;
	return 4;
}

static int uring_opcode(const struct trace_str *name)
{
	char buf[16];
	uint64_t v = 0;

	for (unsigned op = 0; op < 256; op++) {
		const char *n = uring_op_name(op, buf, sizeof(buf));

		if (!strncmp(n, "OP_", 3))
			break;
		if (name_is(name, n))
			return op;
	}
	if (name->len > 3 && !memcmp(name->s, "OP_", 3)) {
		for (uint32_t i = 3; i < name->len && name->s[i] >= '0' && name->s[i] <= '9'; i++)
			v = v * 10 + (name->s[i] - '0');
		return v < 256 ? (int)v : -1;
	}
	return -1;
}

/* PREAD, ..., OP_<n>, UNKNOWN (aio_op_name) */
static int aio_opcode(const struct trace_str *name)
{
	char buf[16];
	uint64_t v = 0;

	if (name_is(name, "UNKNOWN"))
		return AIO_OP_UNKNOWN;
	for (unsigned op = 0; op < 9; op++) {
		const char *n = aio_op_name(op, buf, sizeof(buf));

		if (strncmp(n, "OP_", 3) && name_is(name, n))
			return op;
	}
	if (name->len > 3 && !memcmp(name->s, "OP_", 3)) {
		for (uint32_t i = 3; i < name->len && name->s[i] >= '0' && name->s[i] <= '9'; i++)
			v = v * 10 + (name->s[i] - '0');
		return v < AIO_OP_UNKNOWN ? (int)v : -1;
	}
	return -1;
}

static int vfs_op(const struct trace_str *name)
{
	for (unsigned op = 0; op < DL_VFS_OP_COUNT; op++)
		if (name_is(name, vfs_op_name(op)))
			return op;
	return -1;
}

static bool layer_event(struct chrome_events *s, const struct trace_event *l, struct event *e)
{
	const struct trace_str *nm = &l->event_name;
	uint64_t v;
	int64_t i;
	int op;

	switch (l->cat) {
	case 'f':
		if (l->ph != 'i' || !name_is(nm, "page_fault"))
			return false;
		e->type = EV_FAULT;
		e->fault.offset = (uint64_t)l->offset;
		if (l->has & TE_SIZE)
			e->fault.size = l->size > UINT32_MAX ? UINT32_MAX : l->size;
		e->fault.path = path(&l->path);
		{
			struct trace_str a;

			if (extra_str(s, l, "access", &a))
				e->fault.write = name_is(&a, "write");
			if (extra(l, "exec"))
				e->fault.exec = trace_json_true(extra(l, "exec"));
		}
		extra_hex(s, l, "address", &e->fault.address);
		extra_u64(l, "ino", &e->fault.ino);
		parse_dev(&l->dev, &e->fault.dev);
		return true;
	case 'b':
		if (l->ph == 'C') {
			e->type = EV_BLOCK_RATE;
			if (extra(l, "read"))
				trace_json_double(extra(l, "read"), &e->rate.read_mbps);
			if (extra(l, "write"))
				trace_json_double(extra(l, "write"), &e->rate.write_mbps);
			return true;
		}
		if (l->ph != 'b' && l->ph != 'e')
			return false;
		e->type = EV_BLOCK;
		e->block.phase = l->ph;
		e->block.op = block_op(nm);
		e->block.seq = l->id2;
		if (l->ph == 'b') {
			extra_u64(l, "sector", &e->block.sector);
			e->block.bytes = l->bytes;
			parse_dev(&l->dev, &e->block.dev);
			if (extra_u64(l, "issuer_pid", &v))
				e->block.issuer_pid = v;
		} else {
			e->block.latency_ns = l->latency_ns;
			if (extra_i64(l, "error", &i))
				e->block.error = i;
		}
		return true;
	case 'u':
		if ((l->ph != 'b' && l->ph != 'e') || (op = uring_opcode(nm)) < 0)
			return false;
		e->type = EV_URING;
		e->uring.phase = l->ph;
		e->uring.opcode = op;
		e->uring.seq = l->id2;
		if (l->ph == 'b') {
			const struct trace_str *unknown = extra(l, "path_unknown");

			e->uring.fd = (l->has & TE_FD) ? l->fd : -1;
			if (extra_i64(l, "fixed_file", &i)) {
				e->uring.fd = i;
				e->uring.fixed = true;
			}
			e->uring.path = path(&l->path);
			e->uring.path_unknown = unknown && trace_json_true(unknown);
			e->uring.offset = (uint64_t)l->offset;
			if (extra_u64(l, "len", &v))
				e->uring.len = v;
			extra_hex(s, l, "user_data", &e->uring.user_data);
			if (l->dev.len) {
				e->uring.has_file = true;
				extra_u64(l, "ino", &e->uring.ino);
				parse_dev(&l->dev, &e->uring.dev);
			}
		} else {
			e->uring.res = ret_of(l);
		}
		return true;
	case 'a':
		if ((l->ph != 'b' && l->ph != 'e') || (op = aio_opcode(nm)) < 0)
			return false;
		e->type = EV_AIO;
		e->aio.phase = l->ph;
		e->aio.opcode = op;
		e->aio.seq = l->id2;
		if (l->ph == 'b') {
			const struct trace_str *unknown = extra(l, "submission_unknown");
			const struct trace_str *partial = extra(l, "size_partial");

			e->aio.fd = (l->has & TE_FD) ? l->fd : -1;
			e->aio.path = path(&l->path);
			e->aio.submission_unknown = unknown && trace_json_true(unknown);
			e->aio.size_partial = partial && trace_json_true(partial);
			e->aio.offset = (uint64_t)l->offset;
			if (extra_u64(l, "len", &v))
				e->aio.len = v;
			extra_hex(s, l, "data", &e->aio.data);
			extra_hex(s, l, "iocb", &e->aio.iocb);
			extra_hex(s, l, "ctx", &e->aio.ctx);
		} else {
			const struct trace_str *reaped = extra(l, "reaped");

			e->aio.reaped = !reaped || trace_json_true(reaped);
			if (e->aio.reaped) {
				e->aio.res = ret_of(l);
				if (extra_i64(l, "res2", &i))
					e->aio.res2 = i;
			}
		}
		return true;
	case 'v':
		if (name_is(nm, "vfs_open")) {
			e->type = EV_VFS_OPEN;
			e->vfs_open.ret = ret_of(l);
			e->vfs_open.path = path(&l->path);
			identity(l, &e->vfs_open.ino, &e->vfs_open.dev, &e->vfs_open.fs_magic);
			e->vfs_open.file_size = l->file_size;
			return true;
		}
		if ((op = vfs_op(nm)) < 0)
			return false;
		e->type = EV_VFS;
		e->vfs.op = op;
		if (op == DL_VFS_RW_CHECK) {
			if (extra_u64(l, "write", &v))
				e->vfs.write = v;
		} else {
			e->vfs.dur = l->dur_ns;
			e->vfs.ret = ret_of(l);
		}
		e->vfs.path = path(&l->path);
		e->vfs.offset = (uint64_t)l->offset;
		e->vfs.size = l->size;
		identity(l, &e->vfs.ino, &e->vfs.dev, &e->vfs.fs_magic);
		return true;
	default:
		return false;
	}
}

/* ---- spans: every arg, as the line holds it ---- */

struct span_ctx {
	struct chrome_events *s;
	size_t region; /* bytes of each scratch region */
	unsigned nargs, kept;
};

static int span_arg(void *ctx, const struct json_member *m)
{
	struct span_ctx *x = ctx;
	struct chrome_events *s = x->s;
	struct trace_str v = {m->value, m->value_len}, text;
	struct ev_arg *a;
	int64_t i;
	uint64_t u;
	bool neg;

	if (x->nargs == EV_ARGS_MAX || !v.len)
		return 0;
	a = &s->span_args[x->nargs];
	/* the key lives in the line, or in member scratch when it had escapes */
	if (m->key.s >= s->scratch && m->key.s < s->scratch + s->scratch_cap) {
		memmove(s->next, m->key.s, m->key.len);
		a->key = (struct ev_str){s->next, m->key.len};
		s->next += m->key.len;
	} else {
		a->key = str(&m->key);
	}
	if (v.s[0] == '"') {
		if (trace_json_string(&v, s->next, &text))
			return 0;
		if (text.s == s->next)
			s->next += text.len;
		a->type = EV_ARG_STR;
		a->s = str(&text);
	} else if (!trace_json_number(&v, &i, &u, &neg)) {
		if (!neg && u > INT64_MAX) {
			a->type = EV_ARG_U64;
			a->u = u;
		} else {
			a->type = EV_ARG_I64;
			a->i = i;
		}
	} else if (v.s[0] == 't' || v.s[0] == 'f') {
		a->type = EV_ARG_BOOL;
		a->b = v.s[0] == 't';
	} else if (!trace_json_double(&v, &a->d)) {
		a->type = EV_ARG_DOUBLE;
	} else {
		return 0; /* objects, arrays, null: not kept */
	}
	x->nargs++;
	return 0;
}

static int span_member(void *ctx, const struct json_member *m)
{
	struct span_ctx *x = ctx;

	if (m->key.len == 4 && !memcmp(m->key.s, "args", 4) && m->value_len && m->value[0] == '{')
		trace_object_members(m->value, m->value_len, x->s->scratch + 2 * x->region,
				     span_arg, x);
	return 0;
}

static bool span_event(struct chrome_events *s, const struct trace_event *l, struct event *e,
		       const struct trace_str *cat)
{
	struct span_ctx x = {s, TRACE_SCRATCH(l->raw.len), 0, 0};

	if (!strchr("XBEiC", l->ph) || !l->ph || !cat->len)
		return false;
	e->type = EV_SPAN;
	e->span.phase = l->ph;
	e->span.name = str(&l->event_name);
	e->span.cat = str(cat);
	e->span.dur = l->dur_ns;
	trace_object_members(l->raw.s, l->raw.len, s->scratch + x.region, span_member, &x);
	/*
	 * A "path" string arg is a file name, with its exact bytes in path_hex:
	 * the writer writes path_hex again from the name, so it is not an arg
	 * of its own.
	 */
	for (unsigned k = 0, kept = 0; k < x.nargs; k++) {
		struct ev_arg *a = &s->span_args[k];

		if (a->type == EV_ARG_STR && a->key.len == 8 && !memcmp(a->key.s, "path_hex", 8) &&
		    l->path.len)
			continue;
		if (a->type == EV_ARG_STR && a->key.len == 4 && !memcmp(a->key.s, "path", 4)) {
			s->span_paths[kept] = (struct ev_path){a->s, NULL};
			if (l->path.len)
				s->span_paths[kept].name = str(&l->path);
			a->type = EV_ARG_PATH;
			a->path = &s->span_paths[kept];
		}
		s->span_args[kept++] = *a;
		x.kept = kept;
	}
	x.nargs = x.kept;
	e->span.args = s->span_args;
	e->span.nargs = x.nargs;
	return true;
}

/* ---- one line ---- */

void chrome_events__line(void *ctx, const struct trace_event *l)
{
	struct chrome_events *s = ctx;
	struct event e = {.ts = l->ts_ns, .pid = l->pid, .tid = l->tid, .raw = str(&l->raw)};
	size_t need = 3 * (size_t)TRACE_SCRATCH(l->raw.len); /* see struct chrome_events */

	if (need > s->scratch_cap) {
		char *b = realloc(s->scratch, need);

		if (!b) {
			s->failed = true;
			return;
		}
		s->scratch = b;
		s->scratch_cap = need;
	}
	s->next = s->scratch;
	switch (l->type) {
	case TEV_HEADER:
		begin_event(s, l, &e);
		break;
	case TEV_SUMMARY:
		end_event(s, l, &e);
		break;
	case TEV_SYSCALL:
		if (l->sys >= 0 && l->sys < DL_SYS_COUNT)
			syscall_event(s, l, &e);
		else
			e.type = EV_OTHER;
		break;
	case TEV_FORK:
	case TEV_THREAD_CREATE:
		e.type = EV_FORK;
		e.fork.thread = l->type == TEV_THREAD_CREATE;
		e.fork.child = (l->has & TE_CHILD) && l->child > 0 && l->child <= UINT32_MAX
				   ? (uint32_t)l->child
				   : 0;
		e.fork.parent_pid = l->pid;
		e.fork.parent_tid = l->tid;
		e.fork.flow = l->bind_id;
		break;
	case TEV_PROCESS_START:
	case TEV_THREAD_START:
		e.type = EV_START;
		e.fork.thread = l->type == TEV_THREAD_START;
		e.fork.child = l->tid;
		e.fork.parent_pid = l->pid;
		if ((l->has & TE_PARENT) && l->parent > 0 && l->parent <= UINT32_MAX) {
			if (e.fork.thread)
				e.fork.parent_tid = l->parent;
			else
				e.fork.parent_pid = l->parent;
		}
		e.fork.flow = l->bind_id;
		break;
	case TEV_EXEC: {
		struct trace_str file = {"", 0};

		e.type = EV_EXEC;
		extra_str(s, l, "file", &file);
		e.exec.file = str(&file);
		e.exec.cmdline = str(&l->cmdline);
		break;
	}
	case TEV_PROCESS_EXIT:
	case TEV_THREAD_EXIT:
		e.type = EV_EXIT;
		e.exit.group_dead = l->type == TEV_PROCESS_EXIT;
		e.exit.signaled = (l->has & TE_SIGNAL) != 0;
		e.exit.code = e.exit.signaled ? l->signal : l->exit_code;
		break;
	case TEV_PROCESS_NAME:
	case TEV_THREAD_NAME:
		e.type = l->type == TEV_PROCESS_NAME ? EV_PROCESS_NAME : EV_THREAD_NAME;
		e.name.name = str(&l->name);
		break;
	case TEV_LAYER:
		if (!layer_event(s, l, &e))
			e.type = EV_OTHER;
		break;
	default:
		e.type = EV_OTHER;
		break;
	}
	if (e.type == EV_OTHER) {
		if (!span_event(s, l, &e, &l->category)) {
			e.type = EV_OTHER;
			e.other.name = str(&l->event_name);
			e.other.cat = str(&l->category);
			e.other.phase = l->ph;
		}
	}
	event_deliver(s->out, &e);
}

struct chrome_events *chrome_events__new(struct event_consumer *out)
{
	struct chrome_events *s = calloc(1, sizeof(*s));

	if (s)
		s->out = out;
	return s;
}

void chrome_events__free(struct chrome_events *s)
{
	if (!s)
		return;
	free(s->scratch);
	free(s);
}

bool chrome_events__failed(const struct chrome_events *s)
{
	return s->failed;
}

int chrome_read_events(const char *path, struct event_consumer *c, struct trace_read_status *st)
{
	struct chrome_events *s = chrome_events__new(c);
	int rc;

	if (!s) {
		memset(st, 0, sizeof(*st));
		snprintf(st->error, sizeof(st->error), "out of memory");
		return -1;
	}
	rc = trace_read_file(path, chrome_events__line, s, st);
	if (!rc && s->failed) {
		snprintf(st->error, sizeof(st->error), "out of memory");
		rc = -1;
	}
	chrome_events__free(s);
	return rc;
}

static void start_of(void *ctx, const struct trace_event *l)
{
	if (l->type == TEV_HEADER)
		*(int64_t *)ctx = l->start_wall_ns;
}

int chrome_read_start(const char *path, int64_t *start_wall_ns, char *err, size_t errlen)
{
	*start_wall_ns = 0;
	return trace_read_header(path, start_of, start_wall_ns, err, errlen);
}
