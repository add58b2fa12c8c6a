// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * I/O that only the layers beyond syscalls can show.  Each mode prints
 * what it did as one JSON line, for the test to compare with the trace.
 *
 *   layer_io mmap FILE    map pages 3, 259, 515 and 771 of FILE (>= 4 MiB), one
 *                         mapping of one page each (so that neither fault-around
 *                         nor a large folio maps a page before it is touched),
 *                         and read one byte of each
 *   layer_io mmap-reuse FILE
 *                         write to 16 pages of anonymous memory, then map pages
 *                         8, 10, 12 and 14 of FILE over its pages 0, 2, 4 and 6
 *                         (MAP_FIXED, one page each) and read one byte of each:
 *                         faults on a file mapped where anonymous memory was
 *   layer_io mmap-reuse-two FILE
 *                         the same over the second of two anonymous allocations,
 *                         with a fault in the first between the mapping and the
 *                         reads: what a thread remembers of anonymous memory
 *                         from before a file was mapped is not used again
 *   layer_io mmap-moved FILE
 *                         map pages 8, 10, 12 and 14 of FILE (one mapping
 *                         each), then write to 16 pages of anonymous memory,
 *                         move the four mappings over its pages 0, 2, 4 and 6
 *                         (mremap, MREMAP_FIXED) and read one byte of each:
 *                         faults on a file moved where anonymous memory was
 *   layer_io mmap-changed FILE
 *                         map FILE's first 8 MiB (of >= 16) read-only and read
 *                         pages 3 and 515; make the mapping executable
 *                         (mprotect) and read page 1027; map the file's second
 *                         8 MiB in its place (MAP_FIXED) and read page 1539;
 *                         unmap it, allocate anonymous memory at the same
 *                         address and write to page 3: what a thread remembers
 *                         of a file mapping is not used once it has changed
 *   layer_io cache FILE   drop FILE (1 MiB) from the page cache, read it whole
 *                         with one pread (cold), then again (hot)
 *   layer_io block FILE   read the first 256 KiB of FILE with O_DIRECT; print where
 *                         they are on the disk (FIEMAP extents, in 512-byte sectors
 *                         from the start of the whole disk)
 *   layer_io uring FILE   three io_uring reads: 4096 @ 0, 8192 @ 4096, 100 @ 20000
 *   layer_io vfs FILE OUT read 4096 bytes, write them to OUT, fsync OUT,
 *                         sendfile 1000 bytes of FILE to OUT
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define MiB (1 << 20)

static int open_or_die(const char *path, int flags)
{
	int fd = open(path, flags, 0600);

	if (fd < 0) {
		perror(path);
		exit(1);
	}
	return fd;
}

static int do_mmap(const char *path)
{
	static const long pages[] = {3, 259, 515, 771};
	int fd = open_or_die(path, O_RDONLY);
	long sum = 0;

	for (int i = 0; i < 4; i++) {
		volatile char *m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, pages[i] * 4096);

		if (m == MAP_FAILED)
			return 1;
		sum += m[0];
	}
	printf("{\"pid\":%d,\"offsets\":[%ld,%ld,%ld,%ld],\"sum\":%ld}\n", getpid(),
	       pages[0] * 4096, pages[1] * 4096, pages[2] * 4096, pages[3] * 4096, sum);
	return 0;
}

/* The remap modes' line: the file's pages 8, 10, 12 and 14, mapped from `address` on. */
static int print_remapped(const char *address, long sum)
{
	printf("{\"pid\":%d,\"offsets\":[%ld,%ld,%ld,%ld],\"address\":%lu,\"sum\":%ld}\n", getpid(),
	       8 * 4096L, 10 * 4096L, 12 * 4096L, 14 * 4096L, (unsigned long)address, sum);
	return 0;
}

