// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The rules of `dltrace report`: one table, finding_rules[] at the end, with
 * a function per rule above it.  All figures are of application files
 * (environment I/O excluded) unless a rule says otherwise.
 *
 * Adding a finding: a function that fills the finding and returns true when
 * it fires (the thresholds of its row in r->share, r->high, r->min), and one
 * row (docs/developer-guide.md "Adding a finding").
 */
#define _GNU_SOURCE
#include "report/report_findings.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/human_format.h"
#include "report/report_gpu_idle.h"
#include "event/syscall_table.h"

#define MIB (1ull << 20)

/*
 * The rules' constants besides the thresholds of their rows (the doc of each
 * row states them).
 */
#define SMALL_FILE	    MIB
#define REREAD_PASSES	    1.5
#define REREAD_RAM_SHARE    0.50
#define SYNC_BYTES	    MIB
#define STALL_MIN_BURSTS    2	/* a checkpoint repeats: one burst is a file made once */
#define FAILED_ENV_SHARE    0.8 /* info when the environment's failures are this share */
#define PARALLEL_READ_SHARE 0.20
#define PARALLEL_IDLE	    0.50
#define PARALLEL_BUSY	    0.10
#define DATA_STALL_STEPS    3
#define AMPLIFY_RATIO	    2.0
#define AMPLIFY_SHOWN	    6 /* entries with their evidence */

/* The parameters of a rule's function. */
#define RULE_ARGS                                                                                  \
	const struct finding_rule *r, const struct report_stats *st,                               \
	    const struct finding_options *opt, struct finding *f

const char *finding_severity_name(enum finding_severity s)
{
	return s == SEVERITY_HIGH ? "high" : s == SEVERITY_WARN ? "warn" : "info";
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

static bool small_requests(const struct finding_rule *r, const struct report_stats *st,
			   struct finding *f, bool writes)
{
	const struct rs_totals *t = &st->tot[SCOPE_APP];
	uint64_t small = writes ? t->small_writes : t->small_reads;
	uint64_t all = writes ? t->writes : t->reads;
	double share = ratio(small, all);
	const struct rs_syscall *sc;
	uint64_t med_num = 0, med_n = 0;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX];

	if (small <= r->min || share <= r->share)
		return false;
	if (share > r->high)
		f->severity = SEVERITY_HIGH;
	rule(f,
	     "%s under 1 MiB are more than %.0f%% of the application's %s and more than %.0f "
	     "(Drishti's thresholds); high above %.0f%%",
	     writes ? "writes" : "reads", r->share * 100, writes ? "writes" : "reads", r->min,
	     r->high * 100);
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
	return true;
}

static bool small_reads(RULE_ARGS)
{
	(void)opt;
	return small_requests(r, st, f, false);
}

static bool small_writes(RULE_ARGS)
{
	(void)opt;
	return small_requests(r, st, f, true);
}

static bool random_access(const struct finding_rule *r, const struct report_stats *st,
			  struct finding *f, bool writes)
{
	const struct rs_totals *t = &st->tot[SCOPE_APP];
	uint64_t rnd = writes ? t->random_writes : t->random_reads;
	uint64_t all = writes ? t->writes : t->reads;
	uint64_t seq = writes ? t->seq_writes : t->seq_reads;
	uint64_t consec = writes ? t->consec_writes : t->consec_reads;
	double share = ratio(rnd, all);
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX], e[HUMAN_MAX];

	if (rnd <= r->min || share <= r->share)
		return false;
	rule(f,
	     "%s that are neither sequential (Darshan: above the end of the previous one) "
	     "nor the first of their file are more than %.0f%% and more than %.0f (Drishti)",
	     writes ? "writes" : "reads", r->share * 100, r->min);
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
	return true;
}

static bool random_reads(RULE_ARGS)
{
	(void)opt;
	return random_access(r, st, f, false);
}

static bool random_writes(RULE_ARGS)
{
	(void)opt;
	return random_access(r, st, f, true);
}

