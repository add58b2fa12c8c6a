// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Checks lib/btf_names against libbpf on the running kernel's BTF: every
 * FUNC and TYPEDEF name resolves to the same first id as
 * btf__find_by_name_kind(), the type count agrees, and a truncated blob or
 * one with an unknown kind is refused.  Prints one line per finding and a
 * summary; exit 0 when everything agrees.
 *
 * Usage: btf_names_check [BTF_FILE]   (default /sys/kernel/btf/vmlinux)
 */
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/btf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/btf_names.h"

static void *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap);

	if (!f || !buf)
		return NULL;
	for (size_t got; (got = fread(buf + n, 1, cap - n, f)) > 0;) {
		n += got;
		if (n == cap && !(buf = realloc(buf, cap *= 2)))
			return NULL;
	}
	fclose(f);
	*size = n;
	return buf;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/sys/kernel/btf/vmlinux";
	size_t size = 0, wrong = 0, named = 0, first = 0;
	char *blob = slurp(path, &size);
	struct btf *btf = btf__parse(path, NULL);
	struct btf_names *n = btf_names__parse(blob, size);
	unsigned cnt;

	if (!blob || libbpf_get_error(btf) || !n) {
		fprintf(stderr, "btf_names_check: cannot read %s (%s)\n", path,
			!n ? "btf_names refused it" : "libbpf refused it");
		return 2;
	}
	cnt = btf__type_cnt(btf);
	if (btf_names__types(n) != cnt - 1) {
		printf("types: btf_names %u, libbpf %u\n", btf_names__types(n), cnt - 1);
		wrong++;
	}
	for (unsigned id = 1; id < cnt; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		int kind = btf_kind(t), got;
		const char *name = btf__name_by_offset(btf, t->name_off);

		if ((kind != BTF_KIND_FUNC && kind != BTF_KIND_TYPEDEF) || !name || !*name)
			continue;
		named++;
		got = btf_names__find(n, name, kind);
		if (got == (int)id) {
			first++;
			continue;
		}
		/* an earlier type of that name and kind, which libbpf returns too */
		if (got <= 0 || got > (int)id || got != btf__find_by_name_kind(btf, name, kind)) {
			if (wrong++ < 20)
				printf("%s (kind %d): id %u, btf_names %d\n", name, kind, id, got);
		}
	}
	if (named != btf_names__indexed(n)) {
		printf("indexed: btf_names %u, libbpf %zu\n", btf_names__indexed(n), named);
		wrong++;
	}
	if (btf_names__find(n, "no_such_function_in_any_kernel", BTF_KIND_FUNC) != -1) {
		printf("an absent name was found\n");
		wrong++;
	}
	/* refused: the blob cut short, and a type of a kind not known (31) */
	if (btf_names__parse(blob, size - 1) || btf_names__parse(blob, 16)) {
		printf("a truncated blob was accepted\n");
		wrong++;
	}
	{
		struct btf_header h;
		struct btf_type t;
		size_t at;

		memcpy(&h, blob, sizeof(h));
		at = h.hdr_len + h.type_off;
		memcpy(&t, blob + at, sizeof(t));
		t.info = (t.info & ~(0x1fu << 24)) | (31u << 24);
		memcpy(blob + at, &t, sizeof(t));
		if (btf_names__parse(blob, size)) {
			printf("a blob with an unknown kind was accepted\n");
			wrong++;
		}
	}
	printf("%u types, %zu FUNC/TYPEDEF names (%zu distinct): %zu wrong\n", cnt - 1, named,
	       first, wrong);
	btf_names__free(n);
	btf__free(btf);
	free(blob);
	return wrong ? 1 : 0;
}
