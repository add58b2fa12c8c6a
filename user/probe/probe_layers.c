// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "probe/probe_layers.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/btf_names.h"
#include "probe/system_checks.h"

const struct layer_info layer_table[DL_LAYER_COUNT] = {
    {DL_LAYER_SYSCALL,
     "syscall",
     true,
     {"dl_enter_", "dl_exit_"},
     "the file syscalls, and each native AIO request",
     "syscall tracepoints (sys_enter_*, sys_exit_*), BTF",
     "a program on each traced syscall of every process; untraced ones leave at its first "
     "check"},
    {DL_LAYER_VFS,
     "vfs",
     true,
     {"vfs_"},
     "vfs_read, vfs_write, vfs_fsync_range, vfs_open and rw_verify_area calls",
     "fentry/fexit, else kprobes (--vfs-attach forces one)",
     "a program on each of those calls of every process"},
    {DL_LAYER_MMAP,
     "mmap",
     true,
     {"mmap_"},
     "page faults that bring a page of a mapped file in: file, offset, address",
     "x86 exceptions:page_fault_user with bpf_find_vma, else filemap:mm_filemap_fault",
     "a program on each page fault of every process"},
    {DL_LAYER_CACHE,
     "cache",
     true,
     {"cache_"},
     "per read, the bytes it (or its readahead) brought into the page cache: cache_miss_bytes",
     "filemap:mm_filemap_add_to_page_cache",
     "a program on each page added to the page cache"},
    {DL_LAYER_BLOCK,
     "block",
     true,
     {"block_"},
     "every block request, issue to completion, on a track per device, and a throughput "
     "counter",
     "block_rq_issue and block_rq_complete, the issuer from block_getrq and "
     "block_bio_frontmerge (tp_btf)",
     "a program on each block request; every process's, while a job is traced"},
    {DL_LAYER_URING,
     "uring",
     true,
     {"uring_"},
     "io_uring requests of traced tasks, submission to completion (op, file, offset, length, "
     "result)",
     "io_uring_submit_req (or io_uring_submit_sqe) and io_uring_complete",
     "a program on each io_uring request of every process"},
    {DL_LAYER_MARKERS,
     "markers",
     true,
     {"markers_"},
     "the job's own phases: regions (epoch, step, fetch, checkpoint, ...) with their "
     "arguments, instants, counters",
     "USDT probes of libdltrace_markers.so, for every process",
     "only jobs that load the marker library, once per marker"},
    {DL_LAYER_STDIO,
     "stdio",
     false,
     {"stdio_"},
     "fopen, fdopen, fread, fwrite, fseek, ftell, fflush, fclose, fgets, fputs",
     "uprobes on libc, per traced process",
     "every call of those functions in a traced process traps into the kernel"},
    {DL_LAYER_HDF5,
     "hdf5",
     false,
     {"hdf5_"},
     "H5Fcreate, H5Fopen, H5Dopen2, H5Oopen, H5Gopen2, H5Dread, H5Dwrite, the closes: path, "
     "dataset name, hid, result; the bytes each read or write asks for",
     "uprobes on every libhdf5 of ldconfig -p (and --lib), for every process",
     "every call of those functions traps into the kernel, in untraced processes too"},
    {DL_LAYER_MPIIO,
     "mpiio",
     false,
     {"mpiio_"},
     "MPI_File_open, _read/_write[_at][_all], _sync, _set_view, _close: path, offset, count and "
     "bytes",
     "uprobes on libmpi or libmpich (and --lib), for every process",
     "every call of those functions traps into the kernel, in untraced processes too"},
};

/* The row of layer l. */
static const struct layer_info *row_of(int l)
{
	for (int i = 0; i < DL_LAYER_COUNT; i++)
		if ((int)layer_table[i].id == l)
			return &layer_table[i];
	return NULL;
}

const char *layer_name(enum dl_layer l)
{
	const struct layer_info *r = row_of(l);

	return r ? r->name : "?";
}

unsigned layers_default(void)
{
	unsigned mask = 0;

	for (int i = 0; i < DL_LAYER_COUNT; i++)
		if (layer_table[i].on)
			mask |= 1u << layer_table[i].id;
	return mask;
}

unsigned layers_default_counted(void)
{
	return layers_default() & ~(1u << DL_LAYER_VFS);
}

