// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "lib/cgroup_mounts.h"

#include <stdio.h>
#include <string.h>

/* Is `word` one of the comma-separated words of `list`? */
static bool has_word(const char *list, const char *word, size_t len)
{
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");

		if (n == len && !memcmp(p, word, len))
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

/* Does a v1 mount's options name every controller of `controllers`? */
static bool has_controllers(const char *opts, const char *controllers)
{
	for (const char *c = controllers; *c;) {
		size_t n = strcspn(c, ",");

		if (n && !has_word(opts, c, n))
			return false;
		c += n + (c[n] == ',');
	}
	return true;
}

bool cgroup_mount_of(const char *controllers, char *dir, size_t size)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	int best = 0;

	if (!f)
		return false;
	/* ID PARENT MAJ:MIN ROOT MOUNTPOINT ... - FSTYPE SOURCE OPTIONS */
	while (fgets(line, sizeof(line), f)) {
		char root[256], mnt[1024], fstype[32], opts[1024], *dash = strstr(line, " - ");
		int score;

		if (!dash || sscanf(line, "%*s %*s %*s %255s %1023s", root, mnt) != 2 ||
		    sscanf(dash + 3, "%31s %*s %1023s", fstype, opts) != 2)
			continue;
		if (*controllers ? strcmp(fstype, "cgroup") || !has_controllers(opts, controllers)
				 : strcmp(fstype, "cgroup2"))
			continue;
		/* a subtree's bind mount is the last resort: its paths are not the hierarchy's */
		score = 1 + 2 * !strcmp(root, "/") + !strcmp(mnt, "/sys/fs/cgroup");
		if (score > best) {
			snprintf(dir, size, "%s", mnt);
			best = score;
		}
	}
	fclose(f);
	return best > 0;
}
