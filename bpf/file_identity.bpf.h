/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A struct file's identity for the layers that see a file without a
 * descriptor of the task: io_uring requests (a registered file's index is
 * no descriptor), page faults on mappings (the file may have been opened
 * before tracing, or closed since).  Their records carry (dev, ino); the
 * file's path goes to user space once per (job, file) in a DL_EV_FILE
 * record (a struct dl_path: identity and the walked path), which the
 * decoder keeps by (dev, ino) as it does the files opens name.
 *
 * "Once": an LRU map remembers the (struct file *, dev, ino, job) named;
 * a record that does not fit in the ring is not remembered, so the next
 * request on the file tries again.  A file evicted from the map is named
 * again (a few bytes more, never a wrong name).
 */
#ifndef FILE_IDENTITY_BPF_H
#define FILE_IDENTITY_BPF_H

#include <bpf/bpf_core_read.h>
#include "dltrace_maps.bpf.h"
#include "path_walk.bpf.h"
#include "ring_output.bpf.h"

struct dl_file_key {
	__u64 file; /* struct file * */
	__u64 ino;
	__u32 dev;
	__u32 slot;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct dl_file_key);
	__type(value, __u8);
} dl_files_named SEC(".maps") __weak;

/* The inode behind f: its number and its device (st_dev encoding of the kernel). */
static __always_inline void dl_file_id(struct file *f, __u64 *ino, __u32 *dev)
{
	struct inode *inode = BPF_CORE_READ(f, f_inode);

	*ino = BPF_CORE_READ(inode, i_ino);
	*dev = BPF_CORE_READ(inode, i_sb, s_dev);
}

/* Send f's path for job slot `slot`, unless it was sent already. */
static __always_inline void dl_name_file(struct file *f, __u64 ino, __u32 dev, __u32 slot)
{
	struct dl_file_key key = {.file = (__u64)f, .ino = ino, .dev = dev, .slot = slot};
	__u32 zero = 0, used;
	struct dl_scratch *s;
	struct inode *inode;
	struct dl_path *p;
	__u8 one = 1;

	if (!f || bpf_map_lookup_elem(&dl_files_named, &key))
		return;
	s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s)
		return;
	p = (void *)s->buf;
	dl_fill_hdr(&p->io.h, bpf_ktime_get_ns(), DL_EV_FILE, slot);
	p->io.dur = 0;
	p->io.ret = 0;
	p->io.offset = 0;
	p->io.size = 0;
	p->io.arg = 0;
	inode = BPF_CORE_READ(f, f_inode);
	p->ino = ino;
	p->dev = dev;
	p->file_size = BPF_CORE_READ(inode, i_size);
	p->fs_magic = BPF_CORE_READ(inode, i_sb, s_magic);
	p->flags = 0;
	p->base_len[1] = 0;
	p->name_len[0] = p->name_len[1] = 0;
	p->how[0] = p->how[1] = 0;
	used = dl_walk_file(f, 0, &p->how[0]);
	p->how[0] |= DL_PATH_WALK;
	p->base_len[0] = used;
	DL_OPAQUE(used);
	used &= DL_SCRATCH_MASK;
	if (!dl_output(p, sizeof(*p) + used, slot))
		bpf_map_update_elem(&dl_files_named, &key, &one, BPF_ANY);
}

#endif /* FILE_IDENTITY_BPF_H */
