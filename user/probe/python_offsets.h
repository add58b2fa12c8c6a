/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * CPython interpreters: which versions the Python stack walk knows (one
 * struct dl_py_layout each), what an ELF file says about the interpreter
 * in it (version, where _PyRuntime is, 3.13's _Py_DebugOffsets), where a
 * process has it, and the offset of pthread_getspecific's array in glibc's
 * struct pthread (calibrated in our own process).
 *
 * Adding a version: build tools/python_layout_gen.c against that version's
 * headers (tools/python_layout_gen.sh PYTHON prints the table row), add the
 * row to python_offsets.c, and run tests/test_python_stacks.py with it.
 */
#ifndef PYTHON_OFFSETS_H
#define PYTHON_OFFSETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bpf/python_stack.h"

/* A supported CPython minor version. */
struct py_version_layout {
	int minor;	       /* 3.<minor> */
	const char *from;      /* the build whose headers gave the numbers */
	uint64_t runtime_size; /* sizeof(_PyRuntimeState) there: a cross-check */
	struct dl_py_layout layout;
};

/* The supported versions (index = the layout's slot in the BPF map). */
const struct py_version_layout *py_layouts(size_t *n);

/* What an ELF file holds. */
struct py_binary {
	bool python;	  /* it defines _PyRuntime: a CPython interpreter */
	bool exe;	  /* an executable (PT_INTERP), else a shared library */
	bool pie;	  /* position independent (ET_DYN) */
	int minor, micro; /* 3.<minor>.<micro>, 0 when not known */
	char version[24]; /* "3.11.7", "" when not known */
	uint64_t runtime; /* link-time address of _PyRuntime */
	uint64_t runtime_size;
	uint64_t text_vaddr;	 /* lowest address of an executable segment */
	uint64_t first_vaddr;	 /* page-aligned address of the segment at file offset 0 */
	int layout;		 /* index into py_layouts(), -1 when unsupported */
	bool debug_offsets;	 /* 3.13+: the layout was checked against _Py_DebugOffsets */
	struct dl_py_layout own; /* the layout used for this file (layout's, or corrected) */
	char note[256];		 /* why it is unsupported, or what differs */
};

/*
 * Inspect an ELF file.  Returns 0 when it could be read (b->python says if
 * it is an interpreter), -1 when it is no readable ELF file.
 */
int py_binary_inspect(const char *path, struct py_binary *b);

/*
 * py_binary_inspect() of the file with identity (dev, ino), remembered
 * while its mtime stays the same: mapfile is tried first (a process's
 * /proc/PID/map_files entry), then path.  0, or -1 when neither is an ELF
 * file.
 */
int py_binary_inspect_cached(const char *mapfile, const char *path, uint32_t dev, uint64_t ino,
			     struct py_binary *b);

/* A CPython found in a process's memory map. */
struct py_process {
	char path[512];	  /* the file holding the interpreter */
	uint64_t ino;	  /* its identity: the key of py_bins */
	uint32_t dev;	  /* kernel encoding: major << 20 | minor */
	uint64_t runtime; /* address of _PyRuntime in the process */
	struct py_binary bin;
};

/*
 * Find the interpreter of process pid from /proc/PID/maps: its executable
 * or a mapped libpython.  Returns 1 when found, 0 when the process has no
 * CPython mapped (yet), -1 when it cannot be read (gone).
 */
int py_process_find(pid_t pid, struct py_process *out);

/*
 * The offset of specific_1stblock in glibc's struct pthread, found in this
 * process: a pthread key set to a known value is looked for from the
 * thread pointer.  0 on success.
 */
int py_pthread_specific_offset(uint32_t *off);

/* "3.11.7" -> minor 11, micro 7; 0 when it is no 3.x.y version. */
int py_parse_version(const char *s, int *minor, int *micro);

#endif
