// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The metadata, hint and sync syscalls (and every kind of fcntl command),
 * each called a known number of times with known arguments, with
 * syscall(2) so that the syscall is not libc's choice.  Each call is
 * logged with the arguments the trace must show for it, exactly:
 *   {"sys":"chown","pid":..,"tid":..,"args":{"ret":0,"path":"/d/m.bin","uid":1234,"gid":5678}}
 * (ret and errno are added from what the call returned).  Calls dltrace
 * must not record (madvise and munmap of anonymous memory) are logged
 * with "anonymous":true and their address.
 *
 * Usage: meta_sequence DIR   (an empty directory, its real absolute path, on a file
 *                             system with user xattrs)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>

/* x86_64 numbers newer than the build machine's headers may be */
#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452
#endif
#ifndef __NR_setxattrat
#define __NR_setxattrat 463
#endif
#ifndef __NR_getxattrat
#define __NR_getxattrat 464
#endif
#ifndef __NR_listxattrat
#define __NR_listxattrat 465
#endif
#ifndef __NR_removexattrat
#define __NR_removexattrat 466
#endif
#ifndef AT_EACCESS
#define AT_EACCESS 0x200
#endif

struct xattr_args { /* setxattrat, getxattrat (linux/xattr.h, 6.13) */
	uint64_t value;
	uint32_t size;
	uint32_t flags;
};

static char dir[PATH_MAX];
static char logbuf[1 << 17];
static size_t loglen;
static pthread_mutex_t loglock = PTHREAD_MUTEX_INITIALIZER;

/* DIR/name (a few buffers in rotation) */
static const char *in_dir(const char *name)
{
	static __thread char bufs[4][PATH_MAX + 64];
	static __thread int next;
	char *b = bufs[next++ & 3];

	snprintf(b, sizeof(bufs[0]), "%s/%s", dir, name);
	return b;
}

/* Log one call; fmt: the JSON members of its args besides ret and errno (may be ""). */
static long logged(const char *sys, long ret, const char *fmt, ...)
{
	char extra[1024] = "", err[48] = "";
	va_list ap;

	if (ret == -1) {
		ret = -errno;
		snprintf(err, sizeof(err), ",\"errno\":\"%s\"", strerrorname_np(-ret));
	}
	va_start(ap, fmt);
	vsnprintf(extra, sizeof(extra), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&loglock);
	loglen += snprintf(logbuf + loglen, sizeof(logbuf) - loglen,
			   "{\"sys\":\"%s\",\"pid\":%d,\"tid\":%ld,\"args\":{\"ret\":%ld%s%s%s}}\n",
			   sys, getpid(), syscall(SYS_gettid), ret < 0 ? -1 : ret, err,
			   *extra ? "," : "", extra);
	pthread_mutex_unlock(&loglock);
	return ret;
}

