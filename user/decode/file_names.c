// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "decode/file_names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/path_rebuild.h"
#include "lib/fs_names.h"

#define SOCKFS_MAGIC	    0x534f434b
#define PIPEFS_MAGIC	    0x50495045
#define ANON_INODE_FS_MAGIC 0x09041934
#define PIDFS_MAGIC	    0x50494446
#define S_IFMT_BITS	    0170000
#define S_IFSOCK_BITS	    0140000

void file_names_init(struct file_names *m)
{
	id_map_init(&m->by_cookie);
}

static void entry_free(struct file_name *n)
{
	path_put(n->path);
	free(n);
}

void file_names_free(struct file_names *m)
{
	uint32_t key;
	void *v;

	for (size_t i = 0; id_map_next(&m->by_cookie, &i, &key, &v);)
		entry_free(v);
	id_map_free(&m->by_cookie);
}

/* What /proc/PID/fd would show for the file (see file_names.h); its length. */
static size_t display_name(const struct dl_file *rec, const char *walk, const char *name, char *out)
{
	unsigned long long ino = rec->ino;
	const char *fs;

	if (rec->fs_magic == SOCKFS_MAGIC || (rec->mode & S_IFMT_BITS) == S_IFSOCK_BITS)
		return sprintf(out, "socket:[%llu]", ino);
	if (rec->fs_magic == PIPEFS_MAGIC)
		return sprintf(out, "pipe:[%llu]", ino);
	if (rec->fs_magic == PIDFS_MAGIC)
		return sprintf(out, "anon_inode:[pidfd]");
	if (rec->fs_magic == ANON_INODE_FS_MAGIC)
		return sprintf(out, "anon_inode:%.*s", (int)rec->name_len, name);
	if (rec->base_len)
		return path_rebuild(walk, rec->base_len, "", 0, rec->how, out);
	if (rec->name_len) { /* memfd:NAME, or another pseudo file's own name */
		memcpy(out, name, rec->name_len);
		out[rec->name_len] = '\0';
		return rec->name_len;
	}
	fs = fs_name(rec->fs_magic);
	if (fs)
		return sprintf(out, "%s:[%llu]", fs, ino);
	return sprintf(out, "0x%x:[%llu]", (unsigned)rec->fs_magic, ino);
}

const struct file_name *file_names_add(struct file_names *m, const struct dl_file *rec, size_t size)
{
	char out[PATH_REBUILD_MAX + 64];
	struct file_name *n, *old;
	size_t len;

	if (size < sizeof(*rec) || !rec->cookie ||
	    sizeof(*rec) + rec->base_len + rec->name_len > size || rec->base_len > DL_PATH_MAX ||
	    rec->name_len > DL_NAME_MAX)
		return NULL;
	len = display_name(rec, rec->data, rec->data + rec->base_len, out);
	n = calloc(1, sizeof(*n));
	if (!n)
		abort();
	n->ino = rec->ino;
	n->dev = rec->dev;
	if ((rec->mode & S_IFMT_BITS) == S_IFSOCK_BITS)
		n->family = rec->family;
	n->path = len ? path_intern(out, len) : NULL;
	old = id_map_put(&m->by_cookie, rec->cookie, n);
	if (old)
		entry_free(old);
	return n;
}

const struct file_name *file_names_get(const struct file_names *m, uint32_t cookie)
{
	return cookie ? id_map_get(&m->by_cookie, cookie) : NULL;
}
