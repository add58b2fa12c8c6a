/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Which file a descriptor refers to at a call, sent to user space once.
 *
 * A call's record carries a u32 cookie for its descriptor's struct file
 * (struct dl_io.file).  The first call that meets a struct file sends a
 * struct dl_file record (identity, kind, walked path) under a new cookie,
 * before its own record; later calls on the same struct file carry the same
 * cookie and send nothing.  User space names a call after the cookie (or
 * after its descriptor table, when the table's entry has the same cookie),
 * so a call is named after the file its descriptor meant at the call, however
 * the descriptor was made: open, socket, pipe, SCM_RIGHTS, inheritance
 * across exec, a descriptor open before tracing began, ...
 *
 * What makes a struct file the one met before is checked at every call:
 * the same struct file pointer, its inode pointer and that inode's number
 * (a freed struct file's memory may hold another file later; its inode
 * then differs, or it is the same inode).  Names change only by renames:
 * every rename of the machine bumps dl_names_gen (the rename programs count
 * them before the task filter), which makes every file's name be sent
 * again, under a new cookie, at its next call.
 *
 * The per-call cost is the descriptor table lookup (read/write kinds do it
 * for the file position anyway), two loads, and a compare with the task's
 * cache (struct dl_fcache, DL_FCACHE entries by fd); a miss looks in the
 * dl_files LRU map (key: the struct file pointer), and only a file not found
 * there is walked and sent.  bench/fd_identity_cost.py measures the costs
 * (docs/performance.md "Results").
 *
 * Self-contained: include it, call dl_fd_cookie() (or dl_file_cookie() with
 * a struct file) where the scratch buffer is free, put the cookie in the
 * record and set DL_F_FILE.
 */
#ifndef FILE_IDENTITY_BPF_H
#define FILE_IDENTITY_BPF_H

#include <bpf/bpf_core_read.h>
#include "dltrace_maps.bpf.h"
#include "ring_output.bpf.h"
#include "path_walk.bpf.h"

#define DL_S_IFMT   0170000
#define DL_S_IFSOCK 0140000

/* The last cookie given out (0 is never one). */
volatile __u32 dl_last_cookie __weak = 0;

/* A struct file whose name was sent: what made it that file, and its cookie. */
struct dl_file_seen {
	__u64 inode;
	__u64 ino;
	__u32 cookie;
	__u32 gen;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64); /* struct file * */
	__type(value, struct dl_file_seen);
} dl_files SEC(".maps") __weak;

static __always_inline __u32 dl_new_cookie(void)
{
	__u32 c = __sync_fetch_and_add(&dl_last_cookie, 1) + 1;

	return c ? c : __sync_fetch_and_add(&dl_last_cookie, 1) + 1;
}

/*
 * Send the struct dl_file of f under cookie (in the scratch buffer, which
 * must be free).  Returns 0 when it went out.
 */
static __always_inline int dl_file_send_slot(__u32 slot, struct file *f, int fd,
					     struct inode *inode, __u64 ino, __u32 cookie)
{
	__u32 zero = 0, used, name_len = 0;
	struct dl_scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	struct super_block *sb;
	struct dl_file *r;
	__u64 size;
	char *data;

	if (!s)
		return -1;
	/* the walk writes at the scratch data: the record ends where it begins */
	r = (void *)(s->buf + sizeof(struct dl_path) - sizeof(struct dl_file));
	data = s->buf + sizeof(struct dl_path);
	dl_fill_hdr(&r->h, bpf_ktime_get_ns(), DL_EV_FILE, slot);
	r->h.fd = fd;
	sb = BPF_CORE_READ(inode, i_sb);
	r->ino = ino;
	r->dev = BPF_CORE_READ(sb, s_dev);
	r->fs_magic = BPF_CORE_READ(sb, s_magic);
	r->cookie = cookie;
	r->mode = BPF_CORE_READ(inode, i_mode);
	r->family = 0;
	if ((r->mode & DL_S_IFMT) == DL_S_IFSOCK) {
		struct socket *sock = BPF_CORE_READ(f, private_data);

		r->family = BPF_CORE_READ(sock, sk, __sk_common.skc_family);
	}
	r->how = 0;
	r->pad[0] = r->pad[1] = r->pad[2] = 0;
	used = dl_walk_file_plain(f, 0, &r->how);
	r->how |= DL_PATH_WALK;
	if (!used) {
		/* no component: a pseudo file's own name ("[eventfd]", "memfd:NAME") */
		struct dentry *d = BPF_CORE_READ(f, f_path.dentry);
		const unsigned char *name = BPF_CORE_READ(d, d_name.name);

		name_len = BPF_CORE_READ(d, d_name.len);
		if (name_len > DL_NAME_MAX ||
		    bpf_probe_read_kernel(data, name_len & DL_NAME_MAX, name))
			name_len = 0;
	}
	r->base_len = used;
	r->name_len = name_len;
	size = sizeof(*r) + used + name_len;
	DL_OPAQUE(size);
	size &= DL_SCRATCH_MASK;
	if (bpf_ringbuf_output(&events, r, size, dl_wakeup_flag())) {
		dl_count_lost(slot, DL_EV_FILE, size);
		return -1;
	}
	return 0;
}

