// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "probe/program_files.h"

#include "lib/elf_file.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_SHEBANGS 4

#if defined(__x86_64__)
#define MULTIARCH "x86_64-linux-gnu"
#elif defined(__aarch64__)
#define MULTIARCH "aarch64-linux-gnu"
#else
#define MULTIARCH ""
#endif

static bool runnable(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}

/* argv0 as execvp() finds it: as is when it has a '/', else the first hit in PATH. */
static int path_lookup(const char *argv0, char *out, size_t len)
{
	const char *path = getenv("PATH"), *p, *end;

	if (strchr(argv0, '/'))
		return snprintf(out, len, "%s", argv0) < (int)len && runnable(out) ? 0 : -1;
	if (!path)
		path = "/bin:/usr/bin";
	for (p = path; *p; p = *end ? end + 1 : end) {
		int dlen;

		end = strchrnul(p, ':');
		dlen = (int)(end - p);
		/* an empty entry is the current directory, as for execvp */
		if (snprintf(out, len, "%.*s%s%s", dlen, p, dlen ? "/" : "", argv0) < (int)len &&
		    runnable(out))
			return 0;
	}
	return -1;
}

/*
 * A "#!" line's program, and for env the command it runs: into next.
 * 1 when it is one, 0 when the file is no script, -1 on error.
 */
static int shebang_next(const char *path, char *next, size_t len)
{
	char line[256], *p, *interp, *arg;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, line, sizeof(line) - 1);
	close(fd);
	if (n < 2 || line[0] != '#' || line[1] != '!')
		return 0;
	line[n] = '\0';
	line[strcspn(line, "\n")] = '\0';
	p = line + 2 + strspn(line + 2, " \t");
	interp = p;
	p += strcspn(p, " \t");
	if (*p)
		*p++ = '\0';
	p += strspn(p, " \t");
	arg = p;
	if (strcmp(strrchr(interp, '/') ? strrchr(interp, '/') + 1 : interp, "env"))
		return snprintf(next, len, "%s", interp) < (int)len ? 1 : -1;
	/* env [-S] [-i] [NAME=VALUE]... command: the first word that is neither */
	for (;;) {
		char *w = arg;

		arg += strcspn(arg, " \t");
		if (*arg)
			*arg++ = '\0';
		arg += strspn(arg, " \t");
		if (!*w)
			return -1;
		if (w[0] == '-' || strchr(w, '='))
			continue;
		return path_lookup(w, next, len) ? -1 : 1;
	}
}

int program_resolve(const char *argv0, char *out, size_t len)
{
	char cur[PATH_MAX], next[PATH_MAX];

	if (path_lookup(argv0, cur, sizeof(cur)))
		return -1;
	for (int i = 0; i <= MAX_SHEBANGS; i++) {
		int r = shebang_next(cur, next, sizeof(next));

		if (r < 0)
			return -1;
		if (r == 0)
			return realpath(cur, next) && snprintf(out, len, "%s", next) < (int)len
				   ? 0
				   : -1;
		memcpy(cur, next, sizeof(cur));
	}
	return -1;
}

/* name in the ':'-separated dirs ($ORIGIN = origin): its real path in out. */
static int search_dirs(const char *dirs, const char *origin, const char *name, char *out,
		       size_t len)
{
	char dir[PATH_MAX], file[PATH_MAX];
	const char *p, *end;

	for (p = dirs; p && *p; p = *end ? end + 1 : end) {
		size_t dlen;

		end = strchrnul(p, ':');
		dlen = end - p;
		if (!dlen || dlen >= sizeof(dir))
			continue;
		memcpy(dir, p, dlen);
		dir[dlen] = '\0';
		if (!strncmp(dir, "$ORIGIN", 7) || !strncmp(dir, "${ORIGIN}", 9)) {
			const char *rest = dir + (dir[1] == '{' ? 9 : 7);

			if (snprintf(file, sizeof(file), "%s%s/%s", origin, rest, name) >=
			    (int)sizeof(file))
				continue;
		} else if (snprintf(file, sizeof(file), "%s/%s", dir, name) >= (int)sizeof(file)) {
			continue;
		}
		if (!access(file, R_OK) && realpath(file, dir) &&
		    snprintf(out, len, "%s", dir) < (int)len)
			return 0;
	}
	return -1;
}

int program_needed_find(const char *path, const char *prefix, char *out, size_t len)
{
	static const char defaults[] = "/lib/" MULTIARCH ":/usr/lib/" MULTIARCH
				       ":/lib64:/usr/lib64:/lib:/usr/lib:/usr/local/lib";
	const char *needed = NULL, *rpath = NULL, *runpath = NULL;
	char origin[PATH_MAX];
	Elf_Scn *scn = NULL;
	int fd, r = -1;
	Elf *elf;

	elf = elf_file_open(path, &fd);
	while (elf && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		GElf_Shdr sh;
		GElf_Dyn d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			const char *s;

			if (!gelf_getdyn(data, i, &d) || d.d_tag == DT_NULL)
				break;
			if (d.d_tag != DT_NEEDED && d.d_tag != DT_RPATH && d.d_tag != DT_RUNPATH)
				continue;
			s = elf_strptr(elf, sh.sh_link, d.d_un.d_val);
			if (!s)
				continue;
			if (d.d_tag == DT_NEEDED && !needed && !strncmp(s, prefix, strlen(prefix)))
				needed = s;
			else if (d.d_tag == DT_RPATH)
				rpath = s;
			else if (d.d_tag == DT_RUNPATH)
				runpath = s;
		}
		break;
	}
	if (needed) {
		char *slash;

		snprintf(origin, sizeof(origin), "%s", path);
		slash = strrchr(origin, '/');
		if (slash)
			*slash = '\0';
		else
			snprintf(origin, sizeof(origin), ".");
		if ((!runpath && !search_dirs(rpath, origin, needed, out, len)) ||
		    !search_dirs(getenv("LD_LIBRARY_PATH"), origin, needed, out, len) ||
		    !search_dirs(runpath, origin, needed, out, len) ||
		    !search_dirs(defaults, origin, needed, out, len))
			r = 0;
	}
	elf_file_close(elf, fd);
	return r;
}
