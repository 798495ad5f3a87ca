// SPDX-License-Identifier: GPL-2.0
/* fs layer: one program serves every discovered file-system tracepoint. The
 * attach cookie says which start/end pair the event belongs to and which side
 * it is; starts are stacked per thread and pair so nested pairs time right. */
#include "vmlinux.h"
#include "osp_common.bpf.h"
#include "kl.bpf.h"
#include "nest.bpf.h"

char LICENSE[] SEC("license") = "GPL";

KL_PAIR_SLOTS(fs_stacks);
OSP_HIST_MAP(fs_hist, OSP_HIST_ENTRIES);
OSP_FAST_MAPS(fs_fast, fs_minmax);

/* Plain profiles' parent tables: calls of pair p inside system call nr at
 * p * OSP_NEST_SYS_SLOTS + nr + 1, outside any at p * OSP_NEST_SYS_SLOTS
 * (sized by user space; one entry when nesting is not measured). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1);
} fs_nest SEC(".maps");

/* Plain profiles go to fs_fast, the rest (--by, -i, --split) to fs_hist.
 * The hottest pairs (ext4_es_lookup_extent) fire millions of times a second
 * and last ~150 ns: every helper call saved here shows in the workload. */
static __always_inline int pair_event(__u64 cookie)
{
	__u64 id = bpf_get_current_pid_tgid();
	if (!osp_target_pid(id))
		return 0;
	__u64 now = bpf_ktime_get_ns();
	__u32 pair = (__u32)cookie & ~KL_COOKIE_END, tid = (__u32)id;
	int end = (cookie & KL_COOKIE_END) != 0;
	struct kl_tstack *t = kl_slot_stack(&fs_stacks, tid, !end);
	if (!t) {
		osp_stat_inc(end ? OSP_STAT_UNPAIRED : OSP_STAT_LOST);
		return 0;
	}
	if (!end) {
		kl_stack_push(t, pair, tid, now);
		return 0;
	}
	__u64 t0;
	__u32 seq;
	if (kl_stack_pop(t, pair, &t0, &seq))
		return 0;
	if (osp_plain()) {
		osp_fast_add(&fs_fast, &fs_minmax, pair, now - t0);
		if (osp_cfg.nest & OSP_NEST_SYS) {
			__u32 idx = pair * OSP_NEST_SYS_SLOTS + osp_nest_sys(tid);
			__u64 *c = bpf_map_lookup_elem(&fs_nest, &idx);
			if (c)
				*c += 1; /* per-CPU, one writer: see osp_fast_add */
		}
	} else {
		struct osp_hkey hk;
		if (!kl_record_key(&fs_hist, pair, id, seq, now, now - t0, &hk))
			osp_nest_count(&fs_hist, &hk, osp_nest_sys(tid) | OSP_NEST_NONE << 16);
	}
	return 0;
}

/* Preferred: a raw tracepoint attached with a cookie (kernel >= 6.10), cheap
 * to fire and to detach. */
SEC("raw_tp")
int fs_event_raw(void *ctx)
{
	return pair_event(bpf_get_attach_cookie(ctx));
}

/* Fallback: a perf-event tracepoint, which takes a cookie since 5.15. */
SEC("tracepoint")
int fs_event(void *ctx)
{
	return pair_event(bpf_get_attach_cookie(ctx));
}