/* A call that must not be in the trace (anonymous memory). */
static void anonymous(const char *sys, void *addr, long ret)
{
	pthread_mutex_lock(&loglock);
	loglen +=
	    snprintf(logbuf + loglen, sizeof(logbuf) - loglen,
		     "{\"sys\":\"%s\",\"pid\":%d,\"anonymous\":true,\"addr\":\"%p\",\"ret\":%ld}\n",
		     sys, getpid(), addr, ret);
	pthread_mutex_unlock(&loglock);
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void *thread_calls(void *arg)
{
	long fd = (long)arg;
	struct statfs sfs;

	logged("access", syscall(SYS_access, in_dir("m.bin"), (long)W_OK),
	       "\"path\":\"%s\",\"mode\":\"W_OK\"", in_dir("m.bin"));
	logged("fstatfs", syscall(SYS_fstatfs, fd, &sfs), "\"fd\":%ld,\"path\":\"%s\"", fd,
	       in_dir("m.bin"));
	logged("fadvise64", syscall(SYS_fadvise64, fd, 0L, 4096L, (long)POSIX_FADV_NOREUSE),
	       "\"fd\":%ld,\"path\":\"%s\",\"offset\":0,\"size\":4096,\"advice\":"
	       "\"POSIX_FADV_NOREUSE\"",
	       fd, in_dir("m.bin"));
	return NULL;
}

/* fcntl with a struct flock */
static void lock_call(long fd, const char *cmd_name, int cmd, short type, const char *type_name,
		      short whence, const char *whence_name, long start, long len)
{
	struct flock fl = {.l_type = type, .l_whence = whence, .l_start = start, .l_len = len};

	logged("fcntl", syscall(SYS_fcntl, fd, (long)cmd, &fl),
	       "\"fd\":%ld,\"path\":\"%s\",\"cmd\":\"%s\",\"lock\":\"%s\",\"whence\":\"%s\","
	       "\"start\":%ld,\"len\":%ld",
	       fd, in_dir("m.bin"), cmd_name, type_name, whence_name, start, len);
}

static void fcntl_calls(long fd)
{
	const char *m = in_dir("m.bin");

	logged("fcntl", syscall(SYS_fcntl, fd, (long)F_GETFD),
	       "\"fd\":%ld,\"path\":\"%s\",\"cmd\":"
	       "\"F_GETFD\"",
	       fd, m);
	logged("fcntl", syscall(SYS_fcntl, fd, (long)F_SETFD, (long)FD_CLOEXEC),
	       "\"fd\":%ld,\"path\":\"%s\",\"cmd\":\"F_SETFD\",\"arg\":\"FD_CLOEXEC\"", fd, m);
	logged("fcntl", syscall(SYS_fcntl, fd, (long)F_GETFL),
	       "\"fd\":%ld,\"path\":\"%s\",\"cmd\":\"F_GETFL\"", fd, m);
	logged("fcntl", syscall(SYS_fcntl, fd, (long)F_SETFL, (long)(O_APPEND | O_NONBLOCK)),
	       "\"fd\":%ld,\"path\":\"%s\",\"cmd\":\"F_SETFL\",\"arg\":\"O_RDONLY|O_APPEND|"
	       "O_NONBLOCK\"",
	       fd, m);
	logged("fcntl", syscall(SYS_fcntl, fd, (long)F_SETFL, 0L),
	       "\"fd\":%ld,\"path\":\"%s\",\"cmd\":\"F_SETFL\",\"arg\":\"O_RDONLY\"", fd, m);
	lock_call(fd, "F_SETLK", F_SETLK, F_WRLCK, "F_WRLCK", SEEK_SET, "SEEK_SET", 100, 200);
	lock_call(fd, "F_GETLK", F_GETLK, F_RDLCK, "F_RDLCK", SEEK_CUR, "SEEK_CUR", 0, 0);
	lock_call(fd, "F_SETLKW", F_SETLKW, F_UNLCK, "F_UNLCK", SEEK_END, "SEEK_END", -10, 10);
	lock_call(fd, "F_OFD_SETLK", F_OFD_SETLK, F_RDLCK, "F_RDLCK", SEEK_SET, "SEEK_SET", 0, 50);
	logged("fcntl", syscall(SYS_fcntl, fd, (long)F_SETOWN, (long)getpid()),
	       "\"fd\":%ld,\"path\":\"%s\",\"cmd\":\"F_SETOWN\",\"arg\":%d", fd, m, getpid());
	logged("fcntl", syscall(SYS_fcntl, fd, (long)F_GETOWN),
	       "\"fd\":%ld,\"path\":\"%s\",\"cmd\":\"F_GETOWN\"", fd, m);
	logged("fcntl", syscall(SYS_fcntl, fd, (long)F_GETLEASE),
	       "\"fd\":%ld,\"path\":\"%s\",\"cmd\":\"F_GETLEASE\"", fd, m);
	logged("fcntl", syscall(SYS_fcntl, fd, 9999L, 0L),
	       "\"fd\":%ld,\"path\":\"%s\",\"cmd\":\"9999\"", fd, m);
}

static void xattr_calls(long fd, long dirfd)
{
	const char *m = in_dir("m.bin");
	char buf[512], name255[256], name256[257];
	struct xattr_args xa = {.value = (uintptr_t) "abcd", .size = 4, .flags = XATTR_CREATE};
	struct xattr_args xg = {.value = (uintptr_t)buf, .size = 16, .flags = 0};

	logged(
	    "setxattr", syscall(SYS_setxattr, m, "user.dltrace", "value1", 6L, (long)XATTR_CREATE),
	    "\"path\":\"%s\",\"size\":6,\"name\":\"user.dltrace\",\"xattr_flags\":\"XATTR_CREATE\"",
	    m);
	logged("lsetxattr", syscall(SYS_lsetxattr, m, "user.l", "vv", 2L, 0L),
	       "\"path\":\"%s\",\"size\":2,\"name\":\"user.l\"", m);
	logged("fsetxattr", syscall(SYS_fsetxattr, fd, "user.f", "abc", 3L, (long)XATTR_REPLACE),
	       "\"fd\":%ld,\"path\":\"%s\",\"size\":3,\"name\":\"user.f\",\"xattr_flags\":"
	       "\"XATTR_REPLACE\"",
	       fd, m);
	/* the longest name there is (255 bytes), and one byte more: kept to 255 */
	memset(name255, 'n', sizeof(name255));
	memcpy(name255, "user.", 5);
	name255[255] = '\0';
	memcpy(name256, name255, 255);
	name256[255] = 'z';
	name256[256] = '\0';
	logged("setxattr", syscall(SYS_setxattr, m, name255, "x", 1L, 0L),
	       "\"path\":\"%s\",\"size\":1,\"name\":\"%s\"", m, name255);
	logged("setxattr", syscall(SYS_setxattr, m, name256, "x", 1L, 0L),
	       "\"path\":\"%s\",\"size\":1,\"name\":\"%s\"", m, name255);
	logged("getxattr", syscall(SYS_getxattr, m, "user.dltrace", buf, 64L),
	       "\"path\":\"%s\",\"size\":64,\"name\":\"user.dltrace\"", m);
	logged("lgetxattr", syscall(SYS_lgetxattr, m, "user.l", buf, 0L),
	       "\"path\":\"%s\",\"size\":0,\"name\":\"user.l\"", m);
	logged("fgetxattr", syscall(SYS_fgetxattr, fd, "user.missing", buf, 64L),
	       "\"fd\":%ld,\"path\":\"%s\",\"size\":64,\"name\":\"user.missing\"", fd, m);
	logged("listxattr", syscall(SYS_listxattr, m, buf, (long)sizeof(buf)),
	       "\"path\":\"%s\",\"size\":%zu", m, sizeof(buf));
	logged("llistxattr", syscall(SYS_llistxattr, m, buf, 0L), "\"path\":\"%s\",\"size\":0", m);
	logged("flistxattr", syscall(SYS_flistxattr, fd, buf, (long)sizeof(buf)),
	       "\"fd\":%ld,\"path\":\"%s\",\"size\":%zu", fd, m, sizeof(buf));
	logged("removexattr", syscall(SYS_removexattr, m, "user.l"),
	       "\"path\":\"%s\",\"name\":\"user.l\"", m);
	logged("lremovexattr", syscall(SYS_lremovexattr, m, "user.missing"),
	       "\"path\":\"%s\",\"name\":\"user.missing\"", m);
	logged("fremovexattr", syscall(SYS_fremovexattr, fd, name255),
	       "\"fd\":%ld,\"path\":\"%s\",\"name\":\"%s\"", fd, m, name255);
	/* the *xattrat calls (6.13): ENOSYS before */
	logged("setxattrat",
	       syscall(__NR_setxattrat, dirfd, "m.bin", 0L, "user.at", &xa, (long)sizeof(xa)),
	       "\"dirfd\":%ld,\"path\":\"%s\",\"size\":4,\"name\":\"user.at\",\"xattr_flags\":"
	       "\"XATTR_CREATE\"",
	       dirfd, m);
	logged("getxattrat",
	       syscall(__NR_getxattrat, (long)AT_FDCWD, m, (long)AT_SYMLINK_NOFOLLOW, "user.at",
		       &xg, (long)sizeof(xg)),
	       "\"path\":\"%s\",\"size\":16,\"name\":\"user.at\",\"flags\":\"0x100\"", m);
	logged("listxattrat", syscall(__NR_listxattrat, dirfd, "m.bin", 0L, buf, 128L),
	       "\"dirfd\":%ld,\"path\":\"%s\",\"size\":128", dirfd, m);
	logged("removexattrat", syscall(__NR_removexattrat, dirfd, "m.bin", 0L, "user.at"),
	       "\"dirfd\":%ld,\"path\":\"%s\",\"name\":\"user.at\"", dirfd, m);
}

static void mapping_calls(long fd)
{
	const char *m = in_dir("m.bin");
	char *map, *map2, *anon;

	/* a shared mapping of the whole 16 KiB file, and one of its second half */
	map = mmap(NULL, 16384, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	map2 = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE, fd, 8192);
	anon = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED || map2 == MAP_FAILED || anon == MAP_FAILED)
		die("mmap");
	map[0] = 'w';
	logged("madvise", syscall(SYS_madvise, map + 4096, 8192L, (long)MADV_SEQUENTIAL),
	       "\"path\":\"%s\",\"offset\":4096,\"size\":8192,\"advice\":\"MADV_SEQUENTIAL\","
	       "\"addr\":\"%p\"",
	       m, map + 4096);
	logged("madvise", syscall(SYS_madvise, map2, 4096L, (long)MADV_RANDOM),
	       "\"path\":\"%s\",\"offset\":8192,\"size\":4096,\"advice\":\"MADV_RANDOM\","
	       "\"addr\":\"%p\"",
	       m, map2);
	logged("madvise", syscall(SYS_madvise, map, 16384L, (long)MADV_WILLNEED),
	       "\"path\":\"%s\",\"offset\":0,\"size\":16384,\"advice\":\"MADV_WILLNEED\","
	       "\"addr\":\"%p\"",
	       m, map);
	logged("msync", syscall(SYS_msync, map, 16384L, (long)MS_SYNC),
	       "\"path\":\"%s\",\"offset\":0,\"size\":16384,\"flags\":\"MS_SYNC\",\"addr\":\"%p\"",
	       m, map);
	logged("msync", syscall(SYS_msync, map + 8192, 4096L, (long)(MS_ASYNC | MS_INVALIDATE)),
	       "\"path\":\"%s\",\"offset\":8192,\"size\":4096,\"flags\":\"MS_ASYNC|MS_INVALIDATE\","
	       "\"addr\":\"%p\"",
	       m, map + 8192);
	anonymous("madvise", anon, syscall(SYS_madvise, anon, 8192L, (long)MADV_DONTNEED));
	logged("munmap", syscall(SYS_munmap, map + 12288, 4096L),
	       "\"path\":\"%s\",\"offset\":12288,\"size\":4096,\"addr\":\"%p\"", m, map + 12288);
	logged("munmap", syscall(SYS_munmap, map, 12288L),
	       "\"path\":\"%s\",\"offset\":0,\"size\":12288,\"addr\":\"%p\"", m, map);
	logged("munmap", syscall(SYS_munmap, map2, 8192L),
	       "\"path\":\"%s\",\"offset\":8192,\"size\":8192,\"addr\":\"%p\"", m, map2);
	anonymous("munmap", anon, syscall(SYS_munmap, anon, 8192L));
}

