// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The event stream's one contract with the trace formats, checked with no
 * kernel: every event kind, and every syscall kind with the arguments it
 * carries, turned into what a trace shows of it (event_head, event_args)
 * and parsed back (event_parse) is the same event, field by field.  Then
 * the same events through each writer into a file (Chrome JSON, .pftrace,
 * both gzipped or not) and back through trace_file_read: the same again.
 *
 * Each event is described here by hand, with the fields its kind carries
 * (bpf/dltrace_events.h, struct dl_io) and no others: a field the trace
 * does not show for that kind would not come back, and a kind missing
 * from the table below fails the run.
 *
 * Usage: event_roundtrip DIR   (a writable directory for the trace files)
 * Prints one line per failure and "N events, M files: 0 failed"; exits 1 on any failure.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bpf/dltrace_events.h"
#include "event/event_args.h"
#include "event/event_parse.h"
#include "event/syscall_table.h"
#include "format/trace_format.h"
#include "io/output_sink.h"

static unsigned failures;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	failures++;
}

/* ---- an event as text: every field of its type, strings byte for byte ---- */

struct text {
	char *s;
	size_t len, cap;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		if ((size_t)n < t->cap - t->len)
			break;
		t->cap = t->cap * 2 + n + 64;
		t->s = realloc(t->s, t->cap);
		if (!t->s)
			abort();
	}
	t->len += n;
}

static void put_str(struct text *t, const char *key, struct ev_str s)
{
	put(t, " %s=\"", key);
	for (uint32_t i = 0; i < s.len; i++) {
		unsigned char c = s.s[i];

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
			put(t, "%c", c);
		else
			put(t, "\\x%02x", c);
	}
	put(t, "\"");
}

#define PUT_U(t, p, f) put((t), " " #f "=%llu", (unsigned long long)(p)->f)
#define PUT_I(t, p, f) put((t), " " #f "=%lld", (long long)(p)->f)

static void put_arg(struct text *t, const struct ev_arg *a)
{
	put_str(t, "key", a->key);
	put(t, " type=%u", a->type);
	switch (a->type) {
	case EV_ARG_U64:
	case EV_ARG_US:
	case EV_ARG_HEX:
		put(t, " u=%llu", (unsigned long long)a->u);
		break;
	case EV_ARG_I64:
		put(t, " i=%lld", (long long)a->i);
		break;
	case EV_ARG_STR:
	case EV_ARG_SYMBOL:
		put_str(t, "s", a->s);
		break;
	case EV_ARG_PATH:
		put_str(t, "path", a->path->name);
		break;
	case EV_ARG_BOOL:
		put(t, " b=%d", a->b);
		break;
	case EV_ARG_DOUBLE:
		put(t, " d=%.17g", a->d);
		break;
	default:
		put(t, " ?");
		break;
	}
}

/* Metadata events ('M': the trace's first and last, names, and others) carry no time. */
static bool timeless(const struct event *e)
{
	switch (e->type) {
	case EV_TRACE_BEGIN:
	case EV_TRACE_END:
	case EV_PROCESS_NAME:
	case EV_THREAD_NAME:
		return true;
	case EV_OTHER:
		return e->other.phase == 'M';
	default:
		return false;
	}
}

