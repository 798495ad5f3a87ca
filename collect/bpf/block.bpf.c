// SPDX-License-Identifier: GPL-2.0
/* block layer: per device and request type, queue time (insert -> issue;
 * allocation -> issue for requests issued directly without an insert),
 * device time (issue -> complete) and request size at issue. Requests are
 * keyed by their address; a target filter keeps the requests whose insert
 * (or issue, for directly issued ones) ran in a target task. */
#include "vmlinux.h"
#include "osp_common.bpf.h"
#include "kl_types.h"
#define OSP_NEST_FS_STACKS
#include "nest.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct rq_state {
	__u64 insert_ns; /* 0: issued without an insert */
	__u64 issue_ns;
	__u32 dev;    /* major << 20 | minor, read once at issue */
	__u32 type;   /* KL_BLK_* */
	__u32 parent; /* osp_nest_code() of the task that inserted or issued it */
	__u32 pad;
};

/* LRU: a request whose completion was missed (attached mid-flight, or a
 * driver that ends requests without the tracepoint) ages out instead of
 * filling the map. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct rq_state);
} blk_rqs SEC(".maps");

OSP_HIST_MAP(blk_hist, OSP_HIST_ENTRIES);

/* How many requests blk_rqs may hold. Many requests on a busy machine are
 * other tasks', and while none of ours is in flight their insert, issue and
 * completion skip the map lookup (63-100 ns a run instead of 98-174 for
 * another process's reads beside an idle target). Never below the true
 * number: added before an entry is made, taken off after one is deleted; an
 * entry the LRU evicts is never taken off, which only costs lookups. */
__u64 blk_inflight;

static __always_inline void inflight_add(__s64 n)
{
	__sync_fetch_and_add(&blk_inflight, n);
}

/* The request's entry, or NULL (without a lookup while none can exist). */
static __always_inline struct rq_state *rq_lookup(__u64 *key)
{
	return blk_inflight ? bpf_map_lookup_elem(&blk_rqs, key) : NULL;
}

/* Device and request type of rq, read once per request at issue (four
 * kernel reads: the device cannot change while the request is in flight). */
static __always_inline void rq_describe(struct request *rq, struct rq_state *st)
{
	struct gendisk *disk = BPF_CORE_READ(rq, q, disk);
	__u32 major = BPF_CORE_READ(disk, major), minor = BPF_CORE_READ(disk, first_minor);
	__u32 op = BPF_CORE_READ(rq, cmd_flags) & 0xff; /* REQ_OP_MASK */
	st->dev = major << 20 | minor;
	switch (op) {
	case 0: /* REQ_OP_READ */
		st->type = KL_BLK_READ;
		break;
	case 1: /* REQ_OP_WRITE */
		st->type = KL_BLK_WRITE;
		break;
	case 2: /* REQ_OP_FLUSH */
		st->type = KL_BLK_FLUSH;
		break;
	case 3: /* REQ_OP_DISCARD */
	case 5: /* REQ_OP_SECURE_ERASE */
		st->type = KL_BLK_DISCARD;
		break;
	default:
		st->type = KL_BLK_OTHER;
	}
}

static __always_inline void rq_add(const struct rq_state *st, __u32 what, __u64 now, __u64 v)
{
	struct osp_hkey k = {.op = what, .slice = osp_slice(now), .aux = st->type};
	k.dim[0] = st->dev;
	if (!osp_hist_add(&blk_hist, &k, v))
		osp_nest_count(&blk_hist, &k, st->parent);
}

