// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: the daemon's configuration parser and the job-pattern
 * matcher, on arbitrary bytes.  `make fuzz` runs it.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "daemon/daemon_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct daemon_config c;
	char err[512], jobid[64], path[300];
	size_t n;

	if (config_parse(&c, (const char *)data, size, err, sizeof(err)) == 0) {
		/* the parsed patterns against a path made of the same bytes */
		n = size < sizeof(path) - 2 ? size : sizeof(path) - 2;
		path[0] = '/';
		memcpy(path + 1, data, n);
		path[n + 1] = '\0';
		config_job_of(&c, path, jobid, sizeof(jobid));
		config_job_of(&c, "/system.slice/slurmstepd.scope/job_42", jobid, sizeof(jobid));
	}
	return 0;
}
