// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The rules on who waits and who works: imbalance across peers, syncs,
 * checkpoint bursts on the training thread, read parallelism, the training
 * loop's data waits, the GPU's idle time.
 */
#include "report/report_findings_internal.h"

#include <stdio.h>
#include <string.h>

#include "lib/human_format.h"
#include "report/report_gpu_idle.h"

/*
 * The rules' constants besides the thresholds of their rows (the doc of each
 * row states them).
 */
#define SYNC_BYTES	    MIB
#define STALL_MIN_BURSTS    2 /* a checkpoint repeats: one burst is a file made once */
#define PARALLEL_READ_SHARE 0.20
#define PARALLEL_IDLE	    0.50
#define PARALLEL_BUSY	    0.10
#define DATA_STALL_STEPS    3

static const char *proc_label(const struct report_stats *st, uint32_t pi, char *buf, size_t size)
{
	const struct rs_proc *p = &st->procs[pi];
	char cmd[96];

	char rank[32] = "";

	display_command(cmd, sizeof(cmd), rs_str(st, p->name), rs_strlen(st, p->name), 40);
	if (p->rank >= 0) /* the job's own name for it first */
		snprintf(rank, sizeof(rank), "rank %lld, ", (long long)p->rank);
	if (st->ntraces > 1)
		snprintf(buf, size, "%spid %u on %s (%s)", rank, p->pid,
			 rs_str(st, st->traces[p->trace].hostname), cmd);
	else
		snprintf(buf, size, "%spid %u (%s)", rank, p->pid, cmd);
	return buf;
}

bool detect_imbalance(RULE_ARGS)
{
	const struct rs_group *worst = NULL;
	double worst_imb = 0;
	const struct rs_spread *hs = &st->host_spread;
	double host_imb = 0;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX], e[HUMAN_MAX], l1[200], l2[200];

	for (uint32_t g = 0; g < st->ngroups; g++) {
		const struct rs_group *x = &st->groups[g];
		uint64_t total = 0;

		for (uint32_t k = 0; k < x->members; k++)
			total += st->procs[st->group_members[x->first + k]].app_bytes_read +
				 st->procs[st->group_members[x->first + k]].app_bytes_written;
		if (total >= r->min && x->spread.bytes_imbalance > r->share &&
		    x->spread.bytes_imbalance > worst_imb) {
			worst = x;
			worst_imb = x->spread.bytes_imbalance;
		}
	}
	if (st->nhosts > 1) {
		uint64_t total = 0;

		for (uint32_t h = 0; h < st->nhosts; h++)
			total += st->hosts[h].bytes_read + st->hosts[h].bytes_written;
		if (total >= r->min)
			host_imb = hs->bytes_imbalance;
	}
	(void)opt;
	if (!worst && host_imb <= r->share)
		return false;
	finding__rule(f,
		      "peers (processes with the same parent and command line: DataLoader workers, "
		      "ranks; or the traced hosts) differ by more than %.0f%% in bytes moved, "
		      "(max - min) / max, for a group that moved >= 1 MiB",
		      r->share * 100);
	if (worst) {
		finding__evidence(
		    f, "%u processes of %s: %s vs %s moved (%s imbalance), I/O time %s vs %s",
		    worst->members,
		    worst->parent != NONE32 ? proc_label(st, worst->parent, l1, sizeof(l1))
					    : "the same parent",
		    human_bytes(a, worst->spread.bytes_max),
		    human_bytes(b, worst->spread.bytes_min),
		    human_pct(c, worst->spread.bytes_imbalance), human_ns(d, worst->spread.io_max),
		    human_ns(e, worst->spread.io_min));
		finding__evidence(f, "most: %s; least: %s",
				  proc_label(st, worst->spread.most, l1, sizeof(l1)),
				  proc_label(st, worst->spread.least, l2, sizeof(l2)));
		finding__metric(f, "members", worst->members);
		finding__metric(f, "bytes_max", worst->spread.bytes_max);
		finding__metric(f, "bytes_min", worst->spread.bytes_min);
		finding__metric(f, "bytes_imbalance", worst->spread.bytes_imbalance);
		finding__metric(f, "time_imbalance", worst->spread.time_imbalance);
	}
	if (host_imb > r->share) {
		finding__evidence(f, "hosts: %s moved %s, %s moved %s (%s imbalance)",
				  rs_str(st, st->hosts[hs->most].hostname),
				  human_bytes(a, hs->bytes_max),
				  rs_str(st, st->hosts[hs->least].hostname),
				  human_bytes(b, hs->bytes_min), human_pct(c, host_imb));
		finding__evidence(
		    f, "host I/O time: %s on %s (slowest), %s on %s (fastest)",
		    human_ns(d, hs->io_max), rs_str(st, st->hosts[hs->slowest].hostname),
		    human_ns(e, hs->io_min), rs_str(st, st->hosts[hs->fastest].hostname));
		finding__metric(f, "host_imbalance", host_imb);
		finding__metric(f, "host_time_imbalance", hs->time_imbalance);
	}
	finding__recommend(
	    f, "Give every worker and rank an equal share of the data: split by bytes rather "
	       "than by file count when file sizes vary, use a DistributedSampler with "
	       "drop_last or even shards, and check the slowest worker's storage path (a "
	       "straggler holds back every synchronous step).");
	return true;
}

