// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Exact bytes of known messages from lib/pb_writer and the interning of
 * format/perfetto/pftrace_intern.  Prints one line per failure and closes
 * with "N passed, N failed"; exits 1 on any failure.
 */
#include <stdio.h>
#include <string.h>

#include "format/perfetto/pftrace_intern.h"
#include "lib/pb_writer.h"

static int passed, failed;

static void expect_bytes(const char *what, const struct pb_writer *w, const char *hex)
{
	char got[4096] = "";
	size_t n = 0;

	for (size_t i = 0; i < w->len && n + 3 < sizeof(got); i++)
		n += snprintf(got + n, sizeof(got) - n, "%s%02x", i ? " " : "", w->buf[i]);
	if (!w->overflow && !strcmp(got, hex)) {
		passed++;
		return;
	}
	failed++;
	printf("FAIL %s:\n  got      %s%s\n  expected %s\n", what, got,
	       w->overflow ? " (overflow)" : "", hex);
}

static void expect(const char *what, long long got, long long want)
{
	if (got == want) {
		passed++;
		return;
	}
	failed++;
	printf("FAIL %s: got %lld, expected %lld\n", what, got, want);
}

static void test_scalars(void)
{
	uint8_t buf[256];
	struct pb_writer w;

	pb_writer__init(&w, buf, sizeof(buf));
	pb_writer__varint(&w, 1, 150);
	expect_bytes("varint 1: 150", &w, "08 96 01");

	pb_writer__reset(&w);
	pb_writer__varint(&w, 1, 0);
	pb_writer__varint(&w, 15, 127);
	pb_writer__varint(&w, 16, 128);
	expect_bytes("varint field numbers 1, 15, 16", &w, "08 00 78 7f 80 01 80 01");

	pb_writer__reset(&w);
	pb_writer__varint(&w, 4, (uint64_t)-1LL);
	expect_bytes("int64 4: -1 (ten bytes)", &w, "20 ff ff ff ff ff ff ff ff ff 01");

	pb_writer__reset(&w);
	pb_writer__varint(&w, 2, UINT64_MAX - 1);
	expect_bytes("varint 2: 2^64-2", &w, "10 fe ff ff ff ff ff ff ff ff 01");

	pb_writer__reset(&w);
	pb_writer__sint(&w, 2, 0);
	pb_writer__sint(&w, 2, -1);
	pb_writer__sint(&w, 2, 1);
	pb_writer__sint(&w, 2, -2);
	pb_writer__sint(&w, 2, -64);
	pb_writer__sint(&w, 2, 64);
	expect_bytes("sint 2: 0, -1, 1, -2, -64, 64", &w, "10 00 10 01 10 02 10 03 10 7f 10 80 01");
	expect("zigzag INT64_MIN", pb__zigzag(INT64_MIN) == UINT64_MAX, 1);
	expect("zigzag INT64_MAX", pb__zigzag(INT64_MAX) == UINT64_MAX - 1, 1);

	pb_writer__reset(&w);
	pb_writer__fixed64(&w, 47, 1);
	expect_bytes("fixed64 47: 1", &w, "f9 02 01 00 00 00 00 00 00 00");

	pb_writer__reset(&w);
	pb_writer__fixed32(&w, 3, 0x01020304);
	expect_bytes("fixed32 3: 0x01020304", &w, "1d 04 03 02 01");

	pb_writer__reset(&w);
	pb_writer__double(&w, 5, 1.5);
	pb_writer__double(&w, 44, -2.0);
	expect_bytes("double 5: 1.5, 44: -2", &w,
		     "29 00 00 00 00 00 00 f8 3f e1 02 00 00 00 00 00 00 00 c0");

	pb_writer__reset(&w);
	pb_writer__bytes(&w, 2, "testing", 7);
	pb_writer__bytes(&w, 6, "", 0);
	pb_writer__bytes(&w, 29, "\0\xff", 2);
	expect_bytes("bytes 2: testing, 6: empty, 29: 00 ff", &w,
		     "12 07 74 65 73 74 69 6e 67 32 00 ea 01 02 00 ff");

	expect("varint_len 0", pb__varint_len(0), 1);
	expect("varint_len 127", pb__varint_len(127), 1);
	expect("varint_len 128", pb__varint_len(128), 2);
	expect("varint_len 2^63", pb__varint_len(1ull << 63), 10);
}

