// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include "probe/python_probe.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "bpf/dltrace_events.h"
#include "dltrace.skel.h"
#include "event/syscall_table.h"
#include "probe/program_files.h"
#include "lib/clock_ns.h"

struct py_probe_file {
	uint64_t ino;
	uint32_t dev;
	bool said; /* its warning was given */
};

/*
 * The kinds that carry a stack id (bpf/syscalls.def): those of programs of
 * their own that can, and the shared rows of PY_PATH or PY_ARG.
 */
uint64_t py_probe_default_kinds(void)
{
	uint64_t mask = 0;

	for (unsigned k = 0; k < DL_SYS_COUNT && k < 64; k++)
		if (syscall_info(k)->shared
			? (dl_kind_roles(k) & (DL_ROLE_PY_PATH | DL_ROLE_PY_ARG)) != 0
			: dl_py_kind_ok(k))
			mask |= 1ull << k;
	return mask;
}

int py_probe_options(struct probe_options *o, uint64_t kinds, char *err, size_t errlen)
{
#if !defined(__x86_64__)
	snprintf(err, errlen, "--python-stacks: only on x86_64 (the thread pointer is fsbase)");
	return -1;
#endif
	if (py_pthread_specific_offset(&o->pthread_specific)) {
		snprintf(err, errlen,
			 "--python-stacks: glibc's pthread_getspecific table was not found in "
			 "struct pthread (not glibc?)");
		return -1;
	}
	o->python_stacks = true;
	o->python_kinds = kinds;
	return 0;
}

static void no_warn(void *ctx, const char *line)
{
	(void)ctx;
	(void)line;
}

int py_probe_init(struct py_probe *pp, struct probes *p, void (*warn)(void *, const char *),
		  void *warn_ctx, char *err, size_t errlen)
{
	const struct py_version_layout *v;
	size_t n;
	int fd;

	memset(pp, 0, sizeof(*pp));
	pp->probes = p;
	pp->warn = warn ? warn : no_warn;
	pp->warn_ctx = warn_ctx;
	fd = bpf_map__fd(p->skel->maps.py_layouts);
	v = py_layouts(&n);
	for (uint32_t i = 0; i < n && i < DL_PY_LAYOUTS; i++) {
		if (bpf_map_update_elem(fd, &i, &v[i].layout, BPF_ANY)) {
			snprintf(err, errlen, "cannot load the Python layouts: %s",
				 strerror(errno));
			return -1;
		}
		pp->slots[pp->nslots++] = v[i].layout;
	}
	return 0;
}

void py_probe_visit(pid_t pid, void *pp)
{
	py_probe_process(pp, pid);
}

void py_probe_poll(struct py_probe *pp)
{
	uint64_t now = pp->npend ? mono_ns() : 0;

	for (int i = 0; i < pp->npend; i++) {
		int r = py_probe_process(pp, pp->pend[i].pid);

		if (r != 0 || now > pp->pend[i].until)
			pp->pend[i--] = pp->pend[--pp->npend];
	}
}

void py_probe_free(struct py_probe *pp)
{
	free(pp->files);
	pp->files = NULL;
	pp->nfiles = pp->capfiles = 0;
}

/* The file's entry; created on first sight. */
static struct py_probe_file *file_entry(struct py_probe *pp, uint32_t dev, uint64_t ino)
{
	for (size_t i = 0; i < pp->nfiles; i++)
		if (pp->files[i].dev == dev && pp->files[i].ino == ino)
			return &pp->files[i];
	if (pp->nfiles == pp->capfiles) {
		size_t cap = pp->capfiles ? 2 * pp->capfiles : 16;
		struct py_probe_file *f = realloc(pp->files, cap * sizeof(*f));

		if (!f)
			return NULL;
		pp->files = f;
		pp->capfiles = cap;
	}
	pp->files[pp->nfiles] = (struct py_probe_file){.ino = ino, .dev = dev};
	return &pp->files[pp->nfiles++];
}

/* The kernel's slot for a layout (a 3.13 build's corrected one gets its own). */
static int layout_slot(struct py_probe *pp, const struct dl_py_layout *l)
{
	uint32_t i;

	for (i = 0; i < pp->nslots; i++)
		if (!memcmp(&pp->slots[i], l, sizeof(*l)))
			return i;
	if (pp->nslots == DL_PY_LAYOUTS ||
	    bpf_map_update_elem(bpf_map__fd(pp->probes->skel->maps.py_layouts), &i, l, BPF_ANY))
		return -1;
	pp->slots[pp->nslots++] = *l;
	return i;
}

/*
 * Tell the kernel side that file (dev, ino) holds the CPython b: its
 * layout's slot, or -1 when the layout has none.  A full py_bins only
 * costs the file's next processes their recognition in the kernel (user
 * space still finds them), so it is no failure.
 */
static int add_bin(struct py_probe *pp, uint32_t dev, uint64_t ino, const struct py_binary *b)
{
	struct dl_py_file key = {.ino = ino, .dev = dev};
	struct dl_py_bin bin = {0};
	int slot = layout_slot(pp, &b->own);

	if (slot < 0)
		return -1;
	bin.runtime = b->runtime;
	bin.text_vaddr = b->text_vaddr;
	bin.first_vaddr = b->first_vaddr;
	bin.layout = slot;
	bin.kind = b->exe ? DL_PY_BIN_EXE : DL_PY_BIN_LIB;
	bin.pie = b->pie;
	bpf_map_update_elem(bpf_map__fd(pp->probes->skel->maps.py_bins), &key, &bin, BPF_ANY);
	return slot;
}

