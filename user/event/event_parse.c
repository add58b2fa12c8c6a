// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "event/event_parse.h"

#include <fcntl.h>
#include <math.h>
#include <string.h>

#include "bpf/dltrace_events.h"
#include "event/syscall_table.h"
#include "lib/fs_names.h"

/* The keys event_args() writes. */
#define KEYS(X)                                                                                    \
	X(RET, "ret")                                                                              \
	X(ERRNO, "errno")                                                                          \
	X(FD, "fd")                                                                                \
	X(DIRFD, "dirfd")                                                                          \
	X(PATH, "path")                                                                            \
	X(NEW_PATH, "new_path")                                                                    \
	X(OUT_PATH, "out_path")                                                                    \
	X(OFFSET, "offset")                                                                        \
	X(LENGTH, "length")                                                                        \
	X(SIZE, "size")                                                                            \
	X(CACHE_MISS, "cache_miss_bytes")                                                          \
	X(SIZE_PARTIAL, "size_partial")                                                            \
	X(FLAGS, "flags")                                                                          \
	X(MODE, "mode")                                                                            \
	X(INO, "ino")                                                                              \
	X(DEV, "dev")                                                                              \
	X(FS, "fs")                                                                                \
	X(FILE_SIZE, "file_size")                                                                  \
	X(WHENCE, "whence")                                                                        \
	X(PROT, "prot")                                                                            \
	X(LAST, "last")                                                                            \
	X(NEWFD, "newfd")                                                                          \
	X(CMD, "cmd")                                                                              \
	X(MINFD, "minfd")                                                                          \
	X(OUT_FD, "out_fd")                                                                        \
	X(WRITE, "write")                                                                          \
	X(READ, "read")                                                                            \
	X(CHILD_PID, "child_pid")                                                                  \
	X(CHILD_TID, "child_tid")                                                                  \
	X(PARENT_PID, "parent_pid")                                                                \
	X(CREATOR_TID, "creator_tid")                                                              \
	X(FILE, "file")                                                                            \
	X(CMDLINE, "cmdline")                                                                      \
	X(EXIT_CODE, "exit_code")                                                                  \
	X(SIGNAL, "signal")                                                                        \
	X(NAME, "name")                                                                            \
	X(ACCESS, "access")                                                                        \
	X(ADDRESS, "address")                                                                      \
	X(SECTOR, "sector")                                                                        \
	X(BYTES, "bytes")                                                                          \
	X(ISSUER_PID, "issuer_pid")                                                                \
	X(LATENCY_US, "latency_us")                                                                \
	X(ERROR, "error")                                                                          \
	X(LEN, "len")                                                                              \
	X(USER_DATA, "user_data")                                                                  \
	X(FIXED_FILE, "fixed_file")                                                                \
	X(PATH_UNKNOWN, "path_unknown")                                                            \
	X(OUT_OFFSET, "out_offset")                                                                \
	X(NR_EVENTS, "nr_events")                                                                  \
	X(CTX, "ctx")                                                                              \
	X(NR, "nr")                                                                                \
	X(MIN_NR, "min_nr")                                                                        \
	X(IOCB, "iocb")                                                                            \
	X(ENTRIES, "entries")                                                                      \
	X(TO_SUBMIT, "to_submit")                                                                  \
	X(MIN_COMPLETE, "min_complete")                                                            \
	X(OPCODE, "opcode")                                                                        \
	X(NR_ARGS, "nr_args")                                                                      \
	X(DATA, "data")                                                                            \
	X(SUBMISSION_UNKNOWN, "submission_unknown")                                                \
	X(REAPED, "reaped")                                                                        \
	X(RES2, "res2")                                                                            \
	X(EXEC, "exec")                                                                            \
	X(FORMAT, "format")                                                                        \
	X(VERSION, "version")                                                                      \
	X(KERNEL, "kernel")                                                                        \
	X(HOSTNAME, "hostname")                                                                    \
	X(TARGET, "target")                                                                        \
	X(LAYERS, "layers")                                                                        \
	X(LAYERS_OFF, "layers_unavailable")                                                        \
	X(CLOCK, "clock")                                                                          \
	X(START_MONO, "start_mono_ns")                                                             \
	X(START_WALL_NS, "start_wall_ns")                                                          \
	X(START_WALL, "start_wall")                                                                \
	X(TRACER_PID, "tracer_pid")                                                                \
	X(EVENTS, "events")                                                                        \
	X(LOST_EVENTS, "lost_events")                                                              \
	X(LOST_BYTES, "lost_bytes")                                                                \
	X(LOST_BY_KIND, "lost_by_kind")                                                            \
	X(DURATION, "duration_ns")                                                                 \
	X(END_WALL, "end_wall_ns")                                                                 \
	X(STOP_REASON, "stop_reason")                                                              \
	X(CAPPED, "capped_events")                                                                 \
	X(TRUNCATED, "truncated")

