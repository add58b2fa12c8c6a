// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "event/event_parse.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/dltrace_events.h"
#include "event/syscall_table.h"
#include "lib/fs_names.h"

/*
 * The keys event_args() writes that this file reads by name (a new one:
 * here, and read it below).  The keys of each syscall's own arguments come
 * from its row (bpf/syscalls.def, the show column): keys_init() adds them.
 */
#define KEYS(X)                                                                                    \
	X(RET, "ret")                                                                              \
	X(ERRNO, "errno")                                                                          \
	X(FD, "fd")                                                                                \
	X(DIRFD, "dirfd")                                                                          \
	X(PATH, "path")                                                                            \
	X(NEW_PATH, "new_path")                                                                    \
	X(OUT_PATH, "out_path")                                                                    \
	X(PATH_UNKNOWN, "path_unknown")                                                            \
	X(OUT_PATH_UNKNOWN, "out_path_unknown")                                                    \
	X(SOCKET_FAMILY, "socket_family")                                                          \
	X(OFFSET, "offset")                                                                        \
	X(LENGTH, "length")                                                                        \
	X(SIZE, "size")                                                                            \
	X(CACHE_MISS, "cache_miss_bytes")                                                          \
	X(SIZE_PARTIAL, "size_partial")                                                            \
	X(INO, "ino")                                                                              \
	X(DEV, "dev")                                                                              \
	X(FS, "fs")                                                                                \
	X(FILE_SIZE, "file_size")                                                                  \
	X(WHENCE, "whence")                                                                        \
	X(CMD, "cmd")                                                                              \
	X(MINFD, "minfd")                                                                          \
	X(ARG, "arg")                                                                              \
	X(LOCK, "lock")                                                                            \
	X(START, "start")                                                                          \
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
	X(RANK, "rank")                                                                            \
	X(RANK_FROM, "rank_from")                                                                  \
	X(LOCAL_RANK, "local_rank")                                                                \
	X(WORLD_SIZE, "world_size")                                                                \
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
	X(OUT_OFFSET, "out_offset")                                                                \
	X(CTX, "ctx")                                                                              \
	X(IOCB, "iocb")                                                                            \
	X(DATA, "data")                                                                            \
	X(SUBMISSION_UNKNOWN, "submission_unknown")                                                \
	X(REAPED, "reaped")                                                                        \
	X(RES2, "res2")                                                                            \
	X(EXEC, "exec")                                                                            \
	X(COW, "cow")                                                                              \
	X(FORMAT, "format")                                                                        \
	X(VERSION, "version")                                                                      \
	X(KERNEL, "kernel")                                                                        \
	X(HOSTNAME, "hostname")                                                                    \
	X(TARGET, "target")                                                                        \
	X(LAYERS, "layers")                                                                        \
	X(LAYERS_OFF, "layers_unavailable")                                                        \
	X(LAYERS_ATTACH, "layers_attach")                                                          \
	X(CLOCK, "clock")                                                                          \
	X(START_MONO, "start_mono_ns")                                                             \
	X(START_WALL_NS, "start_wall_ns")                                                          \
	X(START_WALL, "start_wall")                                                                \
	X(TRACER_PID, "tracer_pid")                                                                \
	X(PROFILER_TRACES, "profiler_traces")                                                      \
	X(EVENTS, "events")                                                                        \
	X(LOST_EVENTS, "lost_events")                                                              \
	X(LOST_BYTES, "lost_bytes")                                                                \
	X(LOST_BY_KIND, "lost_by_kind")                                                            \
	X(DURATION, "duration_ns")                                                                 \
	X(END_WALL, "end_wall_ns")                                                                 \
	X(STOP_REASON, "stop_reason")                                                              \
	X(CAPPED, "capped_events")                                                                 \
	X(PATHS_UNKNOWN, "paths_unknown")                                                          \
	X(TRUNCATED, "truncated")                                                                  \
	X(WRITE_ERROR, "write_error")                                                              \
	X(PY, "py")                                                                                \
	X(PY_STACK, "py_stack")

#define ENUM(id, text) K_##id,
enum key { KEYS(ENUM) K_COUNT };
#define TEXT(id, text) {text, sizeof(text) - 1},

