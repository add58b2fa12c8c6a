/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The functions and typedefs of a raw BTF blob (the kernel's
 * /sys/kernel/btf/vmlinux), found by name.
 *
 * Start-up asks the kernel's BTF a handful of questions (is there a
 * btf_trace_<tracepoint> typedef, what is vfs_read's id) before libbpf
 * loads it again for CO-RE.  libbpf's parse of the 5.5 MB blob builds what
 * those questions do not need; one pass over the type section that keeps
 * the FUNC and TYPEDEF entries (id order), and a scan of those per
 * question, cost a fraction of it.
 *
 * The type section is a sequence of records, ids from 1 in order:
 *
 *   +-----------+--------------------------------+----------------+
 *   | name_off  | info: vlen | kind << 24 | kflag | size / type    |  struct btf_type (12 B)
 *   +-----------+--------------------------------+----------------+
 *   | kind-specific trailer: 0, 4, 8 * vlen, 12 * vlen ... bytes  |
 *   +--------------------------------------------------------------+
 *
 * A kind this file does not know makes the parse fail (the caller falls
 * back to libbpf), so a newer kernel never gets a wrong id.  Pure: no I/O.
 */
#ifndef BTF_NAMES_H
#define BTF_NAMES_H

#include <stddef.h>

struct btf_names;

/* NULL when data is no BTF this file can walk (or out of memory); data must outlive it. */
struct btf_names *btf_names__parse(const void *data, size_t size);
/* The first id of a type of kind (BTF_KIND_FUNC or BTF_KIND_TYPEDEF) named name; -1 if none. */
int btf_names__find(const struct btf_names *n, const char *name, int kind);
/* How many types the blob holds (the last id), and how many are FUNC or TYPEDEF with a name. */
unsigned btf_names__types(const struct btf_names *n);
unsigned btf_names__indexed(const struct btf_names *n);
void btf_names__free(struct btf_names *n);

#endif