static bool redundant_reads(RULE_ARGS)
{
	const struct rs_totals *t = &st->tot[SCOPE_APP];
	uint64_t red = st->redundant_in_open + st->concurrent_dup;
	double share = ratio(red, t->bytes_read);
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX];

	(void)opt;
	if (red < r->min || share < r->share)
		return false;
	if (share >= r->high)
		f->severity = SEVERITY_HIGH;
	rule(f,
	     "bytes read more than once while the file stayed open, plus bytes read by "
	     "several processes at the same time, are >= %.0f%% of the bytes read and >= 1 MiB; "
	     "high >= %.0f%%",
	     r->share * 100, r->high * 100);
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
	return true;
}

static bool metadata_heavy(RULE_ARGS)
{
	const struct rs_totals *t = &st->tot[SCOPE_APP];
	uint64_t io = t->io_ns[CLS_DATA] + t->io_ns[CLS_META] + t->io_ns[CLS_SYNC];
	double share = ratio(t->io_ns[CLS_META], io);
	double mib = (double)(t->bytes_read + t->bytes_written) / MIB;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX];

	(void)opt;
	if (t->meta_ops < r->min || share < r->share)
		return false;
	if (share >= r->high)
		f->severity = SEVERITY_HIGH;
	rule(f,
	     ">= %.0f metadata calls (open, stat, lseek, close, getdents, ...) taking >= %.0f%% "
	     "of the application's I/O time (Drishti); high >= %.0f%%",
	     r->min, r->share * 100, r->high * 100);
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
	return true;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool many_small_files(RULE_ARGS)
{
	uint64_t nsmall = 0, meta_ns = 0, bytes = 0, *ext;
	uint32_t n = 0;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX];

	(void)opt;
	for (uint32_t i = 0; i < st->nfiles; i++) {
		const struct rs_file *x = &st->files[i];

		if (x->scope == SCOPE_APP && x->bytes_read && x->extent < SMALL_FILE) {
			nsmall++;
			meta_ns += x->io_ns[CLS_META];
			bytes += x->bytes_read;
		}
	}
	if (nsmall < r->min || (double)nsmall < r->share * st->files_read)
		return false;
	rule(f, ">= %.0f files under 1 MiB read, and at least %.0f%% of the files read", r->min,
	     r->share * 100);
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
	return true;
}

static bool reread_fits_in_ram(RULE_ARGS)
{
	char name_buf[HUMAN_MAX];
	uint64_t reread_bytes = 0, reread_ns = 0, read_bytes = 0;
	uint32_t nfiles = 0;
	double passes = 0;
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
		return false;
	passes /= (double)reread_bytes;
	if ((double)reread_bytes < 0.5 * st->dataset_bytes ||
	    (double)st->dataset_bytes > REREAD_RAM_SHARE * opt->ram_bytes ||
	    (double)reread_ns < r->share * st->wall_ns)
		return false;
	rule(f,
	     "files read %.1f times or more hold >= half of the data read, all data read fits "
	     "in %.0f%% of the RAM, and reading those files took >= %.0f%% of the job's wall "
	     "time",
	     REREAD_PASSES, REREAD_RAM_SHARE * 100, r->share * 100);
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
	return true;
}

static bool imbalance(RULE_ARGS)
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
	rule(f,
	     "peers (processes with the same parent and command line: DataLoader workers, "
	     "ranks; or the traced hosts) differ by more than %.0f%% in bytes moved, "
	     "(max - min) / max, for a group that moved >= 1 MiB",
	     r->share * 100);
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
	if (host_imb > r->share) {
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
	return true;
}

static bool sync_heavy(RULE_ARGS)
{
	const struct rs_totals *t = &st->tot[SCOPE_APP];
	double per_sync = t->syncs ? (double)t->bytes_written / t->syncs : 0;
	uint64_t wio = t->write_ns + t->io_ns[CLS_SYNC];
	double share = ratio(t->io_ns[CLS_SYNC], wio);
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX], e[HUMAN_MAX];

	(void)opt;
	if (t->syncs < r->min || per_sync >= SYNC_BYTES)
		return false;
	if (share >= r->high)
		f->severity = SEVERITY_HIGH;
	rule(f,
	     ">= %.0f fsync/fdatasync/sync_file_range calls with less than 1 MiB written per "
	     "call; high when they take >= half of the write time",
	     r->min);
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
	return true;
}

