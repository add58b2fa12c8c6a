// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "probe/library_probes.h"

#include <bpf/libbpf.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bpf/dltrace_events.h"
#include "dltrace.skel.h"
#include "lib/id_map.h"
#include "probe/elf_symbols.h"
#include "lib/clock_ns.h"

#define MARKERS_LIB "libdltrace_markers.so"

struct fn_def {
	const char *name;
	uint16_t func;
};

/* Aliases (fopen64 of fopen in glibc) share an address: the first name is kept. */
static const struct fn_def stdio_fns[] = {
    {"fopen", DL_FN_FOPEN},   {"fopen64", DL_FN_FOPEN64},
    {"fdopen", DL_FN_FDOPEN}, {"fread", DL_FN_FREAD},
    {"fwrite", DL_FN_FWRITE}, {"fseek", DL_FN_FSEEK},
    {"fseeko", DL_FN_FSEEKO}, {"ftell", DL_FN_FTELL},
    {"ftello", DL_FN_FTELLO}, {"fflush", DL_FN_FFLUSH},
    {"fclose", DL_FN_FCLOSE}, {"fgets", DL_FN_FGETS},
    {"fputs", DL_FN_FPUTS},   {NULL, 0},
};

static const struct fn_def hdf5_fns[] = {
    {"H5Fcreate", DL_FN_H5FCREATE},
    {"H5Fopen", DL_FN_H5FOPEN},
    {"H5Fclose", DL_FN_H5FCLOSE},
    {"H5Dcreate2", DL_FN_H5DCREATE2},
    {"H5Dopen2", DL_FN_H5DOPEN2},
    {"H5Dread", DL_FN_H5DREAD},
    {"H5Dwrite", DL_FN_H5DWRITE},
    {"H5Dclose", DL_FN_H5DCLOSE},
    {"H5Gopen2", DL_FN_H5GOPEN2},
    {"H5Gclose", DL_FN_H5GCLOSE},
    {"H5Oopen", DL_FN_H5OOPEN},
    {"H5Oclose", DL_FN_H5OCLOSE},
    {NULL, 0},
};

static const struct fn_def mpiio_fns[] = {
    {"MPI_File_open", DL_FN_MPI_FILE_OPEN},
    {"MPI_File_close", DL_FN_MPI_FILE_CLOSE},
    {"MPI_File_read", DL_FN_MPI_FILE_READ},
    {"MPI_File_read_at", DL_FN_MPI_FILE_READ_AT},
    {"MPI_File_read_all", DL_FN_MPI_FILE_READ_ALL},
    {"MPI_File_read_at_all", DL_FN_MPI_FILE_READ_AT_ALL},
    {"MPI_File_write", DL_FN_MPI_FILE_WRITE},
    {"MPI_File_write_at", DL_FN_MPI_FILE_WRITE_AT},
    {"MPI_File_write_all", DL_FN_MPI_FILE_WRITE_ALL},
    {"MPI_File_write_at_all", DL_FN_MPI_FILE_WRITE_AT_ALL},
    {"MPI_File_sync", DL_FN_MPI_FILE_SYNC},
    {"MPI_File_set_view", DL_FN_MPI_FILE_SET_VIEW},
    {NULL, 0},
};

/* The marker library's USDT probes, ends before begins (attach order). */
static const char *const marker_probes[] = {"region_end", "region_begin", "instant", "counter"};

#define MAX_FNS	    16
#define MAX_TARGETS 16

struct target {
	char path[PATH_MAX];
	int layer;
	dev_t dev;
	ino_t ino;
	uint32_t param; /* the cookie's upper half (DL_COOKIE_*) */
	size_t nprobes;
	struct {
		uint64_t off;
		uint16_t func;
	} probes[MAX_FNS];
	char missing[256]; /* functions the library lacks */
	/* hdf5: H5D__read and H5D__write, where a call's selection is read */
	size_t nsel;
	uint64_t sel_off[2];
	uint64_t sel_cookie;
	char version[32]; /* "1.10.8", or empty */
	char sel_why[96]; /* why bytes asked are not known, or empty */
};

struct link_set {
	size_t n;
	struct bpf_link *links[2 * MAX_FNS * 2];
};

struct library_probes {
	bool verbose;
	struct target targets[MAX_TARGETS];
	size_t ntargets;
	char how[DL_LAYER_COUNT][PATH_MAX + 96];
	struct dltrace_bpf *skel;
	/* attached for every process */
	struct bpf_link **links;
	int *link_layer;
	size_t nlinks, cap;
	/* stdio: attached per traced process; tgid -> struct link_set * (GONE once exited) */
	bool per_process;
	struct id_map procs;
	uint32_t last_tgid;
	struct link_set **pending; /* of exited processes, waiting for a detach thread */
	size_t npending, pending_cap;
	bool warned;
	bool attached; /* library_probes_attach ran since the last detach */
	struct library_stats st;
	uint64_t attach_ns;
};

#define GONE ((struct link_set *)1)

