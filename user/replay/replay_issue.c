// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One recorded call, issued again: the same syscall (through syscall(2),
 * since libc turns stat into newfstatat, open into openat, ...), with the
 * recorded flags, sizes and offsets, on the replayed path or on the
 * descriptor the replay's own open of the recorded one returned.
 *
 * Descriptors: the replay process keeps, per recorded descriptor, the one
 * it really has (fds[]); a fork copies the table with the process, as the
 * kernel copies the job's.  dup2/dup3 onto a recorded number the replay
 * has no descriptor for use fd_base + that number, above what the replay
 * opens itself.  Mappings: maps[] holds where the replay mapped each mmap.
 */
#define _GNU_SOURCE
#include "replay/replay_issue.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>
#include <utime.h>
#include <linux/openat2.h>

#include "event/syscall_table.h"

#ifndef STATX_BASIC_STATS
#define STATX_BASIC_STATS 0x7ffU
#endif
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
#ifndef UTIME_NOW
#define UTIME_NOW ((1l << 30) - 1l)
#endif

static __thread sigjmp_buf bus_jump;
static __thread volatile sig_atomic_t touching;

static void on_bus(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	if (touching) {
		touching = 0;
		siglongjmp(bus_jump, 1);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

void rp_issue_init_process(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_bus;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGBUS, &sa, NULL);
}

static int64_t result(long r)
{
	return r < 0 ? -(int64_t)errno : (int64_t)r;
}

static int real_fd(const struct rp_issue_ctx *c, int32_t fd)
{
	return fd >= 0 && (uint32_t)fd < c->nfds ? c->fds[fd] : -1;
}

static void set_fd(struct rp_issue_ctx *c, int64_t recorded, long real)
{
	if (recorded >= 0 && (uint64_t)recorded < c->nfds)
		c->fds[recorded] = real >= 0 ? (int)real : -1;
}

/* A path kind's path; "" for a call on a descriptor. */
static const char *path_of(const struct replay_plan *p, uint32_t file)
{
	return file == RP_NONE ? "" : rp_str(p, p->files[file].replay);
}

static size_t bufsize(const struct rp_issue_ctx *c, uint64_t size)
{
	return size < c->buf_size ? (size_t)size : c->buf_size;
}

/* The replay's address of a recorded address (or of a file offset: by_offset) in a mapping. */
static uint8_t *map_addr(const struct replay_plan *p, const struct rp_issue_ctx *c, uint32_t slot,
			 uint64_t v, bool by_offset, uint64_t *room)
{
	const struct rp_mapping *m;
	uint64_t d;

	if (slot == RP_NONE || slot >= p->nmaps || !c->maps[slot])
		return NULL;
	m = &p->maps[slot];
	if (by_offset) {
		if (v < m->off)
			return NULL;
		d = v - m->off;
	} else {
		if (v < m->addr)
			return NULL;
		d = v - m->addr;
	}
	if (d >= m->len)
		return NULL;
	*room = m->len - d;
	return c->maps[slot] + d;
}

/* A page fault again: a byte of the page read (and written back, for a write fault). */
static int64_t touch(const struct replay_plan *p, const struct rp_op *o, struct rp_issue_ctx *c)
{
	uint64_t room;
	volatile uint8_t *a = map_addr(p, c, o->map, o->offset, true, &room);

	if (!a)
		return -EFAULT;
	if (sigsetjmp(bus_jump, 1)) {
		c->faults_bus++;
		return -EFAULT;
	}
	touching = 1;
	if (o->flags & RPO_WRITE)
		*a = *a;
	else
		(void)*a;
	touching = 0;
	return 0;
}

static int64_t issue_fcntl(const struct rp_op *o, struct rp_issue_ctx *c, int fd)
{
	uint32_t cmd = o->arg_lo, arg = o->arg_hi;
	long r;

	switch (fcntl_arg_of(cmd)) {
	case FCNTL_ARG_DUP: /* the recorded lowest number: above it lies the replay's too */
		r = syscall(SYS_fcntl, fd, cmd, (long)arg);
		if (o->ret >= 0)
			set_fd(c, o->ret, r);
		return result(r);
	case FCNTL_ARG_FD_FLAGS:
	case FCNTL_ARG_FILE_FLAGS:
	case FCNTL_ARG_INT:
		return result(syscall(SYS_fcntl, fd, cmd, (long)(int32_t)arg));
	case FCNTL_ARG_LOCK: {
		struct flock fl = {.l_type = (short)(arg & 0xffff),
				   .l_whence = (short)(arg >> 16),
				   .l_start = (off_t)o->offset,
				   .l_len = (off_t)o->size};

		return result(syscall(SYS_fcntl, fd, cmd, &fl));
	}
	case FCNTL_ARG_NONE:
		return result(syscall(SYS_fcntl, fd, cmd, 0));
	default:
		return RP_NOT_ISSUED;
	}
}

static int64_t issue_utime(const struct replay_plan *p, const struct rp_op *o, const char *path,
			   int fd)
{
	const struct ev_times *t = o->times < p->ntimes ? &p->times[o->times] : NULL;
	bool now = !t || (t->nsec[0] == UTIME_NOW && t->nsec[1] == UTIME_NOW);

	switch (o->sys) {
	case DL_SYS_UTIME: {
		struct utimbuf b = {t ? t->sec[0] : 0, t ? t->sec[1] : 0};

		return result(syscall(SYS_utime, path, now ? NULL : &b));
	}
	case DL_SYS_UTIMES:
	case DL_SYS_FUTIMESAT: {
		struct timeval tv[2] = {{t ? t->sec[0] : 0, t ? t->nsec[0] / 1000 : 0},
					{t ? t->sec[1] : 0, t ? t->nsec[1] / 1000 : 0}};

		if (o->sys == DL_SYS_UTIMES)
			return result(syscall(SYS_utimes, path, now ? NULL : tv));
		return result(syscall(SYS_futimesat, AT_FDCWD, path, now ? NULL : tv));
	}
	default: { /* utimensat */
		struct timespec ts[2] = {{t ? t->sec[0] : 0, t ? t->nsec[0] : UTIME_NOW},
					 {t ? t->sec[1] : 0, t ? t->nsec[1] : UTIME_NOW}};

		if (o->flags & RPO_BY_FD)
			return result(syscall(SYS_utimensat, fd, NULL, now ? NULL : ts, 0));
		return result(syscall(SYS_utimensat, AT_FDCWD, path, now ? NULL : ts, o->at_flags));
	}
	}
}

#define ACL_ENTRIES_MAX 32

/*
 * The trace has an xattr's size, not its value: zeros do for most, but a
 * POSIX ACL's value is checked, so a valid ACL of the recorded size stands
 * in (owner, named users, group, mask, others: what cp -a and tar set).
 */
static bool acl_value(const char *name, size_t size, uint8_t *out, size_t cap)
{
	static const uint16_t tags[] = {0x01, 0x04, 0x10, 0x20}; /* USER_OBJ GROUP_OBJ MASK OTHER */
	size_t n, users, k = 0;

	if (strcmp(name, "system.posix_acl_access") && strcmp(name, "system.posix_acl_default"))
		return false;
	if (size < 4 + 3 * 8 || (size - 4) % 8 || size > cap)
		return false;
	n = (size - 4) / 8;
	users = n > 4 ? n - 4 : 0;
	memset(out, 0, size);
	out[0] = 2; /* POSIX_ACL_XATTR_VERSION, little endian */
	for (size_t i = 0; i < n; i++) {
		uint16_t tag, perm = 6;
		uint32_t id = 0xffffffffu;
		uint8_t *e = out + 4 + 8 * i;

		if (i == 0)
			tag = tags[0];
		else if (i <= users) {
			tag = 0x02; /* USER, ids 1, 2, ... */
			id = (uint32_t)i;
		} else {
			k++;
			tag = n == 3 && k == 2 ? tags[3] : tags[k];
		}
		e[0] = tag & 0xff;
		e[1] = tag >> 8;
		e[2] = perm & 0xff;
		e[3] = perm >> 8;
		memcpy(e + 4, &id, 4);
	}
	return true;
}

int64_t rp_issue(const struct replay_plan *p, const struct rp_op *o, struct rp_issue_ctx *c)
{
	const char *path = path_of(p, o->file), *path2 = path_of(p, o->file2);
	const char *text = o->text == RP_NONE ? "" : rp_str(p, o->text);
	int fd = real_fd(c, o->fd);
	void *buf = c->buf;
	size_t n = bufsize(c, o->size);
	struct iovec iov;
	struct stat stt;
	long r;

	if (o->type == RP_OP_FAULT)
		return touch(p, o, c);
	switch (o->sys) {
		/* opens: the replay's descriptor stands for the recorded one */
#ifdef SYS_open
	case DL_SYS_OPEN:
		r = syscall(SYS_open, path, o->arg_lo, o->arg_hi);
		break;
#endif
	case DL_SYS_OPENAT:
		r = syscall(SYS_openat, AT_FDCWD, path, o->arg_lo, o->arg_hi);
		break;
#ifdef SYS_openat2
	case DL_SYS_OPENAT2: {
		struct open_how how = {.flags = o->arg_lo};

		if ((o->arg_lo & O_CREAT) || (o->arg_lo & O_TMPFILE) == O_TMPFILE)
			how.mode = o->arg_hi;
		r = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
		break;
	}
#endif
#ifdef SYS_creat
	case DL_SYS_CREAT:
		r = syscall(SYS_creat, path, o->arg_hi);
		break;
#endif
	case DL_SYS_CLOSE:
		r = syscall(SYS_close, fd);
		set_fd(c, o->fd, -1);
		return result(r);
	case DL_SYS_READ:
		return result(syscall(SYS_read, fd, buf, n));
	case DL_SYS_PREAD64:
		return result(syscall(SYS_pread64, fd, buf, n, (off_t)o->offset));
	case DL_SYS_READV:
	case DL_SYS_PREADV:
	case DL_SYS_PREADV2:
	case DL_SYS_WRITEV:
	case DL_SYS_PWRITEV:
	case DL_SYS_PWRITEV2:
		iov.iov_base =
		    (o->sys == DL_SYS_READV || o->sys == DL_SYS_PREADV || o->sys == DL_SYS_PREADV2)
			? buf
			: (void *)c->zero;
		iov.iov_len =
		    iov.iov_base == buf ? n : (o->size < c->zero_size ? o->size : c->zero_size);
		switch (o->sys) {
		case DL_SYS_READV:
			return result(syscall(SYS_readv, fd, &iov, 1));
		case DL_SYS_WRITEV:
			return result(syscall(SYS_writev, fd, &iov, 1));
		case DL_SYS_PREADV:
			return result(
			    syscall(SYS_preadv, fd, &iov, 1, (unsigned long)o->offset, 0));
		case DL_SYS_PWRITEV:
			return result(
			    syscall(SYS_pwritev, fd, &iov, 1, (unsigned long)o->offset, 0));
		case DL_SYS_PREADV2:
			return result(
			    syscall(SYS_preadv2, fd, &iov, 1, (unsigned long)o->offset, 0, 0));
		default:
			return result(
			    syscall(SYS_pwritev2, fd, &iov, 1, (unsigned long)o->offset, 0, 0));
		}
	case DL_SYS_WRITE:
		return result(syscall(SYS_write, fd, c->zero,
				      o->size < c->zero_size ? o->size : c->zero_size));
	case DL_SYS_PWRITE64:
		return result(syscall(SYS_pwrite64, fd, c->zero,
				      o->size < c->zero_size ? o->size : c->zero_size,
				      (off_t)o->offset));
	case DL_SYS_LSEEK:
		return result(syscall(SYS_lseek, fd, (off_t)o->offset, o->arg_lo));
	case DL_SYS_FSYNC:
		return result(syscall(SYS_fsync, fd));
	case DL_SYS_FDATASYNC:
		return result(syscall(SYS_fdatasync, fd));
	case DL_SYS_SYNC_FILE_RANGE:
		return result(syscall(SYS_sync_file_range, fd, (off_t)o->offset, (off_t)o->size,
				      (unsigned)o->arg_lo));
	case DL_SYS_MMAP: {
		/* anywhere: the recorded address is the job's, not free here */
		void *a = (void *)syscall(SYS_mmap, NULL, (size_t)o->size, (int)o->arg_lo,
					  (int)(o->arg_hi & ~(MAP_FIXED | MAP_FIXED_NOREPLACE)), fd,
					  (off_t)o->offset);

		if (a == MAP_FAILED)
			return -(int64_t)errno;
		if (o->map != RP_NONE && o->map < p->nmaps)
			c->maps[o->map] = a;
		return (int64_t)(uintptr_t)a;
	}
#ifdef SYS_stat
	case DL_SYS_STAT:
		return result(syscall(SYS_stat, path, &stt));
	case DL_SYS_LSTAT:
		return result(syscall(SYS_lstat, path, &stt));
#endif
	case DL_SYS_FSTAT:
		return result(syscall(SYS_fstat, fd, &stt));
	case DL_SYS_NEWFSTATAT:
		if (o->flags & RPO_BY_FD)
			return result(syscall(SYS_newfstatat, fd, "", &stt, o->at_flags));
		return result(syscall(SYS_newfstatat, AT_FDCWD, path, &stt, o->at_flags));
	case DL_SYS_STATX: {
		char stx[256];

		if (o->flags & RPO_BY_FD)
			return result(
			    syscall(SYS_statx, fd, "", o->at_flags, STATX_BASIC_STATS, stx));
		return result(
		    syscall(SYS_statx, AT_FDCWD, path, o->at_flags, STATX_BASIC_STATS, stx));
	}
	case DL_SYS_GETDENTS64:
		return result(syscall(SYS_getdents64, fd, buf, n));
#ifdef SYS_unlink
	case DL_SYS_UNLINK:
		return result(syscall(SYS_unlink, path));
	case DL_SYS_RENAME:
		return result(syscall(SYS_rename, path, path2));
	case DL_SYS_MKDIR:
		return result(syscall(SYS_mkdir, path, o->arg_hi));
	case DL_SYS_RMDIR:
		return result(syscall(SYS_rmdir, path));
#endif
	case DL_SYS_UNLINKAT:
		return result(syscall(SYS_unlinkat, AT_FDCWD, path, o->at_flags));
	case DL_SYS_RENAMEAT:
		return result(syscall(SYS_renameat, AT_FDCWD, path, AT_FDCWD, path2));
	case DL_SYS_RENAMEAT2:
		return result(syscall(SYS_renameat2, AT_FDCWD, path, AT_FDCWD, path2, o->at_flags));
	case DL_SYS_MKDIRAT:
		return result(syscall(SYS_mkdirat, AT_FDCWD, path, o->arg_hi));
	case DL_SYS_FTRUNCATE:
		return result(syscall(SYS_ftruncate, fd, (off_t)o->offset));
	case DL_SYS_TRUNCATE:
		return result(syscall(SYS_truncate, path, (off_t)o->offset));
	case DL_SYS_FALLOCATE:
		return result(
		    syscall(SYS_fallocate, fd, (int)o->arg_lo, (off_t)o->offset, (off_t)o->size));
	case DL_SYS_DUP:
		r = syscall(SYS_dup, fd);
		if (o->ret >= 0)
			set_fd(c, o->ret, r);
		return result(r);
	case DL_SYS_DUP2:
	case DL_SYS_DUP3: {
		int target = real_fd(c, o->fd2);

		if (target < 0)
			target = c->fd_base + o->fd2;
		if (o->sys == DL_SYS_DUP2)
			r = syscall(SYS_dup2, fd, target);
		else
			r = syscall(SYS_dup3, fd, target, o->arg_hi ? O_CLOEXEC : 0);
		if (o->ret >= 0)
			set_fd(c, o->ret, r);
		return result(r);
	}
	case DL_SYS_FCNTL:
		return issue_fcntl(o, c, fd);
	/*
	 * The input's offset as recorded, given explicitly: exact whether the job
	 * passed it or used the file position (which then does not move here).
	 */
	case DL_SYS_SENDFILE: {
		off_t off = (off_t)o->offset;

		return result(syscall(SYS_sendfile, real_fd(c, o->fd2), fd, &off, (size_t)o->size));
	}
	case DL_SYS_COPY_FILE_RANGE: {
		loff_t off = (loff_t)o->offset;

		return result(syscall(SYS_copy_file_range, fd, &off, real_fd(c, o->fd2), NULL,
				      (size_t)o->size, 0));
	}
#ifdef SYS_access
	case DL_SYS_ACCESS:
		return result(syscall(SYS_access, path, o->arg_lo));
	case DL_SYS_CHMOD:
		return result(syscall(SYS_chmod, path, o->arg_lo));
	case DL_SYS_CHOWN:
		return result(syscall(SYS_chown, path, (int32_t)o->arg_lo, (int32_t)o->arg_hi));
	case DL_SYS_LCHOWN:
		return result(syscall(SYS_lchown, path, (int32_t)o->arg_lo, (int32_t)o->arg_hi));
	case DL_SYS_LINK:
		return result(syscall(SYS_link, path, path2));
	case DL_SYS_SYMLINK:
		return result(syscall(SYS_symlink, text, path));
	case DL_SYS_READLINK:
		return result(syscall(SYS_readlink, path, buf, n));
	case DL_SYS_MKNOD:
		return result(syscall(SYS_mknod, path, o->arg_hi, o->arg_lo));
#endif
	case DL_SYS_FACCESSAT:
		return result(syscall(SYS_faccessat, AT_FDCWD, path, o->arg_lo));
#ifdef SYS_faccessat2
	case DL_SYS_FACCESSAT2:
		if (o->flags & RPO_BY_FD)
			return result(syscall(SYS_faccessat2, fd, "", o->arg_lo, o->at_flags));
		return result(syscall(SYS_faccessat2, AT_FDCWD, path, o->arg_lo, o->at_flags));
#endif
	case DL_SYS_FCHMOD:
		return result(syscall(SYS_fchmod, fd, o->arg_lo));
	case DL_SYS_FCHMODAT:
		return result(syscall(SYS_fchmodat, AT_FDCWD, path, o->arg_lo));
#ifdef SYS_fchmodat2
	case DL_SYS_FCHMODAT2:
		if (o->flags & RPO_BY_FD)
			return result(syscall(SYS_fchmodat2, fd, "", o->arg_lo, o->at_flags));
		return result(syscall(SYS_fchmodat2, AT_FDCWD, path, o->arg_lo, o->at_flags));
#endif
	case DL_SYS_FCHOWN:
		return result(syscall(SYS_fchown, fd, (int32_t)o->arg_lo, (int32_t)o->arg_hi));
	case DL_SYS_FCHOWNAT:
		if (o->flags & RPO_BY_FD)
			return result(syscall(SYS_fchownat, fd, "", (int32_t)o->arg_lo,
					      (int32_t)o->arg_hi, o->at_flags));
		return result(syscall(SYS_fchownat, AT_FDCWD, path, (int32_t)o->arg_lo,
				      (int32_t)o->arg_hi, o->at_flags));
	case DL_SYS_UTIME:
	case DL_SYS_UTIMES:
	case DL_SYS_FUTIMESAT:
	case DL_SYS_UTIMENSAT:
		return issue_utime(p, o, path, fd);
	case DL_SYS_LINKAT:
		if (o->flags & RPO_BY_FD)
			return result(syscall(SYS_linkat, fd, "", AT_FDCWD, path2, o->at_flags));
		return result(syscall(SYS_linkat, AT_FDCWD, path, AT_FDCWD, path2, o->at_flags));
	case DL_SYS_SYMLINKAT:
		return result(syscall(SYS_symlinkat, text, AT_FDCWD, path));
	case DL_SYS_READLINKAT:
		return result(syscall(SYS_readlinkat, AT_FDCWD, path, buf, n));
	case DL_SYS_MKNODAT:
		return result(syscall(SYS_mknodat, AT_FDCWD, path, o->arg_hi, o->arg_lo));
	case DL_SYS_SETXATTR:
	case DL_SYS_LSETXATTR:
	case DL_SYS_FSETXATTR: {
		size_t vn = o->size < c->zero_size ? o->size : c->zero_size;
		uint8_t acl[4 + 8 * ACL_ENTRIES_MAX];
		const void *v = acl_value(text, vn, acl, sizeof(acl)) ? acl : c->zero;

		if (o->sys == DL_SYS_FSETXATTR)
			return result(syscall(SYS_fsetxattr, fd, text, v, vn, o->arg_lo));
		return result(syscall(o->sys == DL_SYS_SETXATTR ? SYS_setxattr : SYS_lsetxattr,
				      path, text, v, vn, o->arg_lo));
	}
	case DL_SYS_GETXATTR:
		return result(syscall(SYS_getxattr, path, text, buf, n));
	case DL_SYS_LGETXATTR:
		return result(syscall(SYS_lgetxattr, path, text, buf, n));
	case DL_SYS_FGETXATTR:
		return result(syscall(SYS_fgetxattr, fd, text, buf, n));
	case DL_SYS_LISTXATTR:
		return result(syscall(SYS_listxattr, path, buf, n));
	case DL_SYS_LLISTXATTR:
		return result(syscall(SYS_llistxattr, path, buf, n));
	case DL_SYS_FLISTXATTR:
		return result(syscall(SYS_flistxattr, fd, buf, n));
	case DL_SYS_REMOVEXATTR:
		return result(syscall(SYS_removexattr, path, text));
	case DL_SYS_LREMOVEXATTR:
		return result(syscall(SYS_lremovexattr, path, text));
	case DL_SYS_FREMOVEXATTR:
		return result(syscall(SYS_fremovexattr, fd, text));
	case DL_SYS_STATFS: {
		char sb[256];

		return result(syscall(SYS_statfs, path, sb));
	}
	case DL_SYS_FSTATFS: {
		char sb[256];

		return result(syscall(SYS_fstatfs, fd, sb));
	}
	case DL_SYS_CHDIR:
		return result(syscall(SYS_chdir, path));
	case DL_SYS_FCHDIR:
		return result(syscall(SYS_fchdir, fd));
	case DL_SYS_FLOCK:
		return result(syscall(SYS_flock, fd, o->arg_lo));
	case DL_SYS_FADVISE64:
		return result(
		    syscall(SYS_fadvise64, fd, (off_t)o->offset, (off_t)o->size, o->arg_lo));
	case DL_SYS_READAHEAD:
		return result(syscall(SYS_readahead, fd, (off_t)o->offset, (size_t)o->size));
	case DL_SYS_SYNCFS:
		return result(syscall(SYS_syncfs, fd));
	case DL_SYS_MUNMAP:
	case DL_SYS_MADVISE:
	case DL_SYS_MSYNC: {
		uint64_t room, len;
		uint8_t *a = map_addr(p, c, o->map, o->addr, false, &room);

		if (!a)
			return RP_NOT_ISSUED;
		len = o->size < room ? o->size : room;
		if (o->sys == DL_SYS_MUNMAP)
			r = syscall(SYS_munmap, a, (size_t)len);
		else if (o->sys == DL_SYS_MADVISE)
			r = syscall(SYS_madvise, a, (size_t)len, o->arg_lo);
		else
			r = syscall(SYS_msync, a, (size_t)len, o->arg_lo);
		if (o->sys == DL_SYS_MUNMAP && r == 0 && a == c->maps[o->map] && len == room)
			c->maps[o->map] = NULL;
		return result(r);
	}
	default:
		return RP_NOT_ISSUED;
	}
	/* the opens */
	if (o->ret >= 0)
		set_fd(c, o->ret, r);
	return result(r);
}