int layers_parse(const char *list, unsigned *mask, char *err, size_t errlen)
{
	char buf[256], *save = NULL, *tok;

	*mask = 0;
	if (strlen(list) >= sizeof(buf)) {
		snprintf(err, errlen, "--layers: list too long");
		return -1;
	}
	strcpy(buf, list);
	/* "+x,-y": changes to the default set */
	if (buf[0] == '+' || buf[0] == '-')
		*mask = layers_default();
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char sign = *tok == '+' || *tok == '-' ? *tok++ : 0;
		unsigned bits = 0;

		if (strcmp(tok, "all") == 0) {
			bits = LAYERS_ALL;
		} else if (strcmp(tok, "default") == 0) {
			bits = layers_default();
		} else {
			for (int i = 0; i < DL_LAYER_COUNT; i++)
				if (strcmp(tok, layer_table[i].name) == 0)
					bits = 1u << layer_table[i].id;
		}
		if (!bits) {
			char known[160];
			size_t n = 0;

			for (int i = 0; i < DL_LAYER_COUNT; i++)
				n += snprintf(known + n, sizeof(known) - n, "%s, ",
					      layer_table[i].name);
			snprintf(err, errlen,
				 "--layers: unknown layer '%s' (choose from %sall, default; +LAYER "
				 "or -LAYER change the default set)",
				 tok, known);
			return -1;
		}
		if (sign == '-')
			*mask &= ~bits;
		else
			*mask |= bits;
	}
	if (!*mask) {
		snprintf(err, errlen, "--layers needs at least one layer");
		return -1;
	}
	return 0;
}

/*
 * The kernel's functions and typedefs by name: one lean pass over
 * /sys/kernel/btf/vmlinux (lib/btf_names.h says why), libbpf's full parse
 * when that file is missing or holds what the pass does not know.
 */
struct kernel_types {
	const void *blob;
	size_t size;
	bool mapped; /* blob is an mmap of the file (6.16 on), else a malloc'd copy */
	struct btf_names *names;
	struct btf *btf; /* the fallback */
};

/* The kernel's BTF: mapped where the kernel allows it, else read (about 25 ms more). */
static const void *kernel_btf_blob(size_t *size, bool *mapped)
{
	struct stat st;
	char *buf = NULL;
	size_t got = 0;
	void *map;
	int fd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) || st.st_size <= 0)
		goto fail;
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map != MAP_FAILED) {
		close(fd);
		*size = st.st_size;
		*mapped = true;
		return map;
	}
	if (!(buf = malloc(st.st_size)))
		goto fail;
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	if (got != (size_t)st.st_size)
		goto fail;
	close(fd);
	*size = got;
	*mapped = false;
	return buf;
fail:
	free(buf);
	if (fd >= 0)
		close(fd);
	return NULL;
}

static const struct kernel_types *kernel_types(void)
{
	static struct kernel_types kt;
	static bool tried;

	if (tried)
		return &kt;
	tried = true;
	kt.blob = kernel_btf_blob(&kt.size, &kt.mapped);
	kt.names = btf_names__parse(kt.blob, kt.size);
	if (!kt.names) {
		if (kt.mapped)
			munmap((void *)kt.blob, kt.size);
		else
			free((void *)kt.blob);
		kt.blob = NULL;
		kt.btf = btf__load_vmlinux_btf();
		if (libbpf_get_error(kt.btf))
			kt.btf = NULL;
	}
	return &kt;
}

/* The id of the kernel's type of kind (FUNC or TYPEDEF) named name; <= 0 if none. */
static int kernel_type_id(const char *name, int kind)
{
	const struct kernel_types *kt = kernel_types();

	if (kt->names)
		return btf_names__find(kt->names, name, kind);
	return kt->btf ? btf__find_by_name_kind(kt->btf, name, kind) : -1;
}

static bool btf_has(const char *name, int kind)
{
	return kernel_type_id(name, kind) > 0;
}

static bool tp_btf_exists(const char *tp)
{
	char name[128];

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	return btf_has(name, BTF_KIND_TYPEDEF);
}

/*
 * Can a fentry program be loaded and attached here?  0, or -errno.  The
 * raw syscall with a whole zeroed bpf_attr keeps valgrind content.
 */
