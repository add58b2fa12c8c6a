// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Linux native AIO through the raw syscalls (no libaio), for exact facts:
 *
 *   aio_cases direct|buffered FILE
 *     FILE (at least 1 MiB) opened O_RDWR, with O_DIRECT for "direct";
 *     io_submit #1: PREAD 4096 @ 0, PREAD 8192 @ 65536, PWRITE 4096 @ 131072
 *     io_submit #2: PREADV (2 iovecs, 4096 + 8192) @ 262144, and an iocb
 *                   on descriptor -1 that the kernel refuses (EBADF): the
 *                   call returns 1
 *     io_submit #3: FDSYNC
 *     each batch reaped with io_getevents before the next; then, nothing in
 *     flight, io_pgetevents (min 0, timeout 0: returns 0) and io_cancel of
 *     the first iocb (EINVAL: not pending); then io_destroy.
 *   Prints one JSON line: pid, fd, ctx, the submits' returns, and each
 *   request's (iocb address, res) in submission order.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <linux/aio_abi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static struct iocb cbs[6];
static long long results[6];

static void prep(struct iocb *cb, int fd, unsigned op, void *buf, uint64_t n, int64_t off)
{
	memset(cb, 0, sizeof(*cb));
	cb->aio_fildes = fd;
	cb->aio_lio_opcode = op;
	cb->aio_buf = (uintptr_t)buf;
	cb->aio_nbytes = n;
	cb->aio_offset = off;
	cb->aio_data = 1000 + (cb - cbs);
}

/* Submit n iocbs from cbs[first]; reap what the kernel took. */
static long submit(aio_context_t ctx, int first, int n)
{
	struct iocb *ptrs[4];
	struct io_event ev[4];
	long took, got = 0;

	for (int i = 0; i < n; i++)
		ptrs[i] = &cbs[first + i];
	took = syscall(SYS_io_submit, ctx, (long)n, ptrs);
	while (took > 0 && got < took) {
		long r = syscall(SYS_io_getevents, ctx, 1L, (long)(took - got), ev + got, NULL);

		if (r <= 0)
			exit(1);
		got += r;
	}
	for (long i = 0; i < got; i++)
		results[ev[i].data - 1000] = ev[i].res;
	return took;
}

/*
 * aio_cases threads FILE: the main thread starts a second thread, submits
 * PREAD 4096 @ 0 and 8192 @ 8192 and, with no other syscall of its own,
 * waits for the second thread to reap both: its io_submit's record is
 * still in its batch when the events are reaped.
 */
static aio_context_t tctx;
static long treaped;
static int tsubmitted;

static void *reaper(void *arg)
{
	struct io_event ev[2];

	(void)arg;
	while (!__atomic_load_n(&tsubmitted, __ATOMIC_ACQUIRE))
		; /* no syscall: the submitter makes none between its io_submit and our reap */
	while (treaped < 2) {
		long r = syscall(SYS_io_getevents, tctx, 1L, 2L - treaped, ev, NULL);

		if (r <= 0)
			break;
		for (long i = 0; i < r; i++)
			results[ev[i].data - 1000] = ev[i].res;
		treaped += r;
	}
	return NULL;
}

static int do_threads(const char *path)
{
	static char buf[2][8192] __attribute__((aligned(4096)));
	struct iocb *ptrs[2] = {&cbs[0], &cbs[1]};
	int fd = open(path, O_RDONLY);
	pthread_t t;
	long took;

	if (fd < 0 || syscall(SYS_io_setup, 4L, &tctx))
		return 1;
	prep(&cbs[0], fd, IOCB_CMD_PREAD, buf[0], 4096, 0);
	prep(&cbs[1], fd, IOCB_CMD_PREAD, buf[1], 8192, 8192);
	if (pthread_create(&t, NULL, reaper, NULL))
		return 1;
	took = syscall(SYS_io_submit, tctx, 2L, ptrs);
	__atomic_store_n(&tsubmitted, 1, __ATOMIC_RELEASE);
	if (took != 2 || pthread_join(t, NULL))
		return 1;
	printf("{\"pid\":%d,\"fd\":%d,\"iocbs\":[\"0x%llx\",\"0x%llx\"],\"res\":[%lld,%lld]}\n",
	       getpid(), fd, (unsigned long long)(uintptr_t)&cbs[0],
	       (unsigned long long)(uintptr_t)&cbs[1], results[0], results[1]);
	return 0;
}

int main(int argc, char **argv)
{
	aio_context_t ctx = 0;
	bool direct;
	char *buf;
	int fd;
	long s1, s2, s3, pget, cancel;

	if (argc >= 3 && !strcmp(argv[1], "threads"))
		return do_threads(argv[2]);
	if (argc < 3 || (strcmp(argv[1], "direct") && strcmp(argv[1], "buffered"))) {
		fprintf(stderr, "usage: aio_cases direct|buffered|threads FILE\n");
		return 2;
	}
	direct = !strcmp(argv[1], "direct");
	fd = open(argv[2], O_RDWR | (direct ? O_DIRECT : 0));
	if (fd < 0 || posix_memalign((void **)&buf, 4096, 8 << 16) ||
	    syscall(SYS_io_setup, 16L, &ctx))
		return 1;
	memset(buf, 'a', 8 << 16);
	{
		struct iovec *iov = (struct iovec *)(buf + (7 << 16));

		iov[0] = (struct iovec){buf + (4 << 16), 4096};
		iov[1] = (struct iovec){buf + (5 << 16), 8192};
		prep(&cbs[0], fd, IOCB_CMD_PREAD, buf, 4096, 0);
		prep(&cbs[1], fd, IOCB_CMD_PREAD, buf + (1 << 16), 8192, 65536);
		prep(&cbs[2], fd, IOCB_CMD_PWRITE, buf + (2 << 16), 4096, 131072);
		prep(&cbs[3], fd, IOCB_CMD_PREADV, iov, 2, 262144);
		prep(&cbs[4], -1, IOCB_CMD_PREAD, buf + (3 << 16), 4096, 0);
		prep(&cbs[5], fd, IOCB_CMD_FDSYNC, NULL, 0, 0);
	}
	s1 = submit(ctx, 0, 3);
	s2 = submit(ctx, 3, 2);
	s3 = submit(ctx, 5, 1);
	{ /* nothing in flight: io_pgetevents finds no event, io_cancel no request */
		struct io_event ev;
		struct timespec zero = {0, 0};

		pget = syscall(SYS_io_pgetevents, ctx, 0L, 1L, &ev, &zero, NULL);
		cancel = syscall(SYS_io_cancel, ctx, &cbs[0], &ev) < 0 ? -errno : 0;
	}
	syscall(SYS_io_destroy, ctx);
	printf("{\"pid\":%d,\"fd\":%d,\"ctx\":\"0x%llx\",\"submitted\":[%ld,%ld,%ld],\"iocbs\":[",
	       getpid(), fd, (unsigned long long)ctx, s1, s2, s3);
	for (int i = 0; i < 6; i++)
		printf("%s\"0x%llx\"", i ? "," : "", (unsigned long long)(uintptr_t)&cbs[i]);
	printf("],\"res\":[");
	for (int i = 0; i < 6; i++)
		printf("%s%lld", i ? "," : "", results[i]);
	printf("],\"pgetevents\":%ld,\"cancel\":%ld}\n", pget, cancel);
	return 0;
}