static uint64_t m_syncs(const struct rs_file *f)
{
	return f->syncs;
}

bool detect_sync_heavy(RULE_ARGS)
{
	const struct rs_totals *t = &st->tot[SCOPE_APP];
	double per_sync = t->syncs ? (double)t->bytes_written / t->syncs : 0;
	uint64_t wio = t->write_ns + t->io_ns[CLS_SYNC];
	double share = finding__ratio(t->io_ns[CLS_SYNC], wio);
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX], e[HUMAN_MAX];

	(void)opt;
	if (t->syncs < r->min || per_sync >= SYNC_BYTES)
		return false;
	if (share >= r->high)
		f->severity = SEVERITY_HIGH;
	finding__rule(
	    f,
	    ">= %.0f fsync/fdatasync/sync_file_range calls with less than 1 MiB written per "
	    "call; high when they take >= half of the write time",
	    r->min);
	finding__evidence(
	    f, "%s syncs for %s written (%s per sync); syncs took %s, %s of write+sync time",
	    human_count(a, t->syncs), human_bytes(b, t->bytes_written),
	    human_bytes(c, clamp_u64(per_sync)), human_ns(d, t->io_ns[CLS_SYNC]),
	    human_pct(e, share));
	finding__top_files(st, f, m_syncs, "syncs");
	finding__metric(f, "syncs", t->syncs);
	finding__metric(f, "bytes_written", t->bytes_written);
	finding__metric(f, "bytes_per_sync", per_sync);
	finding__metric(f, "sync_ns", t->io_ns[CLS_SYNC]);
	finding__metric(f, "share", share);
	finding__recommend(
	    f, "Sync once per unit of work, not per write: write the whole checkpoint or "
	       "shard, then fsync once (and rename into place); flush logs periodically "
	       "instead of after every record; avoid O_SYNC/O_DSYNC for bulk data.");
	return true;
}

bool detect_checkpoint_stall(RULE_ARGS)
{
	const struct rs_thread *t;
	uint64_t wall;
	double share;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX], name[320];
	int shown = 0;

	(void)opt;
	if (st->training_thread == NONE32)
		return false;
	t = &st->threads[st->training_thread];
	wall = rs_thread_wall(st, t);
	share = finding__ratio(t->burst_blocked_ns, wall);
	/*
	 * Evidence of checkpoints: bursts that repeat, each >= 1 s after the
	 * last (else they would be one burst), so other work (compute, reads)
	 * separates them.  A single burst is a file written once (a dataset
	 * made at the start, an output at the end), whatever share it takes.
	 */
	if (t->bursts < STALL_MIN_BURSTS || t->burst_blocked_ns < r->min || share < r->share)
		return false;
	if (share >= r->high)
		f->severity = SEVERITY_HIGH;
	finding__rule(
	    f,
	    "the training thread is blocked in repeated write bursts (>= %d bursts: writes and "
	    "syncs less than 1 s apart, >= 1 MiB, with other work between the bursts) for "
	    ">= %.0f%% of its time and >= 50 ms; high >= %.0f%%",
	    STALL_MIN_BURSTS, r->share * 100, r->high * 100);
	finding__evidence(
	    f, "training thread %u: %llu bursts wrote %s and blocked it %s, %s of its %s", t->tid,
	    (unsigned long long)t->bursts, human_bytes(a, t->burst_bytes),
	    human_ns(b, t->burst_blocked_ns), human_pct(c, share), human_ns(d, wall));
	for (uint32_t k = 0; k < st->nbursts_kept && shown < 3; k++) {
		const struct rs_burst *bu = &st->top_bursts[k];

		if (bu->thread != st->training_thread)
			continue;
		shown++;
		finding__evidence(
		    f, "at %s: %s to %s in %s, blocked %s", human_ns(a, bu->start_ns),
		    human_bytes(b, bu->bytes),
		    bu->file != NONE32
			? finding__file_name(st, st->files[bu->file].name, name, sizeof(name))
			: "?",
		    human_ns(c, bu->end_ns - bu->start_ns), human_ns(d, bu->blocked_ns));
	}
	finding__metric(f, "bursts", t->bursts);
	finding__metric(f, "burst_bytes", t->burst_bytes);
	finding__metric(f, "blocked_ns", t->burst_blocked_ns);
	finding__metric(f, "thread_wall_ns", wall);
	finding__metric(f, "share", share);
	finding__recommend(
	    f, "Take checkpoints off the training thread: copy the state to host memory and "
	       "write it from a background thread or process (asynchronous checkpointing, "
	       "e.g. torch.distributed.checkpoint.async_save), or write to a fast local tier "
	       "(NVMe, tmpfs, a burst buffer) and drain to shared storage in the background; "
	       "burst-buffer staging has been reported to make checkpointing about 2.6x "
	       "faster.");
	return true;
}