/* The keys: those above, then those of the syscalls' own arguments (keys_init()). */
#define KEY_MAX 254 /* a key's slot is a byte */
static struct ev_str key_text[KEY_MAX] = {KEYS(TEXT)};
static unsigned nkeys = K_COUNT;

_Static_assert(K_COUNT < KEY_MAX, "a key's slot is a byte");
_Static_assert(EV_ARGS_MAX < 255, "an arg's index + 1 is a byte");

/*
 * Keys by a hash of their length and three of their bytes (every arg of
 * every event is looked up: a cheap hash, the table sparse enough that a
 * key is nearly always found at its first slot), made once.
 */
#define KEY_SLOTS 512
static uint8_t key_slot[KEY_SLOTS]; /* key + 1; 0: empty */
static bool keys_ready;
/* the key of each argument a syscall shows of its own (syscall_info()->show) */
static uint8_t show_key[DL_SYS_COUNT][SYSCALL_SHOW_MAX];

static inline uint32_t key_hash(const char *s, uint32_t len)
{
	if (!len)
		return 0;
	return ((unsigned char)s[0] * 7 + (unsigned char)s[len - 1] * 31 +
		(unsigned char)s[len / 2] * 3 + len * 113) %
	       KEY_SLOTS;
}

static inline int key_of(const struct ev_str *k)
{
	for (uint32_t h = key_hash(k->s, k->len); key_slot[h]; h = (h + 1) % KEY_SLOTS) {
		const struct ev_str *t = &key_text[key_slot[h] - 1];

		if (t->len == k->len && !memcmp(t->s, k->s, k->len))
			return key_slot[h] - 1;
	}
	return -1;
}

static void key_slot_set(unsigned k)
{
	uint32_t h = key_hash(key_text[k].s, key_text[k].len);

	while (key_slot[h])
		h = (h + 1) % KEY_SLOTS;
	key_slot[h] = k + 1;
}

static void keys_init(void)
{
	for (unsigned k = 0; k < K_COUNT; k++)
		key_slot_set(k);
	for (unsigned sys = 0; sys < DL_SYS_COUNT; sys++) {
		const struct syscall_info *si = syscall_info(sys);

		for (unsigned i = 0; i < si->nshow; i++) {
			struct ev_str key = {si->show[i].key, si->show[i].key_len};
			int k = key_of(&key);

			if (k < 0) {
				if (nkeys ==
				    KEY_MAX) { /* a table too large for a byte: a build's mistake */
					fprintf(stderr, "event_parse: more than %d keys\n",
						KEY_MAX);
					abort();
				}
				k = nkeys++;
				key_text[k] = key;
				key_slot_set(k);
			}
			show_key[sys][i] = k;
		}
	}
	keys_ready = true;
}

/* The args of one event by key: at[k] is the index + 1 of the first arg named k (0: absent). */
struct found {
	const struct ev_arg *args;
	uint8_t at[KEY_MAX];
};

static inline const struct ev_arg *arg(const struct found *f, unsigned k)
{
	return f->at[k] ? &f->args[f->at[k] - 1] : NULL;
}

static bool eq(const struct ev_str *s, const char *lit)
{
	return s->len == strlen(lit) && !memcmp(s->s, lit, s->len);
}

/* A symbol arg that is lit */
static bool eq_arg(const struct ev_arg *a, const char *lit)
{
	return a && (a->type == EV_ARG_STR || a->type == EV_ARG_SYMBOL) && eq(&a->s, lit);
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
		return a->d > 0 && a->d < 1.8e19 ? (uint64_t)a->d : 0;
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
		return a->d > -9.2e18 && a->d < 9.2e18 ? (int64_t)a->d : 0;
	return (int64_t)u64_of(a);
}

