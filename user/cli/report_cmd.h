/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* `dltrace report TRACE...`: its command line. */
#ifndef REPORT_CMD_H
#define REPORT_CMD_H

#include <stddef.h>
#include <stdio.h>

/* argv[0] is "report".  Returns the exit status. */
int report_main(int argc, char **argv);

#endif
