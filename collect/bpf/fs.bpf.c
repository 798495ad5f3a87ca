// SPDX-License-Identifier: GPL-2.0
/* fs layer: one program serves every discovered file-system tracepoint. The
 * attach cookie says which start/end pair the event belongs to and which side
 * it is; starts are stacked per thread and pair so nested pairs time right. */
#include "vmlinux.h"
#include "osp_common.bpf.h"
#include "kl.bpf.h"

char LICENSE[] SEC("license") = "GPL";

KL_PAIR_STARTS(fs_starts);
OSP_HIST_MAP(fs_hist, OSP_HIST_ENTRIES);

SEC("tracepoint")
int fs_event(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	if (!osp_target_pid(id))
		return 0;
	__u64 now = bpf_ktime_get_ns(), cookie = bpf_get_attach_cookie(ctx);
	struct kl_pair_key k = {.tid = (__u32)id, .id = (__u32)cookie & ~KL_COOKIE_END};
	if (cookie & KL_COOKIE_END)
		kl_pair_end(&fs_starts, &fs_hist, &k, now);
	else
		kl_pair_start(&fs_starts, &k, now);
	return 0;
}
