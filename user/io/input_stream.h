/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Reading a trace file's bytes, plain or gzip: the one place that tells
 * them apart (from the first two bytes, the gzip magic 1f 8b) and
 * decompresses.  Raw file bytes go in, in chunks of any size; the plain
 * bytes come out, in order, to a callback (the format's own reader).
 *
 *   file --raw--> input_stream --plain--> fn (chrome text lines, pftrace packets)
 *
 * What a crash leaves (a gzip stream without its end) is not an error:
 * gzip_unfinished says so.  Corrupt gzip data is an error with a one-line
 * message.  Concatenated gzip members are read one after the other; other
 * bytes after the end are ignored (trailing_garbage).
 */
#ifndef INPUT_STREAM_H
#define INPUT_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <zlib.h>

/* Plain bytes; returns 0, or -1 to stop (the reader failed: its own message). */
typedef int (*input_fn)(void *ctx, const char *data, size_t len);

struct input_stream {
	input_fn fn;
	void *ctx;
	int mode; /* 0: not known yet, 1: plain, 2: gzip */
	unsigned char magic[2];
	size_t magic_len;
	z_stream z;
	bool z_ready, z_ended;
	char *zout;
	bool gzip;	       /* the input is gzip-compressed */
	bool gzip_unfinished;  /* after finish: the gzip stream ended early */
	bool trailing_garbage; /* bytes after the last gzip member (ignored) */
	bool failed;	       /* fn stopped, or the gzip data is corrupt */
	char error[160];       /* the gzip error (fn's errors are its own) */
};

void input_stream_init(struct input_stream *s, input_fn fn, void *ctx);
/* Raw file bytes.  -1 when fn stopped or the gzip data is corrupt (error). */
int input_stream_feed(struct input_stream *s, const void *data, size_t len);
/* End of input.  -1 when fn stopped. */
int input_stream_finish(struct input_stream *s);
void input_stream_free(struct input_stream *s);

/*
 * The first plain bytes of data (raw file bytes, gzip or not), up to
 * size, into out: to tell formats apart before reading.  Returns how many.
 */
size_t input_stream_peek(const void *data, size_t len, char *out, size_t size);

#endif
