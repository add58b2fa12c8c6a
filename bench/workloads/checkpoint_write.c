// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * checkpoint: write MIB MiB to a new FILE in 1 MiB writes, then fsync.
 *
 * Usage: checkpoint_write FILE MIB
 * Prints one JSON object: "calls" (open, writes, fsync, close), "elapsed_ns" (open to
 * the end of fsync), "write_ns", "fsync_ns".  The file is left for the
 * caller to remove.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (1 << 20)

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	uint64_t start, written, end;
	char *chunk = malloc(CHUNK);
	long mib;
	int fd;

	if (argc != 3 || (mib = atol(argv[2])) < 1 || !chunk) {
		fprintf(stderr, "usage: checkpoint_write FILE MIB\n");
		return 2;
	}
	for (int i = 0; i < CHUNK; i++)
		chunk[i] = (char)(i * 131 + 7);
	start = now_ns();
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	for (long i = 0; i < mib; i++) {
		chunk[0] = (char)i;
		if (write(fd, chunk, CHUNK) != CHUNK) {
			perror("write");
			return 1;
		}
	}
	written = now_ns();
	if (fsync(fd) || close(fd)) {
		perror("fsync");
		return 1;
	}
	end = now_ns();
	printf("{\"workload\":\"checkpoint\",\"calls\":%ld,\"elapsed_ns\":%llu,\"write_ns\":%llu,"
	       "\"fsync_ns\":%llu,\"ns_per_call\":%.1f}\n",
	       mib + 3, (unsigned long long)(end - start), (unsigned long long)(written - start),
	       (unsigned long long)(end - written), (double)(end - start) / (mib + 3));
	return 0;
}