#define ENUM(id, text) K_##id,
enum key { KEYS(ENUM) K_COUNT };
#define TEXT(id, text) text,
static const char *const key_text[K_COUNT] = {KEYS(TEXT)};

/* Keys by a hash of their bytes, made once. */
#define KEY_SLOTS 256
static signed char key_slot[KEY_SLOTS];
static bool keys_ready;

static uint32_t key_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h % KEY_SLOTS;
}

static void keys_init(void)
{
	memset(key_slot, -1, sizeof(key_slot));
	for (int k = 0; k < K_COUNT; k++) {
		uint32_t h = key_hash(key_text[k], strlen(key_text[k]));

		while (key_slot[h] >= 0)
			h = (h + 1) % KEY_SLOTS;
		key_slot[h] = k;
	}
	keys_ready = true;
}

static int key_of(const struct ev_str *k)
{
	for (uint32_t h = key_hash(k->s, k->len); key_slot[h] >= 0; h = (h + 1) % KEY_SLOTS) {
		const char *t = key_text[key_slot[h]];

		if (strlen(t) == k->len && !memcmp(t, k->s, k->len))
			return key_slot[h];
	}
	return -1;
}

/* The args of one event by key (NULL: absent). */
struct found {
	const struct ev_arg *k[K_COUNT];
};

static bool eq(const struct ev_str *s, const char *lit)
{
	return s->len == strlen(lit) && !memcmp(s->s, lit, s->len);
}

static uint64_t u64_of(const struct ev_arg *a)
{
	if (!a)
		return 0;
	switch (a->type) {
	case EV_ARG_I64:
		return (uint64_t)a->i;
	case EV_ARG_BOOL:
		return a->b;
	case EV_ARG_DOUBLE:
		return a->d > 0 ? (uint64_t)a->d : 0;
	case EV_ARG_U64:
	case EV_ARG_US:
	case EV_ARG_HEX:
		return a->u;
	default:
		return 0;
	}
}

static int64_t i64_of(const struct ev_arg *a)
{
	if (a && a->type == EV_ARG_DOUBLE)
		return (int64_t)a->d;
	return (int64_t)u64_of(a);
}

static double double_of(const struct ev_arg *a)
{
	if (!a)
		return 0;
	switch (a->type) {
	case EV_ARG_DOUBLE:
		return a->d;
	case EV_ARG_I64:
		return a->i;
	case EV_ARG_US:
		return a->u / 1e3;
	default:
		return u64_of(a);
	}
}

static struct ev_str str_of(const struct ev_arg *a)
{
	if (a && (a->type == EV_ARG_STR || a->type == EV_ARG_SYMBOL))
		return a->s;
	if (a && a->type == EV_ARG_PATH)
		return a->path->name;
	return (struct ev_str){"", 0};
}

static struct ev_path path_of(const struct ev_arg *a)
{
	if (a && a->type == EV_ARG_PATH)
		return *a->path;
	return (struct ev_path){str_of(a), NULL};
}

