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

static __always_inline int pair_event(__u64 cookie)
{
	__u64 id = bpf_get_current_pid_tgid();
	if (!osp_target_pid(id))
		return 0;
	__u64 now = bpf_ktime_get_ns();
	struct kl_pair_key k = {.tid = (__u32)id, .id = (__u32)cookie & ~KL_COOKIE_END};
	if (cookie & KL_COOKIE_END)
		kl_pair_end(&fs_starts, &fs_hist, &k, now);
	else
		kl_pair_start(&fs_starts, &k, now);
	return 0;
}

/* Preferred: a raw tracepoint attached with a cookie (kernel >= 6.10), cheap
 * to fire and to detach. */
SEC("raw_tp")
int fs_event_raw(void *ctx)
{
	return pair_event(bpf_get_attach_cookie(ctx));
}

/* Fallback: a perf-event tracepoint, which takes a cookie since 5.15. */
SEC("tracepoint")
int fs_event(void *ctx)
{
	return pair_event(bpf_get_attach_cookie(ctx));
}
