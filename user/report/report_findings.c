// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The rules of `dltrace report`.  All figures are of application files
 * (environment I/O excluded) unless a rule says otherwise.
 *
 *   small_reads / small_writes   requests under 1 MiB are more than 10% of
 *                                the reads (writes) and more than 1000
 *                                (Drishti's thresholds); high above 50%
 *   random_reads / random_writes accesses that are not sequential (Darshan)
 *                                and not the first of a file, more than 20%
 *                                and more than 1000 (Drishti)
 *   redundant_reads              bytes read again while the file stayed open,
 *                                plus bytes read by several processes at the
 *                                same time, >= 10% of bytes read and >= 1 MiB
 *   metadata_heavy               >= 1000 metadata calls taking >= 10% of the
 *                                application I/O time (Drishti); high >= 30%
 *   many_small_files             >= 1000 files under 1 MiB read, and at least
 *                                half of the files read
 *   reread_fits_in_ram           files read about twice or more (>= 1.5
 *                                passes) hold >= half the data read, the data
 *                                fits in half the RAM, and reading them took
 *                                >= 5% of the job's wall time
 *   imbalance                    peers (same parent and command: DataLoader
 *                                workers, ranks; or hosts) differ by > 30% in
 *                                bytes moved, group >= 1 MiB
 *   sync_heavy                   >= 50 fsync/fdatasync/sync_file_range with
 *                                less than 1 MiB written per sync
 *   checkpoint_stall             the training thread is blocked in write
 *                                bursts (>= 1 MiB) for >= 5% of its time and
 *                                >= 50 ms, and the bursts repeat (>= 2, other
 *                                work between them); high >= 20%
 *   failed_syscalls              >= 1000 failed calls (all files) that are
 *                                >= 10% of all calls
 *   low_read_parallelism         one thread reads >= 90% of the bytes
 *                                (>= 1 MiB), spends >= 20% of its time
 *                                reading, while other threads of the job,
 *                                alive for half its lifetime, read nothing
 *                                and spend < 10% of that time in I/O
 *   data_stall                   a training loop (dltrace markers: step
 *                                regions) waits for its batches (fetch
 *                                regions; without them, reads of pipes and
 *                                sockets) >= 20% of its iterations' time,
 *                                over >= 3 steps and >= 50 ms; high >= 50%
 *   gpu_idle_on_data             data waits (batch waits, file reads, cache
 *                                misses, block I/O) overlap >= 20% of the
 *                                GPU's idle time in steps, over >= 3 steps;
 *                                high >= 50% (report_gpu_idle.c)
 */
#define _GNU_SOURCE
#include "report/report_findings.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/render/report_format.h"
#include "report/report_gpu_idle.h"
#include "event/syscall_table.h"

#define MIB (1ull << 20)

#define SMALL_SHARE	    0.10
#define SMALL_HIGH_SHARE    0.50
#define SMALL_MIN	    1000
#define RANDOM_SHARE	    0.20
#define RANDOM_MIN	    1000
#define REDUNDANT_SHARE	    0.10
#define REDUNDANT_HIGH	    0.50
#define REDUNDANT_MIN	    MIB
#define META_MIN	    1000
#define META_SHARE	    0.10
#define META_HIGH_SHARE	    0.30
#define SMALL_FILE	    MIB
#define SMALL_FILES_MIN	    1000
#define SMALL_FILES_SHARE   0.50
#define REREAD_PASSES	    1.5
#define REREAD_RAM_SHARE    0.50
#define REREAD_TIME_SHARE   0.05
#define IMBALANCE	    0.30
#define IMBALANCE_MIN	    MIB
#define SYNC_MIN	    50
#define SYNC_BYTES	    MIB
#define STALL_SHARE	    0.05
#define STALL_HIGH_SHARE    0.20
#define STALL_MIN_NS	    50000000ull
#define STALL_MIN_BURSTS    2 /* a checkpoint repeats: one burst is a file made once */
#define FAILED_MIN	    1000
#define FAILED_SHARE	    0.10
#define PARALLEL_SHARE	    0.90
#define PARALLEL_MIN	    MIB
#define PARALLEL_READ_SHARE 0.20
#define PARALLEL_IDLE	    0.50
#define PARALLEL_BUSY	    0.10
#define DATA_STALL_SHARE    0.20
#define DATA_STALL_HIGH	    0.50
#define DATA_STALL_STEPS    3
#define DATA_STALL_MIN_NS   50000000ull

const char *finding_level_name(enum finding_level l)
{
	return l == LEVEL_HIGH ? "high" : l == LEVEL_WARN ? "warn" : "info";
}

static struct finding *add(struct findings *out, const char *id, enum finding_level level,
			   const char *title)
{
	struct finding *f;

	if (out->n == FINDINGS_MAX)
		return NULL;
	f = &out->items[out->n++];
	memset(f, 0, sizeof(*f));
	f->id = id;
	f->level = level;
	f->title = title;
	return f;
}

static void rule(struct finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rule(struct finding *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->rule, sizeof(f->rule), fmt, ap);
	va_end(ap);
}

static void evidence(struct finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void evidence(struct finding *f, const char *fmt, ...)
{
	va_list ap;

	if (f->nevidence == FINDING_EVIDENCE)
		return;
	va_start(ap, fmt);
	vsnprintf(f->evidence[f->nevidence++], FINDING_LINE, fmt, ap);
	va_end(ap);
}

static void metric(struct finding *f, const char *key, double value)
{
	if (f->nmetrics < FINDING_METRICS)
		f->metrics[f->nmetrics++] = (struct finding_metric){key, value};
}

static void recommend(struct finding *f, const char *text)
{
	snprintf(f->recommendation, sizeof(f->recommendation), "%s", text);
}

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0;
}

/* Short display of a file name. */
static const char *fname(const struct report_stats *st, uint32_t name, char *buf, size_t size)
{
	return display_text(buf, size, rs_str(st, name), rs_strlen(st, name), 72);
}

static const char *proc_label(const struct report_stats *st, uint32_t pi, char *buf, size_t size)
{
	const struct rs_proc *p = &st->procs[pi];
	char cmd[96];

	display_command(cmd, sizeof(cmd), rs_str(st, p->name), rs_strlen(st, p->name), 40);
	if (st->ntraces > 1)
		snprintf(buf, size, "pid %u on %s (%s)", p->pid,
			 rs_str(st, st->traces[p->trace].hostname), cmd);
	else
		snprintf(buf, size, "pid %u (%s)", p->pid, cmd);
	return buf;
}

/* Up to 3 application files with the largest value of a per-file figure. */
typedef uint64_t (*file_metric)(const struct rs_file *f);

static void top_files(const struct report_stats *st, struct finding *f, file_metric m,
		      const char *what)
{
	uint32_t best[3] = {NONE32, NONE32, NONE32};
	char name[320], line[FINDING_LINE];
	size_t o = 0;

	for (uint32_t i = 0; i < st->nfiles; i++) {
		const struct rs_file *x = &st->files[i];
		uint64_t v;

		if (x->scope != SCOPE_APP || !(v = m(x)))
			continue;
		for (int k = 0; k < 3; k++) {
			if (best[k] == NONE32 || v > m(&st->files[best[k]])) {
				memmove(best + k + 1, best + k, (2 - k) * sizeof(best[0]));
				best[k] = i;
				break;
			}
		}
	}
	if (best[0] == NONE32)
		return;
	o = snprintf(line, sizeof(line), "top files by %s:", what);
	for (int k = 0; k < 3 && best[k] != NONE32 && o < sizeof(line); k++) {
		char num[HUMAN_MAX];

		o += snprintf(line + o, sizeof(line) - o, "%s %s (%s)", k ? ";" : "",
			      fname(st, st->files[best[k]].name, name, sizeof(name)),
			      human_count(num, m(&st->files[best[k]])));
	}
	evidence(f, "%s", line);
}

static uint64_t m_small_reads(const struct rs_file *f)
{
	return f->small_reads;
}
static uint64_t m_small_writes(const struct rs_file *f)
{
	return f->small_writes;
}
static uint64_t m_random_reads(const struct rs_file *f)
{
	return f->random_reads;
}
static uint64_t m_random_writes(const struct rs_file *f)
{
	return f->random_writes;
}
static uint64_t m_reread(const struct rs_file *f)
{
	return f->reread_within_open;
}
static uint64_t m_concurrent(const struct rs_file *f)
{
	return f->concurrent_dup_bytes;
}
static uint64_t m_meta(const struct rs_file *f)
{
	return f->meta_ops;
}
static uint64_t m_syncs(const struct rs_file *f)
{
	return f->syncs;
}

static void small_requests(const struct report_stats *st, struct findings *out, bool writes)
{
	const struct rs_totals *t = &st->tot[SCOPE_APP];
	uint64_t small = writes ? t->small_writes : t->small_reads;
	uint64_t all = writes ? t->writes : t->reads;
	double share = ratio(small, all);
	const struct rs_syscall *sc;
	uint64_t med_num = 0, med_n = 0;
	struct finding *f;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX];

	if (small <= SMALL_MIN || share <= SMALL_SHARE)
		return;
	f = add(out, writes ? "small_writes" : "small_reads",
		share > SMALL_HIGH_SHARE ? LEVEL_HIGH : LEVEL_WARN,
		writes ? "Many small writes" : "Many small reads");
	if (!f)
		return;
	rule(f,
	     "%s under 1 MiB are more than %.0f%% of the application's %s and more than %d "
	     "(Drishti's thresholds); high above %.0f%%",
	     writes ? "writes" : "reads", SMALL_SHARE * 100, writes ? "writes" : "reads", SMALL_MIN,
	     SMALL_HIGH_SHARE * 100);
	evidence(f, "%s of %s %s (%s) moved less than 1 MiB", human_count(a, small),
		 human_count(b, all), writes ? "writes" : "reads", human_pct(c, share));
	for (int k = 0; k < DL_SYS_COUNT; k++) {
		sc = &st->sys[SCOPE_APP][k];
		if (sc->size.n > med_n && ((writes && k >= DL_SYS_WRITE && k <= DL_SYS_PWRITEV2) ||
					   (!writes && k >= DL_SYS_READ && k <= DL_SYS_PREADV2))) {
			med_n = sc->size.n;
			med_num = sketch_quantile(&sc->size, 0.5);
		}
	}
	if (med_n)
		evidence(f, "median size of the most used %s call: %s", writes ? "write" : "read",
			 human_bytes(a, med_num));
	top_files(st, f, writes ? m_small_writes : m_small_reads,
		  writes ? "small writes" : "small reads");
	metric(f, "small", small);
	metric(f, "total", all);
	metric(f, "share", share);
	recommend(
	    f, writes ? "Write in larger requests (>= 1 MiB): buffer records in memory and write "
			"them in one call, use a larger buffer size for file objects, or write "
			"packed shards instead of many small pieces."
		      : "Read in larger requests (>= 1 MiB): read whole samples or shards in one "
			"call (a larger buffer for Python file objects, np.load on bytes read at "
			"once), give HDF5 a chunk cache and chunks of >= 1 MiB, or pack samples "
			"into shards (WebDataset tar, TFRecord) read sequentially.  Each request "
			"pays a system call and, on network file systems, a round trip.");
}

