/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef DAEMON_H
#define DAEMON_H

/* `dltrace daemon ...` (argv[0] is "daemon"); returns the exit status. */
int daemon_main(int argc, char **argv);
/* `dltrace ctl ...` (argv[0] is "ctl"); returns the exit status. */
int ctl_main(int argc, char **argv);

#endif