static int do_mmap_reuse(const char *path)
{
	int fd = open_or_die(path, O_RDONLY);
	char *a = mmap(NULL, 16 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long sum = 0;

	if (a == MAP_FAILED)
		return 1;
	for (int i = 0; i < 16; i++)
		a[i * 4096] = 1;
	for (int i = 0; i < 4; i++) {
		volatile char *m = mmap(a + i * 2 * 4096, 4096, PROT_READ, MAP_SHARED | MAP_FIXED,
					fd, (8 + i * 2) * 4096L);

		if (m == MAP_FAILED)
			return 1;
		sum += m[0];
	}
	return print_remapped(a, sum);
}

static int do_mmap_reuse_two(const char *path)
{
	int fd = open_or_die(path, O_RDONLY);
	char *a = mmap(NULL, 16 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *b = mmap(NULL, 16 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long sum = 0;

	if (a == MAP_FAILED || b == MAP_FAILED)
		return 1;
	for (int i = 0; i < 8; i++)
		a[i * 4096] = 1;
	for (int i = 0; i < 16; i++)
		b[i * 4096] = 1;
	for (int i = 0; i < 4; i++)
		if (mmap(b + i * 2 * 4096, 4096, PROT_READ, MAP_SHARED | MAP_FIXED, fd,
			 (8 + i * 2) * 4096L) == MAP_FAILED)
			return 1;
	a[8 * 4096] = 1; /* a fault in the first, after the file was mapped */
	for (int i = 0; i < 4; i++)
		sum += ((volatile char *)b)[i * 2 * 4096];
	return print_remapped(b, sum);
}

static int do_mmap_moved(const char *path)
{
	int fd = open_or_die(path, O_RDONLY);
	char *f[4], *a;
	long sum = 0;

	for (int i = 0; i < 4; i++) { /* one page each, as in do_mmap */
		f[i] = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, (8 + i * 2) * 4096L);
		if (f[i] == MAP_FAILED)
			return 1;
	}
	a = mmap(NULL, 16 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED)
		return 1;
	for (int i = 0; i < 16; i++) /* after the file's mmaps: remembered as anonymous */
		a[i * 4096] = 1;
	for (int i = 0; i < 4; i++)
		if (mremap(f[i], 4096, 4096, MREMAP_MAYMOVE | MREMAP_FIXED, a + i * 2 * 4096) ==
		    MAP_FAILED)
			return 1;
	for (int i = 0; i < 4; i++)
		sum += ((volatile char *)a)[i * 2 * 4096];
	return print_remapped(a, sum);
}

static int do_mmap_changed(const char *path)
{
	const long span = 8 * MiB, page = 4096;
	int fd = open_or_die(path, O_RDONLY);
	char *m = mmap(NULL, span, PROT_READ, MAP_SHARED, fd, 0), *a;
	long sum = 0;

	/* 2 MiB apart: one fault maps at most a page table's 2 MiB (a large folio, fault-around) */
	if (m == MAP_FAILED)
		return 1;
	sum += ((volatile char *)m)[3 * page];
	sum += ((volatile char *)m)[515 * page];
	if (mprotect(m, span, PROT_READ | PROT_EXEC))
		return 1;
	sum += ((volatile char *)m)[1027 * page];
	if (mmap(m, span, PROT_READ, MAP_SHARED | MAP_FIXED, fd, span) != m)
		return 1;
	sum += ((volatile char *)m)[1539 * page];
	if (munmap(m, span))
		return 1;
	a = mmap(m, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
		 -1, 0);
	if (a != m)
		return 1;
	a[3 * page] = 1;
	/* the file faults: [offset, address, executable] */
	printf("{\"pid\":%d,\"faults\":[[%ld,%lu,0],[%ld,%lu,0],[%ld,%lu,1],[%ld,%lu,0]],"
	       "\"sum\":%ld}\n",
	       getpid(), 3 * page, (unsigned long)m + 3 * page, 515 * page,
	       (unsigned long)m + 515 * page, 1027 * page, (unsigned long)m + 1027 * page,
	       span + 1539 * page, (unsigned long)m + 1539 * page, sum);
	return 0;
}

static int do_cache(const char *path)
{
	char *buf = malloc(MiB);
	int fd = open_or_die(path, O_RDONLY);
	ssize_t cold, hot;

	if (!buf || fdatasync(fd) || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
		return 1;
	cold = pread(fd, buf, MiB, 0);
	hot = pread(fd, buf, MiB, 0);
	printf("{\"pid\":%d,\"cold\":%zd,\"hot\":%zd}\n", getpid(), cold, hot);
	return 0;
}

/* Sectors of a partition's start on its disk (0 for a whole disk). */
static unsigned long long partition_start(dev_t dev)
{
	char path[128];
	unsigned long long start = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/start", major(dev), minor(dev));
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%llu", &start) != 1)
			start = 0;
		fclose(f);
	}
	return start;
}

static int do_block(const char *path)
{
	struct {
		struct fiemap map;
		struct fiemap_extent extents[32];
	} fm;
	struct stat st;
	void *buf;
	int fd = open_or_die(path, O_RDONLY | O_DIRECT);
	unsigned long long base;
	ssize_t n;

	if (posix_memalign(&buf, 4096, 256 * 1024) || fstat(fd, &st))
		return 1;
	memset(&fm, 0, sizeof(fm));
	fm.map.fm_length = 256 * 1024;
	fm.map.fm_flags = FIEMAP_FLAG_SYNC;
	fm.map.fm_extent_count = 32;
	if (ioctl(fd, FS_IOC_FIEMAP, &fm.map))
		return 1;
	n = pread(fd, buf, 256 * 1024, 0);
	base = partition_start(st.st_dev);
	printf("{\"pid\":%d,\"bytes\":%zd,\"dev\":\"%u:%u\",\"extents\":[", getpid(), n,
	       major(st.st_dev), minor(st.st_dev));
	for (unsigned i = 0; i < fm.map.fm_mapped_extents; i++)
		printf("%s[%llu,%llu]", i ? "," : "", base + fm.extents[i].fe_physical / 512,
		       (unsigned long long)fm.extents[i].fe_length / 512);
	printf("]}\n");
	return n == 256 * 1024 ? 0 : 1;
}

/*
 * One 2 MiB O_DIRECT read of a block device: several bios under one plug.
 * When the device's requests are few and small, the process sleeps for a
 * request while its plug holds others, and kblockd dispatches those.
 */
static int do_block_device(const char *path)
{
	enum { SIZE = 2 << 20 };
	struct stat st;
	void *buf;
	int fd = open_or_die(path, O_RDONLY | O_DIRECT);
	ssize_t n;

	if (posix_memalign(&buf, 4096, SIZE) || fstat(fd, &st))
		return 1;
	n = pread(fd, buf, SIZE, 0);
	printf("{\"pid\":%d,\"dev\":\"%u:%u\",\"bytes\":%zd}\n", getpid(), major(st.st_rdev),
	       minor(st.st_rdev), n);
	return n == SIZE ? 0 : 1;
}

static int do_uring(const char *path)
{
	static const struct {
		unsigned len;
		long long off;
	} reqs[] = {{4096, 0}, {8192, 4096}, {100, 20000}};
	struct io_uring ring;
	static char buf[3][8192];
	int fd = open_or_die(path, O_RDONLY);
	int res[3] = {0};

	if (io_uring_queue_init(8, &ring, 0))
		return 1;
	for (int i = 0; i < 3; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		io_uring_prep_read(sqe, fd, buf[i], reqs[i].len, reqs[i].off);
		sqe->user_data = 100 + i;
	}
	if (io_uring_submit(&ring) != 3)
		return 1;
	for (int i = 0; i < 3; i++) {
		struct io_uring_cqe *cqe;

		if (io_uring_wait_cqe(&ring, &cqe))
			return 1;
		res[cqe->user_data - 100] = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
	}
	io_uring_queue_exit(&ring);
	printf("{\"pid\":%d,\"fd\":%d,\"res\":[%d,%d,%d]}\n", getpid(), fd, res[0], res[1], res[2]);
	return 0;
}

static int do_vfs(const char *path, const char *out)
{
	char buf[4096];
	int in = open_or_die(path, O_RDONLY), o = open_or_die(out, O_WRONLY | O_CREAT | O_TRUNC);
	ssize_t r = read(in, buf, sizeof(buf)), w = write(o, buf, r > 0 ? r : 0);
	off_t off = 0;
	ssize_t s;

	if (fsync(o))
		return 1;
	s = sendfile(o, in, &off, 1000);
	printf("{\"pid\":%d,\"read\":%zd,\"write\":%zd,\"sendfile\":%zd}\n", getpid(), r, w, s);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "mmap"))
		return do_mmap(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "mmap-reuse"))
		return do_mmap_reuse(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "mmap-reuse-two"))
		return do_mmap_reuse_two(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "mmap-moved"))
		return do_mmap_moved(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "mmap-changed"))
		return do_mmap_changed(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "cache"))
		return do_cache(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "block"))
		return do_block(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "block-device"))
		return do_block_device(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "uring"))
		return do_uring(argv[2]);
	if (argc >= 4 && !strcmp(argv[1], "vfs"))
		return do_vfs(argv[2], argv[3]);
	fprintf(
	    stderr,
	    "usage: layer_io mmap|mmap-reuse|mmap-reuse-two|mmap-moved|mmap-changed|cache|block|"
	    "block-device|uring FILE | "
	    "vfs FILE OUT\n");
	return 2;
}