static void random_access(const struct report_stats *st, struct findings *out, bool writes)
{
	const struct rs_totals *t = &st->tot[SCOPE_APP];
	uint64_t rnd = writes ? t->random_writes : t->random_reads;
	uint64_t all = writes ? t->writes : t->reads;
	uint64_t seq = writes ? t->seq_writes : t->seq_reads;
	uint64_t consec = writes ? t->consec_writes : t->consec_reads;
	double share = ratio(rnd, all);
	struct finding *f;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX], e[HUMAN_MAX];

	if (rnd <= RANDOM_MIN || share <= RANDOM_SHARE)
		return;
	f = add(out, writes ? "random_writes" : "random_reads", LEVEL_HIGH,
		writes ? "Random-access writes" : "Random-access reads");
	if (!f)
		return;
	rule(f,
	     "%s that are neither sequential (Darshan: above the end of the previous one) "
	     "nor the first of their file are more than %.0f%% and more than %d (Drishti)",
	     writes ? "writes" : "reads", RANDOM_SHARE * 100, RANDOM_MIN);
	evidence(f, "%s of %s %s (%s) are random; %s sequential, %s consecutive",
		 human_count(a, rnd), human_count(b, all), writes ? "writes" : "reads",
		 human_pct(c, share), human_count(d, seq), human_count(e, consec));
	evidence(f, "%s seeks (lseek) on application files", human_count(a, t->seeks));
	top_files(st, f, writes ? m_random_writes : m_random_reads,
		  writes ? "random writes" : "random reads");
	metric(f, "random", rnd);
	metric(f, "total", all);
	metric(f, "share", share);
	recommend(f, writes ? "Write sequentially: append records in order and keep one writer per "
			      "file region; collect scattered updates in memory and write them "
			      "out in offset order."
			    : "Read sequentially: store samples contiguously in the order they are "
			      "consumed and shuffle at the shard level (a shuffle buffer, as "
			      "WebDataset and tf.data do), read whole files instead of seeking "
			      "inside them, and for HDF5 use contiguous datasets or chunks that "
			      "hold whole samples.");
}

