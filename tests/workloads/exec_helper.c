// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Exec'd by io_sequence: reads 10 bytes of FILE and logs it like io_sequence. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[10];
	long fd, r;
	int pid = getpid();

	if (argc != 2)
		return 2;
	fd = syscall(SYS_openat, AT_FDCWD, argv[1], O_RDONLY);
	printf(
	    "{\"sys\":\"openat\",\"pid\":%d,\"tid\":%d,\"fd\":-100,\"path\":\"%s\",\"offset\":-1,"
	    "\"size\":-1,\"ret\":%ld}\n",
	    pid, pid, argv[1], fd < 0 ? -errno : fd);
	r = syscall(SYS_read, fd, buf, sizeof(buf));
	printf("{\"sys\":\"read\",\"pid\":%d,\"tid\":%d,\"fd\":%ld,\"path\":\"%s\",\"offset\":0,"
	       "\"size\":10,\"ret\":%ld}\n",
	       pid, pid, fd, argv[1], r < 0 ? -errno : r);
	r = syscall(SYS_close, fd);
	printf("{\"sys\":\"close\",\"pid\":%d,\"tid\":%d,\"fd\":%ld,\"path\":\"%s\",\"offset\":-1,"
	       "\"size\":-1,\"ret\":%ld}\n",
	       pid, pid, fd, argv[1], r < 0 ? -errno : r);
	return 0;
}
