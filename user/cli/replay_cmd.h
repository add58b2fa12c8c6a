/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* `dltrace replay`: replay a trace's application I/O and say what it would save. */
#ifndef REPLAY_CMD_H
#define REPLAY_CMD_H

/* argv[0] is "replay".  Returns the exit status. */
int replay_main(int argc, char **argv);

#endif