/* A pid or tid: 0 when it is not one. */
static uint32_t id_of(const struct ev_arg *a)
{
	int64_t v = i64_of(a);

	return v > 0 && v <= UINT32_MAX ? (uint32_t)v : 0;
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

/* A number arg (a JSON number; "unknown" and absent are not). */
static bool is_number(const struct ev_arg *a)
{
	return a && (a->type == EV_ARG_U64 || a->type == EV_ARG_I64);
}

/* A process name's rank args (rank, rank_from, local_rank, world_size). */
static void name_ranks(const struct found *f, struct ev_name *n)
{
	const struct ev_arg *r = arg(f, K_RANK);

	if (r)
		n->ranks |= EV_RANKS_READ;
	if (is_number(r)) {
		n->ranks |= EV_RANK;
		n->rank = (uint32_t)u64_of(r);
		n->rank_from = str_of(arg(f, K_RANK_FROM));
	}
	if (is_number(arg(f, K_LOCAL_RANK))) {
		n->ranks |= EV_LOCAL_RANK;
		n->local_rank = (uint32_t)u64_of(arg(f, K_LOCAL_RANK));
	}
	if (is_number(arg(f, K_WORLD_SIZE))) {
		n->ranks |= EV_WORLD_SIZE;
		n->world_size = (uint32_t)u64_of(arg(f, K_WORLD_SIZE));
	}
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
		return a->d > 0 && a->d < 1.8e16 ? (uint64_t)llround(a->d * 1e3) : 0;
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

/* "254:0" -> major << 20 | minor (0: not "major:minor") */
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
	int64_t ret = i64_of(arg(f, K_RET));

	if (arg(f, K_ERRNO)) {
		struct ev_str e = str_of(arg(f, K_ERRNO));

		return -(int64_t)errno_number(e.s, e.len);
	}
	if (ret < 0 && ret >= -4095) /* a failure whose errno the trace does not name */
		return -ERRNO_UNKNOWN;
	return ret;
}

static void identity(const struct found *f, uint64_t *ino, uint32_t *dev, uint32_t *fs)
{
	const struct ev_arg *a = arg(f, K_FS);

	*ino = u64_of(arg(f, K_INO));
	*dev = dev_of(arg(f, K_DEV));
	if (a && (a->type == EV_ARG_STR || a->type == EV_ARG_SYMBOL))
		fs_magic(a->s.s, a->s.len, fs);
	else if (a)
		*fs = u64_of(a);
}

/* A symbol or flag set of the trace, parsed into *out (left as it is when it is not one). */
static void sym_of(const struct ev_arg *a, enum sym_set set, uint32_t *out)
{
	struct ev_str s = str_of(a);
	uint32_t v;

	if (a && !parse_sym(set, s.s, s.len, &v))
		*out = v;
}

static void flags_of(const struct ev_arg *a, enum flag_set set, uint32_t *out)
{
	struct ev_str s = str_of(a);
	uint32_t v;

	if (a && !parse_flag_set(set, s.s, s.len, &v))
		*out = v;
}

/* ---- syscalls ---- */

/* fcntl: the command and what its argument was (event_args.c, fcntl_args) */
static void fcntl_args(const struct found *f, struct ev_syscall *sc)
{
	const struct ev_arg *a = arg(f, K_ARG);
	struct ev_str text;
	uint32_t v;

	sym_of(arg(f, K_CMD), SYM_FCNTL_CMD, &sc->arg_lo);
	switch (fcntl_arg_of(sc->arg_lo)) {
	case FCNTL_ARG_DUP:
		sc->arg_hi = u64_of(arg(f, K_MINFD));
		break;
	case FCNTL_ARG_FD_FLAGS:
		flags_of(a, FLAGS_FD, &sc->arg_hi);
		break;
	case FCNTL_ARG_FILE_FLAGS:
		text = str_of(a);
		if (a)
			parse_open_flags(text.s, text.len, &sc->arg_hi);
		break;
	case FCNTL_ARG_INT:
		sc->arg_hi = (uint32_t)i64_of(a);
		break;
	case FCNTL_ARG_LOCK:
		sym_of(arg(f, K_LOCK), SYM_LOCK_TYPE, &sc->arg_hi);
		sc->arg_hi &= 0xffff;
		text = str_of(arg(f, K_WHENCE));
		if (!parse_whence(text.s, text.len, &v))
			sc->arg_hi |= v << 16;
		sc->offset = i64_of(arg(f, K_START));
		sc->size = i64_of(arg(f, K_LEN));
		break;
	default:
		break;
	}
}

/* "major:minor" of mknod's device -> the kernel's new_encode_dev() */
static uint32_t rdev_of(const struct ev_arg *a)
{
	uint32_t dev = dev_of(a), major = dev >> 20, minor = dev & 0xfffff;

	return (minor & 0xff) | (major << 8) | ((minor & ~0xffu) << 12);
}

/* A field of the show column (syscall_table.h) set to v. */
static void show_set(struct ev_syscall *sc, unsigned field, uint64_t v)
{
	switch (field) {
	case SF_LO:
		sc->arg_lo = v;
		break;
	case SF_HI:
		sc->arg_hi = v;
		break;
	case SF_ARG:
		sc->arg_lo = v & 0xffffffff;
		sc->arg_hi = v >> 32;
		break;
	case SF_OFFSET:
		sc->offset = v;
		break;
	case SF_SIZE:
		sc->size = v;
		break;
	case SF_ATFLAGS:
		sc->at_flags = v;
		break;
	case SF_ADDR:
		sc->addr = v;
		break;
	default: /* SF_RET: the ret of the event already */
		break;
	}
}

/* One argument of the kind's own, back (event_args.c, show_arg) */
static void show_parse(const struct found *f, struct ev_syscall *sc, const struct syscall_show *sh,
		       unsigned key)
{
	const struct ev_arg *a = arg(f, key);
	struct ev_str text = str_of(a);
	uint32_t v32 = 0;
	uint64_t v;

	switch (sh->format) {
	case SH_U64:
		if (a)
			show_set(sc, sh->field, u64_of(a));
		break;
	case SH_I64:
		if (a)
			show_set(sc, sh->field, (uint64_t)i64_of(a));
		break;
	case SH_I32:
		if (a)
			show_set(sc, sh->field, (uint32_t)i64_of(a));
		break;
	case SH_HEX:
		if (number_of(a, 16, &v))
			show_set(sc, sh->field, v);
		break;
	case SH_OCTAL:
		if (number_of(a, 8, &v))
			show_set(sc, sh->field, v);
		break;
	case SH_RDEV:
		if (a)
			show_set(sc, sh->field, rdev_of(a));
		break;
	case SH_STR:
		sc->text = text;
		break;
	case SH_UTIME: {
		int i = sh->field == SF_MTIME;

		parse_utime(text.s, text.len, &sc->times.sec[i], &sc->times.nsec[i]);
		break;
	}
	case SH_OPEN_FLAGS:
		if (!parse_open_flags(text.s, text.len, &v32))
			show_set(sc, sh->field, v32);
		break;
	case SH_WHENCE:
		if (!parse_whence(text.s, text.len, &v32))
			show_set(sc, sh->field, v32);
		break;
	case SH_PROT:
		if (text.len && !parse_mmap_prot(text.s, text.len, &v32))
			show_set(sc, sh->field, v32);
		break;
	case SH_MMAP_FLAGS:
		if (!parse_mmap_flags(text.s, text.len, &v32))
			show_set(sc, sh->field, v32);
		break;
	case SH_CLOEXEC:
		if (eq(&text, "O_CLOEXEC"))
			show_set(sc, sh->field, O_CLOEXEC);
		break;
	case SH_FCNTL:
		fcntl_args(f, sc);
		break;
	case SH_FLAGS:
		if (a && !parse_flag_set(sh->set, text.s, text.len, &v32))
			show_set(sc, sh->field, v32);
		break;
	case SH_SYM:
		if (a && !parse_sym(sh->set, text.s, text.len, &v32))
			show_set(sc, sh->field, v32);
		break;
	case SH_IDENTITY:
		if (arg(f, K_DEV)) {
			sc->flags |= EVS_IDENTITY;
			identity(f, &sc->ino, &sc->dev, &sc->fs_magic);
			sc->file_size = u64_of(arg(f, K_FILE_SIZE));
		}
		break;
	default:
		break;
	}
}

static void syscall_event(const struct found *f, struct event *e, int kind, uint64_t dur)
{
	struct ev_syscall *sc = &e->sys;
	const struct syscall_info *si = syscall_info(kind);
	const struct ev_arg *a;

	e->type = EV_SYSCALL;
	sc->sys = kind;
	sc->dur = dur;
	sc->ret = ret_of(f);
	if ((a = arg(f, K_DIRFD)))
		sc->fd = i64_of(a);
	else if (dl_kind_maps(kind))
		sc->fd = -1; /* an address, no descriptor */
	else if (dl_kind_has_path(kind) && !dl_kind_names_fd(kind))
		sc->fd = -100; /* AT_FDCWD: not shown */
	else if ((a = arg(f, K_FD)) && !(si->opens && sc->ret >= 0))
		sc->fd = i64_of(a);
	else
		sc->fd = -1;
	sc->path = path_of(arg(f, K_PATH));
	sc->path2 = path_of(arg(f, arg(f, K_OUT_PATH) ? K_OUT_PATH : K_NEW_PATH));
	/* a file offset: offset (or length: truncate), out_offset (splice) */
	if (si->offset_shown && ((a = arg(f, K_OFFSET)) || (a = arg(f, K_LENGTH)))) {
		sc->offset = u64_of(a);
		sc->flags |= EVS_OFFSET;
	}
	if ((a = arg(f, K_OUT_OFFSET))) {
		sc->offset = u64_of(a);
		sc->flags |= EVS_OFFSET | EVS_OUT_OFFSET;
	}
	sc->size = u64_of(arg(f, K_SIZE));
	if ((a = arg(f, K_CACHE_MISS))) {
		sc->flags |= EVS_CACHE;
		sc->cache_miss_bytes = u64_of(a);
	}
	if (u64_of(arg(f, K_SIZE_PARTIAL)))
		sc->flags |= EVS_IOV_TRUNC;
	if (u64_of(arg(f, K_PATH_UNKNOWN)))
		sc->flags |= EVS_PATH_UNKNOWN;
	if (u64_of(arg(f, K_OUT_PATH_UNKNOWN)))
		sc->flags |= EVS_PATH2_UNKNOWN;
	if (arg(f, K_SOCKET_FAMILY)) {
		uint32_t family = 0;

		sym_of(arg(f, K_SOCKET_FAMILY), SYM_FAMILY, &family);
		sc->sock_family = family;
	}
	for (unsigned i = 0; i < si->nshow; i++)
		show_parse(f, sc, &si->show[i], show_key[kind][i]);
	sc->py = str_of(arg(f, K_PY));
	sc->py_stack = str_of(arg(f, K_PY_STACK));
}

/* ---- the trace's first and last events ---- */

static void begin_event(const struct found *f, struct event *e)
{
	struct ev_trace_begin *b = &e->begin;

	e->type = EV_TRACE_BEGIN;
	b->format = str_of(arg(f, K_FORMAT));
	b->version = str_of(arg(f, K_VERSION));
	b->kernel = str_of(arg(f, K_KERNEL));
	b->hostname = str_of(arg(f, K_HOSTNAME));
	b->target = str_of(arg(f, K_TARGET));
	b->layers = str_of(arg(f, K_LAYERS));
	b->layers_off = str_of(arg(f, K_LAYERS_OFF));
	b->layers_attach = str_of(arg(f, K_LAYERS_ATTACH));
	b->clock = str_of(arg(f, K_CLOCK));
	b->start_wall = str_of(arg(f, K_START_WALL));
	b->start_mono_ns = u64_of(arg(f, K_START_MONO));
	b->start_wall_ns = i64_of(arg(f, K_START_WALL_NS));
	b->tracer_pid = u64_of(arg(f, K_TRACER_PID));
	b->profiler_traces = u64_of(arg(f, K_PROFILER_TRACES));
}

static void end_event(struct event_parse *p, const struct found *f, struct event *e, unsigned n)
{
	struct ev_trace_end *end = &e->end;
	const struct ev_arg *kinds = arg(f, K_LOST_BY_KIND);
	unsigned extra = 0;

	e->type = EV_TRACE_END;
	end->events = u64_of(arg(f, K_EVENTS));
	end->lost_events = u64_of(arg(f, K_LOST_EVENTS));
	end->lost_bytes = u64_of(arg(f, K_LOST_BYTES));
	end->duration_ns = u64_of(arg(f, K_DURATION));
	end->end_wall_ns = i64_of(arg(f, K_END_WALL));
	end->stop_reason = str_of(arg(f, K_STOP_REASON));
	end->capped_events = u64_of(arg(f, K_CAPPED));
	end->paths_unknown = u64_of(arg(f, K_PATHS_UNKNOWN));
	end->truncated = u64_of(arg(f, K_TRUNCATED)) != 0;
	end->write_error = str_of(arg(f, K_WRITE_ERROR));
	if (kinds && kinds->type == EV_ARG_LOST_KINDS && kinds->lost) {
		p->lost = *kinds->lost;
		p->lost.events = end->lost_events;
		p->lost.bytes = end->lost_bytes;
		end->lost = &p->lost;
	}
	/* a merge's counts of the profiler traces it placed (kineto_*): kept, in order */
	for (unsigned i = 0; i < n; i++)
		if (f->args[i].key.len > 7 && !memcmp(f->args[i].key.s, "kineto_", 7))
			p->args[extra++] = f->args[i];
	end->extra = extra ? p->args : NULL;
	end->nextra = extra;
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
		e->fault.offset = u64_of(arg(f, K_OFFSET));
		e->fault.size =
		    u64_of(arg(f, K_SIZE)) > UINT32_MAX ? UINT32_MAX : u64_of(arg(f, K_SIZE));
		e->fault.path = path_of(arg(f, K_PATH));
		e->fault.write = eq_arg(arg(f, K_ACCESS), "write");
		e->fault.exec = u64_of(arg(f, K_EXEC)) != 0;
		e->fault.cow = u64_of(arg(f, K_COW)) != 0;
		number_of(arg(f, K_ADDRESS), 16, &e->fault.address);
		e->fault.ino = u64_of(arg(f, K_INO));
		e->fault.dev = dev_of(arg(f, K_DEV));
		return true;
	}
	if (eq(cat, "block")) {
		if (h->ph == 'C') {
			e->type = EV_BLOCK_RATE;
			e->rate.read_mbps = double_of(arg(f, K_READ));
			e->rate.write_mbps = double_of(arg(f, K_WRITE));
			return true;
		}
		if (h->ph != 'b' && h->ph != 'e')
			return false;
		e->type = EV_BLOCK;
		e->block.phase = h->ph;
		e->block.op = block_op(nm);
		e->block.seq = id;
		if (h->ph == 'b') {
			e->block.sector = u64_of(arg(f, K_SECTOR));
			e->block.bytes = u64_of(arg(f, K_BYTES));
			e->block.dev = dev_of(arg(f, K_DEV));
			e->block.issuer_pid = u64_of(arg(f, K_ISSUER_PID));
		} else {
			e->block.latency_ns = ns_of_us(arg(f, K_LATENCY_US));
			e->block.error = i64_of(arg(f, K_ERROR));
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
			e->uring.fd = arg(f, K_FD) ? i64_of(arg(f, K_FD)) : -1;
			if (arg(f, K_FIXED_FILE)) {
				e->uring.fd = i64_of(arg(f, K_FIXED_FILE));
				e->uring.fixed = true;
			}
			e->uring.path = path_of(arg(f, K_PATH));
			e->uring.path_unknown = u64_of(arg(f, K_PATH_UNKNOWN)) != 0;
			e->uring.offset = u64_of(arg(f, K_OFFSET));
			e->uring.len = u64_of(arg(f, K_LEN));
			number_of(arg(f, K_USER_DATA), 16, &e->uring.user_data);
			if (arg(f, K_DEV)) {
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
			e->aio.fd = arg(f, K_FD) ? i64_of(arg(f, K_FD)) : -1;
			e->aio.path = path_of(arg(f, K_PATH));
			e->aio.submission_unknown = u64_of(arg(f, K_SUBMISSION_UNKNOWN)) != 0;
			e->aio.size_partial = u64_of(arg(f, K_SIZE_PARTIAL)) != 0;
			e->aio.offset = u64_of(arg(f, K_OFFSET));
			e->aio.len = u64_of(arg(f, K_LEN));
			number_of(arg(f, K_DATA), 16, &e->aio.data);
			number_of(arg(f, K_IOCB), 16, &e->aio.iocb);
			number_of(arg(f, K_CTX), 16, &e->aio.ctx);
		} else {
			e->aio.reaped = !arg(f, K_REAPED) || u64_of(arg(f, K_REAPED));
			if (e->aio.reaped) {
				e->aio.res = ret_of(f);
				e->aio.res2 = i64_of(arg(f, K_RES2));
			}
		}
		return true;
	}
	if (!eq(cat, "vfs"))
		return false;
	if (eq(nm, "vfs_open")) {
		e->type = EV_VFS_OPEN;
		e->vfs_open.ret = ret_of(f);
		e->vfs_open.path = path_of(arg(f, K_PATH));
		identity(f, &e->vfs_open.ino, &e->vfs_open.dev, &e->vfs_open.fs_magic);
		e->vfs_open.file_size = u64_of(arg(f, K_FILE_SIZE));
		return true;
	}
	if ((op = vfs_op(nm)) < 0)
		return false;
	e->type = EV_VFS;
	e->vfs.op = op;
	if (op == DL_VFS_RW_CHECK) {
		v = u64_of(arg(f, K_WRITE));
		e->vfs.write = v != 0;
	} else {
		e->vfs.dur = dur;
		e->vfs.ret = ret_of(f);
	}
	e->vfs.path = path_of(arg(f, K_PATH));
	e->vfs.offset = u64_of(arg(f, K_OFFSET));
	e->vfs.size = u64_of(arg(f, K_SIZE));
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
		e->fork.child = id_of(arg(f, thread ? K_CHILD_TID : K_CHILD_PID));
		e->fork.parent_pid = e->pid;
		e->fork.parent_tid = e->tid;
		e->fork.flow = id;
		return true;
	}
	if (h->ph == 'X' && ((thread = eq(nm, "thread_start")) || eq(nm, "process_start"))) {
		const struct ev_arg *parent = arg(f, thread ? K_CREATOR_TID : K_PARENT_PID);

		e->type = EV_START;
		e->fork.thread = thread;
		e->fork.child = e->tid;
		e->fork.parent_pid = e->pid;
		if (id_of(parent) && thread)
			e->fork.parent_tid = id_of(parent);
		else if (id_of(parent))
			e->fork.parent_pid = id_of(parent);
		e->fork.flow = id;
		return true;
	}
	if (h->ph != 'i')
		return false;
	if (eq(nm, "exec")) {
		e->type = EV_EXEC;
		e->exec.file = str_of(arg(f, K_FILE));
		e->exec.cmdline = str_of(arg(f, K_CMDLINE));
		return true;
	}
	if (eq(nm, "process_exit") || eq(nm, "thread_exit")) {
		e->type = EV_EXIT;
		e->exit.group_dead = eq(nm, "process_exit");
		e->exit.signaled = arg(f, K_SIGNAL) != NULL;
		e->exit.code = u64_of(arg(f, e->exit.signaled ? K_SIGNAL : K_EXIT_CODE));
		return true;
	}
	return false;
}