static void redundant_reads(const struct report_stats *st, struct findings *out)
{
	const struct rs_totals *t = &st->tot[SCOPE_APP];
	uint64_t red = st->redundant_in_open + st->concurrent_dup;
	double share = ratio(red, t->bytes_read);
	struct finding *f;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX];

	if (red < REDUNDANT_MIN || share < REDUNDANT_SHARE)
		return;
	f = add(out, "redundant_reads", share >= REDUNDANT_HIGH ? LEVEL_HIGH : LEVEL_WARN,
		"Redundant reads");
	if (!f)
		return;
	rule(f,
	     "bytes read more than once while the file stayed open, plus bytes read by "
	     "several processes at the same time, are >= %.0f%% of the bytes read and >= 1 MiB; "
	     "high >= %.0f%%",
	     REDUNDANT_SHARE * 100, REDUNDANT_HIGH * 100);
	evidence(f, "%s of %s read (%s) were redundant", human_bytes(a, red),
		 human_bytes(b, t->bytes_read), human_pct(c, share));
	if (st->redundant_in_open) {
		evidence(f, "%s read again within one open of the file",
			 human_bytes(a, st->redundant_in_open));
		top_files(st, f, m_reread, "bytes re-read within an open");
	}
	if (st->concurrent_dup) {
		evidence(f, "%s read by several processes at the same time",
			 human_bytes(a, st->concurrent_dup));
		top_files(st, f, m_concurrent, "bytes read concurrently by several processes");
	}
	metric(f, "redundant_bytes", red);
	metric(f, "reread_within_open_bytes", st->redundant_in_open);
	metric(f, "concurrent_duplicate_bytes", st->concurrent_dup);
	metric(f, "bytes_read", t->bytes_read);
	metric(f, "share", share);
	recommend(f, "Read each sample once: read the whole file into memory and parse it there "
		     "(e.g. np.load(io.BytesIO(f.read())) instead of np.load(path), which reads "
		     "the zip directory and the data separately), keep parsed headers instead of "
		     "re-reading them, and give each rank a distinct part of the data "
		     "(DistributedSampler) instead of every process reading everything.");
}

static void metadata_heavy(const struct report_stats *st, struct findings *out)
{
	const struct rs_totals *t = &st->tot[SCOPE_APP];
	uint64_t io = t->io_ns[CLS_DATA] + t->io_ns[CLS_META] + t->io_ns[CLS_SYNC];
	double share = ratio(t->io_ns[CLS_META], io);
	double mib = (double)(t->bytes_read + t->bytes_written) / MIB;
	struct finding *f;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX];

	if (t->meta_ops < META_MIN || share < META_SHARE)
		return;
	f = add(out, "metadata_heavy", share >= META_HIGH_SHARE ? LEVEL_HIGH : LEVEL_WARN,
		"Metadata-heavy I/O");
	if (!f)
		return;
	rule(f,
	     ">= %d metadata calls (open, stat, lseek, close, getdents, ...) taking >= %.0f%% "
	     "of the application's I/O time (Drishti); high >= %.0f%%",
	     META_MIN, META_SHARE * 100, META_HIGH_SHARE * 100);
	evidence(f, "%s metadata calls took %s, %s of %s in application I/O",
		 human_count(a, t->meta_ops), human_ns(b, t->io_ns[CLS_META]), human_pct(c, share),
		 human_ns(d, io));
	evidence(f, "%s opens, %s stats, %s seeks; %.1f opens+stats per MiB moved",
		 human_count(a, t->opens), human_count(b, t->stats), human_count(c, t->seeks),
		 mib > 0 ? (double)(t->opens + t->stats) / mib : (double)(t->opens + t->stats));
	top_files(st, f, m_meta, "metadata calls");
	metric(f, "metadata_calls", t->meta_ops);
	metric(f, "metadata_ns", t->io_ns[CLS_META]);
	metric(f, "io_ns", io);
	metric(f, "share", share);
	metric(f, "opens", t->opens);
	metric(f, "stats", t->stats);
	metric(f, "seeks", t->seeks);
	recommend(f, "Cut metadata calls: list the dataset once and cache the listing instead of "
		     "glob/os.listdir every epoch, open each file once and keep it open (per "
		     "worker), skip exists()/stat() before open, and pack small files into "
		     "shards so that one open serves many samples.");
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void many_small_files(const struct report_stats *st, struct findings *out)
{
	uint64_t nsmall = 0, meta_ns = 0, bytes = 0, *ext;
	uint32_t n = 0;
	struct finding *f;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX];

	for (uint32_t i = 0; i < st->nfiles; i++) {
		const struct rs_file *x = &st->files[i];

		if (x->scope == SCOPE_APP && x->bytes_read && x->extent < SMALL_FILE) {
			nsmall++;
			meta_ns += x->io_ns[CLS_META];
			bytes += x->bytes_read;
		}
	}
	if (nsmall < SMALL_FILES_MIN || (double)nsmall < SMALL_FILES_SHARE * st->files_read)
		return;
	f = add(out, "many_small_files", LEVEL_WARN, "Many small files");
	if (!f)
		return;
	rule(f, ">= %d files under 1 MiB read, and at least %.0f%% of the files read",
	     SMALL_FILES_MIN, SMALL_FILES_SHARE * 100);
	ext = malloc(nsmall * sizeof(*ext));
	if (ext) {
		for (uint32_t i = 0; i < st->nfiles; i++) {
			const struct rs_file *x = &st->files[i];

			if (x->scope == SCOPE_APP && x->bytes_read && x->extent < SMALL_FILE)
				ext[n++] = x->extent;
		}
		qsort(ext, n, sizeof(*ext), cmp_u64);
	}
	evidence(f, "%s of %s files read are under 1 MiB%s%s", human_count(a, nsmall),
		 human_count(c, st->files_read), n ? "; median size " : "",
		 n ? human_bytes(b, ext[(n - 1) / 2]) : "");
	evidence(f, "they delivered %s and cost %s of metadata calls (open, stat, close, ...)",
		 human_bytes(a, bytes), human_ns(c, meta_ns));
	metric(f, "small_files", nsmall);
	metric(f, "files_read", st->files_read);
	if (n)
		metric(f, "median_size", ext[(n - 1) / 2]);
	free(ext);
	recommend(f,
		  "Pack samples into shards of 100 MiB to 1 GiB (WebDataset tar shards, "
		  "TFRecord, HDF5, LMDB, Parquet) and read them sequentially: one open and large "
		  "reads per shard instead of an open, a stat and a few small reads per sample.");
}

