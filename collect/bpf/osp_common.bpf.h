/* Common BPF side of every osprof kernel layer: target filtering that
 * follows forks in the kernel, log buckets, per-CPU histogram maps, time
 * slices, per-task preemption counters and loss accounting.
 *
 * Include once per object, after vmlinux.h. The maps osp_follow, osp_pseq,
 * osp_clock and osp_cgroup are owned by osp_common.bpf.c and shared with every other object
 * through osp_bpf_share_maps() (bpf_map__reuse_fd before load).
 * API description: docs/bpf-infra.md. */
#ifndef OSPROF_COLLECT_BPF_OSP_COMMON_BPF_H
#define OSPROF_COLLECT_BPF_OSP_COMMON_BPF_H

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "osp_bpf.h"
#include "osp_bucket.h"
#include "osp_twins.bpf.h"

#ifndef OSP_HIST_ENTRIES
#define OSP_HIST_ENTRIES 16384
#endif

const volatile struct osp_bpf_cfg osp_cfg = {};

/* An array map of vtype with one entry, or as many as user space gives it
 * before load (bpf_map__set_max_entries): per-thread slots (tid &
 * tid_mask), followed processes. Lookups in an array are inlined by the
 * verifier. */
#define OSP_ARRAY_MAP(name, vtype)                                                                 \
	struct {                                                                                   \
		__uint(type, BPF_MAP_TYPE_ARRAY);                                                  \
		__type(key, __u32);                                                                \
		__type(value, vtype);                                                              \
		__uint(max_entries, 1);                                                            \
	} name SEC(".maps")

/* Followed processes: slot (tgid & pid_mask) holds tgid | OSP_FOLLOW_INHERIT
 * or 0. An array, not a hash: the lookup is inlined by the verifier. Sized
 * by user space to the next power of two >= pid_max. */
OSP_ARRAY_MAP(osp_follow, __u32);

/* Involuntary context switches per thread: slot (tid & tid_mask) holds
 * (tid << 32) | count. Maintained by osp_common's sched_switch program when
 * --split preempt is on. */
OSP_ARRAY_MAP(osp_pseq, __u64);

/* Slice origin (slot 0): bpf_ktime_get_ns() when the targets were released,
 * written by osp_bpf_common_start() after load, so it cannot live in .rodata. */
OSP_ARRAY_MAP(osp_clock, __u64);

/* The cgroup of OSP_FILTER_CGROUP (slot 0). */
struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, 1);
} osp_cgroup SEC(".maps");

/* Loss accounting of this object (enum osp_stat). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, OSP_STAT_MAX);
} osp_stats SEC(".maps");

/* Declares a per-CPU histogram map for osp_hist_add(). */
#define OSP_HIST_MAP(name, entries)                                                                \
	struct {                                                                                   \
		__uint(type, BPF_MAP_TYPE_PERCPU_HASH);                                            \
		__type(key, struct osp_hkey);                                                      \
		__type(value, struct osp_hval);                                                    \
		__uint(max_entries, entries);                                                      \
	} name SEC(".maps")

static __always_inline void osp_stat_inc(__u32 which)
{
	__u64 *c = bpf_map_lookup_elem(&osp_stats, &which);
	if (c)
		__sync_fetch_and_add(c, 1);
}

/* tgid 0 is the idle task, the current task of an interrupt on an idle
 * CPU: an empty slot holds 0, so without the first test it counted as
 * followed, and interrupts' lock waits on idle CPUs went into the target's
 * profiles (`run -l lock --by tid -- sleep 1`: tid=0, 6 spinlock waits). */
static __always_inline int osp_tgid_followed(__u32 tgid)
{
	__u32 slot = tgid & osp_cfg.pid_mask;
	__u32 *v = bpf_map_lookup_elem(&osp_follow, &slot);
	return tgid && v && (*v & OSP_FOLLOW_TGID) == tgid;
}

/* 1 if the current task is profiled. pid_tgid is bpf_get_current_pid_tgid(). */
static __always_inline int osp_target_pid(__u64 pid_tgid)
{
	__u32 tgid = pid_tgid >> 32;
	switch (osp_cfg.filter) {
	case OSP_FILTER_TREE:
	case OSP_FILTER_PIDS:
		return osp_tgid_followed(tgid);
	case OSP_FILTER_CGROUP:
		return tgid != osp_cfg.self_tgid &&
		       bpf_current_task_under_cgroup(&osp_cgroup, 0) == 1;
	case OSP_FILTER_COMM: {
		char c[16];
		if (bpf_get_current_comm(c, sizeof(c)))
			return 0;
		for (int i = 0; i < 16; i++) {
			if (c[i] != osp_cfg.comm[i])
				return 0;
			if (!c[i])
				break;
		}
		return tgid != osp_cfg.self_tgid;
	}
	default:
		return tgid != osp_cfg.self_tgid;
	}
}

