/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef DLTRACE_VERSION
#define DLTRACE_VERSION "0.1.0"
#endif