static void reread_fits_in_ram(const struct report_stats *st, const struct finding_options *opt,
			       struct findings *out)
{
	char name_buf[HUMAN_MAX];
	uint64_t reread_bytes = 0, reread_ns = 0, read_bytes = 0;
	uint32_t nfiles = 0;
	double passes = 0;
	struct finding *f;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX];

	for (uint32_t i = 0; i < st->nfiles; i++) {
		const struct rs_file *x = &st->files[i];

		if (x->scope != SCOPE_APP || !x->bytes_read || x->passes < REREAD_PASSES)
			continue;
		nfiles++;
		reread_bytes += x->extent;
		reread_ns += x->read_ns;
		read_bytes += x->bytes_read;
		passes += x->passes * (double)x->extent;
	}
	if (!nfiles || !st->dataset_bytes || !opt->ram_bytes)
		return;
	passes /= (double)reread_bytes;
	if ((double)reread_bytes < 0.5 * st->dataset_bytes ||
	    (double)st->dataset_bytes > REREAD_RAM_SHARE * opt->ram_bytes ||
	    (double)reread_ns < REREAD_TIME_SHARE * st->wall_ns)
		return;
	f = add(out, "reread_fits_in_ram", LEVEL_WARN, "Data re-read every epoch fits in RAM");
	if (!f)
		return;
	rule(f,
	     "files read %.1f times or more hold >= half of the data read, all data read fits "
	     "in %.0f%% of the RAM, and reading those files took >= %.0f%% of the job's wall "
	     "time",
	     REREAD_PASSES, REREAD_RAM_SHARE * 100, REREAD_TIME_SHARE * 100);
	evidence(f, "%s files (%s of %s read) were read %.1f times on average: %s read in %s",
		 human_count(name_buf, nfiles), human_bytes(a, reread_bytes),
		 human_bytes(b, st->dataset_bytes), passes, human_bytes(c, read_bytes),
		 human_ns(d, reread_ns));
	evidence(f, "RAM %s: %s",
		 opt->ram_from_option ? "(--ram)" : "of the machine making this report",
		 human_bytes(a, opt->ram_bytes));
	if (st->layers.cache_reads) {
		uint64_t miss = 0;

		for (uint32_t i = 0; i < st->nfiles; i++)
			if (st->files[i].scope == SCOPE_APP && st->files[i].passes >= REREAD_PASSES)
				miss += st->files[i].cache_miss;
		evidence(f, "of the %s read from them, %s came from storage (page-cache misses)",
			 human_bytes(a, read_bytes), human_bytes(b, miss));
		metric(f, "cache_miss_bytes", miss);
	}
	metric(f, "files", nfiles);
	metric(f, "reread_bytes", reread_bytes);
	metric(f, "dataset_bytes", st->dataset_bytes);
	metric(f, "passes", passes);
	metric(f, "read_ns", reread_ns);
	metric(f, "ram_bytes", opt->ram_bytes);
	recommend(f, "Read the data from storage once: cache decoded samples in memory after the "
		     "first epoch, or stage the dataset to local NVMe or /dev/shm before training, "
		     "and make sure the page cache can hold it (container memory limits count "
		     "it).");
}

