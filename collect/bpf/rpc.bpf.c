// SPDX-License-Identifier: GPL-2.0
/* rpc layer: Sun RPC round trips by procedure on both ends. Client: the
 * kernel's own per-task numbers at rpc_stats_latency (the event that also
 * feeds /proc/self/mountstats, so counts match it): execute (task start to
 * its end: queueing, transmit, the reply, decoding) and rtt (transmit to
 * reply). Server: svc_stats_latency, request received to reply sent. An
 * NFSv4 server procedure is one COMPOUND: it is named after its first
 * operation that is not SEQUENCE or a file-handle move (nfsd_compound_status
 * names each op; a compound of SEQUENCE alone is SEQUENCE), which is the name the client gives the
 * call (READ is SEQUENCE, PUTFH, READ). sunrpc and nfsd are modules: their types are not in the
 * build machine's vmlinux.h, so the few fields read are declared here and relocated against the
 * running kernel's module BTF. */
#include "vmlinux.h"
#include "osp_common.bpf.h"
#include "kl_types.h"

char LICENSE[] SEC("license") = "GPL";

struct rpc_program___osp {
	u32 number;
} __attribute__((preserve_access_index));
struct rpc_clnt___osp {
	u32 cl_prog;
	u32 cl_vers;
} __attribute__((preserve_access_index));
struct rpc_procinfo___osp {
	const char *p_name;
} __attribute__((preserve_access_index));
struct rpc_message___osp {
	const struct rpc_procinfo___osp *rpc_proc;
} __attribute__((preserve_access_index));
struct rpc_task___osp {
	struct rpc_message___osp tk_msg;
	struct rpc_clnt___osp *tk_client;
	int tk_owner;
} __attribute__((preserve_access_index));
struct svc_procedure___osp {
	const char *pc_name;
} __attribute__((preserve_access_index));
struct svc_rqst___osp {
	const struct svc_procedure___osp *rq_procinfo;
	u32 rq_prog;
	u32 rq_vers;
	s64 rq_stime;
} __attribute__((preserve_access_index));

#define NFS_PROGRAM 100003

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, struct kl_rpc_name);
} rpc_names SEC(".maps");

/* nfsd thread -> the names of its compound's first op and of its first op
 * past the preamble (0: none yet). */
struct compound {
	__u64 first, main;
};
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct compound);
} rpc_compound SEC(".maps");

OSP_HIST_MAP(rpc_hist, 4096);

static __always_inline void remember_name(const char *name)
{
	__u64 key = (__u64)name;
	if (!name || bpf_map_lookup_elem(&rpc_names, &key))
		return;
	struct kl_rpc_name n = {};
	bpf_probe_read_kernel_str(n.name, sizeof(n.name), name);
	bpf_map_update_elem(&rpc_names, &key, &n, BPF_NOEXIST);
}

static __always_inline void rpc_add(__u32 what, __u32 side, const char *name, __u64 prog_vers,
                                    __u64 now, __s64 v)
{
	struct osp_hkey k = {.op = what, .slice = osp_slice(now), .aux = side};
	k.dim[0] = (__u64)name;
	k.dim[1] = prog_vers;
	osp_hist_add(&rpc_hist, &k, v > 0 ? (__u64)v : 0);
}

/* An RPC belongs to the targets when the task that started it is one
 * (tk_owner: a write flushed by fsync runs its RPC in rpciod), or when the
 * event runs in a target. */
static __always_inline int rpc_target(int owner)
{
	if ((osp_cfg.filter == OSP_FILTER_TREE || osp_cfg.filter == OSP_FILTER_PIDS) &&
	    osp_tgid_followed((__u32)owner))
		return 1;
	return osp_target();
}

static __always_inline int stats_latency(struct rpc_task___osp *t, __s64 rtt, __s64 execute)
{
	if (!rpc_target(BPF_CORE_READ(t, tk_owner)))
		return 0;
	const char *name = BPF_CORE_READ(t, tk_msg.rpc_proc, p_name);
	struct rpc_clnt___osp *c = BPF_CORE_READ(t, tk_client);
	__u64 pv = (__u64)BPF_CORE_READ(c, cl_prog) << 32 | BPF_CORE_READ(c, cl_vers);
	__u64 now = bpf_ktime_get_ns();
	remember_name(name);
	rpc_add(KL_RPC_EXECUTE, KL_RPC_CLIENT, name, pv, now, execute);
	rpc_add(KL_RPC_RTT, KL_RPC_CLIENT, name, pv, now, rtt);
	return 0;
}

OSP_TP_TWINS(rpc_stats_latency, rpc_lat, struct rpc_task___osp *t, __s64 backlog, __s64 rtt,
             __s64 execute)
{
	return stats_latency(t, rtt, execute);
}

static __always_inline int svc_latency(struct svc_rqst___osp *r)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct compound *c = bpf_map_lookup_elem(&rpc_compound, &tid);
	__u64 op = c ? (c->main ? c->main : c->first) : 0;
	if (c)
		bpf_map_delete_elem(&rpc_compound, &tid);
	if (!osp_target())
		return 0;
	__u32 prog = BPF_CORE_READ(r, rq_prog), vers = BPF_CORE_READ(r, rq_vers);
	const char *name = (const char *)op;
	if (!name || prog != NFS_PROGRAM || vers != 4)
		name = BPF_CORE_READ(r, rq_procinfo, pc_name);
	__u64 now = bpf_ktime_get_ns();
	remember_name(name);
	rpc_add(KL_RPC_EXECUTE, KL_RPC_SERVER, name, (__u64)prog << 32 | vers, now,
	        (__s64)now - BPF_CORE_READ(r, rq_stime));
	return 0;
}

OSP_TP_TWINS(svc_stats_latency, svc_lat, struct svc_rqst___osp *r)
{
	return svc_latency(r);
}

static __always_inline int compound_start(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct compound none = {};
	bpf_map_update_elem(&rpc_compound, &tid, &none, BPF_ANY);
	return 0;
}

OSP_TP_TWINS(nfsd_compound, compound)
{
	return compound_start();
}

/* SEQUENCE and the file-handle moves (PUTFH, PUTROOTFH, PUTPUBFH, SAVEFH,
 * RESTOREFH) open most compounds; the op after them is the call's own. */
static __always_inline int preamble_op(const char *s)
{
	if (s[0] == 'P' && s[1] == 'U' && s[2] == 'T')
		return 1;
	if (s[0] == 'S' && (s[1] == 'E' || s[1] == 'A') && (s[2] == 'Q' || s[2] == 'V'))
		return 1; /* SEQUENCE, SAVEFH */
	return s[0] == 'R' && s[1] == 'E' && s[2] == 'S' && s[3] == 'T';
}

static __always_inline int compound_op(const char *name)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct compound *c = bpf_map_lookup_elem(&rpc_compound, &tid);
	if (!c || c->main)
		return 0;
	char s[8] = {};
	bpf_probe_read_kernel_str(s, sizeof(s), name);
	/* nfsd names its ops OP_READ, ...; the client calls them READ */
	if (s[0] == 'O' && s[1] == 'P' && s[2] == '_') {
		name += 3;
		bpf_probe_read_kernel_str(s, sizeof(s), name);
	}
	if (!c->first)
		c->first = (__u64)name;
	if (!preamble_op(s))
		c->main = (__u64)name;
	return 0;
}

OSP_TP_TWINS(nfsd_compound_status, compound_status, __u32 args_opcnt, __u32 resp_opcnt,
             __u32 status, const char *name)
{
	return compound_op(name);
}
