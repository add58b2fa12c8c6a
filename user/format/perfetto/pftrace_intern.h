/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Interned strings of Perfetto packet sequences.  Perfetto lets a sequence
 * name a string once (InternedData, in the packet that first uses it) and
 * refer to it afterwards by a small number, its iid.  Each kind of string
 * has its own iids, counted from 1: event names, categories, argument names
 * and argument string values (paths, flags, ...).
 *
 * A table numbers the strings; the writer keeps one for the whole trace,
 * so a string has one iid on every sequence, and per sequence the set of
 * iids that sequence has written (struct pftrace_seen).  The numbers stay
 * valid until the table is cleared: pftrace_intern__clear() forgets every
 * string and the iids start again at 1, and every sequence must then clear
 * its incremental state (SEQ_INCREMENTAL_STATE_CLEARED) and its seen set
 * before it refers to a string again.  The writer clears a table that
 * pftrace_intern__full() says is full before it starts a packet, so memory
 * stays bounded whatever the trace holds.  Strings are exact bytes (NUL
 * included), copied into the table's own storage; memory grows only when
 * the table does.
 */
#ifndef PFTRACE_INTERN_H
#define PFTRACE_INTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The kinds, numbered as the InternedData fields that carry them. */
enum pft_intern_kind {
	PFT_INTERN_CATEGORY = 0,   /* InternedData.event_categories (EventCategory) */
	PFT_INTERN_EVENT_NAME = 1, /* InternedData.event_names (EventName) */
	PFT_INTERN_ARG_NAME = 2,   /* InternedData.debug_annotation_names */
	PFT_INTERN_ARG_STRING = 3, /* InternedData.debug_annotation_string_values */
	PFT_INTERN_KINDS,
};

/* Most strings, and bytes of strings, a table holds before it is full. */
#define PFT_INTERN_MAX_STRINGS (1u << 16)
#define PFT_INTERN_MAX_BYTES   (8u << 20)
/* Room a full() table still keeps: what one packet may add. */
#define PFT_INTERN_PACKET_STRINGS 256u
#define PFT_INTERN_PACKET_BYTES	  (256u << 10)

struct pft_intern_entry {
	uint64_t hash;
	uint32_t off, len; /* bytes in the table's storage */
	uint32_t iid;
	uint32_t kind;
};

#define PFT_INTERN_RECENT 256 /* the top 8 bits of a hash */

struct pftrace_intern {
	/* Strings looked up lately, by address: most events repeat the last ones. */
	struct pft_intern_recent {
		const char *s;
		uint32_t len, kind;
		uint32_t entry; /* index + 1; 0 = empty */
	} recent[PFT_INTERN_RECENT];
	uint32_t *slots; /* entry index + 1; 0 = empty */
	uint32_t nslots; /* power of two */
	struct pft_intern_entry *ent;
	uint32_t count, ent_cap;
	char *bytes;
	size_t bytes_len, bytes_cap;
	uint32_t next_iid[PFT_INTERN_KINDS];
	uint32_t max_strings; /* PFT_INTERN_MAX_STRINGS, or less (tests) */
};

void pftrace_intern__init(struct pftrace_intern *t);
void pftrace_intern__free(struct pftrace_intern *t);
/* Forget every string (keeps the memory); iids start at 1 again. */
void pftrace_intern__clear(struct pftrace_intern *t);
/* Too full to take a whole packet's new strings: clear it first. */
bool pftrace_intern__full(const struct pftrace_intern *t);

/*
 * The iid of s[0..len) of this kind; *added tells whether the string is new
 * (the caller then writes it into the packet's InternedData).  0 when out of
 * memory (the caller writes the string itself instead).
 */
uint32_t pftrace_intern__get(struct pftrace_intern *t, enum pft_intern_kind kind, const char *s,
			     size_t len, bool *added);

/*
 * The strings one sequence has written since its incremental state was
 * last cleared, by iid: with one table for the whole trace, a string keeps
 * its iid on every sequence, so the same event of two threads is the same
 * bytes (what gzip finds), and each sequence writes a string once.
 */
struct pftrace_seen {
	uint64_t *bits; /* bit iid * PFT_INTERN_KINDS + kind */
	uint32_t words;
};

/* Note iid of kind as written; true when it was not yet.  -1: no memory. */
int pftrace_seen__add(struct pftrace_seen *s, enum pft_intern_kind kind, uint32_t iid);
void pftrace_seen__clear(struct pftrace_seen *s);
void pftrace_seen__free(struct pftrace_seen *s);

#endif