static void imbalance(const struct report_stats *st, struct findings *out)
{
	const struct rs_group *worst = NULL;
	double worst_imb = 0;
	const struct rs_spread *hs = &st->host_spread;
	double host_imb = 0;
	struct finding *f;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX], e[HUMAN_MAX], l1[200], l2[200];

	for (uint32_t g = 0; g < st->ngroups; g++) {
		const struct rs_group *x = &st->groups[g];
		uint64_t total = 0;

		for (uint32_t k = 0; k < x->members; k++)
			total += st->procs[st->group_members[x->first + k]].app_bytes_read +
				 st->procs[st->group_members[x->first + k]].app_bytes_written;
		if (total >= IMBALANCE_MIN && x->spread.bytes_imbalance > IMBALANCE &&
		    x->spread.bytes_imbalance > worst_imb) {
			worst = x;
			worst_imb = x->spread.bytes_imbalance;
		}
	}
	if (st->nhosts > 1) {
		uint64_t total = 0;

		for (uint32_t h = 0; h < st->nhosts; h++)
			total += st->hosts[h].bytes_read + st->hosts[h].bytes_written;
		if (total >= IMBALANCE_MIN)
			host_imb = hs->bytes_imbalance;
	}
	if (!worst && host_imb <= IMBALANCE)
		return;
	f = add(out, "imbalance", LEVEL_WARN, "I/O imbalance across workers or ranks");
	if (!f)
		return;
	rule(f,
	     "peers (processes with the same parent and command line: DataLoader workers, "
	     "ranks; or the traced hosts) differ by more than %.0f%% in bytes moved, "
	     "(max - min) / max, for a group that moved >= 1 MiB",
	     IMBALANCE * 100);
	if (worst) {
		evidence(f, "%u processes of %s: %s vs %s moved (%s imbalance), I/O time %s vs %s",
			 worst->members,
			 worst->parent != NONE32 ? proc_label(st, worst->parent, l1, sizeof(l1))
						 : "the same parent",
			 human_bytes(a, worst->spread.bytes_max),
			 human_bytes(b, worst->spread.bytes_min),
			 human_pct(c, worst->spread.bytes_imbalance),
			 human_ns(d, worst->spread.io_max), human_ns(e, worst->spread.io_min));
		evidence(f, "most: %s; least: %s",
			 proc_label(st, worst->spread.most, l1, sizeof(l1)),
			 proc_label(st, worst->spread.least, l2, sizeof(l2)));
		metric(f, "members", worst->members);
		metric(f, "bytes_max", worst->spread.bytes_max);
		metric(f, "bytes_min", worst->spread.bytes_min);
		metric(f, "bytes_imbalance", worst->spread.bytes_imbalance);
		metric(f, "time_imbalance", worst->spread.time_imbalance);
	}
	if (host_imb > IMBALANCE) {
		evidence(f, "hosts: %s moved %s, %s moved %s (%s imbalance)",
			 rs_str(st, st->hosts[hs->most].hostname), human_bytes(a, hs->bytes_max),
			 rs_str(st, st->hosts[hs->least].hostname), human_bytes(b, hs->bytes_min),
			 human_pct(c, host_imb));
		evidence(f, "host I/O time: %s on %s (slowest), %s on %s (fastest)",
			 human_ns(d, hs->io_max), rs_str(st, st->hosts[hs->slowest].hostname),
			 human_ns(e, hs->io_min), rs_str(st, st->hosts[hs->fastest].hostname));
		metric(f, "host_imbalance", host_imb);
		metric(f, "host_time_imbalance", hs->time_imbalance);
	}
	recommend(f, "Give every worker and rank an equal share of the data: split by bytes rather "
		     "than by file count when file sizes vary, use a DistributedSampler with "
		     "drop_last or even shards, and check the slowest worker's storage path (a "
		     "straggler holds back every synchronous step).");
}

static void sync_heavy(const struct report_stats *st, struct findings *out)
{
	const struct rs_totals *t = &st->tot[SCOPE_APP];
	double per_sync = t->syncs ? (double)t->bytes_written / t->syncs : 0;
	uint64_t wio = t->write_ns + t->io_ns[CLS_SYNC];
	double share = ratio(t->io_ns[CLS_SYNC], wio);
	struct finding *f;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX], e[HUMAN_MAX];

	if (t->syncs < SYNC_MIN || per_sync >= SYNC_BYTES)
		return;
	f = add(out, "sync_heavy", share >= 0.5 ? LEVEL_HIGH : LEVEL_WARN, "Sync-heavy writes");
	if (!f)
		return;
	rule(f,
	     ">= %d fsync/fdatasync/sync_file_range calls with less than 1 MiB written per "
	     "call; high when they take >= half of the write time",
	     SYNC_MIN);
	evidence(f, "%s syncs for %s written (%s per sync); syncs took %s, %s of write+sync time",
		 human_count(a, t->syncs), human_bytes(b, t->bytes_written),
		 human_bytes(c, clamp_u64(per_sync)), human_ns(d, t->io_ns[CLS_SYNC]),
		 human_pct(e, share));
	top_files(st, f, m_syncs, "syncs");
	metric(f, "syncs", t->syncs);
	metric(f, "bytes_written", t->bytes_written);
	metric(f, "bytes_per_sync", per_sync);
	metric(f, "sync_ns", t->io_ns[CLS_SYNC]);
	metric(f, "share", share);
	recommend(f, "Sync once per unit of work, not per write: write the whole checkpoint or "
		     "shard, then fsync once (and rename into place); flush logs periodically "
		     "instead of after every record; avoid O_SYNC/O_DSYNC for bulk data.");
}

