/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The verdict of the current process's leader (leader_verdict.bpf.c). */
#ifndef LEADER_VERDICT_BPF_H
#define LEADER_VERDICT_BPF_H

/*
 * (job id << 32) | slot of the leader of process tgid, or 0.
 * dl_leader_verdict_btf: the way without kfuncs, for the programs of types
 * that may not call them (DL_FILTER_NO_KFUNCS: uprobes, USDT).
 */
__u64 dl_leader_verdict(__u32 tgid);
__u64 dl_leader_verdict_btf(void);

#endif /* LEADER_VERDICT_BPF_H */
