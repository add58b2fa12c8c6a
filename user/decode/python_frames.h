/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Python stacks, decoded: the code objects and stacks each process sent
 * (DL_EV_PY_CODE, DL_EV_PY_STACK records), and a syscall's stack id turned
 * into frames of (file, function, line).  Also the rule that picks the
 * innermost *application* frame of a stack, the one a trace shows by
 * default: frames of the standard library, of installed packages and of
 * frozen modules are skipped (`--python-skip` changes the rule).
 *
 * In the decoder (tools/pystack_check.c does all of this):
 *   - DL_EV_PY_STACK and DL_EV_PY_CODE records go to py_frames_record();
 *     they always arrive before the syscall records that use them;
 *   - a syscall record's stack id is dl_py_stack_of(io, size) (0: none),
 *     and its arg is dl_io_arg(io, size) (the id may ride in arg's upper half);
 *   - py_frames_stack() gives the frames, py_frames_app() the one to show
 *     ("py": py_frame_format() of it), all of them for a full stack;
 *   - py_frames_forget() when the process has exited (its last record).
 * The event needs: the resolved application frame (file, line, function)
 * and, on request, the frames and the truncation flag; a consumer that
 * adds up per location keys on the application frame.
 */
#ifndef PYTHON_FRAMES_H
#define PYTHON_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A resolved frame; the strings belong to the table (valid until the process is forgotten). */
struct py_frame {
	const char *file; /* co_filename as UTF-8 ("" when unknown) */
	const char *name; /* co_qualname (co_name on 3.10) */
	int line;	  /* 0 when the instruction has no line */
	int lasti;	  /* the instruction, in code units */
	uint64_t code;	  /* the code object's address in the process */
};

struct py_frames;

struct py_frames *py_frames_new(void);
void py_frames_free(struct py_frames *t);

/*
 * Take a DL_EV_PY_STACK or DL_EV_PY_CODE record (h.kind says which).
 * Returns 0, or -1 for a malformed record (ignored).  A record of a new
 * process image (gen) of a pid replaces what that pid had.
 */
int py_frames_record(struct py_frames *t, const void *data, size_t size);

/* The process exited: free its tables. */
void py_frames_forget(struct py_frames *t, uint32_t tgid);

/*
 * The frames of stack id of process tgid, innermost first (at most max).
 * Returns how many (0: the stack is not known); *flags gets its DL_PYS_*.
 * A code object whose record was lost gives a frame with file "" and name "?".
 */
int py_frames_stack(struct py_frames *t, uint32_t tgid, uint32_t id, struct py_frame *out, int max,
		    unsigned *flags);

/* Stacks and code objects known, over all processes (for tests and statistics). */
void py_frames_counts(const struct py_frames *t, uint64_t *stacks, uint64_t *codes);

/*
 * Which frames are not the application's: an ordered list of fnmatch(3)
 * patterns on the file name ('*' matches '/' too), the first that matches
 * decides; "!PATTERN" keeps the frame.  User rules come before the
 * defaults, which skip files below a lib/python3.X or lib64/python3.X
 * directory (the standard library), a site-packages or dist-packages
 * directory (installed packages), and pseudo-files in angle brackets
 * ("<frozen importlib._bootstrap>", numpy's "<__array_function__
 * internals>") but "<string>" and "<stdin>" (python -c, interactive code);
 * python_frames.c lists them.
 */
#define PY_RULES_MAX 32

struct py_rules {
	const char *pattern[PY_RULES_MAX];
	bool keep[PY_RULES_MAX];
	int n; /* user rules first, then the defaults */
	bool no_defaults;
};

void py_rules_init(struct py_rules *r);
/*
 * --python-skip PATTERN: add a rule ("!PATTERN" keeps what matches;
 * "none" drops the default rules).  The string must outlive r.
 */
int py_rules_add(struct py_rules *r, const char *pattern, char *err, size_t errlen);
bool py_rules_skip(const struct py_rules *r, const char *file);
/* The innermost frame the rules keep; frame 0 when they skip them all. */
int py_frames_app(const struct py_rules *r, const struct py_frame *f, int n);

/*
 * A syscall's Python code as a trace shows it ("py"): the application
 * frame of stack id as py_frame_format() writes it with the full file name,
 * or with full every frame, innermost first, joined by " | " (" | ..." at
 * the end of a cut stack).  Made once per stack and kept (a table is used
 * with one set of rules); NULL (len 0) when the stack is not known.
 */
const char *py_frames_text(struct py_frames *t, const struct py_rules *r, uint32_t tgid,
			   uint32_t id, bool full, size_t *len);

/* "dataset.py:37 __getitem__" (the file's last component, or all of it with full_path). */
size_t py_frame_format(const struct py_frame *f, bool full_path, char *buf, size_t len);

#endif
