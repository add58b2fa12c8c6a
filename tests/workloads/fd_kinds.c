// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Descriptors dltrace never sees opened, each case ROUNDS times (the names
 * must not depend on timing: the rounds linger differently).  Prints one
 * JSON object per round with what the trace must say (descriptor numbers,
 * inode numbers from fstat).
 *
 * Usage: fd_kinds scm A B ROUNDS     a child receives A's descriptor over a
 *                                    unix socket (SCM_RIGHTS), reads 100
 *                                    bytes, closes it, opens B (the same
 *                                    number), reads 200 bytes, lingers
 *        fd_kinds pair ROUNDS        a socketpair, a pipe and an eventfd,
 *                                    written by a forked child, read by
 *                                    the parent, and a reply on the socket
 *        fd_kinds memfd ROUNDS       memfd_create, write 4096, mmap, munmap
 *        fd_kinds target A ROUNDS    opens A, says "ready PID FD", waits for
 *                                    a line on stdin; then per round makes
 *                                    a socketpair and forks a child that
 *                                    execs "fd_kinds reader FD SOCK" with
 *                                    both inherited, and reads its message
 *        fd_kinds reader FD SOCK     pread 100 bytes of FD at 0, write 7
 *                                    bytes on SOCK
 *        fd_kinds rename DIR ROUNDS  per round R: opens DIR/R/f, preads 10;
 *                                    says "ready R FD"; waits for a line;
 *                                    preads 20; says it again, waits; preads
 *                                    30 (the test renames the file, then its
 *                                    directory, in between)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static unsigned long long ino_of(int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		die("fstat");
	return (unsigned long long)st.st_ino;
}