/* ns of a "*_us" value: microseconds as a double, or the event stream's ns */
static uint64_t ns_of_us(const struct ev_arg *a)
{
	if (!a)
		return 0;
	if (a->type == EV_ARG_US)
		return a->u;
	if (a->type == EV_ARG_DOUBLE)
		return a->d > 0 ? (uint64_t)llround(a->d * 1e3) : 0;
	return u64_of(a) * 1000;
}

/* A number, or its text: "0x1f" hex, "0644" octal (base 8), "12" decimal. */
static bool number_of(const struct ev_arg *a, unsigned base, uint64_t *out)
{
	struct ev_str s;
	uint64_t v = 0;
	uint32_t i = 0;

	if (!a)
		return false;
	if (a->type != EV_ARG_STR && a->type != EV_ARG_SYMBOL) {
		*out = u64_of(a);
		return true;
	}
	s = a->s;
	if (s.len > 2 && s.s[0] == '0' && s.s[1] == 'x') {
		base = 16;
		i = 2;
	}
	if (i == s.len)
		return false;
	for (; i < s.len; i++) {
		char c = s.s[i];
		unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
			     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
			     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
						    : 99;

		if (d >= base)
			return false;
		v = v * base + d;
	}
	*out = v;
	return true;
}

/* "254:0" -> major << 20 | minor */
static uint32_t dev_of(const struct ev_arg *a)
{
	struct ev_str s = str_of(a);
	uint32_t major = 0, minor = 0, i = 0;

	for (; i < s.len && s.s[i] >= '0' && s.s[i] <= '9'; i++)
		major = major * 10 + (s.s[i] - '0');
	if (i == 0 || i >= s.len || s.s[i] != ':')
		return 0;
	for (i++; i < s.len && s.s[i] >= '0' && s.s[i] <= '9'; i++)
		minor = minor * 10 + (s.s[i] - '0');
	return major << 20 | (minor & 0xfffff);
}

/* ret, or -errno when "errno" names one */
static int64_t ret_of(const struct found *f)
{
	int64_t ret = i64_of(f->k[K_RET]);

	if (f->k[K_ERRNO]) {
		struct ev_str e = str_of(f->k[K_ERRNO]);

		return -(int64_t)errno_number(e.s, e.len);
	}
	if (ret < 0 && ret >= -4095) /* a failure whose errno the trace does not name */
		return -ERRNO_UNKNOWN;
	return ret;
}

static void identity(const struct found *f, uint64_t *ino, uint32_t *dev, uint32_t *fs)
{
	const struct ev_arg *a = f->k[K_FS];

	*ino = u64_of(f->k[K_INO]);
	*dev = dev_of(f->k[K_DEV]);
	if (a && (a->type == EV_ARG_STR || a->type == EV_ARG_SYMBOL))
		fs_magic(a->s.s, a->s.len, fs);
	else if (a)
		*fs = u64_of(a);
}

/* ---- syscalls ---- */

