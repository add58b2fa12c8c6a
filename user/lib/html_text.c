// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "lib/html_text.h"

#include "lib/json_string.h"

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD */

void html_text(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < len;) {
		size_t n = utf8_sequence_length(p + i, len - i);

		if (!n) {
			fputs(REPLACEMENT, f);
			i++;
			continue;
		}
		if (n == 1) {
			switch (p[i]) {
			case '&':
				fputs("&amp;", f);
				break;
			case '<':
				fputs("&lt;", f);
				break;
			case '>':
				fputs("&gt;", f);
				break;
			case '"':
				fputs("&quot;", f);
				break;
			case '\'':
				fputs("&#39;", f);
				break;
			default:
				if (p[i] < 0x20 || p[i] == 0x7f)
					fputs(REPLACEMENT, f);
				else
					fputc(p[i], f);
			}
		} else {
			fwrite(p + i, 1, n, f);
		}
		i += n;
	}
}
