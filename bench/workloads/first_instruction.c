// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Prints CLOCK_MONOTONIC in nanoseconds as the first thing it does:
 * bench/lifecycle.py times dltrace's start-up with it, from the spawning
 * of `dltrace -- first_instruction` to this line.
 */
#include <stdio.h>
#include <time.h>

int main(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("%lld\n", (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
	return 0;
}
