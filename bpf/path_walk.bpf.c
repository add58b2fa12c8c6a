// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The path walk (path_walk.bpf.h): from a dentry up to the task's root,
 * leaf first, with the directory cache.  A file of its own, without
 * programs: every program that walks calls the one global function.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "path_walk.bpf.h"

struct dl_walk {
	__u64 dentry;		 /* struct dentry *, current position */
	__u64 mnt;		 /* struct vfsmount * it belongs to */
	__u64 mnt_root;		 /* and that mount's root dentry (0: not read yet) */
	struct dl_vfs_path root; /* the task's */
	__u32 start;		 /* offset of the slot in the scratch data */
	__u32 len;		 /* bytes written so far */
	__u8 flags;		 /* DL_PATH_ROOTED, DL_PATH_TRUNC, DL_PATH_DETACHED */
	__u8 done;
	__u8 mount_top; /* stop at the top of the mount instead of crossing it */
};

/*
 * The last step's reads (dl_dentry_up()), off the stack: a walk's call
 * chain is near the verifier's 512 bytes of stack on 6.1.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dl_dentry_up);
} dl_walk_up SEC(".maps") __weak;

/*
 * A dentry's parent and name, in one read where they lie side by side
 * (every kernel dltrace knows: d_parent, then d_name):
 *
 *   struct dentry   ... | d_parent (8) | d_name: hash_len (8)  name (8) | ...
 *                                        (hash, len: len is the upper half)
 */
struct dl_dentry_link {
	__u64 parent;
	__u64 hash_len;
	__u64 name;
};

static __always_inline int dl_dentry_link(struct dentry *d, struct dentry **parent, __u32 *len,
					  const unsigned char **name)
{
	struct dl_dentry_link l;

	if (bpf_core_field_offset(struct dentry, d_name) ==
		bpf_core_field_offset(struct dentry, d_parent) + 8 &&
	    bpf_core_field_offset(struct qstr, name) == 8 &&
	    bpf_core_field_offset(struct qstr, len) == 4) {
		if (bpf_probe_read_kernel(
			&l, sizeof(l), (void *)d + bpf_core_field_offset(struct dentry, d_parent)))
			return -1;
		*parent = (void *)l.parent;
		*len = l.hash_len >> 32;
		*name = (void *)l.name;
		return 0;
	}
	*parent = BPF_CORE_READ(d, d_parent);
	*len = BPF_CORE_READ(d, d_name.len);
	*name = BPF_CORE_READ(d, d_name.name);
	return 0;
}

static long dl_walk_step(__u32 i __attribute__((unused)), void *arg)
{
	struct dl_walk *w = arg;
	struct dentry *d = (void *)w->dentry;
	struct vfsmount *vmnt = (void *)w->mnt;
	struct dentry *parent = NULL;
	const unsigned char *name = NULL;
	__u32 len = 0;
	char *data;

	if (w->dentry == w->root.dentry && w->mnt == w->root.mnt) {
		w->flags |= DL_PATH_ROOTED;
		w->done = 1;
		return 1;
	}
	if (task_kfuncs) {
		/* the link, the mount's root and the parent's facts: one call of loads */
		__u32 zero = 0;
		struct dl_dentry_up *u = bpf_map_lookup_elem(&dl_walk_up, &zero);

		if (!u || dl_dentry_up(w->dentry, w->mnt, u)) {
			w->flags |= DL_PATH_DETACHED;
			w->done = 1;
			return 1;
		}
		w->mnt_root = u->mnt_root;
		parent = (void *)u->parent;
		name = (void *)u->name;
		len = u->len;
	} else if (!w->mnt_root) {
		w->mnt_root = (__u64)BPF_CORE_READ(vmnt, mnt_root);
	}
	if (w->dentry == w->mnt_root) {
		if (w->mount_top)
			return 1;
		/* Top of this mount: continue at its mount point in the parent. */
		struct mount *m = (void *)vmnt - bpf_core_field_offset(struct mount, mnt);
		struct mount *up = BPF_CORE_READ(m, mnt_parent);

		if (up == m) {
			/* Top of the tree without meeting our root. */
			w->flags |= DL_PATH_DETACHED;
			w->done = 1;
			return 1;
		}
		w->dentry = (__u64)BPF_CORE_READ(m, mnt_mountpoint);
		w->mnt = (__u64)up + bpf_core_field_offset(struct mount, mnt);
		w->mnt_root = 0;
		return 0;
	}
	if ((!task_kfuncs && dl_dentry_link(d, &parent, &len, &name)) || d == parent) {
		/* A disconnected dentry (anonymous or deleted tree). */
		w->flags |= DL_PATH_DETACHED;
		w->done = 1;
		return 1;
	}
	if (len > DL_NAME_MAX || w->len + len + 1 > DL_PATH_MAX) {
		w->flags |= DL_PATH_TRUNC;
		w->done = 1;
		return 1;
	}
	data = dl_scratch_data();
	if (!data)
		return 1;
	bpf_probe_read_kernel(data + ((w->start + w->len) & DL_SCRATCH_MASK), len & DL_NAME_MAX,
			      name);
	data[(w->start + w->len + len) & DL_SCRATCH_MASK] = '/';
	w->len += len + 1;
	w->dentry = (__u64)parent;
	return 0;
}