static const struct fn_def *layer_fns(int layer)
{
	switch (layer) {
	case DL_LAYER_STDIO:
		return stdio_fns;
	case DL_LAYER_HDF5:
		return hdf5_fns;
	case DL_LAYER_MPIIO:
		return mpiio_fns;
	default:
		return NULL;
	}
}

/* The layer a library serves, from what it defines; -1: none. */
static int classify(const struct elf_symbols *e)
{
	uint64_t off;

	if (!elf_function_offset(e, "H5Fopen", &off))
		return DL_LAYER_HDF5;
	if (!elf_function_offset(e, "MPI_File_open", &off))
		return DL_LAYER_MPIIO;
	if (elf_has_usdt_provider(e, "dltrace"))
		return DL_LAYER_MARKERS;
	if (!elf_function_offset(e, "fopen", &off) && !elf_function_offset(e, "fread", &off))
		return DL_LAYER_STDIO;
	return -1;
}

int library_probes_check_path(const char *path, char *real, char *err, size_t errlen)
{
	struct elf_symbols *e;
	int layer;

	if (!realpath(path, real) || !(e = elf_symbols_open(real))) {
		snprintf(err, errlen, "--lib %s: %s", path,
			 errno == ENOEXEC ? "not an ELF file" : strerror(errno));
		return -1;
	}
	layer = classify(e);
	elf_symbols_close(e);
	if (layer < 0) {
		snprintf(err, errlen,
			 "--lib %s: no HDF5 (H5Fopen), MPI-IO (MPI_File_open), stdio (fopen) or "
			 "dltrace marker functions in it",
			 path);
		return -1;
	}
	return 0;
}

/* What a library's layout tells the BPF side (the cookie's upper half). */
static uint32_t target_param(const struct elf_symbols *e, int layer)
{
	if (layer == DL_LAYER_STDIO) {
		/* glibc's FILE is <bits/types/struct_FILE.h>'s struct _IO_FILE */
		uint64_t off;

		if (!elf_function_offset(e, "gnu_get_libc_version", &off))
			return offsetof(FILE, _fileno);
		return 0;
	}
	if (layer == DL_LAYER_MPIIO) {
		/*
		 * Open MPI: an MPI_Datatype points to an ompi_datatype_t whose
		 * opal_datatype_t has size_t size after the object header, flags,
		 * id and bdt_used; builds with debugging have a longer header.
		 * Check the offset against predefined types' initial data.
		 */
		static const struct {
			const char *name;
			uint64_t size;
		} known[] = {{"ompi_mpi_byte", 1}, {"ompi_mpi_int", 4}, {"ompi_mpi_double", 8}};
		static const uint32_t offsets[] = {24, 32};
		uint64_t off;

		for (size_t o = 0; o < sizeof(offsets) / sizeof(offsets[0]); o++) {
			size_t ok = 0;

			for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++) {
				uint64_t v = 0;

				if (!elf_object_bytes(e, known[k].name, offsets[o], &v,
						      sizeof(v)) &&
				    v == known[k].size)
					ok++;
			}
			if (ok == sizeof(known) / sizeof(known[0]))
				return DL_MPI_ABI_OMPI << DL_COOKIE_MPI_ABI_SHIFT | offsets[o];
		}
		if (!elf_function_offset(e, "MPIR_Init_thread", &off) ||
		    !elf_function_offset(e, "MPIR_Err_return_comm", &off))
			return DL_MPI_ABI_MPICH << DL_COOKIE_MPI_ABI_SHIFT;
	}
	return 0;
}

/*
 * What an H5Dread or H5Dwrite asks for is not in its arguments (hids of
 * dataspaces and types) but in the structures H5D__read and H5D__write
 * receive: the dataset (H5D_t), the memory and file dataspaces (H5S_t).
 * Their offsets per release series, in bytes (enum dl_h5_off's order):
 *
 *   H5D_t.shared 48: after H5O_loc_t oloc (24) and H5G_name_t path (24)
 *   H5D_shared_t.type 24, .space 32: after fo_count, closing, type_id
 *   H5T_t.shared 40: after H5O_shared_t sh_loc (40 bytes)
 *   H5T_shared_t.size 16: after fo_count, state, type
 *   H5S_t: extent {sh_loc 40, type, version, nelem 48, rank, size, max},
 *          then select {type 80, offset_changed, offset[32], num_elem 352}
 *
 * Read from the sources of the 1.10 releases since 1.10.3 (the first
 * with the API context, whose H5D__read lost its transfer list argument)
 * and of 1.12 (src/H5Dpkg.h, H5Tpkg.h, H5Spkg.h, H5Oprivate.h), and
 * measured on Debian's 1.10.8.  Earlier releases were not checked; from
 * 1.14 H5D__read takes several datasets in one structure.  Other
 * versions: bytes asked unknown.
 */
static const struct h5_layout {
	unsigned major, minor, from_release;
	uint16_t off[DL_H5_OFF_COUNT];
} h5_layouts[] = {
    {1, 10, 3, {48, 24, 32, 40, 16, 48, 80, 352}},
    {1, 12, 0, {48, 24, 32, 40, 16, 48, 80, 352}},
};

