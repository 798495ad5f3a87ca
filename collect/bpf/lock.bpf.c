// SPDX-License-Identifier: GPL-2.0
/* lock layer: wait time from lock:contention_begin to contention_end per lock
 * type (the LCB_F_* flags), optionally per contending call stack (--by caller;
 * user space symbolizes it and skips the lock-internal frames). */
#include "vmlinux.h"
#include "osp_common.bpf.h"
#include "kl.bpf.h"
#define OSP_NEST_FS_STACKS
#include "nest.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct wait {
	__u64 ts; /* 0: no contention in flight */
	__u32 flags;
	__s32 stack_id;
	__u32 tid;    /* owner of the slot */
	__u32 parent; /* osp_nest_code() at the first begin */
};

/* The contention in flight per thread, slot tid & tid_mask (inlined lookups;
 * a hash update and delete per contention cost more than the rest). A mutex
 * may spin, then sleep, each with its own contention_begin: the second begin
 * keeps the first start. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wait);
} lock_waits SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 4096);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, KL_LOCK_STACK_DEPTH * sizeof(__u64));
} lock_stacks SEC(".maps");

OSP_HIST_MAP(lock_hist, OSP_HIST_ENTRIES);

static __always_inline int lock_begin(void *ctx, void *lock, unsigned int flags)
{
	__u64 id = bpf_get_current_pid_tgid();
	if (!osp_target_pid(id))
		return 0;
	__u32 tid = (__u32)id, slot = tid & osp_cfg.tid_mask;
	struct wait *w = bpf_map_lookup_elem(&lock_waits, &slot);
	if (!w || (w->tid == tid && w->ts))
		return 0;
	w->tid = tid;
	w->flags = flags;
	w->stack_id = -1;
	w->parent = osp_nest_code(tid);
	if (osp_cfg.by == KL_BY_CALLER) {
		w->stack_id = bpf_get_stackid(ctx, &lock_stacks, 0);
		if (w->stack_id < 0)
			osp_stat_inc(OSP_STAT_LOST);
	}
	w->ts = bpf_ktime_get_ns();
	return 0;
}

OSP_TP_TWINS(contention_begin, lock_begin, void *lock, unsigned int flags)
{
	return lock_begin(ctx, lock, flags);
}

static __always_inline int lock_end(void *ctx, void *lock, int ret)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id, slot = tid & osp_cfg.tid_mask;
	struct wait *w = bpf_map_lookup_elem(&lock_waits, &slot);
	if (!w || w->tid != tid || !w->ts) {
		/* contention_end also fires for waits that never began as
		 * contended in a target; only targets count as unpaired */
		if (osp_target_pid(id))
			osp_stat_inc(OSP_STAT_UNPAIRED);
		return 0;
	}
	__u64 now = bpf_ktime_get_ns();
	struct osp_hkey k = {.op = w->flags, .slice = osp_slice(now)};
	if (osp_cfg.by == KL_BY_CALLER)
		k.dim[0] = w->stack_id + 1;
	else
		kl_by_current(&k, id);
	__u64 delta = now - w->ts;
	w->ts = 0;
	if (!osp_hist_add(&lock_hist, &k, delta))
		osp_nest_count(&lock_hist, &k, w->parent);
	return 0;
}

OSP_TP_TWINS(contention_end, lock_end, void *lock, int ret)
{
	return lock_end(ctx, lock, ret);
}