/*
 * The directory cache: the walk's bytes from a directory up to the top of
 * its mount, or to the task's root when that comes first, keyed by the
 * directory's dentry and mount and the task's root (chroot, containers).
 * What lies above a mount's top is walked at every call (mount points, a
 * component or two), so no change of the mount tree can make an entry stale.
 *
 * An entry is served only while
 *   - no rename happened on the machine since it was made (dl_names_gen:
 *     a rename moves a directory, or one above it);
 *   - the dentry is still that directory: the same inode, i_ino and
 *     i_generation (a freed dentry's memory may hold another one later; a
 *     directory has one dentry and one parent, so the same directory has
 *     the same names up to its mount's top unless renamed);
 *   - the mount's root is the same dentry (a freed mount's memory may hold
 *     another mount of the same file system, of another subtree).
 * Entries are copied in place by updates of other CPUs (the map is
 * preallocated): the key and generation inside the value are checked again
 * after the copy.
 *
 *   struct dl_dir_path   dentry mnt | inode ino | mnt_root | gen igen | len flags | buf[len]
 *                        (the key)    (the directory)                   "dir/up/top/", leaf first
 */
#define DL_DIR_BYTES   512 /* longer parts are walked every time */
#define DL_DIR_ENTRIES 4096

struct dl_dir_key {
	__u64 dentry;
	__u64 mnt;
	__u64 root_dentry;
	__u64 root_mnt;
};

struct dl_dir_path {
	__u64 dentry; /* the key's, checked after a copy */
	__u64 mnt;
	__u64 inode;
	__u64 ino;
	__u64 mnt_root;
	__u32 gen; /* dl_names_gen before the walk that made it */
	__u32 igen;
	__u16 len;
	__u8 flags; /* DL_PATH_ROOTED: it ends at the task's root; else at the mount's top */
	__u8 pad[5];
	char buf[DL_DIR_BYTES];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, DL_DIR_ENTRIES);
	__type(key, struct dl_dir_key);
	__type(value, struct dl_dir_path);
} dl_dirs SEC(".maps") __weak;

/* Where a new entry is built (the stack is too small for one). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dl_dir_path);
} dl_dir_build SEC(".maps") __weak;

/* The cache's hits and misses since the load, for --verbose. */
volatile __u64 dl_dir_hits __weak = 0;
volatile __u64 dl_dir_misses __weak = 0;

/*
 * The walk from directory w->dentry up: from the cache, or walked and
 * cached.  Returns with w->done set, or at a mount's top for the caller to
 * cross and walk on.
 */