static void checkpoint_stall(const struct report_stats *st, struct findings *out)
{
	const struct rs_thread *t;
	uint64_t wall;
	double share;
	struct finding *f;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX], name[320];
	int shown = 0;

	if (st->training_thread == NONE32)
		return;
	t = &st->threads[st->training_thread];
	wall = rs_thread_wall(st, t);
	share = ratio(t->burst_blocked_ns, wall);
	/*
	 * Evidence of checkpoints: bursts that repeat, each >= 1 s after the
	 * last (else they would be one burst), so other work (compute, reads)
	 * separates them.  A single burst is a file written once (a dataset
	 * made at the start, an output at the end), whatever share it takes.
	 */
	if (t->bursts < STALL_MIN_BURSTS || t->burst_blocked_ns < STALL_MIN_NS ||
	    share < STALL_SHARE)
		return;
	f = add(out, "checkpoint_stall", share >= STALL_HIGH_SHARE ? LEVEL_HIGH : LEVEL_WARN,
		"Checkpoint writes stall the training thread");
	if (!f)
		return;
	rule(f,
	     "the training thread is blocked in repeated write bursts (>= %d bursts: writes and "
	     "syncs less than 1 s apart, >= 1 MiB, with other work between the bursts) for "
	     ">= %.0f%% of its time and >= 50 ms; high >= %.0f%%",
	     STALL_MIN_BURSTS, STALL_SHARE * 100, STALL_HIGH_SHARE * 100);
	evidence(f, "training thread %u: %llu bursts wrote %s and blocked it %s, %s of its %s",
		 t->tid, (unsigned long long)t->bursts, human_bytes(a, t->burst_bytes),
		 human_ns(b, t->burst_blocked_ns), human_pct(c, share), human_ns(d, wall));
	for (uint32_t k = 0; k < st->nbursts_kept && shown < 3; k++) {
		const struct rs_burst *bu = &st->top_bursts[k];

		if (bu->thread != st->training_thread)
			continue;
		shown++;
		evidence(f, "at %s: %s to %s in %s, blocked %s", human_ns(a, bu->start_ns),
			 human_bytes(b, bu->bytes),
			 bu->file != NONE32
			     ? fname(st, st->files[bu->file].name, name, sizeof(name))
			     : "?",
			 human_ns(c, bu->end_ns - bu->start_ns), human_ns(d, bu->blocked_ns));
	}
	metric(f, "bursts", t->bursts);
	metric(f, "burst_bytes", t->burst_bytes);
	metric(f, "blocked_ns", t->burst_blocked_ns);
	metric(f, "thread_wall_ns", wall);
	metric(f, "share", share);
	recommend(f, "Take checkpoints off the training thread: copy the state to host memory and "
		     "write it from a background thread or process (asynchronous checkpointing, "
		     "e.g. torch.distributed.checkpoint.async_save), or write to a fast local tier "
		     "(NVMe, tmpfs, a burst buffer) and drain to shared storage in the background; "
		     "burst-buffer staging has been reported to make checkpointing about 2.6x "
		     "faster.");
}

static void failed_syscalls(const struct report_stats *st, struct findings *out)
{
	uint64_t failed = 0, calls = 0, env = 0;
	uint32_t top_err = NONE32, top_dir = NONE32;
	int top_sys = -1;
	uint64_t top_sys_n = 0;
	double share;
	struct finding *f;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], name[320];

	for (int s = 0; s < SCOPE_COUNT; s++) {
		failed += st->tot[s].failed;
		calls += st->tot[s].calls;
	}
	env = st->tot[SCOPE_ENV].failed;
	share = ratio(failed, calls);
	if (failed < FAILED_MIN || share < FAILED_SHARE)
		return;
	f = add(out, "failed_syscalls", ratio(env, failed) >= 0.8 ? LEVEL_INFO : LEVEL_WARN,
		"Storm of failed system calls");
	if (!f)
		return;
	rule(f,
	     ">= %d failed calls (all files, environment included) that are >= %.0f%% of all "
	     "calls",
	     FAILED_MIN, FAILED_SHARE * 100);
	evidence(f, "%s of %s calls failed (%s); %s of them on environment files",
		 human_count(a, failed), human_count(b, calls), human_pct(c, share),
		 human_count(name, env));
	for (uint32_t i = 0; i < st->nerrnos; i++) {
		uint64_t n =
		    st->errnos[i].count[0] + st->errnos[i].count[1] + st->errnos[i].count[2];

		if (top_err == NONE32 || n > st->errnos[top_err].count[0] +
						 st->errnos[top_err].count[1] +
						 st->errnos[top_err].count[2])
			top_err = i;
	}
	for (int k = 0; k < DL_SYS_COUNT; k++) {
		uint64_t n = 0;

		for (int s = 0; s < SCOPE_COUNT; s++)
			n += st->sys[s][k].failed;
		if (n > top_sys_n) {
			top_sys_n = n;
			top_sys = k;
		}
	}
	for (uint32_t i = 0; i < st->ndirs; i++)
		if (st->dirs[i].failed &&
		    (top_dir == NONE32 || st->dirs[i].failed > st->dirs[top_dir].failed))
			top_dir = i;
	if (top_err != NONE32 && top_sys >= 0)
		evidence(f, "most common error %s; most failing call %s (%s failures)",
			 st->errnos[top_err].name, syscall_info(top_sys)->name,
			 human_count(a, top_sys_n));
	if (top_dir != NONE32)
		evidence(f, "most failures in directory %s (%s)",
			 fname(st, st->dirs[top_dir].name, name, sizeof(name)),
			 human_count(a, st->dirs[top_dir].failed));
	metric(f, "failed", failed);
	metric(f, "calls", calls);
	metric(f, "share", share);
	metric(f, "environment_failed", env);
	recommend(f, "Stop probing for files that do not exist: list directories once and look "
		     "names up in memory instead of calling exists()/stat() per sample, create "
		     "directories once, and for Python imports shorten sys.path/PYTHONPATH (each "
		     "entry is searched for every module) or ship the environment as one image.");
}