bool detect_low_read_parallelism(RULE_ARGS)
{
	const struct rs_totals *tot = &st->tot[SCOPE_APP];
	const struct rs_thread *rd = NULL;
	uint32_t ri = NONE32, idle = 0, shown = 0;
	uint64_t wall;
	double share, reading;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX], e[HUMAN_MAX];
	char idle_list[FINDING_LINE] = "";
	size_t o = 0;

	for (uint32_t i = 0; i < st->nthreads; i++)
		if (ri == NONE32 || st->threads[i].app_bytes_read > st->threads[ri].app_bytes_read)
			ri = i;
	(void)opt;
	if (ri == NONE32 || tot->bytes_read < r->min)
		return false;
	rd = &st->threads[ri];
	share = finding__ratio(rd->app_bytes_read, tot->bytes_read);
	wall = rs_thread_wall(st, rd);
	reading = finding__ratio(rd->app_read_ns, wall);
	if (share < r->share || reading < PARALLEL_READ_SHARE)
		return false;
	/* idle peers: alive for half the reader's lifetime, reading nothing */
	for (uint32_t i = 0; i < st->nthreads; i++) {
		const struct rs_thread *t = &st->threads[i];
		uint64_t lo = t->first_ns > rd->first_ns ? t->first_ns : rd->first_ns;
		uint64_t hi = t->last_ns < rd->last_ns ? t->last_ns : rd->last_ns;

		if (i == ri || t->app_reads ||
		    st->procs[t->proc].trace != st->procs[rd->proc].trace)
			continue;
		if (hi <= lo || (double)(hi - lo) < PARALLEL_IDLE * wall)
			continue;
		if ((double)rs_thread_io(t) >= PARALLEL_BUSY * (double)(hi - lo))
			continue; /* busy with other I/O (e.g. writing): not idle */
		idle++;
		if (shown < 4 && o < sizeof(idle_list)) {
			o += snprintf(idle_list + o, sizeof(idle_list) - o, "%stid %u",
				      shown ? ", " : "", t->tid);
			shown++;
		}
	}
	if (!idle)
		return false;
	finding__rule(
	    f,
	    "one thread reads >= %.0f%% of the bytes (>= 1 MiB) and spends >= %.0f%% of its time "
	    "reading, while other threads or processes of the job read nothing for at least "
	    "half of its lifetime",
	    r->share * 100, PARALLEL_READ_SHARE * 100);
	finding__evidence(
	    f,
	    "thread %u (pid %u) read %s, %s of the bytes read, and spent %s of its %s "
	    "reading (%s)",
	    rd->tid, st->procs[rd->proc].pid, human_bytes(a, rd->app_bytes_read),
	    human_pct(b, share), human_ns(c, rd->app_read_ns), human_ns(d, wall),
	    human_pct(e, reading));
	finding__evidence(f, "%u threads alive meanwhile were idle for I/O: %s%s", idle, idle_list,
			  idle > shown ? ", ..." : "");
	finding__metric(f, "reader_tid", rd->tid);
	finding__metric(f, "reader_bytes", rd->app_bytes_read);
	finding__metric(f, "share", share);
	finding__metric(f, "reading_share", reading);
	finding__metric(f, "idle_peers", idle);
	finding__recommend(
	    f, "Read in parallel with compute: use DataLoader(num_workers=N) with N up to the "
	       "cores available (and prefetch_factor), tf.data's parallel interleave/map, or a "
	       "thread pool (or io_uring) issuing several reads at once; a single reader "
	       "serializes storage latency.");
	return true;
}

