// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * splice, tee and vmsplice between files and pipes, with known arguments:
 *
 *   splice_cases IN OUT   IN: at least 16 KiB; OUT: created (truncated)
 *     splice(IN, &4096, p[1], NULL, 8192, SPLICE_F_MOVE)   8192 bytes of IN at 4096
 *     tee(p[0], q[1], 8192, 0)                             copies them to q
 *     splice(p[0], NULL, OUT, NULL, 8192, 0)               into OUT at its position 0
 *     read q dry, then vmsplice(q[1], {100, 200}, 2, 0)    300 bytes of memory
 *   Prints one JSON line: pid, the descriptors, and each call's return.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char buf[8192];
	int p[2], q[2], in, out;
	loff_t off = 4096;
	struct iovec iov[2] = {{buf, 100}, {buf + 100, 200}};
	ssize_t s1, t, s2, v;

	if (argc < 3 || pipe(p) || pipe(q))
		return 2;
	in = open(argv[1], O_RDONLY);
	out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (in < 0 || out < 0)
		return 1;
	s1 = splice(in, &off, p[1], NULL, 8192, SPLICE_F_MOVE);
	t = tee(p[0], q[1], 8192, 0);
	s2 = splice(p[0], NULL, out, NULL, 8192, 0);
	if (read(q[0], buf, sizeof(buf)) != 8192)
		return 1;
	v = vmsplice(q[1], iov, 2, 0);
	printf("{\"pid\":%d,\"in\":%d,\"out\":%d,\"p\":[%d,%d],\"q\":[%d,%d],"
	       "\"ret\":[%zd,%zd,%zd,%zd]}\n",
	       getpid(), in, out, p[0], p[1], q[0], q[1], s1, t, s2, v);
	return 0;
}
