/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Python stacks: what user space tells the BPF side about CPython
 * interpreters (map values), shared by bpf/python_stack.bpf.h and
 * user/probe/python_offsets.c.  The records the walk sends are in
 * dltrace_events.h (struct dl_py_stack, struct dl_py_code).
 *
 * There is no CO-RE for user space: the offsets of CPython's structures
 * come from user space, one struct dl_py_layout per supported version
 * (user/probe/python_offsets.c says where each number comes from).  The
 * BPF side only follows them.
 *
 * Keep this header free of kernel and libc includes (see dltrace_events.h).
 */
#ifndef PYTHON_STACK_H
#define PYTHON_STACK_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define DL_PY_LAYOUTS 8	     /* CPython layouts loaded at once (py_layouts) */
#define DL_PY_NONE    0xffff /* an offset that does not exist in this version */

/* dl_py_layout.frame_via: where the thread's innermost frame pointer is */
#define DL_PY_FRAME_TSTATE 1 /* PyThreadState.frame (3.10) or .current_frame (3.13) */
#define DL_PY_FRAME_CFRAME 2 /* PyThreadState.cframe->current_frame (3.11, 3.12) */

/* dl_py_layout.lasti_kind: how a frame says where it is */
#define DL_PY_LASTI_INT 1 /* int f_lasti, in code units (3.10 PyFrameObject) */
#define DL_PY_LASTI_PTR 2 /* pointer to a code unit of co_code_adaptive (3.11+) */

/*
 * Offsets (bytes) into one CPython version's structures.  Every read the
 * walk makes is sized by the *_read fields, which cover the offsets used.
 */
struct dl_py_layout {
	__u32 rt_tss;	    /* _PyRuntime: autoTSSkey (Py_tss_t: int initialized, key) */
	__u16 minor;	    /* 3.<minor> */
	__u8 frame_via;	    /* DL_PY_FRAME_* */
	__u8 lasti_kind;    /* DL_PY_LASTI_* */
	__u16 tss_key;	    /* Py_tss_t: offset of the pthread key */
	__u16 ts_read;	    /* bytes of PyThreadState read at once */
	__u16 ts_frame;	    /* PyThreadState: frame, cframe or current_frame */
	__u16 ts_thread;    /* PyThreadState.thread_id: pthread_self() of its thread */
	__u16 ts_chunk;	    /* PyThreadState.datastack_chunk (DL_PY_NONE: 3.10) */
	__u16 ts_top;	    /* PyThreadState.datastack_top */
	__u16 cf_frame;	    /* _PyCFrame.current_frame */
	__u16 chunk_data;   /* _PyStackChunk.data: the first frame of a chunk */
	__u16 fr_read;	    /* bytes of a frame read at once */
	__u16 fr_code;	    /* f_code, f_executable (3.13) */
	__u16 fr_prev;	    /* f_back (3.10), previous */
	__u16 fr_lasti;	    /* f_lasti (3.10), prev_instr (3.11, 3.12), instr_ptr (3.13) */
	__u16 fr_owner;	    /* owner (DL_PY_NONE: 3.10) */
	__u16 owner_cstack; /* owner of the interpreter's entry frames on the C stack */
			    /* (3.12+; skipped); DL_PY_NONE when there are none */
	__u16 co_read;	    /* bytes of PyCodeObject read at once */
	__u16 co_filename, co_name, co_qualname, co_firstlineno, co_linetable;
	__u16 co_code; /* co_code_adaptive: lasti = (ptr - code - co_code) / 2 (3.11+) */
	__u16 str_length, str_state, str_ascii_data, str_compact_data; /* PyUnicode */
	__u16 bytes_size, bytes_data;				       /* PyBytes */
	__u16 pad;
};

/* dl_py_bin.kind */
#define DL_PY_BIN_EXE 1 /* an executable with the interpreter in it */
#define DL_PY_BIN_LIB 2 /* a libpython shared object */

/*
 * A file known to hold a CPython (py_bins, key struct dl_py_file): how to
 * find _PyRuntime in a process that maps it.  An executable is known at
 * exec (load bias = mm->start_code - text_vaddr, 0 when not PIE), a library
 * when the dynamic loader maps its first segment (bias = the address mapped
 * at file offset 0 - first_vaddr).
 */
struct dl_py_file {
	__u64 ino;
	__u32 dev; /* st_dev encoding of the kernel: major << 20 | minor */
	__u32 pad;
};

struct dl_py_bin {
	__u64 runtime;	   /* link-time address of _PyRuntime */
	__u64 text_vaddr;  /* EXE: lowest address of an executable segment */
	__u64 first_vaddr; /* LIB: page-aligned address of the segment at offset 0 */
	__u32 layout;	   /* index into py_layouts */
	__u8 kind;	   /* DL_PY_BIN_* */
	__u8 pie;	   /* EXE: position independent */
	__u16 pad;
};

/* A traced CPython process (py_procs, key: tgid). */
struct dl_py_proc {
	__u64 runtime;	  /* address of _PyRuntime in the process */
	__u32 layout;	  /* index into py_layouts */
	__u32 gen;	  /* unique per process image: names its stacks and code objects */
	__u32 next_stack; /* next stack id to hand out (ids start at 1) */
	__u32 pad;
};

#endif /* PYTHON_STACK_H */
