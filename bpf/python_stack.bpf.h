/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Python stacks: at a syscall's exit, the CPython frames of the calling
 * thread, as a stack id.
 *
 *   fsbase (task->thread.fsbase) is glibc's struct pthread of the thread;
 *   its pthread_getspecific slot for CPython's autoTSSkey holds the
 *   thread's PyThreadState, whether or not the thread holds the GIL (it is
 *   set when the thread state is bound, not when the GIL is taken);
 *   PyThreadState -> innermost frame (-> _PyCFrame on 3.11/3.12) -> frames,
 *   each with its code object and instruction, up to DL_PY_FRAMES.
 *
 * The thread state found is remembered per thread and checked at each use
 * (its thread_id is pthread_self(), i.e. fsbase), so the common case reads
 * the thread state, the current frame and the frames.  From 3.11 on the
 * frames of a thread are contiguous in its data stack: they are read in one
 * window; frames elsewhere (generators, entry frames on the C stack) one
 * by one.  Every user memory read is bpf_probe_read_user: a stale or
 * garbage pointer makes a read fail or a value wrong, never a fault; the
 * walk is bounded.
 *
 * A stack is hashed (code object and instruction of each frame); a thread
 * remembers its last few stacks, the py_stack_ids map the rest.  A stack not
 * seen before gets the next id of its process and is sent once
 * (DL_EV_PY_STACK), after every code object of it the process has not
 * sent yet (DL_EV_PY_CODE).  Both go straight to the ring, so they come
 * before the (batched) syscall record that names them.
 *
 * The functions that are not inlined are global: the verifier checks each
 * once, on its own, instead of at every call site in the context of each
 * of the ~40 exit programs (a third of the instructions to verify, and
 * seconds of load time).  python_stack.bpf.c, a file without programs,
 * defines them; the files of programs define DL_PY_EXTERN before including
 * this header and call those (the objects are linked into one).  Global
 * functions must check their pointer arguments for NULL.
 */
#ifndef PYTHON_STACK_BPF_H
#define PYTHON_STACK_BPF_H

#include <bpf/bpf_core_read.h>
#include "python_maps.bpf.h"
#include "ring_output.bpf.h"
#include "path_walk.bpf.h"

#ifdef DL_PY_EXTERN
__u32 dl_py_walk(struct dl_task *t, __u64 now);
int dl_py_decide(struct dl_task *t);
int dl_py_mapped(struct dl_task *t, __u64 addr);
#else
/*
 * A thread without a thread state looks again at each syscall for its
 * first DL_PY_FREE_MISSES lookups (an interpreter starting: between making
 * its TSS key and binding the main thread's state, it makes a few dozen
 * syscalls, and its first Python code, getpath, runs right after), then
 * no sooner than DL_PY_RETRY_NS after the last (a thread that never runs
 * Python pays one failed lookup per 20 ms).
 */
#define DL_PY_FREE_MISSES 256
#define DL_PY_RETRY_NS	  20000000ull
#define DL_PY_NO_KEY	  1 /* dl_py_tls_tstate(): the interpreter has no TSS key yet */
#define DL_PY_SLACK	  8 /* frames skipped (entry frames) beyond DL_PY_FRAMES */

static __always_inline __u64 dl_py_fsbase(void)
{
#if defined(__TARGET_ARCH_x86)
	/* a load, not a helper call: the task pointer is one the verifier trusts */
	return bpf_get_current_task_btf()->thread.fsbase;
#else
	return 0;
#endif
}

static __always_inline __u64 dl_py_mix(__u64 h, __u64 v)
{
	h ^= v;
	h *= 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 31);
}

/* Loads from the scratch buffer at a bounded offset. */
#define DL_PY_U64(s, off) (*(__u64 *)((s)->buf + ((off) & (DL_PY_BUF - 1))))
#define DL_PY_U32(s, off) (*(__u32 *)((s)->buf + ((off) & (DL_PY_BUF - 1))))
#define DL_PY_U8(s, off)  ((s)->buf[(off) & (DL_PY_BUF - 1)])

