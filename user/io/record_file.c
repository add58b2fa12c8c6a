// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "io/record_file.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

FILE *record_file_create(const char *path)
{
	FILE *f = fopen(path, "we");

	if (f && fwrite(RECORD_FILE_MAGIC, 1, 8, f) != 8) {
		fclose(f);
		return NULL;
	}
	return f;
}

int record_file_append(FILE *f, const void *data, size_t size)
{
	uint32_t len = size;

	if (fwrite(&len, sizeof(len), 1, f) != 1 || fwrite(data, 1, size, f) != size)
		return -1;
	return 0;
}

int record_file_load(const char *path, char **buf, size_t *len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	char magic[8];
	long size;

	*buf = NULL;
	*len = 0;
	if (!f) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (fread(magic, 1, 8, f) != 8 || memcmp(magic, RECORD_FILE_MAGIC, 8) ||
	    fseek(f, 0, SEEK_END) || (size = ftell(f)) < 8 || fseek(f, 8, SEEK_SET)) {
		snprintf(err, errlen, "%s is not a file of dltrace records", path);
		fclose(f);
		return -1;
	}
	*len = size - 8;
	*buf = malloc(*len ? *len : 1);
	if (!*buf || fread(*buf, 1, *len, f) != *len) {
		snprintf(err, errlen, "cannot read %s", path);
		free(*buf);
		*buf = NULL;
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}