static __always_inline int blk_insert(void *ctx, struct request *rq)
{
	__u64 key = (__u64)rq, id = bpf_get_current_pid_tgid();
	int target = osp_target_pid(id);
	struct rq_state *old = rq_lookup(&key);
	if (!target && !old)
		return 0;
	/* The parent is the inserting task's, unless that is not a target (a
	 * requeued request inserted again by kblockd keeps its issuer's). */
	struct rq_state st = {.insert_ns = bpf_ktime_get_ns(),
	                      .parent = target || !old ? osp_nest_code((__u32)id) : old->parent};
	if (!old)
		inflight_add(1);
	if (bpf_map_update_elem(&blk_rqs, &key, &st, BPF_ANY)) {
		osp_stat_inc(OSP_STAT_LOST);
		if (!old)
			inflight_add(-1);
	}
	return 0;
}

OSP_TP_TWINS(block_rq_insert, blk_insert, struct request *rq)
{
	return blk_insert(ctx, rq);
}

/* The clock is read only once a request is known to be ours: most requests
 * on a busy machine are other tasks' (Postmark's writeback by kworkers: 540k
 * of 734k issues), and a clock read costs ~50 ns here. */
static __always_inline int blk_issue(void *ctx, struct request *rq)
{
	__u64 key = (__u64)rq, now;
	struct rq_state *st = rq_lookup(&key);
	if (st) {
		now = bpf_ktime_get_ns();
		/* inserted earlier (possibly by a target task, in any context) */
		st->issue_ns = now;
		rq_describe(rq, st);
		rq_add(st, KL_BLK_QUEUE, now, now - st->insert_ns);
	} else {
		__u64 id = bpf_get_current_pid_tgid();
		if (!osp_target_pid(id))
			return 0;
		now = bpf_ktime_get_ns();
		struct rq_state nst = {.issue_ns = now, .parent = osp_nest_code((__u32)id)};
		rq_describe(rq, &nst);
		inflight_add(1);
		if (bpf_map_update_elem(&blk_rqs, &key, &nst, BPF_ANY)) {
			osp_stat_inc(OSP_STAT_LOST);
			inflight_add(-1);
			return 0;
		}
		/* Issued directly, never inserted: it queued from its allocation
		 * (start_time_ns, 0 when the queue keeps no I/O statistics). */
		__u64 t0 = BPF_CORE_READ(rq, start_time_ns);
		if (t0 && t0 <= now)
			rq_add(&nst, KL_BLK_QUEUE, now, now - t0);
		st = &nst;
	}
	rq_add(st, KL_BLK_SIZE, now, BPF_CORE_READ(rq, __data_len));
	return 0;
}

OSP_TP_TWINS(block_rq_issue, blk_issue, struct request *rq)
{
	return blk_issue(ctx, rq);
}

static __always_inline int blk_complete(void *ctx, struct request *rq, blk_status_t error,
                                        unsigned int nr_bytes)
{
	__u64 key = (__u64)rq;
	struct rq_state *st = rq_lookup(&key);
	if (!st)
		return 0; /* not ours, or started before we attached */
	__u64 now = bpf_ktime_get_ns();
	struct rq_state done = *st;
	if (!bpf_map_delete_elem(&blk_rqs, &key))
		inflight_add(-1);
	if (!done.issue_ns) {
		osp_stat_inc(OSP_STAT_UNPAIRED);
		return 0;
	}
	rq_add(&done, KL_BLK_DEVICE, now, now - done.issue_ns);
	return 0;
}

OSP_TP_TWINS(block_rq_complete, blk_complete, struct request *rq, blk_status_t error,
             unsigned int nr_bytes)
{
	return blk_complete(ctx, rq, error, nr_bytes);
}

/* A requeued request goes back to the queue: its queue time restarts now
 * (a later insert refines it) rather than charging the device for the wait. */
static __always_inline int blk_requeue(void *ctx, struct request *rq)
{
	__u64 key = (__u64)rq;
	struct rq_state *st = rq_lookup(&key);
	if (st) {
		st->insert_ns = bpf_ktime_get_ns();
		st->issue_ns = 0;
	}
	return 0;
}

OSP_TP_TWINS(block_rq_requeue, blk_requeue, struct request *rq)
{
	return blk_requeue(ctx, rq);
}