static bool checkpoint_stall(RULE_ARGS)
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
	share = ratio(t->burst_blocked_ns, wall);
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
	rule(f,
	     "the training thread is blocked in repeated write bursts (>= %d bursts: writes and "
	     "syncs less than 1 s apart, >= 1 MiB, with other work between the bursts) for "
	     ">= %.0f%% of its time and >= 50 ms; high >= %.0f%%",
	     STALL_MIN_BURSTS, r->share * 100, r->high * 100);
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
	return true;
}

static bool failed_syscalls(RULE_ARGS)
{
	uint64_t failed = 0, calls = 0, env = 0;
	uint32_t top_err = NONE32, top_dir = NONE32;
	int top_sys = -1;
	uint64_t top_sys_n = 0;
	double share;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], name[320];

	(void)opt;
	for (int s = 0; s < SCOPE_COUNT; s++) {
		failed += st->tot[s].failed;
		calls += st->tot[s].calls;
	}
	env = st->tot[SCOPE_ENV].failed;
	share = ratio(failed, calls);
	if (failed < r->min || share < r->share)
		return false;
	if (ratio(env, failed) >= FAILED_ENV_SHARE)
		f->severity = SEVERITY_INFO;
	rule(f,
	     ">= %.0f failed calls (all files, environment included) that are >= %.0f%% of all "
	     "calls",
	     r->min, r->share * 100);
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
	return true;
}

static bool low_read_parallelism(RULE_ARGS)
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
	share = ratio(rd->app_bytes_read, tot->bytes_read);
	wall = rs_thread_wall(st, rd);
	reading = ratio(rd->app_read_ns, wall);
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
	rule(f,
	     "one thread reads >= %.0f%% of the bytes (>= 1 MiB) and spends >= %.0f%% of its time "
	     "reading, while other threads or processes of the job read nothing for at least "
	     "half of its lifetime",
	     r->share * 100, PARALLEL_READ_SHARE * 100);
	evidence(f,
		 "thread %u (pid %u) read %s, %s of the bytes read, and spent %s of its %s "
		 "reading (%s)",
		 rd->tid, st->procs[rd->proc].pid, human_bytes(a, rd->app_bytes_read),
		 human_pct(b, share), human_ns(c, rd->app_read_ns), human_ns(d, wall),
		 human_pct(e, reading));
	evidence(f, "%u threads alive meanwhile were idle for I/O: %s%s", idle, idle_list,
		 idle > shown ? ", ..." : "");
	metric(f, "reader_tid", rd->tid);
	metric(f, "reader_bytes", rd->app_bytes_read);
	metric(f, "share", share);
	metric(f, "reading_share", reading);
	metric(f, "idle_peers", idle);
	recommend(f,
		  "Read in parallel with compute: use DataLoader(num_workers=N) with N up to the "
		  "cores available (and prefetch_factor), tf.data's parallel interleave/map, or a "
		  "thread pool (or io_uring) issuing several reads at once; a single reader "
		  "serializes storage latency.");
	return true;
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
		n +=
		    snprintf(line + n, sizeof(line) - n, "%s %s (%s, %s)", j ? ";" : "; files:",
			     fname(st, st->files[sl->files[best[j]].file].name, name, sizeof(name)),
			     human_bytes(a, sl->files[best[j]].bytes),
			     human_ns(b, sl->files[best[j]].io_ns));
	evidence(f, "%s", line);
}

static bool data_stall(RULE_ARGS)
{
	const struct rs_phases *ph = &st->phases;
	const struct rs_owner *o = NULL;
	uint32_t loops = 0;
	double share = 0;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX], e[HUMAN_MAX], g[HUMAN_MAX];
	uint32_t order[SLOW_KEEP];

	for (uint32_t i = 0; i < ph->nowners; i++) {
		const struct rs_owner *w = &ph->owners[i];
		double sh = ratio(w->sum.stall_ns, w->sum.iter_ns);

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
	rule(f,
	     "a training loop (step regions of dltrace's markers) waits for its batches (fetch "
	     "regions; without them, reads of pipes and sockets) >= %.0f%% of its iterations' "
	     "time (a step and the fetches before it), over >= %d steps and >= 50 ms; high "
	     ">= %.0f%%",
	     r->share * 100, DATA_STALL_STEPS, r->high * 100);
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
	return true;
}