static void test_nested(void)
{
	uint8_t buf[1024];
	char body[300];
	struct pb_writer w;

	pb_writer__init(&w, buf, sizeof(buf));
	pb_writer__begin(&w, 3);
	pb_writer__varint(&w, 1, 150);
	pb_writer__end(&w);
	expect_bytes("message 3 { 1: 150 }", &w, "1a 03 08 96 01");

	pb_writer__reset(&w);
	pb_writer__begin(&w, 1);
	pb_writer__end(&w);
	expect_bytes("empty message", &w, "0a 00");

	/* A TrackEvent END packet: event first, then timestamp delta, sequence, flags. */
	pb_writer__reset(&w);
	pb_writer__begin(&w, 1);
	pb_writer__begin(&w, 11);
	pb_writer__varint(&w, 9, 2);
	pb_writer__end(&w);
	pb_writer__varint(&w, 8, 5);
	pb_writer__varint(&w, 10, 2);
	pb_writer__varint(&w, 13, 2);
	pb_writer__end(&w);
	expect_bytes("Trace { packet { track_event { type: 2 } timestamp: 5 seq: 2 flags: 2 } }",
		     &w, "0a 0a 5a 02 48 02 40 05 50 02 68 02");

	/* 131 bytes of body: the length takes two bytes, the body moves by one. */
	memset(body, 'a', sizeof(body));
	pb_writer__reset(&w);
	pb_writer__begin(&w, 2);
	pb_writer__bytes(&w, 1, body, 128);
	pb_writer__end(&w);
	expect("131-byte body: size", pb_writer__size(&w), 134);
	expect("131-byte body: head", buf[0] == 0x12 && buf[1] == 0x83 && buf[2] == 0x01, 1);
	expect("131-byte body: inner", buf[3] == 0x0a && buf[4] == 0x80 && buf[5] == 0x01, 1);
	expect("131-byte body: last byte", buf[133], 'a');

	/* Both levels grow: outer { inner { 200 bytes } 1: 7 }. */
	pb_writer__reset(&w);
	pb_writer__begin(&w, 1);
	pb_writer__begin(&w, 2);
	pb_writer__bytes(&w, 3, body, 200);
	pb_writer__end(&w);
	pb_writer__varint(&w, 4, 7);
	pb_writer__end(&w);
	/* inner: 1a c8 01 + 200 = 203 bytes; outer body: 12 cb 01 + 203 + 20 07 = 208 */
	expect("nested growth: size", pb_writer__size(&w), 3 + 208);
	expect("nested growth: outer length", buf[1] == 0xd0 && buf[2] == 0x01, 1);
	expect("nested growth: inner length", buf[3] == 0x12 && buf[4] == 0xcb && buf[5] == 0x01,
	       1);
	expect("nested growth: tail", buf[209] == 0x20 && buf[210] == 0x07, 1);
}

static void test_overflow(void)
{
	uint8_t buf[16];
	struct pb_writer w;

	pb_writer__init(&w, buf, sizeof(buf));
	pb_writer__bytes(&w, 1, "0123456789", 10);
	expect("bytes that do not fit: overflow", w.overflow, 1);
	pb_writer__init(&w, buf, sizeof(buf));
	for (int i = 0; i < PB_DEPTH_MAX + 1; i++)
		pb_writer__begin(&w, 1);
	expect("nesting deeper than PB_DEPTH_MAX: overflow", w.overflow, 1);
}