static __always_inline int osp_target(void)
{
	return osp_target_pid(bpf_get_current_pid_tgid());
}

/* Time-slice index of time t (bpf_ktime_get_ns()). */
static __always_inline __u32 osp_slice(__u64 t)
{
	__u32 zero = 0;
	if (!osp_cfg.slice_ns)
		return 0;
	__u64 *start = bpf_map_lookup_elem(&osp_clock, &zero);
	if (!start || t < *start)
		return 0;
	return (__u32)((t - *start) / osp_cfg.slice_ns);
}

static __always_inline __u32 osp_bucket(__u64 v)
{
	return osp_bpf_bucket(v, osp_cfg.r);
}

/* Involuntary switches of thread tid so far. An operation that reads a
 * different value at its end than at its start was preempted in flight. */
static __always_inline __u32 osp_preempt_seq(__u32 tid)
{
	if (!osp_cfg.split_preempt)
		return 0;
	__u32 slot = tid & osp_cfg.tid_mask;
	__u64 *v = bpf_map_lookup_elem(&osp_pseq, &slot);
	if (!v || (__u32)(*v >> 32) != tid)
		return 0;
	return (__u32)*v;
}

static __always_inline void osp_hval_add(struct osp_hval *h, __u64 v)
{
	__sync_fetch_and_add(&h->count, 1);
	__sync_fetch_and_add(&h->sum, v);
}

/* Plain profiles (no --by, -i or --split): a per-CPU array indexed by
 * op * nbuckets + bucket and a per-op min/max array (value.count = max,
 * value.sum = ~min), sized by user space (collect/bpf_fast.c). Array lookups
 * are inlined by the verifier, where a hash lookup is a helper call that
 * hashes a 40-byte key: the plain profile is the common case and the hot one. */
#define OSP_FAST_MAPS(hist, minmax)                                                                \
	struct {                                                                                   \
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);                                           \
		__type(key, __u32);                                                                \
		__type(value, struct osp_hval);                                                    \
		__uint(max_entries, 1);                                                            \
	} hist SEC(".maps");                                                                       \
	struct {                                                                                   \
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);                                           \
		__type(key, __u32);                                                                \
		__type(value, struct osp_hval);                                                    \
		__uint(max_entries, 1);                                                            \
	} minmax SEC(".maps")

/* 1 when the object records plain profiles only (OSP_FAST_MAPS). */
static __always_inline int osp_plain(void)
{
	return !osp_cfg.by && !osp_cfg.slice_ns && !osp_cfg.split_preempt;
}

/* Adds sample v to op's plain profile. Plain adds, no atomics: only one
 * program of the object writes these maps, and the kernel never runs a
 * program on a CPU where it is already running (it skips the run and counts
 * a recursion miss, which user space reports as lost). */
static __always_inline void osp_fast_add(void *hist, void *minmax, __u32 op, __u64 v)
{
	__u32 idx = op * (osp_cfg.r * OSP_BPF_LOG_SPAN + 2) + osp_bucket(v);
	struct osp_hval *h = bpf_map_lookup_elem(hist, &idx);
	if (h) {
		h->count++;
		h->sum += v;
	}
	h = bpf_map_lookup_elem(minmax, &op);
	if (h) {
		if (v > h->count)
			h->count = v;
		if (~v > h->sum)
			h->sum = ~v;
	}
}

/* Adds one sample v to the histogram of key k (op, flags, slice, aux, dim
 * set by the caller; bucket is filled in here) and widens its min/max.
 * Returns 0, or -1 after counting OSP_STAT_LOST when the map is full. */
static __always_inline int osp_hist_add(void *map, struct osp_hkey *k, __u64 v)
{
	static const struct osp_hval zero = {};
	struct osp_hval *h;

	k->bucket = osp_bucket(v);
	h = bpf_map_lookup_elem(map, k);
	if (!h) {
		bpf_map_update_elem(map, k, &zero, BPF_NOEXIST);
		h = bpf_map_lookup_elem(map, k);
		if (!h) {
			osp_stat_inc(OSP_STAT_LOST);
			return -1;
		}
	}
	osp_hval_add(h, v);

	k->bucket = OSP_BKT_MINMAX;
	h = bpf_map_lookup_elem(map, k);
	if (!h) {
		bpf_map_update_elem(map, k, &zero, BPF_NOEXIST);
		h = bpf_map_lookup_elem(map, k);
		if (!h)
			return 0; /* counts are kept; min/max fall back to bucket bounds */
	}
	if (v > h->count)
		h->count = v;
	if (~v > h->sum)
		h->sum = ~v;
	return 0;
}

#endif
