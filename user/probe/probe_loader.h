/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The BPF side as one object: open the skeleton, set the read-only
 * settings, skip tracepoints this kernel lacks, load, attach, and later
 * detach.  Also the knobs user space turns while tracing: which processes
 * and cgroups are traced (per job slot) and the lost-event counters.
 */
#ifndef PROBE_LOADER_H
#define PROBE_LOADER_H

#include <bpf/libbpf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "event/lost_counts.h"
#include "probe/probe_layers.h"

struct dltrace_bpf;
struct library_probes;

struct probe_options {
	uint64_t ring_bytes; /* ring buffer size, a power of two */
	bool verbose;	     /* show libbpf's own messages */
	unsigned layers;     /* wanted layers (bit set of enum dl_layer) */
	bool cgroup_events;  /* daemon: report cgroup v2 mkdir/rmdir */
	bool live;	     /* live consumers: a task's gathered records go out when it sleeps */
	enum vfs_attach vfs_attach;
	/* python stacks (probe/python_probe.h): walk CPython frames at these syscall kinds */
	bool python_stacks;
	uint64_t python_kinds;	   /* bit 1 << enum dl_kind */
	uint32_t pthread_specific; /* glibc struct pthread: specific_1stblock */
	char *const *lib_paths;	   /* --lib: libraries of the library layers (real paths) */
	size_t nlib_paths;
};

/* A link's tracepoint perf event, kept for the next run (tracepoint_events.h). */
struct link_event {
	int fd;	       /* libbpf's: valid while the link is */
	char name[96]; /* "category/name" */
};

struct probes {
	struct dltrace_bpf *skel;
	/* the same object opened again: the per-syscall exit programs, loaded beside skel's,
	 * sharing its maps */
	struct dltrace_bpf *second;
	struct layer_plan plan;		/* what is active, and why not */
	struct library_probes *libs;	/* the library layers' libraries and links */
	struct bpf_link **links;	/* a shared program has one link per kind */
	int *link_layer;		/* layer of each link (-1: core) */
	struct bpf_program **link_prog; /* the program of each link */
	struct link_event *link_event;	/* each link's tracepoint perf event (fd -1: none) */
	ring_buffer_sample_fn cb;	/* the caller's record handler */
	void *cb_ctx;
	unsigned long pass_records; /* records handled in this pass */
	uint64_t ring_bytes;
	size_t nlinks;
	struct ring_buffer *rb;
	bool released;	  /* handed over by probes_release_and_exit_soon() */
	unsigned skipped; /* programs not loaded: tracepoint missing on this kernel */
	char skipped_names[512];
};

/* dl_enter_shared, dl_exit_shared: attached once per shared syscall kind (cookie: the kind). */
bool probe_is_shared(const struct bpf_program *prog);

/* Open, configure and load. Records reach cb(ctx, data, size). */
int probes_load(struct probes *p, const struct probe_options *o, ring_buffer_sample_fn cb,
		void *ctx, char *err, size_t errlen);
int probes_attach(struct probes *p, char *err, size_t errlen);
/* Attach the loaded programs `want` selects that are not attached yet. */
int probes_attach_where(struct probes *p, bool (*want)(const struct bpf_program *), char *err,
			size_t errlen);
/*
 * Detach the programs `want` selects from a background thread (each
 * tracepoint detach waits for RCU grace periods: the links are destroyed
 * from many threads at once, so that they wait together); returns how many.
 */
size_t probes_detach_where_async(struct probes *p, bool (*want)(const struct bpf_program *));
/*
 * Detach every program (no new records); the ring can still be drained.
 * Many threads at once: about a second for 200 tracepoints, not seven.
 */
void probes_detach(struct probes *p);
/*
 * Last call before exiting: the kernel needs tens of milliseconds per
 * tracepoint to detach (RCU grace periods), about a second for all of them
 * even from many threads.  A background process takes over the links and
 * detaches them (probes_detach) while dltrace exits at once.  Closes every descriptor above 2: call
 * it only when the trace is complete and the programs idle (every job slot cleared).
 */
void probes_release_and_exit_soon(struct probes *p);
void probes_destroy(struct probes *p);

/*
 * Counting mode for job slot: its data calls alike go out as runs
 * (DL_KIND_RUN).  Set it before the job's slot is live; freeing the slot
 * clears it.
 */
void probes_set_counting(struct probes *p, uint32_t slot, bool on);
/* Make job slot live with id job_id (0 frees it); cgroup_fd < 0: no cgroup. */
int probes_set_job(struct probes *p, uint32_t slot, uint32_t job_id, int cgroup_fd);
/* Trace process tgid (and what it spawns from now on) in slot. */
int probes_add_process(struct probes *p, pid_t tgid, uint32_t slot);
int probes_remove_process(struct probes *p, pid_t tgid);
/* Records dropped for slot because the ring buffer was full. */
void probes_lost(struct probes *p, uint32_t slot, struct lost_counts *lost);
/* What the kernel side's caches spared since the load (every job), for --verbose. */
struct probe_caches {
	uint64_t dir_hits, dir_misses; /* path walks: directories served, walked */
	uint64_t fault_served;	       /* page faults: file faults served from memory */
	uint64_t fault_lookups;	       /* and mappings looked up */
};
void probes_caches(struct probes *p, struct probe_caches *c);

/*
 * Send the data records every task has gathered (DL_BATCH) to the ring.
 * Call when the programs are idle (the jobs' slots cleared), then drain.
 */
int probes_flush_batches(struct probes *p);
/*
 * Drain what is in the ring now, in passes of a bounded number of records.
 * Returns the records consumed (> 0 while more may be waiting: call again),
 * 0 when empty, or -errno.
 */
int probes_drain(struct probes *p);
/*
 * Drain until the ring is empty or, under a producer that never stops,
 * until a ring's worth of records has been consumed: at least everything
 * that was in the ring when called. Returns records consumed or -errno.
 */
int probes_drain_backlog(struct probes *p);
/* Wait up to timeout_ms for a wakeup, then drain. */
int probes_poll(struct probes *p, int timeout_ms);

#endif
