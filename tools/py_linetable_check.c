// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The line-table decoder (user/lib/py_linetable.c) against what CPython
 * itself says.  Input, from tests/workloads/py_linetable_dump.py:
 *   T MINOR FIRSTLINENO HEX_TABLE NAME   a code object's table
 *   L LASTI LINE                          CPython's line for an instruction
 * Prints one line per disagreement and "checked N mismatches M" at the end;
 * exits 1 when there was any.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/py_linetable.h"

int main(void)
{
	static char line[1 << 20];
	static unsigned char table[1 << 19];
	char name[256] = "";
	size_t len = 0;
	int minor = 0, first = 0;
	long checked = 0, bad = 0;

	while (fgets(line, sizeof(line), stdin)) {
		if (line[0] == 'T') {
			char *hex = malloc(sizeof(line));

			if (!hex || sscanf(line, "T %d %d %s %255s", &minor, &first, hex, name) < 3)
				return 2;
			if (!strcmp(hex, "-"))
				hex[0] = '\0';
			len = strlen(hex) / 2;
			for (size_t i = 0; i < len; i++)
				sscanf(hex + 2 * i, "%2hhx", &table[i]);
			free(hex);
		} else if (line[0] == 'L') {
			int lasti, want, got;

			if (sscanf(line, "L %d %d", &lasti, &want) != 2)
				return 2;
			got = py_line_of(table, len, minor, first, lasti);
			checked++;
			if (got != want) {
				bad++;
				if (bad <= 20)
					printf("mismatch %s lasti %d: CPython %d, decoder %d\n",
					       name, lasti, want, got);
			}
		}
	}
	printf("checked %ld mismatches %ld\n", checked, bad);
	return bad != 0;
}