/* What was behind a slow step: its files and the time in each level. */
static void slow_step(const struct report_stats *st, struct finding *f, const struct rs_owner *o,
		      const struct rs_slow *sl)
{
	const struct rs_step *s = &st->phases.steps[sl->step];
	char line[FINDING_LINE], label[64], a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX];
	char name[320];
	uint32_t best[3] = {NONE32, NONE32, NONE32};
	size_t n;

	(void)o;
	n = snprintf(line, sizeof(line), "%s: %s, %s waiting for the batch (%s)",
		     rs_step_label(st, s, label, sizeof(label)), human_ns(a, rs_step_iter_ns(s)),
		     human_ns(b, s->stall_ns), human_pct(c, rs_step_stall_share(s)));
	for (int l = 0; l < DL_LEVEL_COUNT && n < sizeof(line); l++)
		if (rs_is_level(l) && s->io.level_ns[l])
			n += snprintf(line + n, sizeof(line) - n, "; %s %s", rs_level_names[l],
				      human_ns(a, s->io.level_ns[l]));
	for (uint32_t k = 0; k < sl->nfiles; k++)
		for (int j = 0; j < 3; j++)
			if (best[j] == NONE32 || sl->files[k].io_ns > sl->files[best[j]].io_ns) {
				memmove(best + j + 1, best + j, (2 - j) * sizeof(best[0]));
				best[j] = k;
				break;
			}
	for (int j = 0; j < 3 && best[j] != NONE32 && n < sizeof(line); j++)
		n += snprintf(line + n, sizeof(line) - n, "%s %s (%s, %s)", j ? ";" : "; files:",
			      finding__file_name(st, st->files[sl->files[best[j]].file].name, name,
						 sizeof(name)),
			      human_bytes(a, sl->files[best[j]].bytes),
			      human_ns(b, sl->files[best[j]].io_ns));
	finding__evidence(f, "%s", line);
}

bool detect_data_stall(RULE_ARGS)
{
	const struct rs_phases *ph = &st->phases;
	const struct rs_owner *o = NULL;
	uint32_t loops = 0;
	double share = 0;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX], e[HUMAN_MAX], g[HUMAN_MAX];
	uint32_t order[SLOW_KEEP];

	for (uint32_t i = 0; i < ph->nowners; i++) {
		const struct rs_owner *w = &ph->owners[i];
		double sh = finding__ratio(w->sum.stall_ns, w->sum.iter_ns);

		if (w->steps < DATA_STALL_STEPS || w->sum.stall_ns < r->min || sh < r->share)
			continue;
		loops++;
		if (!o || sh > share) {
			o = w;
			share = sh;
		}
	}
	(void)opt;
	if (!o)
		return false;
	if (share >= r->high)
		f->severity = SEVERITY_HIGH;
	finding__rule(
	    f,
	    "a training loop (step regions of dltrace's markers) waits for its batches (fetch "
	    "regions; without them, reads of pipes and sockets) >= %.0f%% of its iterations' "
	    "time (a step and the fetches before it), over >= %d steps and >= 50 ms; high "
	    ">= %.0f%%",
	    r->share * 100, DATA_STALL_STEPS, r->high * 100);
	finding__evidence(
	    f, "thread %u (pid %u) waited %s for batches in %u steps of %s (%s)%s",
	    st->threads[o->thread].tid, st->procs[o->proc].pid, human_ns(a, o->sum.stall_ns),
	    o->steps, human_ns(b, o->sum.iter_ns), human_pct(c, share),
	    o->fetch_seen ? "" : ", measured as reads of pipes and sockets (no fetch regions)");
	finding__evidence(f, "per step: median %s waiting of %s (%s), p99 %s of %s, worst share %s",
			  human_ns(a, o->sum.stall_p50), human_ns(b, o->sum.iter_p50),
			  human_pct(c, o->sum.share_p50), human_ns(d, o->sum.stall_p99),
			  human_ns(e, o->sum.iter_p99), human_pct(g, o->sum.share_max));
	if (loops > 1)
		finding__evidence(f, "%u training loops stall this much; the worst is shown",
				  loops);
	rs_slow_order(st, o, order);
	for (uint32_t k = 0; k < o->nslow && k < 3; k++)
		slow_step(st, f, o, &o->slow[order[k]]);
	finding__metric(f, "steps", o->steps);
	finding__metric(f, "stall_ns", o->sum.stall_ns);
	finding__metric(f, "iteration_ns", o->sum.iter_ns);
	finding__metric(f, "share", share);
	finding__metric(f, "stall_median_ns", o->sum.stall_p50);
	finding__metric(f, "stall_p99_ns", o->sum.stall_p99);
	finding__metric(f, "tid", st->threads[o->thread].tid);
	finding__recommend(
	    f, "Feed the loop faster than it trains: more loader processes "
	       "(DataLoader(num_workers=N), up to the cores free) and a deeper prefetch "
	       "(prefetch_factor), persistent_workers=True so that workers survive epochs, "
	       "pin_memory for the copy to the GPU; make each sample cheaper to read (the "
	       "read findings: larger requests, packed shards, a local copy or page-cache "
	       "warm-up) and to decode (move augmentation off the critical path).  The slow "
	       "steps above say which files and which levels (HDF5, stdio, syscalls) the "
	       "waits were spent on.");
	return true;
}

/* gpu_idle_on_data: in report_gpu_idle.c, beside the join whose figures it reads. */
bool detect_gpu_idle_on_data(RULE_ARGS)
{
	(void)opt;
	return rs_gpu_finding(r, st, f);
}