static void describe(struct text *t, const struct event *e)
{
	t->len = 0;
	if (timeless(e))
		put(t, "type=%u ts=- pid=%u tid=%u", e->type, e->pid, e->tid);
	else
		put(t, "type=%u ts=%llu pid=%u tid=%u", e->type, (unsigned long long)e->ts, e->pid,
		    e->tid);
	switch (e->type) {
	case EV_TRACE_BEGIN: {
		const struct ev_trace_begin *b = &e->begin;

		put_str(t, "format", b->format);
		put_str(t, "version", b->version);
		put_str(t, "kernel", b->kernel);
		put_str(t, "hostname", b->hostname);
		put_str(t, "target", b->target);
		put_str(t, "layers", b->layers);
		put_str(t, "layers_off", b->layers_off);
		put_str(t, "clock", b->clock);
		put_str(t, "start_wall", b->start_wall);
		PUT_U(t, b, start_mono_ns);
		PUT_I(t, b, start_wall_ns);
		PUT_U(t, b, tracer_pid);
		break;
	}
	case EV_TRACE_END: {
		const struct ev_trace_end *x = &e->end;

		PUT_U(t, x, events);
		PUT_U(t, x, lost_events);
		PUT_U(t, x, lost_bytes);
		PUT_U(t, x, duration_ns);
		PUT_I(t, x, end_wall_ns);
		put_str(t, "stop_reason", x->stop_reason);
		PUT_U(t, x, capped_events);
		PUT_U(t, x, paths_unknown);
		PUT_U(t, x, truncated);
		if (x->lost) {
			put(t, " lost=%llu/%llu", (unsigned long long)x->lost->events,
			    (unsigned long long)x->lost->bytes);
			for (unsigned i = 0; i < DL_LOST_KINDS; i++)
				if (x->lost->by_kind[i])
					put(t, " lost[%u]=%llu", i,
					    (unsigned long long)x->lost->by_kind[i]);
		}
		break;
	}
	case EV_SYSCALL: {
		const struct ev_syscall *s = &e->sys;

		PUT_U(t, s, sys);
		put(t, " flags=0x%x at_flags=0x%x", s->flags, s->at_flags);
		PUT_U(t, s, dur);
		PUT_I(t, s, ret);
		PUT_I(t, s, fd);
		put(t, " arg_lo=0x%x arg_hi=0x%x", s->arg_lo, s->arg_hi);
		PUT_U(t, s, offset);
		PUT_U(t, s, size);
		PUT_U(t, s, cache_miss_bytes);
		PUT_U(t, s, ino);
		PUT_U(t, s, file_size);
		put(t, " dev=0x%x fs_magic=0x%x", s->dev, s->fs_magic);
		put_str(t, "path", s->path.name);
		put_str(t, "path2", s->path2.name);
		put_str(t, "text", s->text);
		put(t, " addr=0x%llx", (unsigned long long)s->addr);
		put(t, " times=%lld.%u,%lld.%u", (long long)s->times.sec[0], s->times.nsec[0],
		    (long long)s->times.sec[1], s->times.nsec[1]);
		PUT_U(t, s, sock_family);
		put_str(t, "py", s->py);
		put_str(t, "py_stack", s->py_stack);
		break;
	}
	case EV_FORK:
	case EV_START:
		PUT_U(t, &e->fork, thread);
		PUT_U(t, &e->fork, child);
		PUT_U(t, &e->fork, parent_pid);
		PUT_U(t, &e->fork, parent_tid);
		PUT_U(t, &e->fork, flow);
		break;
	case EV_EXEC:
		put_str(t, "file", e->exec.file);
		put_str(t, "cmdline", e->exec.cmdline);
		break;
	case EV_EXIT:
		PUT_U(t, &e->exit, group_dead);
		PUT_U(t, &e->exit, signaled);
		PUT_I(t, &e->exit, code);
		break;
	case EV_PROCESS_NAME:
	case EV_THREAD_NAME:
		put_str(t, "name", e->name.name);
		break;
	case EV_FAULT: {
		const struct ev_fault *f = &e->fault;

		PUT_U(t, f, write);
		PUT_U(t, f, exec);
		PUT_U(t, f, cow);
		PUT_U(t, f, size);
		PUT_U(t, f, offset);
		put(t, " address=0x%llx", (unsigned long long)f->address);
		PUT_U(t, f, ino);
		put(t, " dev=0x%x", f->dev);
		put_str(t, "path", f->path.name);
		break;
	}
	case EV_BLOCK: {
		const struct ev_block *b = &e->block;

		put(t, " phase=%c", b->phase);
		PUT_U(t, b, op);
		PUT_U(t, b, seq);
		PUT_U(t, b, sector);
		PUT_U(t, b, bytes);
		put(t, " dev=0x%x", b->dev);
		PUT_U(t, b, issuer_pid);
		PUT_U(t, b, latency_ns);
		PUT_I(t, b, error);
		break;
	}
	case EV_BLOCK_RATE:
		put(t, " read=%.17g write=%.17g", e->rate.read_mbps, e->rate.write_mbps);
		break;
	case EV_URING: {
		const struct ev_uring *u = &e->uring;

		put(t, " phase=%c", u->phase);
		PUT_U(t, u, opcode);
		PUT_U(t, u, seq);
		PUT_I(t, u, fd);
		PUT_U(t, u, fixed);
		PUT_U(t, u, path_unknown);
		PUT_U(t, u, has_file);
		PUT_U(t, u, len);
		PUT_U(t, u, offset);
		put(t, " user_data=0x%llx", (unsigned long long)u->user_data);
		PUT_U(t, u, ino);
		put(t, " dev=0x%x", u->dev);
		put_str(t, "path", u->path.name);
		PUT_I(t, u, res);
		break;
	}
	case EV_AIO: {
		const struct ev_aio *a = &e->aio;

		put(t, " phase=%c", a->phase);
		PUT_U(t, a, opcode);
		PUT_U(t, a, seq);
		PUT_I(t, a, fd);
		PUT_U(t, a, submission_unknown);
		PUT_U(t, a, size_partial);
		PUT_U(t, a, offset);
		PUT_U(t, a, len);
		put(t, " data=0x%llx iocb=0x%llx ctx=0x%llx", (unsigned long long)a->data,
		    (unsigned long long)a->iocb, (unsigned long long)a->ctx);
		put_str(t, "path", a->path.name);
		PUT_U(t, a, reaped);
		PUT_I(t, a, res);
		PUT_I(t, a, res2);
		break;
	}
	case EV_VFS: {
		const struct ev_vfs *v = &e->vfs;

		PUT_U(t, v, op);
		PUT_U(t, v, write);
		PUT_U(t, v, dur);
		PUT_I(t, v, ret);
		PUT_U(t, v, offset);
		PUT_U(t, v, size);
		PUT_U(t, v, ino);
		put(t, " dev=0x%x fs_magic=0x%x", v->dev, v->fs_magic);
		put_str(t, "path", v->path.name);
		break;
	}
	case EV_VFS_OPEN: {
		const struct ev_vfs_open *v = &e->vfs_open;

		PUT_I(t, v, ret);
		PUT_U(t, v, ino);
		PUT_U(t, v, file_size);
		put(t, " dev=0x%x fs_magic=0x%x", v->dev, v->fs_magic);
		put_str(t, "path", v->path.name);
		break;
	}
	case EV_SPAN:
		put(t, " phase=%c", e->span.phase);
		put_str(t, "name", e->span.name);
		put_str(t, "cat", e->span.cat);
		PUT_U(t, &e->span, dur);
		PUT_U(t, &e->span, nargs);
		for (uint32_t i = 0; i < e->span.nargs; i++) {
			put(t, " [%u]", i);
			put_arg(t, &e->span.args[i]);
		}
		break;
	case EV_OTHER:
		put_str(t, "name", e->other.name);
		put_str(t, "cat", e->other.cat);
		put(t, " phase=%c", e->other.phase ? e->other.phase : '-');
		break;
	default:
		put(t, " unknown type");
		break;
	}
}

/* ---- the events: every kind, by hand ---- */

#define S(lit)	     ((struct ev_str){(lit), sizeof(lit) - 1})
#define P(lit)	     ((struct ev_path){S(lit), NULL})
#define AT_CWD	     (-100)
#define MAX_EVENTS   512
#define MAX_EXPECTED 600

static struct event events[MAX_EVENTS];
static unsigned nevents;
static uint64_t next_ts = 1000;

static struct event *add_event(enum event_type type, uint32_t pid, uint32_t tid)
{
	struct event *e;

	if (nevents == MAX_EVENTS) {
		fail("too many events for the table (MAX_EVENTS)");
		exit(1);
	}
	e = &events[nevents++];
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->ts = next_ts;
	next_ts += 1237; /* distinct, and not whole microseconds: ns survive the formats */
	e->pid = pid;
	e->tid = tid;
	return e;
}