static void syscall_kind_args(const struct found *f, struct ev_syscall *sc)
{
	struct ev_str flags = str_of(f->k[K_FLAGS]), text;
	uint64_t v;

	switch (sc->sys) {
	case DL_SYS_OPEN:
	case DL_SYS_OPENAT:
	case DL_SYS_OPENAT2:
	case DL_SYS_CREAT:
		parse_open_flags(flags.s, flags.len, &sc->arg_lo);
		if (number_of(f->k[K_MODE], 8, &v))
			sc->arg_hi = v;
		if (f->k[K_DEV]) {
			sc->flags |= EVS_IDENTITY;
			identity(f, &sc->ino, &sc->dev, &sc->fs_magic);
			sc->file_size = u64_of(f->k[K_FILE_SIZE]);
		}
		break;
	case DL_SYS_LSEEK:
		text = str_of(f->k[K_WHENCE]);
		parse_whence(text.s, text.len, &sc->arg_lo);
		break;
	case DL_SYS_MMAP:
		text = str_of(f->k[K_PROT]);
		if (text.len)
			parse_mmap_prot(text.s, text.len, &sc->arg_lo);
		parse_mmap_flags(flags.s, flags.len, &sc->arg_hi);
		break;
	case DL_SYS_CLOSE_RANGE:
		sc->arg_lo = u64_of(f->k[K_LAST]);
		sc->arg_hi = u64_of(f->k[K_FLAGS]);
		break;
	case DL_SYS_DUP2:
	case DL_SYS_DUP3:
		sc->arg_lo = u64_of(f->k[K_NEWFD]);
		if (sc->sys == DL_SYS_DUP3 && eq(&flags, "O_CLOEXEC"))
			sc->arg_hi = O_CLOEXEC;
		break;
	case DL_SYS_FCNTL:
		if (f->k[K_CMD]) {
			text = str_of(f->k[K_CMD]);
			sc->arg_lo = eq(&text, "F_DUPFD") ? F_DUPFD : F_DUPFD_CLOEXEC;
		}
		sc->arg_hi = u64_of(f->k[K_MINFD]);
		break;
	case DL_SYS_SENDFILE:
	case DL_SYS_COPY_FILE_RANGE:
		sc->arg_lo = u64_of(f->k[K_OUT_FD]);
		break;
	case DL_SYS_SPLICE:
	case DL_SYS_TEE:
		sc->arg_lo = u64_of(f->k[K_OUT_FD]);
		if (flags.len)
			parse_flag_set(FLAGS_SPLICE, flags.s, flags.len, &sc->arg_hi);
		if (f->k[K_OUT_OFFSET]) {
			sc->offset = u64_of(f->k[K_OUT_OFFSET]);
			sc->flags |= EVS_OFFSET | EVS_OUT_OFFSET;
		}
		break;
	case DL_SYS_VMSPLICE:
		if (flags.len)
			parse_flag_set(FLAGS_SPLICE, flags.s, flags.len, &sc->arg_lo);
		break;
	case DL_SYS_IO_SETUP:
	case DL_SYS_IO_SUBMIT:
	case DL_SYS_IO_GETEVENTS:
	case DL_SYS_IO_PGETEVENTS:
	case DL_SYS_IO_CANCEL:
	case DL_SYS_IO_DESTROY:
		if (number_of(f->k[K_CTX], 16, &v)) {
			sc->arg_lo = v & 0xffffffff;
			sc->arg_hi = v >> 32;
		}
		if (f->k[K_NR_EVENTS])
			sc->size = u64_of(f->k[K_NR_EVENTS]);
		if (f->k[K_NR])
			sc->size = (uint64_t)i64_of(f->k[K_NR]);
		if (f->k[K_MIN_NR])
			sc->offset = (uint64_t)i64_of(f->k[K_MIN_NR]);
		if (f->k[K_IOCB])
			number_of(f->k[K_IOCB], 16, &sc->offset);
		break;
	case DL_SYS_IO_URING_SETUP:
		sc->size = u64_of(f->k[K_ENTRIES]);
		parse_flag_set(FLAGS_URING_SETUP, flags.s, flags.len, &sc->arg_lo);
		break;
	case DL_SYS_IO_URING_ENTER:
		sc->size = u64_of(f->k[K_TO_SUBMIT]);
		sc->offset = u64_of(f->k[K_MIN_COMPLETE]);
		parse_flag_set(FLAGS_URING_ENTER, flags.s, flags.len, &sc->arg_lo);
		break;
	case DL_SYS_IO_URING_REGISTER:
		text = str_of(f->k[K_OPCODE]);
		parse_sym(SYM_URING_REGISTER, text.s, text.len, &sc->arg_lo);
		sc->size = u64_of(f->k[K_NR_ARGS]);
		break;
	case DL_SYS_FALLOCATE:
	case DL_SYS_SYNC_FILE_RANGE:
		v = u64_of(f->k[sc->sys == DL_SYS_FALLOCATE ? K_MODE : K_FLAGS]);
		sc->arg_lo = v & 0xffffffff;
		sc->arg_hi = v >> 32;
		break;
	case DL_SYS_MKDIR:
	case DL_SYS_MKDIRAT:
		if (number_of(f->k[K_MODE], 8, &v))
			sc->arg_hi = v;
		break;
	case DL_SYS_NEWFSTATAT:
	case DL_SYS_STATX:
	case DL_SYS_UNLINKAT:
	case DL_SYS_RENAMEAT2:
		if (number_of(f->k[K_FLAGS], 16, &v))
			sc->at_flags = v;
		break;
	default:
		break;
	}
}

