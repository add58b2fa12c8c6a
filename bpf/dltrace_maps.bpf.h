/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Maps and global settings shared by every dltrace BPF object.  Each
 * definition is __weak so that the objects (syscall_probes.bpf.c,
 * process_probes.bpf.c, ...) can be linked into one skeleton with
 * `bpftool gen object` and share a single instance.
 */
#ifndef DLTRACE_MAPS_BPF_H
#define DLTRACE_MAPS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "dltrace_events.h"

/* Hide a value from the compiler so that a bounds mask survives for the verifier. */
#define DL_OPAQUE(x) asm volatile("" : "+r"(x))

/*
 * A task's memory of the files its descriptors referred to
 * (file_identity.bpf.h): entry fd % DL_FCACHE holds the last struct file met
 * on such a descriptor, with what makes it that file, and its cookie.
 */
#define DL_FCACHE 4
struct dl_fcache {
	__u64 file;  /* struct file * */
	__u64 inode; /* its f_inode */
	__u64 ino;   /* and that inode's i_ino */
	__u32 cookie;
	__u32 gen; /* dl_names_gen when the name was sent */
};

/* Per-task state, kept in task local storage (no hash update per call). */
#define DL_PY_CACHE 4 /* recent stacks a thread remembers (no map lookup) */

/*
 * Python stacks (python_stack.bpf.h): per thread of a CPython process, kept
 * in the thread's struct dl_task (no lookup of its own).
 */
struct dl_py_task {
	__u64 runtime; /* of its process (copied from py_procs when gen changes) */
	__u64 tstate;  /* its PyThreadState, 0 when not known yet */
	__u64 retry;   /* no thread state: do not look again before this time */
	__u32 gen;     /* the process image the fields belong to */
	__u32 layout;
	__u64 hash[DL_PY_CACHE];
	__u32 id[DL_PY_CACHE];
	__u32 misses; /* lookups that found no thread state */
	__u32 pad;
};

struct dl_task {
	__u64 ts;	   /* entry time of the syscall in flight */
	__u64 a[6];	   /* its saved arguments */
	__u64 pos;	   /* file position at entry, when the kind needs it */
	__u32 gen;	   /* dl_gen when membership was last evaluated */
	__u32 job_id;	   /* job the task belongs to, valid while job_ids[slot] matches */
	__u16 sys;	   /* syscall in flight: kind + 1, 0 when none */
	__u8 slot;	   /* job slot, 0 = not traced */
	__u8 flags;	   /* DL_F_* for the record being built */
	__u32 cache_pages; /* cache layer: page-cache pages added during the syscall */
	__u8 pending_slot; /* joins this job slot at its next exec */
	__u8 py;	   /* python stacks: the process is a CPython known to py_procs */
	__u8 run_from; /* counting mode: runs in batch slots below it end (a library call began) */
	__u8 pad;
	__u32 tgid; /* the task's ids, kept here to spare a helper call per event */
	__u32 tid;
	__u32 nbatch; /* records in batch */
	__u32 py_gen; /* python stacks: py_procs_gen when `py` was decided */
	/* data records gathered for one ring write (see ring_output.bpf.h) */
	struct dl_io batch[DL_BATCH];
	/* vfs layer: the VFS call in flight */
	__u64 vfs_ts;
	__u64 vfs_file; /* struct file * */
	__u64 vfs_pos;
	__u64 vfs_size;
	__u64 vfs_open_path; /* kprobe on vfs_open: its arguments, for the return */
	__u64 vfs_open_file;
	__u32 vfs_op; /* enum dl_vfs_op + 1, 0 when none */
	__u32 vfs_write;
#define DL_ANON_CACHE 4 /* a power of two */
	/*
	 * mmap layer: the last anonymous mappings faults hit, valid while
	 * dl_map_gen is anon_gen (a job's threads fault in a few at a time: the
	 * heap, a stack, an allocation)
	 */
	__u64 anon_lo[DL_ANON_CACHE];
	__u64 anon_hi[DL_ANON_CACHE];
	__u32 anon_gen;
	__u32 anon_next; /* the entry replaced next */
#define DL_FMAP_CACHE 4	 /* a power of two */
	/*
	 * mmap layer: the last file mappings faults hit, valid while the
	 * address space is fmap_mm and its write sequence (mm_lock_seq) is
	 * fmap_seq: no mapping of it has changed since (mmap_probes.bpf.c)
	 */
	struct dl_fmap {
		__u64 lo, hi; /* the mapping */
		__u64 base;   /* the file offset of lo */
		__u64 file;   /* struct file *, held by the mapping */
		__u64 ino;
		__u32 dev;
		__u32 flags; /* DL_FAULT_EXEC, and DL_FAULT_COW for a private mapping */
	} fmap[DL_FMAP_CACHE];
	__u64 fmap_mm;
	__u32 fmap_seq;
	__u32 fmap_next;
	/* the files of the call in flight (dl_io.file, file2), and the cache */
	__u32 file;
	__u32 file2;
	struct dl_fcache fcache[DL_FCACHE];
	struct dl_py_task py_thread; /* python stacks: valid when py is 1 */
};