/* Read one object (at most DL_PY_BUF - DL_PY_ONE bytes) into the single-object area. */
static __always_inline int dl_py_read_one(struct dl_py_scratch *s, __u64 addr, __u32 len)
{
	DL_OPAQUE(len);
	if (len > DL_PY_BUF - DL_PY_ONE)
		return -1;
	return bpf_probe_read_user(s->buf + DL_PY_ONE, len, (void *)addr);
}

/*
 * The thread's PyThreadState from its pthread_getspecific slot: key k of
 * glibc's struct pthread is specific_1stblock[k].data for k < 32, else
 * specific[k / 32][k % 32].data.  0 when there is none, DL_PY_NO_KEY
 * before the interpreter made its key (still starting).
 */
__noinline __u64 dl_py_tls_tstate(__u64 runtime, __u32 rt_tss, __u64 fs)
{
	struct {
		__s32 initialized;
		__u32 key;
	} tss;
	struct {
		__u64 seq;
		__u64 data;
	} slot;
	__u64 block = fs + py_pthread_specific, second = 0;

	if (!fs || bpf_probe_read_user(&tss, sizeof(tss), (void *)(runtime + rt_tss)))
		return 0;
	if (tss.initialized != 1)
		return DL_PY_NO_KEY;
	if (tss.key < 32)
		return bpf_probe_read_user(&slot, sizeof(slot), (void *)(block + tss.key * 16ull))
			   ? 0
			   : slot.data;
	if (tss.key >= 1024 ||
	    bpf_probe_read_user(&second, sizeof(second),
				(void *)(block + 32 * 16 + (tss.key / 32) * 8ull)) ||
	    !second)
		return 0;
	return bpf_probe_read_user(&slot, sizeof(slot), (void *)(second + (tss.key % 32) * 16ull))
		   ? 0
		   : slot.data;
}

struct dl_py_walk {
	__u64 frame;		  /* next frame to look at */
	__u64 lo, hi;		  /* user addresses held in buf[0, hi - lo) */
	__u64 stack_lo, stack_hi; /* the thread's current data stack chunk (3.11+) */
	__u64 hash;
	__u32 layout;
	__u32 n;      /* frames recorded */
	__u8 flags;   /* DL_PYS_* */
	__u8 done;    /* reached the outermost frame */
	__u8 windows; /* window reads made */
};

