/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* `dltrace report TRACE...` and the report printed by `dltrace --report`. */
#ifndef REPORT_MAIN_H
#define REPORT_MAIN_H

#include <stddef.h>
#include <stdio.h>

/* argv[0] is "report".  Returns the exit status. */
int report_main(int argc, char **argv);

/*
 * `dltrace --report`: summarize a trace just written.  A report can be fed
 * the trace text while it is written (for `-o -`, where the file cannot be
 * read back) or read it from its file afterwards.
 */
struct report_session;
struct report_session *report_session_new(void);
void report_session_feed(void *session, const void *text, size_t len);
/* Print the terminal report of what was fed (or, with path, of that file). */
int report_session_print(struct report_session *s, const char *path, FILE *out);
void report_session_free(struct report_session *s);

/*
 * What `dltrace report --json FILE` prints, as malloc'd text of *len bytes
 * (the daemon's job summaries).  NULL with a one-line reason in err.
 */
char *report_json_text(const char *path, size_t *len, char *err, size_t errlen);

#endif
