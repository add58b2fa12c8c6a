/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* User iovec arrays: the bytes they describe (readv, writev, vmsplice, AIO's *V iocbs). */
#ifndef IOVEC_BPF_H
#define IOVEC_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "dltrace_events.h"

/* Sum of iov_len over a user iovec array (at most DL_MAX_IOV entries). */
static __always_inline __u64 dl_iov_bytes(const struct iovec *iov, __u64 n, __u8 *flags)
{
	__u64 total = 0;

	if (n > DL_MAX_IOV) {
		*flags |= DL_F_IOV_TRUNC;
		n = DL_MAX_IOV;
	}
	for (__u32 i = 0; i < DL_MAX_IOV; i++) {
		__u64 len = 0;

		if (i >= n)
			break;
		if (bpf_probe_read_user(&len, sizeof(len), &iov[i].iov_len))
			break;
		total += len;
	}
	return total;
}

#endif /* IOVEC_BPF_H */