/* One frame: record it (or skip an entry frame) and move to its caller. */
__noinline int dl_py_step(struct dl_py_walk *w)
{
	__u32 zero = 0, len, base, layout;
	struct dl_py_scratch *s = bpf_map_lookup_elem(&py_scratch, &zero);
	struct dl_py_layout *L;
	__u64 f, code, prev, at;
	__s32 lasti;

	if (!w || !s)
		return 1;
	/* a key on the stack: kernels before 6.x's PTR_TO_MEM keys (6.1) refuse w's memory */
	layout = w->layout;
	L = bpf_map_lookup_elem(&py_layouts, &layout);
	f = w->frame;
	if (!L)
		return 1;
	if (!f) {
		w->done = 1;
		return 1;
	}
	len = L->fr_read & 127;
	if (f >= w->lo && f + len <= w->hi) {
		base = f - w->lo;
	} else if (f >= w->stack_lo && f + len <= w->stack_hi && w->windows < 2) {
		/* the data stack: read this frame and what lies below it at once */
		__u64 end = f + len, start = w->stack_lo;
		__u32 n;

		if (end - start > DL_PY_WIN)
			start = end - DL_PY_WIN;
		n = end - start;
		DL_OPAQUE(n);
		if (n > DL_PY_WIN)
			return 1;
		if (bpf_probe_read_user(s->buf, n, (void *)start)) {
			w->flags |= DL_PYS_BROKEN;
			return 1;
		}
		w->windows++;
		w->lo = start;
		w->hi = end;
		base = f - start;
	} else {
		if (dl_py_read_one(s, f, len)) {
			w->flags |= DL_PYS_BROKEN;
			return 1;
		}
		base = DL_PY_ONE;
	}
	if (base > DL_PY_ONE)
		return 1;
	code = DL_PY_U64(s, base + L->fr_code);
	prev = DL_PY_U64(s, base + L->fr_prev);
	if (L->fr_owner != DL_PY_NONE && DL_PY_U8(s, base + L->fr_owner) == L->owner_cstack) {
		/* the interpreter's entry frame on the C stack: not Python code */
		w->frame = prev;
		return 0;
	}
	if (w->n >= DL_PY_FRAMES) {
		w->flags |= DL_PYS_TRUNCATED;
		return 1;
	}
	if (L->lasti_kind == DL_PY_LASTI_INT) {
		lasti = (__s32)DL_PY_U32(s, base + L->fr_lasti);
	} else {
		at = DL_PY_U64(s, base + L->fr_lasti);
		lasti = (__s32)((__s64)(at - code - L->co_code) >> 1);
	}
	s->stack.frames[w->n & (DL_PY_FRAMES - 1)].code = code;
	s->stack.frames[w->n & (DL_PY_FRAMES - 1)].lasti = lasti;
	s->stack.frames[w->n & (DL_PY_FRAMES - 1)].pad = 0;
	w->hash = dl_py_mix(dl_py_mix(w->hash, code), (__u32)lasti);
	w->n++;
	w->frame = prev;
	if (!prev) {
		w->done = 1; /* the outermost frame: no call to look at NULL */
		return 1;
	}
	/*
	 * 3.12 on: a frame at data[1] of the current chunk is the thread's
	 * first Python frame (only the root chunk skips data[0]; a later
	 * chunk's first frame starts at data[0] and is longer than 8 bytes).
	 * What it links to off the data stack is then the interpreter's entry
	 * frame on the C stack, whose previous is NULL: the walk ends here
	 * without reading it (about 100 ns of 3.13's walk).  Only a generator
	 * resumed from C on a thread without any Python frame, which then calls
	 * C that calls Python, would have its frame there (docs/limits.md "Python stacks").
	 */
	if (L->owner_cstack != DL_PY_NONE && w->stack_lo && f == w->stack_lo + 8 &&
	    (prev < w->stack_lo || prev >= w->stack_hi)) {
		w->done = 1;
		return 1;
	}
	return 0;
}

/* Read a str object (compact, as code objects' names are) into dst; returns its bytes. */
static __always_inline __u32 dl_py_str(struct dl_py_scratch *s, struct dl_py_layout *L, __u64 obj,
				       char *dst, __u32 max, __u8 *kind, __u8 *flags, __u8 trunc)
{
	__u64 length, data;
	__u32 state, n;

	if (!obj || dl_py_read_one(s, obj, L->str_compact_data)) {
		*flags |= DL_PYC_UNREADABLE;
		return 0;
	}
	length = DL_PY_U64(s, DL_PY_ONE + L->str_length);
	state = DL_PY_U32(s, DL_PY_ONE + L->str_state);
	*kind = (state >> 2) & 7;
	if (!(state & (1 << 5)) || (*kind != 1 && *kind != 2 && *kind != 4)) {
		*flags |= DL_PYC_UNREADABLE; /* not compact: no inline data */
		return 0;
	}
	data = obj + ((state & (1 << 6)) ? L->str_ascii_data : L->str_compact_data);
	if (length * *kind > max) {
		length = max / *kind;
		*flags |= trunc;
	}
	n = length * *kind;
	DL_OPAQUE(n);
	if (n > max || n > DL_PY_FILE_MAX)
		return 0;
	if (bpf_probe_read_user(dst, n, (void *)data)) {
		*flags |= DL_PYC_UNREADABLE;
		return 0;
	}
	return n;
}

