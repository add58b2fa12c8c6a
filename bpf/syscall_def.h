/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The words of syscalls.def's roles, store and show columns, for the code
 * that reads those columns (the probes, user/event/syscall_table.c).  An
 * item calls the macro of the consumer's DL_ITEMS prefix: with
 *   #define DL_ITEMS DL_STORE
 * SIZE(A(2)) is DL_STORE_SIZE(A(2)) and SHOW(mode, LO, OCTAL) is
 * DL_STORE_SHOW(ALWAYS, mode, LO, OCTAL).  A consumer defines DL_ITEMS,
 * the <DL_ITEMS>_<item> macros of the columns it expands and DL_SYSCALL,
 * then includes syscalls.def; a source, a field, a format or a condition
 * is a word it pastes (DL_V_##s: DL_V_A(2)).
 *
 * The words are short: only those consumers include this file.
 */
#ifndef SYSCALL_DEF_H
#define SYSCALL_DEF_H

#define DL_CAT(a, b)  DL_CAT_(a, b)
#define DL_CAT_(a, b) a##b

/* roles (dltrace_events.h: DL_ROLE_*) */
#define READS	      DL_ROLE_READS
#define WRITES	      DL_ROLE_WRITES
#define OPENS	      DL_ROLE_OPENS
#define STATS	      DL_ROLE_STATS
#define DUPS	      DL_ROLE_DUPS
#define FLUSH	      DL_ROLE_FLUSH
#define PY_ARG	      DL_ROLE_PY_ARG
#define PY_AFTER      DL_ROLE_PY_AFTER
#define PY_PATH	      DL_ROLE_PY_PATH
#define DL_ROLE_WORDS /* dltrace_events.h: defined here for good */

#include "dltrace_events.h"

/* store */
#define ARG(s)		 DL_CAT(DL_ITEMS, _ARG)(s)
#define LO(s)		 DL_CAT(DL_ITEMS, _LO)(s)
#define HI(s)		 DL_CAT(DL_ITEMS, _HI)(s)
#define SIZE(s)		 DL_CAT(DL_ITEMS, _SIZE)(s)
#define OFFSET(s)	 DL_CAT(DL_ITEMS, _OFFSET)(s)
#define ATFLAGS(s)	 DL_CAT(DL_ITEMS, _ATFLAGS)(s)
#define FILE_OFFSET	 DL_CAT(DL_ITEMS, _FILE_OFFSET)
#define TIMES(n, layout) DL_CAT(DL_ITEMS, _TIMES)(n, layout)
#define FCNTL_ARGS	 DL_CAT(DL_ITEMS, _FCNTL_ARGS)
#define SPLICE_FLAGS	 DL_CAT(DL_ITEMS, _SPLICE_FLAGS)

/* show */
#define SHOW(key, field, format)	  DL_CAT(DL_ITEMS, _SHOW)(ALWAYS, key, field, format)
#define SHOW_IF(cond, key, field, format) DL_CAT(DL_ITEMS, _SHOW)(cond, key, field, format)
#define SHOW_IDENTITY			  DL_CAT(DL_ITEMS, _SHOW)(OK, ino, NONE, IDENTITY)
#define OFFSET_AS(key)			  DL_CAT(DL_ITEMS, _OFFSET_AS)(key)

/* The sources as "is it POS" (1) or not (0): POS asks the entry for the file position. */
#define DL_IS_POS(s)	    DL_IS_POS_##s
#define DL_IS_POS_A(n)	    0
#define DL_IS_POS_A32(n)    0
#define DL_IS_POS_U32(n, o) 0
#define DL_IS_POS_U64(n, o) 0
#define DL_IS_POS_POS	    1
#define DL_IS_POS_ENTRY	    0
#define DL_IS_POS_IOV(n, c) 0
#define DL_IS_POS_K(v)	    0

#endif