static __noinline int dl_walk_dirs(struct dl_walk *w)
{
	struct dl_dir_key k = {w->dentry, w->mnt, w->root.dentry, w->root.mnt};
	struct dl_dir_path *v, *b;
	struct dl_dentry_facts df;
	struct dl_dentry_up *up;
	__u32 gen = dl_names_gen, zero = 0, from = w->len, part;
	char *data = dl_scratch_data();

	if (!data)
		return 0;
	if (!w->mnt_root) {
		struct vfsmount *vmnt = (void *)k.mnt;

		w->mnt_root = (__u64)BPF_CORE_READ(vmnt, mnt_root);
	}
	if (task_kfuncs && (up = bpf_map_lookup_elem(&dl_walk_up, &zero)) &&
	    up->parent == k.dentry) /* read by the step that led here */
		df = up->up;
	else
		dl_dentry_facts(k.dentry, &df);
	v = bpf_map_lookup_elem(&dl_dirs, &k);
	if (v && v->gen == gen && v->inode == df.inode && v->ino == df.ino && v->igen == df.igen &&
	    v->mnt_root == w->mnt_root && w->len + v->len + 1 <= DL_PATH_MAX) {
		__u32 len = v->len;
		__u8 flags = v->flags;

		bpf_probe_read_kernel(data + ((w->start + w->len) & DL_SCRATCH_MASK),
				      len & (DL_DIR_BYTES - 1), v->buf);
		if (v->dentry == k.dentry && v->mnt == k.mnt && v->len == len && v->gen == gen) {
			__sync_fetch_and_add(&dl_dir_hits, 1);
			w->len += len;
			if (flags & DL_PATH_ROOTED) {
				w->flags |= DL_PATH_ROOTED;
				w->done = 1;
			} else {
				w->dentry = w->mnt_root;
			}
			return 0;
		}
	}
	__sync_fetch_and_add(&dl_dir_misses, 1);
	w->mount_top = 1;
	bpf_loop(DL_WALK_MAX, dl_walk_step, w, 0);
	w->mount_top = 0;
	part = w->len - from;
	/* cache a part that ended at the task's root or at the mount's top, nothing else */
	if (w->done ? w->flags != DL_PATH_ROOTED : w->dentry != w->mnt_root)
		return 0;
	if (part >= DL_DIR_BYTES)
		return 0;
	b = bpf_map_lookup_elem(&dl_dir_build, &zero);
	if (!b)
		return 0;
	b->dentry = k.dentry;
	b->mnt = k.mnt;
	b->inode = df.inode;
	b->ino = df.ino;
	b->mnt_root = w->mnt_root;
	b->gen = gen;
	b->igen = df.igen;
	b->len = part;
	b->flags = w->done ? DL_PATH_ROOTED : 0;
	if (bpf_probe_read_kernel(b->buf, part & (DL_DIR_BYTES - 1),
				  data + ((w->start + from) & DL_SCRATCH_MASK)))
		return 0;
	bpf_map_update_elem(&dl_dirs, &k, b, BPF_ANY);
	return 0;
}

/*
 * The walk: the first step names the leaf; with `cached` (a constant), the
 * directories above it come from dl_walk_dirs(); the rest is walked.
 */
static __always_inline __u64 dl_walk_run(__u64 dentry, __u64 mnt, __u32 start, int cached)
{
	struct dl_walk w = {
	    .dentry = dentry,
	    .mnt = mnt,
	    .start = start,
	};

	if (!dentry || !mnt)
		return 0;
	dl_task_path(DL_TASK_ROOT, &w.root);
	if (cached) {
		dl_walk_step(0, &w);
		if (!w.done)
			dl_walk_dirs(&w);
	}
	if (!w.done)
		bpf_loop(DL_WALK_MAX, dl_walk_step, &w, 0);
	if (!w.done)
		w.flags |= DL_PATH_TRUNC;
	return w.len | (__u64)w.flags << 32;
}

__noinline __u64 dl_walk_at(__u64 dentry, __u64 mnt, __u32 start)
{
	return dl_walk_run(dentry, mnt, start, 1);
}

/*
 * The same walk without the cache: for files met through a descriptor
 * they were not opened by (file_identity.bpf.h), once per file.  The
 * programs that only do that verify this smaller function.
 */
__noinline __u64 dl_walk_plain_at(__u64 dentry, __u64 mnt, __u32 start)
{
	return dl_walk_run(dentry, mnt, start, 0);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