/* What a syscall kind carries besides ret and dur (struct dl_io of bpf/dltrace_events.h). */
enum {
	F_FD = 1 << 0,	   /* a descriptor argument, shown as "fd" (5) */
	F_DIRFD = 1 << 1,  /* an *at call's dirfd, shown as "dirfd" (9) */
	F_ATCWD = 1 << 2,  /* a path call with no dirfd: AT_FDCWD, not shown */
	F_PATH = 1 << 3,   /* the fd's or the named file */
	F_PATH2 = 1 << 4,  /* new_path, or out_path of sendfile/copy_file_range/splice/tee */
	F_OFF = 1 << 5,	   /* a file offset (EVS_OFFSET; ftruncate/truncate: the length) */
	F_SIZE = 1 << 6,   /* bytes asked for, or a buffer's size */
	F_CACHE = 1 << 7,  /* reads: the bytes brought into the page cache */
	F_LO = 1 << 8,	   /* arg_lo as the table gives it */
	F_HI = 1 << 9,	   /* arg_hi as the table gives it */
	F_TEXT = 1 << 10,  /* an xattr's name, a symlink's target */
	F_ADDR = 1 << 11,  /* madvise, msync, munmap: the address */
	F_TIMES = 1 << 12, /* utime*: atime and mtime */
	F_ATF = 1 << 13,   /* the *at flags */
	F_NOFD = 1 << 14,  /* no descriptor (fd -1, not shown) */
	F_OPENS = 1 << 15, /* returns a new descriptor (ret 7), with the file's identity */
	F_RAW = 1 << 16,   /* offset and size as the table's lo and hi say (not F_OFF's flag) */
};

struct kind_spec {
	int kind;
	unsigned f;
	uint32_t lo, hi;
	uint64_t off, size; /* F_RAW: what offset and size hold for this kind */
};

#define RD  (F_FD | F_PATH | F_OFF | F_SIZE | F_CACHE)
#define WR  (F_FD | F_PATH | F_OFF | F_SIZE)
#define FDP (F_FD | F_PATH)
#define CWD (F_ATCWD | F_PATH)
#define DIR (F_DIRFD | F_PATH)
#define MAP (F_NOFD | F_PATH | F_OFF | F_SIZE | F_ADDR)

