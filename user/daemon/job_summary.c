// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "daemon/job_summary.h"

#include "report/report_main.h"

char *job_summary_json(const char *path, size_t *len, char *err, size_t errlen)
{
	return report_json_text(path, len, err, errlen);
}