static void low_read_parallelism(const struct report_stats *st, struct findings *out)
{
	const struct rs_totals *tot = &st->tot[SCOPE_APP];
	const struct rs_thread *r = NULL;
	uint32_t ri = NONE32, idle = 0, shown = 0;
	uint64_t wall;
	double share, reading;
	struct finding *f;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX], e[HUMAN_MAX];
	char idle_list[FINDING_LINE] = "";
	size_t o = 0;

	for (uint32_t i = 0; i < st->nthreads; i++)
		if (ri == NONE32 || st->threads[i].app_bytes_read > st->threads[ri].app_bytes_read)
			ri = i;
	if (ri == NONE32 || tot->bytes_read < PARALLEL_MIN)
		return;
	r = &st->threads[ri];
	share = ratio(r->app_bytes_read, tot->bytes_read);
	wall = rs_thread_wall(st, r);
	reading = ratio(r->app_read_ns, wall);
	if (share < PARALLEL_SHARE || reading < PARALLEL_READ_SHARE)
		return;
	/* idle peers: alive for half the reader's lifetime, reading nothing */
	for (uint32_t i = 0; i < st->nthreads; i++) {
		const struct rs_thread *t = &st->threads[i];
		uint64_t lo = t->first_ns > r->first_ns ? t->first_ns : r->first_ns;
		uint64_t hi = t->last_ns < r->last_ns ? t->last_ns : r->last_ns;

		if (i == ri || t->app_reads || st->procs[t->proc].trace != st->procs[r->proc].trace)
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
		return;
	f = add(out, "low_read_parallelism", LEVEL_WARN, "Too little read parallelism");
	if (!f)
		return;
	rule(f,
	     "one thread reads >= %.0f%% of the bytes (>= 1 MiB) and spends >= %.0f%% of its time "
	     "reading, while other threads or processes of the job read nothing for at least "
	     "half of its lifetime",
	     PARALLEL_SHARE * 100, PARALLEL_READ_SHARE * 100);
	evidence(f,
		 "thread %u (pid %u) read %s, %s of the bytes read, and spent %s of its %s "
		 "reading (%s)",
		 r->tid, st->procs[r->proc].pid, human_bytes(a, r->app_bytes_read),
		 human_pct(b, share), human_ns(c, r->app_read_ns), human_ns(d, wall),
		 human_pct(e, reading));
	evidence(f, "%u threads alive meanwhile were idle for I/O: %s%s", idle, idle_list,
		 idle > shown ? ", ..." : "");
	metric(f, "reader_tid", r->tid);
	metric(f, "reader_bytes", r->app_bytes_read);
	metric(f, "share", share);
	metric(f, "reading_share", reading);
	metric(f, "idle_peers", idle);
	recommend(f,
		  "Read in parallel with compute: use DataLoader(num_workers=N) with N up to the "
		  "cores available (and prefetch_factor), tf.data's parallel interleave/map, or a "
		  "thread pool (or io_uring) issuing several reads at once; a single reader "
		  "serializes storage latency.");
}

/* "epoch 1 step 3" (what the step's arguments say, else its rank in the loop) */
static const char *step_label(const struct report_stats *st, const struct rs_step *s, char *buf,
			      size_t size)
{
	size_t o = 0;

	buf[0] = '\0';
	if (s->epoch != NONE32)
		o = snprintf(buf, size, "epoch %lld ",
			     (long long)st->phases.epochs[s->epoch].index);
	if (s->index >= 0)
		snprintf(buf + o, size - o, "step %lld", (long long)s->index);
	else
		snprintf(buf + o, size - o, "step at %.3f s", s->end / 1e9);
	return buf;
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
		     step_label(st, s, label, sizeof(label)), human_ns(a, rs_step_iter_ns(s)),
		     human_ns(b, s->stall_ns), human_pct(c, rs_step_stall_share(s)));
	for (int l = 0; l < LV_COUNT && n < sizeof(line); l++)
		if (s->io.level_ns[l])
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
		n +=
		    snprintf(line + n, sizeof(line) - n, "%s %s (%s, %s)", j ? ";" : "; files:",
			     fname(st, st->files[sl->files[best[j]].file].name, name, sizeof(name)),
			     human_bytes(a, sl->files[best[j]].bytes),
			     human_ns(b, sl->files[best[j]].io_ns));
	evidence(f, "%s", line);
}

static void data_stall(const struct report_stats *st, struct findings *out)
{
	const struct rs_phases *ph = &st->phases;
	const struct rs_owner *o = NULL;
	uint32_t loops = 0;
	double share = 0;
	struct finding *f;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX], e[HUMAN_MAX], g[HUMAN_MAX];
	uint32_t order[SLOW_KEEP];

	for (uint32_t i = 0; i < ph->nowners; i++) {
		const struct rs_owner *w = &ph->owners[i];
		double sh = ratio(w->sum.stall_ns, w->sum.iter_ns);

		if (w->steps < DATA_STALL_STEPS || w->sum.stall_ns < DATA_STALL_MIN_NS ||
		    sh < DATA_STALL_SHARE)
			continue;
		loops++;
		if (!o || sh > share) {
			o = w;
			share = sh;
		}
	}
	if (!o)
		return;
	f = add(out, "data_stall", share >= DATA_STALL_HIGH ? LEVEL_HIGH : LEVEL_WARN,
		"The training loop waits for its data");
	if (!f)
		return;
	rule(f,
	     "a training loop (step regions of dltrace's markers) waits for its batches (fetch "
	     "regions; without them, reads of pipes and sockets) >= %.0f%% of its iterations' "
	     "time (a step and the fetches before it), over >= %d steps and >= 50 ms; high "
	     ">= %.0f%%",
	     DATA_STALL_SHARE * 100, DATA_STALL_STEPS, DATA_STALL_HIGH * 100);
	evidence(f, "thread %u (pid %u) waited %s for batches in %u steps of %s (%s)%s",
		 st->threads[o->thread].tid, st->procs[o->proc].pid, human_ns(a, o->sum.stall_ns),
		 o->steps, human_ns(b, o->sum.iter_ns), human_pct(c, share),
		 o->fetch_seen ? ""
			       : ", measured as reads of pipes and sockets (no fetch regions)");
	evidence(f, "per step: median %s waiting of %s (%s), p99 %s of %s, worst share %s",
		 human_ns(a, o->sum.stall_p50), human_ns(b, o->sum.iter_p50),
		 human_pct(c, o->sum.share_p50), human_ns(d, o->sum.stall_p99),
		 human_ns(e, o->sum.iter_p99), human_pct(g, o->sum.share_max));
	if (loops > 1)
		evidence(f, "%u training loops stall this much; the worst is shown", loops);
	rs_slow_order(st, o, order);
	for (uint32_t k = 0; k < o->nslow && k < 3; k++)
		slow_step(st, f, o, &o->slow[order[k]]);
	metric(f, "steps", o->steps);
	metric(f, "stall_ns", o->sum.stall_ns);
	metric(f, "iteration_ns", o->sum.iter_ns);
	metric(f, "share", share);
	metric(f, "stall_median_ns", o->sum.stall_p50);
	metric(f, "stall_p99_ns", o->sum.stall_p99);
	metric(f, "tid", st->threads[o->thread].tid);
	recommend(f, "Feed the loop faster than it trains: more loader processes "
		     "(DataLoader(num_workers=N), up to the cores free) and a deeper prefetch "
		     "(prefetch_factor), persistent_workers=True so that workers survive epochs, "
		     "pin_memory for the copy to the GPU; make each sample cheaper to read (the "
		     "read findings: larger requests, packed shards, a local copy or page-cache "
		     "warm-up) and to decode (move augmentation off the critical path).  The slow "
		     "steps above say which files and which levels (HDF5, stdio, syscalls) the "
		     "waits were spent on.");
}