static const struct kind_spec kinds[] = {
    {.kind = DL_SYS_OPEN,
     .f = F_ATCWD | F_PATH | F_OPENS | F_LO | F_HI,
     .lo = O_WRONLY | O_CREAT | O_TRUNC,
     .hi = 0640},
    {.kind = DL_SYS_OPENAT,
     .f = F_ATCWD | F_PATH | F_OPENS | F_LO,
     .lo = O_RDONLY | O_CLOEXEC,
     .hi = 0},
    {.kind = DL_SYS_OPENAT2,
     .f = F_ATCWD | F_PATH | F_OPENS | F_LO | F_HI,
     .lo = O_RDWR | O_CREAT | O_EXCL,
     .hi = 0600},
    {.kind = DL_SYS_CREAT,
     .f = F_ATCWD | F_PATH | F_OPENS | F_LO | F_HI,
     .lo = O_WRONLY | O_CREAT | O_TRUNC,
     .hi = 0644},
    {.kind = DL_SYS_CLOSE, .f = FDP},
    {.kind = DL_SYS_CLOSE_RANGE,
     .f = F_FD | F_LO | F_HI,
     .lo = 4095,
     .hi = 4 /* CLOSE_RANGE_CLOEXEC */},
    {.kind = DL_SYS_READ, .f = RD},
    {.kind = DL_SYS_PREAD64, .f = RD},
    {.kind = DL_SYS_READV, .f = RD},
    {.kind = DL_SYS_PREADV, .f = RD},
    {.kind = DL_SYS_PREADV2, .f = RD},
    {.kind = DL_SYS_WRITE, .f = WR},
    {.kind = DL_SYS_PWRITE64, .f = WR},
    {.kind = DL_SYS_WRITEV, .f = WR},
    {.kind = DL_SYS_PWRITEV, .f = WR},
    {.kind = DL_SYS_PWRITEV2, .f = WR},
    {.kind = DL_SYS_LSEEK,
     .f = FDP | F_LO | F_RAW,
     .lo = SEEK_END,
     .hi = 0,
     .off = 4096,
     .size = 0},
    {.kind = DL_SYS_FSYNC, .f = FDP},
    {.kind = DL_SYS_FDATASYNC, .f = FDP},
    {.kind = DL_SYS_SYNC_FILE_RANGE, .f = WR | F_LO, .lo = 2 /* SYNC_FILE_RANGE_WRITE */},
    {.kind = DL_SYS_MMAP,
     .f = WR | F_LO | F_HI,
     .lo = PROT_READ | PROT_WRITE,
     .hi = MAP_SHARED | MAP_POPULATE},
    {.kind = DL_SYS_STAT, .f = CWD},
    {.kind = DL_SYS_LSTAT, .f = CWD},
    {.kind = DL_SYS_FSTAT, .f = FDP},
    {.kind = DL_SYS_NEWFSTATAT, .f = DIR | F_ATF},
    {.kind = DL_SYS_STATX, .f = DIR | F_ATF},
    {.kind = DL_SYS_GETDENTS64, .f = FDP | F_SIZE},
    {.kind = DL_SYS_UNLINK, .f = CWD},
    {.kind = DL_SYS_UNLINKAT, .f = DIR | F_ATF},
    {.kind = DL_SYS_RENAME, .f = CWD | F_PATH2},
    {.kind = DL_SYS_RENAMEAT, .f = DIR | F_PATH2},
    {.kind = DL_SYS_RENAMEAT2, .f = DIR | F_PATH2 | F_ATF},
    {.kind = DL_SYS_MKDIR, .f = CWD | F_HI, .lo = 0, .hi = 0750},
    {.kind = DL_SYS_MKDIRAT, .f = DIR | F_HI, .lo = 0, .hi = 0700},
    {.kind = DL_SYS_RMDIR, .f = CWD},
    {.kind = DL_SYS_FTRUNCATE, .f = FDP | F_OFF},
    {.kind = DL_SYS_FALLOCATE,
     .f = WR | F_LO,
     .lo = 3 /* FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE */},
    {.kind = DL_SYS_DUP, .f = FDP},
    {.kind = DL_SYS_DUP2, .f = FDP | F_LO, .lo = 12},
    {.kind = DL_SYS_DUP3, .f = FDP | F_LO | F_HI, .lo = 13, .hi = O_CLOEXEC},
    {.kind = DL_SYS_FCNTL, .f = FDP | F_LO | F_HI, .lo = F_DUPFD_CLOEXEC, .hi = 10},
    {.kind = DL_SYS_SENDFILE, .f = RD | F_PATH2 | F_LO, .lo = 6},
    {.kind = DL_SYS_COPY_FILE_RANGE, .f = RD | F_PATH2 | F_LO, .lo = 6},
    {.kind = DL_SYS_ACCESS, .f = CWD | F_LO, .lo = R_OK | W_OK},
    {.kind = DL_SYS_FACCESSAT, .f = DIR | F_LO, .lo = X_OK},
    {.kind = DL_SYS_FACCESSAT2, .f = DIR | F_LO | F_ATF, .lo = R_OK},
    {.kind = DL_SYS_CHMOD, .f = CWD | F_LO, .lo = 04755},
    {.kind = DL_SYS_FCHMOD, .f = FDP | F_LO, .lo = 0600},
    {.kind = DL_SYS_FCHMODAT, .f = DIR | F_LO, .lo = 0644},
    {.kind = DL_SYS_FCHMODAT2, .f = DIR | F_LO | F_ATF, .lo = 0640},
    {.kind = DL_SYS_CHOWN, .f = CWD | F_LO | F_HI, .lo = 1000, .hi = 100},
    {.kind = DL_SYS_FCHOWN,
     .f = FDP | F_LO | F_HI,
     .lo = 0xffffffff /* -1: unchanged */,
     .hi = 100},
    {.kind = DL_SYS_LCHOWN, .f = CWD | F_LO | F_HI, .lo = 1234, .hi = 0xffffffff},
    {.kind = DL_SYS_FCHOWNAT, .f = DIR | F_LO | F_HI | F_ATF, .lo = 0, .hi = 0},
    {.kind = DL_SYS_UTIME, .f = CWD | F_TIMES},
    {.kind = DL_SYS_UTIMES, .f = CWD | F_TIMES},
    {.kind = DL_SYS_FUTIMESAT, .f = DIR | F_TIMES},
    {.kind = DL_SYS_UTIMENSAT, .f = DIR | F_TIMES | F_ATF},
    {.kind = DL_SYS_TRUNCATE, .f = CWD | F_OFF},
    {.kind = DL_SYS_LINK, .f = CWD | F_PATH2},
    {.kind = DL_SYS_LINKAT, .f = DIR | F_PATH2 | F_ATF},
    {.kind = DL_SYS_SYMLINK, .f = CWD | F_TEXT},
    {.kind = DL_SYS_SYMLINKAT, .f = DIR | F_TEXT},
    {.kind = DL_SYS_READLINK, .f = CWD | F_SIZE},
    {.kind = DL_SYS_READLINKAT, .f = DIR | F_SIZE},
    /* rdev 8:17 in the kernel's new_encode_dev(): minor & 0xff | major << 8 */
    {.kind = DL_SYS_MKNOD, .f = CWD | F_LO | F_HI, .lo = 8 << 8 | 17, .hi = 060600},
    {.kind = DL_SYS_MKNODAT, .f = DIR | F_LO | F_HI, .lo = 1 << 8 | 3, .hi = 020666},
    {.kind = DL_SYS_SETXATTR, .f = CWD | F_TEXT | F_SIZE | F_LO, .lo = 1 /* XATTR_CREATE */},
    {.kind = DL_SYS_LSETXATTR, .f = CWD | F_TEXT | F_SIZE | F_LO, .lo = 2 /* XATTR_REPLACE */},
    {.kind = DL_SYS_FSETXATTR, .f = FDP | F_TEXT | F_SIZE},
    {.kind = DL_SYS_GETXATTR, .f = CWD | F_TEXT | F_SIZE},
    {.kind = DL_SYS_LGETXATTR, .f = CWD | F_TEXT | F_SIZE},
    {.kind = DL_SYS_FGETXATTR, .f = FDP | F_TEXT | F_SIZE},
    {.kind = DL_SYS_LISTXATTR, .f = CWD | F_SIZE},
    {.kind = DL_SYS_LLISTXATTR, .f = CWD | F_SIZE},
    {.kind = DL_SYS_FLISTXATTR, .f = FDP | F_SIZE},
    {.kind = DL_SYS_REMOVEXATTR, .f = CWD | F_TEXT},
    {.kind = DL_SYS_LREMOVEXATTR, .f = CWD | F_TEXT},
    {.kind = DL_SYS_FREMOVEXATTR, .f = FDP | F_TEXT},
    {.kind = DL_SYS_SETXATTRAT, .f = DIR | F_TEXT | F_SIZE | F_LO | F_ATF, .lo = 1},
    {.kind = DL_SYS_GETXATTRAT, .f = DIR | F_TEXT | F_SIZE | F_ATF},
    {.kind = DL_SYS_LISTXATTRAT, .f = DIR | F_SIZE | F_ATF},
    {.kind = DL_SYS_REMOVEXATTRAT, .f = DIR | F_TEXT | F_ATF},
    {.kind = DL_SYS_STATFS, .f = CWD},
    {.kind = DL_SYS_FSTATFS, .f = FDP},
    {.kind = DL_SYS_CHDIR, .f = CWD},
    {.kind = DL_SYS_FCHDIR, .f = FDP},
    {.kind = DL_SYS_FLOCK, .f = FDP | F_LO, .lo = LOCK_EX | LOCK_NB},
    {.kind = DL_SYS_FADVISE64, .f = WR | F_LO, .lo = 4 /* POSIX_FADV_DONTNEED */},
    {.kind = DL_SYS_READAHEAD, .f = WR},
    {.kind = DL_SYS_MADVISE, .f = MAP | F_LO, .lo = MADV_DONTNEED},
    {.kind = DL_SYS_MSYNC, .f = MAP | F_LO, .lo = MS_SYNC | MS_INVALIDATE},
    {.kind = DL_SYS_MUNMAP, .f = MAP},
    {.kind = DL_SYS_SYNC, .f = F_NOFD},
    {.kind = DL_SYS_SYNCFS, .f = FDP},
    {.kind = DL_SYS_SPLICE, .f = WR | F_PATH2 | F_LO | F_HI, .lo = 8, .hi = 1 /* SPLICE_F_MOVE */},
    {.kind = DL_SYS_VMSPLICE, .f = FDP | F_SIZE | F_LO, .lo = 2 /* SPLICE_F_NONBLOCK */},
    {.kind = DL_SYS_TEE, .f = FDP | F_PATH2 | F_SIZE | F_LO | F_HI, .lo = 9, .hi = 2},
    /* the AIO calls name a context (arg_hi << 32 | arg_lo), not a descriptor */
    {.kind = DL_SYS_IO_SETUP,
     .f = F_NOFD | F_LO | F_HI | F_RAW,
     .lo = 0x9000,
     .hi = 0x7f12,
     .off = 0,
     .size = 128},
    {.kind = DL_SYS_IO_SUBMIT,
     .f = F_NOFD | F_LO | F_HI | F_RAW,
     .lo = 0x9000,
     .hi = 0x7f12,
     .off = 0,
     .size = 3},
    {.kind = DL_SYS_IO_GETEVENTS,
     .f = F_NOFD | F_LO | F_HI | F_RAW,
     .lo = 0x9000,
     .hi = 0x7f12,
     .off = 1,
     .size = 16},
    {.kind = DL_SYS_IO_PGETEVENTS,
     .f = F_NOFD | F_LO | F_HI | F_RAW,
     .lo = 0x9000,
     .hi = 0x7f12,
     .off = 2,
     .size = 8},
    {.kind = DL_SYS_IO_CANCEL,
     .f = F_NOFD | F_LO | F_HI | F_RAW,
     .lo = 0x9000,
     .hi = 0x7f12,
     .off = 0x55d0c0de1000,
     .size = 0},
    {.kind = DL_SYS_IO_DESTROY, .f = F_NOFD | F_LO | F_HI, .lo = 0x9000, .hi = 0x7f12},
    {.kind = DL_SYS_IO_URING_SETUP,
     .f = F_NOFD | F_LO | F_RAW,
     .lo = 1 /* IORING_SETUP_IOPOLL */,
     .hi = 0,
     .off = 0,
     .size = 256},
    {.kind = DL_SYS_IO_URING_ENTER,
     .f = FDP | F_LO | F_RAW,
     .lo = 1 /* IORING_ENTER_GETEVENTS */,
     .hi = 0,
     .off = 1,
     .size = 4},
    {.kind = DL_SYS_IO_URING_REGISTER,
     .f = FDP | F_LO | F_RAW,
     .lo = 2 /* IORING_REGISTER_FILES */,
     .hi = 0,
     .off = 0,
     .size = 3},
    {.kind = DL_SYS_CACHESTAT, .f = WR | F_LO, .lo = 1},
};

