// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The rules on how the application uses its files: small and random requests,
 * bytes read again, metadata calls, many small files, data re-read that fits
 * in RAM, failed calls.
 */
#include "report/report_findings_internal.h"

#include <stdlib.h>

#include "lib/human_format.h"
#include "event/syscall_table.h"

/*
 * The rules' constants besides the thresholds of their rows (the doc of each
 * row states them).
 */
#define SMALL_FILE	 MIB
#define REREAD_PASSES	 1.5
#define REREAD_RAM_SHARE 0.50
#define FAILED_ENV_SHARE 0.8 /* info when the environment's failures are this share */

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

static bool small_requests(const struct finding_rule *r, const struct report_stats *st,
			   struct finding *f, bool writes)
{
	const struct rs_totals *t = &st->tot[SCOPE_APP];
	uint64_t small = writes ? t->small_writes : t->small_reads;
	uint64_t all = writes ? t->writes : t->reads;
	double share = finding__ratio(small, all);
	const struct rs_syscall *sc;
	uint64_t med_num = 0, med_n = 0;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX];

	if (small <= r->min || share <= r->share)
		return false;
	if (share > r->high)
		f->severity = SEVERITY_HIGH;
	finding__rule(
	    f,
	    "%s under 1 MiB are more than %.0f%% of the application's %s and more than %.0f "
	    "(Drishti's thresholds); high above %.0f%%",
	    writes ? "writes" : "reads", r->share * 100, writes ? "writes" : "reads", r->min,
	    r->high * 100);
	finding__evidence(f, "%s of %s %s (%s) moved less than 1 MiB", human_count(a, small),
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
		finding__evidence(f, "median size of the most used %s call: %s",
				  writes ? "write" : "read", human_bytes(a, med_num));
	finding__top_files(st, f, writes ? m_small_writes : m_small_reads,
			   writes ? "small writes" : "small reads");
	finding__metric(f, "small", small);
	finding__metric(f, "total", all);
	finding__metric(f, "share", share);
	finding__recommend(
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

bool detect_small_reads(RULE_ARGS)
{
	(void)opt;
	return small_requests(r, st, f, false);
}

bool detect_small_writes(RULE_ARGS)
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
	double share = finding__ratio(rnd, all);
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX], e[HUMAN_MAX];

	if (rnd <= r->min || share <= r->share)
		return false;
	finding__rule(
	    f,
	    "%s that are neither sequential (Darshan: above the end of the previous one) "
	    "nor the first of their file are more than %.0f%% and more than %.0f (Drishti)",
	    writes ? "writes" : "reads", r->share * 100, r->min);
	finding__evidence(f, "%s of %s %s (%s) are random; %s sequential, %s consecutive",
			  human_count(a, rnd), human_count(b, all), writes ? "writes" : "reads",
			  human_pct(c, share), human_count(d, seq), human_count(e, consec));
	finding__evidence(f, "%s seeks (lseek) on application files", human_count(a, t->seeks));
	finding__top_files(st, f, writes ? m_random_writes : m_random_reads,
			   writes ? "random writes" : "random reads");
	finding__metric(f, "random", rnd);
	finding__metric(f, "total", all);
	finding__metric(f, "share", share);
	finding__recommend(
	    f, writes ? "Write sequentially: append records in order and keep one writer per "
			"file region; collect scattered updates in memory and write them "
			"out in offset order."
		      : "Read sequentially: store samples contiguously in the order they are "
			"consumed and shuffle at the shard level (a shuffle buffer, as "
			"WebDataset and tf.data do), read whole files instead of seeking "
			"inside them, and for HDF5 use contiguous datasets or chunks that "
			"hold whole samples.");
	return true;
}

bool detect_random_reads(RULE_ARGS)
{
	(void)opt;
	return random_access(r, st, f, false);
}

bool detect_random_writes(RULE_ARGS)
{
	(void)opt;
	return random_access(r, st, f, true);
}

