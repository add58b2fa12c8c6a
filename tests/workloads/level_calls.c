// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Library calls with known counts, sizes and offsets, for the library
 * layers' tests.
 *
 * level_calls stdio DIR
 *   fopen DIR/stdio.bin "w"; 4 x fwrite(buf, 1, 4096); fflush; fclose;
 *   fopen "r"; 3 x fread(buf, 1, 1000); fseek(8192, SEEK_SET); ftell;
 *   fread(buf, 4096, 1); fclose.  Unbuffered writes of the stream go out
 *   at fflush, reads fill the stream's buffer: each call's syscalls are
 *   inside its slice.
 * level_calls stdio-seeks FILE N
 *   fopen FILE "r"; N x (fseek to block (7 i) mod (FILE's blocks of 4 KiB),
 *   fread 8 bytes); fclose.  Each fread after a seek refills the stream's
 *   buffer: one read of the buffer's size (st_blksize) for 8 bytes.
 * level_calls hdf5 LIB FILE DATASET
 *   dlopen LIB (libhdf5) only now, then H5Fopen FILE, H5Dopen2 DATASET,
 *   H5Dread of all of it as native ints, H5Dclose, H5Fclose.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char buf[1 << 20];

static int stdio_calls(const char *dir)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/stdio.bin", dir);
	memset(buf, 'x', 4096);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return 1;
	}
	for (int i = 0; i < 4; i++)
		if (fwrite(buf, 1, 4096, f) != 4096)
			return 1;
	if (fflush(f) || fclose(f))
		return 1;
	f = fopen(path, "r");
	if (!f)
		return 1;
	for (int i = 0; i < 3; i++)
		if (fread(buf, 1, 1000, f) != 1000)
			return 1;
	if (fseek(f, 8192, SEEK_SET) || ftell(f) != 8192 || fread(buf, 4096, 1, f) != 1)
		return 1;
	return fclose(f) ? 1 : 0;
}

static int stdio_seeks(const char *path, long n)
{
	FILE *f = fopen(path, "r");
	long blocks;

	if (!f || fseek(f, 0, SEEK_END))
		return 1;
	blocks = ftell(f) / 4096;
	if (blocks <= 0)
		return 1;
	for (long i = 0; i < n; i++)
		if (fseek(f, (7 * i) % blocks * 4096, SEEK_SET) || fread(buf, 1, 8, f) != 8)
			return 1;
	return fclose(f) ? 1 : 0;
}

typedef int64_t hid_t;

static int hdf5_calls(const char *lib, const char *file, const char *dataset)
{
	void *h = dlopen(lib, RTLD_NOW);
	int (*h5open)(void);
	hid_t (*fopen_)(const char *, unsigned, hid_t);
	hid_t (*dopen)(hid_t, const char *, hid_t);
	int (*dread)(hid_t, hid_t, hid_t, hid_t, hid_t, void *);
	int (*dclose)(hid_t), (*fclose_)(hid_t);
	hid_t *native_int, fid, did;

	if (!h) {
		fprintf(stderr, "level_calls: %s\n", dlerror());
		return 1;
	}
	h5open = dlsym(h, "H5open");
	fopen_ = dlsym(h, "H5Fopen");
	dopen = dlsym(h, "H5Dopen2");
	dread = dlsym(h, "H5Dread");
	dclose = dlsym(h, "H5Dclose");
	fclose_ = dlsym(h, "H5Fclose");
	native_int = dlsym(h, "H5T_NATIVE_INT_g");
	if (!h5open || !fopen_ || !dopen || !dread || !dclose || !fclose_ || !native_int ||
	    h5open() < 0)
		return 1;
	/* H5F_ACC_RDONLY = 0, H5P_DEFAULT = 0, H5S_ALL = 0 */
	fid = fopen_(file, 0, 0);
	if (fid < 0)
		return 1;
	did = dopen(fid, dataset, 0);
	if (did < 0 || dread(did, *native_int, 0, 0, 0, buf) < 0 || dclose(did) < 0)
		return 1;
	return fclose_(fid) < 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "stdio"))
		return stdio_calls(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "stdio-seeks"))
		return stdio_seeks(argv[2], atol(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "hdf5"))
		return hdf5_calls(argv[2], argv[3], argv[4]);
	fprintf(stderr, "usage: level_calls stdio DIR | stdio-seeks FILE N | hdf5 LIB FILE "
			"DATASET\n");
	return 2;
}
