// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * io_uring cases whose facts fio does not print.  Each mode prints what it
 * did as one JSON line, for the test to compare with the trace.
 *
 *   uring_cases fixed FILE    register [/dev/null, FILE] (so the fixed-file
 *                             index 1 is no descriptor of FILE), read 4096 @ 0,
 *                             8192 @ 8192 and 100 @ 30000 through index 1
 *   uring_cases sqpoll FILE   the same reads on a ring with an SQPOLL thread
 *                             (FILE registered at index 0), then touch 256 MiB
 *                             of memory so that the process's exit (its last
 *                             mmput) takes long while the SQPOLL thread exits
 *   uring_cases write-fsync FILE
 *                             8 writes of 64 KiB at 64 KiB steps, each linked to
 *                             an IORING_OP_FSYNC, one submission per pair
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const struct {
	unsigned len;
	long long off;
} reads[] = {{4096, 0}, {8192, 8192}, {100, 30000}};

static int open_or_die(const char *path, int flags)
{
	int fd = open(path, flags, 0600);

	if (fd < 0) {
		perror(path);
		exit(1);
	}
	return fd;
}

/* Submit the three reads on fixed file `index`; res[] gets their results. */
static int fixed_reads(struct io_uring *ring, int index, int res[3])
{
	static char buf[3][8192];

	for (int i = 0; i < 3; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

		io_uring_prep_read(sqe, index, buf[i], reads[i].len, reads[i].off);
		sqe->flags |= IOSQE_FIXED_FILE;
		sqe->user_data = 200 + i;
	}
	if (io_uring_submit(ring) != 3)
		return -1;
	for (int i = 0; i < 3; i++) {
		struct io_uring_cqe *cqe;

		if (io_uring_wait_cqe(ring, &cqe))
			return -1;
		res[cqe->user_data - 200] = cqe->res;
		io_uring_cqe_seen(ring, cqe);
	}
	return 0;
}

static int do_fixed(const char *path)
{
	struct io_uring ring;
	int fds[2] = {open_or_die("/dev/null", O_RDONLY), open_or_die(path, O_RDONLY)};
	int res[3] = {0};

	if (io_uring_queue_init(8, &ring, 0) || io_uring_register_files(&ring, fds, 2) ||
	    fixed_reads(&ring, 1, res))
		return 1;
	io_uring_queue_exit(&ring);
	printf("{\"pid\":%d,\"fd\":%d,\"index\":1,\"res\":[%d,%d,%d]}\n", getpid(), fds[1], res[0],
	       res[1], res[2]);
	return 0;
}

/* The tid of this process's SQPOLL thread (its comm is iou-sqp-PID), or 0. */
static int sqpoll_tid(void)
{
	char want[32], path[300], comm[32];
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	int tid = 0;

	snprintf(want, sizeof(want), "iou-sqp-%d\n", getpid());
	while (d && !tid && (de = readdir(d))) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", de->d_name);
		f = fopen(path, "r");
		if (f && fgets(comm, sizeof(comm), f) && !strcmp(comm, want))
			tid = atoi(de->d_name);
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return tid;
}

static int do_sqpoll(const char *path)
{
	struct io_uring_params p = {.flags = IORING_SETUP_SQPOLL, .sq_thread_idle = 2000};
	struct io_uring ring;
	int fd = open_or_die(path, O_RDONLY);
	int res[3] = {0};
	size_t big = 256u << 20;
	char *mem;

	if (io_uring_queue_init_params(8, &ring, &p) || io_uring_register_files(&ring, &fd, 1) ||
	    fixed_reads(&ring, 0, res))
		return 1;
	mem = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 1;
	for (size_t i = 0; i < big; i += 4096)
		mem[i] = 1;
	printf("{\"pid\":%d,\"fd\":%d,\"index\":0,\"sq_tid\":%d,\"res\":[%d,%d,%d]}\n", getpid(),
	       fd, sqpoll_tid(), res[0], res[1], res[2]);
	fflush(stdout);
	/* exit with the ring and the memory still there: the kernel tears both down */
	return 0;
}

static int do_write_fsync(const char *path)
{
	static char buf[64 << 10];
	struct io_uring ring;
	int fd = open_or_die(path, O_WRONLY | O_CREAT | O_TRUNC);
	int wres[8], fres[8];

	memset(buf, 'x', sizeof(buf));
	if (io_uring_queue_init(8, &ring, 0))
		return 1;
	for (int i = 0; i < 8; i++) {
		struct io_uring_sqe *w = io_uring_get_sqe(&ring), *s;

		io_uring_prep_write(w, fd, buf, sizeof(buf), (long long)i * sizeof(buf));
		w->flags |= IOSQE_IO_LINK;
		w->user_data = 2 * i;
		s = io_uring_get_sqe(&ring);
		io_uring_prep_fsync(s, fd, 0);
		s->user_data = 2 * i + 1;
		if (io_uring_submit(&ring) != 2)
			return 1;
		for (int k = 0; k < 2; k++) {
			struct io_uring_cqe *cqe;

			if (io_uring_wait_cqe(&ring, &cqe))
				return 1;
			if (cqe->user_data & 1)
				fres[cqe->user_data / 2] = cqe->res;
			else
				wres[cqe->user_data / 2] = cqe->res;
			io_uring_cqe_seen(&ring, cqe);
		}
	}
	io_uring_queue_exit(&ring);
	printf("{\"pid\":%d,\"fd\":%d,\"writes\":[", getpid(), fd);
	for (int i = 0; i < 8; i++)
		printf("%s%d", i ? "," : "", wres[i]);
	printf("],\"fsyncs\":[");
	for (int i = 0; i < 8; i++)
		printf("%s%d", i ? "," : "", fres[i]);
	printf("]}\n");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "fixed"))
		return do_fixed(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "sqpoll"))
		return do_sqpoll(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "write-fsync"))
		return do_write_fsync(argv[2]);
	fprintf(stderr, "usage: uring_cases fixed|sqpoll|write-fsync FILE\n");
	return 2;
}
