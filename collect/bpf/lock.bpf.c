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

/* One wait in flight: a contention_begin not yet ended. */
struct wait_e {
	__u64 ts;
	__u64 lock; /* the lock's address: its end names the same one */
	__u32 flags;
	__s32 stack_id;
	__u32 parent; /* osp_nest_code() at the first begin */
	__u32 pad;
};

/* A thread's waits in flight: a task's wait and one that an interrupt
 * handler on its CPU begins before it ends (a spinlock in a softirq while
 * the task sleeps on a mutex), told apart by the lock. Without the second
 * entry the interrupt's end closed the task's wait early and the task's own
 * end came unpaired (eight threads appending to one file: 2-8 a run). */
struct wait {
	struct wait_e e[2];
	__u32 n;    /* entries in flight */
	__u32 over; /* waits nested deeper than two: counted lost, not timed */
	__u32 tid;  /* owner of the slot */
	__u32 pad;
};

/* The waits in flight per thread, slot tid & tid_mask (inlined lookups; a
 * hash update and delete per contention cost more than the rest). A mutex
 * may spin, then sleep, each with its own contention_begin on the same
 * lock: the second begin keeps the first start. */
OSP_ARRAY_MAP(lock_waits, struct wait);

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 4096);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, KL_LOCK_STACK_DEPTH * sizeof(__u64));
} lock_stacks SEC(".maps");

OSP_HIST_MAP(lock_hist, OSP_HIST_ENTRIES);

/* One of the layer's programs runs on this CPU. An interrupt that contends
 * meanwhile has its begin or end refused by BPF's recursion guard where it
 * is the same program (a lost event); its other half, seeing the mark, is
 * dropped rather than counted unpaired or left open. The mark is the
 * programs' first step: a mark in the thread's slot, set after the target
 * check and lookups, left a window in which eight appending threads still
 * had 1-3 unpaired ends a run. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} lock_busy SEC(".maps");

/* The CPU's mark, now set; NULL when one of the programs already runs here. */
static __always_inline __u32 *claim(void)
{
	__u32 zero = 0;
	__u32 *b = bpf_map_lookup_elem(&lock_busy, &zero);
	if (!b || *b)
		return NULL;
	/* volatile: the compiler would drop the store of 1 as dead, the store
	 * of 0 at the program's end overwriting it */
	*(volatile __u32 *)b = 1;
	return b;
}

static __always_inline void release(__u32 *b)
{
	*(volatile __u32 *)b = 0;
}

/* Opens the wait on lock unless it is a re-begin of the open one (a mutex
 * that spun, then sleeps) or nested too deep. */
static __always_inline void push(void *ctx, struct wait *w, __u32 tid, void *lock,
                                 unsigned int flags)
{
	__u32 n = w->n;
	if (n && w->e[(n - 1) & 1].lock == (__u64)lock)
		return;
	if (n >= 2) {
		w->over++;
		osp_stat_inc(OSP_STAT_LOST);
		return;
	}
	struct wait_e *e = &w->e[n & 1];
	e->lock = (__u64)lock;
	e->flags = flags;
	e->stack_id = -1;
	e->parent = osp_nest_code(tid);
	if (osp_cfg.by == KL_BY_CALLER) {
		e->stack_id = bpf_get_stackid(ctx, &lock_stacks, 0);
		if (e->stack_id < 0)
			osp_stat_inc(OSP_STAT_LOST);
	}
	e->ts = bpf_ktime_get_ns();
	w->n = n + 1;
}

static __always_inline void begin(void *ctx, void *lock, unsigned int flags)
{
	__u64 id = bpf_get_current_pid_tgid();
	if (!osp_target_pid(id))
		return;
	__u32 tid = (__u32)id, slot = tid & osp_cfg.tid_mask;
	struct wait *w = bpf_map_lookup_elem(&lock_waits, &slot);
	if (!w)
		return;
	if (w->tid != tid) {
		w->tid = tid;
		w->n = 0;
		w->over = 0;
	}
	push(ctx, w, tid, lock, flags);
}

static __always_inline int lock_begin(void *ctx, void *lock, unsigned int flags)
{
	__u32 *b = claim();
	if (b) {
		begin(ctx, lock, flags);
		release(b);
	}
	return 0;
}

OSP_TP_TWINS(contention_begin, lock_begin, void *lock, unsigned int flags)
{
	return lock_begin(ctx, lock, flags);
}

/* Closes the wait on lock and adds it to the histogram. Below a top entry
 * of another lock, the task's own wait may be found: the top is then an
 * interrupt's wait whose end the recursion guard refused, and is dropped. */
static __always_inline void pop(struct wait *w, __u64 id, void *lock)
{
	__u32 n = w->n, i;
	if (w->e[(n - 1) & 1].lock == (__u64)lock)
		i = n - 1;
	else if (n == 2 && w->e[0].lock == (__u64)lock)
		i = 0;
	else {
		if (w->over)
			w->over--; /* a wait nested too deep, already counted lost */
		else
			osp_stat_inc(OSP_STAT_UNPAIRED);
		return;
	}
	struct wait_e e = w->e[i & 1];
	w->n = i;
	__u64 now = bpf_ktime_get_ns();
	struct osp_hkey k = {.op = e.flags, .slice = osp_slice(now)};
	if (osp_cfg.by == KL_BY_CALLER)
		k.dim[0] = e.stack_id + 1;
	else
		kl_by_current(&k, id);
	if (!osp_hist_add(&lock_hist, &k, now - e.ts))
		osp_nest_count(&lock_hist, &k, e.parent);
}

static __always_inline void end(void *lock)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id, slot = tid & osp_cfg.tid_mask;
	struct wait *w = bpf_map_lookup_elem(&lock_waits, &slot);
	if (!w || w->tid != tid || !w->n) {
		/* contention_end also fires for waits that never began as
		 * contended in a target; only targets count as unpaired */
		if (osp_target_pid(id))
			osp_stat_inc(OSP_STAT_UNPAIRED);
		return;
	}
	pop(w, id, lock);
}

static __always_inline int lock_end(void *ctx, void *lock, int ret)
{
	__u32 *b = claim();
	if (b) {
		end(lock);
		release(b);
	}
	return 0;
}

OSP_TP_TWINS(contention_end, lock_end, void *lock, int ret)
{
	return lock_end(ctx, lock, ret);
}
