/* Start/end pairing per thread, shared by the fs and uprobe objects. Include
 * after osp_common.bpf.h. */
#ifndef OSPROF_KL_BPF_H
#define OSPROF_KL_BPF_H

#include "kl_types.h"

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
	if (d == 0)
		bpf_map_delete_elem(starts, k);
	if (d >= KL_DEPTH) {
		osp_stat_inc(OSP_STAT_LOST);
		return;
	}
	struct osp_hkey hk = {.op = k->id, .slice = osp_slice(now)};
	if (osp_cfg.split_preempt && osp_preempt_seq(k->tid) != seq)
		hk.flags = OSP_HK_PREEMPTED;
	osp_hist_add(hist, &hk, now - t0);
}

#define KL_PAIR_STARTS(name)                                                                       \
	struct {                                                                                   \
		__uint(type, BPF_MAP_TYPE_HASH);                                                   \
		__uint(max_entries, 16384);                                                        \
		__type(key, struct kl_pair_key);                                                   \
		__type(value, struct kl_pair_val);                                                 \
	} name SEC(".maps")

#endif