/* Set by user space before load. */
const volatile __u32 self_tgid __weak = 0;    /* dltrace itself: never traced */
const volatile __u64 wakeup_bytes __weak = 0; /* wake the reader past this backlog */
const volatile __u8 cache_layer __weak = 0;   /* report page-cache misses of reads */
const volatile __u8 fork_wakeup __weak = 0;   /* wake the reader at each traced fork */
/* the kernel lets every program type call bpf_task_from_pid (leader_verdict.bpf.c) */
const volatile __u8 task_kfuncs __weak = 0;

/*
 * Changed by user space while running (the .bss is memory-mapped):
 * dl_gen is bumped whenever the rules that decide membership change, so
 * that tasks found untraced are evaluated again; job_ids[slot] holds the
 * id of the job occupying a slot (0 = free); cgroup_slots has a bit set
 * for each slot whose job is a cgroup (entry `slot` of job_cgroups).
 */
volatile __u32 dl_gen __weak = 0;
volatile __u32 job_ids[DL_MAX_JOBS] __weak = {};
volatile __u64 cgroup_slots __weak = 0;
volatile __u32 jobs_live __weak = 0; /* slots with a job (system-wide layers run only then) */
/* counting mode: the job slots whose data calls alike go out as runs (DL_KIND_RUN) */
volatile __u64 count_slots __weak = 0;
/* Does the task's slot still hold its job (else the task is untraced, or its job ended)? */
static __always_inline int dl_slot_live(const struct dl_task *t)
{
	return t->slot && job_ids[t->slot & (DL_MAX_JOBS - 1)] == t->job_id;
}

/* The task's job counts runs (count_slots). */
static __always_inline int dl_counting(const struct dl_task *t)
{
	return count_slots >> (t->slot & (DL_MAX_JOBS - 1)) & 1;
}

/* Bumped when a traced task has mapped a file: cached anonymous ranges are stale. */
volatile __u32 dl_map_gen __weak = 0;

static __always_inline void dl_forget_anon(struct dl_task *t)
{
	for (int i = 0; i < DL_ANON_CACHE; i++)
		t->anon_hi[i] = 0;
}

/* A new address space (exec): nothing remembered of mappings holds. */
static __always_inline void dl_forget_mappings(struct dl_task *t)
{
	dl_forget_anon(t);
	t->fmap_mm = 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20); /* resized by user space */
} events SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct dl_task);
} tasks SEC(".maps") __weak;

/* Processes named on the command line (--pid, -- COMMAND): tgid -> slot. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u32);
} seed_tgids SEC(".maps") __weak;

/* Job cgroups (--cgroup, daemon): slot -> cgroup fd. */
struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, DL_MAX_JOBS);
	__type(key, __u32);
	__type(value, __u32);
} job_cgroups SEC(".maps") __weak;

/* Counters, see enum dl_stat. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, DL_MAX_JOBS *DL_STAT_COUNT);
	__type(key, __u32);
	__type(value, __u64);
} dl_stats SEC(".maps") __weak;

/*
 * Scratch space to build variable-length records (paths, argv) before
 * copying the used part into the ring buffer.  Data offsets are masked
 * with DL_SCRATCH_MASK; DL_SCRATCH_DATA leaves room for one more path
 * slot past the mask so that the verifier can prove every write in bounds.
 */
#define DL_SCRATCH_MASK 0x3fff
#define DL_SCRATCH_DATA (DL_SCRATCH_MASK + 1 + DL_PATH_MAX + DL_NAME_MAX + 1)

struct dl_scratch {
	char buf[sizeof(struct dl_path) + DL_SCRATCH_DATA];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dl_scratch);
} scratch SEC(".maps") __weak;

#endif /* DLTRACE_MAPS_BPF_H */
