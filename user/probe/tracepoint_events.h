/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The perf events that dltrace's tracepoint programs attach to, handed
 * from one run to the next.
 *
 * Opening a tracepoint's perf event takes the kernel's event_mutex, which
 * the helper of a run that has just exited holds across RCU grace periods
 * for each tracepoint it lets go: a start right after another run used to
 * wait for most of that teardown.  Instead the helper keeps its events,
 * disabled and without a program, for TP_EVENTS_HOLD_MS, and gives them
 * to the next run that asks (a root-only socket under /run/dltrace).  That
 * run attaches its programs to them without opening anything; events left
 * unasked are then closed as before.
 *
 *   taker (a starting run)              holder (the last run's helper, "dltrace-held")
 *   tp_events__new()                    tp_events__hold(): joins its launcher's
 *     connect /run/dltrace/tracepoints.sock   cgroups, binds, waits TP_EVENTS_HOLD_MS
 *     send "dltrace-tp 1\n"  ----------->  accept; the peer is root and asks
 *                            <-----------  SOCK_SEQPACKET messages:
 *     +----------------+-----------------------------+------------------------+
 *     | "dltrace-tp 1\n"| N lines "category/name\n"   | SCM_RIGHTS: N fds      |
 *     +----------------+-----------------------------+------------------------+
 *       N <= 250 per message; the last message "dltrace-tp 1 end\n", no fds
 *   tp_events__open(cat, name): a handed-over event of that name, else a new one
 */
#ifndef TRACEPOINT_EVENTS_H
#define TRACEPOINT_EVENTS_H

#include <stdbool.h>
#include <stddef.h>

/* How long a helper offers its events before it lets them go. */
#define TP_EVENTS_HOLD_MS 10000

struct tp_events;

/* Take what an earlier run's helper holds (nothing: an empty set). NULL: out of memory. */
struct tp_events *tp_events__new(void);
/*
 * A perf event of the tracepoint category/name: a handed-over one when
 * there is one, else a new one.  Returns the descriptor (the caller's to
 * close) or -errno.
 */
int tp_events__open(struct tp_events *t, const char *category, const char *name);
/* Events taken from an earlier run and used, opened new, taken and not used. */
void tp_events__counts(const struct tp_events *t, size_t *taken, size_t *opened, size_t *unused);
/*
 * Close the handed-over events this run did not use, from a thread of
 * their own (each may wait for grace periods), and free the set.
 */
void tp_events__free(struct tp_events *t);

/*
 * The helper's side: offer fds[i] (a perf event of names[i], "cat/name")
 * to the next run for up to hold_ms, then close them all.  Returns once
 * they are given or closed.  The holder first joins the cgroups that
 * `cgroups` names (the /proc/PID/cgroup text of the process that started
 * dltrace), so that it does not keep a job's cgroup from emptying.
 * Without /run/dltrace, when another helper holds the socket, or when it
 * cannot move, it closes them at once.
 */
void tp_events__hold(char *const *names, const int *fds, size_t n, unsigned hold_ms,
		     const char *cgroups);

#endif