/*
 * The one line said of an interpreter file that gets no stacks (an
 * unsupported or unreadable CPython) or a corrected layout: once per file,
 * whichever of its processes is seen first.
 */
static void say_file(struct py_probe *pp, const char *path, uint32_t dev, uint64_t ino, pid_t pid,
		     const struct py_binary *b)
{
	struct py_probe_file *file;
	char line[1024];

	if (!b->python || (b->layout >= 0 && !b->note[0]))
		return;
	file = file_entry(pp, dev, ino);
	if (!file || file->said)
		return;
	snprintf(line, sizeof(line), "python stacks: %s (pid %d, CPython %s): %s%s", path, (int)pid,
		 b->version[0] ? b->version : "?", b->note,
		 b->layout < 0 ? "; its events have no Python stack" : "");
	pp->warn(pp->warn_ctx, line);
	file->said = true;
}

/*
 * A file that may hold a CPython, looked at before or without a process
 * mapping it: said when unsupported, given to the kernel side when
 * supported.  1 when it is a CPython (supported or not), 0 when not, -1
 * when it cannot be read.
 */
static int look_at_file(struct py_probe *pp, const char *path, pid_t pid)
{
	struct py_binary b;
	struct stat st;
	uint32_t dev;

	if (stat(path, &st))
		return -1;
	/* the kernel's encoding of a device number (MKDEV), as in /proc/PID/maps */
	dev = major(st.st_dev) << 20 | minor(st.st_dev);
	if (py_binary_inspect_cached(path, path, dev, st.st_ino, &b))
		return -1;
	if (!b.python)
		return 0;
	say_file(pp, path, dev, st.st_ino, pid, &b);
	if (b.layout >= 0)
		add_bin(pp, dev, st.st_ino, &b);
	return 1;
}

/* The program `file` runs (through "#!" lines) and the libpython it needs, looked at. */
static void look_at_program(struct py_probe *pp, const char *file, pid_t pid)
{
	char exe[PATH_MAX], lib[PATH_MAX];

	if (program_resolve(file, exe, sizeof(exe)) || look_at_file(pp, exe, pid) != 0)
		return;
	if (!program_needed_find(exe, "libpython", lib, sizeof(lib)))
		look_at_file(pp, lib, pid);
}

void py_probe_command(struct py_probe *pp, const char *argv0, pid_t pid)
{
	look_at_program(pp, argv0, pid);
}

int py_probe_process(struct py_probe *pp, pid_t pid)
{
	struct dltrace_bpf *skel = pp->probes->skel;
	struct py_process proc;
	struct dl_py_proc entry = {0};
	uint32_t tgid = pid;
	int r, slot;

	r = py_process_find(pid, &proc);
	if (r <= 0)
		return r;
	say_file(pp, proc.path, proc.dev, proc.ino, pid, &proc.bin);
	if (proc.bin.layout < 0)
		return 0;
	/* the file: the kernel side finds its next processes by itself */
	slot = add_bin(pp, proc.dev, proc.ino, &proc.bin);
	if (slot < 0)
		return 0;
	/* the process, unless the kernel side has found it already */
	entry.runtime = proc.runtime;
	entry.layout = slot;
	entry.gen = __atomic_add_fetch(&skel->bss->py_next_gen, 1, __ATOMIC_SEQ_CST);
	entry.next_stack = 1;
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.py_procs), &tgid, &entry, BPF_NOEXIST))
		return errno == EEXIST; /* the kernel side follows it already */
	__atomic_add_fetch(&skel->bss->py_procs_gen, 1, __ATOMIC_SEQ_CST);
	pp->processes++;
	return 1;
}

void py_probe_exec(struct py_probe *pp, const void *exec_record, size_t size)
{
	const struct dl_proc *e = exec_record;
	uint64_t until = mono_ns() + PY_PROBE_PEND_NS;
	pid_t pid = e->h.tgid;
	const char *file = e->data;
	size_t len = e->file_len;
	char path[PATH_MAX];

	if (size < sizeof(*e) + len)
		len = 0;
	/*
	 * The program's file, from the exec record: an interpreter that is gone
	 * before /proc/PID/maps is read (python -c pass) is still said.  The
	 * name is resolved in the process's root and directory while it lives
	 * (a container's), in dltrace's own once it is gone.
	 */
	if (len && len < sizeof(path) - 32) {
		snprintf(path, sizeof(path), "/proc/%d/%s%.*s", (int)pid,
			 file[0] == '/' ? "root" : "cwd/", (int)len, file);
		if (access(path, F_OK) && file[0] == '/')
			snprintf(path, sizeof(path), "%.*s", (int)len, file);
		look_at_program(pp, path, pid);
	}
	for (int i = 0; i < pp->npend; i++)
		if (pp->pend[i].pid == pid) {
			pp->pend[i].until = until;
			return;
		}
	if (pp->npend < PY_PROBE_PEND_MAX)
		pp->pend[pp->npend++] = (struct py_probe_pending){pid, until};
	py_probe_poll(pp);
}