static void linger_ms(int ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

static void xread(int fd, size_t n)
{
	char buf[4096];

	if (read(fd, buf, n) != (ssize_t)n)
		die("read");
}

static void xwrite(int fd, const void *buf, size_t n)
{
	if (write(fd, buf, n) != (ssize_t)n)
		die("write");
}

static void send_fd(int sock, int fd)
{
	char byte = 'f', control[CMSG_SPACE(sizeof(int))] = {0};
	struct iovec iov = {&byte, 1};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	struct cmsghdr *c;

	msg.msg_control = control;
	msg.msg_controllen = sizeof(control);
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	if (sendmsg(sock, &msg, 0) != 1)
		die("sendmsg");
}

static int recv_fd(int sock)
{
	char byte, control[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {&byte, 1};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	struct cmsghdr *c;
	int fd;

	msg.msg_control = control;
	msg.msg_controllen = sizeof(control);
	if (recvmsg(sock, &msg, 0) != 1 || !(c = CMSG_FIRSTHDR(&msg)) || c->cmsg_type != SCM_RIGHTS)
		die("recvmsg");
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/* The program: the number a received descriptor had is reused for another file. */
static void scm(const char *a, const char *b, int rounds)
{
	for (int r = 0; r < rounds; r++) {
		int sv[2], fd, n = -1;
		pid_t child;

		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
			die("socketpair");
		child = fork();
		if (child < 0)
			die("fork");
		if (child == 0) {
			close(sv[0]);
			n = recv_fd(sv[1]);
			xread(n, 100);
			close(n);
			fd = open(b, O_RDONLY);
			if (fd != n)
				_exit(3);
			xread(fd, 200);
			xwrite(sv[1], &n, sizeof(n));
			linger_ms(r * 7 % 40); /* alive (or not) when dltrace reads the records */
			_exit(0);
		}
		close(sv[1]);
		fd = open(a, O_RDONLY);
		if (fd < 0)
			die("open");
		send_fd(sv[0], fd);
		close(fd);
		if (read(sv[0], &n, sizeof(n)) != sizeof(n)) /* the number the child used */
			die("read");
		{
			int status;

			waitpid(child, &status, 0);
			if (!WIFEXITED(status) || WEXITSTATUS(status))
				exit(2);
		}
		printf("{\"round\": %d, \"child\": %d, \"fd\": %d, \"sock\": %d, \"sock_ino\": "
		       "%llu}\n",
		       r, (int)child, n, sv[0], ino_of(sv[0]));
		fflush(stdout);
		close(sv[0]);
	}
}

/* A socketpair, a pipe and an eventfd, each written by a child and read by the parent. */
static void pair(int rounds)
{
	for (int r = 0; r < rounds; r++) {
		int sv[2], pp[2], efd;
		uint64_t one = 1;
		pid_t child;
		int status;

		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) || pipe2(pp, 0))
			die("socketpair");
		efd = eventfd(0, 0);
		if (efd < 0)
			die("eventfd");
		child = fork();
		if (child < 0)
			die("fork");
		if (child == 0) {
			xwrite(sv[1], "0123456789", 10);
			xwrite(pp[1], "01234567890123456789", 20);
			xwrite(efd, &one, sizeof(one));
			xread(sv[1], 5);
			linger_ms(r * 7 % 40);
			_exit(0);
		}
		xread(sv[0], 10);
		xread(pp[0], 20);
		xread(efd, sizeof(one));
		xwrite(sv[0], "reply", 5);
		waitpid(child, &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			exit(2);
		printf("{\"round\": %d, \"child\": %d, \"sock\": [%d, %d], \"sock_ino\": [%llu, "
		       "%llu], "
		       "\"pipe\": [%d, %d], \"pipe_ino\": %llu, \"eventfd\": %d}\n",
		       r, (int)child, sv[0], sv[1], ino_of(sv[0]), ino_of(sv[1]), pp[0], pp[1],
		       ino_of(pp[0]), efd);
		fflush(stdout);
		close(sv[0]);
		close(sv[1]);
		close(pp[0]);
		close(pp[1]);
		close(efd);
	}
}

static void memfd(int rounds)
{
	static char page[4096];

	for (int r = 0; r < rounds; r++) {
		int fd = memfd_create("dltrace-mem", 0);
		volatile char *p;

		if (fd < 0)
			die("memfd_create");
		memset(page, 'a' + r, sizeof(page));
		xwrite(fd, page, sizeof(page));
		p = mmap(NULL, sizeof(page), PROT_READ, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			die("mmap");
		if (p[0] != 'a' + r)
			exit(2);
		munmap((void *)p, sizeof(page));
		printf("{\"round\": %d, \"fd\": %d, \"ino\": %llu}\n", r, fd, ino_of(fd));
		close(fd);
	}
}

static void target(const char *a, int rounds, const char *self)
{
	char line[16];
	int fd = open(a, O_RDONLY);

	if (fd < 0)
		die("open");
	printf("ready %d %d\n", (int)getpid(), fd);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		exit(1);
	for (int r = 0; r < rounds; r++) {
		char fd_arg[16], sock_arg[16];
		int sv[2], status;
		pid_t child;

		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
			die("socketpair");
		child = fork();
		if (child < 0)
			die("fork");
		if (child == 0) {
			close(sv[0]);
			snprintf(fd_arg, sizeof(fd_arg), "%d", fd);
			snprintf(sock_arg, sizeof(sock_arg), "%d", sv[1]);
			execl(self, "fd_kinds", "reader", fd_arg, sock_arg, (char *)NULL);
			_exit(127);
		}
		close(sv[1]);
		xread(sv[0], 7);
		waitpid(child, &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			exit(2);
		printf("{\"round\": %d, \"child\": %d, \"fd\": %d, \"sock\": %d, \"sock_ino\": "
		       "%llu}\n",
		       r, (int)child, fd, sv[0], ino_of(sv[0]));
		fflush(stdout);
		close(sv[0]);
	}
}

static void reader(int fd, int sock)
{
	char buf[100];

	if (pread(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf))
		die("pread");
	xwrite(sock, "message", 7);
}

static void renamed(const char *dir, int rounds)
{
	for (int r = 0; r < rounds; r++) {
		char f[4096], buf[32], line[16];
		int fd;

		snprintf(f, sizeof(f), "%s/%d/f", dir, r);
		fd = open(f, O_RDONLY);
		if (fd < 0)
			die("open");
		for (int i = 1; i <= 3; i++) {
			if (pread(fd, buf, 10 * i, 0) != 10 * i)
				die("pread");
			if (i == 3)
				break;
			printf("ready %d %d\n", r, fd);
			fflush(stdout);
			if (!fgets(line, sizeof(line), stdin))
				exit(1);
		}
		close(fd);
	}
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "scm"))
		scm(argv[2], argv[3], atoi(argv[4]));
	else if (argc == 3 && !strcmp(argv[1], "pair"))
		pair(atoi(argv[2]));
	else if (argc == 3 && !strcmp(argv[1], "memfd"))
		memfd(atoi(argv[2]));
	else if (argc == 4 && !strcmp(argv[1], "target"))
		target(argv[2], atoi(argv[3]), "/proc/self/exe");
	else if (argc == 4 && !strcmp(argv[1], "reader"))
		reader(atoi(argv[2]), atoi(argv[3]));
	else if (argc == 4 && !strcmp(argv[1], "rename"))
		renamed(argv[2], atoi(argv[3]));
	else
		return 2;
	return 0;
}