int main(int argc, char **argv)
{
	struct timeval tv[2] = {{3, 500000}, {4, 1}}, tv2[2] = {{5, 6}, {7, 8}};
	struct timespec ts[2] = {{9, 123456789}, {10, UTIME_OMIT}},
			ts2[2] = {{0, UTIME_NOW}, {11, 12}};
	struct utimbuf ub = {1000000, 2000000};
	struct statfs sfs;
	pthread_t thread;
	char buf[256], block[16384];
	long fd, dirfd;
	pid_t child;
	int status;

	/* no realpath(): its readlink calls would be in the trace, unlogged */
	if (argc != 2 || argv[1][0] != '/' || strlen(argv[1]) >= sizeof(dir)) {
		fprintf(stderr, "usage: meta_sequence DIR (absolute, no symbolic link)\n");
		return 2;
	}
	strcpy(dir, argv[1]);
	memset(block, 'm', sizeof(block));
	fd = open(in_dir("m.bin"), O_RDWR | O_CREAT | O_TRUNC, 0600);
	dirfd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0 || dirfd < 0 || write(fd, block, sizeof(block)) != sizeof(block))
		die("m.bin");

	/* access */
	logged("access", syscall(SYS_access, in_dir("m.bin"), (long)(R_OK | W_OK)),
	       "\"path\":\"%s\",\"mode\":\"R_OK|W_OK\"", in_dir("m.bin"));
	logged("access", syscall(SYS_access, in_dir("missing"), (long)F_OK),
	       "\"path\":\"%s\",\"mode\":\"F_OK\"", in_dir("missing"));
	logged("faccessat", syscall(SYS_faccessat, dirfd, "m.bin", (long)R_OK),
	       "\"dirfd\":%ld,\"path\":\"%s\",\"mode\":\"R_OK\"", dirfd, in_dir("m.bin"));
	logged("faccessat", syscall(SYS_faccessat, (long)AT_FDCWD, in_dir("m.bin"), (long)F_OK),
	       "\"path\":\"%s\",\"mode\":\"F_OK\"", in_dir("m.bin"));
	logged("faccessat2",
	       syscall(SYS_faccessat2, dirfd, "m.bin", (long)(R_OK | X_OK), (long)AT_EACCESS),
	       "\"dirfd\":%ld,\"path\":\"%s\",\"mode\":\"R_OK|X_OK\",\"flags\":\"0x200\"", dirfd,
	       in_dir("m.bin"));

	/* modes and owners */
	logged("chmod", syscall(SYS_chmod, in_dir("m.bin"), 0640L),
	       "\"path\":\"%s\",\"mode\":\"0640\"", in_dir("m.bin"));
	logged("fchmod", syscall(SYS_fchmod, fd, 0600L),
	       "\"fd\":%ld,\"path\":\"%s\",\"mode\":\"0600\"", fd, in_dir("m.bin"));
	logged("fchmodat", syscall(SYS_fchmodat, dirfd, "m.bin", 0644L),
	       "\"dirfd\":%ld,\"path\":\"%s\",\"mode\":\"0644\"", dirfd, in_dir("m.bin"));
	logged("fchmodat2",
	       syscall(__NR_fchmodat2, (long)AT_FDCWD, in_dir("m.bin"), 0604L,
		       (long)AT_SYMLINK_NOFOLLOW),
	       "\"path\":\"%s\",\"mode\":\"0604\",\"flags\":\"0x100\"", in_dir("m.bin"));
	logged("chown", syscall(SYS_chown, in_dir("m.bin"), 1234L, 5678L),
	       "\"path\":\"%s\",\"uid\":1234,\"gid\":5678", in_dir("m.bin"));
	logged("fchown", syscall(SYS_fchown, fd, -1L, 4321L),
	       "\"fd\":%ld,\"path\":\"%s\",\"uid\":-1,\"gid\":4321", fd, in_dir("m.bin"));

	/* links */
	logged("symlink", syscall(SYS_symlink, "m.bin", in_dir("sym")),
	       "\"path\":\"%s\",\"target\":\"m.bin\"", in_dir("sym"));
	logged("symlinkat", syscall(SYS_symlinkat, "target/with/dirs", dirfd, "sym2"),
	       "\"dirfd\":%ld,\"path\":\"%s\",\"target\":\"target/with/dirs\"", dirfd,
	       in_dir("sym2"));
	logged("lchown", syscall(SYS_lchown, in_dir("sym"), 42L, 43L),
	       "\"path\":\"%s\",\"uid\":42,\"gid\":43", in_dir("sym"));
	logged("fchownat", syscall(SYS_fchownat, dirfd, "m.bin", 0L, 0L, (long)AT_SYMLINK_NOFOLLOW),
	       "\"dirfd\":%ld,\"path\":\"%s\",\"uid\":0,\"gid\":0,\"flags\":\"0x100\"", dirfd,
	       in_dir("m.bin"));
	logged("readlink", syscall(SYS_readlink, in_dir("sym"), buf, 100L),
	       "\"path\":\"%s\",\"size\":100", in_dir("sym"));
	logged("readlinkat", syscall(SYS_readlinkat, dirfd, "sym2", buf, 64L),
	       "\"dirfd\":%ld,\"path\":\"%s\",\"size\":64", dirfd, in_dir("sym2"));
	logged("link", syscall(SYS_link, in_dir("m.bin"), in_dir("hard")),
	       "\"path\":\"%s\",\"new_path\":\"%s\"", in_dir("m.bin"), in_dir("hard"));
	logged("linkat",
	       syscall(SYS_linkat, dirfd, "m.bin", (long)AT_FDCWD, in_dir("hard2"),
		       (long)AT_SYMLINK_FOLLOW),
	       "\"dirfd\":%ld,\"path\":\"%s\",\"new_path\":\"%s\",\"flags\":\"0x400\"", dirfd,
	       in_dir("m.bin"), in_dir("hard2"));
	logged("linkat", syscall(SYS_linkat, dirfd, "m.bin", dirfd, "hard", 0L),
	       "\"dirfd\":%ld,\"path\":\"%s\",\"new_path\":\"%s\"", dirfd, in_dir("m.bin"),
	       in_dir("hard"));
	logged("mknod", syscall(SYS_mknod, in_dir("fifo"), (long)(S_IFIFO | 0644), 0L),
	       "\"path\":\"%s\",\"mode\":\"010644\",\"rdev\":\"0:0\"", in_dir("fifo"));
	logged("mknodat",
	       syscall(SYS_mknodat, dirfd, "chr", (long)(S_IFCHR | 0600), (long)makedev(8, 300)),
	       "\"dirfd\":%ld,\"path\":\"%s\",\"mode\":\"020600\",\"rdev\":\"8:300\"", dirfd,
	       in_dir("chr"));

	/* directories made and removed, names removed */
	logged("mkdir", syscall(SYS_mkdir, in_dir("d1"), 0755L),
	       "\"path\":\"%s\",\"mode\":\"0755\"", in_dir("d1"));
	logged("mkdir", syscall(SYS_mkdir, in_dir("d1"), 0700L),
	       "\"path\":\"%s\",\"mode\":\"0700\"", in_dir("d1"));
	logged("mkdirat", syscall(SYS_mkdirat, dirfd, "d2", 0711L),
	       "\"dirfd\":%ld,\"path\":\"%s\",\"mode\":\"0711\"", dirfd, in_dir("d2"));
	logged("rmdir", syscall(SYS_rmdir, in_dir("d1")), "\"path\":\"%s\"", in_dir("d1"));
	logged("rmdir", syscall(SYS_rmdir, in_dir("m.bin")), "\"path\":\"%s\"", in_dir("m.bin"));
	logged("unlinkat", syscall(SYS_unlinkat, dirfd, "d2", (long)AT_REMOVEDIR),
	       "\"dirfd\":%ld,\"path\":\"%s\",\"flags\":\"0x200\"", dirfd, in_dir("d2"));
	logged("unlink", syscall(SYS_unlink, in_dir("fifo")), "\"path\":\"%s\"", in_dir("fifo"));
	logged("unlink", syscall(SYS_unlink, in_dir("missing")), "\"path\":\"%s\"",
	       in_dir("missing"));
	logged("unlinkat", syscall(SYS_unlinkat, dirfd, "chr", 0L), "\"dirfd\":%ld,\"path\":\"%s\"",
	       dirfd, in_dir("chr"));

	/* legacy stats; copies of a descriptor, and a range of them closed */
	{
		struct stat st;

		logged("stat", syscall(SYS_stat, in_dir("m.bin"), &st), "\"path\":\"%s\"",
		       in_dir("m.bin"));
		logged("stat", syscall(SYS_stat, in_dir("missing"), &st), "\"path\":\"%s\"",
		       in_dir("missing"));
		logged("lstat", syscall(SYS_lstat, in_dir("sym"), &st), "\"path\":\"%s\"",
		       in_dir("sym"));
	}
	logged("dup2", syscall(SYS_dup2, fd, 60L), "\"fd\":%ld,\"path\":\"%s\",\"newfd\":60", fd,
	       in_dir("m.bin"));
	logged("dup3", syscall(SYS_dup3, fd, 61L, (long)O_CLOEXEC),
	       "\"fd\":%ld,\"path\":\"%s\",\"newfd\":61,\"flags\":\"O_CLOEXEC\"", fd,
	       in_dir("m.bin"));
	logged("close_range", syscall(SYS_close_range, 60L, 61L, 0L), "\"fd\":60,\"last\":61");
	{
		long copy = logged("dup", syscall(SYS_dup, fd), "\"fd\":%ld,\"path\":\"%s\"", fd,
				   in_dir("m.bin"));

		close(copy);
	}

	/* renames: the link made above, from name to name */
	logged("renameat", syscall(SYS_renameat, dirfd, "hard2", (long)AT_FDCWD, in_dir("hard3")),
	       "\"dirfd\":%ld,\"path\":\"%s\",\"new_path\":\"%s\"", dirfd, in_dir("hard2"),
	       in_dir("hard3"));
	logged("renameat2", syscall(SYS_renameat2, dirfd, "hard3", dirfd, "m.bin", 1L),
	       "\"dirfd\":%ld,\"path\":\"%s\",\"new_path\":\"%s\",\"flags\":\"0x1\"", dirfd,
	       in_dir("hard3"), in_dir("m.bin"));
	logged("renameat2",
	       syscall(SYS_renameat2, (long)AT_FDCWD, in_dir("hard3"), dirfd, "hard4", 0L),
	       "\"path\":\"%s\",\"new_path\":\"%s\"", in_dir("hard3"), in_dir("hard4"));
	logged("rename", syscall(SYS_rename, in_dir("hard4"), in_dir("hard5")),
	       "\"path\":\"%s\",\"new_path\":\"%s\"", in_dir("hard4"), in_dir("hard5"));

	/* times */
	logged("utime", syscall(SYS_utime, in_dir("m.bin"), &ub),
	       "\"path\":\"%s\",\"atime\":\"1000000.000000000\",\"mtime\":\"2000000.000000000\"",
	       in_dir("m.bin"));
	logged("utime", syscall(SYS_utime, in_dir("m.bin"), NULL),
	       "\"path\":\"%s\",\"atime\":\"UTIME_NOW\",\"mtime\":\"UTIME_NOW\"", in_dir("m.bin"));
	logged("utimes", syscall(SYS_utimes, in_dir("m.bin"), tv),
	       "\"path\":\"%s\",\"atime\":\"3.500000000\",\"mtime\":\"4.000001000\"",
	       in_dir("m.bin"));
	logged("futimesat", syscall(SYS_futimesat, dirfd, "m.bin", tv2),
	       "\"dirfd\":%ld,\"path\":\"%s\",\"atime\":\"5.000006000\",\"mtime\":\"7.000008000\"",
	       dirfd, in_dir("m.bin"));
	logged("utimensat", syscall(SYS_utimensat, (long)AT_FDCWD, in_dir("m.bin"), ts, 0L),
	       "\"path\":\"%s\",\"atime\":\"9.123456789\",\"mtime\":\"UTIME_OMIT\"",
	       in_dir("m.bin"));
	logged("utimensat", syscall(SYS_utimensat, fd, NULL, NULL, 0L),
	       "\"dirfd\":%ld,\"path\":\"%s\",\"atime\":\"UTIME_NOW\",\"mtime\":\"UTIME_NOW\"", fd,
	       in_dir("m.bin"));
	logged("utimensat", syscall(SYS_utimensat, dirfd, "sym", ts2, (long)AT_SYMLINK_NOFOLLOW),
	       "\"dirfd\":%ld,\"path\":\"%s\",\"atime\":\"UTIME_NOW\",\"mtime\":\"11.000000012\","
	       "\"flags\":\"0x100\"",
	       dirfd, in_dir("sym"));
	logged("truncate", syscall(SYS_truncate, in_dir("hard"), 16384L),
	       "\"path\":\"%s\",\"length\":16384", in_dir("hard"));

	xattr_calls(fd, dirfd);

	/* file systems and directories */
	logged("statfs", syscall(SYS_statfs, dir, &sfs), "\"path\":\"%s\"", dir);
	logged("fstatfs", syscall(SYS_fstatfs, fd, &sfs), "\"fd\":%ld,\"path\":\"%s\"", fd,
	       in_dir("m.bin"));
	logged("chdir", syscall(SYS_chdir, dir), "\"path\":\"%s\"", dir);
	/* relative to the new working directory */
	logged("access", syscall(SYS_access, "m.bin", (long)F_OK),
	       "\"path\":\"%s\",\"mode\":\"F_OK\"", in_dir("m.bin"));
	logged("fchdir", syscall(SYS_fchdir, dirfd), "\"fd\":%ld,\"path\":\"%s\"", dirfd, dir);

	/* locks, hints, syncs */
	logged("flock", syscall(SYS_flock, fd, (long)(LOCK_EX | LOCK_NB)),
	       "\"fd\":%ld,\"path\":\"%s\",\"operation\":\"LOCK_EX|LOCK_NB\"", fd, in_dir("m.bin"));
	logged("flock", syscall(SYS_flock, fd, (long)LOCK_UN),
	       "\"fd\":%ld,\"path\":\"%s\",\"operation\":\"LOCK_UN\"", fd, in_dir("m.bin"));
	logged("fadvise64", syscall(SYS_fadvise64, fd, 4096L, 8192L, (long)POSIX_FADV_WILLNEED),
	       "\"fd\":%ld,\"path\":\"%s\",\"offset\":4096,\"size\":8192,\"advice\":"
	       "\"POSIX_FADV_WILLNEED\"",
	       fd, in_dir("m.bin"));
	logged("fadvise64", syscall(SYS_fadvise64, fd, 0L, 0L, (long)POSIX_FADV_DONTNEED),
	       "\"fd\":%ld,\"path\":\"%s\",\"offset\":0,\"size\":0,\"advice\":"
	       "\"POSIX_FADV_DONTNEED\"",
	       fd, in_dir("m.bin"));
	logged("ftruncate", syscall(SYS_ftruncate, fd, 16384L),
	       "\"fd\":%ld,\"path\":\"%s\",\"length\":16384", fd, in_dir("m.bin"));
	logged("fallocate", syscall(SYS_fallocate, fd, 0L, 4096L, 8192L),
	       "\"fd\":%ld,\"path\":\"%s\",\"offset\":4096,\"size\":8192", fd, in_dir("m.bin"));
	logged("fallocate", syscall(SYS_fallocate, fd, 99L, 0L, 4096L),
	       "\"fd\":%ld,\"path\":\"%s\",\"offset\":0,\"size\":4096,\"mode\":99", fd,
	       in_dir("m.bin"));
	logged("fsync", syscall(SYS_fsync, fd), "\"fd\":%ld,\"path\":\"%s\"", fd, in_dir("m.bin"));
	logged("fdatasync", syscall(SYS_fdatasync, fd), "\"fd\":%ld,\"path\":\"%s\"", fd,
	       in_dir("m.bin"));
	logged("sync_file_range", syscall(SYS_sync_file_range, fd, 0L, 4096L, 2L),
	       "\"fd\":%ld,\"path\":\"%s\",\"offset\":0,\"size\":4096,\"flags\":2", fd,
	       in_dir("m.bin"));
	{
		char dents[4096];

		logged("getdents64", syscall(SYS_getdents64, dirfd, dents, (long)sizeof(dents)),
		       "\"fd\":%ld,\"path\":\"%s\",\"size\":%zu", dirfd, dir, sizeof(dents));
	}
	logged("readahead", syscall(SYS_readahead, fd, 0L, 16384L),
	       "\"fd\":%ld,\"path\":\"%s\",\"offset\":0,\"size\":16384", fd, in_dir("m.bin"));
	logged("cachestat", syscall(451, fd, (uint64_t[2]){4096, 8192}, (uint64_t[5]){0}, 0L),
	       "\"fd\":%ld,\"path\":\"%s\",\"offset\":4096,\"size\":8192", fd, in_dir("m.bin"));
	mapping_calls(fd);
	logged("sync", syscall(SYS_sync), "");
	logged("syncfs", syscall(SYS_syncfs, fd), "\"fd\":%ld,\"path\":\"%s\"", fd,
	       in_dir("m.bin"));

	fcntl_calls(fd);

	/* a thread and a child process */
	if (pthread_create(&thread, NULL, thread_calls, (void *)fd))
		die("pthread_create");
	pthread_join(thread, NULL);
	fflush(stdout);
	child = fork();
	if (child == 0) {
		loglen = 0;
		logged("fchmod", syscall(SYS_fchmod, fd, 0444L),
		       "\"fd\":%ld,\"path\":\"%s\",\"mode\":\"0444\"", fd, in_dir("m.bin"));
		logged("syncfs", syscall(SYS_syncfs, fd), "\"fd\":%ld,\"path\":\"%s\"", fd,
		       in_dir("m.bin"));
		fwrite(logbuf, 1, loglen, stdout);
		fflush(stdout);
		_exit(0);
	}
	waitpid(child, &status, 0);
	close(fd);
	close(dirfd);
	fwrite(logbuf, 1, loglen, stdout);
	return 0;
}
