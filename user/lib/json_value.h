/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * json-c values of dltrace's data.  json-c escapes a string but takes its
 * bytes as UTF-8 as they are; file names, command lines and cgroup paths
 * are any bytes, so strings go through jv_string, which writes the bytes
 * that are not UTF-8 as U+FFFD, as the traces do (lib/json_string.h).
 */
#ifndef JSON_VALUE_H
#define JSON_VALUE_H

#include <json-c/json.h>
#include <stddef.h>

/* How dltrace writes JSON: no spaces, '/' as it is. */
#define JV_TO_STRING (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* A string of any bytes (NULL on out of memory: written as null). */
struct json_object *jv_string(const char *s, size_t len);

/*
 * Add v to the object o under key, a string that outlives o and differs
 * from o's other keys (members keep the order they were added in).  When
 * that fails (out of memory, o NULL), v is freed.
 */
void jv_add(struct json_object *o, const char *key, struct json_object *v);

/* Append v to the array a; when that fails, v is freed. */
void jv_push(struct json_object *a, struct json_object *v);

#endif
