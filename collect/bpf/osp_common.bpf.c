// SPDX-License-Identifier: GPL-2.0
/* The session-wide object: owns the follow map (forks and exits of followed
 * processes maintained in the kernel) and the per-thread involuntary context
 * switch counters behind --split preempt. Every program exists as tp_btf and
 * as raw_tp; user space loads one flavour (collect/bpf_common.c). */
#include "vmlinux.h"
#include "osp_common.bpf.h"

char LICENSE[] SEC("license") = "GPL";

static __always_inline void on_fork(struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid), ctgid = BPF_CORE_READ(child, tgid);
	if (ptgid == ctgid ||
	    (osp_cfg.filter != OSP_FILTER_TREE && osp_cfg.filter != OSP_FILTER_PIDS))
		return; /* a new thread: its process is already followed or not */
	__u32 slot = ptgid & osp_cfg.pid_mask;
	__u32 *pv = bpf_map_lookup_elem(&osp_follow, &slot);
	if (!pv || (*pv & OSP_FOLLOW_TGID) != ptgid || !(*pv & OSP_FOLLOW_INHERIT))
		return;
	slot = ctgid & osp_cfg.pid_mask;
	__u32 *cv = bpf_map_lookup_elem(&osp_follow, &slot);
	if (cv)
		*cv = ctgid | OSP_FOLLOW_INHERIT;
}

static __always_inline void on_exit(struct task_struct *t)
{
	/* signal->live reaches 0 when the last thread of the group exits. */
	if (BPF_CORE_READ(t, signal, live.counter) != 0)
		return;
	__u32 tgid = BPF_CORE_READ(t, tgid), slot = tgid & osp_cfg.pid_mask;
	__u32 *v = bpf_map_lookup_elem(&osp_follow, &slot);
	if (v && (*v & OSP_FOLLOW_TGID) == tgid)
		*v = 0;
}

static __always_inline void on_switch(bool preempt, unsigned int prev_state)
{
	/* Involuntary: preempted, or switched out while still runnable. */
	if (!preempt && prev_state != 0)
		return;
	__u64 pid_tgid = bpf_get_current_pid_tgid(); /* current is prev here */
	if (!osp_target_pid(pid_tgid))
		return;
	__u32 tid = (__u32)pid_tgid, slot = tid & osp_cfg.tid_mask;
	__u64 *v = bpf_map_lookup_elem(&osp_pseq, &slot);
	if (!v)
		return;
	__u64 cur = *v;
	if ((__u32)(cur >> 32) != tid)
		cur = (__u64)tid << 32;
	*v = cur + 1;
}

OSP_TP_TWINS(sched_process_fork, osp_fork, struct task_struct *parent, struct task_struct *child)
{
	on_fork(parent, child);
	return 0;
}

OSP_TP_TWINS(sched_process_exit, osp_exit, struct task_struct *t)
{
	on_exit(t);
	return 0;
}

OSP_TP_TWINS(sched_switch, osp_switch, bool preempt, struct task_struct *prev,
             struct task_struct *next, unsigned int prev_state)
{
	on_switch(preempt, prev_state);
	return 0;
}