static __always_inline int dl_file_send(struct dl_task *t, struct file *f, int fd,
					struct inode *inode, __u64 ino, __u32 cookie)
{
	return dl_file_send_slot(t->slot, f, fd, inode, ino, cookie);
}

/* A cache miss: the file's cookie from the map, or a new one with its record sent. */
static __noinline __u32 dl_file_meet(struct dl_task *t, struct file *f, int fd, __u64 inode,
				     __u64 ino)
{
	__u64 key = (__u64)f;
	__u32 gen = dl_names_gen; /* before the walk: a rename during it is seen next time */
	struct dl_file_seen *v = bpf_map_lookup_elem(&dl_files, &key);
	struct dl_fcache *c = &t->fcache[fd & (DL_FCACHE - 1)];
	__u32 cookie;

	if (v && v->inode == inode && v->ino == ino && v->gen == gen) {
		cookie = v->cookie;
	} else {
		struct dl_file_seen seen = {.inode = inode, .ino = ino, .gen = gen};

		seen.cookie = cookie = dl_new_cookie();
		/* a record that did not go out is not remembered: the next call sends it again */
		if (dl_file_send(t, f, fd, (struct inode *)inode, ino, cookie))
			return cookie;
		bpf_map_update_elem(&dl_files, &key, &seen, BPF_ANY);
	}
	c->file = key;
	c->inode = inode;
	c->ino = ino;
	c->cookie = cookie;
	c->gen = gen;
	return cookie;
}

/* The cookie of struct file f (its inode and i_ino read), behind descriptor fd. */
static __always_inline __u32 dl_file_cookie_of(struct dl_task *t, struct file *f, __u64 inode,
					       __u64 ino, int fd)
{
#ifndef DL_FILE_ID_NOCACHE
	struct dl_fcache *c;
#endif

#ifdef DL_FILE_ID_NONE
	return 0;
#endif
	if (!f)
		return 0;
#ifndef DL_FILE_ID_NOCACHE
	c = &t->fcache[fd & (DL_FCACHE - 1)];
	if (c->file == (__u64)f && c->inode == inode && c->ino == ino && c->gen == dl_names_gen)
		return c->cookie;
#endif
	return dl_file_meet(t, f, fd, inode, ino);
}

/* The cookie of f, the struct file behind descriptor fd (0: no file). */
static __always_inline __u32 dl_file_cookie(struct dl_task *t, struct file *f, int fd)
{
	struct inode *inode;

	if (!f)
		return 0;
	inode = BPF_CORE_READ(f, f_inode);
	return dl_file_cookie_of(t, f, (__u64)inode, BPF_CORE_READ(inode, i_ino), fd);
}

/* The cookie of descriptor fd's file (0: no file). */
static __always_inline __u32 dl_fd_cookie(struct dl_task *t, int fd)
{
	struct dl_fd_facts ff;

	dl_fd_facts(fd, &ff);
	return dl_file_cookie_of(t, (void *)ff.file, ff.inode, ff.ino, fd);
}

/*
 * An open's new descriptor: a new cookie, whose struct dl_file is the
 * open's own record; dl_file_opened() remembers it in the task's cache once
 * that went out (not in dl_files: another task meeting the struct file, a
 * forked child or a process it was passed to, sends its own struct
 * dl_file, which user space needs to name it outside this process).
 */
struct dl_opened {
	__u64 file, inode, ino;
	__u32 cookie, gen;
};

static __always_inline __u32 dl_file_open_cookie_of(struct dl_opened *o, __u64 f, __u64 inode,
						    __u64 ino)
{
	o->gen = dl_names_gen;
	o->file = f;
	o->inode = inode;
	o->ino = ino;
	o->cookie = dl_new_cookie();
	return o->cookie;
}

static __always_inline void dl_file_opened(struct dl_task *t, const struct dl_opened *o, int fd)
{
	struct dl_fcache *c = &t->fcache[fd & (DL_FCACHE - 1)];

	if (!o->cookie)
		return;
	c->file = o->file;
	c->inode = o->inode;
	c->ino = o->ino;
	c->cookie = o->cookie;
	c->gen = o->gen;
}

/*
 * Files met without a descriptor: an io_uring request's (a registered
 * file's index is no descriptor), a page fault's mapping.  Their struct
 * dl_file goes out once per file and job slot (fd -1), under a cookie no
 * call carries: user space learns the inode's name from it.
 */
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

/* Send f's struct dl_file for job slot `slot`, unless it was sent already. */
static __always_inline void dl_name_file(struct file *f, __u64 ino, __u32 dev, __u32 slot)
{
	struct dl_file_key key = {.file = (__u64)f, .ino = ino, .dev = dev, .slot = slot};
	__u8 one = 1;

	if (!f || bpf_map_lookup_elem(&dl_files_named, &key))
		return;
	if (!dl_file_send_slot(slot, f, -1, BPF_CORE_READ(f, f_inode), ino, dl_new_cookie()))
		bpf_map_update_elem(&dl_files_named, &key, &one, BPF_ANY);
}

#endif /* FILE_IDENTITY_BPF_H */