/* The library's version from the string it keeps for H5check_version. */
static int h5_version(const struct elf_symbols *e, unsigned v[3], char *text, size_t size)
{
	static const char prefix[] = "HDF5 library version: ";
	size_t n = elf_object_size(e, "H5_lib_vers_info_g");
	char buf[96] = "";

	if (!n)
		return -1;
	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	if (elf_object_bytes(e, "H5_lib_vers_info_g", 0, buf, n))
		return -1;
	buf[n] = '\0';
	if (strncmp(buf, prefix, sizeof(prefix) - 1) ||
	    sscanf(buf + sizeof(prefix) - 1, "%u.%u.%u", &v[0], &v[1], &v[2]) != 3)
		return -1;
	snprintf(text, size, "%u.%u.%u", v[0], v[1], v[2]);
	return 0;
}

/* Where t's H5D__read and H5D__write are, and its layout in their cookie. */
static void h5_selection(const struct elf_symbols *e, struct target *t)
{
	static const char *const fns[] = {"H5D__read", "H5D__write"};
	const struct h5_layout *lay = NULL;
	char version[sizeof(t->version)];
	unsigned v[3];

	if (h5_version(e, v, version, sizeof(version))) {
		snprintf(t->sel_why, sizeof(t->sel_why), "its version is not readable");
		return;
	}
	for (size_t i = 0; i < sizeof(h5_layouts) / sizeof(h5_layouts[0]); i++)
		if (h5_layouts[i].major == v[0] && h5_layouts[i].minor == v[1] &&
		    v[2] >= h5_layouts[i].from_release)
			lay = &h5_layouts[i];
	if (!lay) {
		snprintf(t->sel_why, sizeof(t->sel_why),
			 "HDF5 %s is not covered (1.10.3 to 1.10.x and 1.12.x are)", version);
		return;
	}
	memcpy(t->version, version, sizeof(version));
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		if (elf_function_offset(e, fns[i], &t->sel_off[t->nsel])) {
			snprintf(t->sel_why, sizeof(t->sel_why), "%s is not exported", fns[i]);
			t->nsel = 0;
			return;
		}
		t->nsel++;
	}
	t->sel_cookie = 0;
	for (int i = 0; i < DL_H5_OFF_COUNT; i++)
		t->sel_cookie |= (uint64_t)(lay->off[i] / 8) << DL_H5_OFF_SHIFT(i);
}

/*
 * DLTRACE_HDF5_FUNCTIONS (for bench/hdf5_layer_cost.py): the hdf5 layer's
 * functions to probe, comma separated ("H5D__read": the selection probes);
 * unset: all of them.  What each probe costs is measured with it.
 */
static bool hdf5_function_wanted(const char *name)
{
	const char *p = getenv("DLTRACE_HDF5_FUNCTIONS");
	size_t n = strlen(name);

	if (!p)
		return true;
	for (;;) {
		size_t len = strcspn(p, ",");

		if (len == n && !strncmp(p, name, n))
			return true;
		if (!p[len])
			return false;
		p += len + 1;
	}
}

/*
 * Add path as a library of layer (its functions resolved); why says what
 * is wrong when it cannot be used.  0, or -1.
 */
static int add_target(struct library_probes *lp, const char *path, int layer, char *why,
		      size_t whylen)
{
	const struct fn_def *fns = layer_fns(layer);
	struct target *t = &lp->targets[lp->ntargets];
	struct elf_symbols *e;
	struct stat st;
	size_t m = 0;

	if (stat(path, &st)) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < lp->ntargets; i++)
		if (lp->targets[i].dev == st.st_dev && lp->targets[i].ino == st.st_ino)
			return 0; /* the same file under another name */
	if (lp->ntargets == MAX_TARGETS) {
		snprintf(why, whylen, "too many libraries");
		return -1;
	}
	e = elf_symbols_open(path);
	if (!e) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return -1;
	}
	memset(t, 0, sizeof(*t));
	snprintf(t->path, sizeof(t->path), "%s", path);
	t->layer = layer;
	t->dev = st.st_dev;
	t->ino = st.st_ino;
	if (layer == DL_LAYER_MARKERS) {
		bool ok = elf_has_usdt_provider(e, "dltrace");

		elf_symbols_close(e);
		if (!ok) {
			snprintf(why, whylen, "no dltrace USDT probes in %s", path);
			return -1;
		}
		lp->ntargets++;
		return 0;
	}
	t->param = target_param(e, layer);
	for (const struct fn_def *f = fns; f->name; f++) {
		uint64_t off;
		bool alias = false;
		int err;

		if (layer == DL_LAYER_HDF5 && !hdf5_function_wanted(f->name))
			continue;
		err = elf_function_offset(e, f->name, &off);

		if (err) {
			if (m < sizeof(t->missing))
				m += snprintf(t->missing + m, sizeof(t->missing) - m, "%s%s",
					      m ? ", " : "", f->name);
			continue;
		}
		for (size_t i = 0; i < t->nprobes; i++)
			alias |= t->probes[i].off == off;
		if (alias || t->nprobes == MAX_FNS)
			continue;
		t->probes[t->nprobes].off = off;
		t->probes[t->nprobes++].func = f->func;
	}
	if (layer == DL_LAYER_HDF5 && hdf5_function_wanted("H5D__read"))
		h5_selection(e, t);
	else if (layer == DL_LAYER_HDF5)
		snprintf(t->sel_why, sizeof(t->sel_why),
			 "H5D__read is not in DLTRACE_HDF5_FUNCTIONS");
	elf_symbols_close(e);
	if (!t->nprobes) {
		snprintf(why, whylen, "symbol missing: none of %s... in %s", fns[0].name, path);
		return -1;
	}
	lp->ntargets++;
	return 0;
}