bool detect_redundant_reads(RULE_ARGS)
{
	const struct rs_totals *t = &st->tot[SCOPE_APP];
	uint64_t red = st->redundant_in_open + st->concurrent_dup;
	double share = finding__ratio(red, t->bytes_read);
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX];

	(void)opt;
	if (red < r->min || share < r->share)
		return false;
	if (share >= r->high)
		f->severity = SEVERITY_HIGH;
	finding__rule(
	    f,
	    "bytes read more than once while the file stayed open, plus bytes read by "
	    "several processes at the same time, are >= %.0f%% of the bytes read and >= 1 MiB; "
	    "high >= %.0f%%",
	    r->share * 100, r->high * 100);
	finding__evidence(f, "%s of %s read (%s) were redundant", human_bytes(a, red),
			  human_bytes(b, t->bytes_read), human_pct(c, share));
	if (st->redundant_in_open) {
		finding__evidence(f, "%s read again within one open of the file",
				  human_bytes(a, st->redundant_in_open));
		finding__top_files(st, f, m_reread, "bytes re-read within an open");
	}
	if (st->concurrent_dup) {
		finding__evidence(f, "%s read by several processes at the same time",
				  human_bytes(a, st->concurrent_dup));
		finding__top_files(st, f, m_concurrent,
				   "bytes read concurrently by several processes");
	}
	finding__metric(f, "redundant_bytes", red);
	finding__metric(f, "reread_within_open_bytes", st->redundant_in_open);
	finding__metric(f, "concurrent_duplicate_bytes", st->concurrent_dup);
	finding__metric(f, "bytes_read", t->bytes_read);
	finding__metric(f, "share", share);
	finding__recommend(
	    f, "Read each sample once: read the whole file into memory and parse it there "
	       "(e.g. np.load(io.BytesIO(f.read())) instead of np.load(path), which reads "
	       "the zip directory and the data separately), keep parsed headers instead of "
	       "re-reading them, and give each rank a distinct part of the data "
	       "(DistributedSampler) instead of every process reading everything.");
	return true;
}

bool detect_metadata_heavy(RULE_ARGS)
{
	const struct rs_totals *t = &st->tot[SCOPE_APP];
	uint64_t io = t->io_ns[CLS_DATA] + t->io_ns[CLS_META] + t->io_ns[CLS_SYNC];
	double share = finding__ratio(t->io_ns[CLS_META], io);
	double mib = (double)(t->bytes_read + t->bytes_written) / MIB;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX];

	(void)opt;
	if (t->meta_ops < r->min || share < r->share)
		return false;
	if (share >= r->high)
		f->severity = SEVERITY_HIGH;
	finding__rule(
	    f,
	    ">= %.0f metadata calls (open, stat, lseek, close, getdents, ...) taking >= %.0f%% "
	    "of the application's I/O time (Drishti); high >= %.0f%%",
	    r->min, r->share * 100, r->high * 100);
	finding__evidence(f, "%s metadata calls took %s, %s of %s in application I/O",
			  human_count(a, t->meta_ops), human_ns(b, t->io_ns[CLS_META]),
			  human_pct(c, share), human_ns(d, io));
	finding__evidence(
	    f, "%s opens, %s stats, %s seeks; %.1f opens+stats per MiB moved",
	    human_count(a, t->opens), human_count(b, t->stats), human_count(c, t->seeks),
	    mib > 0 ? (double)(t->opens + t->stats) / mib : (double)(t->opens + t->stats));
	finding__top_files(st, f, m_meta, "metadata calls");
	finding__metric(f, "metadata_calls", t->meta_ops);
	finding__metric(f, "metadata_ns", t->io_ns[CLS_META]);
	finding__metric(f, "io_ns", io);
	finding__metric(f, "share", share);
	finding__metric(f, "opens", t->opens);
	finding__metric(f, "stats", t->stats);
	finding__metric(f, "seeks", t->seeks);
	finding__recommend(
	    f, "Cut metadata calls: list the dataset once and cache the listing instead of "
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

bool detect_many_small_files(RULE_ARGS)
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
	finding__rule(f, ">= %.0f files under 1 MiB read, and at least %.0f%% of the files read",
		      r->min, r->share * 100);
	ext = malloc(nsmall * sizeof(*ext));
	if (ext) {
		for (uint32_t i = 0; i < st->nfiles; i++) {
			const struct rs_file *x = &st->files[i];

			if (x->scope == SCOPE_APP && x->bytes_read && x->extent < SMALL_FILE)
				ext[n++] = x->extent;
		}
		qsort(ext, n, sizeof(*ext), cmp_u64);
	}
	finding__evidence(f, "%s of %s files read are under 1 MiB%s%s", human_count(a, nsmall),
			  human_count(c, st->files_read), n ? "; median size " : "",
			  n ? human_bytes(b, ext[(n - 1) / 2]) : "");
	finding__evidence(
	    f, "they delivered %s and cost %s of metadata calls (open, stat, close, ...)",
	    human_bytes(a, bytes), human_ns(c, meta_ns));
	finding__metric(f, "small_files", nsmall);
	finding__metric(f, "files_read", st->files_read);
	if (n)
		finding__metric(f, "median_size", ext[(n - 1) / 2]);
	free(ext);
	finding__recommend(
	    f, "Pack samples into shards of 100 MiB to 1 GiB (WebDataset tar shards, "
	       "TFRecord, HDF5, LMDB, Parquet) and read them sequentially: one open and large "
	       "reads per shard instead of an open, a stat and a few small reads per sample.");
	return true;
}

