// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A known sequence of file syscalls for the tests.  Every call is made with
 * syscall(2) so that the syscall the trace must show is not up to libc,
 * and every call is logged with what the program itself passed and got
 * back.  At the end the log is printed on stdout as JSON lines:
 *   {"sys":"pread64","pid":..,"tid":..,"fd":3,"path":"/d/a.bin","offset":8192,"size":4096,"ret":4096}
 * The test compares the trace with this log, field by field.
 * Arguments that may land on the stack are passed as long: there an int
 * leaves the upper half of the syscall argument undefined (the trace shows
 * exactly what the kernel received).
 *
 * Usage: io_sequence DIR HELPER   (HELPER: the exec'd helper program)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <linux/stat.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[1024];
static char logbuf[1 << 16];
static size_t loglen;
static pthread_mutex_t loglock = PTHREAD_MUTEX_INITIALIZER;

static const char *in_dir(const char *name)
{
	static __thread char bufs[4][2048];
	static __thread int next;
	char *b = bufs[next++ & 3];

	snprintf(b, sizeof(bufs[0]), "%s/%s", dir, name);
	return b;
}

/* Log one call.  extra: more JSON members (without leading comma) or "". */
static long logged(const char *sys, long fd, const char *path, long long offset, long long size,
		   long ret, const char *fmt, ...)
{
	char extra[512] = "";
	va_list ap;

	if (ret == -1)
		ret = -errno;
	va_start(ap, fmt);
	vsnprintf(extra, sizeof(extra), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&loglock);
	loglen +=
	    snprintf(logbuf + loglen, sizeof(logbuf) - loglen,
		     "{\"sys\":\"%s\",\"pid\":%d,\"tid\":%ld,\"fd\":%ld,\"path\":%s%s%s,"
		     "\"offset\":%lld,\"size\":%lld,\"ret\":%ld%s%s}\n",
		     sys, getpid(), syscall(SYS_gettid), fd, path ? "\"" : "", path ? path : "null",
		     path ? "\"" : "", offset, size, ret, *extra ? "," : "", extra);
	pthread_mutex_unlock(&loglock);
	return ret;
}

static void *writer_thread(void *arg)
{
	char buf[2048];
	long fd;

	(void)arg;
	memset(buf, 't', sizeof(buf));
	fd = syscall(SYS_openat, AT_FDCWD, in_dir("c.bin"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	logged("openat", -100, in_dir("c.bin"), -1, -1, fd, "");
	logged("pwrite64", fd, in_dir("c.bin"), 100, sizeof(buf),
	       syscall(SYS_pwrite64, fd, buf, sizeof(buf), 100), "");
	logged("close", fd, in_dir("c.bin"), -1, -1, syscall(SYS_close, fd), "");
	return NULL;
}

int main(int argc, char **argv)
{
	char buf[16384], small[3000], dents[4096];
	struct iovec iov[3];
	struct stat st;
	struct statx stx;
	struct open_how how = {.flags = O_RDONLY, .mode = 0};
	pthread_t thread;
	long fd, fd2, fd3, r;
	pid_t child;
	int status;
	off_t off;
	void *map;

	if (argc != 3) {
		fprintf(stderr, "usage: io_sequence DIR HELPER\n");
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s", argv[1]);
	memset(buf, 'a', sizeof(buf));
	memset(small, 'b', sizeof(small));

	/* b.bin, read later by the child */
	fd = logged(
	    "openat", -100, in_dir("b.bin"), -1, -1,
	    syscall(SYS_openat, AT_FDCWD, in_dir("b.bin"), O_WRONLY | O_CREAT | O_TRUNC, 0600), "");
	logged("write", fd, in_dir("b.bin"), 0, sizeof(small),
	       syscall(SYS_write, fd, small, sizeof(small)), "");
	logged("close", fd, in_dir("b.bin"), -1, -1, syscall(SYS_close, fd), "");

	/* open, write, preads at known offsets, lseek, read, write, fsync */
	fd =
	    logged("openat", -100, in_dir("a.bin"), -1, -1,
		   syscall(SYS_openat, AT_FDCWD, in_dir("a.bin"), O_RDWR | O_CREAT | O_TRUNC, 0644),
		   "\"flags\":\"O_RDWR|O_CREAT|O_TRUNC\",\"mode\":\"0644\"");
	logged("write", fd, in_dir("a.bin"), 0, sizeof(buf),
	       syscall(SYS_write, fd, buf, sizeof(buf)), "");
	logged("pread64", fd, in_dir("a.bin"), 0, 4096, syscall(SYS_pread64, fd, buf, 4096, 0), "");
	logged("pread64", fd, in_dir("a.bin"), 8192, 4096,
	       syscall(SYS_pread64, fd, buf, 4096, 8192), "");
	logged("pread64", fd, in_dir("a.bin"), 16000, 1000,
	       syscall(SYS_pread64, fd, buf, 1000, 16000), "");
	logged("lseek", fd, in_dir("a.bin"), 4096, -1, syscall(SYS_lseek, fd, 4096, SEEK_SET),
	       "\"whence\":\"SEEK_SET\"");
	logged("read", fd, in_dir("a.bin"), 4096, 1000, syscall(SYS_read, fd, buf, 1000), "");
	logged("write", fd, in_dir("a.bin"), 5096, 512, syscall(SYS_write, fd, buf, 512), "");
	logged("fsync", fd, in_dir("a.bin"), -1, -1, syscall(SYS_fsync, fd), "");
	logged("fdatasync", fd, in_dir("a.bin"), -1, -1, syscall(SYS_fdatasync, fd), "");
	logged("sync_file_range", fd, in_dir("a.bin"), 0, 4096,
	       syscall(SYS_sync_file_range, fd, 0, 4096, 2 /* SYNC_FILE_RANGE_WRITE */), "");

	/* vectored I/O: 3 iovecs of 100 + 200 + 300 bytes */
	iov[0] = (struct iovec){buf, 100};
	iov[1] = (struct iovec){buf + 100, 200};
	iov[2] = (struct iovec){buf + 300, 300};
	off = logged("lseek", fd, in_dir("a.bin"), 0, -1, syscall(SYS_lseek, fd, 0, SEEK_CUR),
		     "\"whence\":\"SEEK_CUR\"");
	logged("readv", fd, in_dir("a.bin"), off, 600, syscall(SYS_readv, fd, iov, 3), "");
	logged("writev", fd, in_dir("a.bin"), off + 600, 600, syscall(SYS_writev, fd, iov, 3), "");
	logged("preadv", fd, in_dir("a.bin"), 1024, 600, syscall(SYS_preadv, fd, iov, 3, 1024, 0),
	       "");
	logged("pwritev", fd, in_dir("a.bin"), 2048, 600, syscall(SYS_pwritev, fd, iov, 3, 2048, 0),
	       "");
	logged("preadv2", fd, in_dir("a.bin"), 3072, 600,
	       syscall(SYS_preadv2, fd, iov, 3L, 3072L, 0L, 0L), "");
	logged("pwritev2", fd, in_dir("a.bin"), 4000, 600,
	       syscall(SYS_pwritev2, fd, iov, 3L, 4000L, 0L, 0L), "");
	logged("pwrite64", fd, in_dir("a.bin"), 20000, 100,
	       syscall(SYS_pwrite64, fd, buf, 100, 20000), "");
	logged("ftruncate", fd, in_dir("a.bin"), 12288, -1, syscall(SYS_ftruncate, fd, 12288), "");
	logged("fallocate", fd, in_dir("a.bin"), 12288, 4096,
	       syscall(SYS_fallocate, fd, 0, 12288, 4096), "");

	/* file-backed mmap of the first 8 KiB */
	r = logged("mmap", fd, in_dir("a.bin"), 0, 8192,
		   syscall(SYS_mmap, NULL, 8192L, (long)PROT_READ, (long)MAP_SHARED, fd, 0L), "");
	map = (void *)r;
	if (r > 0) /* a file mapping's munmap: its file and the mapping's offset there */
		logged("munmap", -1, in_dir("a.bin"), 0, 8192, syscall(SYS_munmap, map, 8192L), "");

	/* stat family */
	logged("stat", -1, in_dir("a.bin"), -1, -1, syscall(SYS_stat, in_dir("a.bin"), &st), "");
	logged("lstat", -1, in_dir("a.bin"), -1, -1, syscall(SYS_lstat, in_dir("a.bin"), &st), "");
	logged("fstat", fd, in_dir("a.bin"), -1, -1, syscall(SYS_fstat, fd, &st), "");
	logged("newfstatat", -100, in_dir("a.bin"), -1, -1,
	       syscall(SYS_newfstatat, AT_FDCWD, in_dir("a.bin"), &st, 0), "");
	logged("statx", -100, in_dir("a.bin"), -1, -1,
	       syscall(SYS_statx, AT_FDCWD, in_dir("a.bin"), 0, STATX_SIZE, &stx), "");
	logged("stat", -1, in_dir("missing.bin"), -1, -1,
	       syscall(SYS_stat, in_dir("missing.bin"), &st), "");

	/* descriptors: dup family, fcntl, close_range */
	fd2 = logged("dup", fd, in_dir("a.bin"), -1, -1, syscall(SYS_dup, fd), "");
	logged("dup2", fd, in_dir("a.bin"), -1, -1, syscall(SYS_dup2, fd, 40), "\"newfd\":40");
	logged("dup3", fd, in_dir("a.bin"), -1, -1, syscall(SYS_dup3, fd, 41, O_CLOEXEC),
	       "\"newfd\":41");
	fd3 = logged("fcntl", fd, in_dir("a.bin"), -1, -1, syscall(SYS_fcntl, fd, F_DUPFD, 50), "");
	/* reads through the copies must carry a.bin's path */
	logged("pread64", fd2, in_dir("a.bin"), 0, 10, syscall(SYS_pread64, fd2, buf, 10, 0), "");
	logged("pread64", 40, in_dir("a.bin"), 0, 10, syscall(SYS_pread64, 40, buf, 10, 0), "");
	logged("pread64", fd3, in_dir("a.bin"), 0, 10, syscall(SYS_pread64, fd3, buf, 10, 0), "");
	logged("close", fd2, in_dir("a.bin"), -1, -1, syscall(SYS_close, fd2), "");
	logged("close_range", 40, NULL, -1, -1, syscall(SYS_close_range, 40, 41, 0), "");
	logged("close", fd3, in_dir("a.bin"), -1, -1, syscall(SYS_close, fd3), "");

	/* other open forms */
	fd2 = logged("open", -1, in_dir("b.bin"), -1, -1,
		     syscall(SYS_open, in_dir("b.bin"), O_RDONLY), "\"flags\":\"O_RDONLY\"");
	logged("close", fd2, in_dir("b.bin"), -1, -1, syscall(SYS_close, fd2), "");
	fd2 = logged("openat2", -100, in_dir("b.bin"), -1, -1,
		     syscall(SYS_openat2, AT_FDCWD, in_dir("b.bin"), &how, sizeof(how)),
		     "\"flags\":\"O_RDONLY\"");
	logged("close", fd2, in_dir("b.bin"), -1, -1, syscall(SYS_close, fd2), "");
	fd2 =
	    logged("creat", -1, in_dir("d.bin"), -1, -1, syscall(SYS_creat, in_dir("d.bin"), 0600),
		   "\"flags\":\"O_WRONLY|O_CREAT|O_TRUNC\",\"mode\":\"0600\"");

	/* sendfile and copy_file_range from a.bin into d.bin */
	logged("sendfile", fd, in_dir("a.bin"), 0, 1000,
	       syscall(SYS_sendfile, fd2, fd, &(off_t){0}, 1000),
	       "\"out_fd\":%ld,\"out_path\":\"%s\"", fd2, in_dir("d.bin"));
	logged("copy_file_range", fd, in_dir("a.bin"), 500, 700,
	       syscall(SYS_copy_file_range, fd, &(off_t){500}, fd2, NULL, 700L, 0L),
	       "\"out_fd\":%ld,\"out_path\":\"%s\"", fd2, in_dir("d.bin"));
	logged("close", fd2, in_dir("d.bin"), -1, -1, syscall(SYS_close, fd2), "");

	/* directories and names */
	logged("mkdir", -1, in_dir("sub"), -1, -1, syscall(SYS_mkdir, in_dir("sub"), 0755),
	       "\"mode\":\"0755\"");
	logged("mkdirat", -100, in_dir("sub2"), -1, -1,
	       syscall(SYS_mkdirat, AT_FDCWD, in_dir("sub2"), 0700), "\"mode\":\"0700\"");
	fd2 = logged("openat", -100, dir, -1, -1,
		     syscall(SYS_openat, AT_FDCWD, dir, O_RDONLY | O_DIRECTORY), "");
	logged("getdents64", fd2, dir, -1, sizeof(dents),
	       syscall(SYS_getdents64, fd2, dents, sizeof(dents)), "");
	/* a name relative to a directory fd */
	logged("newfstatat", fd2, in_dir("b.bin"), -1, -1,
	       syscall(SYS_newfstatat, fd2, "b.bin", &st, 0), "");
	/* the descriptor's own file (an empty name), as glibc's fstat asks for it */
	logged("newfstatat", fd2, dir, -1, -1, syscall(SYS_newfstatat, fd2, "", &st, AT_EMPTY_PATH),
	       "\"flags\":\"0x1000\"");
	logged("statx", fd2, dir, -1, -1,
	       syscall(SYS_statx, fd2, "", AT_EMPTY_PATH, STATX_SIZE, &stx),
	       "\"flags\":\"0x1000\"");
	logged("close", fd2, dir, -1, -1, syscall(SYS_close, fd2), "");
	logged("rename", -1, in_dir("d.bin"), -1, -1,
	       syscall(SYS_rename, in_dir("d.bin"), in_dir("e.bin")), "\"new_path\":\"%s\"",
	       in_dir("e.bin"));
	logged("renameat", -100, in_dir("e.bin"), -1, -1,
	       syscall(SYS_renameat, AT_FDCWD, in_dir("e.bin"), AT_FDCWD, in_dir("f.bin")),
	       "\"new_path\":\"%s\"", in_dir("f.bin"));
	logged("renameat2", -100, in_dir("f.bin"), -1, -1,
	       syscall(SYS_renameat2, AT_FDCWD, in_dir("f.bin"), AT_FDCWD, in_dir("g.bin"), 0),
	       "\"new_path\":\"%s\"", in_dir("g.bin"));
	logged("unlink", -1, in_dir("g.bin"), -1, -1, syscall(SYS_unlink, in_dir("g.bin")), "");
	logged("unlinkat", -100, in_dir("sub2"), -1, -1,
	       syscall(SYS_unlinkat, AT_FDCWD, in_dir("sub2"), AT_REMOVEDIR), "");
	logged("rmdir", -1, in_dir("sub"), -1, -1, syscall(SYS_rmdir, in_dir("sub")), "");

	/* a forked child reading another file */
	child = fork();
	if (child == 0) {
		size_t mark = loglen;
		long cfd = logged("openat", -100, in_dir("b.bin"), -1, -1,
				  syscall(SYS_openat, AT_FDCWD, in_dir("b.bin"), O_RDONLY), "");

		logged("read", cfd, in_dir("b.bin"), 0, 4096, syscall(SYS_read, cfd, buf, 4096),
		       "");
		/* the inherited descriptor keeps its path in the child */
		logged("pread64", fd, in_dir("a.bin"), 0, 64, syscall(SYS_pread64, fd, buf, 64, 0),
		       "");
		logged("close", cfd, in_dir("b.bin"), -1, -1, syscall(SYS_close, cfd), "");
		fwrite(logbuf + mark, 1, loglen - mark, stdout);
		fflush(stdout);
		_exit(0);
	}
	waitpid(child, &status, 0);
	fflush(stdout);

	/* a thread writing a third file */
	pthread_create(&thread, NULL, writer_thread, NULL);
	pthread_join(thread, NULL);

	/* an exec'd helper: reads 10 bytes of a.bin */
	child = fork();
	if (child == 0) {
		execl(argv[2], argv[2], in_dir("a.bin"), (char *)NULL);
		_exit(127);
	}
	waitpid(child, &status, 0);

	logged("close", fd, in_dir("a.bin"), -1, -1, syscall(SYS_close, fd), "");
	logged("close", 9999, NULL, -1, -1, syscall(SYS_close, 9999), "");
	fwrite(logbuf, 1, loglen, stdout);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
