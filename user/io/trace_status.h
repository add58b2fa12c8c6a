/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * How a trace file was read, whatever its format: what it held (metadata,
 * summary, the end of the file), what was damaged (what a crash or a full
 * disk leaves is a warning, not an error), and the one-line error that
 * stopped the reading.  The JSON reader counts lines, the .pftrace reader
 * packets.
 */
#ifndef TRACE_STATUS_H
#define TRACE_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct trace_read_status {
	bool gzip;	/* the input was gzip-compressed */
	bool header;	/* the dltrace metadata event was read */
	bool summary;	/* the dltrace_summary event was read */
	bool closed;	/* the end was read: JSON's closing `]`, a .pftrace's last whole packet */
	bool cut_event; /* the last line (packet) was an incomplete event */
	bool gzip_unfinished;  /* the gzip stream ended early */
	bool trailing_garbage; /* bytes after the end (ignored) */
	uint64_t lines;	       /* lines (packets) read */
	uint64_t events;       /* events parsed and delivered */
	uint64_t malformed;    /* lines (packets) skipped because they are not events */
	uint64_t first_malformed_line;
	const char *first_malformed_why;
	uint64_t bytes; /* bytes of trace text (after decompression) */
	char error[320];
};

/* Is the status one of a trace that was cut short (a warning, not an error)? */
bool trace_read_truncated(const struct trace_read_status *st);
/* How it was cut short: "the gzip stream ends early; no closing ']'", ... */
void trace_read_damage(const struct trace_read_status *st, char *out, size_t size);

/*
 * Bytes of a damaged or foreign file, quoted for a one-line message: at most
 * max of them, printable ASCII as it is and any other byte (a newline, an
 * escape sequence, invalid UTF-8, ' and \) as \xHH, "..." when cut.  out:
 * 4 * max + 4 bytes are enough.
 */
void trace_read_quote(const char *s, size_t len, size_t max, char *out, size_t size);

#endif