static void test_intern(void)
{
	struct pftrace_intern t;
	char all[255];
	bool added;
	uint32_t iid;

	for (int i = 0; i < 255; i++)
		all[i] = (char)(i + 1);
	pftrace_intern__init(&t);
	iid = pftrace_intern__get(&t, PFT_INTERN_EVENT_NAME, "pread64", 7, &added);
	expect("first event name: iid 1", iid, 1);
	expect("first event name: added", added, 1);
	iid = pftrace_intern__get(&t, PFT_INTERN_EVENT_NAME, "read", 4, &added);
	expect("second event name: iid 2", iid, 2);
	iid = pftrace_intern__get(&t, PFT_INTERN_EVENT_NAME, "pread64", 7, &added);
	expect("repeated name: iid 1", iid, 1);
	expect("repeated name: not added", added, 0);
	iid = pftrace_intern__get(&t, PFT_INTERN_ARG_STRING, "pread64", 7, &added);
	expect("same bytes, other kind: own iid 1", iid, 1);
	expect("same bytes, other kind: added", added, 1);
	iid = pftrace_intern__get(&t, PFT_INTERN_ARG_STRING, "a\0b", 3, &added);
	expect("bytes with NUL: iid 2", iid, 2);
	iid = pftrace_intern__get(&t, PFT_INTERN_ARG_STRING, "a\0c", 3, &added);
	expect("differs after NUL: iid 3", iid, 3);
	iid = pftrace_intern__get(&t, PFT_INTERN_ARG_STRING, all, sizeof(all), &added);
	expect("bytes 1-255: iid 4", iid, 4);
	iid = pftrace_intern__get(&t, PFT_INTERN_ARG_STRING, "", 0, &added);
	expect("empty string: iid 5", iid, 5);
	for (uint32_t i = 0; i < 5000; i++) {
		char s[16];

		snprintf(s, sizeof(s), "/d/%u", i);
		iid = pftrace_intern__get(&t, PFT_INTERN_ARG_STRING, s, strlen(s), &added);
		if (iid != 6 + i || !added)
			break;
	}
	expect("5000 paths: iids 6-5005", iid, 5005);
	iid = pftrace_intern__get(&t, PFT_INTERN_ARG_STRING, "/d/17", 5, &added);
	expect("path 17 after growth: iid 23", iid, 23);
	iid = pftrace_intern__get(&t, PFT_INTERN_ARG_STRING, all, sizeof(all), &added);
	expect("bytes 1-255 after growth: iid 4", iid, 4);
	expect("not full", pftrace_intern__full(&t), 0);
	pftrace_intern__clear(&t);
	iid = pftrace_intern__get(&t, PFT_INTERN_ARG_STRING, "/d/17", 5, &added);
	expect("after clear: iid 1 again", iid, 1);
	expect("after clear: added", added, 1);
	for (uint32_t i = 0; i < PFT_INTERN_MAX_STRINGS; i++)
		pftrace_intern__get(&t, PFT_INTERN_ARG_NAME, (char *)&i, sizeof(i), &added);
	expect("full after PFT_INTERN_MAX_STRINGS", pftrace_intern__full(&t), 1);
	pftrace_intern__free(&t);
}

static void test_seen(void)
{
	struct pftrace_seen s = {0};

	expect("seen: first add", pftrace_seen__add(&s, PFT_INTERN_ARG_NAME, 1), 1);
	expect("seen: second add", pftrace_seen__add(&s, PFT_INTERN_ARG_NAME, 1), 0);
	expect("seen: same iid, other kind", pftrace_seen__add(&s, PFT_INTERN_EVENT_NAME, 1), 1);
	expect("seen: iid 70000 (grows)", pftrace_seen__add(&s, PFT_INTERN_ARG_STRING, 70000), 1);
	expect("seen: iid 1 kept after growth", pftrace_seen__add(&s, PFT_INTERN_ARG_NAME, 1), 0);
	pftrace_seen__clear(&s);
	expect("seen: after clear", pftrace_seen__add(&s, PFT_INTERN_ARG_STRING, 70000), 1);
	pftrace_seen__free(&s);
}

int main(void)
{
	test_scalars();
	test_nested();
	test_overflow();
	test_intern();
	test_seen();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