/* Why a dataset's or file's reads read more than they asked, as far as the trace tells. */
enum amplify_cause {
	AMP_REOPEN,  /* an HDF5 dataset opened again for each read: its caches start empty */
	AMP_STRIDED, /* many read syscalls per call: a selection of small pieces */
	AMP_BLOCK,   /* a chunk, sieve or stream buffer larger than what a call asks */
	AMP_COUNT,
};

static enum amplify_cause amplify_cause(const struct rs_level_obj *o)
{
	if (o->level == DL_LAYER_HDF5 && o->rd.calls >= 2 && o->opens >= o->rd.calls)
		return AMP_REOPEN;
	if (o->rd.syscalls >= 4 * o->rd.calls)
		return AMP_STRIDED;
	return AMP_BLOCK;
}

static const char *amplify_advice(int level, enum amplify_cause c)
{
	if (c == AMP_REOPEN)
		return "Keep the dataset open (open it once per worker, e.g. in the Dataset's "
		       "__init__ or on first use, and index the open object), or read it once "
		       "into memory when it is small: each open starts with empty caches, so "
		       "HDF5 reads its sieve buffer or chunk again for every element.";
	if (c == AMP_STRIDED)
		return level == DL_LAYER_MPIIO
			   ? "Read contiguous pieces: describe the access with a file view and "
			     "one collective call (MPI_File_read_all) instead of many small "
			     "noncontiguous reads."
			   : "Read contiguous slices: one selection of adjacent elements "
			     "(d[i:j]) instead of strided or scattered points, then index the "
			     "array in memory.";
	if (level == DL_LAYER_STDIO)
		return "Ask the stream for what is read: each small fread after a seek refills "
		       "the stream's whole buffer; read the record with one fread of its size, "
		       "or give the stream a buffer the size of the reads (setvbuf).";
	if (level == DL_LAYER_MPIIO)
		return "Turn off data sieving for these reads (the ROMIO hint romio_ds_read="
		       "disable) or read with collective calls: ROMIO reads whole extents for "
		       "noncontiguous requests.";
	return "Rechunk the dataset to the access pattern (chunks of what one read asks, "
	       "h5repack -l), or raise the chunk cache (rdcc_nbytes in h5py.File, "
	       "H5Pset_chunk_cache) so that a chunk read once serves the reads after it.";
}

/*
 * read_amplification: per HDF5 dataset and per file read through stdio or
 * MPI-IO, the bytes the enclosed read syscalls read against the bytes the
 * calls asked for (report_levels.c); worst first, by the bytes read beyond
 * those asked.
 */
