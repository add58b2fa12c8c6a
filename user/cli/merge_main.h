/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* `dltrace merge TRACE... -o OUT`: one Perfetto trace from the traces of several hosts. */
#ifndef MERGE_MAIN_H
#define MERGE_MAIN_H

/* argv[0] is "merge".  Returns the exit status. */
int merge_main(int argc, char **argv);

#endif
