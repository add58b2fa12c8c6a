// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Prints the row of user/probe/python_offsets.c for the CPython whose
 * headers it is built against: every offset the Python stack walk uses,
 * from the interpreter's own (internal) structure definitions.
 *
 *   tools/python_layout_gen.sh PYTHON      builds and runs it for PYTHON
 *
 * The headers are the ones `make install` puts under include/python3.X
 * (internal/ included), as pyenv, conda and python3.X-dev ship them.
 */
#define Py_BUILD_CORE 1
#include "Python.h"
#include "internal/pycore_runtime.h"
#include "internal/pycore_interp.h"
#if PY_VERSION_HEX >= 0x030b0000
#include "internal/pycore_frame.h"
#else
#include "frameobject.h"
#endif
#include <stddef.h>
#include <stdio.h>

#define MAX2(a, b)	 ((a) > (b) ? (a) : (b))
#define END(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))

int main(void)
{
	size_t ts_read, fr_read, co_read;

	printf("\t/* from the headers of %s */\n", PY_VERSION);
	printf("\t{%d, \"%s\", %zu,\n\t {\n", PY_MINOR_VERSION, PY_VERSION,
	       sizeof(_PyRuntimeState));
#if PY_VERSION_HEX >= 0x030c0000
	printf("\t     .rt_tss = %zu,\n", offsetof(_PyRuntimeState, autoTSSkey));
#else
	printf("\t     .rt_tss = %zu,\n", offsetof(_PyRuntimeState, gilstate.autoTSSkey));
#endif
	printf("\t     .minor = %d,\n", PY_MINOR_VERSION);
	printf("\t     .tss_key = %zu,\n", offsetof(Py_tss_t, _key));
	printf("\t     .ts_thread = %zu,\n", offsetof(PyThreadState, thread_id));
	ts_read = END(PyThreadState, thread_id);
#if PY_VERSION_HEX >= 0x030d0000
	printf("\t     .frame_via = DL_PY_FRAME_TSTATE,\n");
	printf("\t     .ts_frame = %zu, /* current_frame */\n",
	       offsetof(PyThreadState, current_frame));
	printf("\t     .cf_frame = DL_PY_NONE,\n");
	ts_read = MAX2(ts_read, END(PyThreadState, current_frame));
#elif PY_VERSION_HEX >= 0x030b0000
	printf("\t     .frame_via = DL_PY_FRAME_CFRAME,\n");
	printf("\t     .ts_frame = %zu, /* cframe */\n", offsetof(PyThreadState, cframe));
	printf("\t     .cf_frame = %zu,\n", offsetof(_PyCFrame, current_frame));
	ts_read = MAX2(ts_read, END(PyThreadState, cframe));
#else
	printf("\t     .frame_via = DL_PY_FRAME_TSTATE,\n");
	printf("\t     .ts_frame = %zu, /* frame */\n", offsetof(PyThreadState, frame));
	printf("\t     .cf_frame = DL_PY_NONE,\n");
	ts_read = MAX2(ts_read, END(PyThreadState, frame));
#endif
#if PY_VERSION_HEX >= 0x030b0000
	printf("\t     .ts_chunk = %zu,\n", offsetof(PyThreadState, datastack_chunk));
	printf("\t     .ts_top = %zu,\n", offsetof(PyThreadState, datastack_top));
	printf("\t     .chunk_data = %zu,\n", offsetof(_PyStackChunk, data));
	ts_read = MAX2(ts_read, END(PyThreadState, datastack_top));
	ts_read = MAX2(ts_read, END(PyThreadState, datastack_chunk));
#else
	printf("\t     .ts_chunk = DL_PY_NONE,\n\t     .ts_top = DL_PY_NONE,\n");
	printf("\t     .chunk_data = DL_PY_NONE,\n");
#endif
	printf("\t     .ts_read = %zu,\n", ts_read);
#if PY_VERSION_HEX >= 0x030b0000
	printf("\t     .lasti_kind = DL_PY_LASTI_PTR,\n");
#if PY_VERSION_HEX >= 0x030d0000
	printf("\t     .fr_code = %zu, /* f_executable */\n",
	       offsetof(_PyInterpreterFrame, f_executable));
	printf("\t     .fr_lasti = %zu, /* instr_ptr */\n",
	       offsetof(_PyInterpreterFrame, instr_ptr));
	fr_read = MAX2(END(_PyInterpreterFrame, f_executable), END(_PyInterpreterFrame, instr_ptr));
#else
	printf("\t     .fr_code = %zu,\n", offsetof(_PyInterpreterFrame, f_code));
	printf("\t     .fr_lasti = %zu, /* prev_instr */\n",
	       offsetof(_PyInterpreterFrame, prev_instr));
	fr_read = MAX2(END(_PyInterpreterFrame, f_code), END(_PyInterpreterFrame, prev_instr));
#endif
	printf("\t     .fr_prev = %zu,\n", offsetof(_PyInterpreterFrame, previous));
	printf("\t     .fr_owner = %zu,\n", offsetof(_PyInterpreterFrame, owner));
	fr_read = MAX2(fr_read, END(_PyInterpreterFrame, previous));
	fr_read = MAX2(fr_read, END(_PyInterpreterFrame, owner));
#if PY_VERSION_HEX >= 0x030c0000
	printf("\t     .owner_cstack = %d,\n", FRAME_OWNED_BY_CSTACK);
#else
	printf("\t     .owner_cstack = DL_PY_NONE,\n");
#endif
	printf("\t     .co_code = %zu, /* co_code_adaptive */\n",
	       offsetof(PyCodeObject, co_code_adaptive));
	printf("\t     .co_qualname = %zu,\n", offsetof(PyCodeObject, co_qualname));
	co_read = END(PyCodeObject, co_qualname);
#else
	printf("\t     .lasti_kind = DL_PY_LASTI_INT,\n");
	printf("\t     .fr_code = %zu,\n", offsetof(PyFrameObject, f_code));
	printf("\t     .fr_lasti = %zu, /* f_lasti */\n", offsetof(PyFrameObject, f_lasti));
	printf("\t     .fr_prev = %zu, /* f_back */\n", offsetof(PyFrameObject, f_back));
	printf("\t     .fr_owner = DL_PY_NONE,\n\t     .owner_cstack = DL_PY_NONE,\n");
	printf("\t     .co_code = DL_PY_NONE,\n\t     .co_qualname = DL_PY_NONE,\n");
	fr_read = MAX2(END(PyFrameObject, f_code), END(PyFrameObject, f_lasti));
	fr_read = MAX2(fr_read, END(PyFrameObject, f_back));
	co_read = 0;
#endif
	printf("\t     .fr_read = %zu,\n", (fr_read + 7) & ~(size_t)7);
	printf("\t     .co_filename = %zu,\n", offsetof(PyCodeObject, co_filename));
	printf("\t     .co_name = %zu,\n", offsetof(PyCodeObject, co_name));
	printf("\t     .co_firstlineno = %zu,\n", offsetof(PyCodeObject, co_firstlineno));
	printf("\t     .co_linetable = %zu,\n", offsetof(PyCodeObject, co_linetable));
	co_read = MAX2(co_read, END(PyCodeObject, co_filename));
	co_read = MAX2(co_read, END(PyCodeObject, co_name));
	co_read = MAX2(co_read, END(PyCodeObject, co_firstlineno));
	co_read = MAX2(co_read, END(PyCodeObject, co_linetable));
	printf("\t     .co_read = %zu,\n", (co_read + 7) & ~(size_t)7);
	printf("\t     .str_length = %zu,\n", offsetof(PyASCIIObject, length));
	printf("\t     .str_state = %zu,\n", offsetof(PyASCIIObject, state));
	printf("\t     .str_ascii_data = %zu, /* sizeof(PyASCIIObject) */\n",
	       sizeof(PyASCIIObject));
	printf("\t     .str_compact_data = %zu, /* sizeof(PyCompactUnicodeObject) */\n",
	       sizeof(PyCompactUnicodeObject));
	printf("\t     .bytes_size = %zu,\n", offsetof(PyVarObject, ob_size));
	printf("\t     .bytes_data = %zu,\n", offsetof(PyBytesObject, ob_sval));
	printf("\t }},\n");
	return 0;
}
