// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * I/O patterns for the tests of `dltrace report`: one clean, large and
 * sequential workload, and one workload crafted to trigger each finding.
 * Input files are created by the test before tracing; every size and count
 * below is what the test expects to find in the report.
 *
 * Usage: report_patterns MODE ARGS...
 *   clean IN OUT        read IN (64 MiB) in 4 MiB reads while a second thread
 *                       writes OUT in 8 writes of 4 MiB and syncs it once
 *   small-reads IN      read IN (4 MiB) in 1 KiB reads
 *   random-reads IN     4000 preads of 4 KiB at scattered offsets of IN (64 MiB)
 *   reread-open IN      read IN (4 MiB) three times in one open, 64 KiB reads
 *   concurrent IN       4 processes read all of IN (16 MiB) at the same time
 *   metadata IN         5000 stats, 1000 open/close of IN, one read
 *   metadata-new IN     2000 times access, getxattr (ENODATA) and chmod of IN,
 *                       100 fadvise64 of IN, 50 statfs of /proc, one read
 *   small-files DIR N   open, read and close DIR/f<i> for i < N
 *   reread-epochs IN    read IN (32 MiB) three times, a new open each time
 *   imbalance IN        4 processes read 4, 8, 12 and 16 MiB of IN
 *   sync-heavy OUT      200 times: write 4 KiB, fdatasync
 *   checkpoint OUT      2 times: write 64 MiB with O_DIRECT, fsync; 1.1 s of
 *                       "compute" between them (two checkpoints: two write
 *                       bursts, other work between); O_DIRECT: the writes are
 *                       the process's own requests, which a blkio write
 *                       throttle delays (the kernel's writeback it does not)
 *   write-read OUT MIB  write MIB MiB to OUT in 4 MiB writes, fsync, then read it
 *                       back in 4 MiB reads (a data file made once: no checkpoint)
 *   enoent DIR          stat 3000 names that do not exist in DIR
 *   single-reader IN    read IN (64 MiB) in 64 KiB reads, from the disk (its
 *                       cached pages are dropped first, readahead is off: each
 *                       read waits for its own request), while 3 threads wait
 *   shm-stage SHARD TOP SEG TORCH
 *                       a dataset staged in /dev/shm among shared-memory
 *                       segments: makes the segment SEG ("/name") as
 *                       shm_open(3) does and the segment TORCH (a path) as
 *                       PyTorch does (open O_RDWR|O_CREAT|O_EXCL, ftruncate,
 *                       mmap shared, a write of 1 byte at 0), each 1 MiB,
 *                       filled through the mapping, then unmapped, closed and
 *                       unlinked; reads SHARD (4 MiB, in a directory) in 64
 *                       preads of 64 KiB and TOP (1 MiB, directly in /dev/shm)
 *                       in 64 KiB reads to its end (17 reads)
 *   preads-wait IN N    N preads of 4 KiB at offset 0 of IN, then wait until
 *                       standard input ends and print "end_wall_ns <ns>"
 *                       (CLOCK_REALTIME then): a job that outlives its tracer
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MIB (1 << 20)

static char *buf;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static int open_or_die(const char *path, int flags)
{
	int fd = open(path, flags, 0644);

	if (fd < 0)
		die(path);
	return fd;
}

/* read(2) the whole file in chunks of `size`, up to `limit` bytes (0: to EOF) */
static void read_all(int fd, size_t size, size_t limit)
{
	size_t done = 0;
	ssize_t n;

	while (!limit || done < limit) {
		n = read(fd, buf, limit && limit - done < size ? limit - done : size);
		if (n < 0)
			die("read");
		if (n == 0)
			break;
		done += n;
	}
}

static void write_all(int fd, size_t size, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (write(fd, buf, size) != (ssize_t)size)
			die("write");
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

static const char *out_path;

static void *clean_writer(void *arg)
{
	int fd = open_or_die(out_path, O_WRONLY | O_CREAT | O_TRUNC);

	(void)arg;
	write_all(fd, 4 * MIB, 8);
	if (fsync(fd))
		die("fsync");
	close(fd);
	return NULL;
}

static void clean(const char *in, const char *out)
{
	pthread_t t;
	int fd;

	out_path = out;
	pthread_create(&t, NULL, clean_writer, NULL);
	fd = open_or_die(in, O_RDONLY);
	read_all(fd, 4 * MIB, 0);
	close(fd);
	pthread_join(t, NULL);
}

static void random_reads(const char *in)
{
	int fd = open_or_die(in, O_RDONLY);
	uint64_t x = 88172645463325252ull;

	for (int i = 0; i < 4000; i++) {
		/* xorshift: 4 KiB-aligned offsets spread over 64 MiB */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (pread(fd, buf, 4096, (off_t)(x % 16384) * 4096) != 4096)
			die("pread");
	}
	close(fd);
}

static void reread_open(const char *in)
{
	int fd = open_or_die(in, O_RDONLY);

	for (int i = 0; i < 3; i++) {
		lseek(fd, 0, SEEK_SET);
		read_all(fd, 64 * 1024, 4 * MIB);
	}
	close(fd);
}

static int go_read_fd;

static void concurrent_child(int i, int ready_fd, const char *in)
{
	int fd = open_or_die(in, O_RDONLY);
	char c;

	(void)i;
	read_all(fd, 64 * 1024, 64 * 1024); /* the first read, then wait for all */
	if (write(ready_fd, "r", 1) != 1 || read(go_read_fd, &c, 1) != 1)
		die("sync");
	read_all(fd, 64 * 1024, 0);
	close(fd);
}

static void imbalance_child(int i, int ready_fd, const char *in)
{
	int fd = open_or_die(in, O_RDONLY);
	char c;

	if (write(ready_fd, "r", 1) != 1 || read(go_read_fd, &c, 1) != 1)
		die("sync");
	read_all(fd, MIB, (size_t)(i + 1) * 4 * MIB);
	close(fd);
}

/* n children run child(i); they start reading when all are ready */
static void with_children(int n, void (*child)(int, int, const char *), const char *in)
{
	int ready[2], go[2];
	pid_t pids[16];
	char c;

	if (pipe(ready) || pipe(go))
		die("pipe");
	go_read_fd = go[0];
	for (int i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			close(ready[0]);
			close(go[1]);
			child(i, ready[1], in);
			_exit(0);
		}
	}
	close(ready[1]);
	close(go[0]);
	for (int i = 0; i < n; i++)
		if (read(ready[0], &c, 1) != 1)
			die("ready");
	for (int i = 0; i < n; i++)
		if (write(go[1], "g", 1) != 1)
			die("go");
	for (int i = 0; i < n; i++)
		waitpid(pids[i], NULL, 0);
}

static void metadata(const char *in)
{
	struct stat st;
	int fd;

	for (int i = 0; i < 5000; i++)
		if (stat(in, &st))
			die("stat");
	for (int i = 0; i < 1000; i++)
		close(open_or_die(in, O_RDONLY));
	fd = open_or_die(in, O_RDONLY);
	read_all(fd, 4096, 4096);
	close(fd);
}

/* The metadata calls beyond open and stat, hints, and environment calls. */
static void metadata_new(const char *in)
{
	struct statfs sfs;
	char value[16];
	int fd;

	for (int i = 0; i < 2000; i++) {
		if (syscall(SYS_access, in, R_OK) || syscall(SYS_chmod, in, 0644))
			die("access, chmod");
		if (syscall(SYS_getxattr, in, "user.missing", value, sizeof(value)) != -1)
			die("getxattr");
	}
	fd = open_or_die(in, O_RDONLY);
	for (int i = 0; i < 100; i++)
		if (syscall(SYS_fadvise64, fd, 0L, 4096L, (long)POSIX_FADV_WILLNEED))
			die("fadvise64");
	for (int i = 0; i < 50; i++)
		if (syscall(SYS_statfs, "/proc", &sfs))
			die("statfs");
	read_all(fd, 4096, 4096);
	close(fd);
}

static void small_files(const char *dir, int n)
{
	char path[4096];

	for (int i = 0; i < n; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		fd = open_or_die(path, O_RDONLY);
		read_all(fd, 64 * 1024, 0);
		close(fd);
	}
}

static void reread_epochs(const char *in)
{
	for (int epoch = 0; epoch < 3; epoch++) {
		int fd = open_or_die(in, O_RDONLY);

		read_all(fd, MIB, 0);
		close(fd);
	}
}

static void sync_heavy(const char *out)
{
	int fd = open_or_die(out, O_WRONLY | O_CREAT | O_TRUNC);

	for (int i = 0; i < 200; i++) {
		write_all(fd, 4096, 1);
		if (fdatasync(fd))
			die("fdatasync");
	}
	close(fd);
}

static void checkpoint(const char *out)
{
	for (int i = 0; i < 2; i++) {
		int fd;

		if (i) /* the compute between two checkpoints; none before the first */
			sleep_ms(1100);
		fd = open_or_die(out, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT);
		write_all(fd, MIB, 64);
		if (fsync(fd))
			die("fsync");
		close(fd);
	}
}

static void write_read(const char *out, int mib)
{
	int fd = open_or_die(out, O_RDWR | O_CREAT | O_TRUNC);

	write_all(fd, 4 * MIB, mib / 4);
	if (fsync(fd) || lseek(fd, 0, SEEK_SET))
		die("fsync, lseek");
	read_all(fd, 4 * MIB, 0);
	close(fd);
}

static void enoent(const char *dir)
{
	char path[4096];
	struct stat st;

	for (int i = 0; i < 3000; i++) {
		snprintf(path, sizeof(path), "%s/missing-%d.jpg", dir, i);
		if (stat(path, &st) == 0)
			die("stat: the file exists");
	}
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
static int reading_done;

static void *idle_worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	while (!reading_done)
		pthread_cond_wait(&done_cond, &lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void single_reader(const char *in)
{
	pthread_t t[3];
	int fd;

	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, idle_worker, NULL);
	fd = open_or_die(in, O_RDONLY);
	/*
	 * An I/O-bound reader: its data comes from the disk, not the page cache,
	 * and without readahead, each read waiting for its own request (the test
	 * puts IN on a throttled disk, where those requests take a known time).
	 */
	if (fdatasync(fd) || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
		die("dropping the cached pages");
	if (posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM))
		die("turning readahead off");
	read_all(fd, 64 * 1024, 0);
	close(fd);
	pthread_mutex_lock(&lock);
	reading_done = 1;
	pthread_cond_broadcast(&done_cond);
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
}

/* 1 MiB, filled through a shared mapping, then let go as its owner does */
static void fill_segment(int fd, const char *what)
{
	char *p;

	if (ftruncate(fd, MIB))
		die("ftruncate");
	p = mmap(NULL, MIB, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die(what);
	memset(p, 's', MIB);
	if (munmap(p, MIB))
		die("munmap");
}

static void shm_stage(const char *shard, const char *top, const char *seg, const char *torch)
{
	int fd = shm_open(seg, O_RDWR | O_CREAT | O_EXCL, 0600);

	if (fd < 0)
		die(seg);
	fill_segment(fd, seg);
	close(fd);
	if (shm_unlink(seg))
		die("shm_unlink");
	fd = open(torch, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		die(torch);
	fill_segment(fd, torch);
	if (write(fd, "", 1) != 1) /* MapAllocator's byte: the size is allocated */
		die("write");
	close(fd);
	if (unlink(torch))
		die("unlink");
	fd = open_or_die(shard, O_RDONLY);
	for (int i = 0; i < 64; i++)
		if (pread(fd, buf, 64 << 10, (off_t)i << 16) != 64 << 10)
			die("pread");
	close(fd);
	fd = open_or_die(top, O_RDONLY | O_CLOEXEC);
	read_all(fd, 64 << 10, 0);
	close(fd);
}

static void preads_wait(const char *in, long n)
{
	int fd = open_or_die(in, O_RDONLY);
	struct timespec now;
	char c;

	for (long i = 0; i < n; i++)
		if (pread(fd, buf, 4096, 0) != 4096)
			die("pread");
	close(fd);
	while (read(0, &c, 1) > 0)
		;
	clock_gettime(CLOCK_REALTIME, &now);
	printf("end_wall_ns %lld\n", (long long)now.tv_sec * 1000000000 + now.tv_nsec);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	buf = aligned_alloc(4096, 4 * MIB); /* O_DIRECT wants aligned memory */
	if (!buf)
		die("aligned_alloc");
	memset(buf, 'x', 4 * MIB);
	if (!strcmp(mode, "clean") && argc == 4)
		clean(argv[2], argv[3]);
	else if (!strcmp(mode, "small-reads") && argc == 3)
		read_all(open_or_die(argv[2], O_RDONLY), 1024, 0);
	else if (!strcmp(mode, "random-reads") && argc == 3)
		random_reads(argv[2]);
	else if (!strcmp(mode, "reread-open") && argc == 3)
		reread_open(argv[2]);
	else if (!strcmp(mode, "concurrent") && argc == 3)
		with_children(4, concurrent_child, argv[2]);
	else if (!strcmp(mode, "metadata") && argc == 3)
		metadata(argv[2]);
	else if (!strcmp(mode, "metadata-new") && argc == 3)
		metadata_new(argv[2]);
	else if (!strcmp(mode, "small-files") && argc == 4)
		small_files(argv[2], atoi(argv[3]));
	else if (!strcmp(mode, "reread-epochs") && argc == 3)
		reread_epochs(argv[2]);
	else if (!strcmp(mode, "imbalance") && argc == 3)
		with_children(4, imbalance_child, argv[2]);
	else if (!strcmp(mode, "sync-heavy") && argc == 3)
		sync_heavy(argv[2]);
	else if (!strcmp(mode, "checkpoint") && argc == 3)
		checkpoint(argv[2]);
	else if (!strcmp(mode, "write-read") && argc == 4)
		write_read(argv[2], atoi(argv[3]));
	else if (!strcmp(mode, "enoent") && argc == 3)
		enoent(argv[2]);
	else if (!strcmp(mode, "single-reader") && argc == 3)
		single_reader(argv[2]);
	else if (!strcmp(mode, "shm-stage") && argc == 6)
		shm_stage(argv[2], argv[3], argv[4], argv[5]);
	else if (!strcmp(mode, "preads-wait") && argc == 4)
		preads_wait(argv[2], atol(argv[3]));
	else {
		fprintf(stderr, "usage: report_patterns MODE ARGS... (see the source)\n");
		return 2;
	}
	free(buf);
	return 0;
}
