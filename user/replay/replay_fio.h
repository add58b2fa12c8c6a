/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `dltrace replay --fio DIR`: the plan as fio iolog version 3 files, one
 * per traced thread (thread-TID.iolog), and a job file (replay.fio) with
 * one job per log, read_iolog and the recorded times.  What an iolog can
 * say: open, close, read, write (offset, length), sync, datasync, each at
 * a time since the job's start.  The rest is left out and counted in the
 * job file's comments: stat, rename, unlink and the other metadata calls,
 * pipe waits, thread starts.  Page faults become reads of their pages.
 */
#ifndef REPLAY_FIO_H
#define REPLAY_FIO_H

#include "replay/replay_plan.h"

/*
 * Write the iologs and the job file into dir (made when missing); *logs: how
 * many iologs.  -1 with a reason.
 */
int replay_fio_write(const struct replay_plan *p, const char *dir, unsigned *logs, char *err,
		     size_t errlen);

#endif