static bool read_amplification(RULE_ARGS)
{
	uint32_t *order = rs_sorted(st->levels.nobjs, key_level_obj, st), n = 0;
	uint64_t excess = 0, asked = 0, read = 0, worst_excess = 0;
	double worst_ratio = 0;
	int cause_level[AMP_COUNT] = {-1, -1, -1}; /* the level of the first entry of a cause */
	int first_level = DL_LAYER_HDF5, first_cause = -1;
	char rec[2 * FINDING_LINE];
	size_t k = 0;

	(void)opt;
	if (!order)
		return false;
	for (uint32_t i = 0; i < st->levels.nobjs; i++) {
		const struct rs_level_obj *o = &st->levels.objs[order[i]];
		uint64_t ex = rs_level_excess(&o->rd);

		if (o->level == DL_LAYER_HDF5 && o->object == NONE32)
			continue; /* an HDF5 file's row sums its datasets' */
		if (ex <= r->min || (double)o->rd.sys_bytes < AMPLIFY_RATIO * o->rd.asked)
			continue;
		order[n++] = order[i];
		excess += ex;
		asked += o->rd.asked;
		read += o->rd.sys_bytes;
	}
	if (!n) {
		free(order);
		return false;
	}
	if ((double)excess >= r->high * st->tot[SCOPE_APP].bytes_read)
		f->severity = SEVERITY_HIGH;
	rule(f,
	     "the reads of an HDF5 dataset, or a file's stdio or MPI-IO reads, made read "
	     "syscalls that read >= %.0fx the bytes asked and > 1 MiB more; high when that "
	     "excess is >= %.0f%% of the application's bytes read",
	     AMPLIFY_RATIO, r->high * 100);
	for (uint32_t i = 0; i < n; i++) {
		const struct rs_level_obj *o = &st->levels.objs[order[i]];
		enum amplify_cause c = amplify_cause(o);
		char name[1024], nm[200], a[HUMAN_MAX], b[HUMAN_MAX], d[HUMAN_MAX], e[HUMAN_MAX],
		    g[HUMAN_MAX], h[HUMAN_MAX], x[HUMAN_MAX], why[160], from[96] = "";
		uint32_t top[1];

		if (i == 0) {
			first_level = o->level;
			first_cause = c;
			worst_excess = rs_level_excess(&o->rd);
			worst_ratio = o->rd.asked ? (double)o->rd.sys_bytes / o->rd.asked : 0;
		}
		if (cause_level[c] < 0)
			cause_level[c] = o->level;
		if (i >= AMPLIFY_SHOWN)
			continue;
		rs_level_obj_name(st, o, name, sizeof(name));
		if (c == AMP_REOPEN)
			snprintf(why, sizeof(why),
				 "opened again for each read (%s opens for %s reads)",
				 human_count(a, o->opens), human_count(b, o->rd.calls));
		else if (c == AMP_STRIDED)
			snprintf(why, sizeof(why), "%.1f read syscalls per call: small pieces",
				 (double)o->rd.syscalls / o->rd.calls);
		else
			snprintf(why, sizeof(why),
				 "%s (%s opens for %s reads): each call read a block larger than "
				 "its selection",
				 o->level == DL_LAYER_HDF5 ? "kept open" : "buffered",
				 human_count(a, o->opens), human_count(b, o->rd.calls));
		if (o->rd.cache_reads)
			snprintf(from, sizeof(from), "; %s of it came from storage",
				 human_bytes(a, o->rd.cache_miss));
		rs_level_top_sizes(&o->rd, top, 1);
		evidence(f,
			 "%s (%s): %s reads asked %s bytes (most often %s per call); the %s read "
			 "syscalls they enclosed read %s bytes (%s), %s%s; %s",
			 display_text(nm, sizeof(nm), name, strlen(name), 96),
			 rs_level_names[o->level], human_count(a, o->rd.calls),
			 human_count(b, o->rd.asked),
			 o->rd.nsizes ? human_bytes(d, o->rd.sizes[top[0]].key) : "-",
			 human_count(e, o->rd.syscalls), human_count(g, o->rd.sys_bytes),
			 human_bytes(h, o->rd.sys_bytes), human_ratio(x, rs_level_ratio(&o->rd)),
			 from, why);
	}
	if (n > AMPLIFY_SHOWN) {
		char a[HUMAN_MAX];

		evidence(f, "and %s more datasets or files", human_count(a, n - AMPLIFY_SHOWN));
	}
	metric(f, "objects", n);
	metric(f, "asked_bytes", asked);
	metric(f, "syscall_read_bytes", read);
	metric(f, "excess_bytes", excess);
	metric(f, "worst_excess_bytes", worst_excess);
	metric(f, "worst_ratio", worst_ratio);
	metric(f, "share_of_bytes_read", ratio(excess, st->tot[SCOPE_APP].bytes_read));
	/* the worst entry's advice first, then the other causes' */
	k = snprintf(rec, sizeof(rec), "%s", amplify_advice(first_level, first_cause));
	for (int c = 0; c < AMP_COUNT && k < sizeof(rec); c++)
		if (cause_level[c] >= 0 && c != first_cause)
			k += snprintf(rec + k, sizeof(rec) - k, " %s",
				      amplify_advice(cause_level[c], c));
	recommend(f, rec);
	free(order);
	return true;
}

