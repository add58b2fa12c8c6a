/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef CONVERT_CMD_H
#define CONVERT_CMD_H

/* `dltrace convert IN OUT` (argv[0] is "convert"); returns the exit status. */
int convert_main(int argc, char **argv);

#endif
