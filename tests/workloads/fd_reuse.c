// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One descriptor number, two files, two threads: thread A preads FIRST
 * through fd N and then waits; the main thread closes N, opens SECOND (it
 * gets N again) and preads it; then A is let go.  A's read record reaches
 * dltrace after the close and the reopen (A's batch is sent when A exits),
 * and must still be named FIRST.  Prints {"fd": N, "a_tid": T, "main_tid": M}.
 * Usage: fd_reuse FIRST SECOND
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static int fd;
static long a_tid;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int stage;

static void wait_stage(int s)
{
	pthread_mutex_lock(&lock);
	while (stage < s)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
}

static void set_stage(int s)
{
	pthread_mutex_lock(&lock);
	stage = s;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
}

static void *thread_a(void *arg)
{
	char buf[16];

	(void)arg;
	a_tid = syscall(SYS_gettid);
	syscall(SYS_pread64, fd, buf, 11L, 0L);
	set_stage(1);
	wait_stage(2);
	return NULL;
}

int main(int argc, char **argv)
{
	char buf[16];
	pthread_t a;
	int again;

	if (argc != 3)
		return 2;
	fd = open(argv[1], O_RDONLY);
	pthread_create(&a, NULL, thread_a, NULL);
	wait_stage(1);
	close(fd);
	again = open(argv[2], O_RDONLY);
	if (again != fd)
		return 1;
	syscall(SYS_pread64, again, buf, 12L, 0L);
	set_stage(2);
	pthread_join(a, NULL);
	printf("{\"fd\": %d, \"a_tid\": %ld, \"main_tid\": %d}\n", fd, a_tid, getpid());
	return 0;
}
