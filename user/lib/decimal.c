// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "lib/decimal.h"

/* "00" "01" ... "99": two digits per division */
static const char digit_pairs[201] = "00010203040506070809101112131415161718192021222324"
				     "25262728293031323334353637383940414243444546474849"
				     "50515253545556575859606162636465666768697071727374"
				     "75767778798081828384858687888990919293949596979899";

static inline unsigned decimal_digits(uint64_t v)
{
	unsigned n = 1;

	for (;;) {
		if (v < 10)
			return n;
		if (v < 100)
			return n + 1;
		if (v < 1000)
			return n + 2;
		if (v < 10000)
			return n + 3;
		v /= 10000;
		n += 4;
	}
}

char *dec_u64(char *p, uint64_t v)
{
	char *end = p + decimal_digits(v), *q = end;

	while (v >= 100) {
		unsigned r = v % 100;

		v /= 100;
		q -= 2;
		q[0] = digit_pairs[2 * r];
		q[1] = digit_pairs[2 * r + 1];
	}
	if (v >= 10) {
		q[-2] = digit_pairs[2 * v];
		q[-1] = digit_pairs[2 * v + 1];
	} else {
		q[-1] = '0' + v;
	}
	return end;
}

char *dec_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return dec_u64(p, -(uint64_t)v);
	}
	return dec_u64(p, v);
}

static char *in_base(char *p, uint64_t v, unsigned shift)
{
	static const char digits[] = "0123456789abcdef";
	unsigned mask = (1u << shift) - 1, n = 1;
	char *end;

	for (uint64_t x = v >> shift; x; x >>= shift)
		n++;
	end = p + n;
	do {
		*--end = digits[v & mask];
		v >>= shift;
	} while (v);
	return p + n;
}

char *hex_u64(char *p, uint64_t v)
{
	return in_base(p, v, 4);
}

char *oct_u64(char *p, uint64_t v)
{
	return in_base(p, v, 3);
}
