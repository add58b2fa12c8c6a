// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * metadata storm: open/fstat/read/close over FILES small files, PASSES times.
 *
 * Usage: metadata_storm --create DIR FILES   make DIR/f00000 ... (512 bytes each)
 *        metadata_storm DIR FILES PASSES     the timed storm
 *
 * Prints one JSON object: "calls" (4 per file and pass), "elapsed_ns",
 * "ns_per_call".  fstat is glibc's, whatever syscall that makes.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FILE_BYTES 512

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static char **file_names(const char *dir, long files)
{
	char **names = calloc(files, sizeof(*names));

	for (long i = 0; names && i < files; i++) {
		if (asprintf(&names[i], "%s/f%05ld", dir, i) < 0) {
			perror("asprintf");
			exit(1);
		}
	}
	return names;
}

static int create_files(char **names, long files)
{
	char data[FILE_BYTES];

	memset(data, 'x', sizeof(data));
	for (long i = 0; i < files; i++) {
		int fd = open(names[i], O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0 || write(fd, data, sizeof(data)) != sizeof(data) || close(fd)) {
			perror(names[i]);
			return 1;
		}
	}
	return 0;
}

static void visit(const char *name)
{
	char buf[4096];
	struct stat st;
	int fd = open(name, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) || read(fd, buf, sizeof(buf)) != FILE_BYTES || close(fd)) {
		perror(name);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	int create = argc == 4 && !strcmp(argv[1], "--create");
	const char *dir = argv[create ? 2 : 1];
	long files, passes = 1;
	uint64_t start, elapsed;
	char **names;

	if (argc != 4) {
		fprintf(stderr, "usage: metadata_storm [--create] DIR FILES [PASSES]\n");
		return 2;
	}
	files = atol(argv[create ? 3 : 2]);
	if (!create)
		passes = atol(argv[3]);
	names = file_names(dir, files);
	if (files < 1 || passes < 1 || !names) {
		fprintf(stderr, "metadata_storm: FILES and PASSES must be positive\n");
		return 2;
	}
	if (create)
		return create_files(names, files);
	start = now_ns();
	for (long p = 0; p < passes; p++)
		for (long i = 0; i < files; i++)
			visit(names[i]);
	elapsed = now_ns() - start;
	printf("{\"workload\":\"metadata\",\"files\":%ld,\"passes\":%ld,\"calls\":%ld,"
	       "\"elapsed_ns\":%llu,\"ns_per_call\":%.1f}\n",
	       files, passes, 4 * files * passes, (unsigned long long)elapsed,
	       (double)elapsed / (4.0 * files * passes));
	return 0;
}