static void syscall_event(const struct found *f, struct event *e, int kind, uint64_t dur)
{
	struct ev_syscall *sc = &e->sys;
	const struct syscall_info *si = syscall_info(kind);
	const struct ev_arg *partial = f->k[K_SIZE_PARTIAL];

	e->type = EV_SYSCALL;
	sc->sys = kind;
	sc->dur = dur;
	sc->ret = ret_of(f);
	if (f->k[K_DIRFD])
		sc->fd = i64_of(f->k[K_DIRFD]);
	else if (dl_kind_has_path(kind))
		sc->fd = -100; /* AT_FDCWD: not shown */
	else if (f->k[K_FD] && !(si->opens && sc->ret >= 0))
		sc->fd = i64_of(f->k[K_FD]);
	else
		sc->fd = -1;
	sc->path = path_of(f->k[K_PATH]);
	sc->path2 = path_of(f->k[f->k[K_OUT_PATH] ? K_OUT_PATH : K_NEW_PATH]);
	if (f->k[K_OFFSET] || f->k[K_LENGTH]) {
		sc->offset = u64_of(f->k[f->k[K_OFFSET] ? K_OFFSET : K_LENGTH]);
		if (kind != DL_SYS_LSEEK)
			sc->flags |= EVS_OFFSET;
	}
	sc->size = u64_of(f->k[K_SIZE]);
	if (f->k[K_CACHE_MISS]) {
		sc->flags |= EVS_CACHE;
		sc->cache_miss_bytes = u64_of(f->k[K_CACHE_MISS]);
	}
	if (u64_of(partial))
		sc->flags |= EVS_IOV_TRUNC;
	syscall_kind_args(f, sc);
}

/* ---- the trace's first and last events ---- */

static void begin_event(const struct found *f, struct event *e)
{
	struct ev_trace_begin *b = &e->begin;

	e->type = EV_TRACE_BEGIN;
	b->format = str_of(f->k[K_FORMAT]);
	b->version = str_of(f->k[K_VERSION]);
	b->kernel = str_of(f->k[K_KERNEL]);
	b->hostname = str_of(f->k[K_HOSTNAME]);
	b->target = str_of(f->k[K_TARGET]);
	b->layers = str_of(f->k[K_LAYERS]);
	b->layers_off = str_of(f->k[K_LAYERS_OFF]);
	b->clock = str_of(f->k[K_CLOCK]);
	b->start_wall = str_of(f->k[K_START_WALL]);
	b->start_mono_ns = u64_of(f->k[K_START_MONO]);
	b->start_wall_ns = i64_of(f->k[K_START_WALL_NS]);
	b->tracer_pid = u64_of(f->k[K_TRACER_PID]);
}

static void end_event(const struct found *f, struct event *e)
{
	struct ev_trace_end *end = &e->end;
	const struct ev_arg *kinds = f->k[K_LOST_BY_KIND];

	e->type = EV_TRACE_END;
	end->events = u64_of(f->k[K_EVENTS]);
	end->lost_events = u64_of(f->k[K_LOST_EVENTS]);
	end->lost_bytes = u64_of(f->k[K_LOST_BYTES]);
	end->duration_ns = u64_of(f->k[K_DURATION]);
	end->end_wall_ns = i64_of(f->k[K_END_WALL]);
	end->stop_reason = str_of(f->k[K_STOP_REASON]);
	end->capped_events = u64_of(f->k[K_CAPPED]);
	end->truncated = u64_of(f->k[K_TRUNCATED]) != 0;
	if (kinds && kinds->type == EV_ARG_LOST_KINDS)
		end->lost = kinds->lost;
}