static int fentry_works(void)
{
	const struct bpf_insn insns[] = {
	    {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0}, /* r0 = 0 */
	    {.code = BPF_JMP | BPF_EXIT},
	};
	union bpf_attr attr;
	int id, fd, link, err;

	id = kernel_type_id("vfs_read", BTF_KIND_FUNC);
	if (id <= 0)
		return -ENOENT;
	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_TRACING;
	attr.expected_attach_type = BPF_TRACE_FENTRY;
	attr.attach_btf_id = id;
	attr.insns = (uintptr_t)insns;
	attr.insn_cnt = sizeof(insns) / sizeof(insns[0]);
	attr.license = (uintptr_t) "GPL";
	fd = syscall(SYS_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
	if (fd < 0)
		return -errno;
	memset(&attr, 0, sizeof(attr));
	attr.raw_tracepoint.prog_fd = fd;
	link = syscall(SYS_bpf, BPF_RAW_TRACEPOINT_OPEN, &attr, sizeof(attr));
	err = link < 0 ? -errno : 0;
	if (link >= 0)
		close(link);
	close(fd);
	return err;
}

static bool kprobes_work(void)
{
	char path[256];

	if (access("/sys/bus/event_source/devices/kprobe/type", F_OK) == 0)
		return true;
	snprintf(path, sizeof(path), "%s/kprobe_events", tracefs_dir());
	return access(path, F_OK) == 0;
}

/* Uprobes (and so USDT probes): the perf PMU, or tracefs uprobe_events. */
static bool uprobes_work(void)
{
	char path[256];

	if (access("/sys/bus/event_source/devices/uprobe/type", F_OK) == 0)
		return true;
	snprintf(path, sizeof(path), "%s/uprobe_events", tracefs_dir());
	return access(path, F_OK) == 0;
}

static void unavailable(struct layer_state *s, const char *fmt, const char *arg)
{
	s->active = false;
	snprintf(s->reason, sizeof(s->reason), fmt, arg);
}

void layers_plan(struct layer_plan *plan, unsigned wanted, enum vfs_attach vfs)
{
	struct layer_state *s;
	int fentry = 0;
	bool kprobe = false;

	memset(plan, 0, sizeof(*plan));
	plan->vfs = vfs;
	for (int l = 0; l < DL_LAYER_COUNT; l++) {
		plan->layer[l].wanted = wanted & (1u << l);
		plan->layer[l].active = plan->layer[l].wanted;
		if (!plan->layer[l].wanted)
			snprintf(plan->layer[l].reason, sizeof(plan->layer[l].reason),
				 "not selected");
	}
	plan->layer[DL_LAYER_SYSCALL].how = "syscall tracepoints";

	s = &plan->layer[DL_LAYER_MMAP];
	if (s->wanted) {
		if (tp_btf_exists("page_fault_user"))
			s->how = "exceptions:page_fault_user";
		else if (tracepoint_exists("filemap", "mm_filemap_fault"))
			s->how = "filemap:mm_filemap_fault";
		else
			unavailable(s, "%sno page fault tracepoint in this kernel", "");
	}
	s = &plan->layer[DL_LAYER_CACHE];
	if (s->wanted) {
		if (tracepoint_exists("filemap", "mm_filemap_add_to_page_cache"))
			s->how = "filemap:mm_filemap_add_to_page_cache";
		else
			unavailable(s, "%sno filemap:mm_filemap_add_to_page_cache tracepoint", "");
	}
	s = &plan->layer[DL_LAYER_BLOCK];
	if (s->wanted) {
		if (tp_btf_exists("block_rq_issue") && tp_btf_exists("block_rq_complete") &&
		    tp_btf_exists("block_getrq") && tp_btf_exists("block_bio_frontmerge"))
			s->how = "block:block_rq_issue/complete";
		else
			unavailable(s,
				    "%sno block_rq_issue/complete, block_getrq or "
				    "block_bio_frontmerge tracepoint with BTF",
				    "");
	}
	s = &plan->layer[DL_LAYER_URING];
	if (s->wanted) {
		/* the submit tracepoint was io_uring_submit_sqe before 6.0 */
		bool complete = tracepoint_exists("io_uring", "io_uring_complete");

		if (complete && tracepoint_exists("io_uring", "io_uring_submit_req"))
			s->how = "io_uring:io_uring_submit_req/complete";
		else if (complete && tracepoint_exists("io_uring", "io_uring_submit_sqe"))
			s->how = "io_uring:io_uring_submit_sqe/complete";
		else
			unavailable(s, "%sno io_uring submit/complete tracepoints", "");
	}
	for (int l = 0; l < DL_LAYER_COUNT; l++) {
		s = &plan->layer[l];
		if (!layer_is_library(l) || !s->wanted)
			continue;
		if (uprobes_work())
			s->how = l == DL_LAYER_MARKERS ? "USDT" : "uprobes";
		else
			unavailable(s, "%suprobes unavailable (CONFIG_UPROBES off?)", "");
	}
	s = &plan->layer[DL_LAYER_VFS];
	if (s->wanted) {
		if (vfs != VFS_ATTACH_KPROBE)
			fentry = fentry_works();
		if (vfs != VFS_ATTACH_FENTRY)
			kprobe = kprobes_work();
		if (vfs != VFS_ATTACH_KPROBE && fentry == 0) {
			s->how = "fentry/fexit";
		} else if (vfs != VFS_ATTACH_FENTRY && kprobe) {
			s->how = "kprobe/kretprobe";
		} else {
			char why[160];

			if (vfs == VFS_ATTACH_KPROBE)
				snprintf(why, sizeof(why),
					 "kprobes unavailable (CONFIG_KPROBES off?)");
			else if (vfs == VFS_ATTACH_FENTRY)
				snprintf(why, sizeof(why), "fentry refused (%s)",
					 strerror(-fentry));
			else
				snprintf(why, sizeof(why),
					 "fentry refused (%s) and kprobes unavailable "
					 "(CONFIG_KPROBES off?)",
					 strerror(-fentry));
			unavailable(s, "%s", why);
		}
	}
}

int layer_of_program(const struct bpf_program *prog)
{
	const char *name = bpf_program__name(prog);

	for (int i = 0; i < DL_LAYER_COUNT; i++)
		for (int k = 0; k < 3 && layer_table[i].prefixes[k]; k++)
			if (!strncmp(name, layer_table[i].prefixes[k],
				     strlen(layer_table[i].prefixes[k])))
				return layer_table[i].id;
	return -1;
}

/* Does the kernel have what this program attaches to? */
static bool target_exists(const struct bpf_program *prog)
{
	const char *sec = bpf_program__section_name(prog);
	char category[64], name[128];
	const char *fn;

	if (sscanf(sec, "tracepoint/%63[^/]/%127s", category, name) == 2)
		return tracepoint_exists(category, name);
	if (strncmp(sec, "tp_btf/", 7) == 0)
		return tp_btf_exists(sec + 7);
	fn = strchr(sec, '/');
	if (fn && (!strncmp(sec, "fentry/", 7) || !strncmp(sec, "fexit/", 6) ||
		   !strncmp(sec, "kprobe/", 7) || !strncmp(sec, "kretprobe/", 10)))
		return btf_has(fn + 1, BTF_KIND_FUNC);
	return true;
}

bool layer_program_enabled(const struct layer_plan *plan, const struct bpf_program *prog)
{
	const char *name = bpf_program__name(prog);
	const struct layer_state *s;
	int l = layer_of_program(prog);

	if (l < 0)
		return target_exists(prog); /* core: process following */
	s = &plan->layer[l];
	if (!s->active || !target_exists(prog))
		return false;
	if (l == DL_LAYER_MMAP) /* one fault source; mremap matters to the first's memory */
		return strcmp(s->how, "exceptions:page_fault_user") == 0
			   ? strcmp(name, "mmap_fault_user") == 0 || strcmp(name, "mmap_remap") == 0
			   : strcmp(name, "mmap_fault_filemap") == 0;
	if (l == DL_LAYER_VFS) {
		bool fentry_prog =
		    !strncmp(name, "vfs_fentry_", 11) || !strncmp(name, "vfs_fexit_", 10);

		return strcmp(s->how, "fentry/fexit") == 0 ? fentry_prog : !fentry_prog;
	}
	return true;
}

void layers_attach_methods(const struct layer_plan *plan, char *out, size_t len)
{
	size_t n = 0;

	out[0] = '\0';
	for (int i = 0; i < DL_LAYER_COUNT; i++) {
		const struct layer_state *s = &plan->layer[layer_table[i].id];

		if (s->active && s->how && n < len)
			n += snprintf(out + n, len - n, "%s%s: %s", n ? "; " : "",
				      layer_table[i].name, s->how);
	}
}

void layers_describe(const struct layer_plan *plan, char *active, size_t alen, char *missing,
		     size_t mlen)
{
	size_t a = 0, m = 0;

	active[0] = missing[0] = '\0';
	for (int i = 0; i < DL_LAYER_COUNT; i++) {
		const struct layer_state *s = &plan->layer[layer_table[i].id];
		const char *name = layer_table[i].name;

		if (s->active && a < alen)
			a += snprintf(active + a, alen - a, "%s%s", a ? "," : "", name);
		else if (s->wanted && !s->active && m < mlen)
			m += snprintf(missing + m, mlen - m, "%s%s: %s", m ? "; " : "", name,
				      s->reason);
	}
}