/* Send a code object's names and line table (DL_EV_PY_CODE); 0 when sent. */
__noinline int dl_py_send_code(__u64 code, __u32 gen, __u32 layout, __u32 slot)
{
	__u32 zero = 0, off, n;
	struct dl_py_scratch *s = bpf_map_lookup_elem(&py_scratch, &zero);
	struct dl_py_layout *L = bpf_map_lookup_elem(&py_layouts, &layout);
	struct dl_py_code *c;
	__u64 file, name, table, size;
	__u8 kind = 1;

	if (!s || !L)
		return -1;
	c = (void *)s->code;
	dl_fill_hdr(&c->h, bpf_ktime_get_ns(), DL_EV_PY_CODE, slot);
	c->gen = gen;
	c->code = code;
	c->minor = L->minor;
	c->flags = 0;
	c->file_kind = c->name_kind = 1;
	c->file_len = c->name_len = c->table_len = 0;
	c->firstlineno = 0;
	__builtin_memset(c->pad, 0, sizeof(c->pad));
	if (dl_py_read_one(s, code, L->co_read)) {
		c->flags |= DL_PYC_UNREADABLE;
		goto out;
	}
	file = DL_PY_U64(s, DL_PY_ONE + L->co_filename);
	name =
	    DL_PY_U64(s, DL_PY_ONE + (L->co_qualname != DL_PY_NONE ? L->co_qualname : L->co_name));
	table = DL_PY_U64(s, DL_PY_ONE + L->co_linetable);
	c->firstlineno = (__s32)DL_PY_U32(s, DL_PY_ONE + L->co_firstlineno);

	n = dl_py_str(s, L, file, c->data, DL_PY_FILE_MAX, &kind, &c->flags, DL_PYC_FILE_TRUNC);
	c->file_len = n;
	c->file_kind = kind;
	off = n & (DL_PY_FILE_MAX * 2 - 1);
	n = dl_py_str(s, L, name, c->data + off, DL_PY_NAME_MAX, &kind, &c->flags,
		      DL_PYC_NAME_TRUNC);
	c->name_len = n;
	c->name_kind = kind;
	off = (off + n) & 1023;

	if (!table || dl_py_read_one(s, table, L->bytes_data)) {
		c->flags |= DL_PYC_UNREADABLE;
		goto out;
	}
	size = DL_PY_U64(s, DL_PY_ONE + L->bytes_size);
	if (size > DL_PY_TABLE_MAX) {
		size = DL_PY_TABLE_MAX;
		c->flags |= DL_PYC_TABLE_TRUNC;
	}
	n = size;
	DL_OPAQUE(n);
	if (n > DL_PY_TABLE_MAX)
		goto out;
	if (bpf_probe_read_user(c->data + off, n, (void *)(table + L->bytes_data))) {
		c->flags |= DL_PYC_UNREADABLE;
		goto out;
	}
	c->table_len = n;
out:
	n = sizeof(*c) + c->file_len + c->name_len + c->table_len;
	DL_OPAQUE(n);
	if (n > sizeof(s->code))
		return -1;
	if (bpf_ringbuf_output(&events, c, n, dl_wakeup_flag())) {
		dl_count_lost(slot, DL_EV_PY_CODE, n);
		return -1;
	}
	return 0;
}

struct dl_py_codes {
	__u32 gen, layout, slot, n;
};

/*
 * The code objects of a new stack that the process has not sent yet, or
 * that hold something else than when they were sent (the address reused).
 */
__noinline int dl_py_code_step(struct dl_py_codes *cs, __u32 i)
{
	__u32 zero = 0, layout;
	struct dl_py_scratch *s = bpf_map_lookup_elem(&py_scratch, &zero);
	struct dl_py_layout *L;
	struct dl_py_code_key key = {};
	__u64 print, *sent;

	if (!cs || !s)
		return 1;
	layout = cs->layout; /* a key on the stack (see dl_py_step) */
	L = bpf_map_lookup_elem(&py_layouts, &layout);
	key.gen = cs->gen;
	if (!L || i >= cs->n)
		return 1;
	key.code = s->stack.frames[i & (DL_PY_FRAMES - 1)].code;
	if (dl_py_read_one(s, key.code, L->co_read))
		return 0;
	print = dl_py_mix(DL_PY_U64(s, DL_PY_ONE + L->co_filename),
			  DL_PY_U64(s, DL_PY_ONE + L->co_name));
	print = dl_py_mix(print, DL_PY_U64(s, DL_PY_ONE + L->co_linetable));
	print = dl_py_mix(print, DL_PY_U32(s, DL_PY_ONE + L->co_firstlineno));
	sent = bpf_map_lookup_elem(&py_codes, &key);
	if (sent && *sent == print)
		return 0;
	if (!dl_py_send_code(key.code, cs->gen, cs->layout, cs->slot))
		bpf_map_update_elem(&py_codes, &key, &print, BPF_ANY);
	return 0;
}

