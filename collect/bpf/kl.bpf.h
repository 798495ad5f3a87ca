/* Start/end pairing per thread, shared by the fs and uprobe objects. Include
 * after osp_common.bpf.h. */
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

/* depth counts every open start of (thread, pair); timestamps are kept for
 * the outermost KL_DEPTH levels; deeper ends are counted lost rather than
 * timed against the wrong start. */
static __always_inline void kl_pair_start(void *starts, struct kl_pair_key *k, __u64 now)
{
	struct kl_pair_val *v = bpf_map_lookup_elem(starts, k);
	__u32 seq = osp_preempt_seq(k->tid);
	if (!v) {
		struct kl_pair_val nv = {.ts = {now}, .pseq = {seq}, .depth = 1};
		if (bpf_map_update_elem(starts, k, &nv, BPF_ANY))
			osp_stat_inc(OSP_STAT_LOST);
		return;
	}
	if (v->depth < KL_DEPTH) {
		v->ts[v->depth & (KL_DEPTH - 1)] = now;
		v->pseq[v->depth & (KL_DEPTH - 1)] = seq;
	}
	v->depth++;
}

/* Ends the innermost open start of k: adds the duration to op k->id of
 * `hist` (flagged preempted when the thread was preempted meanwhile). */
static __always_inline void kl_pair_end(void *starts, void *hist, struct kl_pair_key *k, __u64 now)
{
	struct kl_pair_val *v = bpf_map_lookup_elem(starts, k);
	if (!v || v->depth == 0) {
		osp_stat_inc(OSP_STAT_UNPAIRED);
		return;
	}
	__u32 d = --v->depth;
	__u64 t0 = 0;
	__u32 seq = 0;
	if (d < KL_DEPTH) {
		t0 = v->ts[d & (KL_DEPTH - 1)];
		seq = v->pseq[d & (KL_DEPTH - 1)];
	}
	/* the entry stays at depth 0 for the thread's next operation: no
	 * insert/delete per operation; the LRU map evicts idle threads */
	if (d >= KL_DEPTH) {
		osp_stat_inc(OSP_STAT_LOST);
		return;
	}
	struct osp_hkey hk = {.op = k->id, .slice = osp_slice(now)};
	kl_by_current(&hk, bpf_get_current_pid_tgid());
	if (osp_cfg.split_preempt && osp_preempt_seq(k->tid) != seq)
		hk.flags = OSP_HK_PREEMPTED;
	osp_hist_add(hist, &hk, now - t0);
}

#define KL_PAIR_STARTS(name)                                                                       \
	struct {                                                                                   \
		__uint(type, BPF_MAP_TYPE_LRU_HASH);                                               \
		__uint(max_entries, 65536);                                                        \
		__type(key, struct kl_pair_key);                                                   \
		__type(value, struct kl_pair_val);                                                 \
	} name SEC(".maps")

#endif
