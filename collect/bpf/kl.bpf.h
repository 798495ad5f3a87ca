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

/* Pushes an open start of pair id on a thread's stack. Starts nested deeper
 * than KL_DEPTH are counted (over) and their ends reported lost rather than
 * timed against the wrong start. */
static __always_inline void kl_stack_push(struct kl_tstack *t, __u32 id, __u32 tid, __u64 now)
{
	__u32 n = t->n;
	if (n >= KL_DEPTH) {
		t->over++;
		return;
	}
	t->e[n & (KL_DEPTH - 1)].id = id;
	t->e[n & (KL_DEPTH - 1)].pseq = osp_preempt_seq(tid);
	t->e[n & (KL_DEPTH - 1)].ts = now;
	t->n = n + 1;
}

/* Pops the innermost open start of pair id into *t0 and *seq: 0, or -1 after
 * counting the end as lost or unpaired. */
static __always_inline int kl_stack_pop(struct kl_tstack *t, __u32 id, __u64 *t0, __u32 *seq)
{
	if (t->over) {
		/* properly nested, the innermost open start is one not kept */
		t->over--;
		osp_stat_inc(OSP_STAT_LOST);
		return -1;
	}
	__u32 n = t->n, found = KL_DEPTH;
	for (int i = KL_DEPTH - 1; i >= 0; i--)
		if ((__u32)i < n && found == KL_DEPTH && t->e[i].id == id)
			found = (__u32)i;
	if (found == KL_DEPTH) {
		osp_stat_inc(OSP_STAT_UNPAIRED);
		return -1;
	}
	*t0 = t->e[found & (KL_DEPTH - 1)].ts;
	*seq = t->e[found & (KL_DEPTH - 1)].pseq;
	/* close the gap: entries above the match move down one */
	for (int i = 0; i < KL_DEPTH - 1; i++)
		if ((__u32)i >= found && (__u32)i + 1 < n)
			t->e[i] = t->e[i + 1];
	t->n = n - 1;
	return 0;
}

/* Adds duration d of pair id, started when the thread's preemption count was
 * seq, to `hist` with the --by dims and slice of the end time `now`; the key
 * used goes to *hk. 0, or -1 when the map was full. */
static __always_inline int kl_record_key(void *hist, __u32 id, __u64 pid_tgid, __u32 seq, __u64 now,
                                         __u64 d, struct osp_hkey *hk)
{
	*hk = (struct osp_hkey){.op = id, .slice = osp_slice(now)};
	kl_by_current(hk, pid_tgid);
	if (osp_cfg.split_preempt && osp_preempt_seq((__u32)pid_tgid) != seq)
		hk->flags = OSP_HK_PREEMPTED;
	return osp_hist_add(hist, hk, d);
}

static __always_inline void kl_record(void *hist, __u32 id, __u64 pid_tgid, __u32 seq, __u64 now,
                                      __u64 d)
{
	struct osp_hkey hk;
	kl_record_key(hist, id, pid_tgid, seq, now, d, &hk);
}

/* The stack of open starts of thread tid in an array of KL_PAIR_SLOTS (slot
 * tid & tid_mask): inlined lookups, no helper call. A slot last used by
 * another thread (an exited one whose tid was reused, or a colliding tid) is
 * taken over for a start; for an end, it is not this thread's. */
static __always_inline struct kl_tstack *kl_slot_stack(void *slots, __u32 tid, int start)
{
	__u32 slot = tid & osp_cfg.tid_mask;
	struct kl_tstack *t = bpf_map_lookup_elem(slots, &slot);
	if (!t)
		return NULL;
	if (t->tid != tid) {
		if (!start)
			return NULL;
		t->tid = tid;
		t->n = 0;
		t->over = 0;
	}
	return t;
}

/* Start and end of pair k->id with the stack in task storage, which the
 * kernel frees with the task: for probes whose ends may never come (a
 * uretprobe of a function the thread leaves by exit or longjmp). */
static __always_inline void kl_pair_start(void *starts, struct kl_pair_key *k, __u64 now)
{
	struct kl_tstack *t = bpf_task_storage_get(starts, bpf_get_current_task_btf(), 0,
	                                           BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!t) {
		osp_stat_inc(OSP_STAT_LOST);
		return;
	}
	kl_stack_push(t, k->id, k->tid, now);
}

static __always_inline void kl_pair_end(void *starts, void *hist, struct kl_pair_key *k, __u64 now)
{
	struct kl_tstack *t = bpf_task_storage_get(starts, bpf_get_current_task_btf(), 0, 0);
	__u64 t0;
	__u32 seq;
	if (!t) {
		osp_stat_inc(OSP_STAT_UNPAIRED);
		return;
	}
	if (!kl_stack_pop(t, k->id, &t0, &seq))
		kl_record(hist, k->id, bpf_get_current_pid_tgid(), seq, now, now - t0);
}

/* An array of per-thread stacks for kl_slot_stack(), sized by user space to
 * osp_bpf_thread_slots(). */
#define KL_PAIR_SLOTS(name) OSP_ARRAY_MAP(name, struct kl_tstack)

#define KL_PAIR_STARTS(name)                                                                       \
	struct {                                                                                   \
		__uint(type, BPF_MAP_TYPE_TASK_STORAGE);                                           \
		__uint(map_flags, BPF_F_NO_PREALLOC);                                              \
		__type(key, int);                                                                  \
		__type(value, struct kl_tstack);                                                   \
	} name SEC(".maps")

#endif
