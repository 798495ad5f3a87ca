// SPDX-License-Identifier: GPL-2.0
/* uprobe layer: latency of user functions. One entry and one return program,
 * attached once per function with the function's index as cookie. */
#include "vmlinux.h"
#include "osp_common.bpf.h"
#include "kl.bpf.h"

char LICENSE[] SEC("license") = "GPL";

KL_PAIR_STARTS(up_starts);
OSP_HIST_MAP(up_hist, OSP_HIST_ENTRIES);

SEC("uprobe")
int BPF_KPROBE(up_entry)
{
	__u64 id = bpf_get_current_pid_tgid();
	if (!osp_target_pid(id))
		return 0;
	struct kl_pair_key k = {.tid = (__u32)id, .id = (__u32)bpf_get_attach_cookie(ctx)};
	kl_pair_start(&up_starts, &k, bpf_ktime_get_ns());
	return 0;
}

SEC("uretprobe")
int BPF_KRETPROBE(up_return)
{
	__u64 id = bpf_get_current_pid_tgid();
	if (!osp_target_pid(id))
		return 0;
	struct kl_pair_key k = {.tid = (__u32)id, .id = (__u32)bpf_get_attach_cookie(ctx)};
	kl_pair_end(&up_starts, &up_hist, &k, bpf_ktime_get_ns());
	return 0;
}