/* A syscall event of spec k: ret 4096 (opens: 7), every field its kind carries set. */
static struct event *syscall_event(const struct kind_spec *k)
{
	struct event *e = add_event(EV_SYSCALL, 4242, 4243);
	struct ev_syscall *s = &e->sys;

	s->sys = k->kind;
	s->dur = 3 * 1000 + 7; /* 3.007 us */
	s->ret = 4096;
	s->fd = -1;
	if (k->f & F_FD)
		s->fd = 5;
	if (k->f & F_DIRFD)
		s->fd = 9;
	if (k->f & F_ATCWD)
		s->fd = AT_CWD;
	if (k->f & F_PATH)
		s->path = P("/data/train/shard-00017.bin");
	if (k->f & F_PATH2)
		s->path2 = P("/data/out/copy of shard \"17\".bin");
	if (k->f & F_OFF) {
		s->flags |= EVS_OFFSET;
		s->offset = 1ull << 33 | 4096;
	}
	if (k->f & F_SIZE)
		s->size = 1 << 20;
	if (k->f & F_RAW) {
		s->offset = k->off;
		s->size = k->size;
	}
	if (k->f & F_CACHE) {
		s->flags |= EVS_CACHE;
		s->cache_miss_bytes = 12288;
	}
	if (k->f & F_LO)
		s->arg_lo = k->lo;
	if (k->f & F_HI)
		s->arg_hi = k->hi;
	if (k->f & F_TEXT)
		s->text = S("user.dltrace.checksum");
	if (k->f & F_ADDR)
		s->addr = 0x7f3a5c200000ull;
	if (k->f & F_TIMES) {
		s->times.sec[0] = 1700000000;
		s->times.nsec[0] = 123456789;
		s->times.sec[1] = 0;
		s->times.nsec[1] = (1l << 30) - 2; /* UTIME_OMIT */
	}
	if (k->f & F_ATF)
		s->at_flags = AT_SYMLINK_NOFOLLOW;
	if (k->f & F_OPENS) {
		s->ret = 7;
		s->flags |= EVS_IDENTITY;
		s->ino = 131077;
		s->dev = 254u << 20 | 1;
		s->fs_magic = 0xef53; /* ext4 */
		s->file_size = 10485760;
	}
	if (k->kind == DL_SYS_MMAP)
		s->ret = 0x7f3a5c200000ll; /* the address it mapped */
	if (k->kind == DL_SYS_LSEEK)
		s->ret = 4096;
	return e;
}

static const struct kind_spec *spec(int kind)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (kinds[i].kind == kind)
			return &kinds[i];
	fail("no kind %d in the table", kind);
	exit(1);
}

