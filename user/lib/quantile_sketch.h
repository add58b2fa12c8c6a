/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Streaming quantiles of non-negative integers (sizes in bytes, latencies
 * in ns) in bounded memory: a log-linear histogram.  Values below 512 are
 * counted exactly; above, each power of two is split in 256 buckets, so a
 * quantile is reported as the lower edge of its bucket: exact for values
 * that are multiples of the bucket width (4096, 1 MiB, ...) and never more
 * than 0.4% below the true value.  min, max, count and sum are exact.
 * Memory: 4 KiB plus 2 KiB per power of two that occurs.
 */
#ifndef QUANTILE_SKETCH_H
#define QUANTILE_SKETCH_H

#include <stdint.h>

#define SKETCH_SUB_BITS 8
#define SKETCH_SUB	(1u << SKETCH_SUB_BITS)
#define SKETCH_ROWS	(64 - SKETCH_SUB_BITS) /* row 0: [0, 512); row r: [2^(r+8), 2^(r+9)) */

struct quantile_sketch {
	uint64_t n, sum, min, max;
	uint64_t *rows[SKETCH_ROWS];
	int oom; /* a row could not be allocated: values were only counted */
};

void sketch_init(struct quantile_sketch *s);
void sketch_free(struct quantile_sketch *s);
void sketch_add(struct quantile_sketch *s, uint64_t v);
/* n values v at once. */
void sketch_add_n(struct quantile_sketch *s, uint64_t v, uint64_t n);
/* Nearest-rank quantile, q in [0, 1]; 0 when empty. */
uint64_t sketch_quantile(const struct quantile_sketch *s, double q);
/* Fold src into dst. */
void sketch_merge(struct quantile_sketch *dst, const struct quantile_sketch *src);

#endif
