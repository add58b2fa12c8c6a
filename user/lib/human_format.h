/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Human-readable numbers and text: the report's "1.50 MiB", "230.0 ms",
 * "12.5%", and the scaling by units that the live view and the progress
 * line share with it.
 */
#ifndef HUMAN_FORMAT_H
#define HUMAN_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define HUMAN_MAX 32

/* A double as uint64_t, clamped (NaN and negatives: 0). */
static inline uint64_t clamp_u64(double v)
{
	return v >= 18446744073709549568.0 ? UINT64_MAX : v > 0 ? (uint64_t)v : 0;
}

/*
 * Divide *v by base while it is at least base, at most max times; returns
 * how many times (the unit: 1 for Ki or k, 2 for Mi or M, ...).
 */
static inline unsigned human_scale(double *v, double base, unsigned max)
{
	unsigned u = 0;

	while (*v >= base && u < max) {
		*v /= base;
		u++;
	}
	return u;
}

/* Each returns buf (HUMAN_MAX bytes). */
char *human_bytes(char *buf, uint64_t bytes);
char *human_ns(char *buf, uint64_t ns);
char *human_count(char *buf, uint64_t n); /* 1234567 -> "1,234,567" */
char *human_pct(char *buf, double share); /* 0.125 -> "12.5%" */
/* 2500.5 -> "2,500.5x", 1.08 -> "1.08x"; < 0: "unknown"; infinite: "no bytes asked" */
char *human_ratio(char *buf, double ratio);

/*
 * Copy s[0..len) into out (size bytes) for display: invalid UTF-8 becomes
 * U+FFFD, control characters become '?'.  When longer than max_cols
 * characters, the middle is replaced by "...".  Returns out.
 */
char *display_text(char *out, size_t size, const char *s, size_t len, size_t max_cols);

/*
 * A command line for a narrow column: the program's base name, then its
 * arguments, cut at the end with "..." (display_text's cleaning applies).
 */
char *display_command(char *out, size_t size, const char *cmd, size_t len, size_t max_cols);

#endif