static void syscall_events(void)
{
	bool covered[DL_SYS_COUNT] = {0};
	struct event *e;

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (covered[kinds[i].kind])
			fail("kind %d twice in the table", kinds[i].kind);
		covered[kinds[i].kind] = true;
		syscall_event(&kinds[i]);
	}
	for (int k = 0; k < DL_SYS_COUNT; k++)
		if (!covered[k])
			fail("syscall kind %d (%s) is not in the table: describe what it carries",
			     k, syscall_info(k)->name);

	/* failures: the errno by name, and one that has none */
	e = syscall_event(spec(DL_SYS_OPENAT)); /* a missing file, from a dirfd */
	e->sys.ret = -2;			/* ENOENT */
	e->sys.fd = 9;
	e->sys.flags &= ~EVS_IDENTITY;
	e->sys.ino = e->sys.dev = e->sys.fs_magic = e->sys.file_size = 0;
	e = syscall_event(spec(DL_SYS_READ)); /* read */
	e->sys.ret = -4095;		      /* no errno name: -ERRNO_UNKNOWN */
	e->sys.flags &= ~EVS_CACHE;
	e->sys.cache_miss_bytes = 0;
	/* a vectored call with more iovecs than summed, its file lost, a Python caller */
	e = syscall_event(spec(DL_SYS_READV)); /* readv */
	e->sys.flags |= EVS_IOV_TRUNC | EVS_PATH_UNKNOWN;
	e->sys.path = (struct ev_path){0};
	e->sys.py = S("train.py:42 Loader.__next__");
	e->sys.py_stack = S("train.py:42 Loader.__next__ | train.py:88 main | ...");
	/* a socket */
	e = syscall_event(spec(DL_SYS_WRITE)); /* write */
	e->sys.path = P("socket:[4242]");
	e->sys.sock_family = AF_UNIX;
	e->sys.flags &= ~EVS_OFFSET;
	e->sys.offset = 0;
	/* sendfile whose output's file is lost */
	e = syscall_event(spec(DL_SYS_SENDFILE));
	e->sys.flags |= EVS_PATH2_UNKNOWN;
	e->sys.path2 = (struct ev_path){0};
	/* splice into a file from a pipe: the offset is the output's */
	e = syscall_event(spec(DL_SYS_SPLICE));
	e->sys.flags |= EVS_OUT_OFFSET;
	/* openat with O_TMPFILE (a mode without O_CREAT), from a dirfd it does not show */
	e = syscall_event(spec(DL_SYS_OPENAT));
	e->sys.arg_lo = O_TMPFILE | O_RDWR;
	e->sys.arg_hi = 0600;
	/* fcntl, one of each kind of argument */
	e = syscall_event(spec(DL_SYS_FCNTL));
	e->sys.arg_lo = F_SETFD;
	e->sys.arg_hi = FD_CLOEXEC;
	e = syscall_event(spec(DL_SYS_FCNTL));
	e->sys.arg_lo = F_SETFL;
	e->sys.arg_hi = O_NONBLOCK | O_APPEND;
	e = syscall_event(spec(DL_SYS_FCNTL));
	e->sys.arg_lo = F_SETOWN;
	e->sys.arg_hi = (uint32_t)-4242; /* a process group */
	e = syscall_event(spec(DL_SYS_FCNTL));
	e->sys.arg_lo = F_SETLKW;
	e->sys.arg_hi = F_WRLCK | SEEK_CUR << 16;
	e->sys.offset = (uint64_t)-100; /* l_start before the position */
	e->sys.size = 0;		/* to the end */
	e = syscall_event(spec(DL_SYS_FCNTL));
	e->sys.arg_lo = F_GETFL;
	e->sys.arg_hi = 0;
	/* chown's -1 (unchanged), utime's UTIME_NOW */
	e = syscall_event(spec(DL_SYS_FCHOWN));
	e->sys.arg_lo = e->sys.arg_hi = 0xffffffff;
	e = syscall_event(spec(DL_SYS_UTIMENSAT)); /* utimensat */
	e->sys.times.nsec[0] = e->sys.times.nsec[1] = (1l << 30) - 1;
	e->sys.times.sec[0] = e->sys.times.sec[1] = 0;
}

static void process_events(void)
{
	struct event *e;

	e = add_event(EV_FORK, 4242, 4242);
	e->fork =
	    (struct ev_fork){.child = 4300, .parent_pid = 4242, .parent_tid = 4242, .flow = 1};
	e = add_event(EV_START, 4300, 4300);
	e->fork = (struct ev_fork){.child = 4300, .parent_pid = 4242, .flow = 1};
	e = add_event(EV_FORK, 4242, 4243);
	e->fork = (struct ev_fork){
	    .thread = true, .child = 4244, .parent_pid = 4242, .parent_tid = 4243, .flow = 2};
	e = add_event(EV_START, 4242, 4244);
	e->fork = (struct ev_fork){
	    .thread = true, .child = 4244, .parent_pid = 4242, .parent_tid = 4243, .flow = 2};
	e = add_event(EV_EXEC, 4300, 4300);
	e->exec.file = S("/usr/bin/python3.11");
	e->exec.cmdline = S("python3 -c print(\"caf\xc3\xa9\")\t\xff\xfe");
	e = add_event(EV_EXEC, 4301, 4301);
	e->exec.file = S("/bin/true");
	e = add_event(EV_EXIT, 4242, 4244);
	e->exit = (struct ev_exit){.code = 0};
	e = add_event(EV_EXIT, 4300, 4300);
	e->exit = (struct ev_exit){.group_dead = true, .code = 3};
	e = add_event(EV_EXIT, 4301, 4301);
	e->exit = (struct ev_exit){.group_dead = true, .signaled = true, .code = 9};
	e = add_event(EV_PROCESS_NAME, 4300, 4300);
	e->name.name = S("python3 train.py --data /dev/shm/\xe2\x9c\x93 \x01\x7f\xc0");
	e = add_event(EV_THREAD_NAME, 4242, 4244);
	e->name.name = S("pt_data_worker");
}

