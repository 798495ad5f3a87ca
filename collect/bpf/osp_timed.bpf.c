// SPDX-License-Identifier: GPL-2.0
/* The timing floor for bench/syscall_overhead.sh: the least any per-thread
 * latency measurement on sys_enter/sys_exit does. The thread's id and a clock
 * read at both ends, the start kept in an array slot per thread, no filter
 * and no histogram; the difference goes to one global sum. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 slot_mask = 0;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1);
} starts SEC(".maps");

__u64 total_ns;

SEC("tp_btf/sys_enter")
int BPF_PROG(osp_timed_enter)
{
	__u32 slot = (__u32)bpf_get_current_pid_tgid() & slot_mask;
	__u64 *t = bpf_map_lookup_elem(&starts, &slot);
	if (t)
		*t = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(osp_timed_exit)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 slot = (__u32)bpf_get_current_pid_tgid() & slot_mask;
	__u64 *t = bpf_map_lookup_elem(&starts, &slot);
	if (t && *t) {
		total_ns += now - *t;
		*t = 0;
	}
	return 0;
}