/*
 * The stack id of the current thread of a CPython process (t->py), 0 when
 * it has none (no thread state, no Python frame, or a record was lost).
 */
__noinline __u32 dl_py_walk(struct dl_task *t, __u64 now)
{
	struct dl_py_walk w = {};
	struct dl_py_stack_key key = {};
	struct dl_py_codes cs;
	struct dl_py_scratch *s;
	struct dl_py_layout *L;
	struct dl_py_proc *proc;
	__u32 zero = 0, tgid, id, size, c;
	__u64 fs, ts, frame;
	__u32 *known;
	struct dl_py_task *pt;

	if (!t)
		return 0;
	pt = &t->py_thread;
	if (now < pt->retry)
		return 0;
	w.layout = pt->layout;
	L = bpf_map_lookup_elem(&py_layouts, &w.layout);
	s = bpf_map_lookup_elem(&py_scratch, &zero);
	if (!L || !s)
		return 0;
	fs = dl_py_fsbase();
	ts = pt->tstate;
	if (ts &&
	    (dl_py_read_one(s, ts, L->ts_read) || DL_PY_U64(s, DL_PY_ONE + L->ts_thread) != fs))
		ts = 0;
	if (!ts) {
		ts = dl_py_tls_tstate(pt->runtime, L->rt_tss, fs);
		/* a starting interpreter: its first frames are a few syscalls away */
		if (ts == DL_PY_NO_KEY)
			return 0;
		/* else no thread state (a thread that never ran Python): not before long */
		if (!ts || dl_py_read_one(s, ts, L->ts_read) ||
		    DL_PY_U64(s, DL_PY_ONE + L->ts_thread) != fs) {
			pt->tstate = 0;
			if (++pt->misses > DL_PY_FREE_MISSES)
				pt->retry = now + DL_PY_RETRY_NS;
			return 0;
		}
		pt->tstate = ts;
	}
	frame = DL_PY_U64(s, DL_PY_ONE + L->ts_frame);
	if (L->ts_chunk != DL_PY_NONE) {
		w.stack_lo = DL_PY_U64(s, DL_PY_ONE + L->ts_chunk);
		w.stack_hi = DL_PY_U64(s, DL_PY_ONE + L->ts_top);
		if (w.stack_lo)
			w.stack_lo += L->chunk_data;
	}
	if (L->frame_via == DL_PY_FRAME_CFRAME && frame &&
	    bpf_probe_read_user(&frame, sizeof(frame), (void *)(frame + L->cf_frame)))
		return 0;
	if (!frame)
		return 0; /* no Python code running on this thread */
	w.frame = frame;
	w.hash = pt->gen;
	for (int i = 0; i < DL_PY_FRAMES + DL_PY_SLACK; i++)
		if (dl_py_step(&w))
			break;
	if (!w.done && !(w.flags & DL_PYS_BROKEN))
		w.flags |= DL_PYS_TRUNCATED;
	if (!w.n)
		return 0;
	w.hash = dl_py_mix(w.hash, w.n | (__u32)w.flags << 16);

	c = w.hash & (DL_PY_CACHE - 1);
	if (pt->hash[c] == w.hash && pt->id[c])
		return pt->id[c];
	key.hash = w.hash;
	key.gen = pt->gen;
	known = bpf_map_lookup_elem(&py_stack_ids, &key);
	if (known) {
		id = *known;
		goto cache;
	}

	/* a new stack: its code objects, then itself */
	tgid = t->tgid;
	proc = bpf_map_lookup_elem(&py_procs, &tgid);
	if (!proc || proc->gen != pt->gen)
		return 0;
	cs.gen = pt->gen;
	cs.layout = pt->layout;
	cs.slot = t->slot;
	cs.n = w.n;
	for (__u32 i = 0; i < DL_PY_FRAMES; i++)
		if (dl_py_code_step(&cs, i))
			break;
	id = __sync_fetch_and_add(&proc->next_stack, 1);
	s = bpf_map_lookup_elem(&py_scratch, &zero);
	if (!s)
		return 0;
	dl_fill_hdr(&s->stack.h, now, DL_EV_PY_STACK, t->slot);
	s->stack.gen = pt->gen;
	s->stack.id = id;
	s->stack.n = w.n;
	s->stack.flags = w.flags;
	s->stack.minor = L->minor;
	s->stack.pad = 0;
	size = offsetof(struct dl_py_stack, frames) + (w.n & (2 * DL_PY_FRAMES - 1)) * 16;
	if (size > sizeof(s->stack))
		return 0;
	if (bpf_ringbuf_output(&events, &s->stack, size, dl_wakeup_flag())) {
		dl_count_lost(t->slot, DL_EV_PY_STACK, size);
		return 0;
	}
	bpf_map_update_elem(&py_stack_ids, &key, &id, BPF_ANY);
cache:
	pt->hash[c & (DL_PY_CACHE - 1)] = w.hash;
	pt->id[c & (DL_PY_CACHE - 1)] = id;
	return id;
}