bool detect_reread_fits_in_ram(RULE_ARGS)
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
	finding__rule(
	    f,
	    "files read %.1f times or more hold >= half of the data read, all data read fits "
	    "in %.0f%% of the RAM, and reading those files took >= %.0f%% of the job's wall "
	    "time",
	    REREAD_PASSES, REREAD_RAM_SHARE * 100, r->share * 100);
	finding__evidence(f,
			  "%s files (%s of %s read) were read %.1f times on average: %s read in %s",
			  human_count(name_buf, nfiles), human_bytes(a, reread_bytes),
			  human_bytes(b, st->dataset_bytes), passes, human_bytes(c, read_bytes),
			  human_ns(d, reread_ns));
	finding__evidence(f, "RAM %s: %s",
			  opt->ram_from_option ? "(--ram)" : "of the machine making this report",
			  human_bytes(a, opt->ram_bytes));
	if (st->layers.cache_reads) {
		uint64_t miss = 0;

		for (uint32_t i = 0; i < st->nfiles; i++)
			if (st->files[i].scope == SCOPE_APP && st->files[i].passes >= REREAD_PASSES)
				miss += st->files[i].cache_miss;
		finding__evidence(
		    f, "of the %s read from them, %s came from storage (page-cache misses)",
		    human_bytes(a, read_bytes), human_bytes(b, miss));
		finding__metric(f, "cache_miss_bytes", miss);
	}
	finding__metric(f, "files", nfiles);
	finding__metric(f, "reread_bytes", reread_bytes);
	finding__metric(f, "dataset_bytes", st->dataset_bytes);
	finding__metric(f, "passes", passes);
	finding__metric(f, "read_ns", reread_ns);
	finding__metric(f, "ram_bytes", opt->ram_bytes);
	finding__recommend(
	    f, "Read the data from storage once: cache decoded samples in memory after the "
	       "first epoch, or stage the dataset to local NVMe or /dev/shm before training, "
	       "and make sure the page cache can hold it (container memory limits count "
	       "it).");
	return true;
}

bool detect_failed_syscalls(RULE_ARGS)
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
	share = finding__ratio(failed, calls);
	if (failed < r->min || share < r->share)
		return false;
	if (finding__ratio(env, failed) >= FAILED_ENV_SHARE)
		f->severity = SEVERITY_INFO;
	finding__rule(
	    f,
	    ">= %.0f failed calls (all files, environment included) that are >= %.0f%% of all "
	    "calls",
	    r->min, r->share * 100);
	finding__evidence(f, "%s of %s calls failed (%s); %s of them on environment files",
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
		finding__evidence(f, "most common error %s; most failing call %s (%s failures)",
				  st->errnos[top_err].name, syscall_info(top_sys)->name,
				  human_count(a, top_sys_n));
	if (top_dir != NONE32)
		finding__evidence(
		    f, "most failures in directory %s (%s)",
		    finding__file_name(st, st->dirs[top_dir].name, name, sizeof(name)),
		    human_count(a, st->dirs[top_dir].failed));
	finding__metric(f, "failed", failed);
	finding__metric(f, "calls", calls);
	finding__metric(f, "share", share);
	finding__metric(f, "environment_failed", env);
	finding__recommend(
	    f, "Stop probing for files that do not exist: list directories once and look "
	       "names up in memory instead of calling exists()/stat() per sample, create "
	       "directories once, and for Python imports shorten sys.path/PYTHONPATH (each "
	       "entry is searched for every module) or ship the environment as one image.");
	return true;
}
