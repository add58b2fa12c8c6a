/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `dltrace ctl top JOB`: the live view of a job the daemon traces, from
 * snapshots the daemon sends over the control socket (one request per
 * interval), shown by the same view as `dltrace top`.  No probe of its own.
 */
#ifndef CTL_TOP_H
#define CTL_TOP_H

/* argv[0] is "top"; returns the exit status. */
int ctl_top_main(const char *socket_path, int argc, char **argv);

#endif
