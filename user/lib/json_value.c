// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "lib/json_value.h"

#include <limits.h>
#include <stdlib.h>

#include "lib/json_string.h"

struct json_object *jv_string(const char *s, size_t len)
{
	struct json_object *o;
	char *repaired;

	if (len > INT_MAX / 3)
		len = INT_MAX / 3;
	if (utf8_valid(s, len))
		return json_object_new_string_len(s, (int)len);
	repaired = malloc(UTF8_REPAIRED_MAX(len) + 1);
	if (!repaired)
		return NULL;
	o = json_object_new_string_len(repaired, (int)utf8_repair(repaired, s, len));
	free(repaired);
	return o;
}

void jv_add(struct json_object *o, const char *key, struct json_object *v)
{
	const unsigned flags = JSON_C_OBJECT_ADD_KEY_IS_NEW | JSON_C_OBJECT_KEY_IS_CONSTANT;

	if (!o || json_object_object_add_ex(o, key, v, flags))
		json_object_put(v);
}

void jv_push(struct json_object *a, struct json_object *v)
{
	if (!a || json_object_array_add(a, v))
		json_object_put(v);
}