/*
 * The Python locations behind each finding (--python-stacks): per finding, the
 * calls it is about (report_python.c counts them per location, over the
 * application's files as the findings do; its row says which), the top 3
 * locations by calls, bytes or time.
 */
static uint64_t py_key(const struct rs_py_count *c, enum py_rank r)
{
	return r == PY_BY_CALLS ? c->calls : r == PY_BY_BYTES ? c->bytes : c->ns;
}

static void python_behind(const struct finding_rule *r, const struct report_stats *st,
			  struct finding *f)
{
	const struct rs_python *py = &st->python;
	uint32_t best[FINDING_PY];
	char line[FINDING_LINE], name[200], a[HUMAN_MAX], b[HUMAN_MAX];
	size_t o;
	int n = 0;

	if (!r->py_label)
		return;
	/* the top locations; ties: the first seen */
	for (uint32_t i = 0; i < py->n; i++) {
		const struct rs_py_count *c = &py->locs[i].what[r->py_what];
		uint64_t v = py_key(c, r->py_rank);
		int k;

		if (!c->calls)
			continue;
		for (k = n; k > 0; k--) {
			const struct rs_py_count *x = &py->locs[best[k - 1]].what[r->py_what];

			if (py_key(x, r->py_rank) >= v)
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
	f->py_what = r->py_label;
	o = (size_t)snprintf(line, sizeof(line), "Python lines by %s:", r->py_label);
	for (int k = 0; k < n; k++) {
		const struct rs_py_loc *l = &py->locs[best[k]];
		const struct rs_py_count *c = &l->what[r->py_what];
		struct finding_py *p = &f->py[f->npy++];

		*p = (struct finding_py){rs_str(st, l->loc), c->calls, c->bytes, c->ns};
		if (o < sizeof(line))
			o += (size_t)snprintf(line + o, sizeof(line) - o, "%s %s (%s calls, %s)",
					      k ? ";" : "",
					      display_text(name, sizeof(name), rs_str(st, l->loc),
							   rs_strlen(st, l->loc), 96),
					      human_count(a, c->calls),
					      r->py_rank == PY_BY_TIME || (!c->bytes && c->ns)
						  ? human_ns(b, c->ns)
						  : human_bytes(b, c->bytes));
	}
	evidence(f, "%s", line);
}

/*
 * The rules, in the order the report lists findings of one severity.  Each
 * row: id, title, function; the severity it fires at and the thresholds
 * ({share}, {high}, {min} of the doc); what it reads; when it fires; the
 * Python calls behind it.
 */
/* gpu_idle_on_data: in report_gpu_idle.c, beside the join whose figures it reads. */
static bool gpu_idle_on_data(RULE_ARGS)
{
	(void)opt;
	return rs_gpu_finding(r, st, f);
}

const struct finding_rule finding_rules[] = {
    {"small_reads", "Many small reads", small_reads, SEVERITY_WARN, 0.10, 0.50, 1000, UNIT_COUNT,
     "reads of application files and their sizes",
     "reads under 1 MiB are more than {share} of the reads and more than {min} (Drishti's "
     "thresholds); high above {high}",
     PYW_SMALL_READS, PY_BY_CALLS, "small reads"},
    {"small_writes", "Many small writes", small_writes, SEVERITY_WARN, 0.10, 0.50, 1000, UNIT_COUNT,
     "writes of application files and their sizes",
     "writes under 1 MiB are more than {share} of the writes and more than {min} (Drishti's "
     "thresholds); high above {high}",
     PYW_SMALL_WRITES, PY_BY_CALLS, "small writes"},
    {"random_reads", "Random-access reads", random_reads, SEVERITY_HIGH, 0.20, 0, 1000, UNIT_COUNT,
     "the offsets of the reads of each file, per process",
     "reads neither sequential nor the first of their file are more than {share} and more "
     "than {min} (Drishti)",
     PYW_RANDOM_READS, PY_BY_CALLS, "random reads"},
    {"random_writes", "Random-access writes", random_writes, SEVERITY_HIGH, 0.20, 0, 1000,
     UNIT_COUNT, "the offsets of the writes of each file, per process",
     "writes neither sequential nor the first of their file are more than {share} and more "
     "than {min} (Drishti)",
     PYW_RANDOM_WRITES, PY_BY_CALLS, "random writes"},
    {"redundant_reads", "Redundant reads", redundant_reads, SEVERITY_WARN, 0.10, 0.50, MIB,
     UNIT_BYTES, "the byte ranges read per open of a file and per process",
     "bytes re-read within one open plus bytes read by several processes at the same time are "
     "at least {share} of the bytes read and {min}; high from {high}",
     PYW_READS, PY_BY_BYTES, "bytes read"},
    {"metadata_heavy", "Metadata-heavy I/O", metadata_heavy, SEVERITY_WARN, 0.10, 0.30, 1000,
     UNIT_COUNT, "metadata calls and the application's I/O time",
     "at least {min} metadata calls take at least {share} of the application's I/O time "
     "(Drishti); high from {high}",
     PYW_META, PY_BY_CALLS, "metadata calls"},
    {"many_small_files", "Many small files", many_small_files, SEVERITY_WARN, 0.50, 0, 1000,
     UNIT_COUNT, "the files read and their sizes",
     "at least {min} files under 1 MiB read, and at least {share} of the files read", PYW_META,
     PY_BY_CALLS, "metadata calls"},
    {"reread_fits_in_ram", "Data re-read every epoch fits in RAM", reread_fits_in_ram,
     SEVERITY_WARN, 0.05, 0, 0, UNIT_COUNT,
     "passes over each file, its read time, the RAM (--ram); page-cache misses (cache layer)",
     "files read 1.5 times or more hold half the data, the data fits in half the RAM (--ram), "
     "and reading them took {share} of the wall time",
     PYW_READS, PY_BY_BYTES, "bytes read"},
    {"imbalance", "I/O imbalance across workers or ranks", imbalance, SEVERITY_WARN, 0.30, 0, MIB,
     UNIT_BYTES, "bytes and I/O time per process (peers: same parent and command) and per host",
     "peers (workers, ranks, hosts) more than {share} apart in bytes moved, a group of at least "
     "{min}",
     0, 0, NULL},
    {"sync_heavy", "Sync-heavy writes", sync_heavy, SEVERITY_WARN, 0, 0.50, 50, UNIT_COUNT,
     "syncs, the bytes written, write and sync time",
     "at least {min} syncs with under 1 MiB written per sync; high when they take {high} of the "
     "write time",
     PYW_SYNCS, PY_BY_CALLS, "syncs"},
    {"checkpoint_stall", "Checkpoint writes stall the training thread", checkpoint_stall,
     SEVERITY_WARN, 0.05, 0.20, 50e6, UNIT_NS, "the training thread's write bursts",
     "the training thread is blocked in write bursts for at least {share} of its time and "
     "{min}, and the bursts repeat (at least 2, other work between them); high from {high}",
     PYW_WRITES, PY_BY_BYTES, "bytes written"},
    {"failed_syscalls", "Storm of failed system calls", failed_syscalls, SEVERITY_WARN, 0.10, 0,
     1000, UNIT_COUNT, "failed calls of all files with their errno, syscall and directory",
     "at least {min} failed calls that are {share} of all calls; info when mostly environment",
     PYW_FAILED, PY_BY_CALLS, "failed calls"},
    {"low_read_parallelism", "Too little read parallelism", low_read_parallelism, SEVERITY_WARN,
     0.90, 0, MIB, UNIT_BYTES, "bytes read, read time and lifetime per thread",
     "one thread reads {share} of the bytes (at least {min}) and spends 20% of its time "
     "reading while the job's other threads are idle",
     PYW_READS, PY_BY_TIME, "read time"},
    {"data_stall", "The training loop waits for its data", data_stall, SEVERITY_WARN, 0.20, 0.50,
     50e6, UNIT_NS,
     "step and fetch regions (markers layer; without fetch regions, reads of pipes and sockets)",
     "a training loop waits for its batches at least {share} of its iterations' time, over 3 "
     "steps and {min}; high from {high}",
     PYW_READS, PY_BY_TIME, "read time"},
    {"gpu_idle_on_data", "The GPU waits for data", gpu_idle_on_data, SEVERITY_WARN, 0.20, 0.50, 3,
     UNIT_COUNT,
     "a PyTorch profiler trace's steps and GPU work (merged, or --kineto); fetch regions, pipe and "
     "socket reads, file reads; page-cache misses (cache layer), block requests (block layer)",
     "data waits (batch waits, file reads, page-cache misses, block I/O) overlap at least {share} "
     "of a GPU's idle time in steps, over at least {min} steps; high from {high}",
     PYW_READS, PY_BY_TIME, "read time"},
    {"read_amplification", "Reads that read far more than they asked for", read_amplification,
     SEVERITY_WARN, 0, 0.50, MIB, UNIT_BYTES,
     "the bytes asked per HDF5 dataset and per file (hdf5, stdio or mpiio layer) and what the "
     "read syscalls of those calls read",
     "an HDF5 dataset's reads, or a file's stdio or MPI-IO reads, made read syscalls that "
     "read at least 2x the bytes asked and more than {min} beyond them; high when that excess "
     "is at least {high} of the application's bytes read",
     0, 0, NULL},
};

const int finding_rules_count = sizeof(finding_rules) / sizeof(finding_rules[0]);

_Static_assert(sizeof(finding_rules) / sizeof(finding_rules[0]) <= FINDINGS_MAX,
	       "every rule can fire: raise FINDINGS_MAX");

static int by_severity(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;

	return (int)y->severity - (int)x->severity;
}

void report_findings(const struct report_stats *st, const struct finding_options *opt,
		     struct findings *out)
{
	out->n = 0;
	for (int i = 0; i < finding_rules_count; i++) {
		const struct finding_rule *r = &finding_rules[i];
		struct finding *f = &out->items[out->n];

		memset(f, 0, sizeof(*f));
		f->id = r->id;
		f->title = r->title;
		f->severity = r->severity;
		if (!r->fire(r, st, opt, f))
			continue;
		python_behind(r, st, f);
		out->n++;
	}
	/* stable: by severity, then in rule order */
	for (int i = 1; i < out->n; i++) {
		struct finding tmp = out->items[i];
		int j = i;

		while (j > 0 && by_severity(&out->items[j - 1], &tmp) > 0) {
			out->items[j] = out->items[j - 1];
			j--;
		}
		out->items[j] = tmp;
	}
}

/* A threshold as the docs say it: "10%", "1000", "1 MiB", "50 ms". */
static const char *threshold(char *buf, size_t size, double v, enum finding_unit u, bool share)
{
	if (share)
		snprintf(buf, size, "%.0f%%", v * 100);
	else if (u == UNIT_BYTES && v >= MIB)
		snprintf(buf, size, "%.0f MiB", v / MIB);
	else if (u == UNIT_NS && v >= 1e6)
		snprintf(buf, size, "%.0f ms", v / 1e6);
	else
		snprintf(buf, size, "%.0f", v);
	return buf;
}

const char *finding_rule_doc(const struct finding_rule *r, char *buf, size_t size)
{
	static const char *const keys[] = {"{share}", "{high}", "{min}"};
	const char *p = r->doc;
	size_t n = 0;

	buf[0] = '\0';
	while (*p && n + 1 < size) {
		int k = -1;

		for (int i = 0; i < 3 && k < 0; i++)
			if (!strncmp(p, keys[i], strlen(keys[i])))
				k = i;
		if (k < 0) {
			buf[n++] = *p++;
			buf[n] = '\0';
			continue;
		}
		threshold(buf + n, size - n,
			  k == 0   ? r->share
			  : k == 1 ? r->high
				   : r->min,
			  r->min_unit, k < 2);
		n += strlen(buf + n);
		p += strlen(keys[k]);
	}
	return buf;
}

const char *finding_rule_severities(const struct finding_rule *r, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s", finding_severity_name(r->severity),
		 r->high > 0 && r->severity != SEVERITY_HIGH ? " or high" : "");
	return buf;
}
