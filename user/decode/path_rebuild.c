// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "decode/path_rebuild.h"

#include <string.h>

#include "bpf/dltrace_events.h"

size_t path_normalize(char *path, size_t len)
{
	size_t in = 0, out = 0;

	if (!len || path[0] != '/')
		return len;
	while (in < len) {
		size_t start, n;

		while (in < len && path[in] == '/')
			in++;
		start = in;
		while (in < len && path[in] != '/')
			in++;
		n = in - start;
		if (n == 0 || (n == 1 && path[start] == '.'))
			continue;
		if (n == 2 && path[start] == '.' && path[start + 1] == '.') {
			while (out > 0 && path[out - 1] != '/')
				out--;
			if (out > 0)
				out--; /* drop the separator */
			continue;
		}
		path[out++] = '/';
		memmove(path + out, path + start, n);
		out += n;
	}
	if (out == 0)
		path[out++] = '/';
	path[out] = '\0';
	return out;
}

size_t path_rebuild(const char *base, size_t base_len, const char *name, size_t name_len,
		    uint8_t how, char *out)
{
	size_t len = 0;

	if (name_len && name[0] == '/') {
		memcpy(out, name, name_len);
		len = name_len;
	} else {
		if (how & DL_PATH_TRUNC) {
			memcpy(out, "...", 3); /* ancestors beyond what the walk could see */
			len = 3;
		}
		/* components were written leaf first: emit them from the end */
		size_t end = base_len;

		while (end > 0) {
			size_t stop = end, start;

			while (stop > 0 && base[stop - 1] == '/')
				stop--;
			start = stop;
			while (start > 0 && base[start - 1] != '/')
				start--;
			if (stop > start) {
				out[len++] = '/';
				memcpy(out + len, base + start, stop - start);
				len += stop - start;
			}
			end = start;
		}
		if (len == 0 && (how & DL_PATH_ROOTED))
			out[len++] = '/'; /* the base is the root itself */
		if (name_len) {
			if (len && out[len - 1] != '/')
				out[len++] = '/';
			memcpy(out + len, name, name_len);
			len += name_len;
		}
	}
	out[len] = '\0';
	if (!(how & (DL_PATH_TRUNC | DL_PATH_DETACHED)))
		len = path_normalize(out, len);
	return len;
}
