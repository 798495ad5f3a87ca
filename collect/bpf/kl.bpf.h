/* Start/end pairing per thread and --by dimensions, shared by the fs, kfunc,
 * fuse, lock and uprobe objects. Include after osp_common.bpf.h. */
#ifndef OSPROF_KL_BPF_H
#define OSPROF_KL_BPF_H

#include "kl_types.h"

/* --by pid|tid|comm for an operation of the current task. */
static __always_inline void kl_by_current(struct osp_hkey *k, __u64 pid_tgid)
{
	if (osp_cfg.by == KL_BY_PID)
		k->dim[0] = pid_tgid >> 32;
	else if (osp_cfg.by == KL_BY_TID)
		k->dim[0] = (__u32)pid_tgid;
	else if (osp_cfg.by == KL_BY_COMM)
		bpf_get_current_comm(&k->dim, sizeof(k->dim));
}

/* Per-thread stack of open starts in task storage (no hash lookups): an end
 * matches the innermost open start of its pair. Starts nested deeper than
 * KL_DEPTH are counted (over) and their ends reported lost rather than
 * timed against the wrong start. */
static __always_inline void kl_pair_start(void *starts, struct kl_pair_key *k, __u64 now)
{
	struct kl_tstack *t = bpf_task_storage_get(starts, bpf_get_current_task_btf(), 0,
	                                           BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!t) {
		osp_stat_inc(OSP_STAT_LOST);
		return;
	}
	__u32 n = t->n;
	if (n >= KL_DEPTH) {
		t->over++;
		return;
	}
	t->e[n & (KL_DEPTH - 1)].id = k->id;
	t->e[n & (KL_DEPTH - 1)].pseq = osp_preempt_seq(k->tid);
	t->e[n & (KL_DEPTH - 1)].ts = now;
	t->n = n + 1;
}

/* Ends the innermost open start of pair k->id: adds the duration to op
 * k->id of `hist` (flagged preempted when the thread was preempted
 * meanwhile). */
static __always_inline void kl_pair_end(void *starts, void *hist, struct kl_pair_key *k, __u64 now)
{
	struct kl_tstack *t = bpf_task_storage_get(starts, bpf_get_current_task_btf(), 0, 0);
	if (!t) {
		osp_stat_inc(OSP_STAT_UNPAIRED);
		return;
	}
	if (t->over) {
		/* properly nested, the innermost open start is one not kept */
		t->over--;
		osp_stat_inc(OSP_STAT_LOST);
		return;
	}
	__u32 n = t->n, found = KL_DEPTH;
	for (int i = KL_DEPTH - 1; i >= 0; i--)
		if ((__u32)i < n && found == KL_DEPTH && t->e[i].id == k->id)
			found = (__u32)i;
	if (found == KL_DEPTH) {
		osp_stat_inc(OSP_STAT_UNPAIRED);
		return;
	}
	__u64 t0 = t->e[found & (KL_DEPTH - 1)].ts;
	__u32 seq = t->e[found & (KL_DEPTH - 1)].pseq;
	/* close the gap: entries above the match move down one */
	for (int i = 0; i < KL_DEPTH - 1; i++)
		if ((__u32)i >= found && (__u32)i + 1 < n)
			t->e[i] = t->e[i + 1];
	t->n = n - 1;
	struct osp_hkey hk = {.op = k->id, .slice = osp_slice(now)};
	kl_by_current(&hk, bpf_get_current_pid_tgid());
	if (osp_cfg.split_preempt && osp_preempt_seq(k->tid) != seq)
		hk.flags = OSP_HK_PREEMPTED;
	osp_hist_add(hist, &hk, now - t0);
}

#define KL_PAIR_STARTS(name)                                                                       \
	struct {                                                                                   \
		__uint(type, BPF_MAP_TYPE_TASK_STORAGE);                                           \
		__uint(map_flags, BPF_F_NO_PREALLOC);                                              \
		__type(key, int);                                                                  \
		__type(value, struct kl_tstack);                                                   \
	} name SEC(".maps")

#endif