/*
 * ---- spans: every arg as it is, a "path" as a file name (its exact bytes:
 * the JSON reader made "path" and "path_hex" one EV_ARG_PATH) ----
 */

static void span_event(struct event_parse *p, struct event *e, const struct ev_head *h,
		       uint64_t dur, uint64_t id, const struct ev_arg *args, unsigned n)
{
	e->type = EV_SPAN;
	e->span.phase = h->ph;
	e->span.name = h->name;
	e->span.cat = h->cat;
	e->span.dur = dur;
	if (h->ph == EV_PH_FLOW_OUT || h->ph == EV_PH_FLOW_IN)
		e->span.flow = id;
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
	f.args = args;
	memset(f.at, 0, sizeof(f.at));
	for (unsigned i = 0; i < n; i++) {
		int k = key_of(&args[i].key);

		if (k >= 0 && !f.at[k])
			f.at[k] = i + 1;
	}
	if (h->ph == 'M') {
		if (eq(&h->name, "dltrace")) {
			begin_event(&f, e);
			return;
		}
		if (eq(&h->name, "dltrace_summary")) {
			end_event(p, &f, e, n);
			return;
		}
		if (eq(&h->name, "process_name") || eq(&h->name, "thread_name")) {
			e->type = eq(&h->name, "process_name") ? EV_PROCESS_NAME : EV_THREAD_NAME;
			e->name.name = str_of(arg(&f, K_NAME));
			name_ranks(&f, &e->name);
			return;
		}
	} else if (eq(cat, "data") || eq(cat, "metadata") || eq(cat, "sync") || eq(cat, "hint")) {
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
	/*
	 * Without a category: a span only when it has a name and no text keeps
	 * it as it was (a .pftrace's: a profiler's instant); the nameless END of
	 * a slice whose begin is not before it stays of no kind.
	 */
	if (h->ph && strchr("XBEiCsf", h->ph) && (cat->len || (!e->raw.len && h->name.len))) {
		span_event(p, e, h, dur, id, args, n);
		return;
	}
	e->type = EV_OTHER;
	e->other.name = h->name;
	e->other.cat = h->cat;
	e->other.phase = h->ph;
}