/* ---- the layers ---- */

static unsigned block_op(const struct ev_str *name)
{
	for (unsigned op = 0; op < 4; op++)
		if (eq(name, block_op_name(op)))
			return op;
	return 4;
}

static int uring_opcode(const struct ev_str *name)
{
	char buf[16];
	uint64_t v = 0;

	for (unsigned op = 0; op < 256; op++) {
		const char *n = uring_op_name(op, buf, sizeof(buf));

		if (!strncmp(n, "OP_", 3))
			break;
		if (eq(name, n))
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
static int aio_opcode(const struct ev_str *name)
{
	char buf[16];
	uint64_t v = 0;

	if (eq(name, "UNKNOWN"))
		return AIO_OP_UNKNOWN;
	for (unsigned op = 0; op < 9; op++) {
		const char *n = aio_op_name(op, buf, sizeof(buf));

		if (strncmp(n, "OP_", 3) && eq(name, n))
			return op;
	}
	if (name->len > 3 && !memcmp(name->s, "OP_", 3)) {
		for (size_t i = 3; i < name->len && name->s[i] >= '0' && name->s[i] <= '9'; i++)
			v = v * 10 + (name->s[i] - '0');
		return v < AIO_OP_UNKNOWN ? (int)v : -1;
	}
	return -1;
}

static int vfs_op(const struct ev_str *name)
{
	for (unsigned op = 0; op < DL_VFS_OP_COUNT; op++)
		if (eq(name, vfs_op_name(op)))
			return op;
	return -1;
}

static bool layer_event(const struct found *f, struct event *e, const struct ev_head *h,
			uint64_t dur, uint64_t id)
{
	const struct ev_str *nm = &h->name, *cat = &h->cat;
	uint64_t v;
	int op;

	if (eq(cat, "mmap")) {
		if (h->ph != 'i' || !eq(nm, "page_fault"))
			return false;
		e->type = EV_FAULT;
		e->fault.offset = u64_of(f->k[K_OFFSET]);
		e->fault.path = path_of(f->k[K_PATH]);
		e->fault.write = f->k[K_ACCESS] && eq(&f->k[K_ACCESS]->s, "write");
		e->fault.exec = u64_of(f->k[K_EXEC]) != 0;
		number_of(f->k[K_ADDRESS], 16, &e->fault.address);
		e->fault.ino = u64_of(f->k[K_INO]);
		e->fault.dev = dev_of(f->k[K_DEV]);
		return true;
	}
	if (eq(cat, "block")) {
		if (h->ph == 'C') {
			e->type = EV_BLOCK_RATE;
			e->rate.read_mbps = double_of(f->k[K_READ]);
			e->rate.write_mbps = double_of(f->k[K_WRITE]);
			return true;
		}
		if (h->ph != 'b' && h->ph != 'e')
			return false;
		e->type = EV_BLOCK;
		e->block.phase = h->ph;
		e->block.op = block_op(nm);
		e->block.seq = id;
		if (h->ph == 'b') {
			e->block.sector = u64_of(f->k[K_SECTOR]);
			e->block.bytes = u64_of(f->k[K_BYTES]);
			e->block.dev = dev_of(f->k[K_DEV]);
			e->block.issuer_pid = u64_of(f->k[K_ISSUER_PID]);
		} else {
			e->block.latency_ns = ns_of_us(f->k[K_LATENCY_US]);
			e->block.error = i64_of(f->k[K_ERROR]);
		}
		return true;
	}
	if (eq(cat, "uring")) {
		if ((h->ph != 'b' && h->ph != 'e') || (op = uring_opcode(nm)) < 0)
			return false;
		e->type = EV_URING;
		e->uring.phase = h->ph;
		e->uring.opcode = op;
		e->uring.seq = id;
		if (h->ph == 'b') {
			e->uring.fd = f->k[K_FD] ? i64_of(f->k[K_FD]) : -1;
			if (f->k[K_FIXED_FILE]) {
				e->uring.fd = i64_of(f->k[K_FIXED_FILE]);
				e->uring.fixed = true;
			}
			e->uring.path = path_of(f->k[K_PATH]);
			e->uring.path_unknown = u64_of(f->k[K_PATH_UNKNOWN]) != 0;
			e->uring.offset = u64_of(f->k[K_OFFSET]);
			e->uring.len = u64_of(f->k[K_LEN]);
			number_of(f->k[K_USER_DATA], 16, &e->uring.user_data);
			if (f->k[K_DEV]) {
				uint32_t fs;

				e->uring.has_file = true;
				identity(f, &e->uring.ino, &e->uring.dev, &fs);
			}
		} else {
			e->uring.res = ret_of(f);
		}
		return true;
	}
	if (eq(cat, "aio")) {
		if ((h->ph != 'b' && h->ph != 'e') || (op = aio_opcode(nm)) < 0)
			return false;
		e->type = EV_AIO;
		e->aio.phase = h->ph;
		e->aio.opcode = op;
		e->aio.seq = id;
		if (h->ph == 'b') {
			e->aio.fd = f->k[K_FD] ? i64_of(f->k[K_FD]) : -1;
			e->aio.path = path_of(f->k[K_PATH]);
			e->aio.submission_unknown = u64_of(f->k[K_SUBMISSION_UNKNOWN]) != 0;
			e->aio.size_partial = u64_of(f->k[K_SIZE_PARTIAL]) != 0;
			e->aio.offset = u64_of(f->k[K_OFFSET]);
			e->aio.len = u64_of(f->k[K_LEN]);
			number_of(f->k[K_DATA], 16, &e->aio.data);
			number_of(f->k[K_IOCB], 16, &e->aio.iocb);
			number_of(f->k[K_CTX], 16, &e->aio.ctx);
		} else {
			e->aio.reaped = !f->k[K_REAPED] || u64_of(f->k[K_REAPED]);
			if (e->aio.reaped) {
				e->aio.res = ret_of(f);
				e->aio.res2 = i64_of(f->k[K_RES2]);
			}
		}
		return true;
	}
	if (!eq(cat, "vfs"))
		return false;
	if (eq(nm, "vfs_open")) {
		e->type = EV_VFS_OPEN;
		e->vfs_open.ret = ret_of(f);
		e->vfs_open.path = path_of(f->k[K_PATH]);
		identity(f, &e->vfs_open.ino, &e->vfs_open.dev, &e->vfs_open.fs_magic);
		e->vfs_open.file_size = u64_of(f->k[K_FILE_SIZE]);
		return true;
	}
	if ((op = vfs_op(nm)) < 0)
		return false;
	e->type = EV_VFS;
	e->vfs.op = op;
	if (op == DL_VFS_RW_CHECK) {
		v = u64_of(f->k[K_WRITE]);
		e->vfs.write = v != 0;
	} else {
		e->vfs.dur = dur;
		e->vfs.ret = ret_of(f);
	}
	e->vfs.path = path_of(f->k[K_PATH]);
	e->vfs.offset = u64_of(f->k[K_OFFSET]);
	e->vfs.size = u64_of(f->k[K_SIZE]);
	identity(f, &e->vfs.ino, &e->vfs.dev, &e->vfs.fs_magic);
	return true;
}

static bool process_event(const struct found *f, struct event *e, const struct ev_head *h,
			  uint64_t id)
{
	const struct ev_str *nm = &h->name;
	bool thread;

	if (h->ph == 'X' && ((thread = eq(nm, "thread_create")) || eq(nm, "fork"))) {
		e->type = EV_FORK;
		e->fork.thread = thread;
		e->fork.child = u64_of(f->k[thread ? K_CHILD_TID : K_CHILD_PID]);
		e->fork.parent_pid = e->pid;
		e->fork.parent_tid = e->tid;
		e->fork.flow = id;
		return true;
	}
	if (h->ph == 'X' && ((thread = eq(nm, "thread_start")) || eq(nm, "process_start"))) {
		const struct ev_arg *parent = f->k[thread ? K_CREATOR_TID : K_PARENT_PID];

		e->type = EV_START;
		e->fork.thread = thread;
		e->fork.child = e->tid;
		e->fork.parent_pid = e->pid;
		if (parent && thread)
			e->fork.parent_tid = u64_of(parent);
		else if (parent)
			e->fork.parent_pid = u64_of(parent);
		e->fork.flow = id;
		return true;
	}
	if (h->ph != 'i')
		return false;
	if (eq(nm, "exec")) {
		e->type = EV_EXEC;
		e->exec.file = str_of(f->k[K_FILE]);
		e->exec.cmdline = str_of(f->k[K_CMDLINE]);
		return true;
	}
	if (eq(nm, "process_exit") || eq(nm, "thread_exit")) {
		e->type = EV_EXIT;
		e->exit.group_dead = eq(nm, "process_exit");
		e->exit.signaled = f->k[K_SIGNAL] != NULL;
		e->exit.code = u64_of(f->k[e->exit.signaled ? K_SIGNAL : K_EXIT_CODE]);
		return true;
	}
	return false;
}

/* ---- spans: every arg as it is, a "path" as a file name ---- */

static void span_event(struct event_parse *p, struct event *e, const struct ev_head *h,
		       uint64_t dur, const struct ev_arg *args, unsigned n)
{
	e->type = EV_SPAN;
	e->span.phase = h->ph;
	e->span.name = h->name;
	e->span.cat = h->cat;
	e->span.dur = dur;
	for (unsigned i = 0; i < n; i++) {
		struct ev_arg *a = &p->args[i];

		*a = args[i];
		if (a->type == EV_ARG_STR && eq(&a->key, "path")) {
			p->paths[i] = (struct ev_path){a->s, NULL};
			a->type = EV_ARG_PATH;
			a->path = &p->paths[i];
		}
	}
	e->span.args = p->args;
	e->span.nargs = n;
}

void event_parse(struct event_parse *p, struct event *e, const struct ev_head *h, uint64_t dur,
		 uint64_t id, const struct ev_arg *args, unsigned n)
{
	const struct ev_str *cat = &h->cat;
	struct found f;
	int kind;

	if (!keys_ready)
		keys_init();
	if (n > EV_ARGS_MAX)
		n = EV_ARGS_MAX;
	memset(&f, 0, sizeof(f));
	for (unsigned i = 0; i < n; i++) {
		int k = key_of(&args[i].key);

		if (k >= 0 && !f.k[k])
			f.k[k] = &args[i];
	}
	if (h->ph == 'M') {
		if (eq(&h->name, "dltrace")) {
			begin_event(&f, e);
			return;
		}
		if (eq(&h->name, "dltrace_summary")) {
			end_event(&f, e);
			return;
		}
		if (eq(&h->name, "process_name") || eq(&h->name, "thread_name")) {
			e->type = eq(&h->name, "process_name") ? EV_PROCESS_NAME : EV_THREAD_NAME;
			e->name.name = str_of(f.k[K_NAME]);
			return;
		}
	} else if (eq(cat, "data") || eq(cat, "metadata") || eq(cat, "sync")) {
		kind = syscall_kind(h->name.s, h->name.len);
		if (h->ph == 'X' && kind >= 0 && kind < DL_SYS_COUNT) {
			syscall_event(&f, e, kind, dur);
			return;
		}
	} else if (eq(cat, "process")) {
		if (process_event(&f, e, h, id))
			return;
	} else if (layer_event(&f, e, h, dur, id)) {
		return;
	}
	if (h->ph && strchr("XBEiC", h->ph) && cat->len) {
		span_event(p, e, h, dur, args, n);
		return;
	}
	e->type = EV_OTHER;
	e->other.name = h->name;
	e->other.cat = h->cat;
	e->other.phase = h->ph;
}