/* Libraries named in the dynamic loader's cache (`ldconfig -p`) for this architecture. */
static void ldconfig_each(void (*fn)(const char *name, const char *path, void *ctx), void *ctx)
{
#if defined(__x86_64__)
	const char *arch = "x86-64";
#elif defined(__aarch64__)
	const char *arch = "AArch64";
#else
	const char *arch = NULL;
#endif
	const char *cmd = access("/sbin/ldconfig", X_OK) == 0	    ? "/sbin/ldconfig -p"
			  : access("/usr/sbin/ldconfig", X_OK) == 0 ? "/usr/sbin/ldconfig -p"
								    : "ldconfig -p";
	char line[PATH_MAX + 256];
	FILE *f = popen(cmd, "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *name = line + strspn(line, " \t"), *paren = strstr(name, " ("),
		     *arrow = strstr(name, " => ");

		if (!paren || !arrow || arrow < paren)
			continue;
		*paren = '\0';
		if (arch && !strstr(paren + 1, arch))
			continue;
		arrow[4 + strcspn(arrow + 4, "\n")] = '\0';
		fn(name, arrow + 4, ctx);
	}
	pclose(f);
}

struct scan {
	struct library_probes *lp;
	const char *prefixes[3];
	int layer;
	char why[PATH_MAX + 128]; /* the first problem met */
};

static void scan_one(const char *name, const char *path, void *ctx)
{
	struct scan *s = ctx;
	char why[PATH_MAX + 128];

	for (int i = 0; i < 3 && s->prefixes[i]; i++) {
		size_t n = strlen(s->prefixes[i]);

		if (strncmp(name, s->prefixes[i], n) || !strchr("._", name[n]))
			continue;
		if (add_target(s->lp, path, s->layer, why, sizeof(why)) && !s->why[0])
			snprintf(s->why, sizeof(s->why), "%s", why);
	}
}

static size_t layer_targets(const struct library_probes *lp, int layer)
{
	size_t n = 0;

	for (size_t i = 0; i < lp->ntargets; i++)
		n += lp->targets[i].layer == layer;
	return n;
}

/* The marker library next to dltrace: build/ in a checkout, ../lib when installed. */
static void find_markers(struct library_probes *lp)
{
	char exe[PATH_MAX], path[PATH_MAX + 64], why[PATH_MAX + 128];
	const char *env = getenv("DLTRACE_MARKERS_LIB");
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (env && *env && access(env, R_OK) == 0)
		add_target(lp, env, DL_LAYER_MARKERS, why, sizeof(why));
	if (n <= 0)
		return;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return;
	*slash = '\0';
	snprintf(path, sizeof(path), "%s/%s", exe, MARKERS_LIB);
	if (access(path, R_OK) == 0)
		add_target(lp, path, DL_LAYER_MARKERS, why, sizeof(why));
	snprintf(path, sizeof(path), "%s/../lib/%s", exe, MARKERS_LIB);
	if (access(path, R_OK) == 0 && realpath(path, exe))
		add_target(lp, exe, DL_LAYER_MARKERS, why, sizeof(why));
}

/* The C library the dynamic loader gave dltrace: the one jobs get too. */
static int find_libc(struct library_probes *lp, char *why, size_t whylen)
{
	/* the C library's own fopen: a sanitizer's runtime intercepts the symbol */
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	void *fn = libc ? dlsym(libc, "fopen") : NULL;
	Dl_info info;
	char real[PATH_MAX];

	if (libc)
		dlclose(libc);
	if (!fn)
		fn = (void *)fopen;
	if (!dladdr(fn, &info) || !info.dli_fname || !realpath(info.dli_fname, real)) {
		snprintf(why, whylen, "library not found (where is the C library's fopen?)");
		return -1;
	}
	return add_target(lp, real, DL_LAYER_STDIO, why, whylen);
}

static void describe(struct library_probes *lp, struct layer_plan *plan, int layer)
{
	char *how = lp->how[layer];
	size_t n = 0, size = sizeof(lp->how[layer]), fns = 0;

	n += snprintf(how + n, size - n, "%s",
		      layer == DL_LAYER_MARKERS ? "USDT probes of" : "uprobes on");
	for (size_t i = 0; i < lp->ntargets && n < size; i++) {
		const struct target *t = &lp->targets[i];

		if (t->layer != layer)
			continue;
		n += snprintf(how + n, size - n, " %s", t->path);
		fns += t->nprobes;
		if (t->missing[0] && n < size)
			n += snprintf(how + n, size - n, " (missing: %s)", t->missing);
		if (layer == DL_LAYER_HDF5 && t->nsel && n < size)
			n += snprintf(how + n, size - n, " (HDF5 %s: bytes asked from H5D__read)",
				      t->version);
		else if (layer == DL_LAYER_HDF5 && n < size)
			n += snprintf(how + n, size - n, " (bytes asked unknown: %s)", t->sel_why);
	}
	if (layer != DL_LAYER_MARKERS && n < size)
		snprintf(how + n, size - n, ", %zu functions%s", fns,
			 layer == DL_LAYER_STDIO ? ", per traced process" : "");
	plan->layer[layer].how = how;
}

/* Mark a layer off with its reason (cut to the plan's size: a path may be long). */
static void layer_off(struct layer_plan *plan, int layer, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void layer_off(struct layer_plan *plan, int layer, const char *fmt, ...)
{
	va_list ap;

	plan->layer[layer].active = false;
	va_start(ap, fmt);
	vsnprintf(plan->layer[layer].reason, sizeof(plan->layer[layer].reason), fmt, ap);
	va_end(ap);
}

struct library_probes *library_probes_plan(struct layer_plan *plan, char *const *lib_paths,
					   size_t nlib_paths, bool verbose)
{
	struct library_probes *lp = calloc(1, sizeof(*lp));
	char why[PATH_MAX + 128];

	if (!lp) {
		for (int l = 0; l < DL_LAYER_COUNT; l++)
			if (layer_is_library(l) && plan->layer[l].active)
				layer_off(plan, l, "out of memory");
		return NULL;
	}
	lp->verbose = verbose;
	id_map_init(&lp->procs);
	/* --lib first: a library given by hand wins over one of the same file found */
	for (size_t i = 0; i < nlib_paths; i++) {
		struct elf_symbols *e = elf_symbols_open(lib_paths[i]);
		int layer = e ? classify(e) : -1;

		elf_symbols_close(e);
		if (layer >= 0 && !plan->layer[layer].wanted)
			fprintf(stderr,
				"dltrace: --lib %s: the %s layer is not on (--layers +%s)\n",
				lib_paths[i], layer_name(layer), layer_name(layer));
		else if (layer >= 0 && plan->layer[layer].active &&
			 add_target(lp, lib_paths[i], layer, why, sizeof(why)))
			layer_off(plan, layer, "%s", why);
	}
	if (plan->layer[DL_LAYER_MARKERS].active) {
		struct scan s = {lp, {MARKERS_LIB}, DL_LAYER_MARKERS, ""};

		find_markers(lp);
		ldconfig_each(scan_one, &s);
		if (!layer_targets(lp, DL_LAYER_MARKERS))
			layer_off(plan, DL_LAYER_MARKERS,
				  "library not found (%s: `make` builds it; or give one with "
				  "--lib PATH)",
				  MARKERS_LIB);
	}
	if (plan->layer[DL_LAYER_HDF5].active) {
		struct scan s = {lp, {"libhdf5"}, DL_LAYER_HDF5, ""};

		ldconfig_each(scan_one, &s);
		if (!layer_targets(lp, DL_LAYER_HDF5) && s.why[0])
			layer_off(plan, DL_LAYER_HDF5, "%s", s.why);
		else if (!layer_targets(lp, DL_LAYER_HDF5))
			layer_off(plan, DL_LAYER_HDF5,
				  "library not found (no libhdf5 in ldconfig -p; "
				  "give one with --lib PATH)");
	}
	if (plan->layer[DL_LAYER_MPIIO].active) {
		struct scan s = {lp, {"libmpi", "libmpich"}, DL_LAYER_MPIIO, ""};

		ldconfig_each(scan_one, &s);
		if (!layer_targets(lp, DL_LAYER_MPIIO) && s.why[0])
			layer_off(plan, DL_LAYER_MPIIO, "%s", s.why);
		else if (!layer_targets(lp, DL_LAYER_MPIIO))
			layer_off(plan, DL_LAYER_MPIIO,
				  "library not found (no libmpi or libmpich in "
				  "ldconfig -p; give one with --lib PATH)");
	}
	if (plan->layer[DL_LAYER_STDIO].active && !layer_targets(lp, DL_LAYER_STDIO) &&
	    find_libc(lp, why, sizeof(why)))
		layer_off(plan, DL_LAYER_STDIO, "%s", why);
	for (int l = 0; l < DL_LAYER_COUNT; l++) {
		if (!layer_is_library(l) || !plan->layer[l].active)
			continue;
		describe(lp, plan, l);
		if (verbose)
			fprintf(stderr, "dltrace: %s: %s\n", layer_name(l), plan->layer[l].how);
		else /* a library that lacks some of the layer's functions: one line */
			for (size_t i = 0; i < lp->ntargets; i++) {
				if (lp->targets[i].layer == l && lp->targets[i].missing[0])
					fprintf(
					    stderr,
					    "dltrace: %s: symbols missing in %s: %s (the others "
					    "are traced)\n",
					    layer_name(l), lp->targets[i].path,
					    lp->targets[i].missing);
				if (lp->targets[i].layer == DL_LAYER_HDF5 && l == DL_LAYER_HDF5 &&
				    lp->targets[i].sel_why[0])
					fprintf(stderr,
						"dltrace: hdf5: %s: the bytes H5Dread and H5Dwrite "
						"ask for are not known: %s\n",
						lp->targets[i].path, lp->targets[i].sel_why);
			}
	}
	lp->per_process = plan->layer[DL_LAYER_STDIO].active;
	return lp;
}

static struct bpf_program *program(struct dltrace_bpf *skel, int layer, bool ret)
{
	switch (layer) {
	case DL_LAYER_STDIO:
		return ret ? skel->progs.stdio_return : skel->progs.stdio_entry;
	case DL_LAYER_HDF5:
		return ret ? skel->progs.hdf5_return : skel->progs.hdf5_entry;
	case DL_LAYER_MPIIO:
		return ret ? skel->progs.mpiio_return : skel->progs.mpiio_entry;
	default:
		return NULL;
	}
}

static struct bpf_program *marker_program(struct dltrace_bpf *skel, const char *probe)
{
	if (!strcmp(probe, "region_begin"))
		return skel->progs.markers_region_begin;
	if (!strcmp(probe, "region_end"))
		return skel->progs.markers_region_end;
	if (!strcmp(probe, "instant"))
		return skel->progs.markers_instant;
	return skel->progs.markers_counter;
}

/*
 * Attach target t's functions for pid (-1: every process), returns before
 * entries; links go to set.  0, or -errno with what failed in why.
 */
static int attach_target(struct dltrace_bpf *skel, const struct target *t, pid_t pid,
			 struct link_set *set, char *why, size_t whylen)
{
	for (int ret = 1; ret >= 0; ret--) {
		for (size_t i = 0; i < t->nprobes; i++) {
			LIBBPF_OPTS(bpf_uprobe_opts, o, .retprobe = ret,
				    .bpf_cookie = t->probes[i].func | (uint64_t)t->param << 32);
			struct bpf_link *l;

			if (set->n == sizeof(set->links) / sizeof(set->links[0]))
				return -E2BIG;
			l = bpf_program__attach_uprobe_opts(program(skel, t->layer, ret), pid,
							    t->path, t->probes[i].off, &o);
			if (!l) {
				int e = errno;

				snprintf(why, whylen, "cannot attach a uprobe to %s+0x%llx (%s)",
					 t->path, (unsigned long long)t->probes[i].off,
					 strerror(e));
				return -e;
			}
			set->links[set->n++] = l;
		}
	}
	/* hdf5: where the selections are read, at entry only */
	for (size_t i = 0; i < t->nsel; i++) {
		LIBBPF_OPTS(bpf_uprobe_opts, o, .bpf_cookie = t->sel_cookie);
		struct bpf_link *l;

		if (set->n == sizeof(set->links) / sizeof(set->links[0]))
			return -E2BIG;
		l = bpf_program__attach_uprobe_opts(skel->progs.hdf5_select, pid, t->path,
						    t->sel_off[i], &o);
		if (!l) {
			int e = errno;

			snprintf(why, whylen, "cannot attach a uprobe to %s+0x%llx (%s)", t->path,
				 (unsigned long long)t->sel_off[i], strerror(e));
			return -e;
		}
		set->links[set->n++] = l;
	}
	return 0;
}

static int attach_markers(struct dltrace_bpf *skel, const struct target *t, struct link_set *set,
			  char *why, size_t whylen)
{
	for (size_t i = 0; i < sizeof(marker_probes) / sizeof(marker_probes[0]); i++) {
		struct bpf_link *l =
		    bpf_program__attach_usdt(marker_program(skel, marker_probes[i]), -1, t->path,
					     "dltrace", marker_probes[i], NULL);

		if (!l) {
			int e = errno;

			snprintf(why, whylen, "cannot attach USDT probe dltrace:%s of %s (%s)",
				 marker_probes[i], t->path, strerror(e));
			return -e;
		}
		set->links[set->n++] = l;
	}
	return 0;
}

static void destroy_set(struct link_set *set, bool disconnect)
{
	for (size_t i = 0; i < set->n; i++) {
		if (disconnect)
			bpf_link__disconnect(set->links[i]);
		bpf_link__destroy(set->links[i]);
	}
	set->n = 0;
}

static int keep_links(struct library_probes *lp, struct link_set *set, int layer)
{
	if (lp->nlinks + set->n > lp->cap) {
		size_t cap = (lp->cap ? lp->cap * 2 : 64) + set->n;
		struct bpf_link **links = realloc(lp->links, cap * sizeof(*links));
		int *layers = links ? realloc(lp->link_layer, cap * sizeof(*layers)) : NULL;

		if (links)
			lp->links = links;
		if (!links || !layers)
			return -ENOMEM;
		lp->link_layer = layers;
		lp->cap = cap;
	}
	for (size_t i = 0; i < set->n; i++) {
		lp->link_layer[lp->nlinks] = layer;
		lp->links[lp->nlinks++] = set->links[i];
	}
	set->n = 0;
	return 0;
}

void library_probes_attach(struct library_probes *lp, struct dltrace_bpf *skel,
			   struct layer_plan *plan)
{
	char why[PATH_MAX + 128];

	if (!lp || lp->attached)
		return;
	lp->skel = skel;
	lp->attached = true;
	for (int l = 0; l < DL_LAYER_COUNT; l++) {
		if (!layer_is_library(l) || l == DL_LAYER_STDIO || !plan->layer[l].active)
			continue;
		for (size_t i = 0; i < lp->ntargets; i++) {
			const struct target *t = &lp->targets[i];
			struct link_set set = {0};
			int err = t->layer != l ? 0
				  : l == DL_LAYER_MARKERS
				      ? attach_markers(skel, t, &set, why, sizeof(why))
				      : attach_target(skel, t, -1, &set, why, sizeof(why));

			if (!err)
				err = keep_links(lp, &set, l);
			if (!err)
				continue;
			/* drop the layer: detach what it already attached */
			destroy_set(&set, false);
			layer_off(plan, l, "%s", err == -ENOMEM ? "out of memory" : why);
			for (size_t k = 0; k < lp->nlinks; k++) {
				if (lp->link_layer[k] != l)
					continue;
				bpf_link__destroy(lp->links[k]);
				lp->links[k] = lp->links[--lp->nlinks];
				lp->link_layer[k--] = lp->link_layer[lp->nlinks];
			}
			break;
		}
	}
	lp->st.system_links = lp->nlinks;
	lp->per_process = plan->layer[DL_LAYER_STDIO].active;
}

void library_probes_add_process(struct library_probes *lp, pid_t tgid)
{
	struct link_set *set, *old;
	char why[PATH_MAX + 128];
	uint64_t t0;

	if (!lp || !lp->per_process || !lp->attached || tgid <= 0)
		return;
	old = id_map_get(&lp->procs, tgid);
	if (old && old != GONE)
		return;
	set = calloc(1, sizeof(*set));
	if (!set)
		return;
	t0 = mono_ns();
	for (size_t i = 0; i < lp->ntargets; i++) {
		const struct target *t = &lp->targets[i];
		int err;

		if (t->layer != DL_LAYER_STDIO)
			continue;
		err = attach_target(lp->skel, t, tgid, set, why, sizeof(why));
		if (!err)
			continue;
		lp->st.failed++;
		/* a process that has already exited is no news */
		if (err != -ESRCH && !lp->warned) {
			lp->warned = true;
			fprintf(stderr, "dltrace: stdio layer, process %d: %s\n", (int)tgid, why);
		}
		destroy_set(set, false);
		free(set);
		id_map_put(&lp->procs, tgid, GONE);
		return;
	}
	lp->attach_ns += mono_ns() - t0;
	lp->st.processes++;
	id_map_put(&lp->procs, tgid, set);
}

struct detach_job {
	struct link_set **sets;
	size_t n;
};

static void *detach_sets(void *arg)
{
	struct detach_job *job = arg;

	for (size_t i = 0; i < job->n; i++) {
		destroy_set(job->sets[i], false);
		free(job->sets[i]);
	}
	free(job->sets);
	free(job);
	return NULL;
}

static int detaching; /* detach threads running */

static void *detach_thread(void *arg)
{
	detach_sets(arg);
	__atomic_sub_fetch(&detaching, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

bool library_probes_detaching(void)
{
	return __atomic_load_n(&detaching, __ATOMIC_SEQ_CST) > 0;
}

/*
 * Detaching takes the kernel tens of milliseconds per link: exited
 * processes' links go to a background thread, one batch at a time.
 */
static void flush_pending(struct library_probes *lp)
{
	struct detach_job *job;
	pthread_t thread;

	if (!lp->npending || __atomic_load_n(&detaching, __ATOMIC_SEQ_CST))
		return;
	job = malloc(sizeof(*job));
	if (!job)
		return;
	job->sets = lp->pending;
	job->n = lp->npending;
	lp->pending = NULL;
	lp->npending = lp->pending_cap = 0;
	__atomic_add_fetch(&detaching, 1, __ATOMIC_SEQ_CST);
	if (pthread_create(&thread, NULL, detach_thread, job)) {
		__atomic_sub_fetch(&detaching, 1, __ATOMIC_SEQ_CST);
		detach_sets(job);
		return;
	}
	pthread_detach(thread);
}

static void remove_process(struct library_probes *lp, uint32_t tgid)
{
	struct link_set *set = id_map_get(&lp->procs, tgid);

	if (!set || set == GONE)
		return;
	id_map_put(&lp->procs, tgid, GONE);
	if (lp->npending == lp->pending_cap) {
		size_t cap = lp->pending_cap ? lp->pending_cap * 2 : 16;
		struct link_set **p = realloc(lp->pending, cap * sizeof(*p));

		if (!p) {
			destroy_set(set, false);
			free(set);
			return;
		}
		lp->pending = p;
		lp->pending_cap = cap;
	}
	lp->pending[lp->npending++] = set;
	flush_pending(lp);
}

void library_probes_record(struct library_probes *lp, const void *rec, size_t size)
{
	const struct dl_hdr *h = rec;

	if (!lp || !lp->per_process || !lp->attached || size < sizeof(*h) || !h->job)
		return;
	if (h->kind == DL_EV_FORK) {
		if (!(h->flags & DL_F_THREAD))
			library_probes_add_process(lp, h->tgid);
	} else if (h->kind == DL_EV_EXIT) {
		if (h->flags & DL_F_GROUP_DEAD)
			remove_process(lp, h->tgid);
		flush_pending(lp);
	} else if (h->tgid != lp->last_tgid) {
		/* a process seen for the first time (e.g. one that joined the job's cgroup) */
		lp->last_tgid = h->tgid;
		if (!id_map_get(&lp->procs, h->tgid))
			library_probes_add_process(lp, h->tgid);
	}
}

size_t library_probes_take_links(struct library_probes *lp, struct bpf_link ***out)
{
	struct bpf_link **links;
	size_t n = 0, total = 0;
	uint32_t key;
	void *v;

	*out = NULL;
	if (!lp)
		return 0;
	total = lp->nlinks;
	for (size_t i = 0; id_map_next(&lp->procs, &i, &key, &v);)
		total += v == GONE ? 0 : ((struct link_set *)v)->n;
	for (size_t i = 0; i < lp->npending; i++)
		total += lp->pending[i]->n;
	links = malloc((total ? total : 1) * sizeof(*links));
	if (!links)
		return 0;
	for (size_t i = 0; i < lp->nlinks; i++)
		links[n++] = lp->links[i];
	lp->nlinks = 0;
	for (size_t i = 0; id_map_next(&lp->procs, &i, &key, &v);) {
		struct link_set *set = v;

		if (v == GONE)
			continue;
		for (size_t k = 0; k < set->n; k++)
			links[n++] = set->links[k];
		free(set);
	}
	/* processes are attached again when next seen */
	id_map_free(&lp->procs);
	id_map_init(&lp->procs);
	lp->last_tgid = 0;
	for (size_t i = 0; i < lp->npending; i++) {
		for (size_t k = 0; k < lp->pending[i]->n; k++)
			links[n++] = lp->pending[i]->links[k];
		free(lp->pending[i]);
	}
	lp->npending = 0;
	lp->attached = false;
	*out = links;
	return n;
}

/*
 * libbpf 1.1 frees a USDT link's uprobe links only when it detaches them,
 * so a disconnected USDT link (the markers') would leak them.  Disconnected
 * links are those another process detaches while this one exits: keep the
 * USDT ones referenced until the exit instead.
 */
static struct bpf_link **parked;
static size_t nparked;

static void park_usdt_links(struct library_probes *lp)
{
	size_t n = 0;
	struct bpf_link **more;

	for (size_t k = 0; k < lp->nlinks; k++)
		n += lp->link_layer[k] == DL_LAYER_MARKERS;
	more = n ? realloc(parked, (nparked + n) * sizeof(*parked)) : NULL;
	if (!more)
		return; /* then they are disconnected and freed with the others */
	parked = more;
	for (size_t k = 0; k < lp->nlinks; k++) {
		if (lp->link_layer[k] != DL_LAYER_MARKERS)
			continue;
		parked[nparked++] = lp->links[k];
		lp->links[k] = lp->links[--lp->nlinks];
		lp->link_layer[k--] = lp->link_layer[lp->nlinks];
	}
}

void library_probes_detach(struct library_probes *lp, bool disconnect)
{
	struct bpf_link **links;
	size_t n;

	if (disconnect && lp)
		park_usdt_links(lp);
	n = library_probes_take_links(lp, &links);

	for (size_t i = 0; i < n; i++) {
		if (disconnect)
			bpf_link__disconnect(links[i]);
		bpf_link__destroy(links[i]);
	}
	free(links);
}

void library_probes_free(struct library_probes *lp)
{
	if (!lp)
		return;
	library_probes_detach(lp, false);
	id_map_free(&lp->procs);
	free(lp->links);
	free(lp->link_layer);
	free(lp->pending);
	free(lp);
}

void library_probes_stats(const struct library_probes *lp, struct library_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!lp)
		return;
	*st = lp->st;
	st->attach_ms = lp->attach_ns / 1e6;
}