/*
 * The Python locations behind each finding (--python-stacks): per finding, the
 * calls it is about (report_python.c counts them per location, over the
 * application's files as the findings do), the top 3 locations by calls, bytes
 * or time.
 */
enum py_rank { PY_BY_CALLS, PY_BY_BYTES, PY_BY_TIME };

static const struct {
	const char *id;
	enum rs_py_what what;
	enum py_rank rank;
	const char *label;
} py_behind[] = {
    {"small_reads", PYW_SMALL_READS, PY_BY_CALLS, "small reads"},
    {"small_writes", PYW_SMALL_WRITES, PY_BY_CALLS, "small writes"},
    {"random_reads", PYW_RANDOM_READS, PY_BY_CALLS, "random reads"},
    {"random_writes", PYW_RANDOM_WRITES, PY_BY_CALLS, "random writes"},
    {"redundant_reads", PYW_READS, PY_BY_BYTES, "bytes read"},
    {"reread_fits_in_ram", PYW_READS, PY_BY_BYTES, "bytes read"},
    {"metadata_heavy", PYW_META, PY_BY_CALLS, "metadata calls"},
    {"many_small_files", PYW_META, PY_BY_CALLS, "metadata calls"},
    {"sync_heavy", PYW_SYNCS, PY_BY_CALLS, "syncs"},
    {"checkpoint_stall", PYW_WRITES, PY_BY_BYTES, "bytes written"},
    {"failed_syscalls", PYW_FAILED, PY_BY_CALLS, "failed calls"},
    {"low_read_parallelism", PYW_READS, PY_BY_TIME, "read time"},
    {"data_stall", PYW_READS, PY_BY_TIME, "read time"},
};

static uint64_t py_key(const struct rs_py_count *c, enum py_rank r)
{
	return r == PY_BY_CALLS ? c->calls : r == PY_BY_BYTES ? c->bytes : c->ns;
}

static void python_behind(const struct report_stats *st, struct finding *f)
{
	const struct rs_python *py = &st->python;
	uint32_t best[FINDING_PY];
	char line[FINDING_LINE], name[200], a[HUMAN_MAX], b[HUMAN_MAX];
	size_t o;
	int n = 0, w = -1;

	for (size_t i = 0; i < sizeof(py_behind) / sizeof(py_behind[0]); i++)
		if (!strcmp(py_behind[i].id, f->id))
			w = (int)i;
	if (w < 0)
		return;
	/* the top locations; ties: the first seen */
	for (uint32_t i = 0; i < py->n; i++) {
		const struct rs_py_count *c = &py->locs[i].what[py_behind[w].what];
		uint64_t v = py_key(c, py_behind[w].rank);
		int k;

		if (!c->calls)
			continue;
		for (k = n; k > 0; k--) {
			const struct rs_py_count *x =
			    &py->locs[best[k - 1]].what[py_behind[w].what];

			if (py_key(x, py_behind[w].rank) >= v)
				break;
		}
		if (k == FINDING_PY)
			continue;
		if (n < FINDING_PY)
			n++;
		memmove(best + k + 1, best + k, (n - 1 - k) * sizeof(best[0]));
		best[k] = i;
	}
	if (!n)
		return;
	f->py_what = py_behind[w].label;
	o = (size_t)snprintf(line, sizeof(line), "Python lines by %s:", py_behind[w].label);
	for (int k = 0; k < n; k++) {
		const struct rs_py_loc *l = &py->locs[best[k]];
		const struct rs_py_count *c = &l->what[py_behind[w].what];
		struct finding_py *p = &f->py[f->npy++];

		*p = (struct finding_py){rs_str(st, l->loc), c->calls, c->bytes, c->ns};
		if (o < sizeof(line))
			o += (size_t)snprintf(
			    line + o, sizeof(line) - o, "%s %s (%s calls, %s)", k ? ";" : "",
			    display_text(name, sizeof(name), rs_str(st, l->loc),
					 rs_strlen(st, l->loc), 96),
			    human_count(a, c->calls),
			    py_behind[w].rank == PY_BY_TIME || (!c->bytes && c->ns)
				? human_ns(b, c->ns)
				: human_bytes(b, c->bytes));
	}
	evidence(f, "%s", line);
}

static int by_level(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;

	return (int)y->level - (int)x->level;
}

void report_findings(const struct report_stats *st, const struct finding_options *opt,
		     struct findings *out)
{
	memset(out, 0, sizeof(*out));
	small_requests(st, out, false);
	small_requests(st, out, true);
	random_access(st, out, false);
	random_access(st, out, true);
	redundant_reads(st, out);
	metadata_heavy(st, out);
	many_small_files(st, out);
	reread_fits_in_ram(st, opt, out);
	imbalance(st, out);
	sync_heavy(st, out);
	checkpoint_stall(st, out);
	failed_syscalls(st, out);
	low_read_parallelism(st, out);
	data_stall(st, out);
	rs_gpu_finding(st, out); /* gpu_idle_on_data (report_gpu_idle.c) */
	for (int i = 0; i < out->n; i++)
		python_behind(st, &out->items[i]);
	/* stable: by level, then in rule order */
	for (int i = 1; i < out->n; i++) {
		struct finding tmp = out->items[i];
		int j = i;

		while (j > 0 && by_level(&out->items[j - 1], &tmp) > 0) {
			out->items[j] = out->items[j - 1];
			j--;
		}
		out->items[j] = tmp;
	}
}