static void layer_events(void)
{
	struct event *e;

	e = add_event(EV_FAULT, 4242, 4243);
	e->fault = (struct ev_fault){.size = 4096,
				     .offset = 1 << 20,
				     .address = 0x7f3a5c300000ull,
				     .ino = 131077,
				     .dev = 254u << 20 | 1,
				     .path = P("/data/train/shard-00017.bin")};
	e = add_event(EV_FAULT, 4242, 4243);
	e->fault = (struct ev_fault){.write = true,
				     .cow = true,
				     .size = 65536,
				     .offset = 0,
				     .ino = 99,
				     .dev = 8u << 20 | 2,
				     .path = P("/usr/lib/libc.so.6")};
	e = add_event(EV_FAULT, 4242, 4243);
	e->fault = (struct ev_fault){.exec = true,
				     .size = 4096,
				     .offset = 8192,
				     .ino = 98,
				     .dev = 8u << 20 | 2}; /* a file with no known name */
	for (unsigned op = 0; op < 5; op++) {
		e = add_event(EV_BLOCK, EV_DEVICE_PID_BASE + 1, EV_DEVICE_PID_BASE + 1);
		e->block = (struct ev_block){.phase = EV_PH_BEGIN,
					     .op = op,
					     .seq = 10 + op,
					     .sector = 2048 * op + 8,
					     .bytes = 4096 << op,
					     .dev = 254u << 20,
					     .issuer_pid = op == 2 ? 0 : 4242};
		e = add_event(EV_BLOCK, EV_DEVICE_PID_BASE + 1, EV_DEVICE_PID_BASE + 1);
		e->block = (struct ev_block){.phase = EV_PH_END,
					     .op = op,
					     .seq = 10 + op,
					     .latency_ns = 250123 + op,
					     .error = op == 3 ? -5 : 0};
	}
	e = add_event(EV_BLOCK_RATE, EV_DEVICE_PID_BASE + 1, EV_DEVICE_PID_BASE + 1);
	/* MB/s to the KB/s: what both writers keep (3 decimals) */
	e->rate = (struct ev_block_rate){.read_mbps = 412.5, .write_mbps = 0.063};
	e = add_event(EV_URING, 4242, 4243);
	e->uring = (struct ev_uring){.phase = EV_PH_BEGIN,
				     .opcode = 22 /* READ */,
				     .seq = 31,
				     .fd = 5,
				     .len = 65536,
				     .offset = 1 << 20,
				     .user_data = 0xfeedface,
				     .has_file = true,
				     .ino = 131077,
				     .dev = 254u << 20 | 1,
				     .path = P("/data/train/shard-00017.bin")};
	e = add_event(EV_URING, 4242, 4243);
	e->uring = (struct ev_uring){.phase = EV_PH_END, .opcode = 22, .seq = 31, .res = 65536};
	e = add_event(EV_URING, 4242, 4243);
	e->uring = (struct ev_uring){.phase = EV_PH_BEGIN,
				     .opcode = 23 /* WRITE */,
				     .seq = 32,
				     .fd = 2,
				     .fixed = true,
				     .path_unknown = true,
				     .len = 512};
	e = add_event(EV_URING, 4242, 4243);
	e->uring = (struct ev_uring){.phase = EV_PH_END, .opcode = 23, .seq = 32, .res = -28};
	e = add_event(EV_URING, 4242, 4243);
	e->uring = (struct ev_uring){.phase = EV_PH_BEGIN, .opcode = 200, .seq = 33, .fd = 5};
	e = add_event(EV_AIO, 4242, 4243);
	e->aio = (struct ev_aio){.phase = EV_PH_BEGIN,
				 .opcode = IOCB_CMD_PREADV,
				 .seq = 34,
				 .fd = 5,
				 .size_partial = true,
				 .offset = 8192,
				 .len = 1 << 20,
				 .data = 0x1234,
				 .iocb = 0x55d0c0de2000,
				 .ctx = 0x7f1200009000,
				 .path = P("/data/train/shard-00017.bin")};
	e = add_event(EV_AIO, 4242, 4243);
	e->aio = (struct ev_aio){.phase = EV_PH_END,
				 .opcode = IOCB_CMD_PREADV,
				 .seq = 34,
				 .reaped = true,
				 .res = 1 << 20,
				 .res2 = 1};
	e = add_event(EV_AIO, 4242, 4243);
	e->aio = (struct ev_aio){.phase = EV_PH_BEGIN,
				 .opcode = AIO_OP_UNKNOWN,
				 .seq = 35,
				 .fd = 6,
				 .submission_unknown = true,
				 .data = 7,
				 .iocb = 0x55d0c0de3000,
				 .ctx = 0x7f1200009000};
	e = add_event(EV_AIO, 4242, 4243);
	e->aio = (struct ev_aio){
	    .phase = EV_PH_END, .opcode = AIO_OP_UNKNOWN, .seq = 35, .reaped = true, .res = -5};
	e = add_event(EV_AIO, 4242, 4243); /* never reaped: its end says so */
	e->aio = (struct ev_aio){.phase = EV_PH_BEGIN,
				 .opcode = IOCB_CMD_FSYNC,
				 .seq = 36,
				 .fd = 5,
				 .iocb = 0x55d0c0de4000,
				 .ctx = 0x7f1200009000,
				 .path = P("/data/out/ckpt.pt")};
	e = add_event(EV_AIO, 4242, 4243);
	e->aio = (struct ev_aio){.phase = EV_PH_END, .opcode = IOCB_CMD_FSYNC, .seq = 36};
	for (unsigned op = 0; op < DL_VFS_OP_COUNT; op++) {
		e = add_event(EV_VFS, 4242, 4243);
		e->vfs = (struct ev_vfs){.op = op,
					 .offset = 4096 * op,
					 .size = 4096,
					 .ino = 131077,
					 .dev = 254u << 20 | 1,
					 .fs_magic = op == 1 ? 0x12345678 : 0xef53,
					 .path = P("/data/train/shard-00017.bin")};
		if (op == DL_VFS_RW_CHECK)
			e->vfs.write = true;
		else
			e->vfs.dur = 1500 + op, e->vfs.ret = op == 2 ? -11 : 4096;
	}
	e = add_event(EV_VFS_OPEN, 4242, 4243);
	e->vfs_open = (struct ev_vfs_open){.ret = 0,
					   .ino = 131077,
					   .file_size = 10485760,
					   .dev = 254u << 20 | 1,
					   .fs_magic = 0x01021994,
					   .path = P("/dev/shm/stage/shard0.bin")};
}

/* Spans: each phase, and arguments of every type a trace can give back as it was. */
static const struct ev_path span_path = {{"/data/\xff\x01odd.h5", 14}, NULL};
static const struct ev_arg span_args[] = {
    {.key = {"dataset", 7}, .type = EV_ARG_STR, .s = {"/train/x", 8}},
    {.key = {"path", 4}, .type = EV_ARG_PATH, .path = &span_path},
    {.key = {"count", 5}, .type = EV_ARG_U64, .u = 18446744073709551615ull},
    {.key = {"delta", 5}, .type = EV_ARG_I64, .i = -42},
    {.key = {"lr", 2}, .type = EV_ARG_DOUBLE, .d = 0.125},
    {.key = {"ok", 2}, .type = EV_ARG_BOOL, .b = true},
    {.key = {"k\xc3\xa9y \"q\"", 8}, .type = EV_ARG_STR, .s = {"v\n\t\\", 4}},
};

static void span_events(void)
{
	static const char phases[] = "XBEiC";
	struct event *e;

	for (const char *ph = phases; *ph; ph++) {
		e = add_event(EV_SPAN, 4242, 4243);
		e->span.phase = *ph;
		e->span.name = *ph == 'C' ? S("loss_x1000") : S("H5Dread");
		e->span.cat = *ph == 'C' || *ph == 'i' ? S("marker") : S("hdf5");
		e->span.dur = *ph == 'X' ? 2500001 : 0;
		if (*ph == 'C') {
			e->span.args = &span_args[2];
			e->span.nargs = 1;
		} else if (*ph != 'E') {
			e->span.args = span_args;
			e->span.nargs = sizeof(span_args) / sizeof(span_args[0]);
		}
	}
	e = add_event(EV_OTHER, 3, 4);
	e->other = (struct ev_other){.name = S("something_else"), .phase = 'M'};
}

