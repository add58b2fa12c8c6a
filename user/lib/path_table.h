/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Interned, reference-counted file paths.  Each path keeps its JSON form
 * ready to copy into events ("path":"..." and, when the name is not valid
 * UTF-8, "path_hex":"..." with the exact bytes), so the per-event cost of
 * naming a file is one memcpy.
 */
#ifndef PATH_TABLE_H
#define PATH_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct path_ref {
	struct path_ref *next; /* hash chain */
	uint64_t hash;
	uint32_t refs;
	uint32_t len;	   /* bytes of raw */
	uint32_t json_len; /* bytes of escaped */
	bool lossy;	   /* raw is not valid UTF-8: JSON also carries the hex */
	char *escaped;	   /* the JSON-escaped name, no quotes */
	char raw[];	   /* the name, NUL-terminated */
};

/* Find or add `name`; returns a new reference. */
struct path_ref *path_intern(const char *name, size_t len);
struct path_ref *path_get(struct path_ref *p);
void path_put(struct path_ref *p);
/* Number of interned paths alive (for tests and memory checks). */
size_t path_count(void);

/*
 * Write `"<key>":"<escaped>"` (and `,"<key>_hex":"..."` when lossy) into
 * out, which must hold path_json_max(p, key) bytes; returns bytes written.
 */
size_t path_json(const struct path_ref *p, const char *key, char *out);
size_t path_json_max(const struct path_ref *p, const char *key);

#endif
