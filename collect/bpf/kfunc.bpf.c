// SPDX-License-Identifier: GPL-2.0
/* fs --func: latency of one kernel function per object instance, through
 * fentry/fexit where the kernel allows, else kprobe/kretprobe. User space
 * loads one flavour; kfunc_id names the function (the op of its profile). */
#include "vmlinux.h"
#include "osp_common.bpf.h"
#include "kl.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 kfunc_id = 0;

KL_PAIR_STARTS(kf_starts);
OSP_HIST_MAP(kf_hist, 4096);

static __always_inline void kf_start(void)
{
	__u64 id = bpf_get_current_pid_tgid();
	if (!osp_target_pid(id))
		return;
	struct kl_pair_key k = {.tid = (__u32)id, .id = kfunc_id};
	kl_pair_start(&kf_starts, &k, bpf_ktime_get_ns());
}

static __always_inline void kf_end(void)
{
	__u64 id = bpf_get_current_pid_tgid();
	if (!osp_target_pid(id))
		return;
	struct kl_pair_key k = {.tid = (__u32)id, .id = kfunc_id};
	kl_pair_end(&kf_starts, &kf_hist, &k, bpf_ktime_get_ns());
}

SEC("fentry")
int BPF_PROG(kf_fentry)
{
	kf_start();
	return 0;
}

SEC("fexit")
int BPF_PROG(kf_fexit)
{
	kf_end();
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(kf_kprobe)
{
	kf_start();
	return 0;
}

SEC("kretprobe")
int BPF_KRETPROBE(kf_kretprobe)
{
	kf_end();
	return 0;
}