static struct lost_counts lost = {.events = 5, .bytes = 640};

static void frame_events(void)
{
	struct event *e = add_event(EV_TRACE_BEGIN, 0, 0);

	e->ts = 0;
	e->begin = (struct ev_trace_begin){
	    .format = S("dltrace-chrome-1"),
	    .version = S("0.1.0"),
	    .kernel = S("6.1.0-13-amd64"),
	    .hostname = S("node07"),
	    .target = S("command train.py \xff"),
	    .layers = S("syscall,mmap,cache,block,uring,vfs"),
	    .layers_off = S("hdf5: library not found"),
	    .clock = S("CLOCK_MONOTONIC"),
	    .start_wall = S("2023-11-14T22:13:20.000000001Z"),
	    .start_mono_ns = 987654321,
	    .start_wall_ns = 1700000000000000001ll,
	    .tracer_pid = 4100,
	};
}

static void end_event(void)
{
	struct event *e = add_event(EV_TRACE_END, 0, 0);

	e->ts = 0;
	lost.by_kind[dl_lost_index(DL_SYS_PREAD64)] = 3;
	lost.by_kind[dl_lost_index(DL_SYS_WRITE)] = 2;
	e->end = (struct ev_trace_end){.events = nevents,
				       .lost = &lost,
				       .lost_events = 5,
				       .lost_bytes = 640,
				       .duration_ns = 200000123,
				       .end_wall_ns = 1700000000200000124ll,
				       .stop_reason = S("signal"),
				       .capped_events = 7,
				       .paths_unknown = 2,
				       .truncated = true};
}

/* ---- the round trips ---- */

static uint64_t event_dur(const struct event *e)
{
	switch (e->type) {
	case EV_SYSCALL:
		return e->sys.dur;
	case EV_VFS:
		return e->vfs.dur;
	case EV_SPAN:
		return e->span.dur;
	default:
		return 0;
	}
}

static uint64_t event_id(const struct event *e)
{
	if (e->type == EV_FORK || e->type == EV_START)
		return e->fork.flow;
	return event_async_id(e);
}

/* event -> head and args -> event_parse, the whole of what the writers and readers share. */
static void args_round_trip(void)
{
	static struct event_parse parse;
	struct text want = {0}, got = {0};

	for (unsigned i = 0; i < nevents; i++) {
		const struct event *e = &events[i];
		struct ev_arg args[EV_ARGS_MAX];
		char scratch[EV_SCRATCH], head_scratch[16];
		struct ev_head h;
		struct event back = {.ts = e->ts, .pid = e->pid, .tid = e->tid};
		unsigned n;

		event_head(e, &h, head_scratch);
		n = event_args(e, args, scratch);
		event_parse(&parse, &back, &h, event_dur(e), event_id(e), args, n);
		describe(&want, e);
		describe(&got, &back);
		if (want.len != got.len || memcmp(want.s, got.s, want.len))
			fail("args round trip of event %u:\n  want %.*s\n  got  %.*s", i,
			     (int)want.len, want.s, (int)got.len, got.s);
	}
	free(want.s);
	free(got.s);
}

/* What a reader gave back, each event as text (its strings live only in the callback). */
struct collector {
	struct event_consumer consumer;
	struct text *texts;
	unsigned n;
};

static void collect(struct event_consumer *c, const struct event *e)
{
	struct collector *col = container_of(c, struct collector, consumer);

	if (col->n < MAX_EXPECTED)
		describe(&col->texts[col->n], e);
	col->n++;
}

static int write_trace(const char *path, enum trace_format f, bool gzip)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	struct output_sink sink;
	struct trace_writer *w;
	struct event_consumer *c;
	const char *tail;
	size_t len;

	if (fd < 0 || sink_init(&sink, fd, gzip, trace_format_gzip_level(f)))
		return -1;
	w = trace_writer__new(f, &sink, 0);
	if (!w)
		return -1;
	c = trace_writer__consumer(w);
	for (unsigned i = 0; i < nevents; i++)
		event_deliver(c, &events[i]);
	tail = trace_writer__tail(w, &len);
	if (sink_close(&sink, tail, len))
		return -1;
	trace_writer__free(w);
	return 0;
}

static void file_round_trip(const char *dir, const char *name, enum trace_format f, bool gzip)
{
	static struct text texts[MAX_EXPECTED];
	struct collector col = {.texts = texts};
	struct trace_read_status st;
	struct text want = {0};
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (write_trace(path, f, gzip)) {
		fail("%s: writing failed", name);
		return;
	}
	event_consumer_init(&col.consumer);
	event_consumer_fill(&col.consumer, collect);
	if (trace_file_read(path, &col.consumer, &st)) {
		fail("%s: reading failed: %s", name, st.error);
		return;
	}
	if (trace_read_truncated(&st) || st.malformed)
		fail("%s: read as damaged (%llu malformed)", name,
		     (unsigned long long)st.malformed);
	if (col.n != nevents)
		fail("%s: %u events back of %u", name, col.n, nevents);
	for (unsigned i = 0; i < nevents && i < col.n; i++) {
		describe(&want, &events[i]);
		if (want.len != texts[i].len || memcmp(want.s, texts[i].s, want.len))
			fail("%s: event %u:\n  want %.*s\n  got  %.*s", name, i, (int)want.len,
			     want.s, (int)texts[i].len, texts[i].s);
	}
	free(want.s);
	unlink(path);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		enum trace_format f;
		bool gzip;
	} files[] = {
	    {"t.json", TRACE_FORMAT_JSON, false},
	    {"t.json.gz", TRACE_FORMAT_JSON, true},
	    {"t.pftrace", TRACE_FORMAT_PFTRACE, false},
	    {"t.pftrace.gz", TRACE_FORMAT_PFTRACE, true},
	};

	if (argc != 2) {
		fprintf(stderr, "usage: event_roundtrip DIR\n");
		return 2;
	}
	frame_events();
	syscall_events();
	process_events();
	layer_events();
	span_events();
	end_event();
	args_round_trip();
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		file_round_trip(argv[1], files[i].name, files[i].f, files[i].gzip);
	printf("%u events, %zu files: %u failed\n", nevents, sizeof(files) / sizeof(files[0]),
	       failures);
	return failures ? 1 : 0;
}
