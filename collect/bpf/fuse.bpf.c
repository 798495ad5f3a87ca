// SPDX-License-Identifier: GPL-2.0
/* fs layer, FUSE: a request's round trip through the daemon, from
 * fuse_request_send (in the requesting task) to fuse_request_end (usually in
 * the daemon's write to /dev/fuse), keyed by the request, per opcode. The
 * two ends run on different threads, so the generic per-thread pairing of
 * fs.bpf.c cannot time them. */
#include "vmlinux.h"
#include "osp_common.bpf.h"
#include "kl.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct sent {
	__u64 ts;
	__u64 dim0; /* --by value of the requesting task */
	__u64 dim1;
	__u32 pseq;
	__u32 tid;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct sent);
} fuse_reqs SEC(".maps");

OSP_HIST_MAP(fuse_hist, 4096);

static __always_inline int on_send(const struct fuse_req *req)
{
	__u64 id = bpf_get_current_pid_tgid(), key = (__u64)req;
	if (!osp_target_pid(id))
		return 0;
	struct osp_hkey by = {};
	kl_by_current(&by, id);
	struct sent s = {.ts = bpf_ktime_get_ns(),
	                 .dim0 = by.dim[0],
	                 .dim1 = by.dim[1],
	                 .pseq = osp_preempt_seq((__u32)id),
	                 .tid = (__u32)id};
	if (bpf_map_update_elem(&fuse_reqs, &key, &s, BPF_ANY))
		osp_stat_inc(OSP_STAT_LOST);
	return 0;
}

static __always_inline int on_end(const struct fuse_req *req)
{
	__u64 key = (__u64)req, now = bpf_ktime_get_ns();
	struct sent *s = bpf_map_lookup_elem(&fuse_reqs, &key);
	if (!s)
		return 0; /* not a target's request, or sent before attach */
	struct osp_hkey k = {.op = BPF_CORE_READ(req, in.h.opcode),
	                     .slice = osp_slice(now),
	                     .dim = {s->dim0, s->dim1}};
	if (osp_cfg.split_preempt && osp_preempt_seq(s->tid) != s->pseq)
		k.flags = OSP_HK_PREEMPTED;
	__u64 delta = now - s->ts;
	bpf_map_delete_elem(&fuse_reqs, &key);
	osp_hist_add(&fuse_hist, &k, delta);
	return 0;
}

OSP_TP_TWINS(fuse_request_send, fuse_send, const struct fuse_req *req)
{
	return on_send(req);
}

OSP_TP_TWINS(fuse_request_end, fuse_end, const struct fuse_req *req)
{
	return on_end(req);
}
