/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Text in an HTML page: the report's and the replay's. */
#ifndef HTML_TEXT_H
#define HTML_TEXT_H

#include <stddef.h>
#include <stdio.h>

/*
 * Write s[0..len) as HTML text: valid UTF-8 (U+FFFD for a bad byte or a
 * control character), the markup characters & < > " ' escaped.
 */
void html_text(FILE *out, const char *s, size_t len);

#endif