/*
 * Decide (again) whether the current task's process is a CPython known to
 * py_procs, after py_procs changed; prepares the thread's py_thread state.
 */
__noinline int dl_py_decide(struct dl_task *t)
{
	__u32 gen = py_procs_gen, tgid;
	struct dl_py_proc *proc;
	struct dl_py_task *pt;

	if (!t)
		return 0;
	tgid = t->tgid;
	proc = bpf_map_lookup_elem(&py_procs, &tgid);
	t->py = 0;
	t->py_gen = gen;
	if (!proc)
		return 0;
	pt = &t->py_thread;
	if (pt->gen != proc->gen || pt->runtime != proc->runtime) {
		pt->gen = proc->gen;
		pt->runtime = proc->runtime;
		pt->layout = proc->layout;
		pt->tstate = 0;
		pt->retry = 0;
		pt->misses = 0;
		for (int i = 0; i < DL_PY_CACHE; i++) {
			pt->hash[i] = 0;
			pt->id[i] = 0;
		}
	}
	t->py = 1;
	return 1;
}

/*
 * A file mapped at offset 0 by a process that is no known CPython yet:
 * if the file is a known libpython, this is the dynamic loader placing it,
 * and the process's runtime is found from where it went.
 */
__noinline int dl_py_mapped(struct dl_task *t, __u64 addr)
{
	struct dl_py_file key = {};
	struct dl_py_proc proc = {};
	struct dl_py_bin *bin;
	struct file *f;
	__u32 tgid;

	if (!t)
		return 0;
	tgid = t->tgid;
	if (t->a[5] != 0 || bpf_map_lookup_elem(&py_procs, &tgid))
		return 0;
	f = dl_fd_file((int)t->a[4]);
	if (!f)
		return 0;
	key.ino = BPF_CORE_READ(f, f_inode, i_ino);
	key.dev = BPF_CORE_READ(f, f_inode, i_sb, s_dev);
	bin = bpf_map_lookup_elem(&py_bins, &key);
	if (!bin || bin->kind != DL_PY_BIN_LIB)
		return 0;
	proc.runtime = addr - bin->first_vaddr + bin->runtime;
	proc.layout = bin->layout;
	proc.gen = __sync_fetch_and_add(&py_next_gen, 1) + 1;
	proc.next_stack = 1;
	bpf_map_update_elem(&py_procs, &tgid, &proc, BPF_NOEXIST);
	__sync_fetch_and_add(&py_procs_gen, 1);
	return 0;
}

#endif /* DL_PY_EXTERN */

/* The stack id for a syscall of kind by a traced task (0: none). */
static __always_inline __u32 dl_py_stack_id(struct dl_task *t, enum dl_kind kind, __u64 now)
{
	/* py_kinds is a 64-bit mask: the kinds from 64 on (metadata calls) get none */
	if (!py_stacks || kind >= 64 || !(py_kinds >> kind & 1) || !dl_py_kind_ok(kind))
		return 0;
	if (t->py_gen != py_procs_gen)
		dl_py_decide(t);
	if (!t->py)
		return 0;
	return dl_py_walk(t, now);
}

#endif /* PYTHON_STACK_BPF_H */
